"""Indexing GPUArrays (layer 5): ``__getitem__`` and ``__setitem__``.

Basic keys (integers, slices, ``None`` and ``Ellipsis``) give views, by
numpy's rules; assignment through any basic key broadcasts and casts the
value as numpy's ``__setitem__`` does.

Advanced keys (integer arrays, boolean arrays and scalars, mixed with the
basic kinds; numpy's rules, read by :mod:`gpuarr._indexkey`) select from
the view their basic part gives, with the kernels of
:mod:`gpuarr._indexkernels`:

- one boolean array (``a[a > 0]``, ``a[:, m]``): its true elements are
  counted per tile, the counts scanned, and the selected elements copied
  in one more pass (the result's size is read back after the count);
- one integer array (``a[idx]``, ``a[:, idx]``): one gather kernel reads
  the indices directly, checking them, and numpy's IndexError is raised
  after it for the first bad one;
- otherwise the index arrays (boolean arrays as their ``nonzero``
  coordinates) are broadcast, combined into one element offset per index
  position by one kernel that checks them, and one kernel gathers.

Assignment always checks the indices before it writes (nothing is
written for a key with a bad index); for indices that repeat, which of
the values lands is unspecified, as in numpy.
"""

import operator

import numpy as np

from . import _placement
from . import _creation, _indexkey, _layout, _transfer
from . import _indexkernels as _ik
from . import _ufunc
from . import cumulative as _cum
from . import driver as _drv
from ._array import GPUArray

__all__ = ["getitem", "setitem", "ufunc_at", "device_index", "device_mask",
           "mask_scan", "nonzero_coords", "raise_bad_index"]

_I64 = np.dtype(np.int64)
_U64 = np.dtype(np.uint64)
_INT32_MAX = 2 ** 31 - 1


def getitem(a, key):
    """``a[key]``: a view for a basic key, a new array for an advanced one.

    Raises
    ------
    IndexError
        numpy's: an index out of range, too many indices, two ellipses,
        an invalid index type, a boolean index of the wrong shape, index
        arrays that do not broadcast.
    """
    shape = a.shape
    if type(key) is slice and shape:
        # one slice of the first axis (``a[::2]``), the common case
        strides = a.strides
        start, stop, step = key.indices(shape[0])
        return a._view((len(range(start, stop, step)),) + shape[1:],
                       (step * strides[0],) + strides[1:],
                       start * strides[0])
    if (type(key) is GPUArray and shape and key.shape and key._c
            and key.dtype.kind in "iu"):
        # one C-contiguous integer array on the device (``a[idx]``, the
        # common case): rows of axis 0, as the general path takes them
        out = _creation.empty_c(key.shape + shape[1:], a.dtype)
        if out.size:
            _move("gather", a, out, key.size, (), range(1, len(shape)),
                  direct=(key, shape[0], a.strides[0] // a.dtype.itemsize,
                          0))
            return out
    plan = _indexkey.parse(shape, key)
    if type(plan) is tuple:
        return _basic(a, plan)
    return _advanced_get(a, plan)


def setitem(a, key, value):
    """``a[key] = value``: ``value`` broadcast to ``a[key]``'s shape and
    cast as numpy's ``__setitem__`` does (:func:`gpuarr._transfer.assign`),
    then written through the view (basic key) or scattered (advanced)."""
    plan = _indexkey.parse(a.shape, key)
    if type(plan) is tuple:
        _transfer.assign(_basic(a, plan), value)
    else:
        _advanced_set(a, plan, value)


def _basic(a, key):
    """The view of a basic key (a tuple already checked by
    :func:`gpuarr._indexkey.parse`)."""
    shape = a.shape
    strides = a.strides
    nd = len(shape)
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    new_shape = []
    new_strides = []
    offset = 0
    axis = 0
    for k in key:
        if k is Ellipsis:
            for _ in range(nd - consumed):
                new_shape.append(shape[axis])
                new_strides.append(strides[axis])
                axis += 1
            continue
        if k is None:
            new_shape.append(1)
            new_strides.append(0)
            continue
        if type(k) is slice:
            start, stop, step = k.indices(shape[axis])
            offset += start * strides[axis]
            new_shape.append(len(range(start, stop, step)))
            new_strides.append(step * strides[axis])
            axis += 1
            continue
        idx = operator.index(k)
        n = shape[axis]
        if not -n <= idx < n:
            raise IndexError("index %d is out of bounds for axis %d with "
                             "size %d" % (idx, axis, n))
        offset += (idx + n if idx < 0 else idx) * strides[axis]
        axis += 1
    new_shape.extend(shape[axis:])
    new_strides.extend(strides[axis:])
    return a._view(tuple(new_shape), tuple(new_strides), offset)


# ---------------------------------------------------------------------------
# device-side pieces, shared with _selection

def device_index(x):
    """An integer index as a C-contiguous device array (host arrays are
    copied over, non-contiguous device arrays copied)."""
    if isinstance(x, np.ndarray):
        return _creation.to_gpu(np.ascontiguousarray(x))
    x = _creation.asarray(x)
    return x if x._c else x.copy()


def device_mask(m):
    """A boolean mask as a C-contiguous device array whose address is a
    multiple of 16 bytes (the tile kernels read it 16 bytes at a time)."""
    if isinstance(m, np.ndarray):
        return _creation.to_gpu(np.ascontiguousarray(m, dtype=np.bool_))
    m = _creation.asarray(m)
    if m.dtype != np.bool_:
        m = m.astype(np.bool_)
    if not m._c or m.ptr % 16:
        m = m.copy()
    return m


def mask_scan(m):
    """Count the true elements of a device mask from
    :func:`device_mask`, per tile.

    Returns
    -------
    (GPUArray or None, int)
        The inclusive scan of the per-tile counts (int64, one per tile;
        None for an empty mask) and the total count (read back).
    """
    n = m.size
    if not n:
        return None, 0
    nt = _ik.tiles(n)
    counts = _creation.empty_c((nt,), _I64)
    spec = _ik.count_spec()
    _ik.function(spec).prepared_call((nt, 1, 1), spec.block, m.ptr, n,
                                     counts.ptr)
    cs = _cum.cumsum(counts)
    last = np.empty(1, _I64)
    _drv.memcpy_dtoh(last, cs.ptr + (nt - 1) * 8)
    return cs, int(last[0])


def _select(action, m, cs, itemsize, dims, *args):
    spec = _ik.select_spec(action, itemsize, len(dims))
    flat = []
    for n, s in dims:
        flat += [n, s]
    _ik.function(spec).prepared_call((_ik.tiles(m.size), 1, 1), spec.block,
                                     m.ptr, m.size, cs.ptr, *(list(args)
                                                              + flat))


def nonzero_coords(m, cs, count, out=None, step_p=1, step_d=None):
    """The coordinates of a mask's true elements in C order (numpy's
    ``nonzero``), written as int64 into ``out`` (a new ``(m.ndim,
    count)`` array by default; ``step_p`` and ``step_d`` the element
    steps between positions and between dimensions)."""
    nd = max(m.ndim, 1)
    if out is None:
        out = _creation.empty_c((nd, count), _I64)
        step_p, step_d = 1, count
    if count:
        shape = m.shape if m.ndim else (1,)
        _select("coords", m, cs, 0, [(n, 0) for n in shape], out.ptr,
                step_p, *[step_d] * nd)
    return out


def raise_bad_index(flag, index_arrays, sizes, axes):
    """Read a kernel's flag word and raise numpy's IndexError for the
    bad index it points to (nothing when it holds :data:`NO_BAD`).

    ``flag`` holds ``b * K + k`` for the first bad position ``b`` of index
    array ``k`` of ``K`` (C-contiguous device arrays); ``sizes`` and
    ``axes`` are each array's axis size and axis number."""
    host = np.empty(1, _U64)
    _drv.memcpy_dtoh(host, flag.ptr)
    pos = int(host[0])
    if pos == _ik.NO_BAD:
        _creation.keep_flag_word(flag)
        return
    nk = len(index_arrays)
    b, k = divmod(pos, nk)
    idx = index_arrays[k]
    val = np.empty(1, idx.dtype)
    _drv.memcpy_dtoh(val, idx.ptr + b * idx.dtype.itemsize)
    v = int(val.astype(_I64)[0])    # numpy's conversion to intp
    raise IndexError("index %d is out of bounds for axis %d with size %d"
                     % (v, max(axes[k], 0), sizes[k]))


def _offsets(arrays, sizes, strides, axes, nb, check_only=False):
    """One int64 element offset per index position of the broadcast index
    arrays (C-contiguous, ``nb`` elements each), numpy's IndexError for
    a bad index (before anything else runs); ``check_only``: only the
    check (None is returned)."""
    spec = _ik.offsets_spec([x.dtype for x in arrays],
                            check_only=check_only)
    offs = None if check_only else _creation.empty_c((nb,), _I64)
    flag = _creation.flag_word()
    args = [nb, flag.ptr, 0 if check_only else offs.ptr]
    for x, n, s in zip(arrays, sizes, strides):
        args += [x.ptr, n, s]
    _ik.function(spec).prepared_call(_ik.grid(nb), spec.block, *args)
    raise_bad_index(flag, arrays, sizes, axes)
    return offs


def _dims(view, axes):
    """Merged (size, element stride) pairs of ``view``'s ``axes``."""
    if not axes:
        return []
    isz = view.dtype.itemsize
    shape = tuple(view.shape[x] for x in axes)
    strides = tuple(view.strides[x] // isz for x in axes)
    mshape, (mstrides,) = _layout.merge_dims(shape, [strides])
    return list(zip(mshape, mstrides))


def _move(kind, view, other, nb, pre, post, direct=None, offs=None):
    """Gather ``other[...] = view[pre, adv, post]`` or scatter the other
    way; ``other`` is C-contiguous of the result's shape.  ``direct``:
    ``(index array, axis size, axis element stride, axis)`` read in the
    kernel; else ``offs`` (int64 per index position)."""
    total = other.size
    pd = _dims(view, pre)
    qd = _dims(view, post)
    wide = total > _INT32_MAX
    if direct is not None:
        idx, n, s, axis = direct
        spec = _ik.move_spec(kind, view.dtype.itemsize, len(pd), len(qd),
                             wide, idx.dtype)
        flag = _creation.flag_word()
        mid = [idx.ptr, n, s, flag.ptr]
    else:
        spec = _ik.move_spec(kind, view.dtype.itemsize, len(pd), len(qd),
                             wide)
        mid = [offs.ptr]
    src, dst = (view, other) if kind == "gather" else (other, view)
    args = [total, src.ptr, dst.ptr, nb] + mid
    for dim in pd + qd:
        args += dim
    _ik.function(spec).prepared_call(_ik.move_grid(total), spec.block,
                                     *args)
    if direct is not None:
        raise_bad_index(flag, [idx], [n], [axis])


def _index_arrays(view, plan):
    """The plan's advanced indices as device integer arrays (masks as
    their coordinates), with each one's view axis, axis size and array
    axis (for messages)."""
    arrays, axes, sizes, raxes = [], [], [], []
    for adv in plan.advanced:
        if adv.kind == "mask":
            m = device_mask(adv.value)
            cs, count = mask_scan(m)
            co = nonzero_coords(m, cs, count)
            for d, va in enumerate(adv.view_axes):
                arrays.append(co[d])
                axes.append(va)
                sizes.append(view.shape[va])
                raxes.append(adv.axis + d)
        else:
            arrays.append(adv.value)
            axes.append(adv.view_axes[0])
            sizes.append(view.shape[adv.view_axes[0]])
            raxes.append(adv.axis)
    return arrays, axes, sizes, raxes


def _broadcast_to(x, shape):
    """Index array ``x`` (host or device) as a C-contiguous device array
    of ``shape``."""
    if tuple(x.shape) == shape:
        return device_index(x)
    if isinstance(x, np.ndarray):
        return _creation.to_gpu(np.ascontiguousarray(
            np.broadcast_to(x, shape)))
    x = _creation.asarray(x)
    view = x._view(shape, _layout.broadcast_strides(x.shape, x.strides,
                                                    shape), 0)
    return view.copy()


class _Selection:
    """What an advanced key selects: the view, where the result's axes
    come from, and how index positions map to elements."""

    __slots__ = ("view", "pre", "post", "bshape", "shape", "mask", "cs",
                 "direct", "arrays", "sizes", "strides", "axes")

    def __init__(self, a, plan):
        view = self.view = _basic(a, plan.basic)
        self.pre, self.post = _indexkey.result_axes(len(view.shape), plan)
        self.mask = self.cs = self.direct = self.arrays = None
        advs = plan.advanced
        if len(advs) == 1 and advs[0].kind == "mask":
            self.mask = device_mask(advs[0].value)
            self.cs, count = mask_scan(self.mask)
            self.bshape = (count,)
            self.axes = advs[0].view_axes
        else:
            arrays, axes, sizes, raxes = _index_arrays(view, plan)
            self.bshape = _indexkey.broadcast_index_shapes(
                [x.shape for x in arrays])
            isz = view.dtype.itemsize
            # host index arrays go over in upload(), after the caller has
            # checked what it can (a value that does not broadcast)
            if len(arrays) == 1:
                self.direct = (arrays[0], sizes[0],
                               view.strides[axes[0]] // isz, raxes[0])
            self.arrays = None if self.direct is not None else arrays
            self.sizes = sizes
            self.strides = [view.strides[x] // isz for x in axes]
            self.axes = raxes
        vs = view.shape
        self.shape = (tuple(vs[x] for x in self.pre) + self.bshape
                      + tuple(vs[x] for x in self.post))

    def upload(self):
        """Index arrays on the device, broadcast to the index shape."""
        if self.direct is not None:
            idx, n, s, axis = self.direct
            self.direct = (device_index(idx), n, s, axis)
        elif self.arrays is not None:
            self.arrays = [_broadcast_to(x, self.bshape) for x in self.arrays]
        return self

    @property
    def nb(self):
        return _layout.prod(self.bshape)

    def offsets(self):
        """int64 element offsets of the index positions (bounds checked)."""
        if self.mask is not None:
            offs = _creation.empty_c((self.nb,), _I64)
            if self.nb:
                _select("offsets", self.mask, self.cs, 0,
                        _dims(self.view, self.axes), offs.ptr)
            return offs
        if self.direct is not None:
            idx, n, s, axis = self.direct
            return _offsets([idx], [n], [s], [axis], self.nb)
        return _offsets(self.arrays, self.sizes, self.strides, self.axes,
                        self.nb)

    def flat_mask(self):
        """Whether the mask covers the view's last axes with nothing but
        size-1 axes after it and nothing before (then one select pass
        moves the elements)."""
        return (self.mask is not None and not self.pre
                and _layout.prod(self.shape) == self.nb)


def _advanced_get(a, plan):
    sel = _Selection(a, plan).upload()
    out = _creation.empty_c(sel.shape, a.dtype)
    view = sel.view
    if not out.size:
        if sel.nb and sel.mask is None:
            sel.offsets()           # numpy checks the indices all the same
        return out
    if sel.flat_mask():
        _select("gather", sel.mask, sel.cs, a.dtype.itemsize,
                _dims(view, sel.axes), view.ptr, out.ptr)
    elif sel.direct is not None:
        _move("gather", view, out, sel.nb, sel.pre, sel.post,
              direct=sel.direct)
    else:
        _move("gather", view, out, sel.nb, sel.pre, sel.post,
              offs=sel.offsets())
    return out


def _advanced_set(a, plan, value):
    sel = _Selection(a, plan)
    vals = _creation.empty_c(sel.shape, a.dtype)
    _transfer.assign(vals, value)
    sel.upload()
    view = sel.view
    if not vals.size:
        if sel.nb and sel.mask is None:
            sel.offsets()
        return
    if sel.flat_mask():
        _select("scatter", sel.mask, sel.cs, a.dtype.itemsize,
                _dims(view, sel.axes), view.ptr, vals.ptr, 1)
    else:
        _move("scatter", view, vals, sel.nb, sel.pre, sel.post,
              offs=sel.offsets())



# ---------------------------------------------------------------------------
# unbuffered scatter

#: numpy ufunc -> (kernel op, negate the values first)
_AT = {"add": ("add", False), "subtract": ("add", True),
       "multiply": ("multiply", False), "maximum": ("maximum", False),
       "minimum": ("minimum", False)}
#: the 4-byte type a 1-byte destination is updated in, by dtype kind
_WIDE = {"b": np.dtype(np.uint32), "i": np.dtype(np.int32),
         "u": np.dtype(np.uint32)}
#: bool's add and multiply on 0 and 1 held in 4 bytes (no carry into 2)
_BOOL_AT = {"add": "maximum", "multiply": "minimum"}


def ufunc_at(name, a, indices, b=None):
    """``numpy.<name>.at(a, indices, b)``: ``a[indices] = a[indices] <op>
    b`` unbuffered, so that an element indexed several times receives
    every update (atomics on the device).

    Parameters
    ----------
    name : {"add", "subtract", "multiply", "maximum", "minimum"}
    a : GPUArray
        Updated in place.
    indices : index key
        Anything ``a[...]`` takes (integer arrays, masks, slices, ...).
    b : GPUArray, array_like or scalar
        Broadcast to ``a[indices]``'s shape.

    Raises
    ------
    TypeError
        numpy's UFuncTypeError when ``b``'s dtype does not cast to ``a``'s
        by ``same_kind`` (``add.at(int_array, i, 1.5)``), or when ``b`` is
        missing.
    IndexError
        For a bad index, before anything is written.
    NotImplementedError
        For an operation gpuarr has no unbuffered form of, or complex128
        with an operation other than add and subtract.

    Notes
    -----
    There are no 1-byte atomics: a bool, int8 or uint8 ``a`` is updated
    in a 4-byte copy (int32 or uint32, four times ``a``'s memory for the
    call) and cast back; the results are numpy's (sums and products wrap
    modulo 256).
    """
    if name not in _AT:
        raise NotImplementedError("gpuarr has no unbuffered %s.at" % name)
    if b is None:
        raise TypeError("second operand needed for ufunc")
    op, negate = _AT[name]
    dt = a.dtype
    bdt = (np.dtype(b.dtype) if hasattr(b, "dtype")
           else np.result_type(dt, b))
    out_dt = np.result_type(dt, bdt) if hasattr(b, "dtype") else bdt
    if dt.kind == "b" and name == "subtract":
        raise TypeError("numpy boolean subtract, the `-` operator, is not "
                        "supported, use the bitwise_xor, the `^` operator, "
                        "or the logical_xor function instead.")
    if not np.can_cast(out_dt, dt, "same_kind"):
        raise _ufunc.casting_error(name, out_dt, dt)
    plan = _indexkey.parse(a.shape, indices)
    if type(plan) is tuple:
        view = _basic(a, plan)
        _ufunc.apply(name, (view, b), out=view)
        return
    sel = _Selection(a, plan)
    if (not negate and isinstance(b, GPUArray) and b.dtype == dt
            and b.shape == sel.shape and b._c and b.ptr % dt.alignment == 0
            and not _layout.overlaps(a, b)):
        vals = b        # read as it is (the scatter does not write it)
    else:
        vals = _creation.empty_c(sel.shape, dt)
        _transfer.assign(vals, b)
    if dt.itemsize == 1:
        # no 1-byte atomics: a compare-and-swap on the 32-bit word holding
        # a byte would read its neighbours, which may lie past the array
        # (unwritten, or past a foreign allocation's end); the updates go
        # to a 4-byte copy and are cast back.  Sums and products wrap
        # modulo 256 either way; bool add and multiply are or and and.
        wide = _creation.empty_c(a.shape, _WIDE[dt.kind])
        _transfer.assign(wide, a)
        ufunc_at(_BOOL_AT.get(name, name) if dt.kind == "b" else name,
                 wide, indices, vals.astype(wide.dtype))
        _transfer.assign(a, wide)
        return
    sel.upload()
    if not vals.size:
        if sel.nb and sel.mask is None:
            sel.offsets()
        return
    if negate:
        _ufunc.apply("negative", (vals,), out=vals)
    view = sel.view
    if sel.direct is not None and _scratch_pays(view, sel):
        _at_scratch(op, view, sel, vals)
        return
    if sel.direct is not None:
        # one index array: checked first, then read by the scatter itself
        # (no offsets written and read back)
        idx, n, s, axis = sel.direct
        _offsets([idx], [n], [s], [axis], sel.nb, check_only=True)
        mid, idt = [idx.ptr, n, s], idx.dtype
    else:
        offs = sel.offsets()
        mid, idt = [offs.ptr], None
    _at_launch(op, view, sel, vals, mid, idt)


def _at_launch(op, view, sel, vals, mid, idt, checked=False):
    """The scatter of ``vals`` into ``view`` through ``sel``'s index
    positions; ``mid``: the index arguments of :func:`_ik.at_spec`."""
    pd = _dims(view, sel.pre)
    qd = _dims(view, sel.post)
    spec = _ik.at_spec(view.dtype, op, len(pd), len(qd),
                       vals.size > _INT32_MAX, idt, checked=checked)
    args = [vals.size, vals.ptr, view.ptr, sel.nb] + mid
    for dim in pd + qd:
        args += dim
    _ik.function(spec).prepared_call(_ik.grid(vals.size), spec.block, *args)


def _scratch_pays(view, sel):
    """Whether a ufunc.at through one index array scatters into a scratch
    copy of the view, checking the indices as it goes (:func:`_at_scratch`):
    when the two copies of the view move less than a separate check pass
    would read (the index array once more)."""
    idx = sel.direct[0]
    return 4 * view.nbytes <= sel.nb * idx.dtype.itemsize


def _at_scratch(op, view, sel, vals):
    """ufunc.at through one index array in one pass over the indices: the
    scatter goes to a C-contiguous copy of ``view`` and checks each index
    itself; only when none was bad is the copy written back, so that an
    IndexError leaves ``view`` as it was (numpy's all or nothing) without a
    check pass before the scatter."""
    idx, n, _, axis = sel.direct
    scratch = _creation.empty_c(view.shape, view.dtype)
    _transfer.assign(scratch, view)
    # the indexed view axis: the one in neither pre nor post
    vax = next(x for x in range(view.ndim)
               if x not in sel.pre and x not in sel.post)
    s = scratch.strides[vax] // view.dtype.itemsize
    flag = _creation.flag_word()
    _at_launch(op, scratch, sel, vals, [idx.ptr, n, s, flag.ptr],
               idx.dtype, checked=True)
    raise_bad_index(flag, [idx], [n], [axis])
    _transfer.assign(view, scratch)


# run on the arrays' device (issue 16)
_placement.route(globals(), skip=("raise_bad_index",), copies={"setitem": 2})
