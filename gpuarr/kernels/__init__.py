"""Kernel templates (Mako) and their rendering.

Pure Python (layer 0).  Templates live next to this file as ``*.mako`` and
are rendered with ``strict_undefined=True`` so a missing variable is an
error, never an empty string.  Rendering is deterministic: the same keyword
arguments give the same text.
"""

import os

import numpy as np

from .. import _dtypes

__all__ = ["render", "lookup", "convert", "load_expr", "store_expr"]

_DIR = os.path.dirname(os.path.abspath(__file__))
_lookup = None


def lookup():
    """The shared :class:`mako.lookup.TemplateLookup` (created on first use)."""
    global _lookup
    if _lookup is None:
        from mako.lookup import TemplateLookup
        _lookup = TemplateLookup(directories=[_DIR], strict_undefined=True,
                                 input_encoding="utf-8")
    return _lookup


def render(template_name, **kw):
    """Render the template ``template_name`` with the keyword arguments.

    Parameters
    ----------
    template_name : str
        File name inside ``gpuarr/kernels``, e.g. ``"elementwise.cu.mako"``.
    **kw
        The template's variables.  All must be given (strict undefined).

    Returns
    -------
    str
        The CUDA C++ source.
    """
    return lookup().get_template(template_name).render(**kw)


def _real(dt):
    return np.dtype("f4") if dt.itemsize == 8 else np.dtype("f8")


def convert(expr, src, dst):
    """C expression converting ``expr`` from ``src``'s to ``dst``'s compute type.

    Compute types are those of :func:`gpuarr._dtypes.reg_ctype`; float16 is
    a float holding an exact half value, so converting *to* float16 rounds
    once (from double where the source needs it, avoiding double rounding).

    Parameters
    ----------
    expr : str
    src, dst : numpy.dtype

    Returns
    -------
    str
    """
    if src == dst:
        return expr
    sk, dk = src.kind, dst.kind
    if dk == "b":
        if sk == "c":
            return "ga_nonzero(%s)" % expr
        return "((%s) != 0)" % expr
    if dk == "c":
        r = "float" if dst.itemsize == 8 else "double"
        if sk == "c":
            return ("ga_complex<%s>((%s)(%s).re, (%s)(%s).im)"
                    % (r, r, expr, r, expr))
        return "ga_complex<%s>((%s)(%s))" % (r, r, expr)
    if sk == "c":
        expr = "(%s).re" % expr
        src = _real(src)
        if src == dst:
            return expr
    if dst.itemsize == 2 and dk == "f":
        if src.itemsize <= 2 or (sk == "f" and src.itemsize == 4):
            return "ga_hround((float)(%s))" % expr
        return "ga_hround_d((double)(%s))" % expr
    return "((%s)(%s))" % (_dtypes.reg_ctype(dst), expr)


def load_expr(expr, dt):
    """C expression of the compute-type value of memory value ``expr``."""
    if dt.kind == "f" and dt.itemsize == 2:
        return "((float)(%s))" % expr
    return expr


def store_expr(expr, dt):
    """C expression of the memory value of compute-type value ``expr``."""
    if dt.kind == "f" and dt.itemsize == 2:
        return "ga_half(%s)" % expr
    return expr
