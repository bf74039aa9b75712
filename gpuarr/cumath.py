"""numpy-named element-wise math on GPUArrays (layer 6; PyCUDA's ``cumath``).

Every function takes GPUArrays or scalars, broadcasts them by numpy's rules,
promotes dtypes like the numpy ufunc of the same name (NEP 50: Python scalars
are weak), and accepts ``out=`` (cast under ``same_kind``) and ``stream=``.
Integer inputs of the transcendental functions give float64 (float16 for
int8/uint8/bool... exactly as numpy's loops decide).
"""

import math

import numpy as np

from ._creation import asarray
from ._transfer import assign
from ._ufunc import (absolute, apply, apply_outputs, casting_error,
                     if_positive, maximum, minimum, power, ufunc, where)

__all__ = [
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh",
    "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1",
    "log", "log2", "log10", "log1p", "sqrt", "cbrt", "square", "reciprocal",
    "absolute", "fabs", "sign", "floor", "ceil", "trunc", "rint", "fmod",
    "hypot", "power", "minimum", "maximum", "fmin", "fmax", "clip", "where",
    "isnan", "isinf", "isfinite", "conj", "conjugate", "angle", "if_positive",
    "asin", "acos", "atan", "atan2", "sinh", "asinh", "acosh", "atanh",
    "frexp", "ldexp", "modf", "copysign", "signbit", "nextafter", "spacing",
    "logaddexp", "logaddexp2", "heaviside", "deg2rad", "rad2deg", "radians",
    "degrees", "gcd", "lcm", "bitwise_count", "float_power", "divmod",
]

sin = ufunc("sin", 1, "Element-wise sine (numpy.sin).")
cos = ufunc("cos", 1, "Element-wise cosine (numpy.cos).")
tan = ufunc("tan", 1, "Element-wise tangent (numpy.tan).")
arcsin = ufunc("arcsin", 1, "Element-wise inverse sine (numpy.arcsin).")
arccos = ufunc("arccos", 1, "Element-wise inverse cosine (numpy.arccos).")
arctan = ufunc("arctan", 1, "Element-wise inverse tangent (numpy.arctan).")
arctan2 = ufunc("arctan2", 2, "Element-wise ``atan2(x1, x2)`` (numpy.arctan2).")
sinh = ufunc("sinh", 1, "Element-wise hyperbolic sine (numpy.sinh).")
cosh = ufunc("cosh", 1, "Element-wise hyperbolic cosine (numpy.cosh).")
tanh = ufunc("tanh", 1, "Element-wise hyperbolic tangent (numpy.tanh).")
arcsinh = ufunc("arcsinh", 1, "Element-wise inverse hyperbolic sine.")
arccosh = ufunc("arccosh", 1, "Element-wise inverse hyperbolic cosine.")
arctanh = ufunc("arctanh", 1, "Element-wise inverse hyperbolic tangent.")
exp = ufunc("exp", 1, "Element-wise ``e**x`` (numpy.exp).")
exp2 = ufunc("exp2", 1, "Element-wise ``2**x`` (numpy.exp2).")
expm1 = ufunc("expm1", 1, "Element-wise ``exp(x) - 1`` (numpy.expm1).")
log = ufunc("log", 1, "Element-wise natural logarithm (numpy.log).")
log2 = ufunc("log2", 1, "Element-wise base-2 logarithm (numpy.log2).")
log10 = ufunc("log10", 1, "Element-wise base-10 logarithm (numpy.log10).")
log1p = ufunc("log1p", 1, "Element-wise ``log(1 + x)`` (numpy.log1p).")
sqrt = ufunc("sqrt", 1, "Element-wise square root (numpy.sqrt).")
cbrt = ufunc("cbrt", 1, "Element-wise cube root (numpy.cbrt).")
square = ufunc("square", 1, "Element-wise ``x * x`` (numpy.square).")
reciprocal = ufunc("reciprocal", 1, "Element-wise ``1 / x`` (numpy.reciprocal).")
fabs = ufunc("fabs", 1, "Element-wise absolute value of reals (numpy.fabs).")
sign = ufunc("sign", 1, "Element-wise sign (numpy.sign).")
floor = ufunc("floor", 1, "Element-wise floor (numpy.floor).")
ceil = ufunc("ceil", 1, "Element-wise ceiling (numpy.ceil).")
trunc = ufunc("trunc", 1, "Element-wise truncation toward zero (numpy.trunc).")
rint = ufunc("rint", 1, "Element-wise round half to even (numpy.rint).")
fmod = ufunc("fmod", 2, "Element-wise C ``fmod`` (sign of x1; numpy.fmod).")
hypot = ufunc("hypot", 2, "Element-wise ``sqrt(x1**2 + x2**2)`` (numpy.hypot).")
fmin = ufunc("fmin", 2, "Element-wise minimum, ignoring NaN (numpy.fmin).")
fmax = ufunc("fmax", 2, "Element-wise maximum, ignoring NaN (numpy.fmax).")
isnan = ufunc("isnan", 1, "Element-wise NaN test (bool result).")
isinf = ufunc("isinf", 1, "Element-wise infinity test (bool result).")
isfinite = ufunc("isfinite", 1, "Element-wise finiteness test (bool result).")
conjugate = ufunc("conjugate", 1, "Element-wise complex conjugate.")
conj = conjugate
ldexp = ufunc("ldexp", 2, "Element-wise ``x1 * 2**x2`` (numpy.ldexp): ``x2`` "
              "must be an integer (int32 or int64 loop); float16 is computed "
              "in float32 and rounded once.")
copysign = ufunc("copysign", 2, "Element-wise ``x1``'s magnitude with ``x2``'s "
                "sign (numpy.copysign).")
signbit = ufunc("signbit", 1, "Element-wise sign bit set, -0.0 and NaNs "
                "included (bool result; numpy.signbit).")
nextafter = ufunc("nextafter", 2, "Element-wise next value after ``x1`` towards "
                  "``x2`` in the dtype (float16 steps its own bits; "
                  "numpy.nextafter).")
spacing = ufunc("spacing", 1, "Element-wise step from ``x`` to the next value "
                "away from zero (from a zero, up; float16: the step up, "
                "positive, as numpy's; NaN for infinities; numpy.spacing).")
logaddexp = ufunc("logaddexp", 2, "Element-wise ``log(exp(x1) + exp(x2))`` "
                  "without overflow (numpy.logaddexp).")
logaddexp2 = ufunc("logaddexp2", 2, "Element-wise ``log2(2**x1 + 2**x2)`` "
                   "without overflow (numpy.logaddexp2).")
heaviside = ufunc("heaviside", 2, "Element-wise step function: 0 below zero, "
                  "``x2`` at zero, 1 above, NaN for NaN (numpy.heaviside).")
deg2rad = ufunc("deg2rad", 1, "Element-wise degrees to radians (numpy.deg2rad).")
radians = ufunc("radians", 1, "Element-wise degrees to radians (numpy.radians).")
rad2deg = ufunc("rad2deg", 1, "Element-wise radians to degrees (numpy.rad2deg).")
degrees = ufunc("degrees", 1, "Element-wise radians to degrees (numpy.degrees).")
gcd = ufunc("gcd", 2, "Element-wise greatest common divisor of the absolute "
            "values, ``gcd(0, 0) == 0`` (integers; numpy.gcd).")
lcm = ufunc("lcm", 2, "Element-wise least common multiple of the absolute "
            "values, 0 where either is 0 (integers; numpy.lcm).")
bitwise_count = ufunc("bitwise_count", 1, "Element-wise number of 1 bits in "
                      "``abs(x)`` (integers, uint8 result; numpy.bitwise_count).")
float_power = ufunc("float_power", 2, "Element-wise ``x1 ** x2`` in float64 or "
                    "complex128 whatever the inputs (numpy.float_power).")

# C / PyCUDA spellings
asin, acos, atan, atan2 = arcsin, arccos, arctan, arctan2
asinh, acosh, atanh = arcsinh, arccosh, arctanh


def angle(z, deg=False, out=None, stream=None):
    """Argument of complex values (numpy.angle).

    Parameters
    ----------
    z : GPUArray
        Any supported dtype; real inputs give 0 or pi.
    deg : bool
        Return degrees instead of radians.
    out : GPUArray, optional
    stream : gpuarr.driver.Stream, optional

    Returns
    -------
    GPUArray
        Float dtype matching ``z``'s precision.
    """
    res = apply("angle", (z,), None if deg else out, stream)
    if deg:
        res = apply("multiply", (res, 180.0 / math.pi), out, stream)
    return res


def clip(a, a_min, a_max, out=None, stream=None):
    """Limit values to ``[a_min, a_max]`` (numpy.clip).

    Either bound may be None (then only the other applies); both None gives
    a copy, as numpy 2.1+. For integer arrays, a Python int bound outside the
    dtype's range is dropped, as numpy 2 does.  The signature is numpy's
    positional one plus PyCUDA's ``stream``; numpy 2.1's ``min``/``max``
    keywords are not taken.

    Parameters
    ----------
    a : GPUArray or array_like
        The values; bool, integer, float or complex (complex in numpy's
        lexicographic order); NaN propagates, as numpy's.
    a_min, a_max : scalar, GPUArray, array_like or None
        The lower and upper bounds, broadcast against ``a``; Python scalars
        are weak in the promotion (NEP 50).
    out : GPUArray, optional
        Receives the result; the result dtype must cast to its dtype under
        ``same_kind``.
    stream : gpuarr.driver.Stream, optional
        The stream the kernel runs on; default the legacy default stream.

    Returns
    -------
    GPUArray
        Of the broadcast shape and numpy's promoted dtype of ``a`` and the
        bounds; ``out`` when given.

    Raises
    ------
    TypeError, OverflowError, ValueError
        As the underlying ``minimum``/``maximum`` resolution (an ``out`` the
        result cannot be cast to raises :class:`gpuarr.UFuncTypeError`;
        shapes that do not broadcast raise ValueError).
    """
    dt = getattr(a, "dtype", None)
    if dt is not None and dt.kind in "iu":
        # numpy 2: a Python int bound beyond the dtype's range is no bound
        info = np.iinfo(dt)
        if type(a_min) is int and a_min < info.min:
            a_min = None
        if type(a_max) is int and a_max > info.max:
            a_max = None
    if a_min is None and a_max is None:
        a = asarray(a)
        if out is None:
            return a.copy(stream=stream)
        if out.dtype != a.dtype and not np.can_cast(a.dtype, out.dtype,
                                                    "same_kind"):
            raise casting_error("clip", a.dtype, out.dtype)
        assign(out, a, stream)
        return out
    if a_min is None:
        return apply("minimum", (a, a_max), out, stream)
    if a_max is None:
        return apply("maximum", (a, a_min), out, stream)
    return apply("clip", (a, a_min, a_max), out, stream)


def frexp(x, out=None, stream=None):
    """Mantissa and exponent of each element (numpy.frexp):
    ``x == m * 2**e`` with ``0.5 <= |m| < 1``, or ``m = x, e = 0`` for
    zeros, infinities and NaN.

    Parameters
    ----------
    x : GPUArray
        Real values; integers and bool are converted as numpy's loops do
        (int8/uint8/bool to float16, int16 to float32, others to float64).
    out : tuple of (GPUArray or None), optional
        numpy's ``out=(m, e)``; each given array receives its result cast
        under ``same_kind`` casting.
    stream : gpuarr.driver.Stream, optional

    Returns
    -------
    (GPUArray, GPUArray)
        The mantissas (``x``'s float dtype) and the exponents (int32).

    Raises
    ------
    TypeError
        For complex input or outputs the results cannot be cast to.
    ValueError
        For an ``out`` that is no 2-tuple, or of another shape.
    """
    return apply_outputs("frexp", (x,), out, stream)


def modf(x, out=None, stream=None):
    """Fractional and integral parts of each element (numpy.modf), both
    with ``x``'s sign: ``modf(-2.5) == (-0.5, -2.0)``, ``modf(inf) ==
    (0.0, inf)``.

    Parameters
    ----------
    x : GPUArray
        Real values; integers and bool are converted as for :func:`frexp`.
    out : tuple of (GPUArray or None), optional
        numpy's ``out=(frac, whole)``.
    stream : gpuarr.driver.Stream, optional

    Returns
    -------
    (GPUArray, GPUArray)
        Both of ``x``'s float dtype.

    Raises
    ------
    TypeError, ValueError
        As :func:`frexp`.
    """
    return apply_outputs("modf", (x,), out, stream)


def divmod(x1, x2, out=None, stream=None):
    """Quotient and remainder of each pair at once (numpy.divmod):
    ``(floor_divide(x1, x2), remainder(x1, x2))``, numpy's results for
    division by zero and for negative operands.

    Parameters
    ----------
    x1, x2 : GPUArray, scalar or array_like
        Integers, bool or real floats, broadcast together; their dtypes
        promote as numpy's (Python scalars weak, NEP 50).
    out : tuple of (GPUArray or None), optional
        numpy's ``out=(quotient, remainder)``; each given array receives
        its result cast under ``same_kind`` casting.
    stream : gpuarr.driver.Stream, optional

    Returns
    -------
    (GPUArray, GPUArray)
        Both of the promoted dtype (the loop's: bool gives int8).

    Raises
    ------
    TypeError
        For complex operands or outputs the results cannot be cast to.
    ValueError
        For shapes that do not broadcast, an ``out`` that is no 2-tuple,
        or one of another shape.
    """
    return apply_outputs("divmod", (x1, x2), out, stream)
