#!/usr/bin/env python3
"""Writes the small .npy inputs of the example manifests (committed beside them).

Deterministic formulas, no random numbers, so a rerun reproduces the committed files byte for
byte: python3 examples/make_inputs.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def save(rel, array):
    path = os.path.join(HERE, rel)
    np.save(path, array)
    print(f"wrote {path}: {array.dtype} {array.shape}")


def main():
    n = 256
    k = np.arange(n, dtype=np.float64)
    save("chain/x.npy", np.linspace(-1.0, 1.0, n).astype("<f4"))
    save("chain/y.npy", (0.5 * np.cos(k / 16.0)).astype("<f4"))
    save("gain/signal.npy", np.sin(2.0 * np.pi * k / 64.0).astype("<f4"))
    save("early_exit/x.npy", (1.0 + np.cos(np.arange(64) / 5.0)).astype("<f4"))


if __name__ == "__main__":
    main()
