"""Matrix products of GPUArrays (layer 5): ``matmul`` and the ``@``
operator, and the matrix cases of ``dot``, ``inner`` and ``tensordot``.

Float and complex products go to cuBLAS (:mod:`gpuarr._blas`); integer and
bool products to gpuarr's own kernel (:mod:`gpuarr._matmulkernels`), which
gives numpy's exact, wrapping results.

cuBLAS is column-major; a C-ordered product ``C = A @ B`` is computed as
``C^T = B^T A^T``: a matrix whose rows are contiguous (``strides[-1]`` one
item) is its transpose in column-major terms, one whose columns are
contiguous is itself, each with its leading dimension, so transposed
views (``a.T @ b``) and slices with a row pitch go to cuBLAS as they are,
without copies.  Only operands with neither layout (both strides larger
than an item, negative or zero strides inside a matrix, batch strides
that are negative or not a multiple of the item) are copied first.  Batch
dimensions broadcast as numpy's; a batch whose strides merge into one
runs as one strided-batched GEMM (a broadcast operand has batch stride 0),
and a stack of row-major matrices times one matrix runs as a single GEMM
with the rows of the whole stack.
"""

import operator

import numpy as np

from . import _placement
from . import _blas
from . import _creation
from . import _dispatch
from . import _dtypes
from . import _joinkernels as _jk
from . import _layout
from . import _matmulkernels as _mk
from . import _transfer
from . import _ufunc
from ._array import GPUArray

__all__ = ["matmul", "numpy_matmul", "matmul_operator", "rmatmul_operator",
           "imatmul_operator", "matrix_product", "tensordot", "tensordot_axes",
           "can_use_blas"]

_SIG = "(n?,k),(k,m?)->(n?,m?)"
_ROW, _COL = 0, 1


def can_use_blas(dtype):
    """Whether products of ``dtype`` go to cuBLAS (float16, float32,
    float64, complex64, complex128) rather than gpuarr's integer kernel."""
    return np.dtype(dtype) in _blas.GEMM_DTYPES


def _operand(x, i):
    if isinstance(x, GPUArray):
        return x
    if isinstance(x, np.ndarray) or np.isscalar(x) or isinstance(x, (list, tuple)):
        return _creation.asarray(x)
    if hasattr(x, "__cuda_array_interface__"):
        return _creation.asarray(x)
    raise TypeError("matmul: operand %d of type %s is not an array"
                    % (i, type(x).__name__))


def _cast_check(what, from_dt, to_dt, casting, i=None):
    if not np.can_cast(from_dt, to_dt, casting):
        where = "input %d" % i if what == "input" else "output"
        raise _ufunc.UFuncTypeError("Cannot cast ufunc 'matmul' %s from %r to %r "
                             "with casting rule %r" % (where, from_dt, to_dt,
                                                       casting))


def matmul(x1, x2, out=None, *, casting="same_kind", order="K", dtype=None,
           stream=None):
    """Matrix product of two arrays (numpy.matmul, the ``@`` operator).

    Parameters
    ----------
    x1, x2 : GPUArray or array_like
        At least 1-D.  A 1-D first operand is a row (a 1 is prepended to
        its shape and removed from the result), a 1-D second one a column;
        dimensions before the last two are batch dimensions and broadcast.
    out : GPUArray, optional
        Of the result's exact shape; the result is cast to its dtype
        (``casting``).
    casting : str
        numpy's casting rule for the inputs (to ``dtype``) and the output.
    order : str
        Accepted for numpy's signature; results are C-ordered.
    dtype : dtype-like, optional
        The dtype computed in (default ``numpy.result_type(x1, x2)``).
    stream : gpuarr.driver.Stream, optional
        Where the work is queued (default the legacy default stream).

    Returns
    -------
    GPUArray
        Shape ``broadcast(x1.shape[:-2], x2.shape[:-2]) + (n, m)`` less the
        axes of 1-D operands (0-d for two vectors).

    Raises
    ------
    ValueError
        numpy's messages for a 0-d operand, mismatched core dimensions,
        batch dimensions that do not broadcast and a wrong ``out`` shape,
        before anything is queued.
    numpy.exceptions... UFuncTypeError
        (a TypeError) for casts ``casting`` forbids.
    gpuarr._blas.CublasNotFoundError
        For float and complex products when cuBLAS is not installed.

    Notes
    -----
    float16 accumulates in float32; float32 computes in float32 (no TF32
    unless :class:`gpuarr.linalg.allow_tf32`); integers wrap as numpy's.
    """
    if out is None and dtype is None and stream is None:
        c = _fast(x1, x2)
        if c is not None:
            return c
    a = _operand(x1, 0)
    b = _operand(x2, 1)
    for i, x in enumerate((a, b)):
        if not x.shape:
            raise ValueError("matmul: Input operand %d does not have enough "
                             "dimensions (has 0, gufunc core with signature "
                             "%s requires 1)" % (i, _SIG))
    if dtype is None:
        res = np.result_type(a.dtype, b.dtype)
    else:
        res = _dtypes.canonical(dtype)
        _cast_check("input", a.dtype, res, casting, 0)
        _cast_check("input", b.dtype, res, casting, 1)
    res = _dtypes.check_supported(res)
    va, vb = len(a.shape) == 1, len(b.shape) == 1
    ash = (1,) + a.shape if va else a.shape
    bsh = b.shape + (1,) if vb else b.shape
    if ash[-1] != bsh[-2]:
        raise ValueError("matmul: Input operand 1 has a mismatch in its core "
                         "dimension 0, with gufunc signature %s (size %d is "
                         "different from %d)" % (_SIG, bsh[-2], ash[-1]))
    m, n = ash[-2], bsh[-1]
    try:
        batch = (ash[:-2] if ash[:-2] == bsh[:-2]
                 else _layout.broadcast_shapes(ash[:-2], bsh[:-2]))
    except ValueError:
        def remap(s):
            return "%s->(%s)" % (_shape(s), ",".join(
                [str(d) for d in s[:-2]] + ["newaxis", "newaxis"]))
        raise ValueError(
            "operands could not be broadcast together with remapped shapes "
            "[original->remapped]: %s %s  and requested shape %s"
            % (remap(a.shape), remap(b.shape), _shape((m, n)))) from None
    shape = batch + ((m,) if not va else ()) + ((n,) if not vb else ())
    if out is not None:
        _check_out(out, shape, res, casting)
    a2 = a.reshape(ash) if va else a
    b2 = b.reshape(bsh) if vb else b
    if a2.dtype != res:
        a2 = a2.astype(res)
    if b2.dtype != res:
        b2 = b2.astype(res)
    direct = (out is not None and out.dtype == res and out._c
              and not _layout.overlaps(out, a2) and not _layout.overlaps(out, b2))
    c = out if direct else _creation.empty_c(shape, res)
    c3 = c.reshape(batch + (m, n)) if (va or vb) else c
    matrix_product(c3, a2, b2, stream)
    if out is not None and not direct:
        _transfer.copy_into(out, c, stream)
        return out
    return c


def _fast(a, b):
    """The product of two C-contiguous float or complex arrays of one dtype,
    2-D or stacks of equal batch shape, with nothing to broadcast, cast or
    check beyond the core dimensions (the common call, in fewer steps);
    None for anything else."""
    if type(a) is not GPUArray or type(b) is not GPUArray or not (a._c and b._c):
        return None
    dt = a.dtype
    sa, sb = a.shape, b.shape
    nd = len(sa)
    if (dt != b.dtype or nd != len(sb) or nd not in (2, 3)
            or dt not in _blas.GEMM_DTYPES or sa[:-2] != sb[:-2]
            or sa[-1] != sb[-2] or not (a.size and b.size)):
        return None
    m, k = sa[-2:]
    n = sb[-1]
    batch = sa[0] if nd == 3 else 1
    c = _creation.empty_c(sa[:-1] + (n,), dt)
    # row-major C = A B as column-major C^T = B^T A^T
    _blas.gemm(dt, _blas.OP_N, _blas.OP_N, n, m, k, b.ptr, n, a.ptr, k, c.ptr,
               n, batch, k * n, m * k, m * n)
    return c


def numpy_matmul(x1, x2, out=None, **kwargs):
    """``numpy.matmul(gpu, gpu, ...)`` through numpy's ufunc protocol:
    :func:`matmul` with ``out`` given as numpy's 1-tuple.

    Raises
    ------
    NotImplementedError
        For ``axes``, ``axis`` or ``signature`` (gufunc options gpuarr
        does not take).
    """
    for name in ("axes", "axis", "signature"):
        if kwargs.pop(name, None) is not None:
            raise NotImplementedError("gpuarr.matmul does not take %r" % name)
    kwargs.pop("subok", None)
    if isinstance(out, tuple):
        out = out[0] if out else None
    return matmul(x1, x2, out=out, **kwargs)


def _operator_operand(other):
    if isinstance(other, np.ndarray) and other.ndim:
        raise _dispatch.host_array_error("operator (numpy.matmul)")
    return (isinstance(other, (GPUArray, int, float, complex, np.generic))
            or hasattr(other, "__cuda_array_interface__"))


def matmul_operator(self, other):
    """``GPUArray.__matmul__``: ``self @ other`` (:func:`matmul`; a numpy
    ndarray operand raises TypeError: no silent host copy)."""
    if not _operator_operand(other):
        return NotImplemented
    return matmul(self, other)


def rmatmul_operator(self, other):
    """``GPUArray.__rmatmul__``: ``other @ self`` (:func:`matmul`)."""
    if not _operator_operand(other):
        return NotImplemented
    return matmul(other, self)


def imatmul_operator(self, other):
    """``GPUArray.__imatmul__``: ``self @= other``, :func:`matmul` into
    ``self`` (numpy's rule: the product must have ``self``'s shape; it is
    computed into a temporary first, as the operands overlap)."""
    if not _operator_operand(other):
        return NotImplemented
    return matmul(self, other, out=self)


def _shape(s):
    return str(tuple(s)).replace(" ", "")


def _check_out(out, shape, res, casting):
    if not isinstance(out, GPUArray):
        raise TypeError("return arrays must be of ArrayType (a GPUArray)")
    if tuple(out.shape) != tuple(shape):
        if len(out.shape) != len(shape):
            raise ValueError("matmul: Output operand 0 does not have enough "
                             "dimensions (has %d, gufunc core with signature "
                             "%s requires %d)" % (len(out.shape), _SIG,
                                                  len(shape)))
        for ax in range(len(shape) - 1, -1, -1):
            if out.shape[ax] != shape[ax]:
                raise ValueError("matmul: Output operand 0 has a mismatch in "
                                 "its core dimension %d, with gufunc signature "
                                 "%s (size %d is different from %d)"
                                 % (max(0, ax - len(shape) + 2), _SIG,
                                    out.shape[ax], shape[ax]))
    _cast_check("output", res, out.dtype, casting)


def _layout_of(r, c, sr, sc):
    """(layout, ld) of an r x c matrix with element strides (sr, sc):
    _ROW (its rows contiguous: the column-major transpose, ld the row
    pitch) or _COL (columns contiguous), or None when cuBLAS cannot read
    it as it is."""
    if c == 1 or sc == 1:
        ld = sr if r > 1 else c
        if ld >= max(c, 1) and ld > 0:
            return _ROW, ld
    if r == 1 or sr == 1:
        ld = sc if c > 1 else r
        if ld >= max(r, 1) and ld > 0:
            return _COL, ld
    return None


def _batch_strides(x, batch):
    """x's batch strides in elements, broadcast to ``batch`` (0 where x
    repeats), or None when one is not a multiple of the item size."""
    isz = x.dtype.itemsize
    bst = _layout.broadcast_strides(x.shape[:-2], x.strides[:-2], batch)
    if any(s % isz for s in bst):
        return None
    return tuple(s // isz for s in bst)


def _blas_operand(x, batch):
    """(x, layout, ld, batch strides): x as cuBLAS takes it, a C-ordered
    copy when its layout is not one cuBLAS reads."""
    isz = x.dtype.itemsize
    r, c = x.shape[-2:]
    sr, sc = x.strides[-2:]
    lay = None
    if sr % isz == 0 and sc % isz == 0:
        lay = _layout_of(r, c, sr // isz, sc // isz)
    bst = _batch_strides(x, batch) if lay is not None else None
    if bst is None or any(s < 0 for s in bst):
        x = x.copy()
        lay = _layout_of(r, c, x.strides[-2] // isz, x.strides[-1] // isz)
        bst = _batch_strides(x, batch)
    return x, lay[0], lay[1], bst


def matrix_product(c, a, b, stream=None):
    """``c[...] = a @ b`` for operands already checked and cast.

    Parameters
    ----------
    c : GPUArray
        C-contiguous, shape ``batch + (m, n)``, the dtype of ``a`` and
        ``b``, overlapping neither.
    a, b : GPUArray
        Shapes ``(..., m, k)`` and ``(..., k, n)`` whose batch dimensions
        broadcast to ``batch``.
    stream : gpuarr.driver.Stream, optional
    """
    if not c.size:
        return
    m, n = c.shape[-2:]
    k = a.shape[-1]
    batch = tuple(c.shape[:-2])
    if k == 0:
        _transfer.fill(c, 0, stream)
        return
    if not can_use_blas(c.dtype):
        _int_product(c, a, b, batch, stream)
        return
    isz = c.dtype.itemsize
    a, la, lda, sa = _blas_operand(a, batch)
    b, lb, ldb, sb = _blas_operand(b, batch)
    sc = tuple(s // isz for s in c.strides[:-2])
    mshape, (msa, msb, msc) = _merged(batch, sa, sb, sc)
    if len(mshape) == 1 and msb[0] == 0 and la == _ROW and m > 1 \
            and msa[0] == lda * m and msc[0] == n * m:
        # a stack of row-major matrices times one matrix: one GEMM over
        # the rows of the whole stack
        m, mshape = m * mshape[0], ()
    opa = _blas.OP_N if la == _ROW else _blas.OP_T
    opb = _blas.OP_N if lb == _ROW else _blas.OP_T
    inner = mshape[-1] if mshape else 1
    ia, ib, ic = (msa[-1], msb[-1], msc[-1]) if mshape else (0, 0, 0)
    if len(mshape) <= 1:            # one call (the usual case)
        _blas.gemm(c.dtype, opb, opa, n, m, k, b.ptr, ldb, a.ptr, lda, c.ptr,
                   n, inner, ib, ia, ic, stream)
        return
    for oa, ob, oc in _outer_offsets(mshape, msa, msb, msc):
        # column-major C^T (n x m) = op(B)^T-side times op(A)^T-side
        _blas.gemm(c.dtype, opb, opa, n, m, k, b.ptr + ob * isz, ldb,
                   a.ptr + oa * isz, lda, c.ptr + oc * isz, n, inner, ib, ia,
                   ic, stream)


def _outer_offsets(mshape, *strides):
    """Element offsets of each operand for every index of the merged batch
    dimensions but the last (which one batched call covers)."""
    for idx in np.ndindex(*mshape[:-1]):
        yield tuple(sum(i * s for i, s in zip(idx, st)) for st in strides)


def _merged(batch, sa, sb, sc):
    """The batch dimensions merged for the three operands
    (:func:`gpuarr._layout.merge_dims`; one or none as they are)."""
    if len(batch) == 1 and batch[0] > 1:
        return batch, (sa, sb, sc)
    if not batch:
        return (), ((), (), ())
    return _layout.merge_dims(batch, [sa, sb, sc])


def _int_product(c, a, b, batch, stream):
    isz = c.dtype.itemsize
    sa = _batch_strides(a, batch)
    sb = _batch_strides(b, batch)
    if sa is None or sb is None or any(s % isz for s in a.strides[-2:] + b.strides[-2:]):
        a, b = a.copy(), b.copy()
        sa, sb = _batch_strides(a, batch), _batch_strides(b, batch)
    sc = tuple(s // isz for s in c.strides[:-2])
    mshape, (msa, msb, msc) = _merged(batch, sa, sb, sc)
    m, n = c.shape[-2:]
    k = a.shape[-1]
    inner = mshape[-1] if mshape else 1
    last = (msa[-1], msb[-1], msc[-1]) if mshape else (0, 0, 0)
    ar, ac = (s // isz for s in a.strides[-2:])
    br, bc = (s // isz for s in b.strides[-2:])
    spec = _mk.int_gemm_spec(c.dtype, m, n, k, inner,
                             (last[0], ar, ac), (last[1], br, bc),
                             (last[2], n, 1))
    fn = _jk.function(spec)
    for oa, ob, oc in _outer_offsets(mshape, msa, msb, msc):
        fn.prepared_async_call(spec.grid, spec.block, stream,
                               a.ptr + oa * isz, b.ptr + ob * isz,
                               c.ptr + oc * isz, *spec.tail)


def tensordot_axes(ashape, bshape, axes):
    """numpy.tensordot's axes argument resolved: (axes of a, axes of b),
    each a tuple of non-negative ints of the same length.

    Raises
    ------
    ValueError
        "shape-mismatch for sum" where the lengths of paired axes differ,
        as numpy.
    """
    try:
        iter(axes)
    except TypeError:
        nax = operator.index(axes)
        if nax < 0:
            raise ValueError("axes must be non-negative") from None
        xa = tuple(range(len(ashape) - nax, len(ashape)))
        xb = tuple(range(nax))
        if nax > len(ashape) or nax > len(bshape):
            raise ValueError("shape-mismatch for sum")
    else:
        xa, xb = axes
        xa = (xa,) if np.ndim(xa) == 0 else tuple(xa)
        xb = (xb,) if np.ndim(xb) == 0 else tuple(xb)
        if len(xa) != len(xb):
            raise ValueError("shape-mismatch for sum")
        xa = tuple(_layout.normalize_axis(operator.index(x), len(ashape))
                   for x in xa)
        xb = tuple(_layout.normalize_axis(operator.index(x), len(bshape))
                   for x in xb)
    for p, q in zip(xa, xb):
        if ashape[p] != bshape[q]:
            raise ValueError("shape-mismatch for sum")
    return xa, xb


def tensordot(a, b, axes=2):
    """Sum of products over the given axes (numpy.tensordot).

    Parameters
    ----------
    a, b : GPUArray or array_like
    axes : int or (sequence of int, sequence of int)
        An int N: the last N axes of ``a`` with the first N of ``b``;
        otherwise the axes of ``a`` and of ``b`` to sum over, paired.

    Returns
    -------
    GPUArray
        Shape: ``a``'s free axes then ``b``'s; numpy's result dtype.

    Raises
    ------
    ValueError
        "shape-mismatch for sum" when paired axes differ in length.

    Notes
    -----
    As numpy's: both operands are transposed (free axes first for ``a``,
    last for ``b``) and reshaped to matrices, which copies only operands
    whose axes cannot be merged as views, and one matrix product does the
    rest.
    """
    a = _operand(a, 0)
    b = _operand(b, 1)
    xa, xb = tensordot_axes(a.shape, b.shape, axes)
    fa = [i for i in range(len(a.shape)) if i not in xa]
    fb = [i for i in range(len(b.shape)) if i not in xb]
    m = _layout.prod([a.shape[i] for i in fa])
    n = _layout.prod([b.shape[i] for i in fb])
    k = _layout.prod([a.shape[i] for i in xa])
    shape = tuple(a.shape[i] for i in fa) + tuple(b.shape[i] for i in fb)
    a2 = a.transpose(fa + list(xa)).reshape(m, k)
    b2 = b.transpose(list(xb) + fb).reshape(k, n)
    return matmul(a2, b2).reshape(shape)


# run on the arrays' device (issue 16)
_placement.route(globals())
