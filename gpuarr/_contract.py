"""Products built on the matrix product (layer 5): ``einsum``, ``outer``,
``kron``, ``linalg.multi_dot`` and ``linalg.matrix_power``.

``einsum`` contracts its operands two at a time (left to right, or in the
order ``numpy.einsum_path`` gives for ``optimize``): labels shared by the
pair and needed later are batch dimensions, labels shared and not needed
later are summed by one :func:`gpuarr.matmul` (cuBLAS for float and
complex dtypes), labels of one operand alone that nothing needs are summed
first, and a pair with nothing to sum is one broadcasting multiply.
Repeated labels within one operand take a diagonal (a strided view).
"""

import operator

import numpy as np

from . import _placement
from . import _creation
from . import _decomp
from . import _dtypes
from . import _layout
from . import _manipulation
from . import _matmul
from . import _transfer
from . import _ufunc
from . import reductions as _rs
from ._array import GPUArray

__all__ = ["einsum", "outer", "kron", "multi_dot", "matrix_power",
           "parse_einsum"]


def _asarray(x):
    return x if isinstance(x, GPUArray) else _creation.asarray(x)


# ---------------------------------------------------------------------------
# einsum

def _term(term, ndim, nell, where):
    """One operand's labels: letters as themselves, the ellipsis as the
    integers -nell .. -1 (its last ``n`` for an operand of ``n`` broadcast
    dimensions)."""
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise ValueError("einstein sum subscripts string contains a '.' that "
                         "is not part of an ellipsis ('...') in %s" % where)
    for ch in term.replace("...", ""):
        if not ch.isalpha() or not ch.isascii():
            raise ValueError("invalid subscript '%s' in einstein sum "
                             "subscripts string, subscripts must be letters"
                             % ch)
    if "..." not in term:
        return list(term), 0
    head, tail = term.split("...")
    n = ndim - len(head) - len(tail) if ndim is not None else nell
    if n < 0:
        raise ValueError("einstein sum subscripts string contains too many "
                         "subscripts for operand")
    return list(head) + list(range(-n, 0)) + list(tail), n


def parse_einsum(subscripts, shapes):
    """numpy's einsum subscripts resolved against operand shapes.

    Parameters
    ----------
    subscripts : str
    shapes : sequence of tuple of int

    Returns
    -------
    (list of list, list, dict)
        Each operand's labels (letters, and negative ints for broadcast
        dimensions), the output's labels, and each label's size (the
        largest of its lengths; lengths of 1 broadcast).

    Raises
    ------
    ValueError
        numpy's messages: operand counts, bad characters, lengths that
        differ, output labels that appear in no input or twice.
    """
    if not isinstance(subscripts, str):
        raise TypeError("einsum: subscripts must be a string (the "
                        "interleaved operand/sublist form is not supported)")
    s = subscripts.replace(" ", "")
    if s.count("->") > 1 or ("-" in s.replace("->", "")) or (">" in s.replace("->", "")):
        raise ValueError("einstein sum subscript string does not contain "
                         "proper '->' output specified")
    ins, arrow, out = s.partition("->")
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError("%s operands than subscripts given in einstein sum"
                         % ("more" if len(shapes) > len(terms) else "fewer"))
    labels, nell = [], 0
    for t, shp in zip(terms, shapes):
        lab, n = _term(t, len(shp), 0, "an input")
        if len(lab) != len(shp):
            raise ValueError("operand has more dimensions than subscripts "
                             "given in einstein sum, but no '...' ellipsis "
                             "provided to broadcast the extra dimensions."
                             if len(shp) > len(lab) else
                             "einstein sum subscripts string contains too "
                             "many subscripts for operand")
        labels.append(lab)
        nell = max(nell, n)
    sizes = {}
    for lab, shp in zip(labels, shapes):
        own = {}
        for ch, n in zip(lab, shp):
            if own.setdefault(ch, n) != n:
                raise ValueError("dimensions in single operand for collapsing "
                                 "index '%s' don't match (%d != %d)"
                                 % (ch, own[ch], n))
            cur = sizes.get(ch)
            if cur is None or cur == 1:
                sizes[ch] = n
            elif n != 1 and n != cur:
                raise ValueError(
                    "operands could not be broadcast together with remapped "
                    "shapes: the %s has lengths %d and %d"
                    % ("broadcast dimension" if isinstance(ch, int)
                       else "label '%s'" % ch, cur, n))
    if arrow:
        olab, _ = _term(out, None, nell, "the output")
        seen = set()
        for ch in olab:
            if ch in seen:
                raise ValueError("einstein sum subscripts string includes "
                                 "output subscript '%s' multiple times" % ch)
            seen.add(ch)
            if ch not in sizes:
                raise ValueError("einstein sum subscripts string included "
                                 "output subscript '%s' which never appeared "
                                 "in an input" % ch)
        if nell and "..." not in out:
            raise ValueError("output has more dimensions than subscripts "
                             "given in einstein sum, but no '...' ellipsis "
                             "provided to broadcast the extra dimensions.")
    else:
        counts = {}
        for lab in labels:
            for ch in lab:
                counts[ch] = counts.get(ch, 0) + 1
        olab = list(range(-nell, 0)) + sorted(
            ch for ch, c in counts.items() if c == 1 and isinstance(ch, str))
    return labels, olab, sizes


def _diagonal(x, lab):
    """Collapse repeated labels of one operand into one axis (a view)."""
    shape, strides, out = [], [], []
    for ax, ch in enumerate(lab):
        if ch in out:
            j = out.index(ch)
            if shape[j] != x.shape[ax]:
                raise ValueError("dimensions in single operand for collapsing "
                                 "index '%s' don't match (%d != %d)"
                                 % (ch, shape[j], x.shape[ax]))
            strides[j] += x.strides[ax]
            continue
        out.append(ch)
        shape.append(x.shape[ax])
        strides.append(x.strides[ax])
    if len(out) == len(lab):
        return x, lab
    return x._view(tuple(shape), tuple(strides), 0), out


def _sum_labels(x, lab, drop):
    """Sum ``x`` over the axes whose labels are in ``drop``."""
    axes = tuple(i for i, ch in enumerate(lab) if ch in drop)
    if not axes:
        return x, lab
    return (_rs.sum(x, axis=axes, dtype=x.dtype),
            [ch for ch in lab if ch not in drop])


def _arrange(x, lab, order):
    """``x`` with axes in the label order ``order`` (labels x lacks become
    length-1 axes)."""
    perm = [lab.index(ch) for ch in order if ch in lab]
    y = x.transpose(perm) if perm != list(range(len(lab))) else x
    shape = []
    it = iter(y.shape)
    for ch in order:
        shape.append(next(it) if ch in lab else 1)
    return y.reshape(tuple(shape)) if tuple(shape) != tuple(y.shape) else y


def _pair(x, lx, y, ly, keep):
    """Contract two operands, keeping the labels in ``keep``."""
    # a label of one operand that nothing else needs: summed now
    x, lx = _sum_labels(x, lx, {c for c in lx if c not in ly and c not in keep})
    y, ly = _sum_labels(y, ly, {c for c in ly if c not in lx and c not in keep})
    shared = [c for c in lx if c in ly]
    con = [c for c in shared if c not in keep]
    # a summed label of length 1 in one operand (broadcast): sum the other
    for c in list(con):
        nx, ny = x.shape[lx.index(c)], y.shape[ly.index(c)]
        if nx != ny:
            if nx == 1:
                y, ly = _sum_labels(y, ly, {c})
                x = x.reshape(tuple(n for n, d in zip(x.shape, lx) if d != c))
                lx = [d for d in lx if d != c]
            else:
                x, lx = _sum_labels(x, lx, {c})
                y = y.reshape(tuple(n for n, d in zip(y.shape, ly) if d != c))
                ly = [d for d in ly if d != c]
            con.remove(c)
    bat = [c for c in lx if c in ly and c not in con]
    xo = [c for c in lx if c not in ly]
    yo = [c for c in ly if c not in lx]
    if not con:
        order = bat + xo + yo
        return _ufunc.multiply(_arrange(x, lx, order),
                               _arrange(y, ly, order)), order
    xa = _arrange(x, lx, bat + xo + con)
    ya = _arrange(y, ly, bat + con + yo)
    nb = len(bat)
    xb, yb = xa.shape[:nb], ya.shape[:nb]
    m = _layout.prod(xa.shape[nb:nb + len(xo)])
    k = _layout.prod(xa.shape[nb + len(xo):])
    n = _layout.prod(ya.shape[nb + len(con):])
    r = _matmul.matmul(xa.reshape(xb + (m, k)), ya.reshape(yb + (k, n)))
    shape = r.shape[:nb] + xa.shape[nb:nb + len(xo)] \
        + ya.shape[nb + len(con):]
    return r.reshape(shape), bat + xo + yo


def einsum(subscripts, *operands, out=None, dtype=None, order="K",
           casting="safe", optimize=False):
    """Einstein summation (numpy.einsum) over GPUArrays.

    Parameters
    ----------
    subscripts : str
        numpy's subscripts (``"ij,jk->ik"``, ``"...ii->...i"``, implicit
        output when ``->`` is left out).  The interleaved operand/sublist
        form is not supported.
    *operands : GPUArray or array_like
    out : GPUArray, optional
        Of the result's shape; the result is cast to its dtype.
    dtype : dtype-like, optional
        Computed in this dtype (default: numpy.result_type of the operands).
    order : str
        Accepted for numpy's signature.
    casting : str
        numpy's rule for casting the operands to ``dtype`` (default
        ``"safe"``, as numpy's).
    optimize : bool or str or list
        False: contract left to right; otherwise the order
        ``numpy.einsum_path`` chooses (``True``/``"greedy"``,
        ``"optimal"``) or an explicit path.

    Returns
    -------
    GPUArray
        A view where numpy's would be one for a single operand (a
        transpose or diagonal), else a new array.

    Raises
    ------
    ValueError
        numpy's messages for malformed subscripts and mismatched lengths.
    TypeError
        For casts ``casting`` forbids.
    """
    if not operands:
        raise ValueError("No input operands")
    ops = [_asarray(x) for x in operands]
    labels, olab, sizes = parse_einsum(subscripts, [x.shape for x in ops])
    res = (np.result_type(*[x.dtype for x in ops]) if dtype is None
           else _dtypes.canonical(dtype))
    res = _dtypes.check_supported(res)
    for i, x in enumerate(ops):
        if not np.can_cast(x.dtype, res, casting):
            raise TypeError("Iterator operand %d dtype could not be cast from "
                            "%r to %r according to the rule %r"
                            % (i, x.dtype, res, casting))
    terms = []
    for x, lab in zip(ops, labels):
        x, lab = _diagonal(x, lab)
        terms.append((x if x.dtype == res else x.astype(res), lab))
    for step in _path(subscripts, ops, optimize):
        picked = [terms[i] for i in step]
        for i in sorted(step, reverse=True):
            del terms[i]
        x, lx = picked[0]
        for j in range(1, len(picked)):
            keep = set(olab)
            for _, lab in terms + picked[j + 1:]:
                keep.update(lab)
            x, lx = _pair(x, lx, picked[j][0], picked[j][1], keep)
        terms.append((x, lx))
    (x, lx), = terms
    x, lx = _sum_labels(x, lx, {c for c in lx if c not in olab})
    perm = [lx.index(c) for c in olab]
    r = x.transpose(perm) if perm != list(range(len(lx))) else x
    shape = tuple(sizes[c] for c in olab)
    if tuple(r.shape) != shape:        # a label of length 1 broadcast
        r = _broadcast_copy(r, shape)
    if out is not None:
        _transfer.copy_into(out, r)
        return out
    return r


def _broadcast_copy(r, shape):
    return _manipulation.broadcast_to(r, shape).copy()


def _path(subscripts, ops, optimize):
    """The contraction order: a list of tuples of positions in the list of
    pending terms (numpy.einsum_path's convention: the picked terms leave
    the list and their product joins its end)."""
    n = len(ops)
    if n == 1:
        return [(0,)]
    if optimize is False:
        return [(0, 1)] * (n - 1)
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        return [tuple(s) for s in optimize[1:]]
    dummies = [np.lib.stride_tricks.as_strided(np.zeros(1, x.dtype), x.shape,
                                               (0,) * len(x.shape))
               for x in ops]
    path, _ = np.einsum_path(subscripts, *dummies,
                             optimize="greedy" if optimize is True else optimize)
    return [tuple(s) for s in path[1:]]


# ---------------------------------------------------------------------------
# outer, kron

def outer(a, b, out=None):
    """Outer product of the flattened arrays (numpy.outer):
    ``out[i, j] = a.ravel()[i] * b.ravel()[j]``, shape ``(a.size, b.size)``,
    numpy.multiply's result dtype; one broadcasting multiply.

    Parameters
    ----------
    a, b : GPUArray or array_like
        Any shapes; flattened in C order.  Host operands are copied to
        the device first.
    out : GPUArray, optional
        Written in place, with :func:`gpuarr.multiply`'s rules for
        ``out`` (shape ``(a.size, b.size)``, a dtype the product casts to
        under ``same_kind``).

    Returns
    -------
    GPUArray, (a.size, b.size)
        A new array, or ``out`` when it is given.
    """
    a = _asarray(a)
    b = _asarray(b)
    x = a.reshape(-1, 1)
    y = b.reshape(1, -1)
    return _ufunc.multiply(x, y) if out is None else _ufunc.multiply(x, y, out=out)


def kron(a, b):
    """Kronecker product (numpy.kron): blocks ``a[i, j] * b``.

    The shorter shape is padded with leading 1s; the result, of shape
    ``a.shape * b.shape`` element by element, is one broadcasting multiply
    of ``a`` and ``b`` with their axes interleaved (no matrix product).

    Parameters
    ----------
    a, b : GPUArray or array_like
        Any shapes (0-d included); host operands are copied to the device
        first.

    Returns
    -------
    GPUArray
        Shape ``tuple(p * q for p, q in zip(a_shape, b_shape))`` with both
        shapes padded to the same length; numpy.multiply's result dtype.
    """
    a = _asarray(a)
    b = _asarray(b)
    nd = max(len(a.shape), len(b.shape))
    ash = (1,) * (nd - len(a.shape)) + tuple(a.shape)
    bsh = (1,) * (nd - len(b.shape)) + tuple(b.shape)
    ai = a.reshape(tuple(v for n in ash for v in (n, 1)))
    bi = b.reshape(tuple(v for n in bsh for v in (1, n)))
    r = _ufunc.multiply(ai, bi)
    return r.reshape(tuple(p * q for p, q in zip(ash, bsh)))


# ---------------------------------------------------------------------------
# numpy.linalg.multi_dot, matrix_power

def _chain_order(dims):
    """numpy's multi_dot order: the split of each sub-chain minimizing the
    scalar multiplications (dims: the n+1 sizes of n matrices)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            best = None
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if best is None or c < best:
                    best, split[i][j] = c, s
            cost[i][j] = best
    return split


def multi_dot(arrays, *, out=None):
    """Product of a chain of matrices in the cheapest order
    (numpy.linalg.multi_dot).

    Parameters
    ----------
    arrays : sequence of GPUArray
        At least two; the first may be 1-D (a row), the last 1-D (a
        column), the others 2-D.
    out : GPUArray, optional
        numpy.dot's rule for ``out``.

    Returns
    -------
    GPUArray
        2-D ``(first.shape[0], last.shape[-1])``; 1-D when the first or
        the last array is 1-D, 0-d when both are; the matrix product's
        result dtype.  ``out`` when it is given.

    Raises
    ------
    ValueError
        For fewer than two arrays.
    numpy.linalg.LinAlgError
        For an array (after the 1-D ends are made a row and a column) that
        is not 2-D (a subclass of ValueError, as in numpy).

    Notes
    -----
    The order is numpy's dynamic program on the matrix sizes (fewest
    scalar multiplications); each product is :func:`gpuarr.matmul`
    (cuBLAS for float and complex dtypes).  Two arrays go straight to
    :func:`gpuarr.dot`.
    """
    arrays = [_asarray(x) for x in arrays]
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return _rs.dot(arrays[0], arrays[1], out=out)
    first, last = arrays[0], arrays[-1]
    va, vb = len(first.shape) == 1, len(last.shape) == 1
    if va:
        arrays[0] = first.reshape(1, -1)
    if vb:
        arrays[-1] = last.reshape(-1, 1)
    for i, x in enumerate(arrays):
        if len(x.shape) != 2:
            raise np.linalg.LinAlgError(
                "%d-dimensional array given. Array must be two-dimensional"
                % len(x.shape))
    dims = [x.shape[0] for x in arrays] + [arrays[-1].shape[1]]
    split = _chain_order(dims)

    def chain(i, j):
        if i == j:
            return arrays[i]
        s = split[i][j]
        return _matmul.matmul(chain(i, s), chain(s + 1, j))

    r = chain(0, n - 1)
    if va and vb:
        r = r.reshape(())
    elif va:
        r = r.reshape(-1)
    elif vb:
        r = r.reshape(-1)
    if out is not None:
        _transfer.copy_into(out, r)
        return out
    return r


def matrix_power(a, n):
    """``a`` to the integer power ``n`` by repeated squaring
    (numpy.linalg.matrix_power), for stacks of square matrices.

    Parameters
    ----------
    a : GPUArray
        Shape ``(..., M, M)``.
    n : int
        0 gives identity matrices of ``a``'s dtype; negative powers invert
        first (:func:`gpuarr.linalg.inv`, cuSOLVER).

    Returns
    -------
    GPUArray, (..., M, M)
        A new array (never ``a`` itself), of ``a``'s dtype for ``n >= 0``
        and of numpy.linalg's dtype (float64 for integers) for ``n < 0``.

    Raises
    ------
    TypeError
        For an ``n`` that is not an integer.
    numpy.linalg.LinAlgError
        For fewer than two dimensions or non-square matrices (numpy's
        messages); for a singular matrix with a negative ``n``.
    """
    a = _asarray(a)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError("exponent must be an integer") from None
    if len(a.shape) < 2:
        raise np.linalg.LinAlgError(
            "%d-dimensional array given. Array must be at least "
            "two-dimensional" % len(a.shape))
    if a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be "
                                    "square")
    if n == 0:
        eye = _creation.eye(a.shape[-1], dtype=a.dtype)
        return _broadcast_copy(eye, a.shape)
    if n < 0:
        a = _decomp.inv(a)
        n = -n
    result = None
    z = a
    while True:
        if n & 1:
            result = z if result is None else _matmul.matmul(result, z)
        n >>= 1
        if not n:
            break
        z = _matmul.matmul(z, z)
    return result.copy() if result is a else result


# run on the arrays' device (issue 16)
_placement.route(globals())
