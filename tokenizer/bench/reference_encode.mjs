// The peer for `weft bench tokenizer`: Hugging Face's Rust tokenizers (npm `tokenizers`)
// encoding one text file, timed in this process with the text already in memory.
//   node reference_encode.mjs TOKENIZER.json TEXT_FILE REPS
// Prints one JSON object: {"version", "ids", "ids_fnv1a", "ms": [per repetition]}.
// The module is found through NODE_PATH (weft bench adds WEFT_PEERS_DIR/node_modules).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let tokenizers;
try {
  tokenizers = require("tokenizers");
} catch {
  console.log(JSON.stringify({ missing: "the npm package `tokenizers` (npm install --prefix $WEFT_PEERS_DIR tokenizers)" }));
  process.exit(0);
}
const [tokenizerPath, textPath, repsArg] = process.argv.slice(2);
const tokenizer = tokenizers.Tokenizer.fromFile(tokenizerPath);
const text = readFileSync(textPath, "utf8");
const ms = [];
let ids = [];
for (let r = 0; r < Number(repsArg || 3); r++) {
  const t0 = process.hrtime.bigint();
  ids = (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds();
  ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
// FNV-1a 64 over the ids' little-endian bytes, so weft can check the peer gave the same ids.
let h = 0xcbf29ce484222325n;
for (const id of ids)
  for (let k = 0; k < 4; k++) h = ((h ^ BigInt((id >>> (8 * k)) & 255)) * 0x100000001b3n) & 0xffffffffffffffffn;
const version = JSON.parse(readFileSync(require.resolve("tokenizers/package.json"), "utf8")).version;
console.log(JSON.stringify({ version, ids: ids.length, ids_fnv1a: h.toString(16).padStart(16, "0"), ms }));
