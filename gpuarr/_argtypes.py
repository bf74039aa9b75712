"""Parsing of kernel argument-type descriptions for ``Function.prepare``.

Pure Python (layer 0). PyCUDA's ``prepare`` takes either a string of
:mod:`struct` format characters (``"PPi"``) or an iterable whose items are
such characters or numpy dtypes. Each is reduced here to a kind and a size
in bytes, which the launch code packs without further interpretation.
"""

import numpy as np

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
    raise TypeError("cannot pass arguments of dtype %s to a kernel" % dt)


def parse_arg_types(arg_types):
    """Reduce an argument-type description to ``[(kind, nbytes), ...]``.

    Parameters
    ----------
    arg_types : str or iterable
        A string of :mod:`struct` format characters, where ``P`` is a device
        pointer (e.g. ``"PPPi"``), or an iterable of such characters and
        numpy dtypes (``[numpy.intp, numpy.float32]``). Whitespace and a
        leading byte-order character (``@ = <``) in a string are ignored.

    Returns
    -------
    list of (str, int)
        Per argument: kind (``'P'`` pointer, ``'i'`` signed, ``'u'``
        unsigned, ``'f'`` float, ``'c'`` complex, ``'b'`` bool) and size in
        bytes.

    Raises
    ------
    TypeError
        For an unknown format character or an unsupported dtype.
    ValueError
        For a byte order other than native, or a repeat count.
    """
    if isinstance(arg_types, str):
        s = "".join(arg_types.split())
        if s[:1] in "@=<":
            s = s[1:]
        elif s[:1] in ">!":
            raise ValueError("kernel arguments use the device's (little-endian) byte order, got %r" % arg_types)
        items = list(s)
        if any(c.isdigit() for c in items):
            raise ValueError("repeat counts are not supported in argument types: %r" % arg_types)
    else:
        items = list(arg_types)
    out = []
    for pos, item in enumerate(items):
        if isinstance(item, str) and len(item) == 1:
            try:
                out.append(_CHAR_KINDS[item])
            except KeyError:
                raise TypeError("argument %d: unknown argument type character %r" % (pos, item)) from None
        else:
            try:
                out.append(_dtype_kind(item))
            except TypeError as exc:
                raise TypeError("argument %d: %s" % (pos, exc)) from None
    return out
