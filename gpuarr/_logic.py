"""numpy's logic functions over GPUArrays (layer 6): ``isclose``,
``allclose``, ``array_equal``, ``array_equiv``, ``isposinf``,
``isneginf``, and the type tests ``iscomplex``, ``isreal``,
``real_if_close``, ``common_type``.

Each follows numpy 2's own recipe out of gpuarr's ufuncs (so the same
promotion, NaN and infinity rules): ``isclose`` compares
``|a - b| <= atol + rtol * |b|`` with ``b`` made a float, then accepts
equal values (equal infinities) and, with ``equal_nan``, NaN pairs.  The
functions that answer one bool (``allclose``, ``array_equal``,
``array_equiv``) reduce on the device and wait for that one value.
"""

import numpy as np

from . import _placement
from . import _creation, _layout, _ufunc, cumath, reductions
from ._array import GPUArray

__all__ = ["isclose", "allclose", "array_equal", "array_equiv", "isposinf",
           "isneginf", "iscomplex", "isreal", "real_if_close",
           "common_type"]


def _operand(x):
    """A GPUArray, or a Python scalar kept weak (numpy 2's promotion)."""
    if isinstance(x, (bool, int, float, complex)) or isinstance(x, GPUArray):
        return x
    return _creation.asarray(x)


def isclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """Whether each pair is equal within a tolerance (numpy.isclose):
    ``|a - b| <= atol + rtol * |b|`` (not symmetric in ``a`` and ``b``,
    as numpy's), infinities equal only to themselves.

    Parameters
    ----------
    a, b : GPUArray, scalar or array_like
        Broadcast together; bool, integers, floats or complex (``b`` is
        made a float or complex dtype first, as numpy 2 does, so integer
        differences do not wrap).
    rtol, atol : float
        The relative and absolute tolerances (scalars).
    equal_nan : bool
        Whether two NaNs count as close.

    Returns
    -------
    GPUArray
        bool, of the broadcast shape (0-d for two scalars' shapes).

    Raises
    ------
    ValueError
        For shapes that do not broadcast.
    TypeError
        If neither ``a`` nor ``b`` is a GPUArray or array_like.
    """
    x, y = _operand(a), _operand(b)
    if isinstance(y, GPUArray):
        ydt = np.result_type(y.dtype, 1.0)
        if y.dtype != ydt:
            y = y.astype(ydt)
    elif isinstance(y, int):
        y = float(y)
    if isinstance(y, GPUArray):
        tol = _ufunc.add(atol, _ufunc.multiply(rtol, cumath.absolute(y)))
    else:
        tol = atol + rtol * abs(y)
    close = _ufunc.less_equal(cumath.absolute(_ufunc.subtract(x, y)), tol)
    fin = cumath.isfinite(y) if isinstance(y, GPUArray) else bool(
        np.isfinite(y))
    res = _ufunc.logical_or(_ufunc.logical_and(close, fin),
                            _ufunc.equal(x, y))
    if equal_nan:
        nx = cumath.isnan(x) if isinstance(x, GPUArray) else bool(np.isnan(x))
        ny = cumath.isnan(y) if isinstance(y, GPUArray) else bool(np.isnan(y))
        res = _ufunc.logical_or(res, _ufunc.logical_and(nx, ny))
    return res


def allclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """Whether every pair is close (numpy.allclose: :func:`isclose`, all).

    Parameters
    ----------
    a, b, rtol, atol, equal_nan
        As :func:`isclose`.

    Returns
    -------
    bool

    Raises
    ------
    ValueError, TypeError
        As :func:`isclose`.
    """
    return bool(reductions.all(isclose(a, b, rtol, atol, equal_nan)).get())


def _shape(x):
    return x.shape if isinstance(x, GPUArray) else np.shape(x)


def array_equal(a1, a2, equal_nan=False):
    """Whether two arrays have the same shape and elements
    (numpy.array_equal).

    Parameters
    ----------
    a1, a2 : GPUArray, scalar or array_like
    equal_nan : bool
        Whether NaNs in the same places count as equal (floats and
        complex; a complex value with a NaN part is NaN).

    Returns
    -------
    bool
        False for different shapes (nothing launched).
    """
    x, y = _operand(a1), _operand(a2)
    if not isinstance(x, GPUArray) and not isinstance(y, GPUArray):
        x = _creation.asarray(x)        # two scalars: one array to run on
    if _shape(x) != _shape(y):
        return False
    eq = _ufunc.equal(x, y)
    if equal_nan:
        eq = _ufunc.logical_or(eq, _ufunc.logical_and(cumath.isnan(x),
                                                      cumath.isnan(y)))
    return bool(reductions.all(eq).get())


def array_equiv(a1, a2):
    """Whether two arrays broadcast together and are equal there
    (numpy.array_equiv).

    Parameters
    ----------
    a1, a2 : GPUArray, scalar or array_like

    Returns
    -------
    bool
        False for shapes that do not broadcast (nothing launched).
    """
    x, y = _operand(a1), _operand(a2)
    if not isinstance(x, GPUArray) and not isinstance(y, GPUArray):
        x = _creation.asarray(x)
    try:
        _layout.broadcast_shapes(_shape(x), _shape(y))
    except ValueError:
        return False
    return bool(reductions.all(_ufunc.equal(x, y)).get())


def _signed_inf(x, out, negative):
    x = _operand(x)
    dt = x.dtype if isinstance(x, GPUArray) else np.asarray(x).dtype
    if dt.kind == "c":
        raise TypeError("This operation is not supported for %s values "
                        "because it would be ambiguous." % dt)
    sign = cumath.signbit(x) if negative else _ufunc.logical_not(
        cumath.signbit(x))
    return _ufunc.logical_and(cumath.isinf(x), sign, out=out)


def isposinf(x, out=None):
    """Whether each element is positive infinity (numpy.isposinf).

    Parameters
    ----------
    x : GPUArray or array_like
        Real values (bool and integers give False).
    out : GPUArray, optional
        Receives the result (bool, or a dtype bool casts to).

    Returns
    -------
    GPUArray
        bool, of ``x``'s shape, or ``out``.

    Raises
    ------
    TypeError
        For complex input (numpy's message).
    """
    return _signed_inf(x, out, False)


def isneginf(x, out=None):
    """Whether each element is negative infinity (numpy.isneginf).

    Parameters
    ----------
    x : GPUArray or array_like
        Real values (bool and integers give False).
    out : GPUArray, optional
        Receives the result.

    Returns
    -------
    GPUArray
        bool, of ``x``'s shape, or ``out``.

    Raises
    ------
    TypeError
        For complex input (numpy's message).
    """
    return _signed_inf(x, out, True)


def iscomplex(x):
    """Whether each element has a nonzero imaginary part
    (numpy.iscomplex; a test of values, not of the dtype).

    Parameters
    ----------
    x : GPUArray or array_like

    Returns
    -------
    GPUArray
        bool of ``x``'s shape (all False for a real dtype).
    """
    x = _creation.asarray(x)
    if x.dtype.kind == "c":
        return _ufunc.not_equal(x.imag, 0)
    return _creation.zeros(x.shape, np.bool_)


def isreal(x):
    """Whether each element's imaginary part is zero (numpy.isreal; a
    test of values, not of the dtype).

    Parameters
    ----------
    x : GPUArray or array_like

    Returns
    -------
    GPUArray
        bool of ``x``'s shape (all True for a real dtype).
    """
    x = _creation.asarray(x)
    if x.dtype.kind == "c":
        return _ufunc.equal(x.imag, 0)
    return _creation.ones(x.shape, np.bool_)


def real_if_close(a, tol=100):
    """The real part when every imaginary part is below a tolerance
    (numpy.real_if_close).

    Parameters
    ----------
    a : GPUArray or array_like
    tol : float
        Above 1: in machine epsilons of ``a``'s dtype; else absolute.

    Returns
    -------
    GPUArray
        ``a`` itself (real dtypes, or an imaginary part too large), else
        a view of its real part.  The test reads one bool back.
    """
    a = _creation.asarray(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = np.finfo(a.dtype).eps * tol
    if bool(reductions.all(_ufunc.less(cumath.absolute(a.imag), tol)).get()):
        return a.real
    return a


def common_type(*arrays):
    """The inexact scalar type the arrays' values all convert to
    (numpy.common_type: integers count as float64).

    Parameters
    ----------
    *arrays : GPUArray or numpy.ndarray
        Only their dtypes are read.

    Returns
    -------
    type
        A numpy scalar type (``numpy.float64``, ``numpy.complex64``, ...).

    Raises
    ------
    TypeError
        For a non-numeric (bool) dtype (numpy's message).
    """
    # numpy's answer for stand-ins of the same dtypes: nothing allocated
    return np.common_type(*[np.empty(0, a.dtype) for a in arrays])


_placement.route(globals(), skip=("common_type",))
