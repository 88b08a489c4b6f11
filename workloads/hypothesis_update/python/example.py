#!/usr/bin/env python3
"""How Monty's evidence updater would drive Weft's hypothesis-update backend from Python.

One backend object serves every learning module (LM). Object models upload once; each LM names
the graphs it holds; every sensorimotor step is dispatch (all LMs) -> wait (once) -> read.

    PYTHONPATH=build/workloads/hypothesis_update/python /usr/bin/python3 \
        workloads/hypothesis_update/python/example.py [--backend cpu|vulkan] [--steps 8]

The synthetic object is a 2 cm sphere of nodes with hsv and curvature features; the "sensor"
walks over the surface of one of the two objects and reports what a node there looks like.
"""
import argparse
from typing import Any, Dict, Tuple

import numpy as np
import numpy.typing as npt

from weft import hypothesis_update as wh


def sphere_graph(n: int, radius: float, hue: float, seed: int) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """pos (N,3) and x (N,16): node id, pose vectors (sn, cd1, cd2), pose_fully_defined, hsv, pcl."""
    rng = np.random.default_rng(seed)
    sn = rng.normal(size=(n, 3))
    sn /= np.linalg.norm(sn, axis=1, keepdims=True)
    pos = radius * sn
    cd1 = np.cross(sn, [0.0, 0.0, 1.0])
    cd1 /= np.linalg.norm(cd1, axis=1, keepdims=True)
    cd2 = np.cross(sn, cd1)
    x = np.zeros((n, 16), np.float32)
    x[:, 0] = np.arange(n)
    x[:, 1:10] = np.stack([sn, cd1, cd2], axis=1).reshape(n, 9)
    x[:, 10] = 0.0  # a sphere's curvature directions are undefined
    x[:, 11:14] = [hue, 0.8, 0.7]
    x[:, 14:16] = np.log(1.0 / radius)
    return pos.astype(np.float32), x


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=["cpu", "vulkan"], default="cpu")
    ap.add_argument("--steps", type=int, default=8)
    args = ap.parse_args()

    backend = wh.Backend.cpu(threads=2) if args.backend == "cpu" else wh.Backend.vulkan(device="")

    # Object models (Monty: the LM's graph memory), uploaded once.
    objects = {"red_ball": sphere_graph(200, 0.02, 0.0, 1), "blue_ball": sphere_graph(200, 0.015, 0.6, 2)}
    graph_ids = {name: backend.add_graph(pos, x, name=name) for name, (pos, x) in objects.items()}

    # Two LMs with Monty's default evidence LM parameters (mirrors UpdaterConfig).
    lm_args = dict(
        kind="default", threshold="80%", max_match_distance=0.01, max_nneighbors=10,
        past_weight=1.0, present_weight=1.0, feature_evidence_increment=1.0, pose_weights=[1.0, 1.0, 1.0],
        features=[{"name": "hsv", "tolerances": [0.1, 0.2, 0.2], "weights": [1.0, 0.5, 0.5]},
                  {"name": "principal_curvatures_log", "tolerances": [1.0, 1.0], "weights": [1.0, 1.0]}],
    )
    lms = [backend.add_learning_module(list(graph_ids.values()), lm_args) for _ in range(2)]
    backend.set_groups([lms])  # one group: the backend may stack them into one dispatch

    # The sensor walks over the red ball; each LM sees a different patch.
    pos, x = objects["red_ball"]
    rng = np.random.default_rng(0)
    path = {lm: rng.choice(len(pos), args.steps, replace=False) for lm in lms}
    last: Dict[int, int] = {}  # the node each LM last sensed: displacements are relative to it
    for step in range(args.steps):
        inputs: Dict[int, Dict[str, Any]] = {}
        for lm in lms:
            if lm == lms[1] and step == 2:
                continue  # this LM's sensor is off-object this step: a no-op for it
            node = path[lm][step]
            inputs[lm] = {
                "displacement": None if lm not in last else (pos[node] - pos[last[lm]]).astype(np.float64),
                "pose_vectors": x[node, 1:10].reshape(3, 3),
                "pose_fully_defined": False,
                "features": {"hsv": x[node, 11:14], "principal_curvatures_log": x[node, 14:16]},
            }
            last[lm] = node
        backend.dispatch(inputs)  # non-blocking: queues every LM's work (GIL released)
        backend.wait()            # once, for all of it
        for lm in lms:            # read back only what the LM needs
            ml = backend.most_likely(lm)
            if ml.graph < 0:
                print(f"step {step} LM {lm}: no hypotheses yet")
                continue
            name = backend.graph(ml.graph)["name"]
            ev = backend.evidence(lm, ml.graph)
            err = backend.prediction_error(lm, ml.graph)
            print(f"step {step} LM {lm}: most likely {name} hypothesis {ml.hypothesis} evidence {ml.evidence:.3f} "
                  f"(of {len(ev)}; prediction error {err:.3f}; updated {backend.step_info(lm, ml.graph).updated})")

    for lm in lms:
        ml = backend.most_likely(lm)
        print(f"LM {lm} recognises {backend.graph(ml.graph)['name']}")


if __name__ == "__main__":
    main()
