"""Monty's hypothesis-update backend (CPU and Vulkan) with numpy arrays in and out.

    from weft import hypothesis_update
    backend = hypothesis_update.Backend.cpu()   # or hypothesis_update.Backend.vulkan()

See workloads/hypothesis_update/README.md for the API.
"""
from ._weft import Error
from ._weft.hypothesis_update import (FIRST_FEATURE_COLUMN, Backend, BurstTelemetry, MostLikely, StepInfo, cpu_backend,
                                      default_config, vulkan_backend)

__all__ = ["Backend", "BurstTelemetry", "Error", "FIRST_FEATURE_COLUMN", "MostLikely", "StepInfo", "cpu_backend",
           "default_config", "vulkan_backend"]
