"""``numpy.linalg`` names (layer 6): :func:`norm` of vectors (and the
Frobenius norm); the products :func:`matmul`, :func:`tensordot`,
:func:`multi_dot`, :func:`matrix_power`, :func:`outer` (cuBLAS for float
and complex dtypes, gpuarr's own kernel for integers); :func:`dot`,
:func:`vdot`, :func:`inner` from :mod:`gpuarr.reductions`; the TF32
switch :class:`allow_tf32` / :func:`tf32_allowed` of float32 products;
numpy.linalg's solvers and factorizations on cuSOLVER (:func:`solve`,
:func:`inv`, :func:`det`, :func:`slogdet`, :func:`cholesky`, :func:`qr`,
:func:`svd`, :func:`eigh`, :func:`eigvalsh`, :func:`lstsq`, :func:`pinv`,
:func:`matrix_rank`, from :mod:`gpuarr._decomp` and
:mod:`gpuarr._svdsolve`) and :func:`cond` and the matrix norms here."""

import operator

import numpy as np

from . import _placement
from . import _creation
from . import _layout
from . import _decomp
from . import _manipulation, _mathfuncs, _rearrange, _ufunc
from . import reduction as _red
from . import reductions as _rs
from ._blas import allow_tf32, tf32_allowed
from ._contract import matrix_power, multi_dot, outer
from ._decomp import (LinAlgError, cholesky, det, eigh, eigvalsh, inv, qr,
                      slogdet, solve, svd)
from ._svdsolve import lstsq, matrix_rank, pinv
from ._matmul import matmul, tensordot
from .reductions import dot, vdot, inner

__all__ = ["norm", "dot", "vdot", "inner", "matmul", "tensordot",
           "multi_dot", "matrix_power", "outer", "allow_tf32",
           "tf32_allowed", "solve", "inv", "det", "slogdet", "cholesky",
           "qr", "svd", "eigh", "eigvalsh", "lstsq", "pinv", "matrix_rank",
           "cond", "LinAlgError", "vector_norm", "matrix_norm", "svdvals",
           "diagonal", "trace", "matrix_transpose", "cross", "vecdot",
           "tensorinv", "tensorsolve"]

_F4 = np.dtype(np.float32)
_F8 = np.dtype(np.float64)


def _float_dt(dt):
    """numpy's norm computes integers in float64."""
    if dt.kind in "biu":
        return _F8
    return dt


def _out_dt(dt):
    dt = _float_dt(dt)
    if dt.kind == "c":
        return _F4 if dt.itemsize == 8 else _F8
    return dt


def _vector(a, ord, axes, keepdims):
    ct = _float_dt(a.dtype)
    res = _out_dt(a.dtype)
    if a.size == 0:
        r = np.linalg.norm(np.zeros(a.shape, a.dtype), ord=ord,
                           axis=axes if len(axes) > 1 else axes[0],
                           keepdims=keepdims)
        return _creation.to_gpu(r)
    if ord is None or ord == 2 or ord == "fro":
        op = "sumsq"
    elif ord == 1:
        op = "abssum"
    elif ord == np.inf:
        op = "absmax"
    elif ord == -np.inf:
        op = "absmin"
    elif ord == 0:
        r = _rs.count_nonzero(a, axis=axes, keepdims=keepdims)
        return r.astype(res)
    else:
        try:
            p = float(ord)
        except (TypeError, ValueError):
            raise ValueError("Invalid norm order '%s' for vectors" % (ord,)) \
                from None
        x = abs(a)
        if x.dtype != res:
            x = x.astype(res)
        s = _rs.sum(x ** p, axis=axes, keepdims=keepdims)
        return s ** (1.0 / p)
    w, ret = _rs.reduction_target(a, axes, None, keepdims, res, "add")
    _red.run_reduction(op, (a,), w, axes, ct)
    return ret


def _matrix(x, ord, axes, keepdims):
    """numpy's matrix norms over the two axes ``axes`` (row, column)."""
    r, c = axes
    if ord in (2, -2, "nuc"):
        # singular values of the matrices moved to the last two axes
        rest = [k for k in range(len(x.shape)) if k not in axes]
        s = _decomp.svd(x.transpose(rest + [r, c]), compute_uv=False)
        if ord == "nuc":
            res = _rs.sum(s, axis=-1)
        else:
            res = _rs.max(s, axis=-1) if ord == 2 else _rs.min(s, axis=-1)
    elif ord in (1, -1, np.inf, -np.inf):
        # 1: the largest column sum (sum over rows); inf: row sums
        over, then = (r, c) if ord in (1, -1) else (c, r)
        sums = _rs.sum(abs(x).astype(_out_dt(x.dtype)), axis=over, keepdims=True)
        pick = _rs.max if ord in (1, np.inf) else _rs.min
        res = pick(sums, axis=then, keepdims=True)
        return res if keepdims else res.reshape(
            tuple(n for k, n in enumerate(res.shape) if k not in axes))
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[r] = shape[c] = 1
        res = res.reshape(tuple(shape))
    return res.astype(_out_dt(x.dtype)) if res.dtype != _out_dt(x.dtype) else res


def cond(x, p=None):
    """Condition number of each matrix (numpy.linalg.cond).

    Parameters
    ----------
    x : GPUArray, (..., M, N)
    p : {None, 2, -2, 'fro', 'nuc', 1, -1, inf, -inf}
        None and 2: the ratio of the largest to the smallest singular
        value (-2 its inverse); the others ``norm(x, p) * norm(inv(x), p)``
        (square matrices).

    Returns
    -------
    GPUArray
        Real, shape ``x.shape[:-2]``; inf (or nan) for singular matrices
        as numpy's.

    Raises
    ------
    numpy.linalg.LinAlgError
        For fewer than two dimensions; non-square ``x`` with the norms
        other than None, 2, -2.
    """
    x = _rs.as_array(x)
    if len(x.shape) < 2:
        raise np.linalg.LinAlgError("%d-dimensional array given. Array must "
                                    "be at least two-dimensional"
                                    % len(x.shape))
    if p is None or p == 2 or p == -2:
        s = _decomp.svd(x, compute_uv=False)
        hi, lo = s[..., 0], s[..., -1]
        return hi / lo if p != -2 else lo / hi
    if x.shape[-1] != x.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be "
                                    "square")
    try:
        xi = _decomp.inv(x)
    except np.linalg.LinAlgError:
        return _creation.full(x.shape[:-2], np.inf, _out_dt(_float_dt(x.dtype)))
    return norm(x, p, axis=(-2, -1)) * norm(xi, p, axis=(-2, -1))


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms and the Frobenius norm (``numpy.linalg.norm``).

    Parameters
    ----------
    x : GPUArray
    ord : {None, 2, 1, inf, -inf, 0, float, 'fro'}
        Vector norms: ``sum(|x|**ord)**(1/ord)``; None/2 the 2-norm (one
        fused pass, ``sqrt(sum |x|^2)``), 1 ``sum |x|``, inf ``max |x|``,
        -inf ``min |x|``, 0 the count of non-zeros.  For a 2-D ``x`` with
        ``axis=None`` (or a 2-tuple ``axis``), matrix norms: None and
        'fro' the Frobenius norm, 'nuc' the sum of singular values, 2 / -2
        the largest / smallest singular value (cuSOLVER's SVD), 1 / -1 the
        largest / smallest column sum of ``|x|``, inf / -inf the same of
        row sums.
    axis : None, int or 2-tuple of ints
    keepdims : bool

    Returns
    -------
    GPUArray
        0-d for one norm.  Real: float64 for integer input, the real dtype
        of complex input, otherwise ``x.dtype`` (numpy's dtypes).

    Raises
    ------
    ValueError
        "Improper number of dimensions to norm." for ``ord`` with
        ``axis=None`` and ``ndim > 2``; an invalid ``ord``.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    x = _rs.as_array(x)
    nd = len(x.shape)
    if axis is None:
        if ord is None or (ord == "fro" and nd == 2):
            return _vector(x, None, tuple(range(nd)), keepdims)
        if nd == 1:
            if isinstance(ord, str):
                raise ValueError("Invalid norm order '%s' for vectors" % ord)
            return _vector(x, ord, (0,), keepdims)
        if nd == 2:
            return _matrix(x, ord, (0, 1), keepdims)
        raise ValueError("Improper number of dimensions to norm.")
    if isinstance(axis, tuple) and len(axis) == 2:
        # in the given order (row axis, column axis), not sorted
        axes = tuple(_layout.normalize_axis(operator.index(k), nd) for k in axis)
        if axes[0] == axes[1]:
            raise ValueError("Duplicate axes given.")
        if ord is None or ord == "fro":
            return _vector(x, None, axes, keepdims)
        return _matrix(x, ord, axes, keepdims)
    if isinstance(axis, tuple):
        if len(axis) != 1:
            raise ValueError("Improper number of dimensions to norm.")
        axis = axis[0]
    try:
        operator.index(axis)
    except TypeError:
        raise TypeError("'axis' must be None, an integer or a tuple of "
                        "integers") from None
    if isinstance(ord, str):
        raise ValueError("Invalid norm order '%s' for vectors" % ord)
    return _vector(x, ord, _rs.normalize_axes(axis, nd), keepdims)


# ---------------------------------------------------------------------------
# the array API's forms (numpy.linalg's since numpy 2.0)

def vector_norm(x, *, axis=None, keepdims=False, ord=2):
    """Vector norms over one axis, several axes (taken as one vector) or
    the whole array (numpy.linalg.vector_norm).

    Parameters
    ----------
    x : GPUArray
    axis : None, int or tuple of int
        None: the flattened array.
    keepdims : bool
        Keep the reduced axes with length 1.
    ord : {2, 1, inf, -inf, 0, float}
        As :func:`norm`'s vector norms.

    Returns
    -------
    GPUArray
        The norms (dtypes as :func:`norm`).

    Raises
    ------
    ValueError
        For an ord that is a string.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    x = _creation.asarray(x)
    shape = list(x.shape)
    if axis is None:
        v, vaxis = x.ravel(), 0
    elif isinstance(axis, tuple):
        axes = np.lib.array_utils.normalize_axis_tuple(axis, x.ndim)
        rest = tuple(k for k in range(x.ndim) if k not in axes)
        n = 1
        for k in axes:
            n *= x.shape[k]
        v = _manipulation.transpose(x, axes + rest).reshape(
            (n,) + tuple(x.shape[k] for k in rest))
        vaxis = 0
    else:
        v, vaxis = x, axis
    res = norm(v, axis=vaxis, ord=ord)
    if keepdims:
        kept = np.lib.array_utils.normalize_axis_tuple(
            range(len(shape)) if axis is None else axis, len(shape))
        for k in kept:
            shape[k] = 1
        res = res.reshape(tuple(shape))
    return res


def matrix_norm(x, *, keepdims=False, ord="fro"):
    """Matrix norms of the last two axes (numpy.linalg.matrix_norm).

    Parameters
    ----------
    x : GPUArray
        At least 2-d; a stack of matrices.
    keepdims : bool
    ord : {'fro', 'nuc', 2, -2, 1, -1, inf, -inf}
        As :func:`norm`'s matrix norms.

    Returns
    -------
    GPUArray
        One norm a matrix.

    Raises
    ------
    ValueError
        For an invalid ord, or fewer than 2 axes.
    """
    return norm(_creation.asarray(x), axis=(-2, -1), keepdims=keepdims,
                ord=ord)


def svdvals(x):
    """The singular values of (a stack of) matrices, in descending order
    (numpy.linalg.svdvals; cuSOLVER's SVD).

    Parameters
    ----------
    x : GPUArray
        ``(..., M, N)``, float or complex.

    Returns
    -------
    GPUArray
        ``(..., min(M, N))``, real.

    Raises
    ------
    LinAlgError
        Where the SVD does not converge.
    """
    return svd(x, compute_uv=False)


def diagonal(x, *, offset=0):
    """The diagonals of the last two axes, as a view
    (numpy.linalg.diagonal).

    Parameters
    ----------
    x : GPUArray
        At least 2-d.
    offset : int
        Above (positive) or below (negative) the main diagonal.

    Returns
    -------
    GPUArray
        ``(..., k)`` view.

    Raises
    ------
    ValueError
        For fewer than 2 axes.
    """
    return _manipulation.diagonal(x, offset, axis1=-2, axis2=-1)


def trace(x, *, offset=0, dtype=None):
    """Sums of the diagonals of the last two axes (numpy.linalg.trace).

    Parameters
    ----------
    x : GPUArray
        At least 2-d.
    offset : int
    dtype : dtype-like, optional
        Of the sums (numpy's default as :func:`gpuarr.trace`).

    Returns
    -------
    GPUArray
        ``x.shape[:-2]``.

    Raises
    ------
    ValueError
        For fewer than 2 axes.
    """
    return _rearrange.trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


def matrix_transpose(x):
    """The last two axes swapped, as a view (numpy.matrix_transpose,
    numpy.linalg.matrix_transpose).

    Parameters
    ----------
    x : GPUArray
        At least 2-d.

    Returns
    -------
    GPUArray
        A view.

    Raises
    ------
    ValueError
        For fewer than 2 axes (numpy's message).
    """
    x = _creation.asarray(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional, but "
                         "it is %d" % x.ndim)
    return _manipulation.swapaxes(x, -1, -2)


def cross(x1, x2, *, axis=-1):
    """Cross products of 3-vectors along an axis (numpy.linalg.cross).

    Parameters
    ----------
    x1, x2 : GPUArray
        3 components along ``axis``, the other axes broadcast.
    axis : int

    Returns
    -------
    GPUArray
        The promoted dtype.

    Raises
    ------
    ValueError
        For vectors of other than 3 components (numpy's message).
    """
    x1 = _creation.asarray(x1)
    x2 = _creation.asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) "
                         "3-dimensional vectors, but they are %d and %d "
                         "dimensional instead." % (x1.shape[axis],
                                                   x2.shape[axis]))
    return _mathfuncs.cross(x1, x2, axis=axis)


def vecdot(x1, x2, *, axis=-1):
    """Dot products of vectors along an axis, the first conjugated
    (numpy.linalg.vecdot, numpy.vecdot's loops).

    Parameters
    ----------
    x1, x2 : GPUArray
        Vectors of one length along ``axis`` (of each), the other axes
        broadcast.
    axis : int

    Returns
    -------
    GPUArray
        The promoted dtype, as numpy's gufunc (no widening: int8 sums
        wrap in int8; bool is any of the products).

    Raises
    ------
    ValueError
        For vectors of different lengths (numpy's message).
    """
    x1 = _creation.asarray(x1)
    x2 = _creation.asarray(x2)
    a = _manipulation.moveaxis(x1, axis, -1)
    b = _manipulation.moveaxis(x2, axis, -1)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError("vecdot: Input operand 1 has a mismatch in its core "
                         "dimension 0, with gufunc signature (n),(n)->() "
                         "(size %d is different from %d)"
                         % (b.shape[-1], a.shape[-1]))
    dt = np.promote_types(a.dtype, b.dtype)
    if dt == np.bool_:
        return _ufunc.logical_and(a, b).any(axis=-1)
    if dt.kind == "c":
        a = _ufunc.conjugate(a)
    return _ufunc.multiply(a, b).sum(axis=-1, dtype=dt)


def tensorinv(a, ind=2):
    """The inverse of an N-d array taken as a matrix: its first ``ind``
    axes against the rest (numpy.linalg.tensorinv).

    Parameters
    ----------
    a : GPUArray
        ``prod(a.shape[:ind]) == prod(a.shape[ind:])``.
    ind : int
        Positive: the axes that index the rows.

    Returns
    -------
    GPUArray
        ``a.shape[ind:] + a.shape[:ind]``.

    Raises
    ------
    ValueError
        For ``ind <= 0`` (numpy's message).
    LinAlgError
        For a singular or non-square reshaping.
    """
    a = _creation.asarray(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    shape = a.shape[ind:] + a.shape[:ind]
    n = 1
    for k in a.shape[ind:]:
        n *= k
    return inv(a.reshape(n, -1)).reshape(shape)


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b`` (numpy.linalg.tensorsolve).

    Parameters
    ----------
    a : GPUArray
        ``b.shape + x.shape``, after ``axes`` moved to the end.
    b : GPUArray or array_like
    axes : tuple of int, optional
        Axes of ``a`` to move to the end first.

    Returns
    -------
    GPUArray
        ``a.shape[b.ndim:]`` (after the move).

    Raises
    ------
    LinAlgError
        For shapes whose products differ (numpy's message) or a singular
        system.
    """
    a = _creation.asarray(a)
    b = _creation.asarray(b)
    an = a.ndim
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k)
            order.insert(an, k)
        a = a.transpose(order)
    shape = a.shape[-(an - b.ndim):]
    n = 1
    for k in shape:
        n *= k
    if a.size != n ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return solve(a.reshape(n, n), b.ravel()).reshape(shape)


# run on the arrays' device (issue 16)
_placement.route(globals())
