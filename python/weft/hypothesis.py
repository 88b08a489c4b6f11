"""Monty's hypothesis-update backend (CPU and Vulkan) with numpy arrays in and out.

    from weft import hypothesis
    backend = hypothesis.Backend.cpu()          # or hypothesis.Backend.vulkan()

See workloads/hypothesis_update/README.md for the API.
"""
from .weft_hypothesis import *  # noqa: F401,F403  (the compiled module, installed beside this file)
