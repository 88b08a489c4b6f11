"""The Python package under a lost device: weft.DeviceLost from every call on the lost device's
programs, and a weft.Device opened afterwards runs. The loss comes from the tests' Vulkan layer
(tests/fault_layer), which ctest loads through VK_INSTANCE_LAYERS and names in WEFT_FAULT_LAYER."""
import ctypes
import os

import numpy as np
import pytest

import weft

CHAIN = os.path.join(os.environ["WEFT_EXAMPLES_DIR"], "chain", "chain.toml")
LAYER = ctypes.CDLL(os.environ["WEFT_FAULT_LAYER"])  # held open: the loader shares its state


def chain_result(device):
    prog = weft.Program(device, CHAIN)
    prog.run()
    return prog, prog.read("result")


def test_a_lost_device_raises_device_lost_and_a_new_device_runs():
    device = weft.Device(validation=True)
    prog, before = chain_result(device)
    LAYER.weft_fault_lose_devices()
    with pytest.raises(weft.DeviceLost, match="was lost"):
        prog.run()
    with pytest.raises(weft.DeviceLost):
        prog.read("result")
    with pytest.raises(weft.Error):  # DeviceLost is a weft.Error like every other failure
        weft.Program(device, CHAIN)
    del prog, device
    _, after = chain_result(weft.Device(validation=True))
    np.testing.assert_array_equal(before, after)
