"""A custom kernel in a line of C: z = a*x + y over every element."""
import numpy as np

import gpuarr.autoinit  # noqa: F401
import gpuarr as ga
from gpuarr.elementwise import ElementwiseKernel

axpy = ElementwiseKernel("float a, float *x, float *y, float *z",
                         "z[i] = a * x[i] + y[i]", "axpy")
rng = np.random.default_rng(1)
hx = rng.random(10_000, dtype=np.float32)
hy = rng.random(10_000, dtype=np.float32)
x, y = ga.to_gpu(hx), ga.to_gpu(hy)
z = ga.empty_like(x)
axpy(2.0, x, y, z)                       # compiled on the first call, cached
print("largest difference from numpy:", np.abs(z.get() - (2 * hx + hy)).max())
assert np.allclose(z.get(), 2 * hx + hy, rtol=1e-6)
