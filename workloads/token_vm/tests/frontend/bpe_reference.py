#!/usr/bin/python3
"""Independent reference for the byte-level BPE loader's tests: GPT-2's encoder algorithm
(the exact pre-tokenizer regex with Unicode classes from the `regex` module, bytes -> unicode
map, rank-ordered merges) run on a tokenizer.json.

usage: bpe_reference.py TOKENIZER.json INPUTS.jsonl > OUTPUTS.jsonl
Each input line is a JSON string; each output line is {"pieces": [...], "ids": [...]}: the
pre-tokenizer's pieces (UTF-8 text) and the token ids. Exit 77 when `regex` is missing."""
import json
import sys

try:
    import regex
except ImportError:
    sys.exit(77)

PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def bpe(word, ranks):
    symbols = list(word)
    while len(symbols) > 1:
        pairs = [(ranks.get((a, b), None), a, b) for a, b in zip(symbols, symbols[1:])]
        pairs = [p for p in pairs if p[0] is not None]
        if not pairs:
            break
        _, first, second = min(pairs)
        merged, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
                merged.append(first + second)
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        symbols = merged
    return symbols


def main():
    tok = json.load(open(sys.argv[1], encoding="utf-8"))
    vocab = tok["model"]["vocab"]
    ranks = {}
    for rank, m in enumerate(tok["model"]["merges"]):
        a, b = m.split(" ") if isinstance(m, str) else m
        ranks.setdefault((a, b), rank)
    added = sorted(((t["content"], t["id"]) for t in tok.get("added_tokens") or []), key=lambda t: -len(t[0]))
    b2u = bytes_to_unicode()
    for line in open(sys.argv[2], encoding="utf-8"):
        text = json.loads(line)
        pieces, ids = [], []

        def plain(segment):
            for piece in PATTERN.findall(segment):
                pieces.append(piece)
                word = "".join(b2u[b] for b in piece.encode("utf-8"))
                ids.extend(vocab[s] for s in bpe(word, ranks))

        start = i = 0
        while i < len(text):
            hit = next((t for t in added if text.startswith(t[0], i)), None)
            if hit is None:
                i += 1
                continue
            plain(text[start:i])
            ids.append(hit[1])
            i += len(hit[0])
            start = i
        plain(text[start:])
        print(json.dumps({"pieces": pieces, "ids": ids}, ensure_ascii=False))


main()
