"""The Sobol tables of PyCUDA's curandom (layer 6; re-exported by
:mod:`gpuarr.curandom`): cuRAND's direction vectors and scramble constants
as host arrays or GPUArrays, the direction-vector set names, and cuRAND's
version.  The generators using them are :mod:`gpuarr._curand_generators`'.
"""

import operator

import numpy as np

from . import _creation, _curand

__all__ = ["get_curand_version", "generate_direction_vectors",
           "generate_scramble_constants32", "generate_scramble_constants64",
           "direction_vector_set", "direction_vectors_host"]


class direction_vector_set:
    """Sobol direction-vector sets (cuRAND's ``curandDirectionVectorSet_t``,
    PyCUDA's ``direction_vector_set`` names)."""
    VECTOR_32 = _curand.VECTOR_32
    SCRAMBLED_VECTOR_32 = _curand.SCRAMBLED_VECTOR_32
    VECTOR_64 = _curand.VECTOR_64
    SCRAMBLED_VECTOR_64 = _curand.SCRAMBLED_VECTOR_64


def get_curand_version():
    """cuRAND's version as PyCUDA reports it.

    Returns
    -------
    tuple of int
        ``(v // 1000, (v % 1000) // 10, v % 10)`` of ``curandGetVersion``'s
        ``v``, PyCUDA's formula (cuRAND 10.4.5, ``v = 10405``, gives
        ``(10, 40, 5)``), so comparisons such as ``>= (3, 2, 0)`` behave
        as under PyCUDA.

    Raises
    ------
    gpuarr._curand.CurandNotFoundError
        When ``libcurand`` is missing (PyCUDA built without cuRAND returns
        None instead); the message says ``pip install nvidia-curand``.
    """
    v = _curand.version()
    return (v // 1000, (v % 1000) // 10, v % 10)


def _count(count):
    try:
        n = operator.index(count)
    except TypeError:
        raise TypeError("count must be an integer, not %s"
                        % type(count).__name__) from None
    if n < 0:
        raise ValueError("count must be non-negative")
    return n


def _tile(table, n):
    """Rows ``k % len(table)`` for k < n (PyCUDA repeats cuRAND's 20000
    dimensions)."""
    reps = -(-n // table.shape[0]) if n else 0
    return np.ascontiguousarray(
        np.concatenate([table] * max(reps, 1))[:n])


def direction_vectors_host(count, direction=direction_vector_set.VECTOR_32):
    """:func:`generate_direction_vectors` as a numpy array (no GPU).

    Parameters
    ----------
    count : int
    direction : direction_vector_set, optional

    Returns
    -------
    numpy.ndarray
        ``(count, 32)`` uint32 or ``(count, 64)`` uint64, as
        :func:`generate_direction_vectors`.

    Raises
    ------
    ValueError, TypeError, gpuarr._curand.CurandNotFoundError
        As :func:`generate_direction_vectors`.
    """
    n = _count(count)
    if direction is None:           # PyCUDA's default argument
        direction = direction_vector_set.VECTOR_32
    return _tile(_curand.direction_vectors(direction), n)


def generate_direction_vectors(count, direction=direction_vector_set.VECTOR_32):
    """Sobol direction vectors of ``count`` dimensions, on the GPU.

    Parameters
    ----------
    count : int
        Dimensions (one per generator state). Dimension ``k`` gets cuRAND's
        vectors of dimension ``k % 20000`` (cuRAND has 20000), as PyCUDA.
    direction : direction_vector_set, optional
        ``VECTOR_32`` (default; also for None, PyCUDA's default),
        ``SCRAMBLED_VECTOR_32``, ``VECTOR_64`` or ``SCRAMBLED_VECTOR_64``.

    Returns
    -------
    GPUArray
        ``(count, 32)`` uint32 for the 32-bit sets, ``(count, 64)`` uint64
        for the 64-bit ones (``curandGetDirectionVectors32/64``).

    Raises
    ------
    ValueError
        For an unknown set or a negative count.
    TypeError
        For a count that is not an integer.
    gpuarr._curand.CurandNotFoundError
        When ``libcurand`` is missing.
    """
    return _creation.to_gpu(direction_vectors_host(count, direction))


def generate_scramble_constants32(count):
    """Sobol scramble constants for ``count`` dimensions, on the GPU.

    Parameters
    ----------
    count : int
        Dimensions; element ``k`` is cuRAND's constant of dimension
        ``k % 20000`` (``curandGetScrambleConstants32``), as PyCUDA.

    Returns
    -------
    GPUArray
        ``(count,)`` uint32.

    Raises
    ------
    ValueError
        For a negative count.
    TypeError
        For a count that is not an integer.
    gpuarr._curand.CurandNotFoundError
        When ``libcurand`` is missing.
    """
    return _creation.to_gpu(_tile(_curand.scramble_constants(32), _count(count)))


def generate_scramble_constants64(count):
    """Sobol scramble constants for ``count`` dimensions, on the GPU.

    Parameters
    ----------
    count : int
        Dimensions; element ``k`` is cuRAND's constant of dimension
        ``k % 20000`` (``curandGetScrambleConstants64``), as PyCUDA.

    Returns
    -------
    GPUArray
        ``(count,)`` uint64.

    Raises
    ------
    ValueError
        For a negative count.
    TypeError
        For a count that is not an integer.
    gpuarr._curand.CurandNotFoundError
        When ``libcurand`` is missing.
    """
    return _creation.to_gpu(_tile(_curand.scramble_constants(64), _count(count)))
