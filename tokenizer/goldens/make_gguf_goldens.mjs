// The ids llama.cpp gives for the golden corpus with a GGUF file's own vocabulary, through
// node-llama-cpp (llama.cpp's prebuilt library; it reads only the vocabulary here).
//
//   npm install node-llama-cpp        (once, anywhere on NODE_PATH or in this folder)
//   weft attention write-model NAME.gguf --vocab NAME.tokenizer.json [--pre PRE] --tied
//   node make_gguf_goldens.mjs NAME.gguf > NAME.gguf_ids.jsonl
//
// Each output line answers the same line of corpus.jsonl:
//   {"ids": [...], "decoded": "..."}
// `ids` is llama_tokenize with special-token parsing on and no BOS/EOS added (node-llama-cpp's
// tokenize(text, true)); `decoded` is llama_detokenize of those ids without special tokens.
// The first line is {"llama_cpp": "<release>", "pre": "<tokenizer.ggml.pre>"}: the build the ids
// came from and the pre-tokenizer name the file was written with.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(process.cwd(), "noop.js"));
const modulePath = require.resolve("node-llama-cpp");
const { getLlama, LlamaLogLevel } = await import(modulePath);

const [modelPath] = process.argv.slice(2);
if (!modelPath) {
  console.error("usage: node make_gguf_goldens.mjs MODEL.gguf > NAME.gguf_ids.jsonl");
  process.exit(2);
}
const corpus = readFileSync(join(here, "corpus.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath, vocabOnly: true });
const release = JSON.parse(readFileSync(join(dirname(modulePath), "..", "llama", "binariesGithubRelease.json"), "utf8")).release;
const pre = model.fileInfo?.metadata?.tokenizer?.ggml?.pre ?? "";
const lines = [JSON.stringify({ llama_cpp: release, pre })];
for (const text of corpus) {
  const ids = Array.from(model.tokenize(text, true));
  lines.push(JSON.stringify({ ids, decoded: model.detokenize(ids, false) }));
}
process.stdout.write(lines.join("\n") + "\n");
await model.dispose();
await llama.dispose();
