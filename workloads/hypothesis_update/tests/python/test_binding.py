"""Tests of the weft.hypothesis_update Python module (run by ctest as weft_hypothesis_update_python).

- Replays Monty's recorded fixture runs through the Python API from their inputs alone and
  compares with the recorded outputs (1e-6, CPU backend, float64).
- Checks the initialisation step against an independent numpy computation of spec §3.3-3.4.
- Checks the error mapping (weft::Error -> weft.hypothesis_update.Error with code and message) for bad
  shapes, dtypes, config keys and out-of-range ids, and the conversions that are allowed.
- Runs the Vulkan backend against the CPU backend when a Vulkan device is present.
- Runs example.py.
"""
import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from weft import hypothesis_update as wh

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
# The subset in the repository, or the full recordings when WEFT_MONTY_FIXTURES names them.
FIXTURES = Path(os.environ.get("WEFT_MONTY_FIXTURES") or ROOT / "workloads" / "hypothesis_update" / "data" / "monty")
EXAMPLE = ROOT / "workloads" / "hypothesis_update" / "python" / "example.py"
VULKAN_EVIDENCE_TOL = 1e-4  # vulkan_tolerance.h: kVulkanEvidenceTolerance
VULKAN_GEOMETRY_TOL = 1e-6  # kVulkanGeometryTolerance

# ---------------------------------------------------------------- fixture helpers


def fixture_config(run):
    """The LM config of a fixture run, built from run.json and objects.json here in Python."""
    lm = run["lm_params"]
    channel = run["channel"]
    mapping = json.loads((FIXTURES / "objects" / "objects.json").read_text())["feature_mapping"]
    columns = sorted((v[0], k) for k, v in mapping.items()
                     if k not in ("node_ids", "pose_vectors", "pose_fully_defined"))
    features = [{"name": name,
                 "tolerances": lm["tolerances"][channel][name],
                 "weights": lm["feature_weights"][channel][name]} for _, name in columns]
    cfg = dict(
        kind="burst_sampling" if ("Burst" in run["updater"] or "Resampling" in run["updater"]) else "default",
        threshold=run["evidence_threshold_config"],
        x_percent_threshold=run.get("x_percent_threshold", 10),
        umbilical_num_poses=run.get("umbilical_num_poses", 8),
        max_match_distance=lm["max_match_distance"],
        max_nneighbors=lm["max_nneighbors"],
        past_weight=lm["past_weight"],
        present_weight=lm["present_weight"],
        feature_evidence_increment=lm["feature_evidence_increment"],
        pose_weights=lm["feature_weights"][channel]["pose_vectors"],
        features=features,
    )
    if "burst_params" in run:
        for k in ("sampling_multiplier", "deletion_trigger_slope", "sampling_burst_duration", "burst_trigger_slope"):
            cfg[k] = run["burst_params"][k]
    if "slope_tracker" in run:
        cfg["slope_window"] = run["slope_tracker"]["window_size"]
        cfg["slope_min_age"] = run["slope_tracker"]["min_age"]
    return cfg


def fixture_input(step_dir, step):
    feats = step_dir / "features"
    return {
        "displacement": np.load(step_dir / "displacement.npy") if step["has_displacement"] else None,
        "pose_vectors": np.load(feats / "pose_vectors.npy"),
        "pose_fully_defined": bool(np.load(feats / "pose_fully_defined.npy")),
        "features": {"hsv": np.load(feats / "hsv.npy"),
                     "principal_curvatures_log": np.load(feats / "principal_curvatures_log.npy")},
    }


def load_fixture_backend(run_name, backend):
    run = json.loads((FIXTURES / run_name / "run.json").read_text())
    names = list(run["steps"][0]["graphs"].keys())
    gids = {}
    for name in names:
        obj = FIXTURES / "objects" / name
        # float32 as recorded: the binding converts it (exactly) to float64.
        gids[name] = backend.add_graph(np.load(obj / "pos.npy"), np.load(obj / "x.npy"), name=name)
    lm = backend.add_learning_module(list(gids.values()), fixture_config(run))
    return run, gids, lm


def open_vulkan():
    try:
        return wh.Backend.vulkan(device="", validation=True)
    except wh.Error as e:
        if e.code in ("NoDevice", "MissingFeature", "Vulkan"):
            pytest.skip(f"no usable Vulkan device: {e}")
        raise


needs_fixtures = pytest.mark.skipif(not (FIXTURES / "default_cylinder" / "run.json").exists(),
                                    reason="Monty fixtures not found")

# ---------------------------------------------------------------- fixture replay


@needs_fixtures
@pytest.mark.parametrize("backend_kind", ["cpu", "vulkan"])
@pytest.mark.parametrize("run_name", ["default_cylinder", "default_sphere"])
def test_default_run_matches_monty_recording(run_name, backend_kind):
    """Every recorded step, fed only the recorded inputs. CPU (float64): 1e-6 everywhere.
    Vulkan (float32): the tolerances of vulkan_tolerance.h; the most likely hypothesis id and the
    prediction error (which reads the previous best) are compared on the CPU only, since the
    recordings hold near-ties the float32 device may break the other way."""
    cpu = backend_kind == "cpu"
    b = wh.Backend.cpu(threads=2) if cpu else open_vulkan()
    ev_tol = 1e-6 if cpu else VULKAN_EVIDENCE_TOL
    geo_tol = 1e-6 if cpu else VULKAN_GEOMETRY_TOL
    run, gids, lm = load_fixture_backend(run_name, b)
    b.set_groups([[lm]])
    for step in run["steps"]:
        sd = FIXTURES / run_name / f"step{step['step']:02d}"
        b.dispatch({lm: fixture_input(sd, step)})
        b.wait()
        for name, g in gids.items():
            out = sd / name / "out"
            h = b.hypotheses(lm, g)
            ev = np.load(out / "evidence.npy")
            assert h["evidence"].dtype == np.float64 and h["evidence"].shape == ev.shape
            np.testing.assert_allclose(h["evidence"], ev, rtol=0, atol=ev_tol, err_msg=f"step {step['step']} {name}")
            np.testing.assert_allclose(b.evidence(lm, g), ev, rtol=0, atol=ev_tol)
            np.testing.assert_allclose(h["locations"], np.load(out / "locations.npy"), rtol=0, atol=geo_tol)
            np.testing.assert_allclose(h["rotations"], np.load(out / "poses.npy"), rtol=0, atol=geo_tol)
            assert h["possible"].dtype == np.bool_
            np.testing.assert_array_equal(h["possible"], np.load(out / "possible.npy"))
            rec = step["graphs"][name]
            info = b.step_info(lm, g)
            assert info.updated
            assert info.threshold == pytest.approx(rec["evidence_update_threshold"], abs=ev_tol)
            if rec["mlh_prediction_error"] is None:
                assert math.isnan(b.prediction_error(lm, g))
            elif cpu:
                assert b.prediction_error(lm, g) == pytest.approx(rec["mlh_prediction_error"], abs=1e-6)
        ml = b.most_likely(lm)
        assert ml.graph == gids[step["mlh"]["graph_id"]]
        assert ml.evidence == pytest.approx(step["mlh"]["evidence"], abs=ev_tol)
        if cpu:
            assert ml.hypothesis == step["mlh"]["mlh_id"]
    assert b.validation_messages() == []


@needs_fixtures
def test_burst_run_matches_monty_recording():
    """Burst (resampling) updater: evidence as multisets (array order of tied new hypotheses is
    implementation-defined), telemetry scalars and the most likely evidence per step."""
    run_name = "burst_cylinder"
    b = wh.Backend.cpu(threads=1)
    run, gids, lm = load_fixture_backend(run_name, b)
    for step in run["steps"]:
        sd = FIXTURES / run_name / f"step{step['step']:02d}"
        b.dispatch({lm: fixture_input(sd, step)})
        b.wait()
        for name, g in gids.items():
            ev = np.load(sd / name / "out" / "evidence.npy")
            ours = b.evidence(lm, g)
            assert ours.shape == ev.shape, f"step {step['step']} {name}"
            np.testing.assert_allclose(np.sort(ours), np.sort(ev), rtol=0, atol=1e-6)
            t = b.burst_telemetry(lm, g)
            tel = sd / name / "telemetry"
            np.testing.assert_array_equal(np.sort(t.added_ids), np.sort(np.load(tel / "added_ids.npy")))
            np.testing.assert_array_equal(np.sort(t.removed_ids), np.sort(np.load(tel / "removed_ids.npy")))
            assert t.burst_steps_in_step == step["sampling_burst_steps_in_step"]
            assert t.ages.dtype == np.int64 and len(t.ages) == len(ours)
            assert len(t.evidence_slopes) == len(ours)
        ml = b.most_likely(lm)
        assert ml.evidence == pytest.approx(step["mlh"]["evidence"], abs=1e-6)
        if "max_global_slope" in step and step["max_global_slope"] is not None:
            ref = step["max_global_slope"]
            got = b.burst_telemetry(lm, 0).max_global_slope
            assert (math.isinf(ref) and math.isinf(got)) or got == pytest.approx(ref, abs=1e-6)


# ---------------------------------------------------------------- synthetic data


def random_frame(rng):
    a = rng.normal(size=3)
    a /= np.linalg.norm(a)
    b = rng.normal(size=3)
    b -= a @ b * a
    b /= np.linalg.norm(b)
    return np.stack([a, b, np.cross(a, b)])


def random_graph(n, seed):
    rng = np.random.default_rng(seed)
    pos = 0.04 * rng.random((n, 3))
    x = np.zeros((n, 16))
    x[:, 0] = np.arange(n)
    for i in range(n):
        x[i, 1:10] = random_frame(rng).ravel()
    x[:, 10] = (np.arange(n) % 3 != 0).astype(float)
    x[:, 11:14] = rng.random((n, 3))
    x[:, 14:16] = 4 * rng.random((n, 2)) - 2
    return pos, x


FEATURES = [{"name": "hsv", "tolerances": [0.1, 0.2, 0.2], "weights": [1, 0.5, 0.5]},
            {"name": "principal_curvatures_log", "tolerances": [1, 1], "weights": [1, 1]}]


def random_input(seed, first, pfd=None):
    rng = np.random.default_rng(seed)
    return {
        "displacement": None if first else 0.004 * rng.random(3) - 0.002,
        "pose_vectors": random_frame(rng),
        "pose_fully_defined": bool(rng.random() < 0.7) if pfd is None else pfd,
        "features": {"hsv": rng.random(3), "principal_curvatures_log": 4 * rng.random(2) - 2},
    }


def numpy_feature_evidence(x, inp, cfg_features, increment=1.0):
    """Spec §3.3, written independently in numpy."""
    col = wh.FIRST_FEATURE_COLUMN
    total, wsum = np.zeros(len(x)), 0.0
    for f in cfg_features:
        w = len(f["tolerances"])
        node = x[:, col:col + w]
        q = np.asarray(inp["features"][f["name"]], float)
        diff = np.abs(node - q)
        if f["name"] == "hsv":
            diff[:, 0] = np.minimum(np.minimum(np.abs(1 + node[:, 0] - q[0]), np.abs(node[:, 0] - q[0])),
                                    np.abs(node[:, 0] - (q[0] + 1)))
        tol = np.asarray(f["tolerances"], float)
        ev = np.maximum(tol - diff, 0) / tol
        total += ev @ np.asarray(f["weights"], float)
        wsum += sum(f["weights"])
        col += w
    return total / wsum * increment


@pytest.mark.parametrize("pfd", [True, False])
def test_initialisation_matches_numpy(pfd):
    pos, x = random_graph(50, 3)
    b = wh.Backend.cpu(threads=1)
    g = b.add_graph(pos, x, name="g")
    lm = b.add_learning_module([g], threshold="80%", features=FEATURES, feature_evidence_increment=1.5)
    inp = random_input(7, True, pfd)
    b.dispatch({lm: inp})
    b.wait()
    h = b.hypotheses(lm, g)
    fe = numpy_feature_evidence(x, inp, FEATURES, 1.5)
    S = inp["pose_vectors"]
    if pfd:
        frames = [S, S * np.array([[1], [-1], [-1]])]
    else:
        frames = []
        for j in range(8):
            a = 2 * np.pi * j / 8
            v = np.cos(a) * S[1] + np.sin(a) * S[2]
            frames.append(np.stack([S[0], v, np.cross(S[0], v)]))
    J = len(frames)
    nodes = x[:, 1:10].reshape(-1, 3, 3)
    rot = np.concatenate([np.einsum("nki,kj->nij", nodes, Sj) for Sj in frames])  # Nn_i^T S_j, j-major
    assert h["evidence"].shape == (J * 50,)
    np.testing.assert_allclose(h["evidence"], np.tile(fe, J), rtol=0, atol=1e-12)
    np.testing.assert_allclose(h["locations"], np.tile(pos, (J, 1)), rtol=0, atol=1e-12)
    np.testing.assert_allclose(h["rotations"], rot, rtol=0, atol=1e-9)
    ml = b.most_likely(lm)
    assert ml.graph == g and ml.hypothesis == int(np.argmax(h["evidence"]))
    assert ml.evidence == pytest.approx(h["evidence"].max(), abs=1e-12)
    np.testing.assert_array_equal(b.locations(lm, g), h["locations"])
    np.testing.assert_array_equal(b.rotations(lm, g), h["rotations"])
    np.testing.assert_array_equal(b.possible(lm, g), h["possible"])


def make_world(backend, seed=11):
    """Two graphs, LM 0 default over both, LM 1 default over graph 1 with two channels."""
    pa, xa = random_graph(60, seed)
    pb, xb = random_graph(67, seed + 1)
    a = backend.add_graph(pa, xa, name="a")
    bb = backend.add_graph(pb, xb, name="b")
    lm0 = backend.add_learning_module([a, bb], threshold="80%", features=FEATURES)
    lm1 = backend.add_learning_module([bb], {"threshold": "mean", "features": FEATURES}, max_channels=2)
    return a, bb, lm0, lm1


def world_inputs(step, lms=(0, 1)):
    out = {}
    if 0 in lms:
        out[0] = random_input(100 + step, step == 0)
    if 1 in lms:
        i1 = random_input(200 + step, step == 0)
        i2 = random_input(300 + step, True)
        del i2["displacement"]  # the displacement belongs to the LM's step, not to a channel
        out[1] = {"displacement": i1.pop("displacement"), "channels": [i1, i2]}
    return out


def test_noop_lm_and_groups_and_conversions():
    b = wh.Backend.cpu(threads=2)
    a, bb, lm0, lm1 = make_world(b)
    assert (b.num_graphs, b.num_learning_modules) == (2, 2)
    b.set_groups([[lm0, lm1]])
    for step in range(3):
        b.dispatch(world_inputs(step))
        b.wait()
    before = b.hypotheses(lm1, bb)
    b.dispatch({lm0: world_inputs(3)[0], lm1: None})  # LM 1 has no input this step
    b.wait()
    after = b.hypotheses(lm1, bb)
    for k in before:
        np.testing.assert_array_equal(before[k], after[k])
    assert not b.step_info(lm1, bb).updated and b.step_info(lm0, a).updated

    # float32, Fortran-ordered and list inputs convert to the same float64 results.
    c = wh.Backend.cpu(threads=1)
    make_world(c)
    d = wh.Backend.cpu(threads=1)
    pa, xa = random_graph(60, 11)
    pb, xb = random_graph(67, 12)
    d.add_graph(np.asfortranarray(pa), np.asfortranarray(xa), name="a")
    d.add_graph(pb.tolist(), xb[:, ::-1][:, ::-1], name="b")  # negative strides
    d.add_learning_module([0, 1], threshold="80%", features=FEATURES)
    d.add_learning_module([1], threshold="mean", features=FEATURES, max_channels=2)
    for step in range(3):
        ins = world_inputs(step)
        c.dispatch(ins)
        c.wait()
        conv = world_inputs(step)
        conv[0]["pose_vectors"] = np.asfortranarray(conv[0]["pose_vectors"]).ravel().tolist()  # (9,) list
        conv[0]["features"] = np.concatenate([conv[0]["features"]["hsv"], conv[0]["features"]["principal_curvatures_log"]])
        if conv[0]["displacement"] is not None:
            conv[0]["displacement"] = list(conv[0]["displacement"])
        d.dispatch(conv)
        d.wait()
        for lm, g in ((0, 0), (0, 1), (1, 1)):
            np.testing.assert_array_equal(c.evidence(lm, g), d.evidence(lm, g))
    # float32 graphs give float32-exact positions
    e = wh.Backend.cpu(threads=1)
    g = e.add_graph(pa.astype(np.float32), xa.astype(np.float32))
    np.testing.assert_array_equal(e.graph(g)["pos"], pa.astype(np.float32).astype(np.float64))

    b.reset_episode()
    b.dispatch(world_inputs(0))
    b.wait()
    assert b.evidence(lm0, a).shape[0] > 0
    cfg = b.config(lm1)
    assert cfg["threshold"] == "mean" and cfg["max_channels"] == 2 and cfg["curvature_feature"] == 1
    assert [f["circular"] for f in cfg["features"]] == [True, False]


# ---------------------------------------------------------------- error mapping


def expect_bad(fn, *words):
    with pytest.raises(wh.Error) as ei:
        fn()
    e = ei.value
    assert e.code == "BadInput", e
    assert isinstance(e, RuntimeError)
    for w in words:
        assert w in e.message, (w, e.message)
    assert str(e) == f"BadInput: {e.message}"
    return e


def test_error_mapping_graphs_and_configs():
    b = wh.Backend.cpu(threads=1)
    pos, x = random_graph(20, 5)
    expect_bad(lambda: b.add_graph(pos[:, :2], x), "pos", "(*, 3)", "(20, 2)")
    expect_bad(lambda: b.add_graph(pos, x[:10]), "x", "(20, *)", "(10, 16)")
    expect_bad(lambda: b.add_graph(pos, x[:, :5]), "at least 11 columns")
    expect_bad(lambda: b.add_graph(pos.astype(np.complex128), x), "dtype complex128")
    expect_bad(lambda: b.add_graph(pos > 0, x), "dtype bool")
    expect_bad(lambda: b.add_graph(np.array([["a", "b", "c"]] * 20), x), "dtype")
    expect_bad(lambda: b.add_graph(None, x), "None")
    bad_pos = pos.copy()
    bad_pos[3, 1] = np.nan
    expect_bad(lambda: b.add_graph(bad_pos, x, name="cup"), "cup")  # C++ from_arrays check
    expect_bad(lambda: b.add_graph(pos, x, feature_width=7), "needs 18")
    g = b.add_graph(pos, x)
    expect_bad(lambda: b.add_learning_module([g], bogus=1), "unknown key 'bogus'")
    expect_bad(lambda: b.add_learning_module([g], threshold="banana", features=FEATURES), "banana")
    expect_bad(lambda: b.add_learning_module([g], features=FEATURES, max_nneighbors=99), "max_nneighbors")
    expect_bad(lambda: b.add_learning_module([g], features=FEATURES, max_nneighbors="ten"), "max_nneighbors")
    expect_bad(lambda: b.add_learning_module([g], features=[{"name": "hsv", "tolerances": [1], "oops": 1}]), "oops")
    expect_bad(lambda: b.add_learning_module([g], kind="magic"), "kind")
    expect_bad(lambda: b.add_learning_module([g + 5], features=FEATURES), f"graph id {g + 5} out of range")
    expect_bad(lambda: b.graph(9), "unknown graph 9")
    lm = b.add_learning_module([g], features=FEATURES)
    expect_bad(lambda: b.set_groups([[lm], [lm]]), "more than one group")
    expect_bad(lambda: b.set_groups([[lm + 3]]), "LM 3, out of range")


def test_error_mapping_dispatch_and_reads():
    b = wh.Backend.cpu(threads=1)
    pos, x = random_graph(30, 6)
    g = b.add_graph(pos, x)
    lm = b.add_learning_module([g], features=FEATURES)
    good = random_input(1, True)
    expect_bad(lambda: b.dispatch({5: good}), "unknown LM 5")
    expect_bad(lambda: b.dispatch({-1: good}), "unknown LM -1")
    expect_bad(lambda: b.dispatch({"0": good}), "LM ids")
    expect_bad(lambda: b.dispatch({lm: dict(good, pose_vectors=np.eye(4))}), "pose_vectors", "(3, 3)")
    expect_bad(lambda: b.dispatch({lm: dict(good, pose_vectors=np.eye(3, dtype=np.complex64))}), "complex64")
    expect_bad(lambda: b.dispatch({lm: dict(good, features={"hsv": np.zeros(3)})}), "missing 'principal_curvatures_log'")
    expect_bad(lambda: b.dispatch({lm: dict(good, features={"hsv": np.zeros(2), "principal_curvatures_log": np.zeros(2)})}),
               "features['hsv']", "(3,)")
    expect_bad(lambda: b.dispatch({lm: dict(good, features=np.zeros(4))}), "features", "(5,)")
    expect_bad(lambda: b.dispatch({lm: dict(good, speed=3)}), "unknown key 'speed'")
    expect_bad(lambda: b.dispatch({lm: dict(good, pose_fully_defined="yes")}), "pose_fully_defined")
    expect_bad(lambda: b.dispatch({lm: dict(good, pose_fully_defined=[1, 0])}), "pose_fully_defined")
    # Before the LM's first step: empty arrays of the right shapes, no most likely hypothesis.
    h = b.hypotheses(lm, g)
    assert h["evidence"].shape == (0,) and h["locations"].shape == (0, 3) and h["rotations"].shape == (0, 3, 3)
    assert b.most_likely(lm).graph == -1
    expect_bad(lambda: b.dispatch({lm: dict(good, displacement=np.zeros(2))}), "displacement", "(3,)")
    expect_bad(lambda: b.dispatch({lm: dict(good, channels=[])}), "either 'channels' or one channel")
    channel = {k: v for k, v in good.items() if k != "displacement"}
    expect_bad(lambda: b.dispatch({lm: {"channels": [channel, channel]}}), "LM 0", "2 channels")  # C++: max_channels 1
    expect_bad(lambda: b.dispatch({lm: {"channels": [good]}}), "unknown key 'displacement'")
    bad_pv = good["pose_vectors"].copy()
    bad_pv[0, 0] = np.inf
    expect_bad(lambda: b.dispatch({lm: dict(good, pose_vectors=bad_pv)}), "LM 0")  # C++ validation
    # Nothing changed by the failures above: a good first step still works.
    b.dispatch({lm: good})
    b.wait()
    second = random_input(2, True)  # no displacement on a later step
    expect_bad(lambda: b.dispatch({lm: second}), "LM 0")
    expect_bad(lambda: b.hypotheses(lm + 1, g))
    expect_bad(lambda: b.evidence(lm, g + 1))
    expect_bad(lambda: b.step_info(7, g))
    expect_bad(lambda: b.burst_telemetry(lm, 3))
    expect_bad(lambda: b.most_likely(2))
    expect_bad(lambda: b.config(4), "unknown LM 4")
    # Reads while a step is pending are BadInput too.
    b.dispatch({lm: random_input(3, False)})
    expect_bad(lambda: b.hypotheses(lm, g))
    b.wait()
    assert b.hypotheses(lm, g)["evidence"].size > 0


def test_dispatch_and_wait_release_the_gil():
    """Another Python thread runs while dispatch()/wait() work on large steps: with the GIL held
    through them it could not record a tick inside the window."""
    pos, x = random_graph(2000, 9)
    b = wh.Backend.cpu(threads=1)
    g = b.add_graph(pos, x)
    lm = b.add_learning_module([g], threshold="all", features=FEATURES)
    b.dispatch({lm: random_input(1, True, False)})
    b.wait()
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(time.perf_counter())

    t = threading.Thread(target=spin)
    t.start()
    while not ticks:
        time.sleep(0.001)
    t0 = time.perf_counter()
    for step in range(2, 5):
        b.dispatch({lm: random_input(step, False)})
        b.wait()
    t1 = time.perf_counter()
    stop.set()
    t.join()
    assert b.step_info(lm, g).tested == 16000
    inside = sum(t0 < tick < t1 for tick in ticks)
    assert inside > 0, (t1 - t0)


# ---------------------------------------------------------------- Vulkan


def test_vulkan_backend_follows_cpu():
    vk = open_vulkan()
    assert vk.kind == "vulkan" and vk.device_name
    cpu = wh.Backend.cpu(threads=1)
    for be in (cpu, vk):
        make_world(be)
        be.set_groups([[0, 1]])
    for step in range(4):
        ins = world_inputs(step, (0, 1) if step != 2 else (0,))
        cpu.dispatch(ins)
        vk.dispatch(ins)
        cpu.wait()
        vk.wait()
        for lm, g in ((0, 0), (0, 1), (1, 1)):
            hv, hc = vk.hypotheses(lm, g), cpu.hypotheses(lm, g)
            np.testing.assert_allclose(hv["evidence"], hc["evidence"], rtol=0, atol=VULKAN_EVIDENCE_TOL)
            np.testing.assert_allclose(hv["locations"], hc["locations"], rtol=0, atol=VULKAN_GEOMETRY_TOL)
            np.testing.assert_allclose(hv["rotations"], hc["rotations"], rtol=0, atol=VULKAN_GEOMETRY_TOL)
            assert vk.step_info(lm, g).updated == cpu.step_info(lm, g).updated
        for lm in (0, 1):
            assert vk.most_likely(lm).graph == cpu.most_likely(lm).graph
    assert vk.validation_messages() == []
    # One device program stacks every LM: adding one mid-episode is a typed error.
    with pytest.raises(wh.Error) as ei:
        vk.add_learning_module([0], kind="burst_sampling", features=FEATURES)
    assert ei.value.code == "BadInput" and "reset_episode" in ei.value.message


# ---------------------------------------------------------------- example


@pytest.mark.parametrize("backend", ["cpu", "vulkan"])
def test_example_runs(backend):
    r = subprocess.run([sys.executable, str(EXAMPLE), "--backend", backend, "--steps", "4"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "most likely" in r.stdout
