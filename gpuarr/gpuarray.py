"""n-dimensional arrays in GPU memory (layer 5).

:class:`GPUArray` follows PyCUDA's ``pycuda.gpuarray.GPUArray`` names and
signatures; where PyCUDA and numpy disagree, numpy's semantics win (type
promotion by NEP 50, views from basic indexing and ``reshape``, broadcasting
in every operator, ``same_kind`` casting for in-place operators and ``out=``).

Strides are in bytes and may be negative or zero, exactly like numpy's; the
address of element ``[0, ..., 0]`` is ``ptr``. Element-wise work is done by
:func:`gpuarr.elementwise.run_elementwise`; this module only computes shapes,
strides, dtypes and pointers, so all of that is checkable without a GPU on
"fake" arrays built with ``GPUArray(shape, dtype, gpudata=<int address>)``.
"""

import operator as _operator

import numpy as np

from . import _percontext
from .tools import default_pool as _default_pool

try:  # the Cython driver may not be built (CPU-only checks of this module)
    from . import driver as drv
except ImportError:  # pragma: no cover - depends on the build
    drv = None

__all__ = [
    "GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "full",
    "arange", "linspace", "eye", "empty_like", "zeros_like", "ones_like",
    "full_like", "fill", "asarray", "from_dlpack", "broadcast_to", "reshape",
    "ravel", "transpose", "swapaxes", "squeeze", "expand_dims", "astype",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
    "remainder", "mod", "power", "negative", "positive", "absolute", "abs",
    "invert", "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "left_shift", "right_shift", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "UFuncTypeError",
]

# ---------------------------------------------------------------------------
# dtypes

_SUPPORTED = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
    np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
    np.complex128))
_DTYPE_CACHE = {}


def _dtype(dtype):
    """Return the supported ``numpy.dtype`` for ``dtype`` or raise TypeError."""
    try:
        return _DTYPE_CACHE[dtype]
    except (KeyError, TypeError):
        pass
    dt = np.dtype(dtype)
    if dt not in _SUPPORTED:
        raise TypeError("gpuarr does not support dtype %r (supported: bool, "
                        "int8..int64, uint8..uint64, float16/32/64, "
                        "complex64/128)" % (dt,))
    dt = dt.newbyteorder("=") if dt.byteorder not in "=|" else dt
    try:
        _DTYPE_CACHE[dtype] = dt
    except TypeError:
        pass
    return dt


try:
    from numpy._core._exceptions import UFuncTypeError as _NpUFuncTypeError
    from numpy._core._exceptions import _UFuncOutputCastingError
except ImportError:  # pragma: no cover - numpy internals moved
    _NpUFuncTypeError = TypeError
    _UFuncOutputCastingError = None


class UFuncTypeError(_UFuncOutputCastingError or _NpUFuncTypeError):
    """TypeError raised when a result cannot be cast to ``out`` (numpy's rule).

    A subclass of the class numpy raises in the same case (its private
    ``_UFuncOutputCastingError``, a ``UFuncTypeError``) where numpy has it,
    and of :class:`TypeError` always.
    """

    def __init__(self, msg):
        TypeError.__init__(self, msg)

    def __str__(self):
        return self.args[0]


def _casting_error(op, from_dt, to_dt):
    msg = ("Cannot cast ufunc %r output from %r to %r with casting rule "
           "'same_kind'" % (op, from_dt, to_dt))
    return UFuncTypeError(msg)


# ---------------------------------------------------------------------------
# shape and stride arithmetic (pure Python, no device)

def _normalize_shape(shape):
    try:
        n = _operator.index(shape)
    except TypeError:
        try:
            shape = tuple(_operator.index(s) for s in shape)
        except TypeError:
            raise TypeError("shape must be an int or a sequence of ints, got %r"
                            % (shape,)) from None
    else:
        shape = (n,)
    for n in shape:
        if n < 0:
            raise ValueError("negative dimensions are not allowed")
    return shape


def _prod(shape):
    size = 1
    for n in shape:
        size *= n
    return size


def _c_strides(shape, itemsize):
    """numpy's C-order strides for a new array (all zero for size 0)."""
    nd = len(shape)
    strides = [0] * nd
    s = itemsize
    for i in range(nd - 1, -1, -1):
        n = shape[i]
        if n == 0:
            return (0,) * nd
        strides[i] = s
        s *= n
    return tuple(strides)


def _f_strides(shape, itemsize):
    nd = len(shape)
    strides = [0] * nd
    s = itemsize
    for i in range(nd):
        n = shape[i]
        if n == 0:
            return (0,) * nd
        strides[i] = s
        s *= n
    return tuple(strides)


def _contiguity(shape, strides, itemsize):
    """(c_contiguous, f_contiguous) by numpy's rules (size-1 axes ignored)."""
    if 0 in shape:
        return True, True
    c = True
    s = itemsize
    for i in range(len(shape) - 1, -1, -1):
        n = shape[i]
        if n != 1:
            if strides[i] != s:
                c = False
                break
            s *= n
    f = True
    s = itemsize
    for i in range(len(shape)):
        n = shape[i]
        if n != 1:
            if strides[i] != s:
                f = False
                break
            s *= n
    return c, f


def _extent(shape, strides, itemsize):
    """Byte range ``[lo, hi)`` relative to ``ptr`` touched by the array."""
    lo = hi = 0
    for n, s in zip(shape, strides):
        if n == 0:
            return 0, 0
        if s > 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return lo, hi + itemsize


def _broadcast_shapes(*shapes):
    """numpy's broadcasting of shapes; ValueError like numpy's."""
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for shape in shapes:
        off = nd - len(shape)
        for i, n in enumerate(shape):
            m = out[off + i]
            if m == n or n == 1:
                continue
            if m == 1:
                out[off + i] = n
            else:
                raise ValueError(
                    "operands could not be broadcast together with shapes "
                    + " ".join(str(tuple(s)).replace(" ", "") for s in shapes))
    return tuple(out)


def _broadcast_strides(shape, strides, to_shape):
    """Strides of an operand of ``shape``/``strides`` broadcast to ``to_shape``.

    Raises
    ------
    ValueError
        If ``shape`` cannot be broadcast to ``to_shape``.
    """
    off = len(to_shape) - len(shape)
    if off < 0:
        raise ValueError("cannot broadcast an array of shape %s to shape %s "
                         "(more dimensions)" % (shape, to_shape))
    new = [0] * len(to_shape)
    for i, n in enumerate(shape):
        m = to_shape[off + i]
        if n == m:
            new[off + i] = strides[i]
        elif n == 1:
            new[off + i] = 0
        else:
            raise ValueError("operands could not be broadcast together with "
                             "remapped shapes [original->remapped]: %s and "
                             "requested shape %s" % (shape, to_shape))
    return tuple(new)


def _nocopy_reshape_strides(shape, strides, newshape, itemsize, f_order):
    """Strides for viewing ``shape``/``strides`` as ``newshape``, or None.

    This is numpy's "attempt no-copy reshape": drop the length-1 axes, split
    old and new axes into groups of equal element count, and accept if the old
    axes inside each group step through memory like one contiguous axis (in
    C or F order). Length-1 axes of ``newshape`` left over at the end get
    the neighbouring stride, as numpy gives them.
    """
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    nn, on = len(newshape), len(old)
    newstrides = [0] * nn
    oi = ni = 0
    while ni < nn and oi < on:
        npr = newshape[ni]
        opr = old[oi][0]
        nj, oj = ni + 1, oi + 1
        while npr != opr:
            if npr < opr:
                npr *= newshape[nj]
                nj += 1
            else:
                opr *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if f_order:
                if old[k + 1][1] != old[k][0] * old[k][1]:
                    return None
            elif old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        if f_order:
            newstrides[ni] = old[oi][1]
            for k in range(ni + 1, nj):
                newstrides[k] = newstrides[k - 1] * newshape[k - 1]
        else:
            newstrides[nj - 1] = old[oj - 1][1]
            for k in range(nj - 1, ni, -1):
                newstrides[k - 1] = newstrides[k] * newshape[k]
        ni, oi = nj, oj
    last = newstrides[ni - 1] if ni >= 1 else itemsize
    if f_order and ni >= 1:
        last *= newshape[ni - 1]
    for k in range(ni, nn):
        newstrides[k] = last
    return tuple(newstrides)


def _normalize_axis(axis, ndim):
    try:
        ax = _operator.index(axis)
    except TypeError:
        raise TypeError("an integer is required for the axis") from None
    if not -ndim <= ax < ndim:
        raise np.exceptions.AxisError(ax, ndim)
    return ax % ndim if ndim else ax


def _resolve_newshape(size, newshape):
    """Replace a ``-1`` (any negative) in ``newshape``; errors as numpy's."""
    unknown = -1
    known = 1
    for i, n in enumerate(newshape):
        if n < 0:  # numpy takes any negative entry as "unknown"
            if unknown >= 0:
                raise ValueError("can only specify one unknown dimension")
            unknown = i
        else:
            known *= n
    if unknown >= 0:
        if known == 0 or size % known:
            raise ValueError("cannot reshape array of size %d into shape %s"
                             % (size, _shape_str(newshape)))
        newshape = list(newshape)
        newshape[unknown] = size // known
        newshape = tuple(newshape)
    elif known != size:
        raise ValueError("cannot reshape array of size %d into shape %s"
                         % (size, _shape_str(newshape)))
    return newshape


def _shape_str(shape):
    """A shape as numpy's messages print it: ``(3,4)``, ``(7,)``, ``()``."""
    shape = tuple(shape)
    return "(%s%s)" % (",".join(str(n) for n in shape), "," if len(shape) == 1 else "")


def _value_shape(shape, dst_shape):
    """The shape a value of ``shape`` takes when assigned into ``dst_shape``
    (numpy drops extra leading length-1 axes), checked to broadcast there."""
    shape = tuple(shape)
    while len(shape) > len(dst_shape) and shape[0] == 1:
        shape = shape[1:]
    if shape != tuple(dst_shape):
        try:
            _broadcast_strides(shape, (0,) * len(shape), dst_shape)
        except ValueError:
            raise ValueError("could not broadcast input array from shape %s "
                             "into shape %s" % (_shape_str(shape),
                                                _shape_str(dst_shape))) from None
    return shape


# ---------------------------------------------------------------------------
# lazily imported lower layers

_EW = None


def _elementwise():
    global _EW
    if _EW is None:
        from . import elementwise
        _EW = elementwise
    return _EW


def _need_driver():
    if drv is None:
        raise ImportError("gpuarr.driver is not available (the Cython "
                          "extension gpuarr._driver is not built)")
    return drv


def _default_allocator(nbytes):
    """Allocate from the current context's pool (gpuarr.tools.default_pool)."""
    return _default_pool().allocate(nbytes)


# ---------------------------------------------------------------------------
# the array

class _Flags:
    """numpy-like flags object (``c_contiguous``, ``f_contiguous``, ``forc``)."""

    __slots__ = ("c_contiguous", "f_contiguous")

    def __init__(self, c, f):
        self.c_contiguous = c
        self.f_contiguous = f

    @property
    def forc(self):
        return self.c_contiguous or self.f_contiguous

    @property
    def contiguous(self):
        return self.c_contiguous

    def __getitem__(self, key):
        key = key.upper()
        if key in ("C_CONTIGUOUS", "C", "CONTIGUOUS"):
            return self.c_contiguous
        if key in ("F_CONTIGUOUS", "F", "FORTRAN"):
            return self.f_contiguous
        if key == "FORC":
            return self.forc
        raise KeyError(key)

    def __repr__(self):
        return "  C_CONTIGUOUS : %s\n  F_CONTIGUOUS : %s" % (
            self.c_contiguous, self.f_contiguous)


def _make(shape, dtype, strides, ptr, gpudata, base, c, f, allocator=None):
    """Construct a GPUArray without validation (internal fast path)."""
    a = _new(GPUArray)
    a.shape = shape
    a.dtype = dtype
    a.strides = strides
    a.size = _prod(shape)
    a.ptr = ptr
    a.gpudata = gpudata
    a.base = base
    a._c = c
    a._f = f
    a.allocator = allocator
    return a


_new = object.__new__


class GPUArray:
    """An n-dimensional array in device memory.

    Parameters
    ----------
    shape : int or tuple of int
        Dimensions (``>= 0``).
    dtype : dtype-like
        One of bool, int8..int64, uint8..uint64, float16, float32, float64,
        complex64, complex128.
    allocator : callable, optional
        ``allocator(nbytes) -> allocation`` with ``int(allocation)`` the
        device address; default the current context's
        :class:`gpuarr.tools.DeviceMemoryPool`. Ignored when ``gpudata``
        is given.
    base : object, optional
        Object kept alive as long as this array (the owner of ``gpudata``).
    gpudata : int or allocation, optional
        Existing device memory: an int address or an object with ``__int__``.
        Nothing is allocated and the driver is not touched.
    strides : tuple of int, optional
        Byte strides (may be negative or zero); default from ``order``.
    order : {'C', 'F'}
        Layout when ``strides`` is not given.

    Raises
    ------
    TypeError
        For an unsupported dtype or a non-integer shape.
    ValueError
        For negative dimensions, a ``strides`` of the wrong length, or an
        unknown ``order``.

    Notes
    -----
    ``ptr`` is the address of element ``[0, ..., 0]``; ``gpudata`` is the
    allocation (for arrays that own memory) or an int address (views, like
    PyCUDA). A zero-size array allocates nothing and has ``ptr == 0``.
    """

    __slots__ = ("shape", "dtype", "size", "strides", "ptr", "gpudata",
                 "base", "allocator", "_c", "_f", "__weakref__")

    # numpy defers to our reflected operators and never converts us
    __array_ufunc__ = None
    __array_priority__ = 100

    def __init__(self, shape, dtype, allocator=None, base=None, gpudata=None,
                 strides=None, order="C"):
        shape = _normalize_shape(shape)
        dtype = _dtype(dtype)
        itemsize = dtype.itemsize
        if strides is None:
            if order == "C" or order is None:
                strides = _c_strides(shape, itemsize)
            elif order == "F":
                strides = _f_strides(shape, itemsize)
            else:
                raise ValueError("order must be 'C' or 'F', got %r" % (order,))
        else:
            strides = tuple(_operator.index(s) for s in strides)
            if len(strides) != len(shape):
                raise ValueError("strides has %d entries for %d dimensions"
                                 % (len(strides), len(shape)))
        size = _prod(shape)
        if gpudata is None:
            if size:
                lo, hi = _extent(shape, strides, itemsize)
                if lo < 0:
                    raise ValueError("negative strides need gpudata (the "
                                     "array would start before its memory)")
                if allocator is None:
                    allocator = _default_allocator
                gpudata = allocator(hi)
                ptr = int(gpudata)
            else:
                ptr = 0
        else:
            ptr = int(gpudata)
        self.shape = shape
        self.dtype = dtype
        self.strides = strides
        self.size = size
        self.ptr = ptr
        self.gpudata = gpudata
        self.base = base
        self.allocator = allocator
        self._c, self._f = _contiguity(shape, strides, itemsize)

    # -- attributes --------------------------------------------------------
    @property
    def ndim(self):
        """Number of dimensions."""
        return len(self.shape)

    @property
    def itemsize(self):
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self):
        """``size * itemsize``."""
        return self.size * self.dtype.itemsize

    @property
    def mem_size(self):
        """Number of elements spanned in memory (``size`` when contiguous)."""
        if self._c or self._f:
            return self.size
        lo, hi = _extent(self.shape, self.strides, self.dtype.itemsize)
        return (hi - lo) // self.dtype.itemsize

    @property
    def flags(self):
        """numpy-like flags: ``c_contiguous``, ``f_contiguous``, ``forc``."""
        return _Flags(self._c, self._f)

    @property
    def T(self):
        """The transposed view (``transpose()``)."""
        return self.transpose()

    @property
    def real(self):
        """Real part: a view for complex dtypes, ``self`` otherwise."""
        if self.dtype.kind != "c":
            return self
        dt = np.dtype("f%d" % (self.dtype.itemsize // 2))
        return self._view(self.shape, self.strides, 0, dt)

    @property
    def imag(self):
        """Imaginary part: a view for complex dtypes, zeros otherwise."""
        if self.dtype.kind != "c":
            return zeros_like(self)
        dt = np.dtype("f%d" % (self.dtype.itemsize // 2))
        return self._view(self.shape, self.strides, dt.itemsize, dt)

    @property
    def device(self):
        """The :class:`gpuarr.driver.Device` of the current context."""
        return _need_driver().Context.get_device()

    def _view(self, shape, strides, offset, dtype=None):
        """A view sharing memory, ``offset`` bytes from ``ptr``."""
        if dtype is None:
            dtype = self.dtype
        c, f = _contiguity(shape, strides, dtype.itemsize)
        base = self if self.base is None else self.base
        ptr = self.ptr + offset
        return _make(shape, dtype, strides, ptr, ptr, base, c, f,
                     self.allocator)

    # -- numpy protocol guards ---------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError("a GPUArray lives in device memory and is not "
                        "implicitly converted to a numpy array; use .get()")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __bool__(self):
        if self.size == 1:
            return bool(self.get().reshape(()))
        if self.size == 0:
            raise ValueError("The truth value of an empty array is ambiguous. "
                             "Use `array.size > 0` to check that an array is "
                             "not empty.")
        raise ValueError("The truth value of an array with more than one "
                         "element is ambiguous. Use a.any() or a.all()")

    def _scalar(self):
        if self.size != 1:
            raise TypeError("only length-1 arrays can be converted to Python "
                            "scalars")
        return self.get().reshape(())[()]

    def __int__(self):
        return int(self._scalar())

    def __float__(self):
        return float(self._scalar())

    def __complex__(self):
        return complex(self._scalar())

    def __index__(self):
        if self.ndim or self.dtype.kind not in "biu":
            raise TypeError("only integer scalar arrays can be converted to a "
                            "scalar index")
        return _operator.index(self._scalar())

    def item(self):
        """Copy the only element to a Python scalar."""
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a "
                             "Python scalar")
        return self._scalar().item()

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    def __format__(self, spec):
        return format(self.get(), spec)

    def __reduce__(self):
        return (_rebuild, (self.get(),))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # -- interop -------------------------------------------------------------
    @property
    def __cuda_array_interface__(self):
        """CUDA Array Interface version 3.

        ``strides`` is None for C-contiguous arrays; ``data`` is
        ``(ptr, False)`` (``(0, False)`` for size 0); ``stream`` is ``1``
        (the legacy default stream, where gpuarr enqueues its work).
        """
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": [("", self.dtype.str)],
            "data": (self.ptr if self.size else 0, False),
            "strides": None if self._c else self.strides,
            "version": 3,
            "stream": 1,
        }

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """Export as a DLPack capsule (unversioned ``DLManagedTensor``).

        Parameters
        ----------
        stream : int or None
            The consumer's stream: None or 1 (legacy default stream) and -1
            (no synchronization) need nothing; any other stream gets a full
            context synchronization so the data is ready on it.
        max_version : tuple of int, optional
            Accepted; the unversioned (DLPack 0.8) struct is always returned.
        dl_device : tuple, optional
            Must be this array's ``__dlpack_device__()`` if given.
        copy : bool, optional
            True exports a fresh copy; False or None exports without copying.

        Raises
        ------
        BufferError
            If ``dl_device`` names another device.
        """
        from ._dlpack import to_capsule
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("cannot export to device %r" % (dl_device,))
        if stream is not None and stream not in (-1, 1):
            if stream == 0:
                raise ValueError("stream 0 is ambiguous in DLPack; use 1 for "
                                 "the legacy default stream")
            _need_driver().Context.synchronize()
        arr = self.copy() if copy else self
        return to_capsule(arr)

    def __dlpack_device__(self):
        """``(kDLCUDA, device_ordinal)``, i.e. ``(2, id)``."""
        from ._dlpack import device_id
        return (2, device_id(self.ptr))

    # -- transfers -------------------------------------------------------------
    def get(self, ary=None, pagelocked=False, async_=False, stream=None,
            **kwargs):
        """Copy to the host.

        Parameters
        ----------
        ary : numpy.ndarray, optional
            Destination of the same shape (or size) and dtype.
        pagelocked : bool
            Return page-locked host memory (ignored when ``ary`` is given).
        async_ : bool
            Enqueue the copy on ``stream`` and return without waiting.
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        numpy.ndarray
            C-ordered, or F-ordered when this array is F- but not
            C-contiguous. Non-contiguous arrays are first gathered into a
            contiguous device temporary.

        Raises
        ------
        ValueError
            If ``ary`` has another size or dtype.
        """
        if "async" in kwargs:
            async_ = kwargs.pop("async")
        if kwargs:
            raise TypeError("unexpected keyword arguments %s" % list(kwargs))
        if ary is not None:
            if not isinstance(ary, np.ndarray):
                raise TypeError("ary must be a numpy.ndarray")
            if ary.size != self.size:
                raise ValueError("ary has size %d, the GPUArray %d"
                                 % (ary.size, self.size))
            if ary.dtype != self.dtype:
                raise ValueError("ary has dtype %s, the GPUArray %s"
                                 % (ary.dtype, self.dtype))
        src = self
        if not (self._c or self._f):
            src = self.copy(order="C", stream=stream)
        f_layout = src._f and not src._c
        if ary is None:
            if pagelocked:
                d = _need_driver()
                if f_layout:
                    ary = d.pagelocked_empty(self.shape[::-1], self.dtype).T
                else:
                    ary = d.pagelocked_empty(self.shape, self.dtype)
            else:
                ary = np.empty(self.shape, self.dtype,
                               order="F" if f_layout else "C")
            dest = ary
        elif ary.shape == self.shape and (
                ary.flags.f_contiguous if f_layout else ary.flags.c_contiguous):
            dest = ary
        else:
            dest = None
        if not self.size:
            return ary
        d = _need_driver()
        tmp = dest
        if tmp is None:
            tmp = np.empty(self.shape, self.dtype, order="F" if f_layout else "C")
            async_ = False  # the host-side scatter below needs the data now
        flat = tmp.T if f_layout else tmp
        if async_:
            d.memcpy_dtoh_async(flat, src.ptr, stream)
            if src is not self and stream is not None:
                # the gathered temporary returns to the pool (which does not
                # track streams) when this function returns: let it finish
                stream.synchronize()
        else:
            d.memcpy_dtoh(flat, src.ptr)
        if dest is None:
            ary[...] = tmp.reshape(ary.shape)
        return ary

    def get_async(self, stream=None, ary=None):
        """Enqueue a copy to the host on ``stream``; see :meth:`get`."""
        return self.get(ary=ary, async_=True, stream=stream)

    def set(self, ary, async_=False, stream=None, **kwargs):
        """Copy ``ary`` from the host into this array.

        Parameters
        ----------
        ary : array_like
            Same shape as this array (or same size, reshaped in C order as
            PyCUDA allows). Cast to this array's dtype like numpy assignment.
        async_ : bool
        stream : gpuarr.driver.Stream, optional

        Raises
        ------
        ValueError
            If the sizes differ.
        """
        if "async" in kwargs:
            async_ = kwargs.pop("async")
        if kwargs:
            raise TypeError("unexpected keyword arguments %s" % list(kwargs))
        ary = (ary if isinstance(ary, np.ndarray)
               else np.asarray(ary, dtype=self.dtype))   # numpy's range checks
        if ary.shape != self.shape:
            if ary.size != self.size:
                raise ValueError("could not broadcast input array from shape "
                                 "%s into shape %s" % (_shape_str(ary.shape),
                                                       _shape_str(self.shape)))
            ary = ary.reshape(self.shape)
        if ary.dtype != self.dtype:
            ary = ary.astype(self.dtype)
        if not self.size:
            return self
        d = _need_driver()
        if self._c:
            host, dst = np.ascontiguousarray(ary), self
        elif self._f:
            host, dst = np.asfortranarray(ary).T, self
        else:
            host = np.ascontiguousarray(ary)
            dst = empty(self.shape, self.dtype)
        if async_:
            d.memcpy_htod_async(dst.ptr, host, stream)
        else:
            d.memcpy_htod(dst.ptr, host)
        if dst is not self:
            _elementwise().run_elementwise("copy", [self], [dst], stream=stream)
            if async_ and stream is not None:
                # the staging temporary goes back to the pool on return, and
                # the pool does not track streams: let the scatter finish
                stream.synchronize()
        return self

    def set_async(self, ary, stream=None):
        """Enqueue a copy from the host on ``stream``; see :meth:`set`."""
        return self.set(ary, async_=True, stream=stream)

    # -- copies, casts -----------------------------------------------------------
    def copy(self, order="C", stream=None):
        """A new array with a copy of the data.

        Parameters
        ----------
        order : {'C', 'F', 'A', 'K'}
            Layout of the copy (numpy's meaning; 'K' and 'A' keep F order for
            F-contiguous arrays, else C).
        stream : gpuarr.driver.Stream, optional
        """
        order = _copy_order(order, self)
        out = empty(self.shape, self.dtype, order=order)
        _copy_into(out, self, stream)
        return out

    def astype(self, dtype, order="K", casting="unsafe", copy=True, stream=None):
        """Cast to ``dtype`` (numpy's ``astype``; ``casting`` as numpy's).

        Raises
        ------
        TypeError
            If ``dtype`` is unsupported or the cast violates ``casting``.
        """
        dtype = _dtype(dtype)
        if casting != "unsafe" and not np.can_cast(self.dtype, dtype, casting):
            raise TypeError("Cannot cast array data from %r to %r according "
                            "to the rule %r" % (self.dtype, dtype, casting))
        if dtype == self.dtype and not copy:
            return self
        out = empty(self.shape, dtype, order=_copy_order(order, self))
        _copy_into(out, self, stream)
        return out

    def view(self, dtype=None, type=None):
        """View the same memory as another dtype (numpy's rules).

        Raises
        ------
        ValueError
            If the item size changes and the last axis is not contiguous or
            its byte length is not divisible by the new item size.
        """
        if type is not None and type is not GPUArray:
            raise TypeError("only GPUArray views are supported")
        if dtype is None:
            return self._view(self.shape, self.strides, 0)
        if isinstance(dtype, type_) and issubclass(dtype, GPUArray):
            return self._view(self.shape, self.strides, 0)
        dtype = _dtype(dtype)
        old = self.dtype.itemsize
        new = dtype.itemsize
        if old == new:
            return self._view(self.shape, self.strides, 0, dtype)
        if not self.shape:
            raise ValueError("Changing the dtype of a 0d array is only "
                             "supported if the itemsize is unchanged")
        if self.shape[-1] != 1 and self.size and self.strides[-1] != old:
            raise ValueError("To change to a dtype of a different size, the "
                             "last axis must be contiguous")
        last = self.shape[-1] * old
        if last % new:
            if new > old:
                raise ValueError("When changing to a larger dtype, its size "
                                 "must be a divisor of the total size in bytes "
                                 "of the last axis of the array.")
            raise ValueError("When changing to a smaller dtype, its size must "
                             "be a divisor of the size of original dtype")
        shape = self.shape[:-1] + (last // new,)
        strides = self.strides[:-1] + (new,)
        return self._view(shape, strides, 0, dtype)

    def fill(self, value, stream=None):
        """Set every element to ``value`` (cast like numpy assignment).

        Returns
        -------
        GPUArray
            ``self`` (PyCUDA returns it too).
        """
        _fill(self, value, stream)
        return self

    # -- views ------------------------------------------------------------------
    def __getitem__(self, key):
        shape = self.shape
        strides = self.strides
        if type(key) is slice and shape:
            # one slice of the first axis (``a[::2]``), the common case
            start, stop, step = key.indices(shape[0])
            return self._view((len(range(start, stop, step)),) + shape[1:],
                              (step * strides[0],) + strides[1:],
                              start * strides[0])
        if type(key) is not tuple:
            key = (key,)
        nd = len(shape)
        # count the indices that consume axes, find the ellipsis
        consumed = 0
        ell = -1
        for i, k in enumerate(key):
            if k is None:
                continue
            if k is Ellipsis:
                if ell >= 0:
                    raise IndexError("an index can only have a single "
                                     "ellipsis ('...')")
                ell = i
                continue
            consumed += 1
        if consumed > nd:
            raise IndexError("too many indices for array: array is "
                             "%d-dimensional, but %d were indexed"
                             % (nd, consumed))
        new_shape = []
        new_strides = []
        offset = 0
        axis = 0
        for i, k in enumerate(key):
            if i == ell:
                for _ in range(nd - consumed):
                    new_shape.append(shape[axis])
                    new_strides.append(strides[axis])
                    axis += 1
                continue
            if k is None:
                new_shape.append(1)
                new_strides.append(0)
                continue
            if type(k) is slice:
                n = shape[axis]
                start, stop, step = k.indices(n)
                length = len(range(start, stop, step))
                offset += start * strides[axis]
                new_shape.append(length)
                new_strides.append(step * strides[axis])
                axis += 1
                continue
            if isinstance(k, (bool, np.bool_)):
                raise NotImplementedError("boolean scalar indexing is not "
                                          "supported by GPUArray")
            try:
                idx = _operator.index(k)
            except TypeError:
                _fancy_index_error(k)
            n = shape[axis]
            if idx < 0:
                idx += n
            if not 0 <= idx < n:
                raise IndexError("index %d is out of bounds for axis %d with "
                                 "size %d" % (_operator.index(k), axis, n))
            offset += idx * strides[axis]
            axis += 1
        while axis < nd:
            new_shape.append(shape[axis])
            new_strides.append(strides[axis])
            axis += 1
        return self._view(tuple(new_shape), tuple(new_strides), offset)

    def __setitem__(self, key, value):
        _assign(self[key], value)

    def reshape(self, *shape, order="C"):
        """Give a new shape; a view whenever numpy's reshape gives one.

        Parameters
        ----------
        *shape : int or tuple of int
            New shape; one entry may be -1.
        order : {'C', 'F', 'A'}

        Returns
        -------
        GPUArray
            A view if the strides allow it (numpy's no-copy rule), else a
            copy.

        Raises
        ------
        ValueError
            If the sizes do not match or more than one -1 is given.
        """
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        try:
            newshape = tuple(_operator.index(n) for n in shape)
        except TypeError:
            raise TypeError("shape must be ints") from None
        if order == "A":
            order = "F" if (self._f and not self._c) else "C"
        if order not in ("C", "F"):
            raise ValueError("order must be one of 'C', 'F', 'A'")
        newshape = _resolve_newshape(self.size, newshape)
        strides = self._reshape_strides(newshape, order)
        if strides is not None:
            return self._view(newshape, strides, 0)
        return self.copy(order=order).reshape(newshape, order=order)

    def _reshape_strides(self, newshape, order):
        """Strides of a reshape view to ``newshape``, or None (needs a copy)."""
        if newshape == self.shape:
            return self.strides
        isz = self.dtype.itemsize
        if order == "C" and self._c:
            return _c_strides(newshape, isz)
        if order == "F" and self._f:
            return _f_strides(newshape, isz)
        if self.size == 0:
            return _c_strides(newshape, isz) if order == "C" else \
                _f_strides(newshape, isz)
        return _nocopy_reshape_strides(self.shape, self.strides, newshape,
                                       isz, order == "F")

    def ravel(self, order="C"):
        """Flattened array: a view when possible (numpy's ``ravel``)."""
        if order == "K":
            order = "F" if (self._f and not self._c) else "C"
        return self.reshape((self.size,), order=order)

    def flatten(self, order="C"):
        """Flattened copy."""
        if order in ("A", "K"):
            order = "F" if (self._f and not self._c) else "C"
        return self.copy(order=order).reshape((self.size,), order=order)

    def transpose(self, *axes):
        """Permute the axes (a view); reverse them when none are given.

        Raises
        ------
        ValueError
            If ``axes`` is not a permutation of the axes.
        numpy.exceptions.AxisError
            For an axis out of range.
        """
        nd = len(self.shape)
        if not axes or (len(axes) == 1 and axes[0] is None):
            perm = tuple(range(nd - 1, -1, -1))
        else:
            if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
                axes = tuple(axes[0])
            if len(axes) != nd:
                raise ValueError("axes don't match array")
            perm = tuple(_normalize_axis(a, nd) for a in axes)
            if len(set(perm)) != nd:
                raise ValueError("repeated axis in transpose")
        return self._view(tuple(self.shape[p] for p in perm),
                          tuple(self.strides[p] for p in perm), 0)

    def swapaxes(self, axis1, axis2):
        """Interchange two axes (a view)."""
        nd = len(self.shape)
        a = _normalize_axis(axis1, nd)
        b = _normalize_axis(axis2, nd)
        perm = list(range(nd))
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def squeeze(self, axis=None):
        """Remove length-1 axes (a view).

        Raises
        ------
        ValueError
            If a selected axis does not have length 1.
        """
        nd = len(self.shape)
        if axis is None:
            keep = [i for i in range(nd) if self.shape[i] != 1]
        else:
            axes = axis if isinstance(axis, tuple) else (axis,)
            drop = set()
            for a in axes:
                a = _normalize_axis(a, nd)
                if a in drop:
                    raise ValueError("repeated axis")
                if self.shape[a] != 1:
                    raise ValueError("cannot select an axis to squeeze out "
                                     "which has size not equal to one")
                drop.add(a)
            keep = [i for i in range(nd) if i not in drop]
        return self._view(tuple(self.shape[i] for i in keep),
                          tuple(self.strides[i] for i in keep), 0)

    def conj(self, out=None, stream=None):
        """Complex conjugate (a copy; ``self`` values for real dtypes)."""
        return _apply("conjugate", (self,), out, stream)

    conjugate = conj

    # -- operators -----------------------------------------------------------
    def __add__(self, other):
        if (type(other) is GPUArray and other.dtype is self.dtype
                and other.shape == self.shape and self._c and other._c):
            return _same_binary("add", self, other)
        return _binop("add", self, other)

    def __radd__(self, other):
        return _binop("add", other, self)

    def __iadd__(self, other):
        return _inplace("add", self, other)

    def __sub__(self, other):
        if (type(other) is GPUArray and other.dtype is self.dtype
                and other.shape == self.shape and self._c and other._c):
            return _same_binary("subtract", self, other)
        return _binop("subtract", self, other)

    def __rsub__(self, other):
        return _binop("subtract", other, self)

    def __isub__(self, other):
        return _inplace("subtract", self, other)

    def __mul__(self, other):
        if (type(other) is GPUArray and other.dtype is self.dtype
                and other.shape == self.shape and self._c and other._c):
            return _same_binary("multiply", self, other)
        return _binop("multiply", self, other)

    def __rmul__(self, other):
        return _binop("multiply", other, self)

    def __imul__(self, other):
        return _inplace("multiply", self, other)

    def __truediv__(self, other):
        return _binop("true_divide", self, other)

    def __rtruediv__(self, other):
        return _binop("true_divide", other, self)

    def __itruediv__(self, other):
        return _inplace("true_divide", self, other)

    def __floordiv__(self, other):
        return _binop("floor_divide", self, other)

    def __rfloordiv__(self, other):
        return _binop("floor_divide", other, self)

    def __ifloordiv__(self, other):
        return _inplace("floor_divide", self, other)

    def __mod__(self, other):
        return _binop("remainder", self, other)

    def __rmod__(self, other):
        return _binop("remainder", other, self)

    def __imod__(self, other):
        return _inplace("remainder", self, other)

    def __pow__(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        return _binop("power", self, other)

    def __rpow__(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        return _binop("power", other, self)

    def __ipow__(self, other):
        return _inplace("power", self, other)

    def __and__(self, other):
        return _binop("bitwise_and", self, other)

    def __rand__(self, other):
        return _binop("bitwise_and", other, self)

    def __iand__(self, other):
        return _inplace("bitwise_and", self, other)

    def __or__(self, other):
        return _binop("bitwise_or", self, other)

    def __ror__(self, other):
        return _binop("bitwise_or", other, self)

    def __ior__(self, other):
        return _inplace("bitwise_or", self, other)

    def __xor__(self, other):
        return _binop("bitwise_xor", self, other)

    def __rxor__(self, other):
        return _binop("bitwise_xor", other, self)

    def __ixor__(self, other):
        return _inplace("bitwise_xor", self, other)

    def __lshift__(self, other):
        return _binop("left_shift", self, other)

    def __rlshift__(self, other):
        return _binop("left_shift", other, self)

    def __ilshift__(self, other):
        return _inplace("left_shift", self, other)

    def __rshift__(self, other):
        return _binop("right_shift", self, other)

    def __rrshift__(self, other):
        return _binop("right_shift", other, self)

    def __irshift__(self, other):
        return _inplace("right_shift", self, other)

    def __eq__(self, other):
        res = _binop("equal", self, other)
        if res is NotImplemented:
            return _compare_unconvertible(self, False)
        return res

    def __ne__(self, other):
        res = _binop("not_equal", self, other)
        if res is NotImplemented:
            return _compare_unconvertible(self, True)
        return res

    def __lt__(self, other):
        return _binop("less", self, other)

    def __le__(self, other):
        return _binop("less_equal", self, other)

    def __gt__(self, other):
        return _binop("greater", self, other)

    def __ge__(self, other):
        return _binop("greater_equal", self, other)

    __hash__ = None

    def __neg__(self):
        return _apply("negative", (self,))

    def __pos__(self):
        return _apply("positive", (self,))

    def __abs__(self):
        return _apply("absolute", (self,))

    def __invert__(self):
        return _apply("invert", (self,))

    def __divmod__(self, other):
        return (_binop("floor_divide", self, other),
                _binop("remainder", self, other))

    def __rdivmod__(self, other):
        return (_binop("floor_divide", other, self),
                _binop("remainder", other, self))

    # PyCUDA method names
    def mul_add(self, selffac, other, otherfac, add_timer=None, stream=None):
        """``selffac * self + otherfac * other`` (PyCUDA)."""
        return _apply("add", (_apply("multiply", (selffac, self), None, stream),
                              _apply("multiply", (otherfac, other), None, stream)),
                      None, stream)

    def __matmul__(self, other):
        return NotImplemented


type_ = type


def _rebuild(host):
    return to_gpu(host)


def _fancy_index_error(k):
    if isinstance(k, (GPUArray, np.ndarray, list)) or hasattr(k, "__cuda_array_interface__"):
        raise NotImplementedError(
            "advanced (integer-array or boolean) indexing is not supported by "
            "GPUArray yet; index with ints, slices, None and Ellipsis, or use "
            ".get() and numpy")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), "
                     "numpy.newaxis (`None`) and integer or boolean arrays are "
                     "valid indices")


def _copy_order(order, a):
    if order in ("K", "A", None):
        return "F" if (a._f and not a._c) else "C"
    if order not in ("C", "F"):
        raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)"
                         % (order,))
    return order


def _copy_into(out, src, stream=None):
    """Copy ``src`` into ``out`` (same shape), casting; memcpy when possible."""
    if not out.size:
        return
    if (out.dtype == src.dtype and ((out._c and src._c) or (out._f and src._f))
            and (out._c or out.strides == src.strides)):
        d = _need_driver()
        if stream is None:
            d.memcpy_dtod(out.ptr, src.ptr, out.nbytes)
        else:
            d.memcpy_dtod_async(out.ptr, src.ptr, out.nbytes, stream)
        return
    _elementwise().run_elementwise("copy", [out], [src], stream=stream)


# ---------------------------------------------------------------------------
# element-wise dispatch

_WEAK = (bool, int, float, complex)
_COMPARISONS = frozenset(("equal", "not_equal", "less", "less_equal",
                          "greater", "greater_equal"))
_RESOLVED = {}


class _Unsupported(Exception):
    pass


def _as_operand(x):
    """Normalize one operand: GPUArray, weak Python scalar or numpy scalar."""
    t = type(x)
    if t is GPUArray or t in _WEAK:
        return x
    if isinstance(x, GPUArray):
        return x
    if isinstance(x, np.generic):
        _dtype(x.dtype)
        return x
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            _dtype(x.dtype)
            return x[()]
        return to_gpu(x)
    if isinstance(x, _WEAK):  # subclasses of int/float/complex
        for w in _WEAK[::-1]:
            if isinstance(x, w):
                return w(x)
    if hasattr(x, "__cuda_array_interface__"):
        return asarray(x)
    if isinstance(x, (list, tuple)):
        return _as_operand(np.asarray(x))
    raise _Unsupported(t)


def _key(x):
    t = type(x)
    if t in _WEAK:
        return t
    return x.dtype


def _resolve(op, operands):
    key = [op]
    for x in operands:
        key.append(_key(x))
    key = tuple(key)
    res = _RESOLVED.get(key)
    if res is None:
        try:
            loop, outs = _elementwise().resolve(op, *operands)
        except OverflowError:
            if op not in _COMPARISONS:
                raise
            # numpy 2 compares integer arrays with any Python int; only the
            # dtypes matter here, the values are handled by _apply
            loop, outs = _elementwise().resolve(
                op, *[0 if type(x) is int else x for x in operands])
        res = (tuple(np.dtype(d) for d in loop), tuple(np.dtype(d) for d in outs))
        _RESOLVED[key] = res
    return res


def _apply(op, args, out=None, stream=None, casting="same_kind"):
    """Run ``op`` on ``args`` with numpy's promotion, broadcasting and casting.

    Returns the output array (``out`` if given). Raises TypeError /
    OverflowError / ValueError before any launch for bad operands.
    """
    res = _hot_apply(op, args, out, stream)
    if res is not None:
        return res
    if out is None:
        res = _fast(op, args, stream)
        if res is not None:
            return res
    ops = []
    for x in args:
        ops.append(_as_operand(x))
    loop, outs = _resolve(op, ops)
    shapes = [x.shape for x in ops if type(x) is GPUArray]
    if not shapes:
        raise TypeError("%s: at least one operand must be a GPUArray" % op)
    shape = shapes[0]
    for s in shapes:
        if s != shape:
            shape = _broadcast_shapes(*shapes)
            break
    res_dt = outs[0]
    if out is not None:
        if type(out) is not GPUArray and not isinstance(out, GPUArray):
            if isinstance(out, tuple) and len(out) == 1:
                out = out[0]
            if not isinstance(out, GPUArray):
                raise TypeError("out must be a GPUArray")
        if out.shape != shape:
            try:
                full_shape = _broadcast_shapes(out.shape, shape)
            except ValueError:
                full_shape = None
            if full_shape != out.shape:
                raise ValueError("non-broadcastable output operand with shape "
                                 "%s doesn't match the broadcast shape %s"
                                 % (_shape_str(out.shape), _shape_str(shape)))
            shape = out.shape
        if out.dtype != res_dt and not np.can_cast(res_dt, out.dtype, casting):
            raise _casting_error(op, res_dt, out.dtype)
    # scalars go to run_elementwise as they are: it converts them to the
    # loop dtype with numpy's range checks (OverflowError; exact comparisons
    # of integer arrays with out-of-range Python ints)
    inputs = ops
    if out is None:
        arrays = [x for x in ops if type(x) is GPUArray]
        if arrays and all(a._f and not a._c for a in arrays) \
                and all(a.shape == shape for a in arrays):
            out = GPUArray(shape, res_dt, order="F")
        else:
            out = _empty_c(shape, res_dt)
    elif out.size:
        # inputs that overlap ``out`` in another layout are copied first
        for i, x in enumerate(inputs):
            if type(x) is GPUArray and x.size and _overlaps(x, out) and not (
                    x.ptr == out.ptr and x.strides == out.strides
                    and x.shape == out.shape):
                inputs[i] = x.copy(stream=stream)
    # size 0 still goes to run_elementwise: it launches nothing but raises
    # numpy's value errors (uint8 + 300)
    for i, x in enumerate(inputs):
        if type(x) is GPUArray and x.shape != shape:
            inputs[i] = _broadcast_view(x, shape)
    _elementwise().run_elementwise(op, [out], inputs, loop_dtypes=loop,
                                   stream=stream)
    return out


def _fast(op, args, stream):
    """Fast path: C-contiguous GPUArrays of one shape and weak Python scalars
    whose resolution is cached; None when it does not apply."""
    shape = None
    key = [op]
    for x in args:
        t = type(x)
        if t is GPUArray:
            if not x._c:
                return None
            if shape is None:
                shape = x.shape
            elif x.shape != shape:
                return None
            key.append(x.dtype)
        elif t in _WEAK:
            key.append(t)
        else:
            return None
    if shape is None:
        return None
    res = _RESOLVED.get(tuple(key))
    if res is None or _EW is None:
        return None
    out = _empty_c(shape, res[1][0])
    _EW.run_elementwise(op, [out], args if type(args) is list else list(args),
                        loop_dtypes=res[0], stream=stream)
    return out


def _overlaps(a, b):
    alo, ahi = _extent(a.shape, a.strides, a.dtype.itemsize)
    blo, bhi = _extent(b.shape, b.strides, b.dtype.itemsize)
    return a.ptr + alo < b.ptr + bhi and b.ptr + blo < a.ptr + ahi


def _broadcast_view(x, shape):
    strides = _broadcast_strides(x.shape, x.strides, shape)
    return x._view(shape, strides, 0)


# ---------------------------------------------------------------------------
# the steady-state path of small operations
#
# Operands that are C-contiguous GPUArrays of one non-empty shape at 16-byte
# aligned addresses, with a result allocated here (or an ``out=`` of the same
# kind): a hit is one dict lookup on (op, dtypes..., shape), one identity check
# of the current context, a pool pop, a GPUArray built without validation and
# one prepared launch.  The entry holds everything else:
# (context, pool, function, grid, block, tail, out dtype, nbytes, strides,
#  size, f_contiguous).

_HOT = {}
_HOT_MAX = 4096


def _forget_hot(ctx):
    # entries hold their context, its pool and its kernels: drop them all
    # when any context is detached (they are rebuilt on demand)
    _HOT.clear()
    _HOT_VIEWS.clear()


_percontext.on_detach(_forget_hot)
_get_current = drv.Context.get_current if drv is not None else None


def _hot_entry(key, op, arrays, loop, out_dt):
    """Build and remember the hot entry of ``key`` (None when unavailable)."""
    if _get_current is None:
        return None
    ctx = _get_current()
    if ctx is None:
        return None
    ew = _elementwise()
    shape = arrays[0].shape
    fn, grid, block, tail = ew.contiguous_plan(
        op, loop, out_dt, tuple(x.dtype for x in arrays), shape)
    size = _prod(shape)
    isz = out_dt.itemsize
    nontrivial = 0
    for n in shape:
        if n != 1:
            nontrivial += 1
    strides = _c_strides(shape, isz) if len(shape) != 1 else (isz,)
    ent = (ctx, _default_pool(), fn, grid, block, tail, out_dt, size * isz,
           strides, size, nontrivial <= 1)
    if len(_HOT) >= _HOT_MAX:
        _HOT.clear()
    _HOT[key] = ent
    return ent


def _hot_out(ent, shape):
    """A new C-ordered array from the entry's pool (no validation)."""
    gpudata = ent[1].allocate(ent[7])
    a = _new(GPUArray)
    a.shape = shape
    a.dtype = ent[6]
    a.strides = ent[8]
    a.size = ent[9]
    a.ptr = gpudata.ptr
    a.gpudata = gpudata
    a.base = None
    a._c = True
    a._f = ent[10]
    a.allocator = None
    return a


def _same_binary(op, a, b):
    """Fast path: same shape, same dtype, both C-contiguous GPUArrays."""
    shape = a.shape
    ent = _HOT.get((op, a.dtype, shape))
    if ent is not None and ent[0] is _get_current() and not (a.ptr | b.ptr) & 15:
        out = _hot_out(ent, shape)
        ent[2].prepared_async_call(ent[3], ent[4], None, out.ptr, a.ptr, b.ptr,
                                   *ent[5])
        return out
    key = (op, a.dtype, a.dtype)
    res = _RESOLVED.get(key)
    if res is None:
        res = _resolve(op, (a, b))
    loop, outs = res
    dt = outs[0]
    if a.size and not (a.ptr | b.ptr) & 15:
        ent = _hot_entry((op, a.dtype, shape), op, (a, b), loop, dt)
        if ent is not None:
            out = _hot_out(ent, shape)
            ent[2].prepared_async_call(ent[3], ent[4], None, out.ptr, a.ptr,
                                       b.ptr, *ent[5])
            return out
    out = _empty_c(shape, dt)
    if a.size:
        _elementwise().run_elementwise(op, [out], [a, b], loop_dtypes=loop)
    return out


def _hot_apply(op, args, out, stream):
    """The steady-state path of :func:`_apply` for GPUArray operands only:
    the result, or None when it does not apply (the general path then
    runs)."""
    if _get_current is None:
        return None
    key = [op]
    shape = None
    align = 0
    for x in args:
        if type(x) is not GPUArray:
            return None
        if not x._c:
            return _hot_views(op, args, out, stream)
        if shape is None:
            shape = x.shape
        elif x.shape != shape:
            return None
        align |= x.ptr
        key.append(x.dtype)
    if shape is None or align & 15:
        return None
    key.append(shape)
    key = tuple(key)
    ent = _HOT.get(key)
    if ent is None or ent[0] is not _get_current():
        res = _RESOLVED.get(tuple(key[:-1]))
        if res is None or not _prod(shape):
            return None
        ent = _hot_entry(key, op, args, res[0], res[1][0])
        if ent is None:
            return None
    if out is None:
        out = _hot_out(ent, shape)
    else:
        # the same result dtype, shape and C layout; an input may be ``out``
        # itself but must not overlap it otherwise
        if (type(out) is not GPUArray or out.dtype is not ent[6]
                or out.shape != shape or not out._c or out.ptr & 15):
            return None
        o0 = out.ptr
        o1 = o0 + ent[7]
        for x in args:
            p = x.ptr
            if p != o0 and p < o1 and o0 < p + x.size * x.dtype.itemsize:
                return None
    ent[2].prepared_async_call(ent[3], ent[4], stream, out.ptr,
                               *[x.ptr for x in args], *ent[5])
    return out


# The steady-state path of operands in other layouts (slices, transposes,
# reversed views) of one shape, all GPUArrays: the entry of (op, shape, and
# each operand's dtype, strides and address modulo 16) holds
# (context, function, grid, block, tail, each input's byte extent and
#  whether it has the output's strides, the output's extent; and for a
#  result allocated here: pool, dtype, nbytes, strides, size, c, f).

_HOT_VIEWS = {}


def _hot_views_entry(key, op, args, out):
    ctx = _get_current()
    if ctx is None:
        return None
    res = _RESOLVED.get((op,) + tuple(x.dtype for x in args))
    if res is None:
        return None
    loop, outs = res
    res_dt = outs[0]
    shape = args[0].shape
    size = _prod(shape)
    if not size:
        return None
    alloc = None
    if out is None:
        # numpy's layout of the result: Fortran order when every input is
        # F- and not C-contiguous, else C order (an allocation is 16-byte
        # aligned, as the stand-in's address 0 says)
        f_order = all(x._f and not x._c for x in args)
        isz = res_dt.itemsize
        strides = _f_strides(shape, isz) if f_order else _c_strides(shape, isz)
        nontrivial = sum(1 for n in shape if n != 1)
        alloc = (_default_pool(), res_dt, size * isz, strides, size,
                 not f_order or nontrivial <= 1, f_order or nontrivial <= 1)
        target = _LayoutOnly(0, res_dt, shape, strides)
    else:
        if out.dtype != res_dt:
            return None
        target = out
    fn, grid, block, tail = _elementwise().array_plan(op, loop, [target],
                                                      list(args))
    olo, ohi = _extent(shape, target.strides, res_dt.itemsize)
    exts = tuple(_extent(shape, x.strides, x.dtype.itemsize)
                 + (x.strides == target.strides,) for x in args)
    ent = (ctx, fn, grid, block, tail, exts, olo, ohi, alloc)
    if len(_HOT_VIEWS) >= _HOT_MAX:
        _HOT_VIEWS.clear()
    _HOT_VIEWS[key] = ent
    return ent


class _LayoutOnly:
    """The layout of an array not yet allocated, for planning."""

    __slots__ = ("ptr", "dtype", "shape", "strides")

    def __init__(self, ptr, dtype, shape, strides):
        self.ptr = ptr
        self.dtype = dtype
        self.shape = shape
        self.strides = strides


def _hot_views(op, args, out, stream):
    """:func:`_hot_apply` for GPUArrays of one shape in any layout; None
    when it does not apply.  An input overlapping ``out`` other than as the
    very same elements (in place) goes to the general path, which copies
    it first."""
    shape = args[0].shape
    key = [op, shape]
    for x in args:
        if type(x) is not GPUArray or x.shape != shape:
            return None
        key.append(x.dtype)
        key.append(x.strides)
        key.append(x.ptr & 15)
    if out is not None:
        if type(out) is not GPUArray or out.shape != shape:
            return None
        key.append(out.dtype)
        key.append(out.strides)
        key.append(out.ptr & 15)
    key = tuple(key)
    ent = _HOT_VIEWS.get(key)
    if ent is None or ent[0] is not _get_current():
        ent = _hot_views_entry(key, op, args, out)
        if ent is None:
            return None
    if out is None:
        pool, dt, nbytes, strides, size, c, f = ent[8]
        gpudata = pool.allocate(nbytes)
        out = _new(GPUArray)
        out.shape = shape
        out.dtype = dt
        out.strides = strides
        out.size = size
        out.ptr = gpudata.ptr
        out.gpudata = gpudata
        out.base = None
        out._c = c
        out._f = f
        out.allocator = None
    else:
        o = out.ptr
        olo = o + ent[6]
        ohi = o + ent[7]
        for x, (lo, hi, same) in zip(args, ent[5]):
            p = x.ptr
            if p + lo < ohi and olo < p + hi and not (same and p == o):
                return None
    ent[1].prepared_async_call(ent[2], ent[3], stream, out.ptr,
                               *[x.ptr for x in args], *ent[4])
    return out


def _compare_unconvertible(a, value):
    """``a == x`` / ``a != x`` for an ``x`` that is no array or number
    (``None``, a string, any object): numpy compares elementwise, every
    element unequal, so the result is ``a``'s shape filled with ``value``
    (a bool array; memset only, no kernel)."""
    out = _empty_c(a.shape, np.dtype(bool))
    if out.size:
        out.fill(value)
    return out


def _binop(op, a, b):
    res = _hot_apply(op, (a, b), None, None)
    if res is not None:
        return res
    res = _fast(op, [a, b], None)
    if res is not None:
        return res
    try:
        return _apply(op, (a, b))
    except _Unsupported:
        return NotImplemented


def _inplace(op, self, other):
    try:
        return _apply(op, (self, other), out=self)
    except _Unsupported:
        return NotImplemented


def _ufunc(op, nin, doc):
    if nin == 1:
        def f(x, out=None, stream=None):
            return _apply(op, (x,), out, stream)
    elif nin == 2:
        def f(x1, x2, out=None, stream=None):
            return _apply(op, (x1, x2), out, stream)
    else:
        def f(*args, out=None, stream=None):
            if len(args) != nin:
                raise TypeError("%s takes %d arguments" % (op, nin))
            return _apply(op, args, out, stream)
    f.__name__ = f.__qualname__ = op
    f.__doc__ = """%s

    Parameters
    ----------
    %s : GPUArray or scalar
        Operands; broadcast together by numpy's rules. Python scalars are
        "weak" (NEP 50): they take the array's dtype.
    out : GPUArray, optional
        Destination with the broadcast shape; the result is cast to its dtype
        under ``same_kind`` casting.
    stream : gpuarr.driver.Stream, optional

    Returns
    -------
    GPUArray
        ``out`` if given, else a new array of numpy's result dtype.

    Raises
    ------
    TypeError
        If numpy has no loop for the dtypes, or the result cannot be cast to
        ``out`` (``UFuncTypeError``).
    OverflowError
        If a Python int operand does not fit the array's integer dtype.
    ValueError
        If the shapes do not broadcast.
    """ % (doc, ", ".join("x%d" % (i + 1) for i in range(nin)) if nin > 1 else "x")
    return f


add = _ufunc("add", 2, "Element-wise ``x1 + x2`` (numpy.add).")
subtract = _ufunc("subtract", 2, "Element-wise ``x1 - x2`` (numpy.subtract).")
multiply = _ufunc("multiply", 2, "Element-wise ``x1 * x2`` (numpy.multiply).")
true_divide = _ufunc("true_divide", 2, "Element-wise ``x1 / x2`` (numpy.true_divide).")
divide = true_divide
floor_divide = _ufunc("floor_divide", 2, "Element-wise ``x1 // x2`` (numpy.floor_divide).")
remainder = _ufunc("remainder", 2, "Element-wise ``x1 % x2``, sign of x2 (numpy.remainder).")
mod = remainder
power = _ufunc("power", 2, "Element-wise ``x1 ** x2`` (numpy.power).")
negative = _ufunc("negative", 1, "Element-wise ``-x`` (numpy.negative).")
positive = _ufunc("positive", 1, "Element-wise ``+x`` (numpy.positive).")
absolute = _ufunc("absolute", 1, "Element-wise ``abs(x)`` (numpy.absolute).")
abs = absolute
invert = _ufunc("invert", 1, "Element-wise ``~x`` (numpy.invert).")
bitwise_not = invert
bitwise_and = _ufunc("bitwise_and", 2, "Element-wise ``x1 & x2``.")
bitwise_or = _ufunc("bitwise_or", 2, "Element-wise ``x1 | x2``.")
bitwise_xor = _ufunc("bitwise_xor", 2, "Element-wise ``x1 ^ x2``.")
left_shift = _ufunc("left_shift", 2, "Element-wise ``x1 << x2``.")
right_shift = _ufunc("right_shift", 2, "Element-wise ``x1 >> x2``.")
equal = _ufunc("equal", 2, "Element-wise ``x1 == x2`` (bool result).")
not_equal = _ufunc("not_equal", 2, "Element-wise ``x1 != x2`` (bool result).")
less = _ufunc("less", 2, "Element-wise ``x1 < x2`` (bool result).")
less_equal = _ufunc("less_equal", 2, "Element-wise ``x1 <= x2`` (bool result).")
greater = _ufunc("greater", 2, "Element-wise ``x1 > x2`` (bool result).")
greater_equal = _ufunc("greater_equal", 2, "Element-wise ``x1 >= x2`` (bool result).")
logical_and = _ufunc("logical_and", 2, "Element-wise logical and (bool result).")
logical_or = _ufunc("logical_or", 2, "Element-wise logical or (bool result).")
logical_xor = _ufunc("logical_xor", 2, "Element-wise logical xor (bool result).")
logical_not = _ufunc("logical_not", 1, "Element-wise logical not (bool result).")


# ---------------------------------------------------------------------------
# assignment and fill

def _fill(a, value, stream=None):
    if not a.size:
        return
    if isinstance(value, GPUArray) or hasattr(value, "__cuda_array_interface__"):
        _assign(a, value, stream)
        return
    if isinstance(value, np.ndarray):
        if value.ndim:
            _assign(a, value, stream)
            return
        value = value[()]
    scalar = a.dtype.type(value)
    if (a._c or a._f) and stream is None:
        bits = np.array(scalar).view("u%d" % a.dtype.itemsize) \
            if a.dtype.itemsize <= 8 else None
        d = _need_driver()
        if bits is not None:
            b = int(bits)
            isz = a.dtype.itemsize
            if b == 0:
                d.memset_d8(a.ptr, 0, a.nbytes)
                return
            if isz == 1:
                d.memset_d8(a.ptr, b, a.size)
                return
            if isz == 2:
                d.memset_d16(a.ptr, b, a.size)
                return
            if isz == 4:
                d.memset_d32(a.ptr, b, a.size)
                return
    _elementwise().run_elementwise("copy", [a], [scalar], stream=stream)


def _assign(dst, value, stream=None):
    """``dst[...] = value`` with numpy's broadcasting and unsafe casting."""
    if isinstance(value, GPUArray) or (not isinstance(value, np.ndarray)
                                       and hasattr(value, "__cuda_array_interface__")):
        src = asarray(value)
    elif isinstance(value, (np.ndarray, list, tuple)):
        # Python numbers convert with numpy's checks (300 into uint8 raises
        # OverflowError, NaN into an int raises ValueError); arrays cast as
        # numpy's setitem casts them.
        host = (value if isinstance(value, np.ndarray)
                else np.asarray(value, dtype=dst.dtype))
        if host.ndim == 0:
            _fill(dst, host[()], stream)
            return
        _dtype(host.dtype) if host.dtype.kind != "O" else None
        host = host.astype(dst.dtype, copy=False)
        if host.shape == dst.shape and (dst._c or dst._f) and dst.size:
            dst.set(host, async_=stream is not None, stream=stream)
            return
        _value_shape(host.shape, dst.shape)     # refuse before any copy
        src = to_gpu(host)
    else:
        _fill(dst, value, stream)
        return
    shape = _value_shape(src.shape, dst.shape)
    if len(shape) < len(src.shape):     # extra leading length-1 axes dropped
        src = src._view(shape, src.strides[len(src.shape) - len(shape):], 0)
    if shape != dst.shape:
        src = src._view(dst.shape, _broadcast_strides(shape, src.strides, dst.shape), 0)
    if not dst.size:
        return
    if src.ptr == dst.ptr and src.strides == dst.strides and src.dtype == dst.dtype:
        return
    if src.size and _overlaps(src, dst):
        src = src.copy(stream=stream)
    _copy_into(dst, src, stream)


def fill(a, value, stream=None):
    """Set every element of ``a`` to ``value``; returns ``a``."""
    return a.fill(value, stream=stream)


# ---------------------------------------------------------------------------
# creation

def empty(shape, dtype=np.float64, order="C", allocator=None):
    """Uninitialized array (numpy.empty; default dtype float64).

    Raises
    ------
    TypeError
        For an unsupported dtype.
    ValueError
        For negative dimensions or an unknown ``order``.
    """
    return GPUArray(shape, dtype, allocator=allocator, order=order)


def _empty_c(shape, dt):
    """C-ordered new array; ``shape`` a trusted tuple, ``dt`` canonical."""
    isz = dt.itemsize
    size = 1
    nontrivial = 0
    for n in shape:
        size *= n
        if n != 1:
            nontrivial += 1
    if size:
        gpudata = _default_allocator(size * isz)
        ptr = int(gpudata)
        strides = _c_strides(shape, isz) if len(shape) != 1 else (isz,)
    else:
        gpudata = None
        ptr = 0
        strides = (0,) * len(shape)
    a = _new(GPUArray)
    a.shape = shape
    a.dtype = dt
    a.strides = strides
    a.size = size
    a.ptr = ptr
    a.gpudata = gpudata
    a.base = None
    a._c = True
    a._f = nontrivial <= 1 or not size
    a.allocator = None
    return a


def zeros(shape, dtype=np.float64, order="C", allocator=None):
    """Array of zeros (numpy.zeros)."""
    a = empty(shape, dtype, order=order, allocator=allocator)
    if a.size:
        _need_driver().memset_d8(a.ptr, 0, a.nbytes)
    return a


def ones(shape, dtype=np.float64, order="C", allocator=None):
    """Array of ones (numpy.ones)."""
    a = empty(shape, dtype, order=order, allocator=allocator)
    _fill(a, 1)
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
    _fill(a, fill_value)
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

    Raises
    ------
    TypeError
        For an unsupported dtype (object, strings, datetimes, ...).
    """
    ary = np.asarray(ary)
    _dtype(ary.dtype)
    order = "C"
    if not ary.flags.c_contiguous:
        if ary.flags.f_contiguous:
            order = "F"
        else:
            ary = np.ascontiguousarray(ary)
    a = GPUArray(ary.shape, ary.dtype, allocator=allocator, order=order)
    if a.size:
        _need_driver().memcpy_htod(a.ptr, ary.T if order == "F" else ary)
    return a


def to_gpu_async(ary, allocator=None, stream=None):
    """Like :func:`to_gpu`, enqueued on ``stream`` (pinned ``ary`` to overlap)."""
    ary = np.asarray(ary)
    _dtype(ary.dtype)
    order = "C"
    if not ary.flags.c_contiguous:
        if ary.flags.f_contiguous:
            order = "F"
        else:
            ary = np.ascontiguousarray(ary)
    a = GPUArray(ary.shape, ary.dtype, allocator=allocator, order=order)
    if a.size:
        _need_driver().memcpy_htod_async(a.ptr, ary.T if order == "F" else ary,
                                         stream)
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
    N = _operator.index(N)
    M = _operator.index(M)
    k = _operator.index(k)
    a = zeros((N, M), dtype, order=order)
    if k >= 0:
        n = min(N, M - k)
        off = k * a.strides[1]
    else:
        n = min(N + k, M)
        off = -k * a.strides[0]
    if n > 0:
        diag = a._view((n,), (a.strides[0] + a.strides[1],), off)
        _fill(diag, 1)
    return a


def astype(a, dtype, copy=True):
    """Function form of :meth:`GPUArray.astype`."""
    return a.astype(dtype, copy=copy)


def reshape(a, shape, order="C"):
    """Function form of :meth:`GPUArray.reshape`."""
    return a.reshape(shape, order=order)


def ravel(a, order="C"):
    """Function form of :meth:`GPUArray.ravel`."""
    return a.ravel(order=order)


def transpose(a, axes=None):
    """Function form of :meth:`GPUArray.transpose`."""
    return a.transpose() if axes is None else a.transpose(axes)


def swapaxes(a, axis1, axis2):
    """Function form of :meth:`GPUArray.swapaxes`."""
    return a.swapaxes(axis1, axis2)


def squeeze(a, axis=None):
    """Function form of :meth:`GPUArray.squeeze`."""
    return a.squeeze(axis)


def expand_dims(a, axis):
    """Insert length-1 axes at ``axis`` (numpy.expand_dims; a view).

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range of the result.
    ValueError
        For repeated axes.
    """
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    nd = a.ndim + len(axes)
    norm = [_normalize_axis(x, nd) for x in axes]
    if len(set(norm)) != len(norm):
        raise ValueError("repeated axis")
    it = iter(a.shape)
    shape = tuple(1 if i in norm else next(it) for i in range(nd))
    return a.reshape(shape)


def broadcast_to(a, shape):
    """A read-only-in-spirit view of ``a`` broadcast to ``shape`` (numpy's).

    Raises
    ------
    ValueError
        If ``a`` cannot be broadcast to ``shape``.
    """
    a = asarray(a)
    shape = _normalize_shape(shape)
    if len(shape) < a.ndim:
        raise ValueError("input operand has more dimensions than allowed by "
                         "the axis remapping")
    try:
        strides = _broadcast_strides(a.shape, a.strides, shape)
    except ValueError:
        raise ValueError("operands could not be broadcast together with "
                         "remapped shapes [original->remapped]: %s and "
                         "requested shape %s" % (_shape_str(a.shape),
                                                 _shape_str(shape))) from None
    return a._view(shape, strides, 0)


GPUArray.broadcast_to = broadcast_to


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
            a = _from_cai(obj, cai)
        else:
            a = to_gpu(np.asarray(obj, dtype=dtype))
    if dtype is not None and _dtype(dtype) != a.dtype:
        a = a.astype(dtype)
    return a


def _from_cai(obj, cai):
    version = cai.get("version", 0)
    if version > 3:
        raise ValueError("unsupported __cuda_array_interface__ version %r"
                         % (version,))
    if cai.get("mask") is not None:
        raise ValueError("masked __cuda_array_interface__ is not supported")
    dtype = _dtype(np.dtype(cai["typestr"]))
    shape = tuple(int(n) for n in cai["shape"])
    strides = cai.get("strides")
    if strides is None:
        strides = _c_strides(shape, dtype.itemsize)
    else:
        strides = tuple(int(s) for s in strides)
    ptr = int(cai["data"][0])
    stream = cai.get("stream")
    if stream is not None and stream != 1 and _prod(shape):
        if stream == 0:
            raise ValueError("__cuda_array_interface__ stream 0 is not allowed")
        _need_driver().Context.synchronize()
    c, f = _contiguity(shape, strides, dtype.itemsize)
    return _make(shape, dtype, strides, ptr, ptr, obj, c, f)


def from_dlpack(x, *, device=None, copy=None):
    """Wrap a DLPack producer (``__dlpack__``) or capsule without a copy.

    Raises
    ------
    BufferError
        If the tensor is not in CUDA device memory or has an unsupported dtype.
    """
    from ._dlpack import from_dlpack as _fd
    a = _fd(x)
    if copy:
        a = a.copy()
    return a


# Reductions and scans as methods (numpy's ndarray methods). They live in
# upper modules that import this one, so they are bound here lazily; the
# module is looked up once and kept, so a call costs no import machinery.
_upper = {}


def _delegate(module, name):
    def method(self, *args, **kwargs):
        mod = _upper.get(module)
        if mod is None:
            import importlib
            mod = _upper[module] = importlib.import_module("gpuarr." + module)
        return getattr(mod, name)(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = ("Same as ``gpuarr.%s(self, ...)``: see "
                      ":func:`gpuarr.%s.%s`." % (name, module, name))
    return method


for _name in ("sum", "prod", "mean", "var", "std", "max", "min", "argmax",
              "argmin", "any", "all", "ptp", "dot", "nansum", "nanmax", "nanmin"):
    setattr(GPUArray, _name, _delegate("reductions", _name))
for _name in ("cumsum", "cumprod"):
    setattr(GPUArray, _name, _delegate("cumulative", _name))
del _name
