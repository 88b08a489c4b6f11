"""Monty's hypothesis-update backend (CPU and Vulkan) with numpy arrays in and out.

    from weft import hypothesis_update
    backend = hypothesis_update.Backend.cpu()   # or hypothesis_update.Backend.vulkan()

See workloads/hypothesis_update/README.md for the API.
"""
from ._weft import hypothesis_update as _native

globals().update({name: getattr(_native, name) for name in dir(_native) if not name.startswith("_")})
del _native
