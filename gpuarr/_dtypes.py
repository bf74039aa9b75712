"""Data types and numpy's promotion rules.

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
    "canonical", "resolve_ufunc", "result_type", "check_scalar",
    "scalar_token", "int_bounds", "convert_scalar",
    "get_or_register", "registered_dtype", "registered_name",
    "is_registered_struct",
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


_CANONICAL = {}


def canonical(dtype):
    """:func:`check_supported`, cached by the argument: the ``numpy.dtype``
    arrays store, for anything ``numpy.dtype`` accepts (``"f4"``,
    ``numpy.float32``, a dtype).

    Raises
    ------
    TypeError
        For an unsupported dtype.
    """
    try:
        return _CANONICAL[dtype]
    except (KeyError, TypeError):
        pass
    try:
        dt = check_supported(dtype)
    except TypeError:
        # Arrays may also hold registered structs (float3, a user's
        # struct) for user kernels; numpy's operations refuse them.
        dt = np.dtype(dtype)
        if not is_registered_struct(dt):
            raise
    try:
        if len(_CANONICAL) < 4096:
            _CANONICAL[dtype] = dt
    except TypeError:  # unhashable dtype-likes are not cached
        pass
    return dt


def ctype(dtype):
    """Return the C type of ``dtype`` as stored in device memory.

    Parameters
    ----------
    dtype : dtype-like

    Returns
    -------
    str
        For example ``"float"``, ``"unsigned char"``, ``"ga_half"`` or
        ``"ga_complex<double>"``; for a structured dtype registered with
        :func:`get_or_register` (``float3``, a user's struct), its first
        registered name.
    """
    dt = np.dtype(dtype)
    try:
        return _CTYPE_BY_DT[dt]
    except KeyError:
        pass
    if dt.kind == "V" and dt in _DT_TO_NAME:
        return _DT_TO_NAME[dt]
    raise TypeError("gpuarr does not support dtype %s" % (dt,))


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
# C type names of user kernels' dtypes (PyCUDA's dtype registry)

_NAME_TO_DT = {}    # C type name -> numpy.dtype
_DT_TO_NAME = {}    # numpy.dtype -> the first C name registered for it


def get_or_register(c_names, dtype=None):
    """Look up, or register, the dtype of C type names (PyCUDA's
    ``get_or_register_dtype``).

    The table starts with PyCUDA's names of C's types on 64-bit Linux
    (``"long"`` is int64, ``"short"`` int16, ``"pycuda::complex<float>"``
    complex64, ...; see :mod:`gpuarr.tools`) and gpuarr's vector types
    (``float3``, ...); the kernel builders read it to parse user kernels'
    argument lists and to name a registered struct's C type.

    Parameters
    ----------
    c_names : str or sequence of str
        C type names; the first one is the dtype's name from then on, if the
        dtype had none.
    dtype : dtype-like, optional
        None: look the names up (all must name one dtype).  Else register
        every name not yet known for this dtype.

    Returns
    -------
    numpy.dtype
        The registered dtype (the object registered first, for an equal
        dtype registered again).

    Raises
    ------
    KeyError
        Looking up a name that is not registered.
    ValueError
        Looking up names of different dtypes.
    RuntimeError
        Registering a name already registered to a different dtype (as
        PyCUDA raises); nothing is registered then.
    TypeError
        For an empty list of names or a name that is not a str.
    """
    if isinstance(c_names, str):
        c_names = [c_names]
    names = [" ".join(n.split()) if isinstance(n, str) else n for n in c_names]
    if not names or not all(isinstance(n, str) and n for n in names):
        raise TypeError("c_names must be a non-empty str or a sequence of "
                        "non-empty str, got %r" % (c_names,))
    if dtype is None:
        found = [_NAME_TO_DT[n] for n in names]
        if any(dt != found[0] for dt in found):
            raise ValueError("the names %r are registered to different "
                             "dtypes" % (names,))
        return found[0]
    dt = np.dtype(dtype)
    if dt.hasobject:
        raise TypeError("dtype %s holds Python objects: it has no C type"
                        % (dt,))
    for n in names:
        old = _NAME_TO_DT.get(n)
        if old is not None and old != dt:
            raise RuntimeError("name '%s' already registered to a different "
                               "dtype (%s, not %s)" % (n, old, dt))
    first = _DT_TO_NAME.get(dt)
    if first is None:
        _DT_TO_NAME[dt] = names[0]
    else:
        dt = _NAME_TO_DT[first]
    for n in names:
        _NAME_TO_DT.setdefault(n, dt)
    _CANONICAL.clear()
    return dt


def registered_dtype(c_name):
    """The dtype registered for the C type name ``c_name`` (spaces
    normalized), or None."""
    return _NAME_TO_DT.get(" ".join(c_name.split()))


def registered_name(dtype):
    """The first C name registered for ``dtype``, or None."""
    return _DT_TO_NAME.get(np.dtype(dtype))


def is_registered_struct(dtype):
    """Whether ``dtype`` is a structured (void) dtype registered with
    :func:`get_or_register`: arrays and user kernels may hold it."""
    return dtype.kind == "V" and dtype in _DT_TO_NAME


def _register_c_types():
    # PyCUDA's C names (pycuda.compyte.dtypes on 64-bit Linux).
    table = [
        (["bool"], np.bool_),
        (["signed char", "char"], np.int8),
        (["unsigned char"], np.uint8),
        (["short", "signed short", "signed short int", "short signed int"],
         np.int16),
        (["unsigned short", "unsigned short int", "short unsigned int"],
         np.uint16),
        (["int", "signed int"], np.int32),
        (["unsigned", "unsigned int"], np.uint32),
        (["long", "long int", "signed long int", "long signed int"],
         np.int64),
        (["unsigned long", "unsigned long int", "long unsigned int"],
         np.uint64),
        (["float"], np.float32),
        (["double"], np.float64),
        (["pycuda::complex<float>"], np.complex64),
        (["pycuda::complex<double>"], np.complex128),
    ]
    for names, dt in table:
        get_or_register(names, dt)


_register_c_types()

