"""numpy-like arrays on the GPU: math, a reduction, and back to numpy."""
import numpy as np

import gpuarr.autoinit  # noqa: F401  (makes the primary context current)
import gpuarr as ga

host = np.random.default_rng(0).random(1_000_000, dtype=np.float32)
x = ga.to_gpu(host)
y = ga.sin(x) ** 2 + ga.cos(x) ** 2      # float32 stays float32 (numpy's rules)
mean = float(y.sum()) / y.size           # a reduction on the GPU, then a scalar
print("mean of sin^2 + cos^2:", mean)    # 1.0, to float32 rounding
print("first values:", y[:5].get())      # .get() copies back into numpy
assert abs(mean - 1.0) < 1e-5
