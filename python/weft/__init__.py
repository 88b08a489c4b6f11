"""Weft: a dispatch-graph executor on fixed Vulkan bindings, from Python.

    import weft, numpy as np
    dev = weft.Device()                       # WEFT_DEVICE or the best device
    prog = weft.Program(dev, "examples/gain/gain.toml")
    prog.write("signal", np.sin(np.arange(256, dtype=np.float32) / 10), binding="heap")
    prog.run()
    print(prog.metrics("out"), prog.control_f32("gain"))

Submodules, one per workload that has Python bindings: weft.hypothesis_update (Monty's
hypothesis-update backend), weft.token_vm (the token VM).
weft.Tokenizer is a model's tokenizer.json, id for id as its own tokenizer:
    tok = weft.Tokenizer.load("tokenizer.json"); ids = tok.encode("Hello"); tok.decode(ids)
Errors are weft.Error (weft.BadInput for malformed input, also a weft.Error).
"""
from ._weft import BadInput, Device, Error, Program, Tokenizer, conformance, devices

__all__ = ["BadInput", "Device", "Error", "Program", "Tokenizer", "conformance", "devices"]
