"""Checked by mypy (CI: ``mypy tests/typing``), never run: the public
API's types as a type checker sees them.  Each ``assert_type`` fails the
check if the inferred type differs."""
from typing import assert_type

import numpy as np

import gpuarr
import gpuarr.driver as drv
from gpuarr import GPUArray

a = gpuarr.to_gpu(np.arange(10.0))
b: GPUArray = gpuarr.zeros((3, 4), np.float32)

assert_type(b.shape, tuple[int, ...])
assert_type(b.dtype, np.dtype)
assert_type(b.size, int)
assert_type(b.ndim, int)
assert_type(b.ptr, int)
assert_type(b.get(), np.ndarray)
assert_type(b.T, GPUArray)
assert_type(b.reshape(12), GPUArray)
assert_type(b[1:], GPUArray)
assert_type(b + 1, GPUArray)
assert_type(2 * b, GPUArray)
assert_type(-b, GPUArray)
assert_type(b < 0, GPUArray)
assert_type(b @ b.T, GPUArray)
assert_type(b.sum(axis=0), GPUArray)
assert_type(b.astype(np.float64), GPUArray)
assert_type(b.copy(), GPUArray)
assert_type(len(b), int)
assert_type(float(a[0]), float)
assert_type(gpuarr.GPUArray, type[GPUArray])
assert_type(gpuarr.ndarray, type[GPUArray])
b += 1
b[0] = 5

# names resolve through the stub (a misspelt one is an error)
gpuarr.sin
gpuarr.cumsum
gpuarr.linalg
gpuarr.driver
drv.Stream

# the driver binding (gpuarr/_driver.pyi, generated from the extension)
alloc = drv.mem_alloc(64)
assert_type(alloc, drv.DeviceAllocation)
assert_type(drv.mem_alloc_pitch(64, 4, 4), tuple[drv.DeviceAllocation, int])
ev = drv.Event()
assert_type(ev.record(), drv.Event)
assert_type(drv.Stream().synchronize(), None)
assert_type(drv.Context.attach(), drv.Context)
alloc.free()
