"""The C arguments of user kernels: declarations, parsing, checks, packing.

Layer 4, below :mod:`gpuarr.elementwise`, :mod:`gpuarr.reduction` and
:mod:`gpuarr.scan`, which share it.  PyCUDA's names (:class:`VectorArg`,
:class:`ScalarArg`, :func:`parse_c_arg`) are re-exported by
:mod:`gpuarr.elementwise`, where PyCUDA has them too.

A kernel's parameter list (a C string such as ``"float a, float *x"``, or
VectorArg/ScalarArg objects) becomes a :class:`KernelArguments`: the parsed
arguments, their launch format, and :meth:`KernelArguments.pack`, the
per-call check and conversion of the values passed.
"""

import re

import numpy as np

from . import _argtypes, _dtypes

__all__ = ["VectorArg", "ScalarArg", "KernelArguments", "parse_c_arg",
           "parse_arguments", "argument_decls", "check_name", "is_identifier",
           "is_c_contiguous", "check_device_array"]

_PY_SCALARS = (bool, int, float, complex)
_VOID = np.void


class VectorArg:
    """A pointer argument of a user kernel
    (:class:`gpuarr.elementwise.ElementwiseKernel`,
    :class:`gpuarr.reduction.ReductionKernel`).

    Parameters
    ----------
    dtype : dtype-like
    name : str
    c_type : str, optional
        The C type name to declare it with (the name a struct was declared
        by, e.g. ``longlong2`` for the dtype also named ``long2``); default
        the dtype's own (:func:`gpuarr._dtypes.ctype`).
    """

    def __init__(self, dtype, name, c_type=None):
        self.dtype = np.dtype(dtype)
        self.name = name
        self.c_type = c_type

    def ctype(self):
        """The C type of the parameter's elements."""
        return self.c_type or _dtypes.ctype(self.dtype)

    def declarator(self):
        """The C declaration of the parameter."""
        return "%s *%s" % (self.ctype(), self.name)

    def __repr__(self):
        return "VectorArg(%s, %r)" % (self.dtype, self.name)

    def __eq__(self, other):
        return (type(self) is type(other) and self.dtype == other.dtype
                and self.name == other.name)

    def __hash__(self):
        return hash((type(self), self.dtype, self.name))


class ScalarArg(VectorArg):
    """A scalar (by value) argument of a user kernel.

    PyCUDA's ``ScalarArg(dtype, name)``; ``c_type`` is gpuarr's addition,
    as for :class:`VectorArg`.

    Parameters
    ----------
    dtype : dtype-like
        The value's dtype: values passed at launch are converted to it
        (with numpy's range checks for Python ints).
    name : str
        The parameter's name in the C source.
    c_type : str, optional
        The C type name to declare it with; default the dtype's own
        (:func:`gpuarr._dtypes.ctype`).
    """

    def declarator(self):
        return "%s %s" % (self.ctype(), self.name)

    def __repr__(self):
        return "ScalarArg(%s, %r)" % (self.dtype, self.name)


_C_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char
char8_t char16_t char32_t class compl concept const consteval constexpr
constinit const_cast continue co_await co_return co_yield decltype default
delete do double dynamic_cast else enum explicit export extern false float
for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register
reinterpret_cast requires restrict return short signed sizeof static
static_assert static_cast struct switch template this thread_local throw
true try typedef typeid typename union unsigned using virtual void volatile
wchar_t while xor xor_eq _Bool _Complex __global__ __device__ __host__
__shared__ __constant__ __restrict__ main
""".split())

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# C type spellings accepted in argument lists -> dtype
_TYPE_NAMES = {
    "bool": "?", "_Bool": "?",
    "char": "b", "signed char": "b", "int8_t": "b",
    "unsigned char": "B", "uint8_t": "B",
    "short": "h", "short int": "h", "signed short": "h", "int16_t": "h",
    "signed short int": "h",
    "unsigned short": "H", "unsigned short int": "H", "uint16_t": "H",
    "int": "i", "signed int": "i", "signed": "i", "int32_t": "i",
    "unsigned": "I", "unsigned int": "I", "uint32_t": "I",
    "long": "q", "long int": "q", "signed long": "q", "long long": "q",
    "long long int": "q", "signed long long": "q", "int64_t": "q",
    "ptrdiff_t": "q", "ssize_t": "q",
    "unsigned long": "Q", "unsigned long int": "Q",
    "unsigned long long": "Q", "unsigned long long int": "Q",
    "uint64_t": "Q", "size_t": "Q",
    "ga_half": "e", "half": "e", "__half": "e",
    "float": "f", "double": "d",
    "ga_complex<float>": "F", "pycuda::complex<float>": "F",
    "complex<float>": "F", "gpuarr::complex<float>": "F",
    "ga_complex<double>": "D", "pycuda::complex<double>": "D",
    "complex<double>": "D", "gpuarr::complex<double>": "D",
}


def is_identifier(name):
    """Whether ``name`` is a str spelling a C identifier."""
    return isinstance(name, str) and _IDENT.match(name) is not None


def check_name(name, what):
    """Refuse a ``name`` that is not a C identifier, or is a C/C++ keyword.

    Parameters
    ----------
    name : object
    what : str
        What the name is, for the message (``"kernel name"``, ...).

    Raises
    ------
    ValueError
    """
    if not is_identifier(name):
        raise ValueError("%s %r is not a valid C identifier" % (what, name))
    if name in _C_KEYWORDS:
        raise ValueError("%s %r is a C/C++ keyword" % (what, name))


def parse_c_arg(decl):
    """Parse one C parameter declaration into a VectorArg or ScalarArg.

    Parameters
    ----------
    decl : str
        For example ``"float *x"``, ``"const double* __restrict__ y"``,
        ``"unsigned int n"``.

    Returns
    -------
    VectorArg or ScalarArg

    Raises
    ------
    ValueError
        When the declaration cannot be parsed or names an unknown type.
    """
    s = decl.strip()
    if not s:
        raise ValueError("empty argument declaration")
    m = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*(\[\s*\])?$", s, re.S)
    if m is None:
        raise ValueError("cannot parse argument declaration %r" % decl)
    tpart, name, brackets = m.group(1), m.group(2), m.group(3)
    pointer = tpart.count("*") + (1 if brackets else 0)
    if pointer > 1:
        raise ValueError("argument %r: pointers to pointers are not supported"
                         % name)
    words = tpart.replace("*", " ").split()
    words = [w for w in words if w not in ("const", "volatile", "__restrict__",
                                           "restrict", "__restrict")]
    tname = " ".join(words)
    tname = re.sub(r"\s*<\s*", "<", tname)
    tname = re.sub(r"\s*>", ">", tname)
    if not tname:
        raise ValueError("argument %r has no type" % name)
    c_type = None
    try:
        dt = np.dtype(_TYPE_NAMES[tname])
    except KeyError:
        # CUDA's vector types and the names given to
        # gpuarr.tools.get_or_register_dtype (a user's struct)
        dt = _dtypes.registered_dtype(tname)
        if dt is None:
            raise ValueError("argument %r: unknown C type %r (a struct needs "
                             "gpuarr.tools.get_or_register_dtype first)"
                             % (name, tname)) from None
        if dt.kind == "V":
            # structs of one layout under two names (long2, longlong2) are
            # distinct C++ types: declare it as the user did
            c_type = tname
    check_name(name, "argument name")
    return (VectorArg if pointer else ScalarArg)(dt, name, c_type)


def _struct_value(x, dtype, name):
    """A struct argument's value as a numpy scalar of ``dtype``: from one
    of that dtype (scalar or 0-d array), a tuple of its fields, or bytes of
    its size."""
    if isinstance(x, (np.void, np.ndarray)):
        if x.dtype != dtype or np.ndim(x) != 0:
            raise TypeError("argument %r: a %s of dtype %s%s where %s was "
                            "declared" % (name, type(x).__name__, x.dtype,
                                          " and shape %s" % (x.shape,)
                                          if np.ndim(x) else "",
                                          _dtypes.ctype(dtype)))
        return x[()] if isinstance(x, np.ndarray) else x
    if isinstance(x, (bytes, bytearray)):
        if len(x) != dtype.itemsize:
            raise TypeError("argument %r: %d bytes for a %d-byte %s"
                            % (name, len(x), dtype.itemsize,
                               _dtypes.ctype(dtype)))
        return np.frombuffer(bytes(x), dtype)[0]
    if isinstance(x, tuple):
        try:
            return np.array(x, dtype)[()]
        except (TypeError, ValueError) as exc:
            raise TypeError("argument %r: cannot make a %s of %r: %s"
                            % (name, _dtypes.ctype(dtype), x, exc)) from None
    raise TypeError("argument %r: a %s (struct) takes a numpy struct scalar "
                    "of its dtype, a tuple of its fields or bytes, not %s"
                    % (name, _dtypes.ctype(dtype), type(x).__name__))


def parse_arguments(arguments, family="ElementwiseKernel"):
    """Parse a C argument list (string) or a list of Vector/ScalarArgs.

    ``family`` names the kernel class in error messages.

    Returns
    -------
    list of VectorArg / ScalarArg
    """
    if isinstance(arguments, str):
        parts = [p for p in _split_args(arguments)]
        if len(parts) == 1 and not parts[0].strip():
            raise ValueError("%s needs at least one argument" % family)
        args = [parse_c_arg(p) for p in parts]
    else:
        args = []
        for a in arguments:
            if isinstance(a, VectorArg):
                check_name(a.name, "argument name")
                if not _dtypes.is_registered_struct(a.dtype):
                    _dtypes.check_supported(a.dtype)
                args.append(a)
            elif isinstance(a, str):
                args.append(parse_c_arg(a))
            else:
                raise TypeError("arguments must be a C declaration string or "
                                "VectorArg/ScalarArg objects, not %r" % (a,))
        if not args:
            raise ValueError("%s needs at least one argument" % family)
    names = set()
    for a in args:
        if a.name in names:
            raise ValueError("argument name %r used twice" % a.name)
        if a.name in ("i", "n") or a.name.startswith("ga_"):
            raise ValueError("argument name %r is reserved" % a.name)
        names.add(a.name)
    if not any(isinstance(a, VectorArg) and not isinstance(a, ScalarArg)
               for a in args):
        raise ValueError("%s needs at least one pointer argument" % family)
    return args


def _split_args(s):
    # split at commas outside <...>
    out, depth, cur = [], 0, []
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def argument_decls(args):
    """Per parsed argument: (scalar?, name, dtype, the dtype's scalar type),
    as :meth:`KernelArguments.pack` reads them on each call."""
    return [(isinstance(a, ScalarArg), a.name, a.dtype, a.dtype.type)
            for a in args]


def _char(arg):
    """An argument's launch format: ``P`` for a pointer, the dtype's
    character for a scalar, PyCUDA's ``"<n>s"`` for a struct by value."""
    if not isinstance(arg, ScalarArg):
        return "P"
    if arg.dtype.kind == "V":
        return "%ds" % arg.dtype.itemsize
    return arg.dtype.char


class KernelArguments:
    """The parsed C parameter list of a user kernel.

    Parameters
    ----------
    arguments : str or list
        C parameter list (``"float a, float *x"``) or a list of
        :class:`VectorArg` / :class:`ScalarArg` (and declaration strings),
        as :func:`parse_arguments` takes.
    kernel : str
        The kernel's name, for messages.
    family : str, optional
        The kernel class, for messages (``"ElementwiseKernel"``,
        ``"ReductionKernel"``).

    Attributes
    ----------
    args : list of VectorArg / ScalarArg
    decl : list of tuple
        :func:`argument_decls` of ``args``.
    vector_index : list of int
        Positions of the pointer arguments.
    chars : str
        The launch format (``Function.prepare``): ``P`` per pointer, the
        dtype's character per scalar, ``"<n>s"`` per struct by value.
    """

    __slots__ = ("args", "kernel", "family", "decl", "vector_index", "chars")

    def __init__(self, arguments, kernel, family="ElementwiseKernel"):
        self.args = parse_arguments(arguments, family)
        self.kernel = kernel
        self.family = family
        self.decl = argument_decls(self.args)
        self.vector_index = [k for k, a in enumerate(self.args)
                             if not isinstance(a, ScalarArg)]
        self.chars = "".join(_char(a) for a in self.args)

    def params(self, pointer):
        """``[(C type, name)]`` of the kernel's parameters, each pointer's
        type followed by ``pointer`` (``" *"``, ``" *__restrict__"``)."""
        out = []
        for a in self.args:
            ct = a.ctype()
            if isinstance(a, ScalarArg):
                out.append((ct, a.name))
            else:
                out.append((ct + pointer, a.name))
        return out

    def pack(self, values):
        """Check one call's arguments and convert them for the launch.

        Parameters
        ----------
        values : sequence
            One value per declared argument: a device array (``.ptr``,
            ``.dtype``, ``.shape``, ``.strides``) of the declared dtype,
            C-contiguous, for each pointer; a Python or numpy scalar for
            each scalar (converted to the declared dtype with numpy's
            range checks).

        Returns
        -------
        (list, int or None)
            The kernel's argument values (pointers as int, scalars as
            numpy scalars) and the arrays' common size (None without
            pointer arguments).

        Raises
        ------
        TypeError
            For a wrong count of arguments, a wrong dtype or kind of value.
        ValueError
            For a non-contiguous array or arrays of different sizes.
        OverflowError
            For a Python integer out of a scalar's range.
        """
        if len(values) != len(self.args):
            raise TypeError("%s() takes %d arguments (%d given): %s"
                            % (self.kernel, len(self.args), len(values),
                               ", ".join(a.name for a in self.args)))
        n = None
        first = None
        out = []
        for (is_scalar, name, dtype, stype), x in zip(self.decl, values):
            t = type(x)
            if is_scalar:
                if stype is _VOID:      # a struct by value
                    v = _struct_value(x, dtype, name)
                elif t is stype:
                    v = x               # already the declared numpy type
                elif t in _PY_SCALARS:
                    try:
                        v = _dtypes.convert_scalar(x, dtype)
                    except (OverflowError, TypeError) as exc:
                        raise type(exc)("argument %r: %s" % (name, exc)) from None
                elif isinstance(x, np.generic):
                    v = _dtypes.convert_scalar(x, dtype)
                else:
                    raise TypeError("argument %r: expected a scalar, got %s"
                                    % (name, t.__name__))
                out.append(v)
                continue
            if t in _PY_SCALARS or isinstance(x, np.generic) or \
                    not hasattr(x, "ptr"):
                raise TypeError("argument %r: expected a device array, got %s"
                                % (name, t.__name__))
            if x.dtype != dtype:
                raise TypeError("argument %r: array of dtype %s where %s was "
                                "declared" % (name, x.dtype, dtype))
            if stype is _VOID:          # an array of structs
                # CUDA's for vector types, a C struct's for the others (the
                # rule Function.prepare lays struct parameters out by)
                align = _argtypes.c_alignment(dtype) or 1
                if x.ptr % align:
                    raise ValueError(
                        "argument %r: an array of %s must start at a "
                        "multiple of %d bytes (CUDA's alignment of the "
                        "type), not at 0x%x" % (name, _dtypes.ctype(dtype),
                                                align, x.ptr))
            shape = x.shape
            if len(shape) == 1:
                size = shape[0]
                contiguous = size < 2 or x.strides[0] == dtype.itemsize
            else:
                size = 1
                for d in shape:
                    size *= d
                contiguous = is_c_contiguous(x)
            if not contiguous:
                raise ValueError("argument %r: %s needs contiguous arrays"
                                 % (name, self.family))
            if n is None:
                n, first = size, name
            elif size != n:
                raise ValueError("argument %r has %d elements where %r has %d"
                                 % (name, size, first, n))
            out.append(x.ptr)
        return out, n


def is_c_contiguous(x):
    """Whether array-like ``x`` (``.shape``, ``.strides`` in bytes,
    ``.dtype``) is C-contiguous by numpy's rule: the strides of axes of
    length 1 do not matter, and an empty array is contiguous."""
    shape = x.shape
    st = x.strides
    expect = x.dtype.itemsize
    for n, s in zip(reversed(shape), reversed(st)):
        if n == 0:
            return True
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def check_device_array(x, what):
    """Refuse ``x`` unless it is array-like: ``.ptr``, ``.dtype``,
    ``.shape`` and ``.strides``.

    Raises
    ------
    TypeError
        Saying that ``what`` must be a device array.
    """
    for attr in ("ptr", "dtype", "shape", "strides"):
        if not hasattr(x, attr):
            raise TypeError("%s must be a device array, not %s"
                            % (what, type(x).__name__))
