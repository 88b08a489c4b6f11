"""Monty's votes between LMs (Backend.set_votes) against an independent numpy + scipy
implementation written here from tbp.monty's formulas (EvidenceGraphLM.send_out_vote,
MontyForEvidenceGraphMatching._combine_votes, EvidenceGraphLM._update_evidence_with_vote):
the CPU backend exactly (float64, 1e-12), the Vulkan backend within the float32 tolerance."""
import numpy as np
import pytest
from scipy.spatial import KDTree

from weft import hypothesis_update as wh
from test_binding import FEATURES, VULKAN_EVIDENCE_TOL, open_vulkan, random_graph, random_input

MATRIX = [[1, 2], [0], [0, 1]]  # senders of LM 0, 1, 2
THRESHOLD, WEIGHT, MMD = 0.3, 1.5, 0.02
LOCATIONS = {0: [0.01, 0.02, 0.03], 1: [0.012, 0.017, 0.031], 2: [0.008, 0.021, 0.027]}


def make_world(b):
    a = b.add_graph(*random_graph(70, 61), name="a")
    bb = b.add_graph(*random_graph(60, 62), name="b")
    common = dict(threshold="all", features=FEATURES, max_match_distance=MMD)
    b.add_learning_module([a, bb], **common)
    b.add_learning_module([bb, a], **common)
    b.add_learning_module([a], past_weight=0.5, present_weight=0.5, **common)  # votes average
    return {0: [a, bb], 1: [bb, a], 2: [a]}


def inputs():
    out = {}
    for lm in range(3):
        inp = random_input(700 + lm, True)
        inp["sensed_location"] = np.array(LOCATIONS[lm])
        out[lm] = inp
    return out


def numpy_votes(hyps):
    """send_out_vote: evidence scaled over all the LM's graphs (get_scaled_evidences), votes above
    the threshold with their location, rotation and scaled evidence."""
    lo = min(h["evidence"].min() for h in hyps.values())
    hi = max(h["evidence"].max() for h in hyps.values())
    votes = {}
    for g, h in hyps.items():
        scaled = ((h["evidence"] - lo) / (hi - lo) - 0.5) * 2 if hi >= 1 else np.clip(h["evidence"], -1, 1)
        keep = np.where(scaled > THRESHOLD)[0]
        if len(keep):
            votes[g] = (h["locations"][keep], h["rotations"][keep], scaled[keep])
    return votes


def numpy_receive(evidence, locations, vote_locations, vote_evidence, average):
    """_update_evidence_with_vote: KDTree of the votes, 3 nearest, masked beyond max_match_distance."""
    k = min(3, len(vote_locations))
    dists, ids = KDTree(vote_locations, leafsize=40).query(locations, k=k, p=2, workers=1)
    if k == 1:
        dists, ids = dists[:, None], ids[:, None]
    weights = (MMD - dists) / MMD
    best = np.ma.max(np.ma.array(vote_evidence[ids], mask=weights <= 0), axis=1)
    if average:
        return np.ma.average([evidence, best], weights=[1, WEIGHT], axis=0).filled(np.nan)
    return np.ma.sum([evidence, best * WEIGHT], axis=0).filled(np.nan)


def expected_after_votes(plain, graphs):
    """The votes every LM receives (all had input), applied to the unvoted hypotheses."""
    hyps = {lm: {g: plain.hypotheses(lm, g) for g in gs} for lm, gs in graphs.items()}
    sent = {lm: numpy_votes(h) for lm, h in hyps.items()}
    out = {}
    for i, gs in graphs.items():
        for g in gs:
            parts = []
            for j in MATRIX[i]:
                if g not in sent[j]:
                    continue
                loc, rot, conf = sent[j][g]
                disp = np.array(LOCATIONS[i]) - np.array(LOCATIONS[j])
                # Monty: location + pose_vectors . disp, pose_vectors = poses.T
                parts.append((loc + np.einsum("vji,j->vi", rot, disp), conf))
            h = hyps[i][g]
            if not parts:
                out[(i, g)] = h["evidence"]
                continue
            vl = np.concatenate([p[0] for p in parts])
            ve = np.concatenate([p[1] for p in parts])
            out[(i, g)] = numpy_receive(h["evidence"], h["locations"], vl, ve, average=(i == 2))
    return out


def run(backend_kind):
    voting = wh.Backend.cpu(threads=1) if backend_kind == "cpu" else open_vulkan()
    plain = wh.Backend.cpu(threads=1)
    graphs = make_world(voting)
    make_world(plain)
    voting.set_votes(MATRIX, vote_evidence_threshold=THRESHOLD, vote_weight=WEIGHT)
    for b in (voting, plain):
        b.dispatch(inputs())
        b.wait()
    return voting, plain, graphs


@pytest.mark.parametrize("backend_kind", ["cpu", "vulkan"])
def test_votes_match_numpy_from_monty_formulas(backend_kind):
    voting, plain, graphs = run(backend_kind)
    expected = expected_after_votes(plain, graphs)
    tol = 1e-12 if backend_kind == "cpu" else VULKAN_EVIDENCE_TOL
    changed = 0
    for (lm, g), e in expected.items():
        got = voting.hypotheses(lm, g)["evidence"]
        np.testing.assert_allclose(got, e, rtol=0, atol=tol, err_msg=f"LM {lm} graph {g}")
        changed += int(np.sum(e != plain.hypotheses(lm, g)["evidence"]))
    assert changed > 100, changed  # the votes reached many hypotheses
    if backend_kind == "vulkan":
        assert voting.validation_messages() == []


def test_set_votes_refusals_name_the_problem():
    b = wh.Backend.cpu(threads=1)
    make_world(b)
    with pytest.raises(wh.Error, match="itself"):
        b.set_votes([[0], [], []])
    b.set_votes(MATRIX)
    inp = inputs()
    del inp[1]["sensed_location"]
    with pytest.raises(wh.Error, match="sensed_location is required"):
        b.dispatch(inp)
