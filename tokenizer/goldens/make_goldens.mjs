// Builds the golden corpus and, with Hugging Face's reference tokenizer (the npm package
// `tokenizers`, Rust underneath), the ids each tokenizer gives for it.
//
//   npm install tokenizers            (once, anywhere on NODE_PATH or in this folder)
//   node make_goldens.mjs corpus                     -> corpus.jsonl (deterministic)
//   node make_goldens.mjs ids NAME TOKENIZER.json    -> NAME.ids.jsonl
//
// Each line of NAME.ids.jsonl answers the same line of corpus.jsonl:
//   {"ids": [...], "with_special": [...], "decoded": "..."}
// `with_special` is the encoding with the post-processor's tokens; `decoded` is the reference's
// decode of `ids`. Weft's test compares all three.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const corpusPath = join(here, "corpus.jsonl");

// mulberry32: a small seeded generator, so the corpus is the same on every machine.
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeCorpus() {
  const fragments = JSON.parse(readFileSync(join(here, "corpus_fragments.json"), "utf8"));
  const all = Object.values(fragments).flat();
  const texts = [...all];
  const random = rng(20261125);
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const separators = [" ", "", "\n", "  ", "\t", " \n ", "\n\n", ". ", ", "];
  while (texts.length < 600) {
    const parts = [];
    const n = 1 + Math.floor(random() * 4);
    for (let i = 0; i < n; i++) {
      let s = pick(all);
      const chars = Array.from(s);  // code points, so a cut never splits one
      const mode = random();
      if (mode < 0.25) {
        const a = Math.floor(random() * chars.length);
        const b = a + 1 + Math.floor(random() * (chars.length - a));
        s = chars.slice(a, b).join("");
      } else if (mode < 0.32) {
        s = s.toUpperCase();
      } else if (mode < 0.36) {
        s = s.repeat(2 + Math.floor(random() * 3));
      }
      parts.push(s);
    }
    let text = parts[0];
    for (let i = 1; i < parts.length; i++) text += pick(separators) + parts[i];
    texts.push(text);
  }
  writeFileSync(corpusPath, texts.map((t) => JSON.stringify(t)).join("\n") + "\n");
  console.log(`corpus.jsonl: ${texts.length} texts`);
}

async function makeIds(name, tokenizerPath) {
  const require = createRequire(join(process.cwd(), "noop.js"));
  const { Tokenizer } = require("tokenizers");
  const tokenizer = Tokenizer.fromFile(tokenizerPath);
  const texts = readFileSync(corpusPath, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
  const lines = [];
  for (const text of texts) {
    const ids = (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds();
    const withSpecial = (await tokenizer.encode(text, null, { addSpecialTokens: true })).getIds();
    const decoded = await tokenizer.decode(ids, false);
    lines.push(JSON.stringify({ ids, with_special: withSpecial, decoded }));
  }
  writeFileSync(join(here, `${name}.ids.jsonl`), lines.join("\n") + "\n");
  console.log(`${name}.ids.jsonl: ${lines.length} lines`);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "corpus") makeCorpus();
else if (mode === "ids" && args.length === 2) await makeIds(args[0], args[1]);
else {
  console.error("usage: node make_goldens.mjs corpus | ids NAME TOKENIZER.json");
  process.exit(2);
}
