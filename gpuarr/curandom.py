"""PyCUDA's ``pycuda.curandom``: ``rand``, the seed getters, a Philox
generator, and cuRAND's generators.

``rand``, ``seed_getter_uniform``, ``seed_getter_unique`` keep PyCUDA's
names and signatures; ``rand`` and :class:`PhiloxRandomNumberGenerator` use
gpuarr's Philox4x32-10 (:mod:`gpuarr.random`, the default generator of
gpuarr): no state arrays, results independent of the GPU, numbers unlike
PyCUDA's MD5 ``rand``.

PyCUDA's cuRAND classes (:class:`XORWOWRandomNumberGenerator`,
:class:`MRG32k3aRandomNumberGenerator`, :class:`Sobol32RandomNumberGenerator`,
:class:`ScrambledSobol32RandomNumberGenerator`,
:class:`Sobol64RandomNumberGenerator`,
:class:`ScrambledSobol64RandomNumberGenerator`) are built, like PyCUDA's, on
cuRAND's device API (``curand_kernel.h``) compiled at run time, here by
NVRTC, with one state per GPU thread; for the same seeds, offsets and
direction vectors they give the numbers cuRAND gives. They need cuRAND's
headers (``pip install nvidia-curand nvidia-cuda-cccl``, or the CUDA
toolkit); the Sobol forms' tables and :func:`get_curand_version` need
``libcurand`` (``nvidia-curand``), found at run time
(:mod:`gpuarr._curand`). docs/random.md lists the differences from PyCUDA.
"""

import random as _pyrandom

import numpy as np

from . import _creation, cumath
from ._errors import UnsupportedDtypeError
from .random import Generator, Philox
from ._curand_generators import (  # noqa: F401 (re-exported)
    MRG32k3aRandomNumberGenerator, ScrambledSobol32RandomNumberGenerator,
    ScrambledSobol64RandomNumberGenerator, Sobol32RandomNumberGenerator,
    Sobol64RandomNumberGenerator, XORWOWRandomNumberGenerator,
    direction_vector_set, direction_vectors_host,
    generate_direction_vectors, generate_scramble_constants32,
    generate_scramble_constants64, get_curand_version)

__all__ = ["rand", "seed_getter_uniform", "seed_getter_unique",
           "PhiloxRandomNumberGenerator", "XORWOWRandomNumberGenerator",
           "MRG32k3aRandomNumberGenerator", "Sobol32RandomNumberGenerator",
           "ScrambledSobol32RandomNumberGenerator",
           "Sobol64RandomNumberGenerator",
           "ScrambledSobol64RandomNumberGenerator", "get_curand_version",
           "generate_direction_vectors", "generate_scramble_constants32",
           "generate_scramble_constants64", "direction_vector_set",
           "direction_vectors_host", "UnsupportedDtypeError"]

_RAW = (np.dtype(np.int32), np.dtype(np.uint32))


def rand(shape, dtype=np.float32, stream=None):
    """A new GPUArray of uniform random values.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : {numpy.float32, numpy.float64, numpy.int32, numpy.uint32}
        Floats are uniform in [0, 1); int32/uint32 hold 32 random bits.
    stream : gpuarr.driver.Stream, optional

    Returns
    -------
    GPUArray

    Notes
    -----
    As in PyCUDA, each call draws a fresh key from numpy's global random
    state (``numpy.random.seed`` makes a program's ``rand`` calls
    repeatable).

    Raises
    ------
    TypeError
        For another dtype.
    """
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)) + _RAW:
        raise TypeError("rand supports float32, float64, int32 and uint32, "
                        "not %s" % dt)
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    key = int(np.random.randint(0, 2 ** 63, dtype=np.int64)) << 1 \
        | int(np.random.randint(0, 2, dtype=np.int64))
    gen = Generator(Philox(key=key))
    if dt in _RAW:
        lo, hi = np.iinfo(dt).min, np.iinfo(dt).max
        return gen.integers(lo, hi, size=shape, dtype=dt, endpoint=True,
                            stream=stream)
    return gen.random(shape, dtype=dt, stream=stream)


def seed_getter_uniform(N):
    """A GPUArray of ``N`` int32 copies of one random seed in [0, 2**31 - 1).

    PyCUDA's seed getter for generators that should all share one seed
    (and differ by their subsequence).

    Parameters
    ----------
    N : int
        Number of seeds (one per generator state).

    Returns
    -------
    GPUArray, (N,), int32
        The same value ``N`` times, drawn from Python's :mod:`random`
        module (``random.seed`` makes it repeatable).
    """
    value = _pyrandom.randint(0, 2 ** 31 - 2)
    return _creation.to_gpu(np.full(N, value, dtype=np.int32))


def seed_getter_unique(N):
    """A GPUArray of ``N`` independent int32 random seeds in [0, 2**31 - 1).

    PyCUDA's seed getter giving each generator its own seed.

    Parameters
    ----------
    N : int
        Number of seeds (one per generator state).

    Returns
    -------
    GPUArray, (N,), int32
        Values drawn independently from numpy's global random state
        (``numpy.random.seed`` makes them repeatable); they may repeat.
    """
    return _creation.to_gpu(
        np.random.randint(0, 2 ** 31 - 1, N).astype(np.int32))


class PhiloxRandomNumberGenerator:
    """PyCUDA-style generator object over :class:`gpuarr.random.Philox`.

    Parameters
    ----------
    seed_getter : callable, optional
        ``seed_getter(N) -> GPUArray of int32``; the first two seeds form
        the 64-bit key.  Default :func:`seed_getter_uniform`.
    offset : int, optional
        Philox blocks to skip first.
    """

    def __init__(self, seed_getter=None, offset=0):
        getter = seed_getter_uniform if seed_getter is None else seed_getter
        seeds = np.asarray(getter(2).get()).astype(np.int64).ravel()
        key = (int(seeds[0]) & 0xFFFFFFFF) | ((int(seeds[1]) & 0xFFFFFFFF) << 32)
        self.generator = Generator(Philox(key=key, offset=offset))

    def fill_uniform(self, data, stream=None):
        """Fill float32/float64 ``data`` with uniform [0, 1) values."""
        self.generator.random(dtype=data.dtype, out=data, stream=stream)

    def gen_uniform(self, shape, dtype, stream=None):
        """New array of uniform [0, 1) values."""
        return self.generator.random(shape, dtype=dtype, stream=stream)

    def fill_normal(self, data, stream=None):
        """Fill float32/float64 ``data`` with standard normal values."""
        self.generator.standard_normal(dtype=data.dtype, out=data, stream=stream)

    def gen_normal(self, shape, dtype, stream=None):
        """New array of standard normal values."""
        return self.generator.standard_normal(shape, dtype=dtype, stream=stream)

    def fill_log_normal(self, data, mean, stddev, stream=None):
        """Fill ``data`` with ``exp(normal(mean, stddev))``."""
        self.generator.normal(mean, stddev, dtype=data.dtype, out=data,
                              stream=stream)
        cumath.exp(data, out=data, stream=stream)

    def gen_log_normal(self, shape, dtype, mean, stddev, stream=None):
        """New array of log-normal values."""
        a = _creation.empty(shape, dtype)
        self.fill_log_normal(a, mean, stddev, stream=stream)
        return a

    def skip_ahead(self, i, stream=None):
        """Skip ``i`` Philox blocks (4 float32 / 2 float64 values each)."""
        self.generator.bit_generator.advance(i)
