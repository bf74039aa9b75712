"""The :class:`GPUArray` class (layer 5, the base of the array layer).

A thin class: its attributes, the views it makes from its own strides
(reshape, transpose, squeeze, real/imag, dtype views), the numpy protocol
guards, and methods that hand the work to the array layer's routine
modules, one concern each:

==================  ====================================================
``_transfer``       host <-> device copies, ``copy``, ``astype``, ``fill``
``_indexing``       ``__getitem__`` / ``__setitem__``
``_ufunc``          operators: promotion, broadcasting, the fast paths
``_creation``       new arrays (``empty``, ``zeros_like``, ...)
``_interop``        the CUDA Array Interface and DLPack
``reductions``      ``sum``, ``max``, ``argmax``, ... (numpy's methods)
``cumulative``      ``cumsum``, ``cumprod``
``_pyreduce``       ``any``/``all`` with PyCUDA's ``stream``/``allocator``
``_pymethods``      PyCUDA's ``reverse``, ``mul_add``, ``_new_like_me``...
==================  ====================================================

The operator methods are generated from one table (:data:`_BINARY` and
:data:`_UNARY`). The routine modules import this one; this one refers to
them only when a method runs, so they may be imported in any order.

Strides are in bytes and may be negative or zero, exactly like numpy's; the
address of element ``[0, ..., 0]`` is ``ptr``.  Building an array touches no
driver when ``gpudata`` is given, so all of the layout logic is checkable
without a GPU on arrays made with ``GPUArray(shape, dtype, gpudata=<int>)``.
"""

from __future__ import annotations

import operator as _operator
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from . import _dtypes, _layout
from . import driver as _drv
from .tools import default_pool as _default_pool

__all__ = ["GPUArray", "make", "default_allocator"]

_new = object.__new__


def make(shape, dtype, strides, ptr, gpudata, base, c, f, allocator=None,
         size=None):
    """A GPUArray from trusted parts, without validation (the fast path of
    views and of results the array layer allocates itself).

    Parameters
    ----------
    shape, strides : tuple of int
    dtype : numpy.dtype
        Canonical (:func:`gpuarr._dtypes.canonical`).
    ptr : int
        Address of element ``[0, ..., 0]``.
    gpudata : allocation, int or None
    base : object or None
    c, f : bool
        C- and F-contiguity (:func:`gpuarr._layout.contiguity`).
    allocator : callable or None
    size : int, optional
        ``prod(shape)`` when the caller has it (the steady-state paths).
    """
    a = _new(GPUArray)
    a.shape = shape
    a.dtype = dtype
    a.strides = strides
    a.size = _layout.prod(shape) if size is None else size
    a.ptr = ptr
    a.gpudata = gpudata
    a.base = base
    a._c = c
    a._f = f
    a.allocator = allocator
    return a


def default_allocator(nbytes):
    """Allocate ``nbytes`` from the current context's pool
    (:func:`gpuarr.tools.default_pool`)."""
    return _default_pool().allocate(nbytes)


if TYPE_CHECKING:
    from ._arraytypes import GeneratedMembers as _Declared
else:
    _Declared = object


class GPUArray(_Declared):
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
        device address; default the current context's pool
        (:func:`gpuarr.tools.default_pool`). Ignored when ``gpudata`` is
        given.
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
    PyCUDA's ``GPUArray`` has the same constructor; numpy's semantics win
    where the two differ (NEP 50 promotion, views from basic indexing and
    ``reshape``, broadcasting in every operator, ``same_kind`` casting for
    in-place operators and ``out=``).
    """

    __slots__ = ("shape", "dtype", "size", "strides", "ptr", "gpudata",
                 "base", "allocator", "_c", "_f", "__weakref__")

    # __array_ufunc__ and __array_function__: gpuarr._protocols (below)
    __array_priority__ = 100

    def __init__(self, shape, dtype, allocator=None, base=None, gpudata=None,
                 strides=None, order="C"):
        shape = _layout.normalize_shape(shape)
        dtype = _dtypes.canonical(dtype)
        itemsize = dtype.itemsize
        if strides is None:
            if order == "C" or order is None:
                strides = _layout.c_strides(shape, itemsize)
            elif order == "F":
                strides = _layout.f_strides(shape, itemsize)
            else:
                raise ValueError("order must be 'C' or 'F', got %r" % (order,))
        else:
            strides = tuple(_operator.index(s) for s in strides)
            if len(strides) != len(shape):
                raise ValueError("strides has %d entries for %d dimensions"
                                 % (len(strides), len(shape)))
        size = _layout.prod(shape)
        if gpudata is None:
            if size:
                lo, hi = _layout.extent(shape, strides, itemsize)
                if lo < 0:
                    raise ValueError("negative strides need gpudata (the "
                                     "array would start before its memory)")
                if allocator is None:
                    allocator = default_allocator
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
        self._c, self._f = _layout.contiguity(shape, strides, itemsize)

    # -- attributes --------------------------------------------------------
    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """``size * itemsize``."""
        return self.size * self.dtype.itemsize

    @property
    def mem_size(self) -> int:
        """Number of elements spanned in memory (``size`` when contiguous)."""
        if self._c or self._f:
            return self.size
        lo, hi = _layout.extent(self.shape, self.strides, self.dtype.itemsize)
        return (hi - lo) // self.dtype.itemsize

    @property
    def flags(self) -> _layout.Flags:
        """numpy-like flags (``owndata`` is False when ``base`` is set)."""
        return _layout.Flags(self._c, self._f, self.base is None)

    @property
    def T(self) -> GPUArray:
        """The transposed view (``transpose()``)."""
        return self.transpose()

    @property
    def real(self) -> GPUArray:
        """Real part: a view for complex dtypes, ``self`` otherwise."""
        if self.dtype.kind != "c":
            return self
        dt = np.dtype("f%d" % (self.dtype.itemsize // 2))
        return self._view(self.shape, self.strides, 0, dt)

    @property
    def imag(self) -> GPUArray:
        """Imaginary part: a view for complex dtypes, zeros otherwise."""
        if self.dtype.kind != "c":
            return _creation.zeros_like(self)
        dt = np.dtype("f%d" % (self.dtype.itemsize // 2))
        return self._view(self.shape, self.strides, dt.itemsize, dt)

    @property
    def device(self) -> _drv.Device:
        """The Device holding the memory (the current one's when empty)."""
        return _drv.Device(_interop.dlpack_device(self)[1])

    def _view(self, shape, strides, offset, dtype=None):
        """A view sharing memory, ``offset`` bytes from ``ptr``."""
        dtype = self.dtype if dtype is None else dtype
        c, f = _layout.contiguity(shape, strides, dtype.itemsize)
        base = self if self.base is None else self.base
        ptr = self.ptr + offset
        return make(shape, dtype, strides, ptr, ptr, base, c, f,
                    self.allocator)

    # -- numpy protocol guards ---------------------------------------------
    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        raise TypeError("a GPUArray lives in device memory and is not "
                        "implicitly converted to a numpy array; use .get()")

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Iterator[GPUArray]:
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __bool__(self) -> bool:
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

    def __int__(self) -> int:
        return int(self._scalar())

    def __float__(self) -> float:
        return float(self._scalar())

    def __complex__(self) -> complex:
        return complex(self._scalar())

    def __index__(self) -> int:
        if self.ndim or self.dtype.kind not in "biu":
            raise TypeError("only integer scalar arrays can be converted to a "
                            "scalar index")
        return _operator.index(self._scalar())

    def item(self) -> Any:
        """Copy the only element to a Python scalar."""
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a "
                             "Python scalar")
        return self._scalar().item()

    def __repr__(self) -> str:
        return repr(self.get())

    def __str__(self) -> str:
        return str(self.get())

    def __format__(self, spec: str) -> str:
        return format(self.get(), spec)

    def __reduce__(self):
        return (_creation.to_gpu, (self.get(),))

    def __deepcopy__(self, memo):
        return self.copy()

    # -- interop -----------------------------------------------------------
    @property
    def __cuda_array_interface__(self):
        """CUDA Array Interface version 3 (see :mod:`gpuarr._interop`)."""
        return _interop.cuda_array_interface(self)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """Export as a DLPack capsule; see :func:`gpuarr._interop.to_dlpack`."""
        return _interop.to_dlpack(self, stream=stream, max_version=max_version,
                                  dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        """``(2, id)`` (kDLCUDA), ``(13, id)`` for managed memory: the device
        holding the pointer (:func:`gpuarr._interop.dlpack_device`)."""
        return _interop.dlpack_device(self)

    # -- transfers, copies, casts --------------------------------------------
    def get(self, ary: np.ndarray | None = None, pagelocked: bool = False,
            async_: bool = False, stream=None, **kwargs) -> np.ndarray:
        """Copy to the host.

        Parameters
        ----------
        ary : numpy.ndarray, optional
            Destination of the same shape (or size) and dtype.
        pagelocked : bool
            Return page-locked host memory (ignored when ``ary`` is given).
        async_ : bool
            Enqueue the copy on ``stream`` and return without waiting
            (PyCUDA's ``async`` keyword is accepted too).
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        numpy.ndarray
            C-ordered, or F-ordered when this array is F- but not
            C-contiguous. Non-contiguous arrays are first gathered into a
            contiguous device temporary.

        Raises
        ------
        TypeError
            If ``ary`` is not a numpy array, or for unknown keywords.
        ValueError
            If ``ary`` has another size or dtype.
        """
        if "async" in kwargs:
            async_ = kwargs.pop("async")
        if kwargs:
            raise TypeError("unexpected keyword arguments %s" % list(kwargs))
        return _transfer.get(self, ary, pagelocked, async_, stream)

    def get_async(self, stream=None, ary: np.ndarray | None = None) -> np.ndarray:
        """Enqueue a copy to the host on ``stream``; see :meth:`get`."""
        return _transfer.get(self, ary, False, True, stream)

    def set(self, ary, async_: bool = False, stream=None, **kwargs) -> GPUArray:
        """Copy ``ary`` from the host into this array.

        Parameters
        ----------
        ary : array_like
            Same shape as this array (or same size, reshaped in C order as
            PyCUDA allows). Cast to this array's dtype like numpy assignment.
        async_ : bool
            Enqueue on ``stream`` (PyCUDA's ``async`` keyword too).
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray
            ``self``.

        Raises
        ------
        ValueError
            If the sizes differ.
        """
        if "async" in kwargs:
            async_ = kwargs.pop("async")
        if kwargs:
            raise TypeError("unexpected keyword arguments %s" % list(kwargs))
        _transfer.set(self, ary, async_, stream)
        return self

    def set_async(self, ary, stream=None) -> GPUArray:
        """Enqueue a copy from the host on ``stream``; see :meth:`set`."""
        _transfer.set(self, ary, True, stream)
        return self

    def copy(self, order: str = "C", stream=None) -> GPUArray:
        """A new array with a copy of the data.

        Parameters
        ----------
        order : {'C', 'F', 'A', 'K'}
            Layout of the copy (numpy's meaning; 'K' and 'A' keep F order for
            F-contiguous arrays, else C).  A stream here is PyCUDA's
            ``copy(stream)``.
        stream : gpuarr.driver.Stream, optional

        Raises
        ------
        ValueError
            For an unknown ``order``.
        """
        if isinstance(order, _drv.Stream):
            order, stream = "C", order
        return _transfer.copy(self, order, stream)

    __copy__ = copy

    def astype(self, dtype, order: str = "K", casting: str = "unsafe", copy: bool = True,
               stream=None) -> GPUArray:
        """Cast to ``dtype`` (numpy's ``astype``; ``casting`` as numpy's).

        A stream as the second argument is PyCUDA's ``astype(dtype,
        stream)``.

        Raises
        ------
        TypeError
            If ``dtype`` is unsupported or the cast violates ``casting``.
        """
        if isinstance(order, _drv.Stream):
            order, stream = "K", order
        return _transfer.astype(self, dtype, order, casting, copy, stream)

    def fill(self, value, stream=None) -> GPUArray:
        """Set every element to ``value`` (cast like numpy assignment).

        Returns
        -------
        GPUArray
            ``self`` (PyCUDA returns it too).
        """
        _transfer.fill(self, value, stream)
        return self

    # -- views -------------------------------------------------------------
    def view(self, dtype=None, type=None) -> GPUArray:
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
        if isinstance(dtype, _type) and issubclass(dtype, GPUArray):
            return self._view(self.shape, self.strides, 0)
        dtype = _dtypes.canonical(dtype)
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

    def __getitem__(self, key: Any) -> GPUArray:
        return _indexing.getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        _indexing.setitem(self, key, value)

    def reshape(self, *shape, order: str = "C") -> GPUArray:
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
        newshape = _layout.resolve_newshape(self.size, newshape)
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
            return _layout.c_strides(newshape, isz)
        if order == "F" and self._f:
            return _layout.f_strides(newshape, isz)
        if self.size == 0:
            return _layout.c_strides(newshape, isz) if order == "C" else \
                _layout.f_strides(newshape, isz)
        return _layout.nocopy_reshape_strides(self.shape, self.strides,
                                              newshape, isz, order == "F")

    def ravel(self, order: str = "C") -> GPUArray:
        """Flattened array: a view when possible (numpy's ``ravel``)."""
        if order == "K":
            order = "F" if (self._f and not self._c) else "C"
        return self.reshape((self.size,), order=order)

    def flatten(self, order: str = "C") -> GPUArray:
        """Flattened copy."""
        if order in ("A", "K"):
            order = "F" if (self._f and not self._c) else "C"
        return self.copy(order=order).reshape((self.size,), order=order)

    def transpose(self, *axes, **kw) -> GPUArray:
        """Permute the axes (a view); reverse them when none are given.

        ``axes`` as numpy's (``a.transpose(1, 0)``, ``a.transpose((1, 0))``)
        or as PyCUDA's keyword (``a.transpose(axes=(1, 0))``).

        Raises
        ------
        ValueError
            If ``axes`` is not a permutation of the axes.
        numpy.exceptions.AxisError
            For an axis out of range.
        TypeError
            For ``axes`` given both ways, or another keyword.
        """
        if kw:
            if set(kw) != {"axes"} or axes:
                raise TypeError("transpose() takes the axes by position or "
                                "as axes=, not %s" % sorted(kw))
            axes = (kw["axes"],)
        nd = len(self.shape)
        if not axes or (len(axes) == 1 and axes[0] is None):
            perm = tuple(range(nd - 1, -1, -1))
        else:
            if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
                axes = tuple(axes[0])
            if len(axes) != nd:
                raise ValueError("axes don't match array")
            perm = tuple(_layout.normalize_axis(a, nd) for a in axes)
            if len(set(perm)) != nd:
                raise ValueError("repeated axis in transpose")
        return self._view(tuple(self.shape[p] for p in perm),
                          tuple(self.strides[p] for p in perm), 0)

    def swapaxes(self, axis1: int, axis2: int) -> GPUArray:
        """Interchange two axes (a view)."""
        nd = len(self.shape)
        a, b = (_layout.normalize_axis(x, nd) for x in (axis1, axis2))
        perm = list(range(nd))
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def squeeze(self, axis=None) -> GPUArray:
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
                a = _layout.normalize_axis(a, nd)
                if a in drop:
                    raise ValueError("repeated axis")
                if self.shape[a] != 1:
                    raise ValueError("cannot select an axis to squeeze out "
                                     "which has size not equal to one")
                drop.add(a)
            keep = [i for i in range(nd) if i not in drop]
        return self._view(tuple(self.shape[i] for i in keep),
                          tuple(self.strides[i] for i in keep), 0)

    def broadcast_to(self, shape) -> GPUArray:
        """A view broadcast to ``shape``; see :func:`gpuarr.broadcast_to`."""
        return _manipulation.broadcast_to(self, shape)

    # -- element-wise methods ----------------------------------------------
    def conj(self, out=None, stream=None) -> GPUArray:
        """Complex conjugate (a copy; ``self`` values for real dtypes)."""
        return _ufunc.apply("conjugate", (self,), out, stream)

    conjugate = conj

    __hash__ = None


_type = type


# ---------------------------------------------------------------------------
# operator methods, from one table

#: (Python name without underscores, ufunc, has a same-layout fast path)
_BINARY = (
    ("add", "add", True), ("sub", "subtract", True),
    ("mul", "multiply", True), ("truediv", "true_divide", False),
    ("floordiv", "floor_divide", False), ("mod", "remainder", False),
    ("and", "bitwise_and", False), ("or", "bitwise_or", False),
    ("xor", "bitwise_xor", False), ("lshift", "left_shift", False),
    ("rshift", "right_shift", False),
)
#: comparisons: no reflected or in-place forms; ``==`` and ``!=`` compare
#: with anything (numpy's elementwise answer for objects it cannot convert)
_COMPARE = (("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
            ("ge", "greater_equal"), ("eq", "equal"), ("ne", "not_equal"))
_UNARY = (("neg", "negative"), ("pos", "positive"), ("abs", "absolute"),
          ("invert", "invert"))


def _method(name, fn, doc):
    fn.__name__ = name
    fn.__qualname__ = "GPUArray." + name
    fn.__doc__ = doc
    setattr(GPUArray, name, fn)


def _binary_methods(py, op, fast):
    if fast:
        def forward(self, other):
            if (type(other) is GPUArray and other.dtype is self.dtype
                    and other.shape == self.shape and self._c and other._c):
                return _ufunc.same_binary(op, self, other)
            return _ufunc.binop(op, self, other)
    else:
        def forward(self, other):
            return _ufunc.binop(op, self, other)

    def reflected(self, other):
        return _ufunc.binop(op, other, self)

    def inplace(self, other):
        return _ufunc.inplace(op, self, other)

    _method("__%s__" % py, forward, "``self %s other`` (numpy.%s)." % (py, op))
    _method("__r%s__" % py, reflected, "``other %s self`` (numpy.%s)." % (py, op))
    _method("__i%s__" % py, inplace, "In-place numpy.%s into self "
            "(``same_kind`` casting)." % op)


def _compare_method(py, op):
    if py in ("eq", "ne"):
        unequal = py == "ne"

        def compare(self, other):
            res = _ufunc.binop(op, self, other)
            if res is NotImplemented:
                return _ufunc.compare_unconvertible(self, unequal)
            return res
    else:
        def compare(self, other):
            return _ufunc.binop(op, self, other)
    _method("__%s__" % py, compare, "Element-wise numpy.%s (bool result)." % op)


def _unary_method(py, op):
    def unary(self):
        return _ufunc.apply(op, (self,))
    _method("__%s__" % py, unary, "Element-wise numpy.%s." % op)


def _power_methods():
    def power(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        return _ufunc.binop("power", self, other)

    def rpower(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        return _ufunc.binop("power", other, self)

    def ipower(self, other):
        return _ufunc.inplace("power", self, other)

    def divmod_(self, other):
        return (_ufunc.binop("floor_divide", self, other),
                _ufunc.binop("remainder", self, other))

    def rdivmod(self, other):
        return (_ufunc.binop("floor_divide", other, self),
                _ufunc.binop("remainder", other, self))

    _method("__pow__", power, "``self ** other`` (numpy.power).")
    _method("__rpow__", rpower, "``other ** self`` (numpy.power).")
    _method("__ipow__", ipower, "In-place numpy.power into self.")
    _method("__divmod__", divmod_, "``(self // other, self % other)``.")
    _method("__rdivmod__", rdivmod, "``(other // self, other % self)``.")


for _py, _op, _fast in _BINARY:
    _binary_methods(_py, _op, _fast)
for _py, _op in _COMPARE:
    _compare_method(_py, _op)
for _py, _op in _UNARY:
    _unary_method(_py, _op)
_power_methods()
del _py, _op, _fast

# The routine modules import this module; bound here, below the class, so
# that each finds GPUArray defined whichever of them is imported first.
from . import _creation, _indexing, _interop, _manipulation, _transfer, _ufunc  # noqa: E402
from . import _pymethods, _pyreduce, cumulative, reductions  # noqa: E402
from . import _sorting, _matmul  # noqa: E402
from . import _protocols  # noqa: E402  numpy's protocols (NEP 13, NEP 18)
GPUArray.__array_ufunc__ = _protocols.array_ufunc
GPUArray.__array_function__ = _protocols.array_function


def _routine_method(module, name, attr=None):
    """A method ``name`` calling ``module.<attr>(self, ...)`` (``attr``
    default ``name``), looked up when it runs (the routine modules import
    this one, so they may still be loading here)."""
    attr = name if attr is None else attr

    def method(self, *args, **kwargs):
        return getattr(module, attr)(self, *args, **kwargs)
    _method(name, method, "Same as ``%s(self, ...)``: see :func:`%s.%s`."
            % (attr, module.__name__, attr))


for _name in ("sum", "prod", "mean", "var", "std", "max", "min", "argmax",
              "argmin", "ptp", "dot", "nansum", "nanmax", "nanmin"):
    _routine_method(reductions, _name)
for _name in ("cumsum", "cumprod"):
    _routine_method(cumulative, _name)
_routine_method(_sorting, "sort", "method_sort")
for _name in ("matmul", "rmatmul", "imatmul"):
    _routine_method(_matmul, "__%s__" % _name, "%s_operator" % _name)
_routine_method(_sorting, "argsort", "method_argsort")
# PyCUDA's methods: any/all also take stream= and allocator=
_routine_method(_pyreduce, "any", "method_any")
_routine_method(_pyreduce, "all", "method_all")
for _name in ("reverse", "mul_add", "bind_to_texref", "bind_to_texref_ext"):
    _routine_method(_pymethods, _name)
_routine_method(_pymethods, "_new_like_me", "new_like_me")
_routine_method(_transfer, "to_device")
GPUArray._grid = property(lambda self: _pymethods.launch_grid(self),
                          doc="PyCUDA's grid for the elements (``splay``).")
GPUArray._block = property(lambda self: _pymethods.launch_block(self),
                           doc="PyCUDA's block for the elements (``splay``).")
del _name
