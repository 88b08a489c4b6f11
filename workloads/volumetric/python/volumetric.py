"""Volumetric networks (a 4-D grid of layers in 21 numeric types) from Python, numpy in and out.

    import numpy as np, weft
    from weft.volumetric import Model, Mesh, Trainer, DeviceTrainer
    model = Model.load("examples/volumetric/grid.json")
    x = np.linspace(-1, 1, model.input_size, dtype=np.float32)
    y_cpu = model.forward(x)                          # the CPU reference
    y_dev = Mesh(weft.Device(), model).forward(x)     # the device, from the packed weights
    losses = Trainer(model, optimizer="adam").epoch(xs, targets)   # rows of float32 samples
    model.save_checkpoint("grid.ckpt")

Arrays are float32 and C-contiguous, of the exact shape (weft.BadInput otherwise). The loss is
the mean squared error on the last cell. The CPU Trainer trains straight-through in each layer's
numeric type, the DeviceTrainer the f32 masters: they agree for f32 models (model.set_dtype("f32")).
"""
from typing import Any, List

import numpy as np
import numpy.typing as npt

from ._arguments import argument_error
from ._weft.volumetric import VolumetricDeviceTrainer as DeviceTrainer
from ._weft.volumetric import VolumetricMesh as Mesh
from ._weft.volumetric import VolumetricModel as Model
from ._weft.volumetric import VolumetricTrainer as Trainer
from ._weft.volumetric import dna_compare, dtypes


def train(trainer: Any, xs: npt.NDArray[np.float32], targets: npt.NDArray[np.float32], epochs: int) -> List[float]:
    """Runs `epochs` epochs of a Trainer or DeviceTrainer over the samples; each epoch's mean loss."""
    if not isinstance(trainer, (Trainer, DeviceTrainer)):
        raise argument_error(f"train: trainer must be a weft.volumetric Trainer or DeviceTrainer, got {type(trainer).__name__}")
    if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 1:
        raise argument_error(f"train: epochs must be a positive int, got {epochs!r:.40}")
    return [float(np.mean(trainer.epoch(xs, targets))) for _ in range(epochs)]


__all__ = ["DeviceTrainer", "Mesh", "Model", "Trainer", "dna_compare", "dtypes", "train"]
