"""The Python package `weft`: devices, manifest programs with numpy in and out, errors,
the conformance runner and the workloads' submodules. Expected values are computed here."""
import json
import os

import numpy as np
import pytest

import weft

EXAMPLES = os.environ.get("WEFT_EXAMPLES_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
GOLDENS = os.path.join(os.path.dirname(__file__), "..", "..", "tokenizer", "goldens")
GAIN = os.path.join(EXAMPLES, "gain", "gain.toml")
CHAIN = os.path.join(EXAMPLES, "chain", "chain.toml")


@pytest.fixture(scope="module")
def device():
    dev = weft.Device(validation=True)
    yield dev
    assert dev.validation_messages() == []


def test_devices_lists_the_default_device(device):
    listed = weft.devices()
    assert any(d["name"] == device.info["name"] for d in listed)
    assert device.info["subgroup_size"] >= 1
    assert device.info["usable"]


def test_unknown_device_selection_is_an_error():
    with pytest.raises(weft.Error, match="no-such-gpu"):
        weft.Device("no-such-gpu")


def test_chain_reduction_matches_numpy(device):
    prog = weft.Program(device, CHAIN)
    x = np.cos(np.arange(256, dtype=np.float32) * np.float32(0.05)).astype(np.float32)
    y = (np.arange(256) % 10).astype(np.float32) * np.float32(0.1)
    prog.write("x", x, binding="heap")
    prog.write("y", y, binding="heap")
    prog.run()
    v = (np.float32(0.5) * (np.float32(2) * x + y)).astype(np.float64)
    total, squares, peak, mean = prog.read("result")
    assert total == pytest.approx(v.sum(), rel=1e-5)
    assert squares == pytest.approx((v * v).sum(), rel=1e-5)
    assert peak == pytest.approx(np.abs(v).max(), rel=1e-6)
    assert mean == pytest.approx(v.mean(), rel=1e-5)
    assert prog.instances == ["a", "b", "c"]
    assert prog.timings()["total_ns"] >= 0


def test_gain_rule_scales_the_control_word(device):
    prog = weft.Program(device, GAIN)
    signal = (0.9 * np.sin(np.arange(256) / 7.0)).astype(np.float32)
    peak = float(np.abs(signal).max())
    prog.write("signal", signal, binding="heap")
    ticket = prog.submit()
    prog.wait(ticket)
    assert prog.control_f32("gain") == 0.25          # 3 * peak > 2: the rule fired
    assert prog.metrics("out")["max_abs"] == pytest.approx(0.75 * peak, rel=1e-6)
    prog.set_control_f32("gain", 2.0)
    prog.run()
    assert prog.metrics("out")["max_abs"] == pytest.approx(1.5 * peak, rel=1e-6)
    assert dict(prog.rules_fired())["limiter.rules[0]"] == 1


def test_read_returns_the_bytes_written_in_any_dtype(device):
    prog = weft.Program(device, GAIN)
    words = np.arange(256, dtype=np.uint32) * np.uint32(2654435761)
    prog.write("signal", words, binding="heap")
    back = prog.read("signal", binding="heap", dtype=np.uint32)
    assert back.dtype == np.uint32 and np.array_equal(back, words)


def test_bad_input_names_what_and_where(device):
    prog = weft.Program(device, GAIN)
    with pytest.raises(weft.Error, match="no_such"):
        prog.read("no_such", binding="heap")
    with pytest.raises(weft.BadInput, match="'registers'"):
        prog.read("signal", binding="registers")
    with pytest.raises(weft.Error):
        prog.write("signal", np.zeros(1000, dtype=np.float32), binding="heap")  # past the segment
    with pytest.raises(weft.BadInput, match="nobody"):
        prog.metrics("nobody")
    with pytest.raises(weft.BadInput, match="stages"):
        weft.Program.from_text(device, 'name = "x"\n[[stages]]\nname = 3\n')
    with pytest.raises(weft.BadInput):
        weft.Program(device, "/nonexistent/manifest.toml")
    # Regressions: an object array uploaded its PyObject pointers, 'U10' read back garbage and
    # 'V3' dropped the segment's last byte.
    with pytest.raises(weft.BadInput, match="dtype object is not a number type"):
        prog.write("signal", np.array([1, "x"], dtype=object), binding="heap")
    with pytest.raises(weft.BadInput, match="is not a number type"):
        prog.read("signal", binding="heap", dtype="U10")
    with pytest.raises(weft.BadInput, match="dtype \\|V3 is not a number type"):
        prog.read("signal", binding="heap", dtype="V3")
    # The program still works after every refusal.
    prog.write("signal", np.full(256, 0.5, dtype=np.float32), binding="heap")
    prog.run()
    assert prog.metrics("amp")["max_abs"] == pytest.approx(1.5)


def test_conformance_runner_reports_cases(device):
    cases = weft.conformance(device, filter="bindings.")
    assert cases, "no conformance case matched 'bindings.'"
    assert all(c["outcome"] in ("pass", "skip") for c in cases), cases


def test_workload_modules_are_part_of_the_package():
    from weft import hypothesis_update, token_vm
    assert hypothesis_update.Backend.cpu() is not None
    assert token_vm.Machine is not None


def test_workload_errors_are_weft_errors():
    from weft import hypothesis_update
    assert issubclass(hypothesis_update.Error, weft.Error)


def test_cancel_with_nothing_in_flight_leaves_runs_good(device):
    prog = weft.Program(device, CHAIN)
    ticket = prog.submit()
    prog.wait(ticket)
    prog.cancel()
    prog.wait(ticket)  # it had ended before the cancel
    prog.run()


def test_each_error_kind_is_a_weft_error_named_for_its_code():
    kinds = [weft.NoDevice, weft.MissingFeature, weft.OutOfMemory, weft.InvalidProgram, weft.RegisterWindowOverflow,
             weft.SegmentOutOfRange, weft.UndeclaredBinding, weft.ShaderCompile, weft.BadInput, weft.DeviceLost,
             weft.Timeout, weft.Vulkan, weft.Cancelled]
    assert all(issubclass(k, weft.Error) and k.__module__ == "weft" for k in kinds)
    assert issubclass(weft.BadInput, ValueError) and issubclass(weft.OutOfMemory, MemoryError)
    assert issubclass(weft.Timeout, TimeoutError)
    with pytest.raises(weft.NoDevice) as caught:
        weft.Device("no-such-gpu")
    assert caught.value.code == "NoDevice" and "no-such-gpu" in caught.value.message
    assert str(caught.value) == "NoDevice: " + caught.value.message


def test_a_wrong_argument_type_is_an_argument_error(device):
    with pytest.raises(weft.ArgumentError, match="incompatible constructor arguments") as caught:
        weft.Program(device, 42)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, weft.BadInput)
    assert caught.value.code == "BadInput"
    prog = weft.Program(device, GAIN)
    with pytest.raises(weft.ArgumentError, match="incompatible function arguments"):
        prog.read()
    with pytest.raises(weft.ArgumentError):
        prog.set_control("gain", -1)       # a uint32 word
    with pytest.raises(weft.ArgumentError):
        weft.Tokenizer.load(None)
    with pytest.raises(weft.ArgumentError, match="no constructor"):
        from weft import hypothesis_update
        hypothesis_update.StepInfo()


def test_python_m_weft_info_lists_the_devices():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "weft", "info", "--json"], check=True, capture_output=True, text=True).stdout
    assert [d["name"] for d in json.loads(out)] == [d["name"] for d in weft.devices()]


def _golden_lines(name):
    with open(os.path.join(GOLDENS, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_tokenizer_gives_the_reference_ids_from_python():
    tok = weft.Tokenizer.load(os.path.join(GOLDENS, "bert_wordpiece.tokenizer.json"))
    texts = _golden_lines("corpus.jsonl")[:50]
    want = _golden_lines("bert_wordpiece.ids.jsonl")[:50]
    assert [tok.encode(t) for t in texts] == [w["ids"] for w in want]
    assert [tok.encode(t, add_special_tokens=True) for t in texts] == [w["with_special"] for w in want]
    assert [tok.decode(w["ids"]) for w in want] == [w["decoded"] for w in want]
    assert tok.encode_batch(texts, threads=2) == [w["ids"] for w in want]
    assert tok.vocab_size > 0 and len(tok.fingerprint) == 16


def test_tokenizer_refuses_bad_input_by_name():
    with pytest.raises(weft.BadInput, match="is not supported"):
        weft.Tokenizer.from_json('{"model": {"type": "BPE", "vocab": {}, "merges": []}, "pre_tokenizer": {"type": "UnicodeScripts"}}')
    tok = weft.Tokenizer.load(os.path.join(GOLDENS, "wordlevel_whitespace.tokenizer.json"))
    with pytest.raises(weft.BadInput, match="-1 is not a token id"):
        tok.decode([-1])
    with pytest.raises(weft.BadInput, match="1000000000 is not a token id of this tokenizer"):
        tok.decode([10**9])
    with pytest.raises(weft.BadInput, match="expected integers, got dtype float64"):
        tok.decode([1.5])
    with pytest.raises(weft.BadInput, match="1000000000 is not a token id"):
        tok.token_bytes(10**9)


def test_attention_decoder_matches_the_cpu_reference_and_generates(device, tmp_path):
    from weft import attention

    path = str(tmp_path / "seeded.gguf")
    attention.write_seeded_model(path, arch="qwen2")
    model = attention.Model.load(path)
    assert model.config["architecture"] == "qwen2" and model.config["vocab"] == 259
    ids = model.tokenize("Hi,weft")
    assert list(ids) == [1] + [3 + b for b in b"Hi,weft"]  # BOS, then a byte token per byte
    assert model.detokenize(ids) == b"Hi,weft"
    dec = attention.Decoder(device, model, context=32)
    logits = dec.prefill(ids)
    ref = model.reference_logits(ids)
    assert logits.shape == (259,) and logits.dtype == np.float32
    nmse = float(np.sum((logits - ref) ** 2) / np.sum(ref ** 2))
    assert nmse < 1e-8
    assert dec.sampled == int(np.argmax(ref))  # greedy by default
    dec.reset()
    out = dec.generate(ids, 5, stop_at_eos=False)
    assert len(out) == 5 and out[0] == int(np.argmax(ref))
    dec.reset()
    pieces = list(attention.stream(dec, model, list(ids), 5, stop_at_eos=False))
    assert b"".join(pieces) == b"".join(model.token_text(int(t)) for t in out)


STEERED_PROMPTS = """[config]
zone_patterns = ["[Q]", "[A]", "[EOS]"]
required_patterns = ["[Q]", "[A]"]
valid_tags = ["call", "result"]
default_max_token_length = 16
sequences = ["ask", "result"]
control_pattern = "[Jump]"
escape_patterns = ["[Escape]", "[EndEscape]"]
tools = ["shout"]

[[ask]]
text = "[Q] {question} [A]"
tags = [[], ["call"]]
max_gen_tokens = 4
[ask.question]
type = "argument"

[[result]]
text = "[Q]=[A]"
tags = [[], ["result"]]
max_gen_tokens = 12
"""

STEERED_FLOW = """flow = [
  { capture = "ask", tool = "shout" },
  { feed = "result" },
  { extract = "result", tags = ["result"] },
]
"""


def test_attention_steered_by_a_workflow_with_a_python_tool(device, tmp_path):
    from weft import attention

    path = str(tmp_path / "seeded.gguf")
    attention.write_seeded_model(path, context=256)
    model = attention.Model.load(path)
    (tmp_path / "p.toml").write_text(STEERED_PROMPTS)
    (tmp_path / "flow.toml").write_text(STEERED_FLOW)
    calls = []

    def shout(text):
        calls.append(text)
        return "OK!"

    steered = attention.Steered(device, model, str(tmp_path / "p.toml"), flow=str(tmp_path / "flow.toml"),
                                resources={"question": "Why?"}, steps_per_submit=16, temperature=0.7, top_k=8, seed=3)
    steered.set_tool("shout", shout)
    taken = steered.run(max_steps=256)
    assert steered.done and taken == steered.steps_taken and taken % 16 == 0
    records = steered.records()
    assert records.shape == (taken, 5) and len(steered.sampled) == taken
    # The tool saw what the model wrote in the answer zone; its answer was fed back first, the
    # model's own tokens follow it until the zone closes.
    assert len(calls) == 1 and steered.extract()["result"].startswith("OK!")
    # (The seeded model's SentencePiece-style byte vocabulary spells a space as U+2581's bytes.)
    assert b"[Q]\xe2\x96\x81Why?\xe2\x96\x81[A]" in steered.generative_sequence()
    assert b"[Q]=[A]OK!" in steered.generative_sequence()
    # Pads (waiting for the tool, done) are not consumed: one position per other record.
    assert steered.position == int(np.sum(records[:, 4] < 4))
    check = steered.check()
    assert check["ok"], check["first_difference"]
    assert check["steps"] == taken and check["picks_checked"] == check["picks_agreeing"] > 0
    assert len(calls) == 2  # the check replayed the call


def test_token_vm_machine_offers_the_zone_logit_mask_to_a_host_sampler(tmp_path):
    from weft import token_vm

    (tmp_path / "p.toml").write_text("""[config]
zone_patterns = ["[A]", "[E]"]
valid_tags = []
default_max_token_length = 4
sequences = ["free", "digits"]
control_pattern = "[J]"
[[free]]
text = "q[A]"
tags = [[]]
[[digits]]
text = "n?[A]"
tags = [[]]
allow = ["0123456789"]
""")
    vm = token_vm.Machine(token_vm.Workflow.compile(str(tmp_path / "p.toml")), batch=1)
    assert vm.allowed(0) is None
    for byte in b"xx[E]":
        vm.step(np.array([byte], np.uint32))
    while vm.allowed(0) is None and not vm.done:
        vm.step(np.array([ord("x")], np.uint32))
    assert list(vm.allowed(0)) == list(b"0123456789")
    with pytest.raises(weft.BadInput, match="stream 1 is out of range"):
        vm.allowed(1)


def test_attention_steered_refuses_a_model_without_what_it_needs(device, tmp_path):
    from weft import attention

    path = str(tmp_path / "seeded.gguf")
    attention.write_seeded_model(path, context=256)
    model = attention.Model.load(path)
    (tmp_path / "p.toml").write_text(STEERED_PROMPTS)
    with pytest.raises(weft.BadInput, match="steps per submit must be 1"):
        attention.Steered(device, model, str(tmp_path / "p.toml"), resources={"question": "?"}, steps_per_submit=0)
    with pytest.raises(weft.BadInput, match="match must be 'token' or 'byte'"):
        attention.Steered(device, model, str(tmp_path / "p.toml"), resources={"question": "?"}, match="word")


def test_attention_refuses_what_it_cannot_run(device, tmp_path):
    from weft import attention

    bad = tmp_path / "not.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 20)
    with pytest.raises(weft.BadInput):
        attention.Model.load(str(bad))
    path = str(tmp_path / "seeded.gguf")
    attention.write_seeded_model(path)
    model = attention.Model.load(path)
    with pytest.raises(weft.BadInput, match="259 is not a token id of this model"):
        model.detokenize([259])
    dec = attention.Decoder(device, model, context=8)
    with pytest.raises(weft.BadInput, match="need more than the context"):
        dec.generate([1, 2, 3], 10)
    # Token ids are integers: a float or complex id is refused, not truncated to one.
    with pytest.raises(weft.BadInput, match="prefill: expected integers, got dtype float32"):
        dec.prefill(np.array([1.7], np.float32))
    with pytest.raises(weft.BadInput, match="expected integers, got dtype complex64"):
        model.detokenize(np.zeros(2, np.complex64))
    with pytest.raises(weft.ArgumentError):
        dec.step(np.float32(3.0))


def test_objects_keep_what_they_need_alive(tmp_path):
    import gc
    from weft import attention, token_vm

    # Each object holds its device (and a decoder its model, a machine its workflow): dropping
    # the caller's references first must not break the object still in use.
    path = str(tmp_path / "seeded.gguf")
    attention.write_seeded_model(path)
    dev = weft.Device()
    model = attention.Model.load(path)
    dec = attention.Decoder(dev, model, context=8)
    prog = weft.Program(dev, CHAIN)
    wf = token_vm.Workflow.compile(os.path.join(EXAMPLES, "token_vm", "prompts.toml"),
                                   flow=os.path.join(EXAMPLES, "token_vm", "flow.toml"), resources={"problem": "1 + 1"})
    vm = token_vm.Machine(wf, batch=2, device=dev)
    ref = model.reference_logits([1, 2])
    del dev, model, wf
    gc.collect()
    logits = dec.prefill([1, 2])
    assert float(np.sum((logits - ref) ** 2) / np.sum(ref ** 2)) < 1e-8
    prog.run()
    assert prog.read("result").shape == (4,)
    assert vm.step(np.full(2, 256, np.uint32)).shape == (2,)
