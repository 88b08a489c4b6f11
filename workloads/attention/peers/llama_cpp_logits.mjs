// llama.cpp's view of a GGUF model, through node-llama-cpp (CPU backend, one thread), for
// `weft attention compare`: the logits at every position of a given token sequence
// (teacher-forced) and its own greedy continuation of the prompt.
//
// stdin: {"model": PATH, "tokens": [...], "prompt_len": P, "n": N}
// stdout: {"llama_cpp": release, "logits": [[...vocab] for positions P-1 .. len-1], "greedy": [N ids]}
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(join(process.cwd(), "noop.js"));
const modulePath = require.resolve("node-llama-cpp");
const { getLlama, LlamaLogLevel } = await import(modulePath);
const release = JSON.parse(readFileSync(join(dirname(modulePath), "..", "llama", "binariesGithubRelease.json"), "utf8")).release;

const req = JSON.parse(readFileSync(0, "utf8"));
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: req.model });
const contextSize = Math.max(req.tokens.length, req.prompt_len + req.n) + 8;
const context = await model.createContext({ contextSize, batchSize: 64, threads: 1 });

const vocab = model.tokens.size ?? model.fileInfo.metadata.tokenizer.ggml.tokens.length;
let sequence = context.getSequence();
const input = req.tokens.map((t, i) => (i + 1 >= req.prompt_len ? [t, { generateNext: { logits: true } }] : t));
const out = await sequence.controlledEvaluate(input);
const logits = [];
for (let i = req.prompt_len - 1; i < req.tokens.length; i++) {
  const row = new Array(vocab).fill(null);
  for (const [token, logit] of out[i].next.logits) row[token] = logit;
  logits.push(row);
}
await sequence.clearHistory();
const greedy = [];
for await (const token of sequence.evaluate(req.tokens.slice(0, req.prompt_len), { temperature: 0 })) {
  greedy.push(token);
  if (greedy.length >= req.n) break;
}
process.stdout.write(JSON.stringify({ llama_cpp: release, logits, greedy }) + "\n");
await context.dispose();
await model.dispose();
await llama.dispose();
