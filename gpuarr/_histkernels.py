"""The kernel builder of ``histogram``'s counting (layer 4).

``histogram.cu.mako`` counts values into bins whose edges it keeps in
shared memory, one shared-memory count per bin and block, and adds each
block's counts to the result once: one pass over the data and no
contended global atomics (the general path, a searchsorted followed by
``add.at``, writes and rereads an index per value and adds each one to a
global count).  This module decides which data the kernel takes
(:func:`shared_bins_ok`) and describes it as a
:class:`~gpuarr._kernelspec.KernelSpec` (:func:`hist_spec`), which the CPU
tests render and compile; the array layer compiles it once per context
through :func:`gpuarr._joinkernels.function`.
"""

import numpy as np

from . import _dtypes
from ._kernelspec import KernelSpec

__all__ = ["BLOCK", "MAX_BINS", "shared_bins_ok", "compare_dtype",
           "hist_spec", "shared_bytes"]

#: threads per block
BLOCK = 256
#: the most bins the kernel takes (edges and counts in 32 KiB of shared
#: memory, float64 edges and weights)
MAX_BINS = 2048

_F4 = np.dtype(np.float32)
_F8 = np.dtype(np.float64)
_I8 = np.dtype(np.int64)
_U8 = np.dtype(np.uint64)


def compare_dtype(data_dtype, edge_dtype):
    """The dtype values and edges are compared in: numpy's promotion of
    the two (what searchsorted compares in), with float16 compared as
    float32 and smaller integers as 64-bit ones (exact, same order).

    Returns
    -------
    numpy.dtype or None
        float32, float64, int64 or uint64; None for a pair the kernel does
        not take (bool or complex on either side).
    """
    dt, et = np.dtype(data_dtype), np.dtype(edge_dtype)
    if dt.kind not in "iuf" or et.kind not in "iuf":
        return None
    p = np.promote_types(dt, et)
    if p.kind == "f":
        return _F4 if p.itemsize <= 4 else _F8
    return _I8 if p.kind == "i" else _U8


def shared_bins_ok(data_dtype, edge_dtype, nbins):
    """Whether the shared-memory kernel counts ``nbins`` bins of data of
    ``data_dtype`` against edges of ``edge_dtype``.

    Returns
    -------
    bool
    """
    return 0 < nbins <= MAX_BINS and \
        compare_dtype(data_dtype, edge_dtype) is not None


def shared_bytes(cmp_dtype, nbins, weighted):
    """Dynamic shared memory of a launch: the ``nbins + 1`` edges (rounded
    up to 8 bytes) and ``nbins`` counts (4 bytes, or 8 with weights).

    Returns
    -------
    int
    """
    edges = -(-(nbins + 1) * np.dtype(cmp_dtype).itemsize // 8) * 8
    return edges + nbins * (8 if weighted else 4)


def hist_spec(data_dtype, cmp_dtype, weighted):
    """The counting kernel for values of ``data_dtype`` compared in
    ``cmp_dtype`` (:func:`compare_dtype`).

    Parameters
    ----------
    data_dtype : numpy.dtype
        Integer or float.
    cmp_dtype : numpy.dtype
        float32, float64, int64 or uint64.
    weighted : bool
        Add float64 weights instead of counting.

    Returns
    -------
    KernelSpec
        Its arguments, in order: the values (P), their number (q), their
        stride in items (q), the edges in ``cmp_dtype`` (P), the number of
        bins (i), the scale of the first guess (d; 0 for a binary search),
        the counts (P: uint64, or float64 with weights, zeroed before the
        launch) and the float64 weights (P; 0 without).

    Raises
    ------
    TypeError
        For a dtype the kernel does not take.
    """
    dt, ct = np.dtype(data_dtype), np.dtype(cmp_dtype)
    if dt.kind not in "iuf" or ct not in (_F4, _F8, _I8, _U8):
        raise TypeError("no histogram kernel for %s values compared in %s"
                        % (dt, ct))
    spec = KernelSpec("histogram.cu.mako")
    spec.path = "shared"
    spec.kkey = ("histogram", dt, ct, bool(weighted))
    spec.name = "gpuarr_histogram"
    spec.render_kw = dict(name=spec.name, data_t=_dtypes.ctype(dt),
                          cmp_t=_dtypes.ctype(ct), weighted=bool(weighted),
                          block=BLOCK)
    spec.chars = "PqqPidPP"
    spec.block = (BLOCK, 1, 1)
    spec.grid = None
    spec.tail = ()
    return spec
