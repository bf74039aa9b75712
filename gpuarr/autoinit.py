"""Importing this module makes a CUDA context current (PyCUDA's autoinit).

It initializes the driver, retains the primary context of the device named by
the ``CUDA_DEVICE`` environment variable (default 0) and pushes it, so that
gpuarr shares the device with CuPy, PyTorch and the CUDA runtime in one
process. ``device`` and ``context`` are exposed; at exit the context is
popped and released.

Raises
------
gpuarr.driver.DriverNotFoundError
    On import, when no NVIDIA driver is installed.
ValueError
    When ``CUDA_DEVICE`` is not a device ordinal.
"""

import atexit

from gpuarr import _config
import gpuarr.driver as _drv

_drv.init()
device = _drv.Device(_config.device())
context = device.retain_primary_context()
context.push()


def _finish():
    try:
        cur = _drv.Context.get_current()
        if cur is not None and cur == context:
            _drv.Context.pop()
        context.detach()
    except _drv.Error:
        pass


atexit.register(_finish)
