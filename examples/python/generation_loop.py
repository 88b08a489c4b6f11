"""A generation loop steered by the token VM, from Python.

A small numpy language model (a character 4-gram model counted from a few example answers,
mixed with a seeded random weight matrix) produces logits over the byte tokenizer's vocabulary,
Python samples from them, and the token VM steers every stream of the batch through the UDPL
workflow in examples/token_vm: it forces the prompts, bounds the thinking loop, branches on the
model's verdict, hands the model's arithmetic to a Python tool whose answer it feeds back, and
extracts the answer. Run from the repository root:

    PYTHONPATH=build/python python3 examples/python/generation_loop.py [--reference] [--batch 4]
"""
import argparse
import ast
import operator
import os
from collections import defaultdict
from typing import DefaultDict, List

import numpy as np
import numpy.typing as npt

import weft
from weft.token_vm import Machine, Workflow

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "token_vm")
PAD = 256  # the byte tokenizer's pad token: "no token this step"

# What the toy model learns to say after "[Answer]": loop verdicts, reasoning, arithmetic, answers.
CORPUS = [
    "[Answer] more[EOS]", "[Answer] stop[Jump]", "[Answer] 17 * 23 = 391, plus 4.[EOS]",
    "[Answer] 17 * 23 + 4[EOS]", "[Answer] 395[EOS]", "[Answer] [EOS]", "[Answer] 391 + 4 = 395.[EOS]",
    "[Answer] 17 * 20 = 340[EOS]", "[Answer] (17 * 20) + (17 * 3) + 4[EOS]", "[Answer] stop[Jump]",
]


class NgramModel:
    """Next-byte logits from counts of 4-grams (backing off to shorter contexts), plus a seeded
    random matrix over the last byte: the 'weights' that make each seed's model different."""

    def __init__(self, corpus: List[str], order: int = 4, seed: int = 0, mix: float = 0.5) -> None:
        self.order = order
        self.counts: DefaultDict[bytes, npt.NDArray[np.float64]] = defaultdict(lambda: np.zeros(257, dtype=np.float64))
        for text in corpus:
            data = text.encode()
            for i in range(len(data)):
                for k in range(order):
                    if i - k < 0:
                        break
                    self.counts[data[i - k:i]][data[i]] += 1.0
        self.weights = np.random.default_rng(seed).normal(0.0, mix, size=(257, 257))
        self.weights[:, PAD] = -1e9  # never "sample" the pad token

    def logits(self, context: List[int]) -> npt.NDArray[np.float64]:
        """float64[257]: the next byte's logits (256 bytes and the pad token) after the context."""
        tail = bytes(context[-(self.order - 1):])
        c = self.counts[b""]  # the shortest context: every byte of the corpus
        for k in range(len(tail), -1, -1):
            found = self.counts.get(tail[len(tail) - k:])
            if found is not None and found.sum() > 0:
                c = found
                break
        base: npt.NDArray[np.float64] = np.log(c / c.sum() + 1e-4)
        row: npt.NDArray[np.float64] = self.weights[context[-1] if context else 0]
        return base + row


def sample(logits: npt.NDArray[np.float64], rng: np.random.Generator, temperature: float) -> int:
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    return int(rng.choice(len(p), p=p))


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


def calculator(text: str) -> str:
    """The workflow's tool: integer + - * over what the model wrote, up to an '=' or ',' (its
    closing [EOS] removed); anything else gets "error"."""

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            result: int = _OPS[type(node.op)](value(node.left), value(node.right))
            return result
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        raise ValueError("not arithmetic")

    try:
        expression = text.replace("[EOS]", "").split("=")[0].split(",")[0].strip()
        return f"{value(ast.parse(expression, mode='eval').body)}\n"
    except (SyntaxError, ValueError):
        return "error\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--temperature", type=float, default=0.6)
    parser.add_argument("--max-steps", type=int, default=4000)
    parser.add_argument("--reference", action="store_true", help="the CPU reference instead of the device")
    args = parser.parse_args()

    workflow = Workflow.compile(os.path.join(EXAMPLE, "prompts.toml"), flow=os.path.join(EXAMPLE, "flow.toml"),
                                resources={"problem": "What is 17 * 23 + 4?"})
    device = None if args.reference else weft.Device()
    vm = Machine(workflow, batch=args.batch, device=device)
    calls: List[str] = []

    def tool(text: str) -> str:
        calls.append(text)
        return calculator(text)
    vm.set_tool("calculator", tool)

    model = NgramModel(CORPUS, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    context: List[List[int]] = [[] for _ in range(args.batch)]  # what each stream's model has consumed
    steps = 0
    while not vm.done and steps < args.max_steps:
        sampled = np.array([sample(model.logits(c), rng, args.temperature) for c in context], dtype=np.uint32)
        consumed = vm.step(sampled)
        for b, t in enumerate(consumed):
            if t != PAD:
                context[b].append(int(t))
        if vm.callbacks_ready:
            vm.resolve_callbacks()
        steps += 1

    where = "the CPU reference" if device is None else device.info["name"]
    print(f"{args.batch} streams on {where}: {steps} steps, {len(calls)} calculator calls, done: {vm.done}")
    for b, (found, zones) in enumerate(zip(vm.extract(), vm.decisions())):
        print(f"stream {b}: {len(zones)} zones; answer {found.get('answer', '')!r}")
        print(f"  work {found.get('work', '')!r}")
    return 0 if vm.done else 1


if __name__ == "__main__":
    raise SystemExit(main())
