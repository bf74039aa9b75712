"""Parsing of kernel argument-type descriptions for ``Function.prepare``.

Pure Python (layer 0). PyCUDA's ``prepare`` takes either a string of
:mod:`struct` format characters (``"PPi"``) or an iterable whose items are
such characters or numpy dtypes. Each is reduced here to a kind and a size
in bytes, which the launch code packs without further interpretation.

A struct passed by value is PyCUDA's ``"<n>s"`` (``n`` bytes, e.g.
``"P12s"`` for a pointer and a ``float3``) or a structured dtype; its value
at launch is a numpy struct scalar (``numpy.void``), a 0-d array or bytes
of that size.
"""

import numpy as np

from . import _vectypes

#: struct character -> (kind, size). Kinds: 'P' pointer, 'i' signed int,
#: 'u' unsigned int, 'f' float, 'c' complex, 'b' bool.
_CHAR_KINDS = {
    "P": ("P", 8),
    "?": ("b", 1),
    "b": ("i", 1), "B": ("u", 1),
    "h": ("i", 2), "H": ("u", 2),
    "i": ("i", 4), "I": ("u", 4),
    "l": ("i", 8), "L": ("u", 8),
    "q": ("i", 8), "Q": ("u", 8),
    "n": ("i", 8), "N": ("u", 8),
    "e": ("f", 2), "f": ("f", 4), "d": ("f", 8),
    "F": ("c", 8), "D": ("c", 16),
}


def _dtype_kind(dt):
    dt = np.dtype(dt)
    if dt.kind in "iufc" or dt.kind == "b":
        return (dt.kind, dt.itemsize)
    if dt.kind == "V" and dt.itemsize and not dt.hasobject:
        return ("V", dt.itemsize)
    raise TypeError("cannot pass arguments of dtype %s to a kernel" % dt)


def c_alignment(dt):
    """The alignment in bytes a C/CUDA struct laid out as ``dt`` has, or
    None when ``dt`` is not such a layout.

    CUDA's vector types (:mod:`gpuarr._vectypes`) take CUDA's alignment
    (``float4``: 16, where numpy says 4); scalars numpy's; a structured
    dtype the largest of its fields', provided every field sits at a
    multiple of its own alignment and the size is a multiple of the
    result (as a C compiler lays a struct out). numpy's own
    ``dtype.alignment`` is 1 for a struct made without ``align=True``, so
    it is not used for structs.
    """
    dt = np.dtype(dt)
    try:
        return _vectypes.cuda_alignment(dt)
    except KeyError:
        pass
    if dt.subdtype is not None:
        return c_alignment(dt.subdtype[0])
    if dt.fields is None:
        return dt.alignment
    align = 1
    for field in dt.fields.values():
        sub, off = field[0], field[1]
        a = c_alignment(sub)
        if a is None or off % a:
            return None
        align = max(align, a)
    return align if dt.itemsize % align == 0 else None


class _Struct(int):
    """An ``"<n>s"`` item of a format string: a struct of n bytes."""


def _split_struct_tokens(s, spec):
    """The items of a format string: single characters, and ``"<n>s"``
    (a struct of n bytes) as :class:`_Struct`."""
    items, k = [], 0
    while k < len(s):
        if s[k].isdigit():
            j = k
            while j < len(s) and s[j].isdigit():
                j += 1
            if j == len(s) or s[j] != "s" or int(s[k:j]) == 0:
                raise ValueError("repeat counts are not supported in argument "
                                 "types (only PyCUDA's '<n>s' struct): %r"
                                 % spec)
            items.append(_Struct(int(s[k:j])))
            k = j + 1
        else:
            items.append(s[k])
            k += 1
    return items


def parse_arg_types(arg_types, alignments=False):
    """Reduce an argument-type description to ``[(kind, nbytes), ...]``.

    Parameters
    ----------
    arg_types : str or iterable
        A string of :mod:`struct` format characters, where ``P`` is a device
        pointer (e.g. ``"PPPi"``), or an iterable of such characters and
        numpy dtypes (``[numpy.intp, numpy.float32]``). Whitespace and a
        leading byte-order character (``@ = <``) in a string are ignored.
    alignments : bool, optional
        Also give each argument's alignment in bytes (a third item): the
        size for scalars and pointers, :func:`c_alignment` for a dtype
        (vector types: CUDA's), None for ``"<n>s"``, whose alignment the
        format does not say.

    Returns
    -------
    list of (str, int)
        Per argument: kind (``'P'`` pointer, ``'i'`` signed, ``'u'``
        unsigned, ``'f'`` float, ``'c'`` complex, ``'b'`` bool, ``'V'`` a
        struct by value) and size in bytes (and alignment, if asked).

    Raises
    ------
    TypeError
        For an unknown format character or an unsupported dtype.
    ValueError
        For a byte order other than native, or a repeat count (a digit not
        part of ``"<n>s"``).
    """
    if isinstance(arg_types, str):
        s = "".join(arg_types.split())
        if s[:1] in "@=<":
            s = s[1:]
        elif s[:1] in ">!":
            raise ValueError("kernel arguments use the device's (little-endian) byte order, got %r" % arg_types)
        items = _split_struct_tokens(s, arg_types)
    else:
        items = list(arg_types)
    out = []
    for pos, item in enumerate(items):
        if type(item) is _Struct:
            kind, align = ("V", int(item)), None
        elif isinstance(item, str) and len(item) > 1 and item[-1] == "s" \
                and item[:-1].isdigit() and int(item[:-1]):
            kind, align = ("V", int(item[:-1])), None
        elif isinstance(item, str) and len(item) == 1:
            try:
                kind = _CHAR_KINDS[item]
            except KeyError:
                raise TypeError("argument %d: unknown argument type character %r" % (pos, item)) from None
            # complex: two floats; the others: their size
            align = kind[1] // 2 if kind[0] == "c" else kind[1]
        else:
            try:
                kind = _dtype_kind(item)
            except TypeError as exc:
                raise TypeError("argument %d: %s" % (pos, exc)) from None
            align = c_alignment(item)
        out.append(kind + (align,) if alignments else kind)
    return out
