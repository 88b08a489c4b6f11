"""Weft: a dispatch-graph executor on fixed Vulkan bindings, from Python.

    import weft, numpy as np
    dev = weft.Device()                       # WEFT_DEVICE or the best device
    prog = weft.Program(dev, "examples/gain/gain.toml")
    prog.write("signal", np.sin(np.arange(256, dtype=np.float32) / 10), binding="heap")
    prog.run()
    print(prog.metrics("out"), prog.control_f32("gain"))

Submodules, one per workload that has Python bindings: weft.attention (GGUF models decoding on a
device), weft.db (SQL on tables resident on a device, numpy columns in and out), weft.hypothesis_update (Monty's hypothesis-update backend; weft.monty: drop-in updaters for
Monty's learning modules), weft.token_vm (the token VM),
weft.volumetric (grid-of-layers networks: CPU reference, device mesh, training, checkpoints).
weft.Tokenizer is a model's tokenizer.json, id for id as its own tokenizer:
    tok = weft.Tokenizer.load("tokenizer.json"); ids = tok.encode("Hello"); tok.decode(ids)

Every error Weft raises is a weft.Error, with .code (the kind) and .message; each kind is a
subclass named after it: weft.BadInput (also a ValueError), weft.OutOfMemory (also a MemoryError),
weft.Timeout (also a TimeoutError), weft.NoDevice, weft.MissingFeature, weft.InvalidProgram,
weft.SegmentOutOfRange, weft.ShaderCompile, weft.DeviceLost, weft.Cancelled, ...; an argument of the wrong type or
count is weft.ArgumentError (a weft.BadInput and a TypeError). `python3 -m weft info` lists the
devices.
"""
from . import _weft
from ._arguments import check_arguments
from ._weft import (ArgumentError, BadInput, Cancelled, DeviceLost, Error, InvalidProgram, MissingFeature, NoDevice, OutOfMemory,
                    RegisterWindowOverflow, SegmentOutOfRange, ShaderCompile, Timeout, UndeclaredBinding, Vulkan)

check_arguments(_weft)

from ._weft import Device, Program, Tokenizer, __version__, conformance, devices  # noqa: E402  (the checked versions)

__all__ = ["ArgumentError", "BadInput", "Cancelled", "Device", "DeviceLost", "Error", "InvalidProgram", "MissingFeature", "NoDevice",
           "OutOfMemory", "Program", "RegisterWindowOverflow", "SegmentOutOfRange", "ShaderCompile", "Timeout",
           "Tokenizer", "UndeclaredBinding", "Vulkan", "__version__", "conformance", "devices"]
