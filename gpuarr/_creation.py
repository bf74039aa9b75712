"""Creating arrays: numpy's creation functions and PyCUDA's ``to_gpu``
(layer 5).

``empty``, ``zeros``, ``ones``, ``full``, their ``*_like`` forms, ``eye``,
``arange`` and ``linspace`` follow numpy's signatures and defaults (dtype
float64); ``to_gpu``/``to_gpu_async`` copy host arrays; ``asarray`` wraps
objects with ``__cuda_array_interface__`` without a copy. Every new array
comes from ``allocator`` or the current context's pool.
"""

import operator

import numpy as np

from . import _dtypes, _interop, _layout, _transfer
from . import driver as _drv
from ._array import GPUArray, default_allocator, make

__all__ = [
    "empty", "empty_c", "zeros", "ones", "full", "empty_like", "zeros_like",
    "ones_like", "full_like", "to_gpu", "to_gpu_async", "arange", "linspace",
    "eye", "asarray", "from_dlpack",
]


def empty(shape, dtype=np.float64, order="C", allocator=None):
    """Uninitialized array (numpy.empty; default dtype float64).

    Returns
    -------
    GPUArray
        Of ``shape`` and ``dtype`` in ``order``, from ``allocator`` (default
        the current context's pool); its values are whatever the memory
        held.

    Raises
    ------
    TypeError
        For an unsupported dtype.
    ValueError
        For negative dimensions or an unknown ``order``.
    """
    return GPUArray(shape, dtype, allocator=allocator, order=order)


def empty_c(shape, dt):
    """A new C-ordered array; ``shape`` a trusted tuple of ints, ``dt`` a
    canonical dtype (the array layer's own results)."""
    isz = dt.itemsize
    size = 1
    nontrivial = 0
    for n in shape:
        size *= n
        if n != 1:
            nontrivial += 1
    if not size:
        return make(shape, dt, (0,) * len(shape), 0, None, None, True, True)
    strides = _layout.c_strides(shape, isz) if len(shape) != 1 else (isz,)
    blk = default_allocator(size * isz)
    return make(shape, dt, strides, int(blk), blk, None, True,
                nontrivial <= 1, None, size)


def zeros(shape, dtype=np.float64, order="C", allocator=None):
    """Array of zeros (numpy.zeros)."""
    a = empty(shape, dtype, order=order, allocator=allocator)
    if a.size:
        _drv.memset_d8(a.ptr, 0, a.nbytes)
    return a


def ones(shape, dtype=np.float64, order="C", allocator=None):
    """Array of ones (numpy.ones)."""
    a = empty(shape, dtype, order=order, allocator=allocator)
    _transfer.fill(a, 1)
    return a


def full(shape, fill_value, dtype=None, order="C", allocator=None):
    """Array filled with ``fill_value`` (numpy.full; dtype from the value).

    The default dtype is ``numpy.array(fill_value).dtype``.
    """
    if dtype is None:
        if isinstance(fill_value, GPUArray):
            dtype = fill_value.dtype
        else:
            dtype = np.asarray(fill_value).dtype
    a = empty(shape, dtype, order=order, allocator=allocator)
    _transfer.fill(a, fill_value)
    return a


def _like(a, dtype, order, shape):
    if dtype is None:
        dtype = a.dtype
    if shape is None:
        shape = a.shape
    if order in ("K", "A"):
        order = "F" if (a._f and not a._c and len(shape) == len(a.shape)) else "C"
    return dtype, order, shape


def empty_like(a, dtype=None, order="K", shape=None):
    """Uninitialized array with ``a``'s shape and dtype (numpy.empty_like)."""
    dtype, order, shape = _like(a, dtype, order, shape)
    return empty(shape, dtype, order=order)


def zeros_like(a, dtype=None, order="K", shape=None):
    """Zeros with ``a``'s shape and dtype (numpy.zeros_like)."""
    dtype, order, shape = _like(a, dtype, order, shape)
    return zeros(shape, dtype, order=order)


def ones_like(a, dtype=None, order="K", shape=None):
    """Ones with ``a``'s shape and dtype (numpy.ones_like)."""
    dtype, order, shape = _like(a, dtype, order, shape)
    return ones(shape, dtype, order=order)


def full_like(a, fill_value, dtype=None, order="K", shape=None):
    """``fill_value`` with ``a``'s shape and dtype (numpy.full_like)."""
    dtype, order, shape = _like(a, dtype, order, shape)
    return full(shape, fill_value, dtype, order=order)


def to_gpu(ary, allocator=None):
    """Copy a host array to a new GPUArray (same shape, dtype, C/F layout).

    Parameters
    ----------
    ary : array_like
        Converted with ``numpy.asarray``; non-contiguous arrays are made
        C-contiguous on the host first.
    allocator : callable, optional

    Returns
    -------
    GPUArray
        A copy of ``ary`` (C order, or F order for an F- but not
        C-contiguous ``ary``), complete when the function returns.

    Raises
    ------
    TypeError
        For an unsupported dtype (object, strings, datetimes, ...).
    """
    return _from_host(ary, allocator, False, None)


def to_gpu_async(ary, allocator=None, stream=None):
    """Like :func:`to_gpu`, enqueued on ``stream`` (pinned ``ary`` to overlap)."""
    return _from_host(ary, allocator, True, stream)


def _from_host(ary, allocator, async_, stream):
    ary = np.asarray(ary)
    _dtypes.canonical(ary.dtype)
    order = "C"
    if not ary.flags.c_contiguous:
        if ary.flags.f_contiguous:
            order = "F"
        else:
            ary = np.ascontiguousarray(ary)
    a = GPUArray(ary.shape, ary.dtype, allocator=allocator, order=order)
    if a.size:
        host = ary.T if order == "F" else ary
        if async_:
            _drv.memcpy_htod_async(a.ptr, host, stream)
        else:
            _drv.memcpy_htod(a.ptr, host)
    return a


def arange(start, stop=None, step=None, dtype=None, allocator=None):
    """Evenly spaced values (numpy.arange; values and dtype as numpy's).

    The values are computed by numpy on the host and copied, so they are
    bit-identical to ``numpy.arange``.

    Raises
    ------
    ZeroDivisionError
        For a zero step (as numpy).
    """
    if stop is None and step is None:
        host = np.arange(start, dtype=dtype)
    elif step is None:
        host = np.arange(start, stop, dtype=dtype)
    else:
        host = np.arange(start, stop, step, dtype=dtype)
    return to_gpu(host, allocator=allocator)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None,
             axis=0):
    """``num`` evenly spaced samples over ``[start, stop]`` (numpy.linspace)."""
    res = np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep,
                      dtype=dtype, axis=axis)
    if retstep:
        return to_gpu(res[0]), res[1]
    return to_gpu(res)


def eye(N, M=None, k=0, dtype=np.float64, order="C"):
    """2-d array with ones on the ``k``-th diagonal (numpy.eye)."""
    if M is None:
        M = N
    N = operator.index(N)
    M = operator.index(M)
    k = operator.index(k)
    a = zeros((N, M), dtype, order=order)
    if k >= 0:
        n = min(N, M - k)
        off = k * a.strides[1]
    else:
        n = min(N + k, M)
        off = -k * a.strides[0]
    if n > 0:
        diag = a._view((n,), (a.strides[0] + a.strides[1],), off)
        _transfer.fill(diag, 1)
    return a



def asarray(obj, dtype=None):
    """Wrap or copy ``obj`` as a GPUArray.

    Parameters
    ----------
    obj : GPUArray, object with ``__cuda_array_interface__``, or array_like
        GPUArrays are returned as is; CUDA Array Interface objects are wrapped
        without a copy (``obj`` is kept alive as ``base``; if it names a
        stream other than the legacy default one, the context is synchronized
        first); anything else goes through ``numpy.asarray`` and
        :func:`to_gpu`.
    dtype : dtype-like, optional
        Cast to this dtype (a copy when it differs).

    Raises
    ------
    TypeError
        For unsupported dtypes.
    ValueError
        For a malformed ``__cuda_array_interface__`` (mask, bad version).
    """
    if isinstance(obj, GPUArray):
        a = obj
    else:
        cai = getattr(obj, "__cuda_array_interface__", None)
        if cai is not None:
            a = _interop.from_cuda_array_interface(obj, cai)
        else:
            a = to_gpu(np.asarray(obj, dtype=dtype))
    if dtype is not None and _dtypes.canonical(dtype) != a.dtype:
        a = a.astype(dtype)
    return a




def from_dlpack(x, *, device=None, copy=None):
    """Wrap a DLPack producer (``__dlpack__``) or capsule without a copy.

    numpy's and the Array API's ``from_dlpack``; the producer is asked for
    a DLPack 1.0 capsule of data ready on the legacy default stream.

    Parameters
    ----------
    x : object
        A GPUArray (returned as it is, or copied with ``copy=True``), a
        DLPack capsule, or an object with ``__dlpack__`` (a CuPy array, a
        PyTorch CUDA tensor, ...).
    device : optional
        Accepted for the Array API's signature and ignored: the result is
        on the producer's device.
    copy : bool or None, optional
        None (default): share the memory, except for a tensor the producer
        marked read-only, which is copied; True: always copy; False: never
        copy.

    Returns
    -------
    GPUArray
        The tensor's shape, strides and dtype, sharing its memory unless
        copied (the producer is kept alive).

    Raises
    ------
    TypeError
        If ``x`` has no ``__dlpack__`` and is no capsule.
    ValueError
        If a capsule was already consumed.
    BufferError
        If the tensor is not in CUDA device memory or has an unsupported dtype
        (or is read-only with ``copy=False``).
    """
    return _interop.from_dlpack(x, copy)

