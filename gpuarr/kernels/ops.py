"""The built-in elementwise operations, by numpy ufunc name.

Each operation maps the *kind* of its loop dtype (``b`` bool, ``i`` signed
integer, ``u`` unsigned integer, ``f`` real float incl. float16, ``c``
complex) to a C expression.  In the expression ``{0}``, ``{1}``, ``{2}``
are the (already converted) inputs; ``{T}`` is the compute type of the loop
dtype, ``{R}`` its real type (``float``/``double``), ``{F}`` the math
function suffix (``f`` for float32/float16, empty for float64), ``{U}`` the
unsigned type of an integer loop and ``{BITS}`` its width.

Semantics follow numpy 2 where its C loops define them:

* integer ``floor_divide``/``remainder``/``fmod`` by zero give 0 (numpy
  warns and gives 0); floor semantics for negative operands; the remainder
  takes the divisor's sign;
* float ``floor_divide``/``remainder`` use numpy's ``npy_divmod``;
* ``power`` for integers is exponentiation by squaring.  numpy raises
  ValueError for a negative integer exponent (scalar or array); gpuarr
  raises it for scalar exponents before launch, but for an array exponent
  a kernel cannot raise, so it gives ``1`` for base 1, ``+-1`` for base -1
  and 0 otherwise (the value of ``1 / base**-e`` truncated);
* ``minimum``/``maximum`` propagate NaN, ``fmin``/``fmax`` do not;
* float16 is computed in float32 and rounded once, like numpy;
* shifts by the bit width or more give 0 (or -1 for a negative signed
  right shift), as numpy;
* ``sign`` of a complex is ``z / |z|`` (numpy 2); ``rint`` rounds half to
  even;
* complex ordering comparisons are lexicographic, as numpy, and so are
  complex ``minimum``/``maximum``/``fmin``/``fmax``;
* complex transcendental functions are computed in double (complex64
  rounds once at the end) with C99's branch cuts, as numpy's.
"""

import numpy as np

from .. import _dtypes

__all__ = ["OPS", "ALIASES", "Op", "get_op", "op_expression"]


class Op:
    """One built-in operation.

    Attributes
    ----------
    name : str
    nin, nout : int
    exprs : dict
        Kind letter -> C expression template; for an op with two outputs
        (``frexp``, ``modf``) a tuple of one template per output.
    ufunc : numpy.ufunc or None
        The ufunc whose type resolution the op uses.
    resolver : str
        ``"ufunc"``, or the name of a special rule (``"copy"``, ``"where"``,
        ``"if_positive"``, ``"angle"``, ``"fill"``).
    """

    __slots__ = ("name", "nin", "nout", "exprs", "ufunc", "resolver")

    def __init__(self, name, nin, exprs, ufunc=None, resolver="ufunc",
                 nout=1):
        self.name = name
        self.nin = nin
        self.nout = nout
        self.exprs = {}
        for kinds, e in exprs.items():
            for k in kinds:
                self.exprs[k] = e
        self.ufunc = ufunc
        self.resolver = resolver

    def __repr__(self):
        return "<gpuarr op %s>" % self.name


_I = "iu"
_N = "iuf"        # real numbers
_A = "iufc"       # all numbers
_ALL = "biufc"

def _C(f):
    """A complex function computed in double (see common.cu.mako)."""
    return "ga_cto<{R}>(%s(ga_c2d({0})))" % f


_TABLE = [
    # name, nin, {kinds: expr}
    ("add", 2, {"b": "({0} || {1})", _A: "({0} + {1})"}),
    ("subtract", 2, {_A: "({0} - {1})"}),
    ("multiply", 2, {"b": "({0} && {1})", _A: "({0} * {1})"}),
    ("true_divide", 2, {"fc": "({0} / {1})"}),
    ("floor_divide", 2, {_I + "f": "ga_floor_divide({0}, {1})"}),
    ("remainder", 2, {_I + "f": "ga_remainder({0}, {1})"}),
    ("fmod", 2, {"i": "({1} == 0 || {1} == -1 ? ({T})0 : ({T})({0} % {1}))",
                 "u": "({1} == 0 ? ({T})0 : ({T})({0} % {1}))",
                 "f": "fmod{F}({0}, {1})"}),
    ("power", 2, {_I: "ga_ipow({0}, {1})", "f": "pow{F}({0}, {1})",
                "c": "ga_cto<{R}>(ga_cpow(ga_c2d({0}), ga_c2d({1})))"}),
    ("negative", 1, {_I: "({T})(({U})0 - ({U}){0})", "fc": "(-{0})"}),
    ("positive", 1, {_A: "{0}"}),
    ("absolute", 1, {"b": "{0}", "i": "({T})({0} < 0 ? ({U})0 - ({U}){0} : ({U}){0})",
                     "u": "{0}", "f": "fabs{F}({0})", "c": "ga_abs({0})"}),
    ("invert", 1, {"b": "(!{0})", _I: "({T})(~{0})"}),
    ("bitwise_and", 2, {"b": "({0} && {1})", _I: "({T})({0} & {1})"}),
    ("bitwise_or", 2, {"b": "({0} || {1})", _I: "({T})({0} | {1})"}),
    ("bitwise_xor", 2, {"b": "({0} != {1})", _I: "({T})({0} ^ {1})"}),
    ("left_shift", 2, {_I: "ga_lshift({0}, {1})"}),
    ("right_shift", 2, {_I: "ga_rshift({0}, {1})"}),
    ("equal", 2, {"b" + _N + "c": "({0} == {1})"}),
    ("not_equal", 2, {"b" + _N + "c": "({0} != {1})"}),
    ("less", 2, {"b" + _N: "({0} < {1})", "c": "ga_clt({0}, {1})"}),
    ("less_equal", 2, {"b" + _N: "({0} <= {1})", "c": "ga_cle({0}, {1})"}),
    ("greater", 2, {"b" + _N: "({0} > {1})", "c": "ga_clt({1}, {0})"}),
    ("greater_equal", 2, {"b" + _N: "({0} >= {1})", "c": "ga_cle({1}, {0})"}),
    ("logical_and", 2, {_ALL: "(ga_nonzero({0}) && ga_nonzero({1}))"}),
    ("logical_or", 2, {_ALL: "(ga_nonzero({0}) || ga_nonzero({1}))"}),
    ("logical_xor", 2, {_ALL: "(ga_nonzero({0}) != ga_nonzero({1}))"}),
    ("logical_not", 1, {_ALL: "(!ga_nonzero({0}))"}),
    ("sin", 1, {"f": "sin{F}({0})", "c": _C("ga_csin")}),
    ("cos", 1, {"f": "cos{F}({0})", "c": _C("ga_ccos")}),
    ("tan", 1, {"f": "tan{F}({0})", "c": _C("ga_ctan")}),
    ("arcsin", 1, {"f": "asin{F}({0})", "c": _C("ga_casin")}),
    ("arccos", 1, {"f": "acos{F}({0})", "c": _C("ga_cacos")}),
    ("arctan", 1, {"f": "atan{F}({0})", "c": _C("ga_catan")}),
    ("arctan2", 2, {"f": "atan2{F}({0}, {1})"}),
    ("sinh", 1, {"f": "sinh{F}({0})", "c": _C("ga_csinh")}),
    ("cosh", 1, {"f": "cosh{F}({0})", "c": _C("ga_ccosh")}),
    ("tanh", 1, {"f": "tanh{F}({0})", "c": _C("ga_ctanh")}),
    ("arcsinh", 1, {"f": "asinh{F}({0})", "c": _C("ga_casinh")}),
    ("arccosh", 1, {"f": "acosh{F}({0})", "c": _C("ga_cacosh")}),
    ("arctanh", 1, {"f": "atanh{F}({0})", "c": _C("ga_catanh")}),
    ("exp", 1, {"f": "exp{F}({0})", "c": "ga_exp({0})"}),
    ("exp2", 1, {"f": "exp2{F}({0})",
              "c": "ga_cto<{R}>(ga_exp(ga_c2d({0}) * 0.6931471805599453))"}),
    ("expm1", 1, {"f": "expm1{F}({0})", "c": _C("ga_cexpm1")}),
    ("log", 1, {"f": "log{F}({0})", "c": "ga_log({0})"}),
    ("log2", 1, {"f": "log2{F}({0})",
              "c": "ga_cto<{R}>(ga_log(ga_c2d({0})) * 1.4426950408889634)"}),
    ("log10", 1, {"f": "log10{F}({0})",
               "c": "ga_cto<{R}>(ga_log(ga_c2d({0})) * 0.4342944819032518)"}),
    ("log1p", 1, {"f": "log1p{F}({0})", "c": _C("ga_clog1p")}),
    ("sqrt", 1, {"f": "sqrt{F}({0})", "c": "ga_sqrt({0})"}),
    ("cbrt", 1, {"f": "cbrt{F}({0})"}),
    ("square", 1, {"b": "({0} && {0})", _A: "({0} * {0})"}),
    ("reciprocal", 1, {"i": "({T})({0} == 1 ? 1 : ({0} == -1 ? -1 : 0))",
                       "u": "({T})({0} == 1 ? 1 : 0)",
                       "f": "(({T})1 / {0})", "c": "(({T})1 / {0})"}),
    ("fabs", 1, {"f": "fabs{F}({0})"}),
    ("sign", 1, {"i": "({T})(({0} > 0) - ({0} < 0))", "u": "({T})({0} > 0)",
                 "f": "({0} > 0 ? ({T})1 : ({0} < 0 ? ({T})-1 : "
                      "({0} == 0 ? ({T})0 : {0})))",
                 "c": "ga_sign({0})"}),
    ("floor", 1, {"b" + _I: "{0}", "f": "floor{F}({0})"}),
    ("ceil", 1, {"b" + _I: "{0}", "f": "ceil{F}({0})"}),
    ("trunc", 1, {"b" + _I: "{0}", "f": "trunc{F}({0})"}),
    ("rint", 1, {"b" + _I: "{0}", "f": "rint{F}({0})",
               "c": "ga_complex<{R}>(rint{F}({0}.re), rint{F}({0}.im))"}),
    ("hypot", 2, {"f": "hypot{F}({0}, {1})"}),
    # complex: numpy's lexicographic order; minimum/maximum keep a NaN
    # first operand, fmin/fmax the first operand when the second is NaN
    ("minimum", 2, {"b": "({0} && {1})", _I: "({0} < {1} ? {0} : {1})",
                    "f": "(({0} <= {1} || {0} != {0}) ? {0} : {1})",
                    "c": "((ga_cisnan({0}) || ga_cle({0}, {1})) ? {0} : {1})"}),
    ("maximum", 2, {"b": "({0} || {1})", _I: "({0} > {1} ? {0} : {1})",
                    "f": "(({0} >= {1} || {0} != {0}) ? {0} : {1})",
                    "c": "((ga_cisnan({0}) || ga_cle({1}, {0})) ? {0} : {1})"}),
    ("fmin", 2, {"b": "({0} && {1})", _I: "({0} < {1} ? {0} : {1})",
                 "f": "fmin{F}({0}, {1})",
                 "c": "((ga_cisnan({1}) || ga_cle({0}, {1})) ? {0} : {1})"}),
    ("fmax", 2, {"b": "({0} || {1})", _I: "({0} > {1} ? {0} : {1})",
                 "f": "fmax{F}({0}, {1})",
                 "c": "((ga_cisnan({1}) || ga_cle({1}, {0})) ? {0} : {1})"}),
    ("isnan", 1, {"b" + _I: "false", "f": "({0} != {0})",
                  "c": "({0}.re != {0}.re || {0}.im != {0}.im)"}),
    ("isinf", 1, {"b" + _I: "false", "f": "ga_isinf({0})",
                  "c": "(ga_isinf({0}.re) || ga_isinf({0}.im))"}),
    ("isfinite", 1, {"b" + _I: "true", "f": "ga_isfinite({0})",
                     "c": "(ga_isfinite({0}.re) && ga_isfinite({0}.im))"}),
    ("conjugate", 1, {"b" + _N: "{0}", "c": "ga_conj({0})"}),
    # integer exponents of any width: the helper clamps them to int
    ("ldexp", 2, {"f": "ga_ldexp({0}, (long long){1})"}),
    ("copysign", 2, {"f": "copysign{F}({0}, {1})"}),
    ("signbit", 1, {"f": "(signbit({0}) != 0)"}),
    ("nextafter", 2, {"f": "ga_nextafter({0}, {1}, {BITS})"}),
    ("spacing", 1, {"f": "ga_spacing({0}, {BITS})"}),
    ("logaddexp", 2, {"f": "ga_logaddexp({0}, {1})"}),
    ("logaddexp2", 2, {"f": "ga_logaddexp2({0}, {1})"}),
    ("heaviside", 2, {"f": "ga_heaviside({0}, {1})"}),
    # numpy's constants, rounded to the loop's type as its C loops do
    ("deg2rad", 1, {"f": "({0} * (({T})3.141592653589793 / ({T})180))"}),
    ("radians", 1, {"f": "({0} * (({T})3.141592653589793 / ({T})180))"}),
    ("rad2deg", 1, {"f": "({0} * (({T})180 / ({T})3.141592653589793))"}),
    ("degrees", 1, {"f": "({0} * (({T})180 / ({T})3.141592653589793))"}),
    ("gcd", 2, {"i": "({T})ga_ugcd<{U}>(ga_uabs<{U}>({0}), ga_uabs<{U}>({1}))",
                "u": "ga_ugcd<{U}>({0}, {1})"}),
    ("lcm", 2, {"i": "({T})ga_ulcm<{U}>(ga_uabs<{U}>({0}), ga_uabs<{U}>({1}))",
                "u": "ga_ulcm<{U}>({0}, {1})"}),
    # the bits of the absolute value (numpy 2), uint8
    ("bitwise_count", 1, {"i": "__popcll((unsigned long long)ga_uabs<{U}>({0}))",
                          "u": "__popcll((unsigned long long){0})"}),
    ("float_power", 2, {"f": "pow({0}, {1})",
                        "c": "ga_cto<{R}>(ga_cpow(ga_c2d({0}), ga_c2d({1})))"}),
]

#: name -> :class:`Op`.
OPS = {}
for _name, _nin, _exprs in _TABLE:
    OPS[_name] = Op(_name, _nin, _exprs, ufunc=getattr(np, _name))
del _name, _nin, _exprs

# numpy's two-output ufuncs: (fractional, integral) and (mantissa, exponent)
OPS["modf"] = Op("modf", 1, {"f": ("ga_modf_frac({0})", "trunc{F}({0})")},
                 ufunc=np.modf, nout=2)
OPS["frexp"] = Op("frexp", 1, {"f": ("ga_frexp_m({0})", "ga_frexp_e({0})")},
                  ufunc=np.frexp, nout=2)
# (quotient, remainder): numpy's floor_divide and remainder at once
OPS["divmod"] = Op("divmod", 2, {_I + "f": ("ga_floor_divide({0}, {1})",
                                            "ga_remainder({0}, {1})")},
                   ufunc=np.divmod, nout=2)

# numpy's clip is a ufunc (``np._core.umath.clip``) with NaN propagation.
OPS["clip"] = Op("clip", 3, {
    _I: "ga_clip_int({0}, {1}, {2})",
    "b": "(({0} || {1}) && {2})",
    "f": "ga_clip_float({0}, {1}, {2})",
    "c": "ga_cclip({0}, {1}, {2})"},
    ufunc=np._core.umath.clip)
# Non-ufunc operations with their own resolution rules.
OPS["copy"] = Op("copy", 1, {_ALL: "{0}"}, resolver="copy")
OPS["fill"] = Op("fill", 1, {_ALL: "{0}"}, resolver="copy")
OPS["where"] = Op("where", 3, {_ALL: "({0} ? {1} : {2})"}, resolver="where")
OPS["if_positive"] = Op("if_positive", 3, {_ALL: "({0} > 0 ? {1} : {2})"},
                        resolver="if_positive")
OPS["angle"] = Op("angle", 1, {"f": "atan2{F}(({T})0, {0})",
                               "c": "ga_angle({0})"}, resolver="angle")

#: Other names accepted for ops.
ALIASES = {
    "divide": "true_divide", "abs": "absolute", "conj": "conjugate",
    "mod": "remainder", "bitwise_not": "invert", "pow": "power",
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2",
    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
    "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
    "astype": "copy",
}

#: Comparisons, which numpy 2 answers correctly for out-of-range Python ints.
COMPARISONS = {"equal": (False, False, False), "not_equal": (True, True, True),
               "less": (True, False, None), "less_equal": (True, False, None),
               "greater": (False, True, None),
               "greater_equal": (False, True, None)}


def get_op(name):
    """Return the :class:`Op` called ``name`` (or one of its aliases).

    Raises
    ------
    ValueError
        For an unknown name.
    """
    if isinstance(name, Op):
        return name
    try:
        return OPS[name]
    except KeyError:
        pass
    try:
        return OPS[ALIASES[name]]
    except KeyError:
        raise ValueError("unknown elementwise operation %r" % (name,)) from None


def kind(dtype):
    """The kind letter of a dtype used by the expression tables."""
    k = dtype.kind
    return k


#: numpy's loops comparing a signed with an unsigned 64-bit integer compare
#: the values mathematically: by the signed operand's kind ({0} the first
#: operand, {1} the second, {C} the C comparison operator).
_MIXED_COMPARE = {
    "i": "({0} < 0 ? (0 {C} 1) : ((unsigned long long){0} {C} {1}))",
    "u": "({1} < 0 ? (1 {C} 0) : ({0} {C} (unsigned long long){1}))",
}
_C_COMPARE = {"equal": "==", "not_equal": "!=", "less": "<",
              "less_equal": "<=", "greater": ">", "greater_equal": ">="}

_UNSIGNED = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
             8: "unsigned long long"}


def op_expression(op, loop_dtypes, args, out=0):
    """The C expression of ``op`` over the loop dtypes.

    Parameters
    ----------
    op : Op
    loop_dtypes : tuple of numpy.dtype
    args : sequence of str
        C expressions of the inputs, already of the loop dtypes' compute
        types.
    out : int
        Which output's expression, for ops with more than one.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        When gpuarr has no implementation for that loop (numpy may have
        one, e.g. ``sin`` of a complex).
    """
    if op.resolver in ("where", "if_positive"):
        dt = loop_dtypes[1]
    else:
        dt = loop_dtypes[0]
    k = dt.kind
    # numpy's int64 vs uint64 comparison loop: compare mathematically.
    if (op.name in COMPARISONS and len(loop_dtypes) == 2
            and loop_dtypes[0] != loop_dtypes[1]):
        tmpl = _MIXED_COMPARE["i" if loop_dtypes[0].kind == "i" else "u"]
        return tmpl.format(*args, C=_C_COMPARE[op.name])
    try:
        tmpl = op.exprs[k]
    except KeyError:
        raise TypeError("gpuarr has no GPU implementation of %r for dtype %s"
                        % (op.name, dt)) from None
    if isinstance(tmpl, tuple):
        tmpl = tmpl[out]
    subs = {"T": _dtypes.reg_ctype(dt)}
    if k == "c":
        subs["R"] = "float" if dt.itemsize == 8 else "double"
        subs["F"] = "f" if dt.itemsize == 8 else ""
    elif k == "f":
        subs["R"] = subs["T"]
        subs["F"] = "" if dt.itemsize == 8 else "f"
    else:
        subs["R"] = subs["T"]
        subs["F"] = ""
    if k in "iu":
        subs["U"] = _UNSIGNED[dt.itemsize]
        subs["BITS"] = str(8 * dt.itemsize)
    else:
        subs["U"] = subs["T"]
        subs["BITS"] = str(8 * dt.itemsize)
    return tmpl.format(*args, **subs)
