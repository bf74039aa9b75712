"""Kernel templates (Mako) and their rendering.

Pure Python (layer 0).  Templates live next to this file as ``*.mako`` and
are rendered with ``strict_undefined=True`` so a missing variable is an
error, never an empty string.  Rendering is deterministic: the same keyword
arguments give the same text.  The code of the generated kernels is written
in the templates; Python passes names, dtypes, C type names (and parameter
lists made of them) and flags, and user code (an ElementwiseKernel's
operation, a scan's expression) as given.  The value conversions between
dtypes are the defs ``load``, ``store`` and ``convert`` of
``common.cu.mako``.
"""

import os

__all__ = ["render", "lookup"]

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
