"""Data types, numpy promotion, broadcasting and dimension merging.

Pure Python (layer 0): nothing here touches the GPU, so all of it is
testable in CI against numpy itself.

Promotion is numpy's own: for a ufunc-style operation we ask the ufunc
(``np.add.resolve_dtypes``), which under numpy 2 implements NEP 50, so a
Python ``int``/``float``/``complex`` is a *weak* scalar (``float32 array *
2.0`` stays ``float32``) while numpy scalars are strong.  The answers are
cached by a small key of dtype characters and scalar types.
"""

import numpy as np

__all__ = [
    "SUPPORTED", "ctype", "reg_ctype", "is_supported", "check_supported",
    "resolve_ufunc", "result_type", "check_scalar", "scalar_token",
    "broadcast_shapes", "broadcast_strides", "merge_dims", "needs_64bit",
]

#: The dtypes gpuarr's kernels support.
SUPPORTED = tuple(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128))

# C type of each dtype as stored in device memory.  ``ga_half`` and
# ``ga_complex<T>`` are defined by ``kernels/common.cu.mako``.
_CTYPES = {
    "b": "bool",
    "i1": "signed char", "i2": "short", "i4": "int", "i8": "long long",
    "u1": "unsigned char", "u2": "unsigned short", "u4": "unsigned int",
    "u8": "unsigned long long",
    "f2": "ga_half", "f4": "float", "f8": "double",
    "c8": "ga_complex<float>", "c16": "ga_complex<double>",
}


def _key(dtype):
    return "b" if dtype.kind == "b" else "%s%d" % (dtype.kind, dtype.itemsize)


_CTYPE_BY_DT = {}
for _dt in SUPPORTED:
    _CTYPE_BY_DT[_dt] = _CTYPES[_key(_dt)]
del _dt

_F2 = np.dtype(np.float16)


def is_supported(dtype):
    """Return True when gpuarr's kernels handle ``dtype``.

    Parameters
    ----------
    dtype : dtype-like

    Returns
    -------
    bool
    """
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return False
    return dt in _CTYPE_BY_DT and dt.isnative


def check_supported(dtype):
    """Return ``np.dtype(dtype)``, raising TypeError when it is unsupported.

    Parameters
    ----------
    dtype : dtype-like

    Returns
    -------
    numpy.dtype

    Raises
    ------
    TypeError
        For dtypes such as ``object``, strings, structured, datetime or
        non-native byte order.
    """
    dt = np.dtype(dtype)
    if dt in _CTYPE_BY_DT and dt.isnative:
        return dt
    if not dt.isnative and dt.newbyteorder("=") in _CTYPE_BY_DT:
        raise TypeError(
            "gpuarr does not support dtype %s: its byte order is not the "
            "machine's (GPU memory holds native-order values); convert "
            "first, e.g. a.astype(a.dtype.newbyteorder('='))" % (dt.str,))
    raise TypeError("gpuarr does not support dtype %s (supported: bool, "
                    "int8-int64, uint8-uint64, float16/32/64, "
                    "complex64/128)" % (dt,))


def ctype(dtype):
    """Return the C type of ``dtype`` as stored in device memory.

    Parameters
    ----------
    dtype : dtype-like

    Returns
    -------
    str
        For example ``"float"``, ``"unsigned char"``, ``"ga_half"`` or
        ``"ga_complex<double>"``.
    """
    dt = np.dtype(dtype)
    try:
        return _CTYPE_BY_DT[dt]
    except KeyError:
        raise TypeError("gpuarr does not support dtype %s" % (dt,)) from None


def reg_ctype(dtype):
    """Return the C type kernels compute ``dtype`` in.

    The same as :func:`ctype` except for float16, which is computed in
    ``float`` (holding a value exactly representable in half precision),
    as numpy itself does.
    """
    dt = np.dtype(dtype)
    if dt == _F2:
        return "float"
    return ctype(dt)


# ---------------------------------------------------------------------------
# promotion

_PY_SCALARS = (bool, int, float, complex)


def scalar_token(x):
    """Return the promotion token of an operand.

    Python ``bool``, ``int``, ``float`` and ``complex`` values give their
    type (numpy treats them as weak); anything else gives its dtype (a
    numpy scalar, an array-like with ``.dtype``, or a dtype).
    """
    t = type(x)
    if t in _PY_SCALARS:
        return t
    if isinstance(x, np.dtype):
        return x
    dt = getattr(x, "dtype", None)
    if dt is not None and isinstance(dt, np.dtype):
        return dt
    if isinstance(x, type) and x in _PY_SCALARS:
        return x
    if isinstance(x, bool):
        return bool
    if isinstance(x, int):
        return int
    if isinstance(x, float):
        return float
    if isinstance(x, complex):
        return complex
    return np.dtype(x)


_RESOLVE_CACHE = {}


def resolve_ufunc(ufunc, tokens):
    """numpy's loop resolution for ``ufunc`` applied to ``tokens``.

    Parameters
    ----------
    ufunc : numpy.ufunc
    tokens : tuple
        One entry per input: a ``numpy.dtype``, or one of the Python types
        ``bool``, ``int``, ``float``, ``complex`` standing for a weak scalar.

    Returns
    -------
    (in_dtypes, out_dtypes) : tuple of tuples of numpy.dtype
        The loop's input dtypes (each operand is cast to these) and its
        output dtypes.

    Raises
    ------
    TypeError
        Where numpy has no loop (for example ``bool - bool``).
    """
    key = (ufunc, tokens)
    try:
        return _RESOLVE_CACHE[key]
    except KeyError:
        pass
    toks = tuple(bool if t is bool else t for t in tokens)
    if all(isinstance(t, type) for t in toks):
        # numpy needs at least one dtype; a lone Python scalar is its
        # default dtype (int -> int64, float -> float64, ...).
        toks = tuple(np.dtype(t) if t is not bool else np.dtype(bool)
                     for t in toks)
    else:
        # resolve_dtypes accepts weak int/float/complex; Python bool is a
        # strong numpy bool already.
        toks = tuple(np.dtype(bool) if t is bool else t for t in toks)
    res = ufunc.resolve_dtypes(toks + (None,) * ufunc.nout)
    for dt in res:
        check_supported(dt)
    value = (tuple(res[:ufunc.nin]), tuple(res[ufunc.nin:]))
    if len(_RESOLVE_CACHE) > 4096:
        _RESOLVE_CACHE.clear()
    _RESOLVE_CACHE[key] = value
    return value


_RESULT_CACHE = {}


def result_type(*tokens):
    """``np.result_type`` with Python scalar types standing for weak scalars.

    Parameters
    ----------
    *tokens : numpy.dtype or type
        As for :func:`resolve_ufunc`.

    Returns
    -------
    numpy.dtype
    """
    try:
        return _RESULT_CACHE[tokens]
    except KeyError:
        pass
    args = []
    for t in tokens:
        if t is bool:
            args.append(np.dtype(bool))
        elif t is int:
            args.append(0)
        elif t is float:
            args.append(0.0)
        elif t is complex:
            args.append(0j)
        else:
            args.append(t)
    dt = np.result_type(*args)
    check_supported(dt)
    _RESULT_CACHE[tokens] = dt
    return dt


_INT_BOUNDS = {}


def int_bounds(dtype):
    """Return ``(min, max)`` of an integer or bool dtype (cached)."""
    try:
        return _INT_BOUNDS[dtype]
    except KeyError:
        if dtype.kind == "b":
            b = (0, 1)
        else:
            info = np.iinfo(dtype)
            b = (int(info.min), int(info.max))
        _INT_BOUNDS[dtype] = b
        return b


def check_scalar(value, dtype):
    """Check that a Python scalar converts to ``dtype`` as numpy allows.

    numpy 2 raises OverflowError when a Python integer does not fit the
    integer dtype it is converted to (``uint8 array + 300``), and when an
    integer is too large for a float (``float32 array + 2**1100``).

    Parameters
    ----------
    value : bool, int, float or complex
    dtype : numpy.dtype
        The dtype the value is converted to.

    Raises
    ------
    OverflowError
    """
    if type(value) is int:
        kind = dtype.kind
        if kind in "iu":
            lo, hi = int_bounds(dtype)
            if value < lo or value > hi:
                raise OverflowError("Python integer %d out of bounds for %s"
                                    % (value, dtype))
        elif kind in "fc":
            float(value)  # raises OverflowError like numpy does


def convert_scalar(value, dtype):
    """Convert a scalar to a numpy scalar of ``dtype`` the way numpy would.

    Parameters
    ----------
    value : Python or numpy scalar
    dtype : numpy.dtype

    Returns
    -------
    numpy.generic
    """
    if type(value) in _PY_SCALARS:
        check_scalar(value, dtype)
        if dtype.kind in "iub" and type(value) in (float, complex):
            raise TypeError("cannot convert %s to %s" % (type(value).__name__,
                                                         dtype))
        return dtype.type(value)
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(dtype, casting="unsafe")[()]


# ---------------------------------------------------------------------------
# broadcasting


def broadcast_shapes(*shapes):
    """The shape that ``shapes`` broadcast to, numpy's rules and message.

    Parameters
    ----------
    *shapes : tuple of int

    Returns
    -------
    tuple of int

    Raises
    ------
    ValueError
        When two shapes do not broadcast.
    """
    if len(shapes) == 1:
        return tuple(shapes[0])
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for k, s in enumerate(shapes):
        off = ndim - len(s)
        for ax, n in enumerate(s):
            cur = out[off + ax]
            if n == cur or n == 1:
                continue
            if cur == 1:
                out[off + ax] = n
                continue
            # find the first shape that set ``cur`` to report the pair
            first = next(j for j, t in enumerate(shapes)
                         if len(t) >= ndim - off - ax
                         and t[len(t) - (ndim - off - ax)] == cur)
            raise ValueError(
                "shape mismatch: objects cannot be broadcast to a single "
                "shape.  Mismatch is between arg %d with shape %s and arg %d "
                "with shape %s." % (first, tuple(shapes[first]), k, tuple(s)))
    return tuple(out)


def _fmt(shape):
    return str(tuple(shape)).replace(" ", "")[1:-1]


def broadcast_strides(shape, strides, to_shape):
    """Strides of an array of ``shape``/``strides`` broadcast to ``to_shape``.

    Broadcast axes get stride 0, as in ``np.broadcast_to(a, to_shape)``.

    Parameters
    ----------
    shape, strides : tuple of int
        The array's shape and strides (bytes).
    to_shape : tuple of int

    Returns
    -------
    tuple of int

    Raises
    ------
    ValueError
        Like numpy's, when the shapes are incompatible.
    """
    shape = tuple(shape)
    to_shape = tuple(to_shape)
    if shape == to_shape:
        return tuple(strides)
    nd = len(to_shape)
    if len(shape) > nd:
        raise ValueError("input operand has more dimensions than allowed by "
                         "the axis remapping")
    off = nd - len(shape)
    out = [0] * nd
    for ax in range(len(shape)):
        n = shape[ax]
        if n == to_shape[off + ax]:
            out[off + ax] = strides[ax] if n != 1 else 0
        elif n == 1:
            out[off + ax] = 0
        else:
            raise ValueError(
                "operands could not be broadcast together with remapped "
                "shapes [original->remapped]: (%s)  and requested shape (%s)"
                % (_fmt(shape), _fmt(to_shape)))
    return tuple(out)


# ---------------------------------------------------------------------------
# dimension merging


def merge_dims(shape, strides_list):
    """Merge dimensions that are contiguous with each other for all operands.

    Size-1 axes are dropped; axis ``k`` and the following axis ``k+1`` are
    merged when, for every operand, ``stride[k] == stride[k+1] *
    shape[k+1]``.  The merged description addresses exactly the same
    elements, in the same (C) order of the linear index.

    Parameters
    ----------
    shape : tuple of int
    strides_list : sequence of tuple of int
        One strides tuple (any unit) per operand, each of ``len(shape)``.

    Returns
    -------
    (shape, strides_list) : tuple of int, tuple of tuple of int
        The merged shape and per-operand strides.  For an array of size 0
        the shape is ``(0,)``; for size 1 it is ``()``.
    """
    nops = len(strides_list)
    dims = []
    for ax, n in enumerate(shape):
        if n == 0:
            return (0,), tuple((0,) for _ in range(nops))
        if n != 1:
            dims.append(ax)
    if not dims:
        return (), tuple(() for _ in range(nops))
    out_shape = [shape[dims[-1]]]
    out_strides = [[s[dims[-1]]] for s in strides_list]
    for ax in reversed(dims[:-1]):
        n = shape[ax]
        inner_n = out_shape[0]
        mergeable = True
        for k in range(nops):
            if strides_list[k][ax] != out_strides[k][0] * inner_n:
                mergeable = False
                break
        if mergeable:
            out_shape[0] = n * inner_n
        else:
            out_shape.insert(0, n)
            for k in range(nops):
                out_strides[k].insert(0, strides_list[k][ax])
    return tuple(out_shape), tuple(tuple(s) for s in out_strides)


INT32_MAX = 2 ** 31 - 1


def needs_64bit(shape, strides_list, margin=0):
    """Whether a kernel over ``shape`` needs 64-bit indices.

    True when the number of elements, or any byte offset an operand
    reaches (``sum(|stride| * (n - 1))``), could exceed ``2**31 - 1``
    (less ``margin``, room a kernel needs past the end for its chunking).

    Parameters
    ----------
    shape : tuple of int
    strides_list : sequence of tuple of int
        Byte strides per operand.
    margin : int, optional
    """
    limit = INT32_MAX - margin
    size = 1
    for n in shape:
        size *= n
    if size > limit:
        return True
    for st in strides_list:
        off = 0
        for n, s in zip(shape, st):
            off += abs(s) * (n - 1)
        if off > limit:
            return True
    return False
