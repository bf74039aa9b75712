"""Joining and gathering (layer 5): ``concatenate``, ``stack``, ``hstack``,
``vstack``, ``dstack``, ``column_stack``, and PyCUDA's ``take``,
``multi_take`` and ``multi_put``.

PyCUDA's names and signatures, numpy's semantics: any axis (negative
too), the result dtype by ``numpy.result_type``, numpy's errors, inputs of
any layout.  Joins of at most :data:`FEW_INPUTS` non-empty inputs copy
each input into its part of the result (``cuMemcpy`` when the layouts
allow, else the elementwise ``copy`` kernel, which casts); more inputs are
copied by ONE launch of the joining kernel, which reads a table of the
inputs (addresses, shapes, strides, dtypes) from device memory
(:mod:`gpuarr._joinkernels`).  Gathers run one kernel launch per group
of up to :data:`gpuarr._joinkernels.NVEC` arrays whose gathered data fit
in half the L2 cache (:func:`gpuarr._joinkernels.gather_groups`).
"""

import numpy as np

from . import _placement
from . import _creation, _dtypes, _layout, _transfer
from . import _joinkernels as _jk
from . import _manipulation as _manip
from . import driver as _drv
from ._array import GPUArray

__all__ = ["concatenate", "stack", "hstack", "vstack", "dstack",
           "column_stack", "take", "multi_take", "multi_put", "FEW_INPUTS"]

#: joins of at most this many non-empty inputs copy input by input
FEW_INPUTS = 4
# joins of this many contiguous parts or more build the kernel's table with
# numpy (a fixed ~20 us, then ~0.4 us a part, against ~1 us a part)
_VECTOR_BUILD = 48
_MODES = ("raise", "wrap", "clip")
_U64 = np.dtype(np.uint64)
_I64 = np.dtype(np.int64)


# ---------------------------------------------------------------------------
# helpers

def _on_device(x):
    """Whether :func:`gpuarr.asarray` takes ``x`` as it is (a GPUArray, or
    device memory it wraps) rather than copying it from the host."""
    return isinstance(x, GPUArray) or hasattr(x, "__cuda_array_interface__")


def _arrays(arrays):
    """The inputs of a join as a list of GPUArrays (numpy iterates a single
    array over its first axis), and whether any is a temporary: a device
    copy of a host input, which must outlive the join's work on its
    stream."""
    if isinstance(arrays, GPUArray):
        return [arrays[k] for k in range(len(arrays))], False
    if hasattr(arrays, "__cuda_array_interface__") or isinstance(
            arrays, np.ndarray):
        made = not _on_device(arrays)
        arrays = _creation.asarray(arrays)
        return [arrays[k] for k in range(len(arrays))], made
    try:
        seq = list(arrays)
    except TypeError:
        raise TypeError("the arrays to join must be passed as a sequence "
                        "(got %s)" % type(arrays).__name__) from None
    if all(type(x) is GPUArray for x in seq):
        return seq, False
    return ([_creation.asarray(x) for x in seq],
            not all(_on_device(x) for x in seq))


def _insert_axis(a, ax):
    return a._view(a.shape[:ax] + (1,) + a.shape[ax:],
                   a.strides[:ax] + (a.dtype.itemsize,) + a.strides[ax:], 0)


def _copy_parts(out, parts, ax, stream):
    """Copy every ``(source, byte offset into out)`` of ``parts`` (joined
    along axis ``ax``) into the view of ``out`` of the source's shape at
    that offset, casting to ``out.dtype``; whether a temporary (the device table) was made, which
    the caller keeps until the copy on ``stream`` is done (:func:`_join`
    waits)."""
    if len(parts) <= FEW_INPUTS:
        for src, off in parts:
            _transfer.copy_into(out._view(src.shape, out.strides, off), src,
                                stream)
        return False
    ptr, strides, dt = out.ptr, out.strides, out.dtype
    flat = None
    if len(parts) >= _VECTOR_BUILD and out._c:
        # the common join of many parts, each a contiguous block of every
        # row: the table in a few numpy steps (~20 us), not one per part,
        # from one flat list of (address, offset, bytes) (numpy converts
        # it twice as fast as a list of tuples)
        # bytes per unit of the axis (numpy's contiguity leaves the strides
        # of length-1 axes free: from the shape, not out.strides)
        step = _layout.prod(out.shape[ax + 1:]) * dt.itemsize
        flat = []
        put = flat.extend
        for src, off in parts:
            if not src._c or src.dtype != dt:
                flat = None
                break
            put((src.ptr, off, src.shape[ax] * step))
    if flat is not None:
        outer = _layout.prod(out.shape[:ax])
        spec, table = _jk.contiguous_join_spec(dt, ptr, outer,
                                               out.nbytes // outer, flat)
    else:
        made = _jk.copy_spec(dt, [(_layout.Layout(ptr + off, dt, src.shape,
                                                  strides), src)
                                  for src, off in parts])
        if made is None:
            return False
        spec, table = made
    _launch_table(spec, table, stream)
    return True


def _launch_table(spec, table, stream):
    """Upload a join's ``table`` to a temporary and launch ``spec``'s
    kernel over it on ``stream`` (the caller waits for the stream before
    the temporary may be reused: :func:`_transfer.settle_temporaries`)."""
    fn = _jk.function(spec)
    tab = _creation.empty_c((table.size,), _I64)
    _jk.upload(table, tab.ptr, stream)
    fn.prepared_async_call(_jk.join_grid(spec), spec.block, stream, tab.ptr,
                           *spec.tail)
    # the table is dropped on return


def _join_alike(arrs, ax, stream):
    """The join along ``ax`` of :data:`_VECTOR_BUILD` or more non-empty
    C-contiguous arrays of one shape and dtype into a new array (the usual
    join of many parts) in one loop over them, or None when they are not
    all such."""
    a0 = arrs[0]
    shape, dt = a0.shape, a0.dtype
    if not a0.size:
        return None
    outer = _layout.prod(shape[:ax])
    nb = a0.nbytes // outer             # a part's bytes in each outer row
    srcs = []
    put = srcs.append
    for a in arrs:
        if a.shape != shape or a.dtype is not dt or not a._c:
            return None
        put(a.ptr)
    out = _creation.empty_c(shape[:ax] + (shape[ax] * len(arrs),)
                            + shape[ax + 1:], dt)
    if _jk.ALIKE:
        spec, table = _jk.alike_join_spec(out.ptr, outer, nb, srcs)
    else:
        flat = []
        for k, p in enumerate(srcs):
            flat += (p, k * nb, nb)
        spec, table = _jk.contiguous_join_spec(dt, out.ptr, outer,
                                               nb * len(srcs), flat)
    _launch_table(spec, table, stream)
    _transfer.settle_temporaries(stream, True)
    return out


# ---------------------------------------------------------------------------
# joins

def _check_shapes(shapes, arrs, ax):
    """``(length of the join along ax, set of dtypes)`` of arrays whose
    shapes differ; numpy's ValueError when a dimension count or a size
    off the axis does not match the first array's."""
    shape = shapes[0]
    nd = len(shape)
    rest = shape[:ax] + shape[ax + 1:]
    total = 0
    for k, s in enumerate(shapes):
        if len(s) != nd:
            raise ValueError(
                "all the input arrays must have same number of dimensions, "
                "but the array at index 0 has %d dimension(s) and the array "
                "at index %d has %d dimension(s)" % (nd, k, len(s)))
        if s[:ax] + s[ax + 1:] != rest:
            d = next(d for d in range(nd) if d != ax and s[d] != shape[d])
            raise ValueError(
                "all the input array dimensions except for the "
                "concatenation axis must match exactly, but along "
                "dimension %d, the array at index 0 has size %d and the "
                "array at index %d has size %d" % (d, shape[d], k, s[d]))
        total += s[ax]
    return total, {a.dtype for a in arrs}


def _join(arrs, axis, out, dtype, casting, allocator, stream, made):
    """Join ``arrs`` (GPUArrays) along ``axis`` on ``stream``; ``made``:
    whether some of them are temporaries (waited for on ``stream`` before
    they are dropped, as every copy made here: the pool does not track
    streams)."""
    if not arrs:
        raise ValueError("need at least one array to concatenate")
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an "
                        "argument, but both were provided.")
    if axis is None:
        flat = [a.reshape(-1) for a in arrs]
        # a reshape that cannot be a view copies
        made = made or any(f.size and not _layout.overlaps(f, a)
                           for f, a in zip(flat, arrs))
        arrs = flat
        axis = 0
    nd = arrs[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    ax = _layout.normalize_axis(axis, nd)        # numpy checks it first
    if (out is None and dtype is None and allocator is None
            and len(arrs) >= _VECTOR_BUILD):
        got = _join_alike(arrs, ax, stream)
        if got is not None:
            return got
    shape = list(arrs[0].shape)
    shapes = [a.shape for a in arrs]
    if shapes.count(shapes[0]) == len(shapes):
        # parts of one shape (the usual join): nothing to compare
        total = shape[ax] * len(arrs)
        dts = {a.dtype for a in arrs}
    else:
        total, dts = _check_shapes(shapes, arrs, ax)
    shape[ax] = total
    shape = tuple(shape)
    if out is not None:
        if not isinstance(out, GPUArray):
            raise TypeError("out must be a GPUArray, not %s"
                            % type(out).__name__)
        if out.ndim != nd:
            raise ValueError("Output array has wrong dimensionality")
        if out.shape != shape:
            raise ValueError("Output array is the wrong shape")
        rdt = out.dtype
    elif dtype is not None:
        rdt = _dtypes.canonical(dtype)
    else:
        rdt = _dtypes.result_type(*dts)
    for dt in dts:
        if not np.can_cast(dt, rdt, casting):
            raise TypeError("Cannot cast array data from %r to %r according "
                            "to the rule %r" % (dt, rdt, casting))
    fresh = out is None
    if fresh:
        out = (_creation.empty_c(shape, rdt) if allocator is None
               else _creation.empty(shape, rdt, allocator=allocator))
    if not out.size:
        return out
    parts = []
    off = 0
    step = out.strides[ax]
    for a in arrs:
        n = a.shape[ax]
        if n:                       # out is not empty: neither is a
            if not fresh and _layout.overlaps(a, out):
                a = a.copy(stream=stream)
                made = True
            parts.append((a, off * step))
        off += n
    made = _copy_parts(out, parts, ax, stream) or made
    _transfer.settle_temporaries(stream, made)
    return out


def concatenate(arrays, axis=0, allocator=None, out=None, dtype=None,
                casting="same_kind", stream=None):
    """Join arrays along an existing axis (numpy.concatenate).

    Parameters
    ----------
    arrays : sequence of GPUArray or array_like
        Arrays of one number of dimensions (at least 1) whose shapes agree
        except along ``axis``; any layout, empty ones too.  Host arrays are
        copied to the device first.
    axis : int or None
        The axis to join along (negative counts from the end); None joins
        the flattened arrays.
    allocator : callable, optional
        Allocates the result (PyCUDA's argument).
    out : GPUArray, optional
        Where to put the result (any layout, the result's shape); its dtype
        is then the result's.
    dtype : dtype-like, optional
        The result's dtype (not together with ``out``); default
        ``numpy.result_type`` of the inputs.
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}
        numpy's rule for casting the inputs to the result's dtype.
    stream : gpuarr.driver.Stream, optional
        Where the copies run.  The call waits for it when it made
        temporaries the copies read (the table of a join of many inputs,
        device copies of host inputs or of inputs overlapping ``out``,
        copies ``axis=None`` flattening made), since the memory pool does
        not track streams.

    Returns
    -------
    GPUArray
        ``out``, or a new C-contiguous array.

    Raises
    ------
    ValueError
        For no arrays, 0-d arrays, different numbers of dimensions, shapes
        that disagree off ``axis``, or an ``out`` of another shape.
    numpy.exceptions.AxisError
        For an axis out of range.
    TypeError
        For ``out`` together with ``dtype``, or a cast ``casting`` forbids.

    Notes
    -----
    PyCUDA's ``concatenate(arrays, axis=0, allocator=None)``, with numpy's
    keywords added.  Up to :data:`FEW_INPUTS` non-empty inputs are copied
    one by one; more in one kernel launch.  An input overlapping ``out``
    is copied first.
    """
    arrs, made = _arrays(arrays)
    return _join(arrs, axis, out, dtype, casting, allocator, stream, made)


def stack(arrays, axis=0, allocator=None, out=None, dtype=None,
          casting="same_kind", stream=None):
    """Join arrays of one shape along a new axis (numpy.stack).

    Parameters
    ----------
    arrays : sequence of GPUArray or array_like
        Arrays of one shape (0-d too).
    axis : int
        Position of the new axis in the result (``-1`` is the last).
    allocator, out, dtype, casting, stream
        As for :func:`concatenate`.

    Returns
    -------
    GPUArray
        Of shape ``shape[:axis] + (len(arrays),) + shape[axis:]``.

    Raises
    ------
    ValueError
        For no arrays or arrays of different shapes.
    numpy.exceptions.AxisError
        For an axis out of ``range(-ndim - 1, ndim + 1)``.
    TypeError
        As for :func:`concatenate`.
    """
    arrs, made = _arrays(arrays)
    if not arrs:
        raise ValueError("need at least one array to stack")
    shape = arrs[0].shape
    for a in arrs:
        if a.shape != shape:
            raise ValueError("all input arrays must have the same shape")
    ax = _layout.normalize_axis(axis, len(shape) + 1)
    return _join([_insert_axis(a, ax) for a in arrs], ax, out, dtype,
                 casting, allocator, stream, made)


def hstack(arrays, allocator=None, dtype=None, casting="same_kind"):
    """Join arrays column-wise (numpy.hstack): along axis 0 for 1-d
    arrays, else along axis 1; 0-d arrays count as 1-d.

    Parameters
    ----------
    arrays : sequence of GPUArray or array_like
    allocator, dtype, casting
        As for :func:`concatenate`.

    Returns
    -------
    GPUArray

    Raises
    ------
    ValueError, TypeError
        As for :func:`concatenate`.
    """
    arrs = [_manip.atleast(a, 1) for a in _arrays(arrays)[0]]
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    return _join(arrs, axis, None, dtype, casting, allocator, None, False)


def vstack(arrays, allocator=None, dtype=None, casting="same_kind"):
    """Join arrays row-wise (numpy.vstack): along axis 0 after making
    each at least 2-d (``(n,)`` becomes ``(1, n)``).


    Parameters
    ----------
    arrays : sequence of GPUArray or array_like
    allocator : callable, optional
        Allocates the result.
    dtype, casting
        As for :func:`concatenate`.

    Returns
    -------
    GPUArray
        A new C-contiguous array of the inputs' ``numpy.result_type``
        (or ``dtype``).

    Raises
    ------
    ValueError
        For no arrays or shapes that do not join (numpy's messages).
    TypeError
        As for :func:`concatenate`.
    """
    arrs = [_manip.atleast(a, 2) for a in _arrays(arrays)[0]]
    return _join(arrs, 0, None, dtype, casting, allocator, None, False)


def dstack(arrays, allocator=None):
    """Join arrays depth-wise (numpy.dstack): along axis 2 after making
    each at least 3-d (``(n,)`` becomes ``(1, n, 1)``, ``(m, n)``
    becomes ``(m, n, 1)``).


    Parameters
    ----------
    arrays : sequence of GPUArray or array_like
    allocator : callable, optional
        Allocates the result.

    Returns
    -------
    GPUArray
        A new C-contiguous array of the inputs' ``numpy.result_type``.

    Raises
    ------
    ValueError
        For no arrays or shapes that do not join (numpy's messages).
    TypeError
        As for :func:`concatenate`.
    """
    arrs = [_manip.atleast(a, 3) for a in _arrays(arrays)[0]]
    return _join(arrs, 2, None, None, "same_kind", allocator, None, False)


def column_stack(arrays, allocator=None):
    """Join 1-d arrays as the columns of a 2-d one (numpy.column_stack):
    ``(n,)`` inputs become ``(n, 1)`` columns, 0-d ones ``(1, 1)``, 2-d
    ones join as they are, along axis 1.


    Parameters
    ----------
    arrays : sequence of GPUArray or array_like
    allocator : callable, optional
        Allocates the result.

    Returns
    -------
    GPUArray
        A new C-contiguous array of the inputs' ``numpy.result_type``.

    Raises
    ------
    ValueError
        For no arrays or shapes that do not join (numpy's messages).
    TypeError
        As for :func:`concatenate`.
    """
    arrs = []
    for a in _arrays(arrays)[0]:
        if a.ndim < 2:
            a = _manip.with_shape(a, (a.size, 1) if a.ndim else (1, 1))
        arrs.append(a)
    return _join(arrs, 1, None, None, "same_kind", allocator, None, False)


# ---------------------------------------------------------------------------
# take and put

def _indices(indices):
    """An index array on the device (C-contiguous), with numpy's dtype
    check (bool and integers convert to intp, nothing else does)."""
    if isinstance(indices, GPUArray) or hasattr(
            indices, "__cuda_array_interface__"):
        idx = _creation.asarray(indices)
        dt = idx.dtype
    else:
        host = np.asarray(indices)
        dt = host.dtype
        idx = None
    if dt.kind not in "biu":
        raise TypeError("Cannot cast array data from %r to %r according to "
                        "the rule 'same_kind'" % (dt, np.dtype(np.intp)))
    if idx is None:
        idx = _creation.to_gpu(host)
    if not idx._c:
        idx = idx.copy()
    return idx


def _check_mode(mode):
    if mode not in _MODES:
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap' "
                         "(got %r)" % (mode,))


def _flat_source(a):
    """``a`` in C order, contiguous (a copy when it is not)."""
    return a if a._c else a.copy()


def _launch(kind, srcs, dsts, idx, sizes, nvals, mode, stream):
    """Run the take/put kernel over ``idx`` for every array, NVEC per
    launch; with ``mode="raise"`` raise numpy's IndexError afterwards for
    the first bad index."""
    n = idx.size
    if not n or not srcs:
        return
    isz = srcs[0].dtype.itemsize
    grid = _jk.take_grid(n)
    bad = None
    if mode == "raise":
        bad = _creation.flag_word(stream)
    head = [idx.ptr, n, bad.ptr if bad is not None else 0]
    for start, stop in _jk.gather_groups(
            [isz * sz for sz in sizes] if kind == "take"
            else [d.nbytes for d in dsts]):
        m = stop - start
        # one array a launch has its own kernel, of one array's parameters
        nv = 1 if m == 1 else _jk.NVEC
        pad = [0] * (nv - m)
        args = head + [m]
        args += [a.ptr for a in srcs[start:stop]] + pad
        args += [a.ptr for a in dsts[start:stop]] + pad
        args += list(sizes[start:stop]) + [1] * (nv - m)
        if kind == "put":
            args += list(nvals[start:stop]) + pad
        # specs and kernels are kept, so these are lookups
        spec = _jk.take_spec(kind, isz, idx.dtype, mode, m == 1)
        _jk.function(spec).prepared_async_call(grid, spec.block, stream,
                                               *args)
    if bad is None:
        return
    host = np.empty(1, _U64)
    if stream is None:
        _drv.memcpy_dtoh(host, bad.ptr)
    else:
        _drv.memcpy_dtoh_async(host, bad.ptr, stream)
        stream.synchronize()
    pos = int(host[0])
    if pos == _jk.NO_BAD:
        _creation.keep_flag_word(bad)
        return
    val = np.empty(1, idx.dtype)
    _drv.memcpy_dtoh(val, idx.ptr + pos * idx.dtype.itemsize)
    k = int(val.astype(_I64)[0])    # numpy's conversion to intp
    size = next((sz for sz, nvl in zip(sizes, nvals or [1] * len(sizes))
                 if nvl and not -sz <= k < sz), sizes[0])
    raise IndexError("index %d is out of bounds for axis 0 with size %d"
                     % (k, size))


def _targets(outs, dt, avoid, keep_values):
    """Arrays the kernel can write for each of ``outs``: the array itself
    when it is C-contiguous, of dtype ``dt`` and overlaps none of
    ``avoid``, else a C-contiguous temporary of ``dt`` (holding ``out``'s
    values when ``keep_values``)."""
    res = []
    for o in outs:
        if (o._c and o.dtype == dt
                and not any(_layout.overlaps(o, x) for x in avoid)):
            res.append(o)
        elif keep_values:
            res.append(o.astype(dt, order="C"))
        else:
            res.append(_creation.empty_c(o.shape, dt))
    return res


def _finish(outs, targets, stream, temporaries):
    """Copy the temporaries among ``targets`` into their ``outs``; on a
    stream, wait for it when any temporary was made (``temporaries``:
    sources or indices copied), since they go back to the pool on return
    and the pool does not track streams."""
    for o, t in zip(outs, targets):
        if t is not o:
            _transfer.copy_into(o, t, stream)
            temporaries = True
    _transfer.settle_temporaries(stream, temporaries)


def take(a, indices, out=None, stream=None, mode="raise"):
    """``a.flat[indices]`` (numpy.take without an axis; PyCUDA's take).

    Parameters
    ----------
    a : GPUArray
        Any shape and layout: its elements in C order are indexed (PyCUDA
        takes 1-d arrays).
    indices : GPUArray or array_like of bool or integers
        Any shape; negative indices count from the end (numpy).
    out : GPUArray, optional
        Of ``indices``' shape; a value of another dtype is cast to it.
    stream : gpuarr.driver.Stream, optional
    mode : {'raise', 'wrap', 'clip'}
        numpy's handling of indices out of ``range(-a.size, a.size)``.

    Returns
    -------
    GPUArray
        ``out``, or a new array of ``indices``' shape and ``a``'s dtype.

    Raises
    ------
    IndexError
        ``mode="raise"``: numpy's message for the first index out of range
        (the kernel records it on the device; the call then waits for the
        kernel, which ``'wrap'`` and ``'clip'`` never do); any mode: a
        non-empty take from an empty ``a``.
    TypeError
        For indices that are not bool or integers.
    ValueError
        For an ``out`` of the wrong shape or an unknown ``mode``.

    Notes
    -----
    PyCUDA checks no index; numpy's checks win here. Unlike numpy, which
    buffers ``out`` when ``mode="raise"``, ``out`` may be partly written
    when the IndexError is raised.
    """
    return multi_take([a], indices, None if out is None else [out],
                      stream, mode)[0]


def multi_take(arrays, indices, out=None, stream=None, mode="raise"):
    """:func:`take` of every array with one index array (PyCUDA's).

    Parameters
    ----------
    arrays : sequence of GPUArray
        Of one dtype, any shapes and layouts.
    indices, stream, mode
        As for :func:`take` (each array's own size bounds the indices).
    out : sequence of GPUArray, optional
        One per array, each of ``indices``' shape.

    Returns
    -------
    list of GPUArray

    Raises
    ------
    ValueError
        For arrays of several dtypes, ``out`` of another length or of the
        wrong shapes, an unknown ``mode``.
    IndexError, TypeError
        As for :func:`take`.

    Notes
    -----
    One kernel launch per 16 arrays (PyCUDA chunks by 20). ``out`` arrays
    of another dtype are cast to (PyCUDA has no casting).
    """
    _check_mode(mode)
    given = list(arrays)
    arrays = [_creation.asarray(a) for a in given]
    if not arrays:
        return []
    dt = arrays[0].dtype
    if any(a.dtype != dt for a in arrays):
        raise ValueError("the arrays of multi_take must have one dtype")
    idx = _indices(indices)
    if out is None:
        out = [_creation.empty_c(idx.shape, dt) for _ in arrays]
        targets = out
    else:
        out = list(out)
        if len(out) != len(arrays):
            raise ValueError("out and arrays must have the same length")
        for o in out:
            if not isinstance(o, GPUArray):
                raise TypeError("out must hold GPUArrays, not %s"
                                % type(o).__name__)
            if o.shape != idx.shape:
                raise ValueError("output array does not match result of "
                                 "ndarray.take")
        targets = None
    if idx.size and any(a.size == 0 for a in arrays):
        raise IndexError("cannot do a non-empty take from an empty axes.")
    srcs = [_flat_source(a) for a in arrays]
    if targets is None:
        targets = _targets(out, dt, srcs + [idx], False)
    _launch("take", srcs, targets, idx, [a.size for a in srcs], None, mode,
            stream)
    _finish(out, targets, stream, idx is not indices
            or any(x is not g for x, g in zip(srcs, given)))
    return out


def multi_put(arrays, dest_indices, dest_shape=None, out=None, stream=None,
              mode="raise"):
    """``out[k].flat[dest_indices] = arrays[k]`` for every k (PyCUDA's
    multi_put, numpy.put's semantics).

    Parameters
    ----------
    arrays : sequence of GPUArray
        The values, of one dtype; element ``i`` (C order) goes to
        ``dest_indices[i]``; a shorter array repeats (numpy.put), an empty
        one puts nothing.
    dest_indices : GPUArray or array_like of bool or integers
        1-d; negative indices count from the end. uint64 indices are
        taken as numpy's take converts them to intp (numpy's put refuses
        them; PyCUDA takes any integer dtype).
    dest_shape : tuple of int, optional
        The shape of new outputs when ``out`` is None.
    out : sequence of GPUArray, optional
        One per array, of the arrays' dtype, any layout.
    stream : gpuarr.driver.Stream, optional
    mode : {'raise', 'wrap', 'clip'}
        As for :func:`take`.

    Returns
    -------
    list of GPUArray
        ``out``, or new arrays of ``dest_shape`` whose elements not named
        by ``dest_indices`` are uninitialized (as PyCUDA's).

    Raises
    ------
    ValueError
        For arrays of several dtypes, 2-d or more ``dest_indices``, ``out``
        of another length, an unknown ``mode``.
    TypeError
        For ``out`` of another dtype (PyCUDA's), no ``dest_shape`` and no
        ``out``, indices that are not integers.
    IndexError
        ``mode="raise"``: the first index out of range (as numpy, the
        elements of the valid ones may have been written).

    Notes
    -----
    With a repeated index the value that lands is one of those put there
    (numpy: the last one).
    """
    _check_mode(mode)
    given = list(arrays)
    arrays = [_creation.asarray(a) for a in given]
    if not arrays:
        return []
    dt = arrays[0].dtype
    if any(a.dtype != dt for a in arrays):
        raise ValueError("the arrays of multi_put must have one dtype")
    indices = dest_indices
    idx = _indices(dest_indices)
    if idx.ndim != 1:
        raise ValueError("dest_indices must be 1D")
    if out is None:
        if dest_shape is None:
            raise TypeError("multi_put needs dest_shape or out")
        out = [_creation.empty(dest_shape, dt) for _ in arrays]
    else:
        out = list(out)
        if len(out) != len(arrays):
            raise ValueError("out and arrays must have the same length")
        for o in out:
            if not isinstance(o, GPUArray):
                raise TypeError("out must hold GPUArrays, not %s"
                                % type(o).__name__)
            if o.dtype != dt:
                raise TypeError("arrays and out must have the same dtype")
    nvals = [a.size for a in arrays]
    if idx.size and any(o.size == 0 and nv for o, nv in zip(out, nvals)):
        if mode != "raise":
            raise IndexError("cannot do a non-empty take from an empty "
                             "axes.")
    srcs = [_flat_source(a) for a in arrays]
    targets = _targets(out, dt, srcs + [idx], True)
    _launch("put", srcs, targets, idx, [t.size for t in targets], nvals,
            mode, stream)
    _finish(out, targets, stream, idx is not indices
            or any(x is not g for x, g in zip(srcs, given)))
    return out


# run on the arrays' device (issue 16)
_placement.route(globals())
