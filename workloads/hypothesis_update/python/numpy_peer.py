#!/usr/bin/python3
"""The numpy peer of `weft bench monty`: Monty's default hypotheses update, single-threaded.

The bench (workloads/hypothesis_update/cli.cpp, numpy_peer.cpp) starts this script with a case
directory it wrote, runs the update steps here on the same inputs its backends got, times each
step inside this process (interpreter start and file loading are not timed), and compares the
evidence written back with its CPU backend's. It is a peer, not a reference: every step does what
Monty's DefaultHypothesesUpdater / DefaultHypothesesDisplacer (tbp.monty
frameworks/models/evidence_matching/hypotheses_displacer.py) does per (LM, graph), the same numpy
expressions in the same order:

  1. threshold "all": min(E) (the bench tests every hypothesis);
  2. displace: L + R . d;
  3. node feature evidence (DefaultFeatureEvidenceCalculator): per column max(tol - diff, 0) / tol,
     hue circular, np.average with the feature weights, times feature_evidence_increment;
  4. tested = where(E >= threshold); the sensed pose vectors rotated by every tested R;
  5. the K nearest nodes of every search location from scipy's KDTree (leafsize 40, one worker,
     as Monty's GraphObjectModel.find_nearest_neighbors), the custom distance
     |delta| + |delta . sn'| / (|c| + 0.5), far where (max_match_distance - dist) / max <= 0;
  6. pose evidence 0.5 - sin(arccos(n . sn') / 2) (+ cd1 term when the pose is fully defined),
     -1 where far, plus the nodes' feature evidence (0 where far), max over the K;
  7. untested hypotheses get max(min(new), 0); channels add up; E = past * E + present * total,
     and the prediction error of the previous best hypothesis.

Usage: numpy_peer.py CASE_DIR. CASE_DIR holds config.json (parameters, graph and LM counts), graph{g}_pos.npy
(N,3), graph{g}_pose.npy (N,9), graph{g}_pose_defined.npy (N), graph{g}_features.npy (N,F), the
hypotheses each (LM, graph) starts from: lm{l}_graph{g}_{evidence,locations,rotations}.npy, and
the steps' inputs: displacement.npy (S,L,3), pose_vectors.npy (S,L,C,3,3),
pose_fully_defined.npy (S,L,C), features.npy (S,L,C,F). It writes lm{l}_graph{g}_evidence_out.npy
and _locations_out.npy, and prints one JSON object: versions, wall and CPU ms of every step (all
LMs and graphs), or {"missing": why} when numpy or scipy cannot be imported.
"""
import json
import os
import sys

# One core: no BLAS or OpenMP threads (set before numpy loads them; the bench sets them too).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
             "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ[_var] = "1"

import time  # noqa: E402

try:
    import numpy as np
    import scipy
    from scipy.spatial import KDTree
except ImportError as e:  # the bench prints the peer as missing
    print(json.dumps({"missing": "numpy/scipy (Debian packages python3-numpy python3-scipy): " + str(e)}))
    sys.exit(0)

MAX_EVIDENCE = 2
EVIDENCE_RANGE = 3


class Graph:
    def __init__(self, case_dir, g):
        load = lambda name: np.load(os.path.join(case_dir, f"graph{g}_{name}.npy"))  # noqa: E731
        self.pos = load("pos")
        self.pose_vectors = load("pose").reshape(-1, 3, 3)
        self.pose_defined = load("pose_defined")
        self.features = load("features")
        self.tree = KDTree(self.pos, leafsize=40)


def feature_evidence(cfg, graph, query):
    """Monty's DefaultFeatureEvidenceCalculator over all nodes, times the increment."""
    tolerance = np.asarray(cfg["tolerances"], dtype=np.float64)
    weights = np.asarray(cfg["weights"], dtype=np.float64)
    circular = np.asarray(cfg["circular"], dtype=bool)
    numeric = ~circular
    nodes = graph.features
    diff = np.zeros_like(nodes)
    diff[:, numeric] = np.abs(nodes[:, numeric] - query[numeric])
    cn, cq = nodes[:, circular], query[circular]
    diff[:, circular] = np.min([np.abs(1 + cn - cq), np.abs(cn - cq), np.abs(cn - (cq + 1))], axis=0)
    evidence = np.clip(tolerance - diff, 0, np.inf) / tolerance
    return np.average(evidence, weights=weights, axis=1) * cfg["feature_evidence_increment"]


def angles(node_vectors, query_vectors):
    return np.arccos(np.clip(np.einsum("ijk,ik->ij", node_vectors, query_vectors), -1, 1))


def location_evidence(cfg, graph, locations, poses, pose_vectors, fully_defined, features, node_fe):
    """DefaultHypothesesDisplacer._calculate_evidence_for_new_locations for one channel."""
    rotated = poses.dot(pose_vectors.T).transpose((0, 2, 1))  # rotate_pose_dependent_features
    k = min(cfg["k"], graph.pos.shape[0])
    _, nearest = graph.tree.query(locations, k=k, p=2, workers=1)
    if k == 1:
        nearest = np.expand_dims(nearest, axis=1)
    nearest_locs = graph.pos[nearest]
    curvature = np.max(np.abs(features[cfg["curvature_columns"]])) if cfg["curvature_columns"] else 10
    differences = nearest_locs - np.expand_dims(locations, axis=1)
    dots = np.einsum("ijk,ik->ij", differences, rotated[:, 0])
    dists = np.linalg.norm(differences, axis=2) + np.abs(dots) * (1 / (np.abs(curvature) + 0.5))
    distance_weights = (cfg["max_match_distance"] - dists) / cfg["max_match_distance"]
    mask = distance_weights <= 0

    node_pose = graph.pose_vectors[nearest]  # (T, K, 3, 3)
    evidence = np.zeros(distance_weights.shape[:2])
    sn_error = angles(node_pose[:, :, 0], rotated[:, 0])
    sn_evidence = -(np.sin(sn_error / 2) - 0.5)
    if fully_defined:
        use_cd = np.array(graph.pose_defined[nearest], dtype=bool)
        cd1_angle = angles(node_pose[:, :, 1], rotated[:, 1])
        cd1_error = np.pi / 2 - np.abs(cd1_angle - np.pi / 2)
        cd1_evidence = -(np.sin(cd1_error) - 0.5) * use_cd
        cd_weight = cfg["cd_weight"]
    else:
        cd1_evidence = np.zeros(sn_error.shape)
        cd_weight = 0
    evidence += sn_evidence * cfg["sn_weight"] + cd1_evidence * cd_weight
    evidence[mask] = -1
    radius_fe = node_fe[nearest]
    radius_fe[mask] = 0
    return np.max(evidence + radius_fe, axis=1)


def update(cfg, graph, state, displacement, pose_vectors, fully_defined, features):
    """One step of one (LM, graph): Monty's displace_hypotheses then compute_evidence."""
    evidence, locations, poses = state
    threshold = np.min(evidence)  # evidence_threshold_config "all"
    locations = locations + poses.dot(displacement)
    tested = np.where(evidence >= threshold)[0]
    if tested.shape[0] == 0:
        return evidence, locations, poses
    total = np.zeros_like(evidence)
    for c in range(pose_vectors.shape[0]):
        node_fe = feature_evidence(cfg, graph, features[c])
        new = location_evidence(cfg, graph, locations[tested], poses[tested], pose_vectors[c], fully_defined[c],
                                features[c], node_fe)
        min_update = np.clip(np.min(new), 0, np.inf)
        channel = np.ones_like(evidence) * min_update
        channel[tested] = new
        total += channel
    best = np.argmax(evidence)
    channels = pose_vectors.shape[0]
    _prediction_error = (MAX_EVIDENCE * channels - total[best]) / (EVIDENCE_RANGE * channels)
    evidence = evidence * cfg["past_weight"] + total * cfg["present_weight"]
    return evidence, locations, poses


def main():
    if len(sys.argv) != 2:
        print(json.dumps({"missing": "usage: numpy_peer.py CASE_DIR"}))
        return 2
    case_dir = sys.argv[1]
    with open(os.path.join(case_dir, "config.json")) as f:
        cfg = json.load(f)
    load = lambda name: np.load(os.path.join(case_dir, name + ".npy"))  # noqa: E731
    graphs = [Graph(case_dir, g) for g in range(cfg["graphs"])]
    states = {}
    for lm in range(cfg["lms"]):
        for g in range(cfg["graphs"]):
            p = f"lm{lm}_graph{g}_"
            states[lm, g] = (load(p + "evidence"), load(p + "locations"), load(p + "rotations").reshape(-1, 3, 3))
    displacement, pose_vectors = load("displacement"), load("pose_vectors")
    fully_defined, features = load("pose_fully_defined").astype(bool), load("features")

    wall_ms, cpu_ms = [], []
    for s in range(displacement.shape[0]):
        w0, c0 = time.perf_counter(), time.process_time()
        for lm in range(cfg["lms"]):  # Monty updates one LM at a time, one graph at a time
            for g in range(cfg["graphs"]):
                states[lm, g] = update(cfg, graphs[g], states[lm, g], displacement[s, lm], pose_vectors[s, lm],
                                       fully_defined[s, lm], features[s, lm])
        cpu_ms.append((time.process_time() - c0) * 1e3)
        wall_ms.append((time.perf_counter() - w0) * 1e3)

    for (lm, g), (evidence, locations, _) in states.items():
        np.save(os.path.join(case_dir, f"lm{lm}_graph{g}_evidence_out.npy"), evidence)
        np.save(os.path.join(case_dir, f"lm{lm}_graph{g}_locations_out.npy"), locations)
    print(json.dumps({"numpy": np.__version__, "scipy": scipy.__version__, "python": sys.version.split()[0],
                      "wall_ms": wall_ms, "cpu_ms": cpu_ms}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
