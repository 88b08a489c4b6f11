// llama.cpp's speed on a GGUF model, through node-llama-cpp, for `weft bench attention`: one
// backend per run ("cpu" with the given thread count, or "vulkan"; ggml-vulkan sees lavapipe
// only with GGML_VK_VISIBLE_DEVICES=0, which the bench sets).
//
// stdin: {"model": PATH, "backend": "cpu"|"vulkan", "threads": N, "prompt": [...], "steps": S, "runs": R}
// stdout: {"llama_cpp": release, "backend": ..., "device": name, "prefill_ms": best of R,
//          "decode_ms_per_token": median over R runs of S single-token evaluations}
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(join(process.cwd(), "noop.js"));
const modulePath = require.resolve("node-llama-cpp");
const { getLlama, LlamaLogLevel } = await import(modulePath);
const release = JSON.parse(readFileSync(join(dirname(modulePath), "..", "llama", "binariesGithubRelease.json"), "utf8")).release;

const req = JSON.parse(readFileSync(0, "utf8"));
const vulkan = req.backend === "vulkan";
const llama = await getLlama({ gpu: vulkan ? "vulkan" : false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: req.model, gpuLayers: vulkan ? "max" : 0 });
const context = await model.createContext({
  contextSize: req.prompt.length + req.steps + 8,
  batchSize: Math.max(req.prompt.length, 1),
  threads: req.threads,
});
const sequence = context.getSequence();
const now = () => Number(process.hrtime.bigint()) / 1e6;
let prefill = Infinity;
const decode = [];
for (let r = 0; r < req.runs; r++) {
  await sequence.clearHistory();
  let t0 = now();
  await sequence.evaluateWithoutGeneratingNewTokens(req.prompt);
  prefill = Math.min(prefill, now() - t0);
  // Decode: one token per llama_decode call, no sampling (node-llama-cpp's sampling loop costs
  // more than a small model's step); the tokens continue the prompt's pattern.
  t0 = now();
  for (let s = 0; s < req.steps; s++) await sequence.evaluateWithoutGeneratingNewTokens([req.prompt[s % req.prompt.length]]);
  decode.push((now() - t0) / req.steps);
}
decode.sort((a, b) => a - b);
const device = vulkan ? (await llama.getGpuDeviceNames()).join(", ") : "cpu";
process.stdout.write(JSON.stringify({ llama_cpp: release, backend: req.backend, device, prefill_ms: prefill,
                                      decode_ms_per_token: decode[Math.floor(decode.length / 2)] }) + "\n");
await context.dispose();
await model.dispose();
await llama.dispose();
