// Trains, with Hugging Face's reference implementation (the npm package `tokenizers`), the
// WordPiece, Unigram and WordLevel tokenizer.json files Weft's goldens check, since real ones
// cannot be downloaded here. Run from a folder where `require("tokenizers")` resolves:
//
//   node /path/to/train_reference_tokenizers.mjs
//
// writes bert_wordpiece.tokenizer.json, unigram_metaspace.tokenizer.json and
// wordlevel_whitespace.tokenizer.json beside this script. The Unigram tokenizer's Precompiled
// normalizer needs SentencePiece's `spm_train` (Debian: sentencepiece) to compile its rules.
//
// Training text: corpus_fragments.json without its emoji, so that the corpus (which has them)
// meets unknown characters. The npm package exposes no trainer options, so each model trains
// with its default trainer and the file is then assembled from the trained vocabulary: the
// special tokens are put in front, and the options below are set through the models' init.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

process.env.RAYON_NUM_THREADS = "1";  // the Unigram trainer's sums then add up in one order
const require = createRequire(join(process.cwd(), "noop.js"));
const tk = require("tokenizers");

const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), "weft-train-"));
const fragments = JSON.parse(readFileSync(join(here, "corpus_fragments.json"), "utf8"));
delete fragments.emoji;
const trainingFile = join(work, "train.txt");
writeFileSync(trainingFile, Object.values(fragments).flat().join("\n") + "\n");

// Trains `model` behind `normalizer` and `preTokenizer`, returning the saved tokenizer.json.
function train(model, normalizer, preTokenizer) {
  const tokenizer = new tk.Tokenizer(model);
  if (normalizer) tokenizer.setNormalizer(normalizer);
  tokenizer.setPreTokenizer(preTokenizer);
  tokenizer.train([trainingFile]);
  const path = join(work, "trained.json");
  tokenizer.save(path);
  return JSON.parse(readFileSync(path, "utf8"));
}

// The trained {token: id} with `specials` given the first ids, the rest in trained order, and at
// most `limit` tokens in all.
function withSpecialsFirst(vocab, specials, limit = Infinity) {
  const out = {};
  specials.forEach((s, i) => (out[s] = i));
  for (const [token] of Object.entries(vocab).sort((a, b) => a[1] - b[1])) {
    if (Object.keys(out).length >= limit) break;
    if (!(token in out)) out[token] = Object.keys(out).length;
  }
  return out;
}

function save(tokenizer, name) {
  const path = join(here, name);
  tokenizer.save(path, true);
  console.log(`${name}: ${tokenizer.getVocabSize(true)} tokens`);
}

// (a) BERT: BertNormalizer, BertPreTokenizer, WordPiece, BertProcessing, WordPiece decoder. The
// vocabulary is cut to 900 tokens so that many corpus words split into ## pieces, and
// max_input_chars_per_word is 24 so that the corpus's long runs meet the whole-word [UNK].
function bertWordPiece() {
  const normalizer = tk.bertNormalizer({ lowercase: true });
  const trained = train(tk.WordPiece.empty(), normalizer, tk.bertPreTokenizer());
  const specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
  const vocab = withSpecialsFirst(trained.model.vocab, specials, 900);
  const model = tk.WordPiece.init(vocab, { unkToken: "[UNK]", continuingSubwordPrefix: "##", maxInputCharsPerWord: 24 });
  const tokenizer = new tk.Tokenizer(model);
  tokenizer.setNormalizer(normalizer);
  tokenizer.setPreTokenizer(tk.bertPreTokenizer());
  tokenizer.setPostProcessor(tk.bertProcessing(["[SEP]", vocab["[SEP]"]], ["[CLS]", vocab["[CLS]"]]));
  tokenizer.setDecoder(tk.wordPieceDecoder("##", true));
  tokenizer.addSpecialTokens(specials);
  save(tokenizer, "bert_wordpiece.tokenizer.json");
}

// SentencePiece's precompiled_charsmap for NFKC rules restricted to what the golden corpus
// holds (the full nmt_nfkc map is ~240 kB): every character and grapheme whose NFKC differs,
// tabs, newlines and the Unicode line separators as spaces, and zero-width characters removed.
// spm_train compiles the rules; the charsmap is read back out of its model file.
function precompiledCharsmap() {
  const texts = readFileSync(join(here, "corpus.jsonl"), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
  const rules = new Map();
  const hex = (s) => Array.from(s, (c) => c.codePointAt(0).toString(16).toUpperCase()).join(" ");
  const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
  for (const text of texts) {
    for (const { segment } of segmenter.segment(text)) {
      const chars = Array.from(segment);
      for (const c of chars) if (c.normalize("NFKC") !== c) rules.set(hex(c), hex(c.normalize("NFKC")));
      const perChar = chars.map((c) => c.normalize("NFKC")).join("");
      if (chars.length > 1 && segment.normalize("NFKC") !== perChar) rules.set(hex(segment), hex(segment.normalize("NFKC")));
    }
  }
  for (const c of ["\t", "\n", "\r", "\u000b", "\u000c", "\u0085", "\u2028", "\u2029"]) rules.set(hex(c), "20");
  for (const c of ["\u200b", "\u200c", "\u200d", "\ufeff"]) rules.set(hex(c), "");
  const tsv = join(work, "rules.tsv");
  writeFileSync(tsv, [...rules].map(([from, to]) => `${from}\t${to}`).join("\n") + "\n");
  execFileSync("spm_train", [`--input=${trainingFile}`, `--model_prefix=${join(work, "spm")}`, "--model_type=char",
    "--vocab_size=500", "--hard_vocab_limit=false", `--normalization_rule_tsv=${tsv}`], { stdio: "ignore" });
  // ModelProto field 3 is the NormalizerSpec; its field 2 is precompiled_charsmap.
  return protoField(protoField(readFileSync(join(work, "spm.model")), 3), 2);
}

// The bytes of the first length-delimited field `number` of a protobuf message.
function protoField(bytes, number) {
  let i = 0;
  const varint = () => {
    let value = 0n, shift = 0n;
    for (;;) {
      const b = bytes[i++];
      value |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return value;
      shift += 7n;
    }
  };
  while (i < bytes.length) {
    const key = Number(varint());
    const [field, wire] = [key >> 3, key & 7];
    if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const length = Number(varint());
      if (field === number) return bytes.subarray(i, i + length);
      i += length;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  throw new Error(`protobuf field ${number} not found`);
}

// (b) SentencePiece-style Unigram: Precompiled normalizer, Metaspace, byte fallback. The byte
// pieces leave out 0xF0 (the lead byte of most emoji), so emoji runs fall back to <unk> while
// other unknown characters become bytes. <unk> is not an added token, so the corpus's literal
// "<unk>" reaches the model and fuses with unknown neighbours as Hugging Face does.
function unigramMetaspace() {
  const normalizer = tk.precompiled(Array.from(precompiledCharsmap()));
  const metaspace = tk.metaspacePreTokenizer("▁", "always", true);
  const trained = train(tk.Unigram.empty(), normalizer, metaspace);
  const vocab = [["<unk>", 0], ["<s>", 0], ["</s>", 0]];
  for (const [piece, score] of trained.model.vocab) vocab.push([piece, score]);
  for (let b = 0; b < 256; b++)
    if (b !== 0xf0) vocab.push([`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`, 0]);
  const tokenizer = new tk.Tokenizer(tk.Unigram.init(vocab, { unkId: 0, byteFallback: true }));
  tokenizer.setNormalizer(normalizer);
  tokenizer.setPreTokenizer(metaspace);
  tokenizer.setPostProcessor(tk.templateProcessing("$A </s>", "$A </s> $B </s>", [["</s>", 2]]));
  tokenizer.setDecoder(tk.sequenceDecoder([tk.byteFallbackDecoder(), tk.metaspaceDecoder("▁", "always", true)]));
  tokenizer.addSpecialTokens(["<s>", "</s>"]);
  save(tokenizer, "unigram_metaspace.tokenizer.json");
}

// (c) WordLevel behind the Whitespace pre-tokenizer, with [UNK] for words it never saw.
function wordLevelWhitespace() {
  const trained = train(tk.WordLevel.empty(), null, tk.whitespacePreTokenizer());
  const vocab = withSpecialsFirst(trained.model.vocab, ["[UNK]"]);
  const tokenizer = new tk.Tokenizer(tk.WordLevel.init(vocab, { unkToken: "[UNK]" }));
  tokenizer.setPreTokenizer(tk.whitespacePreTokenizer());
  save(tokenizer, "wordlevel_whitespace.tokenizer.json");
}

bertWordPiece();
unigramMetaspace();
wordLevelWhitespace();
