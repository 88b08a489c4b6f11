"""Properties of the whole C ABI, checked function by function from its own header (capi/weft.h),
so a function added later is covered without a new test:
- a NULL for any pointer argument the header does not document as optional is a failure status
  other than WEFT_ERROR_INTERNAL, with a message; never a crash and never WEFT_OK;
- extreme values of ids, indices, offsets and enums (-1, 2^31, 2^32-1, 2^64-1) are a status,
  never a crash;
- NULL arrays inside the structs passed in (with nonzero counts) are refused;
- releasing or retaining NULL is a no-op.
The library comes from WEFT_C_LIBRARY, a GGUF model from WEFT_TEST_MODEL; every other argument is a real handle or a large zeroed
buffer, so the argument under test is the only thing wrong with a call."""
import ctypes
import os
import re

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "..", "..", "capi", "weft.h")
EXAMPLES = os.path.join(HERE, "..", "..", "examples")
LIB = ctypes.CDLL(os.environ["WEFT_C_LIBRARY"])
WEFT_OK, WEFT_ERROR_INVALID_ARGUMENT, WEFT_ERROR_INTERNAL = 0, 13, 14

# Pointer arguments the header says may be NULL (its comment beside each function).
OPTIONAL = {
    ("weft_device_open", "options"),
    ("weft_token_vm_compile", "options"),
    ("weft_token_vm_load", "tokenizer"),
    ("weft_token_vm_machine_create", "device"),
    ("weft_token_vm_step", "tokens"), ("weft_token_vm_step", "tags"),
    ("weft_token_vm_set_tool", "user"), ("weft_token_vm_resolve_callbacks", "resolved"),
    ("weft_hypothesis_update_read", "evidence"), ("weft_hypothesis_update_read", "locations"),
    ("weft_hypothesis_update_read", "rotations"), ("weft_hypothesis_update_read", "possible"),
    ("weft_token_vm_compile_for_model", "options"), ("weft_steered_machine_create", "options"),
    ("weft_steered_position", "position"), ("weft_steered_position", "context"),
    ("weft_volumetric_model_sizes", "input_size"), ("weft_volumetric_model_sizes", "output_size"),
    ("weft_volumetric_model_sizes", "cells"), ("weft_volumetric_trainer_create", "device"),
    ("weft_volumetric_trainer_create", "options"), ("weft_volumetric_trainer_step", "loss"),
}
# Numbers that name something (an id, an index, a position, an enum) rather than a size.
NAMING_NUMBERS = {"index", "offset", "instance", "element", "ticket", "binding", "lm", "graph", "stream", "threads",
                  "timeout_ns", "steps_per_submit", "batch"}
EXTREMES = [-1, 2**31, 2**32 - 1, 2**64 - 1]
SIZE = 16  # sizes and counts passed with the 64 KiB buffers below


def declarations():
    """(return type, name, [(type, parameter)]) of every WEFT_API function in the header."""
    text = re.sub(r"/\*.*?\*/", "", open(HEADER).read(), flags=re.S)
    found = []
    for ret, name, params in re.findall(r"WEFT_API\s+([\w\s\*]+?)\s*\b(weft_\w+)\s*\(([^)]*)\)\s*;", text):
        parsed = []
        for p in params.split(","):
            p = " ".join(p.split())
            if p and p != "void":
                m = re.match(r"(.*?)(\w+)$", p)
                parsed.append((m.group(1).strip(), m.group(2)))
        found.append((ret.strip(), name, parsed))
    return found


DECLS = declarations()


def is_pointer(ctype):
    return "*" in ctype or ctype == "weft_token_vm_tool"


def is_signed(ctype):
    return ctype in ("int", "int32_t", "int64_t")


HANDLE_TYPES = ["weft_device", "weft_program", "weft_buffer", "weft_hypothesis_update_backend",
                "weft_token_vm_workflow", "weft_token_vm_machine", "weft_attention_model", "weft_volumetric_model",
                "weft_volumetric_mesh", "weft_volumetric_trainer"]
VOLUMETRIC_JSON = (b'{"grid": {"depth": 1, "rows": 1, "cols": 2, "layers_per_cell": 1, "input": 4, "seed": 1, "dtype": "f32"},'
                   b' "layers": [{"at": [0, 0, 0, 0], "type": "dense", "in": 4, "out": 4, "activation": "tanh"},'
                   b' {"at": [0, 0, 1, 0], "type": "dense", "in": 4, "out": 2, "activation": "linear"}]}')


def call(name, args):
    fn = getattr(LIB, name)
    fn.restype = ctypes.c_int
    return fn(*args)


def checked(name, args):
    status = call(name, args)
    assert status == WEFT_OK, f"{name}: {status} {last_error()}"


def last_error():
    LIB.weft_last_error.restype = ctypes.c_char_p
    return LIB.weft_last_error().decode()


TOOL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_void_p)(
    lambda user, text, length, answer: 0)


class CompileOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("flow", ctypes.c_char_p), ("tokenizer", ctypes.c_char_p),
                ("resource_names", ctypes.POINTER(ctypes.c_char_p)), ("resource_values", ctypes.POINTER(ctypes.c_char_p)),
                ("resource_count", ctypes.c_uint32), ("byte_matching", ctypes.c_int)]


PROMPTS = os.path.join(EXAMPLES, "token_vm", "prompts.toml").encode()
NAMES = (ctypes.c_char_p * 1)(b"problem")
VALUES = (ctypes.c_char_p * 1)(b"What is 17 * 23 + 4?")


def compile_options():
    """The shipped prompts' options: their flow and the one resource they need."""
    options = CompileOptions()
    LIB.weft_token_vm_compile_options_default(ctypes.byref(options))
    options.flow = os.path.join(EXAMPLES, "token_vm", "flow.toml").encode()
    options.resource_names, options.resource_values, options.resource_count = NAMES, VALUES, 1
    return options


@pytest.fixture(scope="module")
def handles(tmp_path_factory):
    """One real handle of every kind, and a scratch folder for the paths functions write."""
    os.chdir(tmp_path_factory.mktemp("capi"))
    h = {}
    for kind, fn, args in [
        ("weft_device", "weft_device_open", [None]),
        ("weft_hypothesis_update_backend", "weft_hypothesis_update_backend_cpu", [ctypes.c_uint32(1)]),
        ("weft_token_vm_workflow", "weft_token_vm_compile", [PROMPTS, ctypes.byref(compile_options())]),
        # the seeded test model, written by the ctest command (`weft attention write-model`)
        ("weft_attention_model", "weft_attention_model_load", [os.environ["WEFT_TEST_MODEL"].encode()]),
        ("weft_volumetric_model", "weft_volumetric_model_from_json", [VOLUMETRIC_JSON]),
    ]:
        out = ctypes.c_void_p()
        checked(fn, args + [ctypes.byref(out)])
        h[kind] = out
    for kind, fn, args in [
        ("weft_program", "weft_program_from_manifest", [h["weft_device"], os.path.join(EXAMPLES, "chain", "chain.toml").encode()]),
        ("weft_buffer", "weft_buffer_create", [h["weft_device"], ctypes.c_uint64(4096)]),
        ("weft_token_vm_machine", "weft_token_vm_machine_create", [None, h["weft_token_vm_workflow"], ctypes.c_uint32(2), ctypes.c_uint32(1)]),
        ("weft_volumetric_mesh", "weft_volumetric_mesh_create", [h["weft_device"], h["weft_volumetric_model"], ctypes.c_int(0), ctypes.c_uint32(1)]),
        ("weft_volumetric_trainer", "weft_volumetric_trainer_create", [None, h["weft_volumetric_model"], None]),
    ]:
        out = ctypes.c_void_p()
        checked(fn, args + [ctypes.byref(out)])
        h[kind] = out
    yield h
    for kind in reversed(HANDLE_TYPES):
        release = "weft_hypothesis_update_backend_release" if kind == "weft_hypothesis_update_backend" else kind + "_release"
        getattr(LIB, release)(h[kind])


def plausible(ctype, pname, handles):
    """A value for an argument that is not the one under test: right kind, big enough."""
    base = ctype.replace("const", "").replace("*", "").strip()
    if ctype == "weft_token_vm_tool":
        return TOOL
    if ctype.count("*") == 1 and base in HANDLE_TYPES:
        return handles[base]
    if ctype.count("*") == 1 and base == "weft_token_vm_answer":
        return ctypes.create_string_buffer(1 << 16)  # never reached: answer handles exist only in callbacks
    if base == "char" and ctype.count("*") == 1 and "const" in ctype:
        return {"segment": b"result", "name": b"result", "path": b"saved.json", "dir": b"outputs"}.get(pname, b"x")
    if is_pointer(ctype):
        return ctypes.create_string_buffer(1 << 16)  # output slots, data, zeroed structs
    if ctype in ("double", "float"):
        return ctypes.c_double(0) if ctype == "double" else ctypes.c_float(0)
    if pname in ("bytes", "capacity", "count", "nodes", "columns", "length", "steps", "graph_count", "group_count",
                 "lm_count"):
        return ctypes.c_uint64(SIZE) if ctype == "uint64_t" else ctypes.c_uint32(SIZE)
    return ctypes.c_int64(0) if ctype in ("int64_t",) else (ctypes.c_int(0) if is_signed(ctype) or ctype.startswith("weft_") else ctypes.c_uint64(0) if ctype == "uint64_t" else ctypes.c_uint32(0))


def as_type(ctype, value):
    if ctype in ("int", "int32_t") or ctype.startswith("weft_"):
        return ctypes.c_int(ctypes.c_int32(value & 0xFFFFFFFF).value)
    if ctype == "int64_t":
        return ctypes.c_int64(ctypes.c_int64(value & (2**64 - 1)).value)
    if ctype == "uint64_t":
        return ctypes.c_uint64(value & (2**64 - 1))
    return ctypes.c_uint32(value & 0xFFFFFFFF)


STATUS_FUNCTIONS = [(n, ps) for r, n, ps in DECLS if r == "weft_status"]
NULL_CASES = [(n, i, ps) for n, ps in STATUS_FUNCTIONS for i, (t, p) in enumerate(ps) if is_pointer(t)]
NUMBER_CASES = [(n, i, ps, v) for n, ps in STATUS_FUNCTIONS for i, (t, p) in enumerate(ps)
                if not is_pointer(t) and p in NAMING_NUMBERS for v in EXTREMES]


def test_the_header_parse_finds_every_exported_function():
    names = {n for _, n, _ in DECLS}
    assert len(names) == len(DECLS) > 70
    for n in names:
        assert hasattr(LIB, n), n


@pytest.mark.parametrize("name,index,params", NULL_CASES, ids=[f"{n}:{ps[i][1]}" for n, i, ps in NULL_CASES])
def test_a_null_pointer_is_a_typed_failure(handles, name, index, params):
    args = [None if i == index else plausible(t, p, handles) for i, (t, p) in enumerate(params)]
    status = call(name, args)
    if (name, params[index][1]) in OPTIONAL:
        assert status != WEFT_ERROR_INTERNAL, last_error()
        return
    assert status not in (WEFT_OK, WEFT_ERROR_INTERNAL), f"{name} with {params[index][1]} = NULL gave {status}"
    assert last_error(), name


@pytest.mark.parametrize("name,index,params,value", NUMBER_CASES,
                         ids=[f"{n}:{ps[i][1]}={v}" for n, i, ps, v in NUMBER_CASES])
def test_an_extreme_id_index_or_offset_is_a_status(handles, name, index, params, value):
    args = [as_type(t, value) if i == index else plausible(t, p, handles) for i, (t, p) in enumerate(params)]
    status = call(name, args)
    assert status != WEFT_ERROR_INTERNAL, f"{name}: {last_error()}"


def test_releasing_or_retaining_null_is_a_no_op():
    for ret, name, params in DECLS:
        if ret == "void" and (name.endswith("_release") or name.endswith("_retain")):
            getattr(LIB, name)(None)


class Channel(ctypes.Structure):
    _fields_ = [("pose_vectors", ctypes.c_double * 9), ("pose_fully_defined", ctypes.c_int),
                ("features", ctypes.POINTER(ctypes.c_double)), ("feature_count", ctypes.c_uint32)]


class Input(ctypes.Structure):
    _fields_ = [("lm", ctypes.c_int), ("has_displacement", ctypes.c_int), ("displacement", ctypes.c_double * 3),
                ("channels", ctypes.POINTER(Channel)), ("channel_count", ctypes.c_uint32)]


def test_null_arrays_inside_hypothesis_inputs_are_refused(handles):
    backend = handles["weft_hypothesis_update_backend"]
    no_channels = Input(lm=0, channels=None, channel_count=1)
    assert call("weft_hypothesis_update_dispatch", [backend, ctypes.byref(no_channels), ctypes.c_uint32(1)]) \
        not in (WEFT_OK, WEFT_ERROR_INTERNAL)
    channel = Channel(pose_fully_defined=1, features=None, feature_count=4)
    no_features = Input(lm=0, channels=ctypes.pointer(channel), channel_count=1)
    assert call("weft_hypothesis_update_dispatch", [backend, ctypes.byref(no_features), ctypes.c_uint32(1)]) \
        not in (WEFT_OK, WEFT_ERROR_INTERNAL)


def test_null_resource_arrays_in_compile_options_are_refused():
    options = compile_options()
    options.resource_names = None
    out = ctypes.c_void_p()
    status = call("weft_token_vm_compile", [PROMPTS, ctypes.byref(options), ctypes.byref(out)])
    assert status == WEFT_ERROR_INVALID_ARGUMENT, last_error()
    assert "resource" in last_error()
