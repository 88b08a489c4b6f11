"""Every native function and method of the package, called with hostile arguments: each value of
the right type at its extremes (empty, zero, negative, 2^32-1, NaN, huge lists, /dev/zero as a
path) and values of the wrong type, one parameter at a time. Whatever happens, the call returns
or raises a weft.Error: never another exception type, a crash or a hang.

The parameters and their types come from the signatures pybind11 writes into each docstring,
so a function added later is covered without touching this file."""
import faulthandler
import os
from typing import Any, Callable, Dict, Iterator, List, Tuple

import numpy as np
import pytest

import weft
from native_api import Parameter, natives
from weft import attention, hypothesis_update, token_vm, volumetric

EXAMPLES = os.environ.get("WEFT_EXAMPLES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
GOLDENS = os.path.join(os.path.dirname(__file__), "..", "..", "tokenizer", "goldens")

# conformance() with any filter runs real cases for minutes; its arguments are covered by the
# wrong-type values only.
SLOW = {"conformance"}

WRONG_TYPE = [None, object(), 2**70, "x", 1.5, [None], b"\xff", {"x": 1}]
EXTREMES: Dict[str, List[Any]] = {
    "int": [-1, 0, 1, 2**31, 2**32 - 1, 2**63 - 1],
    "float": [float("nan"), float("inf"), -float("inf"), -0.0, 1e308, -1.0],
    "bool": [True, False],
    "str": ["", "x", "\x00", "é" * 1000, "/dev/zero", "/nonexistent/x"],
    "List[int]": [[], [-1], [2**32], [0] * 4, list(range(5000))],
    "List[str]": [[], [""], ["x"] * 3, ["\x00"]],
    "List[List[int]]": [[], [[]], [[-1]], [[0, 0]], [[2**31]]],
    "Dict[str, str]": [{}, {"": ""}, {"x": "\x00"}],
    "dict": [{}, {0: None}, {0: {}}, {-1: {}}, {0: {"pose_vectors": np.zeros((3, 3))}}, {0: {"channels": []}}],
    "function": [lambda *args: None, len],
}
ARRAYS = [np.zeros(0, np.float32), np.zeros(3), np.zeros((2, 3), np.uint32), np.full(4, np.nan, np.float32),
          np.zeros(3, dtype=object), np.zeros(2, np.complex64), np.arange(6, dtype=np.uint32).reshape(2, 3)[:, ::2],
          np.full(8, 2**32 - 1, np.uint32), np.zeros((0, 3)), np.zeros((4, 14))]
for array_type in ("numpy.ndarray", "buffer", "handle", "object"):
    EXTREMES[array_type] = ARRAYS
BASELINE = {"int": 0, "float": 0.0, "bool": False, "str": "x", "List[int]": [0], "List[str]": ["x"],
            "List[List[int]]": [[0]], "Dict[str, str]": {}, "dict": {}, "function": lambda *args: None}


@pytest.fixture(scope="module")
def objects(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("hostile")
    before = os.getcwd()
    os.chdir(tmp)  # functions given "x" as a path write there, until the module's tests end
    device = weft.Device(validation=True)
    model_path = str(tmp / "seeded.gguf")
    attention.write_seeded_model(model_path)
    model = attention.Model.load(model_path)
    workflow = token_vm.Workflow.compile(os.path.join(EXAMPLES, "token_vm", "prompts.toml"),
                                         flow=os.path.join(EXAMPLES, "token_vm", "flow.toml"),
                                         resources={"problem": "1 + 1"})
    backend = hypothesis_update.Backend.cpu(threads=1)
    rng = np.random.default_rng(1)
    graph = backend.add_graph(rng.normal(size=(4, 3)), np.hstack([np.arange(4)[:, None], rng.normal(size=(4, 10))]))
    backend.add_learning_module([graph])
    grid = volumetric.Model.load(os.path.join(EXAMPLES, "volumetric", "grid.json"))
    yield {
        "weft._weft.Device": device,
        "weft._weft.Program": weft.Program(device, os.path.join(EXAMPLES, "gain", "gain.toml")),
        "weft._weft.Tokenizer": weft.Tokenizer.load(os.path.join(GOLDENS, "wordlevel_whitespace.tokenizer.json")),
        "weft._weft.attention.AttentionModel": model,
        "weft._weft.attention.AttentionDecoder": attention.Decoder(device, model, context=16),
        "weft._weft.token_vm.TokenVmWorkflow": workflow,
        "weft._weft.token_vm.TokenVmMachine": token_vm.Machine(workflow, batch=2, device=device),
        "weft._weft.hypothesis_update.Backend": backend,
        "weft._weft.volumetric.VolumetricModel": grid,
        "weft._weft.volumetric.VolumetricMesh": volumetric.Mesh(device, grid),
        "weft._weft.volumetric.VolumetricTrainer": volumetric.Trainer(grid.copy()),
        "weft._weft.volumetric.VolumetricDeviceTrainer": volumetric.DeviceTrainer(device, grid.copy()),
    }
    os.chdir(before)


def values_of(type_text: str, objects: Dict[str, Any]) -> List[Any]:
    optional = type_text.startswith("Optional[")
    inner = type_text[len("Optional["):-1] if optional else type_text
    right = [objects[inner]] if inner in objects else EXTREMES.get(inner, [])
    return ([None] if optional else []) + right + WRONG_TYPE


def baseline(type_text: str, objects: Dict[str, Any]) -> Any:
    if type_text.startswith("Optional["):
        return None
    return objects[type_text] if type_text in objects else BASELINE.get(type_text, np.zeros(4, np.float32))


def calls_to_make(objects: Dict[str, Any]) -> Iterator[Tuple[str, Callable[..., Any], List[Parameter]]]:
    """(name, callable, parameters) of each native callable that can be reached with the objects."""
    for native in natives():
        owner_type = f"{native.module.__name__}.{native.cls.__name__}" if native.cls else ""
        if native.name in SLOW:
            continue
        if native.cls is None:
            yield f"{native.module.__name__}.{native.name}", getattr(native.module, native.name), native.parameters
        elif native.name == "__init__":
            yield f"{native.cls.__name__}()", native.cls, native.parameters
        elif native.static:
            yield f"{native.cls.__name__}.{native.name}", getattr(native.cls, native.name), native.parameters
        elif owner_type in objects:
            yield f"{native.cls.__name__}.{native.name}", getattr(objects[owner_type], native.name), native.parameters


def test_hostile_arguments_raise_only_weft_errors(objects: Dict[str, Any]) -> None:
    faulthandler.dump_traceback_later(240, exit=True)  # a hang fails the test, with the stack
    failures, calls = [], 0
    try:
        for name, fn, params in calls_to_make(objects):
            base = [baseline(t, objects) for _, t, _ in params]
            for i, (param, type_text, _) in enumerate(params):
                for value in values_of(type_text, objects):
                    args = base[:i] + [value] + base[i + 1:]
                    calls += 1
                    try:
                        fn(*args)
                    except weft.Error:
                        pass
                    except Exception as e:  # noqa: BLE001  (what the test is looking for)
                        failures.append(f"{name}({param}={value!r:.40}): {type(e).__name__}: {e}")
    finally:
        faulthandler.cancel_dump_traceback_later()
    assert calls > 1000
    assert not failures, "\n".join(failures)


def test_hostile_arguments_to_the_python_functions_raise_only_weft_errors(objects: Dict[str, Any]) -> None:
    decoder, model = objects["weft._weft.attention.AttentionDecoder"], objects["weft._weft.attention.AttentionModel"]
    base = [decoder, model, "Hi", 2, True]
    failures = []
    for i in range(len(base)):
        for value in WRONG_TYPE + EXTREMES["int"] + EXTREMES["List[int]"] + ARRAYS:
            args = base[:i] + [value] + base[i + 1:]
            decoder.reset()
            try:
                list(attention.stream(*args))
            except weft.Error:
                pass
            except Exception as e:  # noqa: BLE001
                failures.append(f"attention.stream(argument {i} = {value!r:.40}): {type(e).__name__}: {e}")
    assert not failures, "\n".join(failures)
