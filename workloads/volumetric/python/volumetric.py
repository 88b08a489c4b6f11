"""Volumetric networks (a 4-D grid of layers in 21 numeric types) from Python, numpy in and out.

    import numpy as np, weft
    from weft.volumetric import Model, Mesh, Trainer, DeviceTrainer
    model = Model.load("examples/volumetric/grid.json")
    x = np.linspace(-1, 1, model.input_size, dtype=np.float32)
    y_cpu = model.forward(x)                          # the CPU reference
    y_dev = Mesh(weft.Device(), model).forward(x)     # the device, from the packed weights
    losses = Trainer(model, optimizer="adam").epoch(xs, targets)   # rows of float32 samples
    model.save_checkpoint("grid.ckpt")

    # A classifier: softmax cross-entropy, mini-batches, labels as int arrays.
    xs, labels = load_dataset("examples/volumetric/digits.csv")
    clf = Model.load("examples/volumetric/digits.json")
    losses = fit(Trainer(clf, loss="ce"), xs / 16, labels, epochs=5, batch_size=32)
    print(accuracy(clf, xs / 16, labels))

Arrays are float32 and C-contiguous, of the exact shape (weft.BadInput otherwise); labels int32 or
int64. The loss on the last cell is the mean squared error (loss="mse") or the softmax
cross-entropy against one-hot targets (loss="ce"). The CPU Trainer trains straight-through in each layer's
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
from ._weft.volumetric import accuracy, dna_compare, dtypes, load_dataset


def train(trainer: Any, xs: npt.NDArray[np.float32], targets: npt.NDArray[np.float32], epochs: int) -> List[float]:
    """Runs `epochs` epochs of a Trainer or DeviceTrainer over the samples; each epoch's mean loss."""
    if not isinstance(trainer, (Trainer, DeviceTrainer)):
        raise argument_error(f"train: trainer must be a weft.volumetric Trainer or DeviceTrainer, got {type(trainer).__name__}")
    if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 1:
        raise argument_error(f"train: epochs must be a positive int, got {epochs!r:.40}")
    return [float(np.mean(trainer.epoch(xs, targets))) for _ in range(epochs)]


def fit(trainer: Any, xs: npt.NDArray[np.float32], labels: npt.NDArray[np.int64], epochs: int, batch_size: int = 32,
        seed: int = 0) -> List[float]:
    """Runs `epochs` epochs of mini-batches (trainer.fit_epoch, epoch e shuffled with seed + e) over
    labelled samples; each epoch's mean loss."""
    if not isinstance(trainer, (Trainer, DeviceTrainer)):
        raise argument_error(f"fit: trainer must be a weft.volumetric Trainer or DeviceTrainer, got {type(trainer).__name__}")
    if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 1:
        raise argument_error(f"fit: epochs must be a positive int, got {epochs!r:.40}")
    return [float(trainer.fit_epoch(xs, labels, batch_size, seed + e)) for e in range(epochs)]


__all__ = ["DeviceTrainer", "Mesh", "Model", "Trainer", "accuracy", "dna_compare", "dtypes", "fit", "load_dataset", "train"]
