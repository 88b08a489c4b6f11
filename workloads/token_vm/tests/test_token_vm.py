"""weft.token_vm: the token VM from Python. Expected values come from the CPU reference (run
through the same binding) and from the example's scripted model text."""
import os

import numpy as np
import pytest

import weft
from weft.token_vm import DONE, SOURCE_SAMPLED, SOURCE_TIMEOUT, Machine, Workflow

EXAMPLES = os.environ.get("WEFT_EXAMPLES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
PROMPTS = os.path.join(EXAMPLES, "token_vm", "prompts.toml")
FLOW = os.path.join(EXAMPLES, "token_vm", "flow.toml")
MODEL = os.path.join(EXAMPLES, "token_vm", "model.txt")


@pytest.fixture(scope="module")
def device():
    dev = weft.Device(validation=True)
    yield dev
    assert dev.validation_messages() == []


@pytest.fixture(scope="module")
def workflow():
    return Workflow.compile(PROMPTS, flow=FLOW, resources={"problem": "What is 17 * 23 + 4?"})


def scripted_lines(workflow):
    lines = [l for l in open(MODEL, encoding="utf-8").read().splitlines() if l and not l.startswith("#")]
    return [workflow.encode(l.replace("\\n", "\n")) for l in lines]


def run_scripted(workflow, device, tool_log):
    """Steps the four scripted 'models' until done; a script advances when the VM took its token."""
    scripts = scripted_lines(workflow)
    vm = Machine(workflow, batch=4, device=device)
    vm.set_tool("calculator", lambda text: tool_log.append(text) or calc(text))
    cursor = [0] * 4
    while not vm.done:
        sampled = np.array([s[c % len(s)] for s, c in zip(scripts, cursor)], dtype=np.uint32)
        consumed, tags = vm.step(sampled, tags=True)
        assert consumed.dtype == np.uint32 and consumed.shape == (4,) and tags.shape == (4,)
        for b in range(4):
            if vm.records(b)[-1, 4] in (SOURCE_SAMPLED, SOURCE_TIMEOUT):
                cursor[b] += 1
        if vm.callbacks_ready:
            assert all(c["tool"] == "calculator" for c in vm.pending_calls())
            vm.resolve_callbacks()
        assert vm.steps_taken < 5000
    return vm


def calc(text):
    expression = text.replace("[EOS]", "").strip()
    if not expression or any(ch not in "0123456789+-*() " for ch in expression):
        return "error: unexpected input\n"
    return f"{eval(expression, {'__builtins__': {}})}\n"  # digits and + - * ( ) only


def test_compiled_workflow_describes_itself(workflow):
    assert workflow.vocab_size == 257
    assert workflow.tools == ["calculator"]
    assert set(workflow.extractions) == {"answer", "work"}
    tokens = workflow.encode("17 * 23")
    assert tokens.dtype == np.uint32 and list(tokens) == list(b"17 * 23")
    assert workflow.decode(tokens) == b"17 * 23"


def test_device_and_reference_agree_and_the_python_tool_answers(workflow, device):
    device_calls, reference_calls = [], []
    on_device = run_scripted(workflow, device, device_calls)
    on_reference = run_scripted(workflow, None, reference_calls)
    assert on_device.steps_taken == on_reference.steps_taken
    assert device_calls == reference_calls and len(device_calls) == 4
    for a, b in zip(on_device.raw_stream(), on_reference.raw_stream()):
        np.testing.assert_array_equal(a, b)
    for b in range(4):
        np.testing.assert_array_equal(on_device.records(b), on_reference.records(b))
    assert on_device.decisions() == on_reference.decisions()
    assert list(on_device.stream_status()) == [DONE] * 4
    found = on_device.extract()
    assert found[0]["answer"] == " 395[EOS]"
    assert "395\n" in found[0]["work"]  # the Python tool's answer was fed back
    assert b"Solve this problem: What is 17 * 23 + 4?" in on_device.generative_sequence()[0]


def test_run_takes_scripted_steps_per_submission(workflow, device):
    stepped = Machine(workflow, batch=2, device=None)
    batched = Machine(workflow, batch=2, device=device, steps_per_submit=8)
    tokens = np.tile(np.frombuffer(b" more[EOS]", dtype=np.uint8).astype(np.uint32), 4)[:32]
    script = np.stack([tokens, tokens[::-1]], axis=1)  # [steps, batch]
    for row in script:
        stepped.step(row)
    batched.run(script)
    assert batched.steps_taken == stepped.steps_taken == 32
    for a, b in zip(batched.raw_stream(), stepped.raw_stream()):
        np.testing.assert_array_equal(a, b)


def test_saved_workflow_loads_back(workflow, tmp_path):
    path = str(tmp_path / "workflow.json")
    workflow.save(path)
    loaded = Workflow.load(path)
    a, b = Machine(workflow, 1), Machine(loaded, 1)
    x = np.array([ord("x")], dtype=np.uint32)
    for _ in range(20):
        np.testing.assert_array_equal(a.step(x), b.step(x))


def test_bad_input_names_the_problem(workflow, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[config]\nzone_patterns = 3\n")
    with pytest.raises(weft.BadInput, match="bad.toml"):
        Workflow.compile(str(bad))
    vm = Machine(workflow, batch=2)
    with pytest.raises(weft.BadInput, match="no_such_tool"):
        vm.set_tool("no_such_tool", lambda text: "")
    with pytest.raises(weft.BadInput, match="stream 7"):
        vm.feed(7, "x")
    with pytest.raises(weft.BadInput, match="1-D array of 2 tokens"):
        vm.step(np.zeros(3, dtype=np.uint32))
    with pytest.raises(weft.BadInput, match="100000"):
        vm.step(np.array([100000, 0], dtype=np.uint32))
    with pytest.raises(weft.BadInput, match="match"):
        Workflow.compile(PROMPTS, match="words")
    with pytest.raises(weft.BadInput, match="workflow is None"):  # crashed the interpreter before
        Machine(None, batch=2)
    # Regressions: float ids were truncated (1.7 -> 1), negative ones wrapped, and an id past the
    # vocabulary decoded to "".
    with pytest.raises(weft.BadInput, match="integer array, got dtype float64"):
        vm.step(np.array([1.7, 0.0]))
    with pytest.raises(weft.BadInput, match="token id -1 is negative"):
        vm.step(np.array([-1, 0]))
    with pytest.raises(weft.BadInput, match="id 1000000000, not in the tokenizer's vocabulary"):
        workflow.decode(np.array([10**9]))
    assert workflow.decode(np.array([104, 105])) == b"hi"
