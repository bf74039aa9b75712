"""Importing this module makes the primary context of ``CUDA_DEVICE``
current: PyCUDA's ``pycuda.autoprimaryctx``.

PyCUDA has two such modules: ``autoinit`` creates a new context and
``autoprimaryctx`` retains the device's primary context. gpuarr's
:mod:`gpuarr.autoinit` already retains the primary context (so that gpuarr
shares the device with CuPy, PyTorch, Numba and the CUDA runtime), so this
module is the same one under PyCUDA's other name: ``device`` and ``context``
are :mod:`gpuarr.autoinit`'s, and importing both makes one context current,
once.

Raises
------
gpuarr.driver.DriverNotFoundError
    On import, when no NVIDIA driver is installed.
ValueError
    When ``CUDA_DEVICE`` is not a device ordinal.
"""

from gpuarr.autoinit import context, device  # noqa: F401

__all__ = ["device", "context"]
