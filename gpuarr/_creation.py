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

from . import _placement
from . import _docpieces, _dtypes, _interop, _layout, _percontext, _transfer
from . import driver as _drv
from ._array import GPUArray, default_allocator, make

__all__ = [
    "empty", "empty_c", "zeros", "ones", "full", "empty_like", "zeros_like",
    "ones_like", "full_like", "to_gpu", "to_gpu_async", "arange", "linspace",
    "eye", "array", "asarray", "from_dlpack", "flag_word", "keep_flag_word",
]

#: Pieces the creation functions' docstrings share (``$NAME`` lines,
#: filled at import by :mod:`gpuarr._docpieces`)
_DOC_PIECES = {
    "LIKE_PARAMS": """a : GPUArray
    The prototype, whose shape, dtype and layout the result takes.
dtype : dtype-like, optional
    Overrides ``a``'s dtype.
order : {'K', 'A', 'C', 'F'}, optional
    Layout of the result: ``'K'`` (default) and ``'A'`` give F order when
    ``a`` is F- but not C-contiguous (and ``shape`` keeps its number of
    axes), C order otherwise.
shape : int or tuple of ints, optional
    Overrides ``a``'s shape.""",
    "LIKE_RESULT": """GPUArray
    Of ``a``'s shape and dtype (or those given), from the current
    context's pool (numpy's ``subok`` and ``device`` are not taken).""",
    "NEW_RAISES": """Raises
------
TypeError
    For an unsupported dtype (object, strings, datetimes, ...).
ValueError
    For negative dimensions or an unknown ``order``.""",
}
_shared_doc = _docpieces.filler(_DOC_PIECES)


@_shared_doc
def empty(shape, dtype=np.float64, order="C", allocator=None):
    """Uninitialized array (numpy.empty; default dtype float64).

    PyCUDA's ``empty(shape, dtype, allocator=..., order=...)`` takes the same
    arguments; numpy's ``like`` and ``device`` are not taken.

    Parameters
    ----------
    shape : int or tuple of ints
        The array's shape.
    dtype : dtype-like, optional
        Any dtype gpuarr supports (bool, integers, floats and complex);
        default float64.
    order : {'C', 'F'}, optional
        Memory layout, row-major (default) or column-major.
    allocator : callable, optional
        ``allocator(nbytes)`` returning device memory (PyCUDA's convention,
        e.g. a :class:`gpuarr.tools.DeviceMemoryPool`'s ``allocate``);
        default the current context's pool.

    Returns
    -------
    GPUArray
        Of ``shape`` and ``dtype`` in ``order``, from ``allocator`` (default
        the current context's pool); its values are whatever the memory
        held.

    $NEW_RAISES
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


_U64 = np.dtype(np.uint64)
#: flag words of a context kept for reuse (all ones; at most _FLAGS_KEPT)
_flag_words = _percontext.state(lambda ctx: [])
_FLAGS_KEPT = 4


def flag_word(stream=None):
    """A kernel's bad-index flag word: a 1-element uint64 array of all
    ones, which the kernel lowers (atomicMin) to the first bad position.

    A word given back by :func:`keep_flag_word` is handed out again as it
    is (no memset: the common case, no bad index, leaves it all ones);
    else a new one is set on ``stream`` (None: the legacy stream).  A
    word is used by one caller at a time: taken here, given back only
    after its kernel finished and it was read as all ones, or dropped.

    Returns
    -------
    GPUArray
        Shape ``(1,)``, dtype uint64, C-contiguous.
    """
    words = _flag_words()
    try:
        return words.pop()
    except IndexError:
        pass
    w = empty_c((1,), _U64)
    if stream is None:
        _drv.memset_d8(w.ptr, 0xFF, 8)
    else:
        _drv.memset_d8_async(w.ptr, 0xFF, 8, stream)
    return w


def keep_flag_word(w):
    """Give back a :func:`flag_word` read as all ones after its kernel
    finished (the reader waited for it), for the next caller in the
    current context."""
    words = _flag_words()
    if len(words) < _FLAGS_KEPT:
        words.append(w)


@_shared_doc
def zeros(shape, dtype=np.float64, order="C", allocator=None):
    """Array of zeros (numpy.zeros; default dtype float64).

    One ``memset`` of the new memory.

    Parameters
    ----------
    shape : int or tuple of ints
        The array's shape.
    dtype : dtype-like, optional
        Default float64.
    order : {'C', 'F'}, optional
        Memory layout, row-major (default) or column-major.
    allocator : callable, optional
        ``allocator(nbytes)`` returning device memory (PyCUDA's convention,
        e.g. a :class:`gpuarr.tools.DeviceMemoryPool`'s ``allocate``);
        default the current context's pool.

    Returns
    -------
    GPUArray
        Of ``shape`` and ``dtype``, every element zero.

    $NEW_RAISES
    """
    a = empty(shape, dtype, order=order, allocator=allocator)
    if a.size:
        _drv.memset_d8(a.ptr, 0, a.nbytes)
    return a


@_shared_doc
def ones(shape, dtype=np.float64, order="C", allocator=None):
    """Array of ones (numpy.ones; default dtype float64).

    Parameters
    ----------
    shape : int or tuple of ints
        The array's shape.
    dtype : dtype-like, optional
        Default float64.
    order : {'C', 'F'}, optional
        Memory layout, row-major (default) or column-major.
    allocator : callable, optional
        ``allocator(nbytes)`` returning device memory (PyCUDA's convention,
        e.g. a :class:`gpuarr.tools.DeviceMemoryPool`'s ``allocate``);
        default the current context's pool.

    Returns
    -------
    GPUArray
        Of ``shape`` and ``dtype``, every element one (True for bool).

    $NEW_RAISES
    """
    a = empty(shape, dtype, order=order, allocator=allocator)
    _transfer.fill(a, 1)
    return a


@_shared_doc
def full(shape, fill_value, dtype=None, order="C", allocator=None):
    """Array filled with ``fill_value`` (numpy.full; dtype from the value).

    The default dtype is ``numpy.array(fill_value).dtype`` (a GPUArray
    value's own dtype).

    Parameters
    ----------
    shape : int or tuple of ints
        The array's shape.
    fill_value : scalar, GPUArray or numpy.ndarray
        The value, converted to ``dtype`` as numpy's assignment converts
        it (a Python int out of range raises OverflowError; arrays are
        cast unsafely).  An array value broadcasts to ``shape`` as in
        numpy.
    dtype : dtype-like, optional
        Default the value's dtype: int64 for a Python int, float64 for a
        float, complex128 for a complex, bool for a bool.
    order : {'C', 'F'}, optional
        Memory layout, row-major (default) or column-major.
    allocator : callable, optional
        ``allocator(nbytes)`` returning device memory (PyCUDA's convention,
        e.g. a :class:`gpuarr.tools.DeviceMemoryPool`'s ``allocate``);
        default the current context's pool.

    Returns
    -------
    GPUArray
        Of ``shape`` and ``dtype``, every element ``fill_value``.

    $NEW_RAISES
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


@_shared_doc
def empty_like(a, dtype=None, order="K", shape=None):
    """Uninitialized array with ``a``'s shape and dtype (numpy.empty_like).

    Parameters
    ----------
    $LIKE_PARAMS

    Returns
    -------
    $LIKE_RESULT
        Its values are whatever the memory held.

    $NEW_RAISES
    """
    dtype, order, shape = _like(a, dtype, order, shape)
    return empty(shape, dtype, order=order)


@_shared_doc
def zeros_like(a, dtype=None, order="K", shape=None):
    """Zeros with ``a``'s shape and dtype (numpy.zeros_like).

    Parameters
    ----------
    $LIKE_PARAMS

    Returns
    -------
    $LIKE_RESULT
        Every element zero.

    $NEW_RAISES
    """
    dtype, order, shape = _like(a, dtype, order, shape)
    return zeros(shape, dtype, order=order)


@_shared_doc
def ones_like(a, dtype=None, order="K", shape=None):
    """Ones with ``a``'s shape and dtype (numpy.ones_like).

    Parameters
    ----------
    $LIKE_PARAMS

    Returns
    -------
    $LIKE_RESULT
        Every element one.

    $NEW_RAISES
    """
    dtype, order, shape = _like(a, dtype, order, shape)
    return ones(shape, dtype, order=order)


@_shared_doc
def full_like(a, fill_value, dtype=None, order="K", shape=None):
    """``fill_value`` with ``a``'s shape and dtype (numpy.full_like).

    Parameters
    ----------
    a : GPUArray
        The prototype, whose shape, dtype and layout the result takes.
    fill_value : scalar, GPUArray or numpy.ndarray
        The value, converted to the result's dtype as :func:`full`
        converts it.
    dtype : dtype-like, optional
        Overrides ``a``'s dtype (not the value's: as in numpy, the default
        is ``a.dtype``).
    order : {'K', 'A', 'C', 'F'}, optional
        As :func:`empty_like`'s.
    shape : int or tuple of ints, optional
        Overrides ``a``'s shape.

    Returns
    -------
    $LIKE_RESULT
        Every element ``fill_value``.

    $NEW_RAISES
    """
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
    """Like :func:`to_gpu`, enqueued on ``stream`` (pinned ``ary`` to overlap).

    PyCUDA's ``to_gpu_async``.  The copy is asynchronous only for a
    page-locked ``ary`` (:func:`gpuarr.driver.pagelocked_empty`); the host
    array must not change until ``stream`` has finished the copy.

    Parameters
    ----------
    ary : array_like
        Converted with ``numpy.asarray``; non-contiguous arrays are made
        C-contiguous on the host first (a pageable temporary).
    allocator : callable, optional
        ``allocator(nbytes)`` returning device memory (PyCUDA's convention,
        e.g. a :class:`gpuarr.tools.DeviceMemoryPool`'s ``allocate``);
        default the current context's pool.
    stream : gpuarr.driver.Stream, optional
        The stream the copy is enqueued on; None the legacy default stream.

    Returns
    -------
    GPUArray
        Of ``ary``'s shape and dtype (C order, or F order for an F- but not
        C-contiguous ``ary``); its contents are valid once the copy on
        ``stream`` has completed.

    Raises
    ------
    TypeError
        For an unsupported dtype (object, strings, datetimes, ...).
    """
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

    Parameters
    ----------
    start : int, float or complex
        The first value; with no ``stop`` it is the end and the values start
        at 0.
    stop : int, float or complex, optional
        The end, excluded.
    step : int, float or complex, optional
        The spacing, default 1.
    dtype : dtype-like, optional
        Default numpy's: inferred from the arguments (int64 for ints,
        float64 when any is a float).
    allocator : callable, optional
        ``allocator(nbytes)`` returning device memory (PyCUDA's convention,
        e.g. a :class:`gpuarr.tools.DeviceMemoryPool`'s ``allocate``);
        default the current context's pool.

    Returns
    -------
    GPUArray
        1-D, ``ceil((stop - start) / step)`` elements (numpy's count).

    Raises
    ------
    ZeroDivisionError
        For a zero step (as numpy).
    TypeError
        For a dtype gpuarr does not support.
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
    """``num`` evenly spaced samples over ``[start, stop]`` (numpy.linspace).

    Computed by numpy on the host and copied (numpy's values exactly).

    Parameters
    ----------
    start, stop : array_like
        The ends of the interval; arrays give one sequence per element,
        stacked along ``axis``.
    num : int, optional
        The number of samples (default 50).
    endpoint : bool, optional
        Whether ``stop`` is the last sample (default True).
    retstep : bool, optional
        Also return the spacing.
    dtype : dtype-like, optional
        Default numpy's: float64, or the inexact promotion of the ends.
    axis : int, optional
        Where the samples go for array ends (default 0).

    Returns
    -------
    samples : GPUArray
        The samples, on the device.
    step : float or numpy.ndarray
        The spacing (a host value, as numpy gives it); only when
        ``retstep`` is True.

    Raises
    ------
    ValueError
        For a negative ``num`` (numpy's).
    TypeError
        For a dtype gpuarr does not support.
    """
    res = np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep,
                      dtype=dtype, axis=axis)
    if retstep:
        return to_gpu(res[0]), res[1]
    return to_gpu(res)


def eye(N, M=None, k=0, dtype=np.float64, order="C"):
    """2-d array with ones on the ``k``-th diagonal (numpy.eye).

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns; default ``N``.
    k : int, optional
        The diagonal: 0 the main one (default), positive above it, negative
        below it.
    dtype : dtype-like, optional
        Default float64.
    order : {'C', 'F'}, optional
        Memory layout (default C).

    Returns
    -------
    GPUArray
        Of shape ``(N, M)`` and ``dtype``: ones on diagonal ``k``, zeros
        elsewhere (from the current context's pool; numpy's ``like`` and
        ``device`` are not taken).

    Raises
    ------
    TypeError
        For a non-integer ``N``, ``M`` or ``k`` (``operator.index``), or an
        unsupported dtype.
    ValueError
        For a negative ``N`` or ``M``, or an unknown ``order``.
    """
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



def array(obj, dtype=None, *, copy=True, ndmin=0):
    """A GPUArray of ``obj``'s values (numpy.array).

    Host data is copied to the device; a GPUArray, or an object with
    ``__cuda_array_interface__``, is copied on the device, or shared when
    ``copy`` allows.  ``numpy.array(obj, like=a)`` with a GPUArray ``a``
    comes here (NEP 35), as Dask's meta helpers call it.

    Parameters
    ----------
    obj : GPUArray, object with ``__cuda_array_interface__``, or array_like
        The values; host data goes through ``numpy.array`` first.
    dtype : dtype-like, optional
        The result's dtype; default ``obj``'s (numpy's choice for host data).
    copy : bool or None, optional
        numpy 2's rule: True (default) always makes a new array; None copies
        only when ``dtype`` or ``ndmin`` needs it; False never copies device
        data and raises when a copy would be needed.  Host data is always
        copied to the device (so ``copy=False`` with host data raises too).
    ndmin : int, optional
        Minimum number of dimensions: ones are prepended to the shape (a
        view, as numpy's).

    Returns
    -------
    GPUArray
        Of ``obj``'s shape (with the prepended ones) and of ``dtype``;
        C order for host data, ``obj``'s layout for device data.

    Raises
    ------
    TypeError
        For an unsupported dtype.
    ValueError
        With ``copy=False`` when a copy is needed (host data, another
        dtype).
    """
    if isinstance(obj, GPUArray) or \
            getattr(obj, "__cuda_array_interface__", None) is not None:
        a = asarray(obj)
        cast = dtype is not None and _dtypes.canonical(dtype) != a.dtype
        if copy is False and cast:
            raise ValueError("numpy.array(copy=False): casting %s to %s "
                             "needs a copy" % (a.dtype, np.dtype(dtype)))
        if cast:
            a = a.astype(dtype)
        elif copy:
            a = a.copy()
    else:
        if copy is False:
            raise ValueError("numpy.array(copy=False): host data is always "
                             "copied to the device")
        a = to_gpu(np.array(obj, dtype=dtype, ndmin=ndmin))
    if a.ndim < ndmin:
        shape = (1,) * (ndmin - a.ndim) + a.shape
        a = a._view(shape, (0,) * (ndmin - a.ndim) + a.strides, 0)
    return a


def asarray(obj, dtype=None):
    """Wrap or copy ``obj`` as a GPUArray.

    Unlike numpy's ``asarray`` there is no ``order``, ``device`` or
    ``copy``; host data is always copied to the device.

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

    Returns
    -------
    GPUArray
        ``obj`` itself, a view of its device memory, or a new device copy;
        of ``dtype`` when given.

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


# run on the arrays' device (issue 16)
_placement.route(globals(), names=("empty_like", "zeros_like", "ones_like", "full_like"))
