"""How Monty's evidence updater calls Weft's hypothesis-update backend (weft.hypothesis_update).

In Monty, each EvidenceGraphLM updates its hypotheses in numpy, one LM and one graph at a time.
With Weft, every LM shares one backend: object models upload once, each step is one dispatch for
all LMs, one wait, then each LM reads only what it needs. Run from the repository root:

    PYTHONPATH=build/python python3 examples/python/monty_backend.py [--vulkan]
"""
import sys
from typing import Dict, Tuple

import numpy as np
import numpy.typing as npt

from weft import hypothesis_update as hypothesis


def ball(n: int, radius: float, hue: float, seed: int) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """A graph as Monty stores it: node locations (N,3) and features (N,16): node id, pose vectors
    (surface normal, two curvature directions), pose_fully_defined, hsv, log curvatures."""
    sn = np.random.default_rng(seed).normal(size=(n, 3))
    sn /= np.linalg.norm(sn, axis=1, keepdims=True)
    cd1 = np.cross(sn, [0.0, 0.0, 1.0])
    cd1 /= np.linalg.norm(cd1, axis=1, keepdims=True)
    x = np.zeros((n, 16), np.float32)
    x[:, 0] = np.arange(n)
    x[:, 1:10] = np.stack([sn, cd1, np.cross(sn, cd1)], axis=1).reshape(n, 9)
    x[:, 11:14] = [hue, 0.8, 0.7]
    x[:, 14:16] = np.log(1.0 / radius)
    return (radius * sn).astype(np.float32), x


backend = hypothesis.Backend.vulkan() if "--vulkan" in sys.argv else hypothesis.Backend.cpu()
graphs = {name: ball(150, r, hue, seed) for name, r, hue, seed in [("mug", 0.02, 0.0, 1), ("bowl", 0.015, 0.6, 2)]}
ids = [backend.add_graph(pos, x, name=name) for name, (pos, x) in graphs.items()]  # LM graph memory, once
config = dict(kind="default", threshold="80%", max_match_distance=0.01, max_nneighbors=10,
              features=[{"name": "hsv", "tolerances": [0.1, 0.2, 0.2], "weights": [1.0, 0.5, 0.5]},
                        {"name": "principal_curvatures_log", "tolerances": [1.0, 1.0], "weights": [1.0, 1.0]}])
lms = [backend.add_learning_module(ids, config) for _ in range(2)]  # Monty's learning modules

pos, x = graphs["mug"]  # the sensors move over the mug
last: Dict[int, int] = {}
for step, nodes in enumerate(np.random.default_rng(0).choice(len(pos), (5, len(lms)), replace=False)):
    # What each LM's _update_evidence hands over: its displacement and sensed features.
    inputs = {lm: {"displacement": None if lm not in last else (pos[n] - pos[last[lm]]).astype(np.float64),
                   "pose_vectors": x[n, 1:10].reshape(3, 3), "pose_fully_defined": False,
                   "features": {"hsv": x[n, 11:14], "principal_curvatures_log": x[n, 14:16]}}
              for lm, n in zip(lms, nodes)}
    last = dict(zip(lms, nodes))
    backend.dispatch(inputs)  # all LMs at once, non-blocking
    backend.wait()            # once per step
    for lm in lms:            # each LM reads its most likely hypothesis (and evidence if it wants)
        ml = backend.most_likely(lm)
        print(f"step {step} LM {lm}: {backend.graph(ml.graph)['name']} (evidence {ml.evidence:.2f}, "
              f"{len(backend.evidence(lm, ml.graph))} hypotheses)")
