"""Products of two arrays reduced in one fused pass (layer 5):
``dot`` (numpy.dot, with matrices through :mod:`gpuarr._matmul`),
``inner``, ``vdot``; exported by :mod:`gpuarr.reductions`.
"""

import numpy as np

from . import _placement
from . import _creation, _dtypes, _layout, _matmul, _transfer, _ufunc
from . import reduction as _red
from ._array import GPUArray
from ._reducecore import as_array
from ._reducecore import host_c as _host_c

__all__ = ["dot", "inner", "vdot"]

#: numpy's result dtypes of the two-operand products, cached
_DT = {}


# ---------------------------------------------------------------------------
# products of two arrays (one fused pass, no temporary)


def _dot_dtype(name, fn, d1, d2):
    key = (name, d1, d2)
    try:
        return _DT[key]
    except KeyError:
        pass
    r = np.asarray(fn(np.ones(2, d1), np.ones(2, d2))).dtype
    _dtypes.canonical(r)
    _DT[key] = r
    return r


def _check_dot_out(out, shape, dt):
    if out is None:
        return
    if not hasattr(out, "ptr"):
        raise TypeError("out must be a GPUArray")
    if tuple(out.shape) != tuple(shape) or out.dtype != dt or \
            not out.flags.c_contiguous:
        raise ValueError("output array is not acceptable (must have the right "
                         "datatype, number of dimensions, and be a C-Array)")


def _inner_last(name, a, b, out):
    """Sum over the last axis of ``a * b`` where ``b`` is 1-D (a vector, a
    matrix-vector product): ``b`` is broadcast with stride 0."""
    fn = np.dot if name == "dot" else np.inner
    res = _dot_dtype(name, fn, a.dtype, b.dtype)
    _layout.check_vector_product(a.shape, b.shape)
    nd = len(a.shape)
    kshape = a.shape[:-1]
    _check_dot_out(out, kshape, res)
    if a.size == 0:
        r = fn(np.zeros(a.shape, a.dtype), np.zeros(b.shape, b.dtype))
        if out is not None:
            out.set(np.asarray(r, out.dtype).reshape(out.shape))
            return out
        return _creation.to_gpu(_host_c(r))
    bb = GPUArray(a.shape, b.dtype, gpudata=b.ptr,
                  strides=(0,) * (nd - 1) + (b.strides[0],), base=b)
    w = out if out is not None else _creation.empty_c(kshape, res)
    _red.run_reduction("dot", (a, bb), w, (nd - 1,), res)
    return w


def _not_aligned(ashape, bshape, bdim):
    """numpy's ValueError of dot/inner: ``a``'s last axis against axis
    ``bdim`` of ``b``."""
    return ValueError("shapes %s and %s not aligned: %d (dim %d) != %d (dim %d)"
                      % (_layout.shape_str(ashape), _layout.shape_str(bshape),
                         ashape[-1], len(ashape) - 1, bshape[bdim], bdim))


def dot(a, b, out=None):
    """Dot product (``numpy.dot``): of vectors, matrices, and N-D arrays.

    Vectors, and N-D times a vector: one fused pass computing
    ``sum(a[..., i] * b[i])`` (no temporary), any strides.  A matrix second
    operand: the matrix product (:func:`gpuarr.matmul`, cuBLAS for float
    and complex dtypes); for N-D operands ``dot(a, b)[i, j, k, m] =
    sum(a[i, j, :] * b[k, :, m])`` (numpy.tensordot over ``a``'s last and
    ``b``'s second-to-last axis).  Result dtype numpy's (``int8 . int8``
    is int8, wrapping; ``bool . bool`` is bool); float16 accumulates in
    float32.  0-d operands multiply.

    Parameters
    ----------
    a, b : GPUArray or array_like
        The operands, any dtypes numpy's ``dot`` takes; array-likes go
        through :func:`gpuarr.asarray`.
    out : GPUArray, optional
        Receives the result; numpy's rule: the exact shape and dtype of
        the result, C-contiguous.

    Returns
    -------
    GPUArray
        Of numpy's result dtype (the promotion of the operands' dtypes) and
        shape ``a.shape[:-1] + b.shape[:-2] + b.shape[-1:]``; 0-d for two
        vectors; ``out`` when given.

    Raises
    ------
    ValueError
        For misaligned shapes (numpy's message) or an unacceptable ``out``.
    TypeError
        For an ``out`` that is no GPUArray.
    """
    a = as_array(a)
    b = as_array(b)
    if len(a.shape) == 0 or len(b.shape) == 0:
        if out is None:
            return _ufunc.multiply(a, b)
        return _ufunc.multiply(a, b, out=out)
    if len(b.shape) == 1:
        return _inner_last("dot", a, b, out)
    if a.shape[-1] != b.shape[-2]:
        raise _not_aligned(a.shape, b.shape, len(b.shape) - 2)
    res = _dot_dtype("dot", np.dot, a.dtype, b.dtype)
    shape = a.shape[:-1] + b.shape[:-2] + b.shape[-1:]
    _check_dot_out(out, shape, res)
    if len(a.shape) <= 2 and len(b.shape) == 2:
        return _matmul.matmul(a, b, out=out)
    r = _matmul.tensordot(a, b, ([len(a.shape) - 1], [len(b.shape) - 2]))
    if out is None:
        return r
    _transfer.copy_into(out, r)
    return out


def inner(a, b):
    """Inner product over the last axes (``numpy.inner``).

    A vector (or 0-d) operand: one fused pass (see :func:`dot`); otherwise
    ``inner(a, b)[i0, ..., j0, ...] = sum(a[i0, ..., :] * b[j0, ..., :])``
    through :func:`gpuarr.tensordot` (a matrix product).  0-d operands
    multiply.

    Parameters
    ----------
    a, b : GPUArray or array_like
        The operands; their last axes must have the same length.

    Returns
    -------
    GPUArray
        Shape ``a.shape[:-1] + b.shape[:-1]``, numpy's result dtype (the
        promotion of the operands' dtypes); 0-d for two vectors.

    Raises
    ------
    ValueError
        numpy's "shapes ... not aligned" when the last axes differ.
    """
    a = as_array(a)
    b = as_array(b)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return _ufunc.multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise _not_aligned(a.shape, b.shape, len(b.shape) - 1)
    if len(b.shape) == 1:
        return _inner_last("inner", a, b, None)
    if len(a.shape) == 1:
        return _inner_last("inner", b, a, None)
    res = _dot_dtype("inner", np.inner, a.dtype, b.dtype)
    r = _matmul.tensordot(a, b, ([len(a.shape) - 1], [len(b.shape) - 1]))
    return r if r.dtype == res else r.astype(res)


def vdot(a, b):
    """``sum(conj(a) * b)`` over the flattened arrays (``numpy.vdot``).

    One fused pass; ``a`` is conjugated when complex.  Operands of
    different shapes but the same size are flattened (C order).

    Parameters
    ----------
    a, b : GPUArray or array_like
        Operands of the same number of elements, any dtypes numpy's
        ``vdot`` takes.

    Returns
    -------
    GPUArray
        0-d, of numpy's result dtype (the promotion of the operands'
        dtypes); 0 for empty operands.

    Raises
    ------
    ValueError
        When the sizes differ (numpy's reshape message).
    """
    a = as_array(a)
    b = as_array(b)
    if a.size != b.size:
        raise ValueError("cannot reshape array of size %d into shape (%d,)"
                         % (b.size, a.size))
    res = _dot_dtype("vdot", np.vdot, a.dtype, b.dtype)
    if a.size == 0:
        return _creation.to_gpu(np.zeros((), res))
    if tuple(a.shape) != tuple(b.shape):
        a = a.reshape(-1)
        b = b.reshape(-1)
    w = _creation.empty_c((), res)
    _red.run_reduction("vdot", (a, b), w, tuple(range(len(a.shape))), res)
    return w


# run on the arrays' device (issue 16)
_placement.route(globals())
