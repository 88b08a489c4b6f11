"""Drop-in replacements for tbp.monty's hypotheses updaters, computed by weft.hypothesis_update.

    from weft.monty import WeftDefaultHypothesesUpdater, WeftBurstSamplingHypothesesUpdater

Set one of them as an EvidenceGraphLM's `hypotheses_updater_class`; the constructor takes Monty's
arguments (the LM adds graph_memory, feature_weights, tolerances, ... itself) plus `backend=`
("cpu", "vulkan" or a shared WeftBackend). docs/monty.md describes the use, what is honoured and
what is refused. tbp.monty is optional: when it is importable the updaters return its own
Hypotheses (and BurstSamplingTelemetry fields); otherwise the compatible dataclasses below.

How a Monty step maps onto one backend step: Monty calls displace_hypotheses and update_evidence
once per graph inside `with updater:` and needs each result at once. The first update_evidence of
a step runs the LM's whole step on the backend (every graph, one dispatch and one wait) unless a
WeftBackend.dispatch already sent it with the other LMs'; every call then reads its graph.
Weft keeps the hypotheses resident, so each call checks that the hypotheses Monty passes in are
the ones it returned (count, evidence, locations, poses) and that Monty's evidence_update_threshold
is the one Weft computed, and refuses a difference (weft.BadInput) instead of ignoring it.
"""
from __future__ import annotations

import hashlib
import importlib
import threading
import weakref
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import numpy as np
import numpy.typing as npt

from . import _weft
from ._weft.hypothesis_update import Backend

Array = npt.NDArray[Any]
Query = Tuple[Dict[str, Any], Any]  # (features by channel, displacement or None)
GraphArrays = List[Tuple[str, Array, Array]]  # [(graph id, pos, x)]


@dataclass
class _Hypotheses:
    """Monty's Hypotheses: evidence (H,), locations (H,3), poses (H,3,3), possible (H,) bool."""
    evidence: Array
    locations: Array
    poses: Array
    possible: Array

    @staticmethod
    def empty() -> "_Hypotheses":
        return _Hypotheses(np.empty((0,)), np.empty((0, 3)), np.empty((0, 3, 3)), np.empty((0,), dtype=np.bool_))

    @property
    def count(self) -> int:
        return int(self.evidence.shape[0])


@dataclass
class _HypothesisDisplacerTelemetry:
    mlh_prediction_error: Optional[float]


@dataclass
class _BurstSamplingTelemetry:
    displacer_telemetry: _HypothesisDisplacerTelemetry
    added_ids: Array
    ages: Array
    evidence_slopes: Array
    removed_ids: Array
    max_slope: float


def monty_class(module: str, name: str, fallback: Any) -> Any:
    """tbp.monty's own class when tbp.monty is installed, else Weft's compatible one."""
    try:
        return getattr(importlib.import_module("tbp.monty.frameworks.models.evidence_matching." + module), name)
    except ImportError:
        return fallback


Hypotheses: Any = monty_class("hypotheses", "Hypotheses", _Hypotheses)
HypothesisDisplacerTelemetry: Any = monty_class("hypotheses_displacer", "HypothesisDisplacerTelemetry",
                                                _HypothesisDisplacerTelemetry)
BurstSamplingTelemetry: Any = monty_class("burst_sampling", "BurstSamplingTelemetry", _BurstSamplingTelemetry)

__all__ = ["BurstSamplingTelemetry", "Hypotheses", "WeftBackend", "WeftBurstSamplingHypothesesUpdater",
           "WeftDefaultHypothesesUpdater", "WeftStepSplitMixin", "dispatch_learning_modules", "lm_query"]

POSE_FEATURES = ("pose_vectors", "pose_fully_defined")
CURVATURE_FEATURE = "principal_curvatures_log"
# How far Monty's evidence_update_threshold may be from Weft's: float64 sums in another order on
# the CPU; the float32 evidence tolerance of vulkan_tolerance.h on the device.
THRESHOLD_TOLERANCE = {"cpu": 1e-9, "vulkan": 1e-4}


def bad_input(text: str) -> Exception:
    """weft.BadInput with .code and .message set, as the native module raises it."""
    error = _weft.BadInput("BadInput: " + text)
    setattr(error, "code", "BadInput")
    setattr(error, "message", text)
    return error


# ---------------------------------------------------------------- graphs and config from Monty


def refuse_unsupported(updater_name: str, options: Dict[str, Any]) -> None:
    """Every Monty option Weft does not implement is refused by name."""
    calculator = options["feature_evidence_calculator"]
    if calculator is not None and getattr(calculator, "__name__", "") != "DefaultFeatureEvidenceCalculator":
        raise bad_input(f"{updater_name}: feature_evidence_calculator={calculator!r} is not supported "
                        "(only Monty's DefaultFeatureEvidenceCalculator)")
    selector = options["features_for_matching_selector"]
    if selector is not None and getattr(selector, "__name__", "") != "DefaultFeaturesForMatchingSelector":
        raise bad_input(f"{updater_name}: features_for_matching_selector={selector!r} is not supported "
                        "(only Monty's DefaultFeaturesForMatchingSelector)")
    if not isinstance(options["initial_possible_poses"], str) or options["initial_possible_poses"] != "informed":
        raise bad_input(f"{updater_name}: initial_possible_poses={options['initial_possible_poses']!r} is not "
                        "supported (only 'informed')")


def graph_channel(graph_memory: Any, graph_id: str) -> str:
    channels = list(graph_memory.get_input_channels_in_graph(graph_id))
    if len(channels) != 1:
        raise bad_input(f"graph {graph_id!r} holds input channels {channels}: the Weft updaters support "
                        "graphs of exactly one input channel")
    return str(channels[0])


def matching_features(graph_memory: Any, graph_id: str, channel: str) -> List[str]:
    order = graph_memory.get_feature_order(graph_id)[channel]
    return [name for name in order if name not in POSE_FEATURES]


def graph_arrays(graph_memory: Any, graph_id: str, channel: str, features: List[str]) -> Tuple[Array, Array]:
    """pos (N,3) and x (N, 11 + feature columns) in the layout weft.hypothesis_update reads."""
    pos = np.asarray(graph_memory.get_locations_in_graph(graph_id, channel), dtype=np.float64)
    n = pos.shape[0]
    rotations = np.asarray(graph_memory.get_rotation_features_at_all_nodes(graph_id, channel), dtype=np.float64)
    fully_defined = graph_memory.get_features_at_node(graph_id, channel, np.arange(n),
                                                      feature_keys=["pose_fully_defined"])["pose_fully_defined"]
    columns = [np.arange(n, dtype=np.float64)[:, None], rotations.reshape(n, 9),
               np.asarray(fully_defined, dtype=np.float64).reshape(n, 1)]
    if features:
        columns.append(np.asarray(graph_memory.get_feature_array(graph_id)[channel], dtype=np.float64).reshape(n, -1))
    return pos, np.hstack(columns)


def feature_config(channel: str, features: List[str], feature_weights: Dict[str, Any], tolerances: Dict[str, Any],
                   use: bool) -> List[Dict[str, Any]]:
    """Weft's feature list (column order) from Monty's per-channel tolerances and weights."""
    if not use:
        return []
    config = []
    for name in features:
        if name == "object_id":
            raise bad_input(f"channel {channel!r}: the categorical feature 'object_id' is not supported")
        if name not in tolerances.get(channel, {}) or name not in feature_weights.get(channel, {}):
            raise bad_input(f"channel {channel!r}: feature {name!r} of the graph has no tolerance or weight")
        config.append({"name": name, "tolerances": list(np.atleast_1d(tolerances[channel][name])),
                       "weights": list(np.atleast_1d(feature_weights[channel][name]))})
    return config


def uses_features(channel: str, feature_weights: Dict[str, Any], feature_evidence_increment: float) -> bool:
    """Monty's DefaultFeaturesForMatchingSelector for one channel."""
    if channel not in feature_weights or feature_evidence_increment <= 0:
        return False
    return any(name not in POSE_FEATURES for name in feature_weights[channel])


def fingerprint(pos: Array, x: Array) -> str:
    return hashlib.sha1(pos.tobytes() + x.tobytes()).hexdigest()


# ---------------------------------------------------------------- the shared backend


class WeftBackend:
    """One weft.hypothesis_update backend for the updaters of several LMs (one Monty model).

    Pass it as `backend=` to every LM's updater. The backend is (re)built at the first step of an
    episode from the updaters' graph memories (again only when a graph changed) and its
    episode is reset when every updater has been reset. dispatch() + wait() is the step split:
    all LMs' inputs go in one backend dispatch, one wait, then each LM's own update_evidence
    calls read their graphs.
    """

    _groups: Dict[Tuple[str, str], "WeftBackend"] = {}
    _groups_lock = threading.Lock()

    @classmethod
    def group(cls, name: str, kind: str = "cpu") -> "WeftBackend":
        """The backend shared by every updater constructed with backend_group=name (and this kind):
        a name survives Monty's configs where an object would not."""
        with cls._groups_lock:
            if (name, kind) not in cls._groups:
                cls._groups[(name, kind)] = cls(kind)
            return cls._groups[(name, kind)]

    def __init__(self, kind: str = "cpu", threads: int = 0, device: str = "", validation: bool = False):
        if kind not in THRESHOLD_TOLERANCE:
            raise bad_input(f"backend={kind!r}: expected 'cpu' or 'vulkan'")
        self.kind = kind
        self._open: Callable[[], Backend] = (lambda: Backend.cpu(threads=threads)) if kind == "cpu" else \
            (lambda: Backend.vulkan(device=device, validation=validation))
        self.backend: Optional[Backend] = None
        # Weak: the updaters of LMs that are gone (an earlier experiment's) leave the group.
        self._updaters: List["weakref.ref[_WeftHypothesesUpdater]"] = []
        self._fingerprints: List[Any] = []
        self._reset_pending: Set[int] = set()
        self._lock = threading.RLock()
        self._step_inputs: Dict[int, Query] = {}  # LM id -> (features, displacement) dispatched
        self._waited = True

    def live(self) -> Backend:
        """The backend of the current episode (built by its first step)."""
        if self.backend is None:
            raise bad_input("WeftBackend: no step has run yet")
        return self.backend

    def register(self, updater: "_WeftHypothesesUpdater") -> None:
        with self._lock:
            self._updaters.append(weakref.ref(updater))
            self._reset_pending.add(id(updater))

    def request_reset(self, updater: "_WeftHypothesesUpdater") -> None:
        with self._lock:
            self._reset_pending.add(id(updater))

    def dispatch(self, queries: Dict["_WeftHypothesesUpdater", Query]) -> None:
        """Sends the step of every LM in `queries` ({updater: (features, displacement)}) at once.
        Each LM's update_evidence calls of this step must then pass the same features and
        displacement (checked)."""
        with self._lock:
            if not self._waited:
                raise bad_input("WeftBackend.dispatch: the previous step was not waited for")
            self._prepare_episode()
            inputs: Dict[int, Optional[Dict[str, Any]]] = {}
            for updater, (features, displacement) in queries.items():
                if updater._shared is not self:
                    raise bad_input("WeftBackend.dispatch: an updater that does not use this backend")
                step_input = updater._backend_input(features, displacement)
                if step_input is not None:
                    inputs[updater._lm_id] = step_input
            self.live().dispatch(inputs)
            self._step_inputs = {updater._lm_id: query for updater, query in queries.items()}
            self._waited = False

    def wait(self) -> None:
        with self._lock:
            if not self._waited:
                self._waited = True
                self.live().wait()

    def prepare(self) -> None:
        """Builds or resets the backend at an episode's first step (no-op while a step is out)."""
        with self._lock:
            if self._waited:
                self._prepare_episode()

    def dispatched_input(self, lm: int) -> Optional[Query]:
        """(features, displacement) sent for `lm` by the current step's dispatch, or None."""
        return self._step_inputs.get(lm)

    def run_alone(self, updater: "_WeftHypothesesUpdater", features: Dict[str, Any], displacement: Any) -> None:
        """The step of one LM when no dispatch() sent it (the others keep their hypotheses)."""
        self.dispatch({updater: (features, displacement)})
        self.wait()

    def end_step(self, lm: int, wait: bool = True) -> None:
        """The LM's step is over: a later step of it is dispatched anew. No wait after an error
        (the error in flight is the one to see)."""
        with self._lock:
            if wait:
                self.wait()
            self._step_inputs.pop(lm, None)

    def _prepare_episode(self) -> None:
        if not self._reset_pending:
            return
        updaters = self._live_updaters()
        if len(self._reset_pending) != len(updaters):
            raise bad_input(f"WeftBackend: {len(self._reset_pending)} of {len(updaters)} updaters were "
                            "reset; the LMs sharing a backend start their episodes together")
        graphs = [updater._graph_set() for updater in updaters]
        prints = [[(gid, fingerprint(pos, x)) for gid, pos, x in graph_list] for graph_list in graphs]
        joined = any(updater._lm is None for updater in updaters)
        if self.backend is None or joined or prints != self._fingerprints:
            self._build(updaters, graphs)
            self._fingerprints = prints
        else:
            self.backend.reset_episode()
        self._reset_pending.clear()

    def _live_updaters(self) -> List["_WeftHypothesesUpdater"]:
        alive = [(ref, ref()) for ref in self._updaters]
        self._updaters = [ref for ref, updater in alive if updater is not None]
        live = [updater for _, updater in alive if updater is not None]
        self._reset_pending &= {id(updater) for updater in live}
        return live

    def _build(self, updaters: List["_WeftHypothesesUpdater"], graphs: List[GraphArrays]) -> None:
        backend = self.backend = self._open()
        for updater, graph_list in zip(updaters, graphs):
            ids = [backend.add_graph(pos, x, name=gid) for gid, pos, x in graph_list]
            lm = backend.add_learning_module(ids, updater._weft_config())
            updater._attach([gid for gid, _, _ in graph_list], ids, lm)


# ---------------------------------------------------------------- the updaters


class _WeftHypothesesUpdater:
    """What both drop-in updaters share: the step mapping and the checks of Monty's arguments."""

    burst = False

    def __init__(self, feature_weights: Dict[str, Any], graph_memory: Any, max_match_distance: float,
                 tolerances: Dict[str, Any], evidence_threshold_config: Any, feature_evidence_increment: float,
                 max_nneighbors: int, past_weight: float, present_weight: float, umbilical_num_poses: int,
                 backend: Any, backend_group: Optional[str], x_percent_threshold: float):
        self.graph_memory = graph_memory
        self.feature_weights = feature_weights
        self.tolerances = tolerances
        self.umbilical_num_poses = umbilical_num_poses
        self._base_config = dict(
            threshold=evidence_threshold_config,
            x_percent_threshold=x_percent_threshold, max_match_distance=max_match_distance,
            max_nneighbors=max_nneighbors, past_weight=past_weight, present_weight=present_weight,
            feature_evidence_increment=feature_evidence_increment, umbilical_num_poses=umbilical_num_poses)
        self._feature_evidence_increment = feature_evidence_increment
        self._shared = shared_backend(backend, backend_group)
        self._lock = threading.RLock()
        self._lm: Optional[int] = None
        self._graph_index: Dict[str, int] = {}
        self._channel = ""
        self._features_config: List[Dict[str, Any]] = []
        self._in_step = False
        self._shared.register(self)
        self.reset()

    # -- Monty's protocol

    def reset(self) -> None:
        with self._lock:
            self._resident: Dict[str, Any] = {}  # copies of the hypotheses returned, per graph
            self._moved_since_step: Dict[str, Array] = {}  # location-only displacements, per graph
            self._step_ran = False
            self._last_burst_steps = 0
            self._last_max_slope = -np.inf
            self._shared.request_reset(self)

    def __enter__(self) -> "_WeftHypothesesUpdater":
        with self._lock:
            self._in_step = True
            self._step_ran = False
            self._step_features: Optional[Dict[str, Any]] = None
            self._step_displacement: Any = _UNSET
            self._displaced: Dict[str, Any] = {}
            self._read: Set[str] = set()
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        with self._lock:
            self._in_step = False
            if self._lm is not None:
                self._shared.end_step(self._lm, wait=exc_type is None)
            if exc_type is not None or not self._step_ran:
                return
            missing = [g for g in self._graph_index if g not in self._read]
            if missing:
                raise bad_input(f"step ended without update_evidence for graphs {missing}: Weft updated every "
                                "graph of the LM in one backend step")
            if self.burst:
                self._last_burst_steps = max(0, self._last_burst_steps - 1)

    def displace_hypotheses(self, hypotheses: Any, displacement: Optional[Array], graph_id: str) -> Any:
        with self._lock:
            self._check_resident(hypotheses, graph_id, self._resident.get(graph_id), "displace_hypotheses")
            if hypotheses.count == 0 or displacement is None:
                return hypotheses
            moved = np.asarray(displacement, dtype=np.float64)
            displaced = Hypotheses(evidence=hypotheses.evidence,
                                   locations=hypotheses.locations + hypotheses.poses.dot(moved),
                                   poses=hypotheses.poses, possible=hypotheses.possible)
            if self._in_step:
                self._note_displacement(moved)
                self._displaced[graph_id] = _snapshot(displaced)
            else:  # a location-only step: the backend applies it with the next step's displacement
                self._resident[graph_id] = _snapshot(displaced)
                self._moved_since_step[graph_id] = self._moved_since_step.get(graph_id, np.zeros(3)) + moved
            return displaced

    def update_evidence(self, hypotheses: Any, features: Dict[str, Any], graph_id: str,
                        evidence_update_threshold: float) -> Tuple[Any, Dict[str, Any]]:
        with self._lock:
            if not self._in_step:
                raise bad_input(f"update_evidence({graph_id!r}) outside `with updater:`")
            self._shared.prepare()
            if graph_id not in self._graph_index:
                raise bad_input(f"update_evidence: graph {graph_id!r} was not in graph_memory when the episode "
                                f"started (known: {list(self._graph_index)})")
            expected = self._displaced.get(graph_id, self._resident.get(graph_id))
            self._check_resident(hypotheses, graph_id, expected, "update_evidence")
            if self._channel not in features:
                return None, {}
            self._run_step(features, graph_id)
            g = self._graph_index[graph_id]
            self._check_threshold(graph_id, g, evidence_update_threshold)
            updated = self._read_hypotheses(hypotheses, g)
            self._resident[graph_id] = _snapshot(updated)
            self._read.add(graph_id)
            return updated, self._telemetry(hypotheses.count, g)

    def _telemetry(self, incoming_count: int, g: int) -> Dict[str, Any]:
        """The telemetry dict Monty's updater of the same kind returns."""
        raise NotImplementedError

    # -- accessors Monty's BurstSamplingHypothesesUpdater has

    @property
    def max_slope(self) -> float:
        return self._last_max_slope

    @property
    def sampling_burst_steps(self) -> int:
        return self._last_burst_steps

    # -- the step on the backend

    @property
    def _lm_id(self) -> int:
        if self._lm is None:
            raise bad_input("the Weft updater has no learning module on the backend before its first step")
        return self._lm

    def _run_step(self, features: Dict[str, Any], graph_id: str) -> None:
        if self._step_ran:
            if features is not self._step_features and not _same_features(features, self._step_features):
                raise bad_input(f"update_evidence({graph_id!r}): features differ from the step's first call")
            return
        displacement = None if self._step_displacement is _UNSET else self._step_displacement
        dispatched = self._shared.dispatched_input(self._lm) if self._lm is not None else None
        if dispatched is None:
            self._shared.run_alone(self, features, displacement)
        else:
            self._check_dispatched(dispatched, features, displacement)
            self._shared.wait()
        self._step_ran = True
        self._step_features = features
        self._moved_since_step = {}
        if self.burst:
            info = self._shared.live().burst_telemetry(self._lm_id, next(iter(self._graph_index.values())))
            self._last_burst_steps = info.burst_steps_in_step
            self._last_max_slope = float(info.max_global_slope)

    def _check_dispatched(self, dispatched: Query, features: Dict[str, Any], displacement: Any) -> None:
        sent_features, sent_displacement = dispatched
        if not _same_features(features, sent_features):
            raise bad_input("update_evidence: the features differ from those WeftBackend.dispatch sent for this LM")
        sent, given = self._effective_displacement(sent_displacement), self._effective_displacement(displacement)
        if not (sent is given if sent is None or given is None else np.array_equal(sent, given)):
            raise bad_input(f"update_evidence: displacement {displacement} differs from {sent_displacement} sent "
                            "by WeftBackend.dispatch")

    def _effective_displacement(self, displacement: Any) -> Optional[Array]:
        """What the backend applies: nothing before the first hypotheses; Monty's None (the agent has
        not moved) is a zero displacement, the same update."""
        if not self._resident:
            return None
        step = np.zeros(3) if displacement is None else np.asarray(displacement, dtype=np.float64)
        moved = self._location_only_displacement()
        return step if moved is None else moved + step

    def _location_only_displacement(self) -> Optional[Array]:
        """The sum of the location-only displacements since the last step, the same for every graph
        with hypotheses (Monty displaces them all), None when there was none."""
        if not self._moved_since_step:
            return None
        holding = [g for g, h in self._resident.items() if h.count]
        moved = [self._moved_since_step.get(g) for g in holding]
        first = moved[0]
        if first is None or any(m is None or not np.array_equal(m, first) for m in moved):
            raise bad_input(f"location-only displacements differ between graphs {holding}: the Weft updaters "
                            "displace every graph of an LM together")
        return first

    def _backend_input(self, features: Dict[str, Any], displacement: Any) -> Optional[Dict[str, Any]]:
        """The backend's step input of this LM, None when no feature channel of its graphs is sensed."""
        self._shared.prepare()
        if self._channel not in features:
            return None
        channel = features[self._channel]
        names = [f["name"] for f in self._features_config]
        missing = [n for n in ("pose_vectors", *names) if n not in channel]
        if missing:
            raise bad_input(f"features[{self._channel!r}] lacks {missing}")
        step: Dict[str, Any] = {"pose_vectors": np.asarray(channel["pose_vectors"], dtype=np.float64),
                "pose_fully_defined": bool(channel.get("pose_fully_defined", True)),
                "features": {n: np.atleast_1d(np.asarray(channel[n], dtype=np.float64)) for n in names}}
        applied = self._effective_displacement(displacement)
        if applied is not None:
            step["displacement"] = applied
        return step

    def _note_displacement(self, displacement: Array) -> None:
        if self._step_displacement is _UNSET:
            self._step_displacement = displacement
        elif not np.array_equal(self._step_displacement, displacement):
            raise bad_input(f"displace_hypotheses: displacement {displacement} differs from {self._step_displacement} "
                            "given for another graph in the same step")

    def _check_threshold(self, graph_id: str, g: int, passed: float) -> None:
        ours = self._shared.live().step_info(self._lm_id, g).threshold
        tolerance = THRESHOLD_TOLERANCE[self._shared.kind] * max(1.0, abs(ours))
        if not abs(float(passed) - ours) <= tolerance:
            raise bad_input(f"update_evidence({graph_id!r}): evidence_update_threshold {passed!r} differs from "
                            f"Weft's {ours!r} (evidence_threshold_config={self._base_config['threshold']!r}; "
                            "Weft computes it from the LM's own most likely evidence)")

    def _read_hypotheses(self, incoming: Any, g: int) -> Any:
        arrays = self._shared.live().hypotheses(self._lm_id, g)
        possible = np.asarray(incoming.possible, dtype=np.bool_)  # the LM owns `possible`; carried over
        if self.burst and incoming.count:
            possible = np.delete(possible, self._shared.live().burst_telemetry(self._lm_id, g).removed_ids)
        added = arrays["evidence"].shape[0] - possible.shape[0]
        if added < 0 or (added and not self.burst and incoming.count):
            raise bad_input(f"internal: {arrays['evidence'].shape[0]} hypotheses after the step from {incoming.count}")
        possible = np.concatenate([possible, np.zeros(added, dtype=np.bool_)])
        return Hypotheses(evidence=arrays["evidence"], locations=arrays["locations"], poses=arrays["rotations"],
                          possible=possible)

    def _prediction_error(self, incoming_count: int, g: int) -> Optional[float]:
        error = self._shared.live().step_info(self._lm_id, g).prediction_error
        return None if incoming_count == 0 or np.isnan(error) else float(error)

    # -- graphs and config

    def _graph_set(self) -> GraphArrays:
        """[(graph_id, pos, x)] of every graph in graph_memory, read for the backend."""
        ids = list(self.graph_memory.get_memory_ids())
        if not ids:
            raise bad_input("graph_memory holds no graph")
        channels = {gid: graph_channel(self.graph_memory, gid) for gid in ids}
        if len(set(channels.values())) != 1:
            raise bad_input(f"graphs of one LM with different input channels {channels}: not supported")
        self._channel = channels[ids[0]]
        features = matching_features(self.graph_memory, ids[0], self._channel)
        use = uses_features(self._channel, self.feature_weights, self._feature_evidence_increment)
        self._features_config = feature_config(self._channel, features, self.feature_weights, self.tolerances, use)
        if CURVATURE_FEATURE not in features:
            raise bad_input(f"channel {self._channel!r}: the graphs have no {CURVATURE_FEATURE!r} feature, the "
                            "only curvature the Weft updaters scale the search radius with")
        for gid in ids[1:]:
            if matching_features(self.graph_memory, gid, self._channel) != features:
                raise bad_input(f"graph {gid!r} stores features in another order than {ids[0]!r}")
        return [(gid, *graph_arrays(self.graph_memory, gid, self._channel, features if use else [])) for gid in ids]

    def _weft_config(self) -> Dict[str, Any]:
        weights = self.feature_weights.get(self._channel, {}).get("pose_vectors", [1.0, 1.0, 1.0])
        config = dict(self._base_config, kind="burst_sampling" if self.burst else "default",
                      pose_weights=list(np.atleast_1d(weights)), features=self._features_config,
                      curvature_feature=CURVATURE_FEATURE)
        if not self._features_config:
            config.pop("curvature_feature")
        return config

    def _attach(self, graph_ids: List[str], weft_ids: List[int], lm: int) -> None:
        self._graph_index = dict(zip(graph_ids, weft_ids))
        self._lm = lm

    def _check_resident(self, hypotheses: Any, graph_id: str, expected: Any, where: str) -> None:
        """Monty must pass back exactly what this updater returned: Weft does not re-read it."""
        count = 0 if expected is None else expected.count
        if hypotheses.count != count:
            raise bad_input(f"{where}({graph_id!r}): {hypotheses.count} hypotheses passed in, the Weft updater "
                            f"holds {count} (hypotheses changed outside the updater are not supported)")
        if count == 0:
            return
        for field in ("evidence", "locations", "poses"):
            if not np.array_equal(getattr(hypotheses, field), getattr(expected, field)):
                raise bad_input(f"{where}({graph_id!r}): hypotheses.{field} differs from what the Weft updater "
                                "returned (changed outside the updater, e.g. by votes: not supported)")


class WeftDefaultHypothesesUpdater(_WeftHypothesesUpdater):
    """Monty's DefaultHypothesesUpdater on weft.hypothesis_update (same arguments, plus backend=)."""

    def __init__(self, feature_weights: Dict[str, Any], graph_memory: Any, max_match_distance: float,
                 tolerances: Dict[str, Any], evidence_threshold_config: Any = "all",
                 feature_evidence_calculator: Any = None, feature_evidence_increment: float = 1,
                 features_for_matching_selector: Any = None, initial_possible_poses: Any = "informed",
                 max_nneighbors: int = 3, past_weight: float = 1, present_weight: float = 1,
                 umbilical_num_poses: int = 8, backend: Any = "cpu", backend_group: Optional[str] = None,
                 x_percent_threshold: float = 10):
        refuse_unsupported(type(self).__name__, dict(
            feature_evidence_calculator=feature_evidence_calculator,
            features_for_matching_selector=features_for_matching_selector,
            initial_possible_poses=initial_possible_poses))
        super().__init__(feature_weights, graph_memory, max_match_distance, tolerances, evidence_threshold_config,
                         feature_evidence_increment, max_nneighbors, past_weight, present_weight,
                         umbilical_num_poses, backend, backend_group, x_percent_threshold)

    def _telemetry(self, incoming_count: int, g: int) -> Dict[str, Any]:
        if incoming_count == 0:
            return {}
        return {"mlh_prediction_error": self._prediction_error(incoming_count, g)}


class WeftBurstSamplingHypothesesUpdater(_WeftHypothesesUpdater):
    """Monty's BurstSamplingHypothesesUpdater on weft.hypothesis_update (same arguments, plus backend=).
    The slope tracker uses Monty's EvidenceSlopeTracker defaults (window 10, min age 5)."""

    burst = True

    def __init__(self, feature_weights: Dict[str, Any], graph_memory: Any, max_match_distance: float,
                 tolerances: Dict[str, Any], evidence_threshold_config: Any,
                 feature_evidence_calculator: Any = None, feature_evidence_increment: float = 1,
                 features_for_matching_selector: Any = None, sampling_multiplier: float = 0.4,
                 deletion_trigger_slope: float = 0.5, sampling_burst_duration: int = 5,
                 burst_trigger_slope: float = 1.0, include_telemetry: bool = False,
                 initial_possible_poses: Any = "informed", max_nneighbors: int = 3, past_weight: float = 1,
                 present_weight: float = 1, umbilical_num_poses: int = 8, backend: Any = "cpu",
                 backend_group: Optional[str] = None):
        if evidence_threshold_config != "all":
            raise bad_input(f"{type(self).__name__}: evidence_threshold_config must be 'all' (Monty's rule), "
                            f"got {evidence_threshold_config!r}")
        if sampling_multiplier < 0:
            raise bad_input(f"{type(self).__name__}: sampling_multiplier should be >= 0, got {sampling_multiplier}")
        refuse_unsupported(type(self).__name__, dict(
            feature_evidence_calculator=feature_evidence_calculator,
            features_for_matching_selector=features_for_matching_selector,
            initial_possible_poses=initial_possible_poses))
        self.sampling_multiplier = sampling_multiplier
        self.deletion_trigger_slope = deletion_trigger_slope
        self.sampling_burst_duration = sampling_burst_duration
        self.burst_trigger_slope = burst_trigger_slope
        self.include_telemetry = include_telemetry
        super().__init__(feature_weights, graph_memory, max_match_distance, tolerances, evidence_threshold_config,
                         feature_evidence_increment, max_nneighbors, past_weight, present_weight,
                         umbilical_num_poses, backend, backend_group, 10)
        self._base_config.update(sampling_multiplier=sampling_multiplier,
                                 deletion_trigger_slope=deletion_trigger_slope,
                                 sampling_burst_duration=sampling_burst_duration,
                                 burst_trigger_slope=burst_trigger_slope, slope_window=10, slope_min_age=5)

    def _telemetry(self, incoming_count: int, g: int) -> Dict[str, Any]:
        error = self._prediction_error(incoming_count, g)
        if not self.include_telemetry:
            return {"mlh_prediction_error": error}
        t = self._shared.live().burst_telemetry(self._lm_id, g)
        return asdict(BurstSamplingTelemetry(
            displacer_telemetry=HypothesisDisplacerTelemetry(mlh_prediction_error=error),
            added_ids=t.added_ids, ages=t.ages, evidence_slopes=t.evidence_slopes, removed_ids=t.removed_ids,
            max_slope=float(t.max_global_slope)))


# ---------------------------------------------------------------- the step split in a Monty model


def dispatch_learning_modules(model: Any) -> None:
    """The dispatch half of a MontyForEvidenceGraphMatching step: call it at the start of
    `_step_learning_modules` (WeftStepSplitMixin does). Every LM whose updater is a Weft updater
    and that will take a matching step with features gets its query (features, displacement, built
    as EvidenceGraphLM.matching_step builds it) into one dispatch per backend (LMs of one
    backend_group share one), then one wait per backend; the LMs' own steps read their results. LMs it cannot predict (another updater,
    no input, a location-only or exploratory step) run their steps as usual, and an LM whose own
    call then differs from the query it was sent is refused, never updated twice."""
    if getattr(model, "step_type", None) != "matching_step":
        return
    queries: Dict[WeftBackend, Dict[_WeftHypothesesUpdater, Query]] = {}
    for i, lm in enumerate(model.learning_modules):
        updater = getattr(lm, "hypotheses_updater", None)
        if not isinstance(updater, _WeftHypothesesUpdater):
            continue
        percepts = model._collect_inputs_to_lm(i)
        if not any(p.process_features_in_lm for p in percepts if p.is_from_sm()):
            continue
        queries.setdefault(updater._shared, {})[updater] = lm_query(lm, percepts)
    for backend, batch in queries.items():
        backend.dispatch(batch)
    for backend in queries:
        backend.wait()


def lm_query(lm: Any, percepts: List[Any]) -> Query:
    """(features, displacement) of EvidenceGraphLM.matching_step: the selected features of the
    percepts processed in the LM; None before the agent first moved, else the mean sensor-module
    location minus the buffer's last location."""
    features = lm._select_features_to_use([p for p in percepts if p.process_features_in_lm])
    if len(lm.buffer) == 0:
        return features, None
    locations = [p.location for p in percepts if p.is_from_sm() and p.location is not None]
    return features, np.mean(locations, axis=0) - lm.buffer.last_location


class WeftStepSplitMixin:
    """Put before MontyForEvidenceGraphMatching: all Weft LMs of a step in one dispatch."""

    def _step_learning_modules(self, ctx: Any) -> None:
        dispatch_learning_modules(self)
        super()._step_learning_modules(ctx)  # type: ignore[misc]


_MontyModel = monty_class("model", "MontyForEvidenceGraphMatching", None)
if _MontyModel is not None:  # the class for a Monty config's monty_class, where tbp.monty is installed
    WeftMontyForEvidenceGraphMatching = type("WeftMontyForEvidenceGraphMatching", (WeftStepSplitMixin, _MontyModel), {
        "__doc__": "MontyForEvidenceGraphMatching whose Weft LMs step in one backend dispatch."})


# ---------------------------------------------------------------- helpers


def shared_backend(backend: Any, group: Optional[str]) -> WeftBackend:
    if isinstance(backend, WeftBackend):
        if group is not None:
            raise bad_input("give backend=WeftBackend(...) or backend_group=NAME, not both")
        return backend
    return WeftBackend.group(group, backend) if group is not None else WeftBackend(backend)


_UNSET = object()


def _snapshot(h: Any) -> Any:
    return Hypotheses(evidence=np.array(h.evidence, copy=True), locations=np.array(h.locations, copy=True),
                      poses=np.array(h.poses, copy=True), possible=np.array(h.possible, copy=True))


def _same_features(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_features(a[k], b[k]) for k in a)
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except (TypeError, ValueError):
        return False
