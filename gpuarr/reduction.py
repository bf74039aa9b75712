"""Reduction kernels: numpy's reductions on device arrays, and user kernels.

Layer 4: takes anything array-like (``.ptr``, ``.dtype``, ``.shape``,
``.strides`` in bytes) and never imports :mod:`gpuarr.gpuarray` at import
time.  Two entry points:

* :func:`run_reduction` - a built-in reduction (``"sum"``, ``"max"``,
  ``"argmax"``, ``"dot"``, ...) of operands over some axes into an output
  array the caller allocated (the array layer, :mod:`gpuarr.reductions`,
  decides numpy's dtypes and shapes);
* :class:`ReductionKernel` - PyCUDA's user reductions, plus ``axis=``.

Kernel paths (``docs/reductions.md``): the kept axes ("K") and the reduced
axes ("R") are merged separately, so every reduction is ``n_rows`` outputs
each reducing ``L`` elements.

``rows``
    A warp (short rows) or a block (long rows, and the one-output case)
    reduces a (row, segment) work item, striding along the row with
    16-byte vector loads when it is contiguous and aligned; chosen when the
    reduced axes are innermost in memory, and for full reductions.
``cols``
    Lanes map to 32 consecutive outputs and 8 slices of a block stride over
    the reduced index, so each warp load is coalesced; chosen when the kept
    axes are innermost in memory (``sum(axis=0)`` of a C array).

When the rows (or column tiles) are too few to fill the GPU, each is cut
into segments; segment partials go to a per-stream workspace and the last
block to finish a row (atomic ticket) combines them, writes the result and
resets its ticket: one launch in every case.
"""

import collections
import operator

import numpy as np

from . import _dtypes, _percontext, tools
from . import driver as _drv
from ._enums import device_attribute
from ._kernelargs import KernelArguments, ScalarArg, check_name
from ._kernelspec import KernelSpec

__all__ = ["run_reduction", "ReductionKernel", "reduce_spec", "OPS",
           "set_array_factory", "clear_cache", "full_entry", "state", "State",
           "MAX_PLANS"]

_BLOCK = 256
_RS = _BLOCK // 32          # slices of the cols path
_MAX_ROW_ITEMS = 8192       # rows * splits when split (rows path)
_MAX_COL_ITEMS = 2048       # tiles * splits when split (cols path)
_PART_BYTES = max(_MAX_ROW_ITEMS, _MAX_COL_ITEMS * 32) * 32
# explicit streams whose workspace (2 MiB) is kept, per context
_MAX_STREAM_WS = 8
_TICKETS = _MAX_ROW_ITEMS
#: Plans kept per context before they are all dropped (the array layer's
#: entries in :attr:`State.fast` follow the same limit).
MAX_PLANS = 4096
_MIN_BLOCKS = 4             # resident blocks per SM (64 registers a thread)
_MIN_SEG = 8192             # fewest elements worth a block of their own
_ROW_UNROLL = 8             # vector loads per step, one block per long row

#: built-in reductions: name -> (number of inputs, commutative over the
#: reduced elements' order, uses a per-row auxiliary value)
OPS = {
    "sum": (1, True, False), "prod": (1, True, False),
    "nansum": (1, True, False), "mean": (1, True, False),
    "max": (1, True, False), "min": (1, True, False),
    "nanmax": (1, True, False), "nanmin": (1, True, False),
    "any": (1, True, False), "all": (1, True, False),
    "count_nonzero": (1, True, False),
    "argmax": (1, False, False), "argmin": (1, False, False),
    "dot": (2, True, False), "vdot": (2, True, False),
    "var": (1, True, True), "std": (1, True, True),
    "sumsq": (1, True, False), "abssum": (1, True, False),
    "absmax": (1, True, False), "absmin": (1, True, False),
}

_F2 = np.dtype("f2")
_F4 = np.dtype("f4")
_F8 = np.dtype("f8")
_I4 = np.dtype("i4")
_U4 = np.dtype("u4")
_I8 = np.dtype("i8")
_U8 = np.dtype("u8")


def _real(dt):
    if dt.kind == "c":
        return _F4 if dt.itemsize == 8 else _F8
    return dt


def _cmp_acc(dt):
    """The dtype of an accumulator holding values of ``dt`` for
    comparisons: at least 32 bits, float16 in float."""
    if dt.kind == "b":
        return _I4
    if dt.kind in "iu" and dt.itemsize < 4:
        return _I4 if dt.kind == "i" else _U4
    if dt == _F2:
        return _F4
    return dt


def _sum_acc(ct):
    """The dtype accumulating sums/products computed in ``ct``: 64-bit for
    integers (wrapped to ``ct`` at the end, numpy's modular result),
    float32 for float16, 32-bit int for bool (logical or/and)."""
    if ct.kind == "b":
        return _I4
    if ct.kind == "i":
        return _I8
    if ct.kind == "u":
        return _U8
    if ct == _F2:
        return _F4
    return ct


class _Types:
    """The dtypes of one reduction, from which ``reduction.cu.mako`` writes
    its C (see :func:`op_dtypes`)."""

    __slots__ = ("ct", "acc_dt", "val_dt", "aux_dt", "final_dt", "acc_bytes")

    def __init__(self, ct, acc_dt, final_dt, val_dt=None, aux_dt=None):
        self.ct = ct
        self.acc_dt = acc_dt
        self.final_dt = final_dt
        self.val_dt = val_dt
        self.aux_dt = aux_dt
        # registers an accumulator takes (a (value, index) pair: 32 bytes)
        self.acc_bytes = 32 if acc_dt is None else max(4, acc_dt.itemsize)


def op_dtypes(op, in_dts, ct, aux_dt=None):
    """The dtypes of the built-in reduction ``op``.

    Parameters
    ----------
    op : str
        A key of :data:`OPS`.
    in_dts : tuple of numpy.dtype
        The operands' dtypes.
    ct : numpy.dtype
        The computation dtype (numpy's ``dtype=`` of the reduction: the sum's
        result dtype, the mean's intermediate, the compared values' dtype).
    aux_dt : numpy.dtype, optional
        dtype of the per-row auxiliary value (the mean, for var/std).

    Returns
    -------
    _Types
        ``ct`` (the dtype the inputs' values are converted to), ``acc_dt``
        (the accumulator's; None for argmax/argmin, whose pairs hold a
        ``val_dt`` value), ``aux_dt`` (var/std; else None), ``final_dt``
        (the result's before its conversion to the output dtype).

    Raises
    ------
    ValueError
        For an unknown ``op``.
    """
    d0 = in_dts[0]
    if op in ("sum", "prod", "nansum", "mean", "dot", "vdot",
              "count_nonzero"):
        if op == "count_nonzero":
            ct = _I8
        adt = _sum_acc(ct)
        if op == "mean":
            return _Types(ct, adt, np.dtype("c16") if adt.kind == "c" else _F8)
        return _Types(ct, adt, adt)
    if op in ("max", "min", "nanmax", "nanmin"):
        adt = _cmp_acc(d0)
        return _Types(ct, adt, adt)
    if op in ("any", "all"):
        return _Types(ct, _I4, _I4)
    if op in ("argmax", "argmin"):
        return _Types(ct, None, _I8, val_dt=_cmp_acc(d0))
    if op in ("var", "std"):
        return _Types(aux_dt, _real(aux_dt), _F8, aux_dt=aux_dt)
    if op in ("sumsq", "abssum", "absmax", "absmin"):
        rdt = _real(ct)
        if rdt == _F2:
            rdt = _F4
        return _Types(ct, rdt, rdt)
    raise ValueError("unknown reduction %r" % (op,))


# ---------------------------------------------------------------------------
# layout planning (pure Python)


def _estrides(a):
    isz = a.dtype.itemsize
    out = []
    for s in a.strides:
        if s % isz:
            raise ValueError("strides %s are not a multiple of the item size "
                             "%d" % (tuple(a.strides), isz))
        out.append(s // isz)
    return out


def _layout(shape, in_estr, out_estr, axes, commutative):
    """Split into merged kept (K) and reduced (R) groups.

    Returns (kshape, kstrides per operand (inputs then out), rshape,
    rstrides per input, byte-offset multipliers per input: element offsets
    to add to each input's pointer after flipping negative axes).
    """
    nin = len(in_estr)
    red = list(axes)
    kept = [ax for ax in range(len(shape)) if ax not in axes]
    offs = [0] * nin
    rsh = [shape[a] for a in red]
    rst = [[st[a] for a in red] for st in in_estr]
    if commutative and rsh and 0 not in rsh:
        for q in range(len(rsh)):
            if all(rst[k][q] < 0 for k in range(nin)):
                for k in range(nin):
                    offs[k] += (rsh[q] - 1) * rst[k][q]
                    rst[k][q] = -rst[k][q]
        order = sorted(range(len(rsh)), key=lambda q: -abs(rst[0][q]))
        rsh = [rsh[q] for q in order]
        rst = [[s[q] for q in order] for s in rst]
    mr, mrs = _dtypes.merge_dims(tuple(rsh), [tuple(s) for s in rst])
    if not mr:
        mr, mrs = (1,), tuple((0,) for _ in range(nin))
    ksh = tuple(shape[a] for a in kept)
    kst = [tuple(st[a] for a in kept) for st in in_estr]
    kst.append(tuple(out_estr))
    mk, mks = _dtypes.merge_dims(ksh, kst)
    return mk, mks, mr, mrs, offs


def reduce_spec(op, inputs, out, axes, ct, aux_dt=None, nsm=132,
                user=None):
    """Choose the path and parameters of one reduction launch.

    Parameters
    ----------
    op : str
        A key of :data:`OPS` (ignored for user kernels).
    inputs : sequence of array-like
        Operands of one shape.
    out : array-like
        Output whose shape is the input shape without ``axes``.
    axes : tuple of int
        Reduced axes, normalized and sorted.
    ct : numpy.dtype
        Computation dtype (see :func:`op_dtypes`).
    aux_dt : numpy.dtype, optional
        dtype of the per-row auxiliary array (var/std).
    nsm : int
        Multiprocessor count.
    user : dict, optional
        For :class:`ReductionKernel`: ``types`` (a :class:`_Types`),
        ``neutral`` and ``reduce`` (C expressions), ``args`` (C
        parameters), ``map`` (expression), ``preamble``, ``name``, ``chars``
        (argument format of the user's parameters).

    Returns
    -------
    KernelSpec
    """
    shape = tuple(inputs[0].shape)
    for x in inputs[1:]:
        if tuple(x.shape) != shape:
            raise ValueError("operands of shapes %s and %s" % (shape, x.shape))
    in_estr = [_estrides(x) for x in inputs]
    out_estr = _estrides(out)
    kept_shape = tuple(n for ax, n in enumerate(shape) if ax not in axes)
    if tuple(out.shape) != kept_shape:
        raise ValueError("output of shape %s where %s was expected"
                         % (tuple(out.shape), kept_shape))
    if user is None:
        nin, commutative, _ = OPS[op]
        types = op_dtypes(op, tuple(x.dtype for x in inputs), ct, aux_dt)
    else:
        nin, commutative = 1, False
        types = user["types"]
    mk, mks, mr, mrs, offs = _layout(shape, in_estr, out_estr, axes,
                                     commutative)
    spec = KernelSpec("reduction.cu.mako")
    spec.offsets = tuple(o * x.dtype.itemsize for o, x in zip(offs, inputs))
    n_rows = 1
    for n in mk:
        n_rows *= n
    L = 1
    for n in mr:
        L *= n
    if 0 in shape:
        L = 0 if any(shape[a] == 0 for a in axes) else L
    spec.empty = n_rows == 0
    kdim = 0 if not mk else len(mk)
    if mk == (0,):
        kdim = 1
    rdim = len(mr)
    rin = abs(mrs[0][-1])
    kin = abs(mks[0][-1]) if kdim else 0
    if kdim == 0:
        path = "rows"
    elif rin == 1:
        path = "rows"
    elif kin == 1:
        path = "cols"
    else:
        path = "rows" if rin <= kin else "cols"
    rcontig = rdim == 1 and all(abs(s[0]) == 1 and s[0] == 1 for s in mrs)
    isz = max(x.dtype.itemsize for x in inputs)
    # vector width (rows path, contiguous aligned rows, built-in ops)
    V = 1
    if path == "rows" and rcontig and user is None:
        V = max(1, 16 // isz)
        while V > 1:
            ok = True
            for x, o, st in zip(inputs, spec.offsets, mks[:nin]):
                if (x.ptr + o) % (V * x.dtype.itemsize) or \
                        any(s % V for s in st):
                    ok = False
                    break
            if ok:
                break
            V //= 2
    asz = types.acc_bytes
    cap = 16 if asz <= 4 else (8 if asz <= 8 else 4)
    if path == "rows":
        G = _BLOCK if (kdim == 0 or L > 2048) else 32
        U = 4
        if L < G * V * 4:
            U = 1
        elif (kdim and G == _BLOCK and V * isz == 16 and asz <= 4
              and L >= G * V * _ROW_UNROLL):
            # many long rows, a block each: 8 independent 16-byte loads per
            # thread (128 bytes in flight, twice the full reduction's) so a
            # block's few steps keep the memory system busy through the
            # block's start and its end (shuffles, barrier, store); 8
            # accumulators keep it within 64 registers
            U = _ROW_UNROLL
            cap = 8
    else:
        G = 32
        U = 4
    if path == "rows":
        nacc = max(1, min(V * U, cap))
    else:
        nacc = U
    # splitting
    per_sm = _MIN_BLOCKS
    if path == "rows":
        chunk = G * V * U
        gpb = _BLOCK // G
        target = nsm * per_sm * gpb
        splits = 1
        min_seg = max(chunk, _MIN_SEG)
        if n_rows < target // 2 and n_rows <= _MAX_ROW_ITEMS and L > min_seg:
            splits = max(1, min(-(-target // n_rows), -(-L // min_seg),
                                _MAX_ROW_ITEMS // n_rows))
        if splits > 1:
            seg = -(-L // splits)
            seg = -(-seg // chunk) * chunk
            splits = -(-L // seg)
        else:
            seg = max(L, 1)
        n_items = n_rows * splits
        grid = max(1, min(-(-n_items // gpb), 1 << 24))
    else:
        tiles = -(-n_rows // 32)
        target = nsm * per_sm
        splits = 1
        if tiles < target // 2 and L >= 1024:
            splits = max(1, min(-(-target // tiles), -(-L // (_RS * U)),
                                _MAX_COL_ITEMS // tiles))
        if splits > 1:
            seg = -(-L // splits)
            seg = -(-seg // _RS) * _RS
            splits = -(-L // seg)
        else:
            seg = max(L, 1)
        n_items = tiles * splits
        grid = max(1, min(n_items, 1 << 24))
    spec.needs_ws = splits > 1
    # index width
    bstr = [tuple(s * x.dtype.itemsize for s in st)
            for st, x in zip(in_estr, inputs)]
    bstr.append(tuple(s * out.dtype.itemsize for s in out_estr))
    chunk_margin = max(G * V * U, _RS * U) * 4 + seg
    wide = (_dtypes.needs_64bit(shape, bstr, margin=chunk_margin)
            or n_items * 32 + 64 > _dtypes.INT32_MAX)
    itype, ich = ("long long", "q") if wide else ("int", "i")
    # trailing arguments
    tail = [n_items, splits, seg, L, n_rows]
    for d in range(1, kdim):
        tail.append(mk[d])
    for d in range(kdim):
        for k in range(nin):
            tail.append(mks[k][d])
        tail.append(mks[nin][d])
    for d in range(1, rdim):
        tail.append(mr[d])
    if not (rdim == 1 and rcontig):
        for d in range(rdim):
            for k in range(nin):
                tail.append(mrs[k][d])
    spec.tail = tuple(tail)
    spec.grid = (grid, 1, 1)
    spec.block = (_BLOCK, 1, 1)
    spec.path = path
    out_dt = out.dtype
    if user is None:
        in_dts = tuple(x.dtype for x in inputs)
        name = "gpuarr_%s_%s" % (op, path)
        kw = dict(mode="values", op=op, in_dts=in_dts,
                  inputs=[(_dtypes.ctype(d), "in%d" % k)
                          for k, d in enumerate(in_dts)],
                  user_args=[], user_map="", user_neutral="", user_reduce="",
                  preamble="")
        nptr = nin + (1 if types.aux_dt is not None else 0)
        chars = "P" * (1 + nptr)
        spec.kkey = (op, in_dts, ct, aux_dt, out_dt, path, itype, G, V, U,
                     nacc, kdim, rdim, rcontig)
    else:
        name = user["name"]
        in_dts = ()
        kw = dict(mode="user", op=None, in_dts=(), inputs=[],
                  user_args=user["args"], user_map=user["map"],
                  user_neutral=user["neutral"], user_reduce=user["reduce"],
                  preamble=user["preamble"])
        chars = "P" + user["chars"]
        spec.kkey = ("user", out_dt, path, itype, G, V, U, nacc, kdim, rdim,
                     rcontig)
    chars += "PPd" + ich * len(tail)
    spec.name = name
    spec.chars = chars
    spec.render_kw = dict(
        name=name, path=path, itype=itype, block=_BLOCK,
        min_blocks=_MIN_BLOCKS, group=G, vec=V,
        unroll=U, nacc=nacc, ct=types.ct, acc_dt=types.acc_dt,
        val_dt=types.val_dt, aux_dt=types.aux_dt, final_dt=types.final_dt,
        out_dt=out_dt, kdim=kdim, rdim=rdim, nin=nin, rcontig=rcontig, **kw)
    return spec


# ---------------------------------------------------------------------------
# per-context state: plans, kernels, workspaces

class State:
    """The per-context state of reductions (see :func:`state`).

    Attributes
    ----------
    plans : dict
        Launch plans by call key.
    kernels : dict
        Compiled kernels (function, module) by kernel key.
    nsm : int
        The device's multiprocessor count.
    ws : collections.OrderedDict
        Per-stream workspaces (see :func:`_workspace`).
    fast : dict
        For the array layer: its cached launch entries of full reductions
        (:func:`full_entry`), cleared with the plans and by
        :func:`clear_cache`; keep at most :data:`MAX_PLANS` there.
    pool : object
        The context's device memory pool (:func:`gpuarr.tools.default_pool`).
    """

    __slots__ = ("plans", "kernels", "nsm", "ws", "fast", "pool")

    def __init__(self, nsm, pool=None):
        self.plans = {}
        self.kernels = {}
        self.nsm = nsm
        self.ws = collections.OrderedDict()
        self.fast = {}
        self.pool = pool


def _new_state(ctx):
    nsm = ctx.get_device().get_attribute(device_attribute.MULTIPROCESSOR_COUNT)
    return State(int(nsm), tools.default_pool())


state = _percontext.state(_new_state, "state", """\
Return the current context's :class:`State` (made on first use).

One ``Context.get_current`` and an identity test per call once made.

Raises
------
gpuarr.driver.InvalidContextError
    When no context is current.
""")
# the names gpuarr.reductions uses until it moves to state and MAX_PLANS
_state = state
_MAX_PLANS = MAX_PLANS


def clear_cache():
    """Forget every plan and kernel (rebuilt on demand); keeps workspaces."""
    for st in list(state.states.values()):
        st.plans.clear()
        st.kernels.clear()
        st.fast.clear()


def _workspace(st, stream):
    """(partials pointer, tickets pointer) of the stream's workspace.

    Kernels on one stream run in order, so one workspace per stream is
    enough; its tickets are zeroed once here and reset by each kernel.
    The default stream's workspace is kept for good (:func:`full_entry`
    caches its pointers); those of explicit streams, which the entries
    keep alive, are kept for the ``_MAX_STREAM_WS`` most recently used
    streams, and one dropped is freed only once its stream has finished.
    """
    key = 0 if stream is None else getattr(stream, "handle", id(stream))
    ws = st.ws.get(key)
    if ws is None:
        mem = _drv.mem_alloc(_PART_BYTES + 4 * _TICKETS)
        _drv.memset_d8(int(mem) + _PART_BYTES, 0, 4 * _TICKETS)
        ws = (mem, int(mem), int(mem) + _PART_BYTES, stream)
        st.ws[key] = ws
        _percontext.evict_stream_buffers(st.ws, _MAX_STREAM_WS + 1, keep=0)
    elif key:
        st.ws.move_to_end(key)
    return ws[1], ws[2]


class _Plan:
    __slots__ = ("fn", "grid", "block", "tail", "offsets", "needs_ws",
                 "empty")


def _get_fn(st, spec, options=None, keep=False):
    ent = st.kernels.get(spec.kkey)
    if ent is None:
        ent = st.kernels[spec.kkey] = spec.build(options, keep)
    return ent[0]


def _make_plan(st, spec, options=None, keep=False):
    p = _Plan()
    p.empty = spec.empty
    p.fn = None if spec.empty else _get_fn(st, spec, options, keep)
    p.grid = spec.grid
    p.block = spec.block
    p.tail = spec.tail
    p.offsets = spec.offsets
    p.needs_ws = spec.needs_ws
    return p


def run_reduction(op, inputs, out, axes, ct, *, aux=None, scale=1.0,
                  stream=None):
    """Run the built-in reduction ``op`` of ``inputs`` over ``axes`` into ``out``.

    Parameters
    ----------
    op : str
        A key of :data:`OPS`.
    inputs : sequence of array-like
        One (two for ``dot``/``vdot``) operands of one shape, any strides.
    out : array-like
        The output: the input shape without ``axes``, any strides; it
        receives the result converted to its dtype.
    axes : tuple of int
        Normalized, sorted, distinct reduced axes (may be empty).
    ct : numpy.dtype
        Computation dtype (numpy's ``dtype`` of the reduction; see
        :func:`op_dtypes`).
    aux : array-like, optional
        For ``var``/``std``: contiguous per-output values (the mean), one
        per output element in C order.
    scale : float
        Divisor of ``mean``, ``var`` and ``std``.
    stream : gpuarr.driver.Stream, optional

    Notes
    -----
    A reduction over no elements writes the neutral element (``max`` of
    nothing writes the lowest value): callers raise numpy's errors first.
    """
    if len(inputs) == 1 and aux is None:
        # the common case, kept lean: one tuple key, one dict lookup
        x = inputs[0]
        key = (op, ct, axes, x.dtype, x.shape, x.strides, x.ptr & 15,
               out.dtype, out.shape, out.strides)
        st = state()
        plan = st.plans.get(key)
        if plan is None:
            plan = _new_plan(st, key, op, inputs, out, axes, ct, None)
        if plan.empty:
            return
        if plan.needs_ws:
            p, t = _workspace(st, stream)
        else:
            p = t = 0
        plan.fn.prepared_async_call(plan.grid, plan.block, stream, out.ptr,
                                    x.ptr + plan.offsets[0], p, t, scale,
                                    *plan.tail)
        return
    key = [op, ct, axes]
    for x in inputs:
        key.append((x.dtype, x.shape, x.strides, x.ptr & 15))
    key.append((out.dtype, out.shape, out.strides))
    if aux is not None:
        key.append(aux.dtype)
    key = tuple(key)
    st = state()
    plan = st.plans.get(key)
    if plan is None:
        plan = _new_plan(st, key, op, inputs, out, axes, ct,
                         None if aux is None else aux.dtype)
    if plan.empty:
        return
    args = [out.ptr]
    for x, o in zip(inputs, plan.offsets):
        args.append(x.ptr + o)
    if aux is not None:
        args.append(aux.ptr)
    if plan.needs_ws:
        args.extend(_workspace(st, stream))
    else:
        args += [0, 0]
    args.append(scale)
    args.extend(plan.tail)
    plan.fn.prepared_async_call(plan.grid, plan.block, stream, *args)


def _new_plan(st, key, op, inputs, out, axes, ct, aux_dt):
    for x in inputs:
        _dtypes.check_supported(x.dtype)
    _dtypes.check_supported(out.dtype)
    spec = reduce_spec(op, inputs, out, axes, ct, aux_dt, st.nsm)
    plan = _make_plan(st, spec)
    _keep_plan(st, key, plan)
    return plan


def _keep_plan(st, key, plan):
    """Remember a plan, dropping every plan (and the array layer's entries
    built on them) first when :data:`MAX_PLANS` are kept."""
    if len(st.plans) >= MAX_PLANS:
        st.plans.clear()
        st.fast.clear()
    st.plans[key] = plan


def full_entry(st, op, x, out_dt, ct, scale=1.0):
    """Everything a full reduction of ``x`` into a new C-contiguous 0-d
    output needs at launch on the default stream, computed once.

    Parameters
    ----------
    st : State
        The current context's state (:func:`state`).
    op : str
        A one-input key of :data:`OPS` without auxiliary values.
    x : array-like
        The operand (size > 0); its layout and ``ptr % 16`` define the plan.
    out_dt : numpy.dtype
        The output's dtype.
    ct : numpy.dtype
        Computation dtype (see :func:`op_dtypes`).
    scale : float
        Divisor of ``mean``.

    Returns
    -------
    tuple
        ``(fn, grid, block, off, rest)``: launch
        ``fn.prepared_async_call(grid, block, None, out_ptr, x.ptr + off,
        *rest)``.  The entry is valid for every array of ``x``'s dtype,
        shape, strides and ``ptr % 16`` in this context (until
        :func:`clear_cache`).
    """
    axes = tuple(range(len(x.shape)))
    out = _Fake(0, out_dt, (), ())
    key = (op, ct, axes, x.dtype, x.shape, x.strides, x.ptr & 15,
           out_dt, (), ())
    plan = st.plans.get(key)
    if plan is None:
        plan = _new_plan(st, key, op, (x,), out, axes, ct, None)
    if plan.empty:
        raise ValueError("full_entry needs a non-empty operand")
    if plan.needs_ws:
        p, t = _workspace(st, None)
    else:
        p = t = 0
    return (plan.fn, plan.grid, plan.block, plan.offsets[0],
            (p, t, float(scale)) + tuple(plan.tail))


# ---------------------------------------------------------------------------
# PyCUDA's ReductionKernel

_array_factory = None


def set_array_factory(factory):
    """Set the callable ``factory(shape, dtype) -> array`` that allocates
    :class:`ReductionKernel` results when no ``out=`` is given.

    :mod:`gpuarr.reductions` installs one returning GPUArrays; without it
    the first call imports :func:`gpuarr.gpuarray.empty` at run time (the
    import graph stays layered: this module never imports the array layer
    when it is loaded).
    """
    global _array_factory
    _array_factory = factory


def _new_array(shape, dtype):
    global _array_factory
    if _array_factory is None:
        import importlib
        _array_factory = importlib.import_module("gpuarr.gpuarray").empty
    return _array_factory(shape, dtype)


class _Fake:
    __slots__ = ("ptr", "dtype", "shape", "strides")

    def __init__(self, ptr, dtype, shape, strides):
        self.ptr, self.dtype, self.shape, self.strides = ptr, dtype, shape, strides


def _c_strides(shape, isz):
    st = []
    acc = isz
    for n in reversed(shape):
        st.insert(0, acc)
        acc *= max(n, 1)
    return tuple(st)


class ReductionKernel:
    """A user-defined map-reduce kernel (PyCUDA's form).

    Parameters
    ----------
    dtype_out : dtype-like
        dtype of the accumulator and of the result.
    neutral : str
        C expression of the neutral element of ``reduce_expr``
        (``"0"``, ``"-INFINITY"``...).
    reduce_expr : str
        C expression combining two partial results ``a`` and ``b``
        (``"a+b"``, ``"fmaxf(a, b)"``); must be associative and commutative.
    map_expr : str, optional
        C expression of the value at index ``i`` (``"x[i]*y[i]"``); default
        ``"<first pointer argument>[i]"``.
    arguments : str or list
        C parameter list (``"float *x, float *y"``) or VectorArg/ScalarArg
        objects, parsed as :class:`gpuarr.elementwise.ElementwiseKernel`'s
        (:class:`gpuarr._kernelargs.KernelArguments`).
    name : str
        Kernel name (a C identifier).
    keep : bool
        Keep the compiler's files.
    options : list of str, optional
        Compiler options.
    preamble : str, optional
        Source placed before the kernel (helper functions).

    Notes
    -----
    Call as ``krnl(*args, stream=None, out=None, axis=None)``.  All pointer
    arguments must be contiguous arrays of the same size (TypeError for a
    wrong dtype or a missing argument, ValueError for a size mismatch, both
    before any launch).  With ``axis=None`` the result is a 0-d array; with
    ``axis=k`` the arrays (all of one shape) are reduced along axis ``k``
    and ``i`` is still the linear (C-order) element index.  The result is
    allocated by the factory of :func:`set_array_factory` (GPUArrays) unless
    ``out`` is given.  float16 arguments are ``ga_half`` (converting to and
    from ``float``); complex ones ``ga_complex<float|double>``.
    """

    def __init__(self, dtype_out, neutral, reduce_expr, map_expr=None,
                 arguments=None, name="reduce_kernel", keep=False,
                 options=None, preamble=""):
        check_name(name, "kernel name")
        if arguments is None:
            raise TypeError("ReductionKernel needs arguments")
        for what, v in (("neutral", neutral), ("reduce_expr", reduce_expr)):
            if not isinstance(v, str) or not v.strip():
                raise ValueError("%s must be a non-empty C expression" % what)
        self.dtype_out = _dtypes.check_supported(dtype_out)
        self._arguments = KernelArguments(arguments, name)
        self.args = self._arguments.args
        self._vec = [self.args[k] for k in self._arguments.vector_index]
        if map_expr is None:
            map_expr = "%s[i]" % self._vec[0].name
        if not isinstance(map_expr, str) or not map_expr.strip():
            raise ValueError("map_expr must be a non-empty C expression")
        self.neutral = neutral
        self.reduce_expr = reduce_expr
        self.map_expr = map_expr
        self.name = name
        self.keep = keep
        self.options = list(options) if options else None
        self.preamble = preamble
        dt = self.dtype_out
        # the accumulator is of dtype_out (in memory's C type); one of
        # fewer than 4 bytes is given 8 bytes of registers
        self._types = _Types(dt, dt, dt)
        self._types.acc_bytes = dt.itemsize if dt.itemsize >= 4 else 8

    def _user(self):
        return {"types": self._types, "neutral": self.neutral,
                "reduce": self.reduce_expr,
                "args": self._arguments.params(" *__restrict__"),
                "map": self.map_expr, "preamble": self.preamble,
                "name": self.name, "chars": self._arguments.chars}

    def spec(self, shape, axis=None, out=None, nsm=132):
        """The :class:`KernelSpec` of a call on arrays of ``shape``."""
        shape = tuple(shape)
        isz = self.dtype_out.itemsize
        virt = _Fake(0, self._vec[0].dtype, shape,
                     _c_strides(shape, self._vec[0].dtype.itemsize))
        axes = tuple(range(len(shape))) if axis is None else (axis,)
        kshape = tuple(n for k, n in enumerate(shape) if k not in axes)
        if out is None:
            out = _Fake(0, self.dtype_out, kshape, _c_strides(kshape, isz))
        return reduce_spec(None, [virt], out, axes, self.dtype_out, nsm=nsm,
                           user=self._user())

    def get_source(self, shape=(1024,), axis=None):
        """The kernel source for arrays of ``shape``."""
        return self.spec(shape, axis).source()

    def __call__(self, *args, stream=None, out=None, axis=None, **kwargs):
        if kwargs:
            raise TypeError("unexpected keyword argument(s): %s"
                            % ", ".join(sorted(kwargs)))
        if len(args) < len(self.args):
            missing = [a.name for a in self.args[len(args):]]
            raise TypeError("%s() missing argument(s): %s" % (
                self.name, ", ".join("%r" % m for m in missing)))
        vals, n = self._arguments.pack(args)
        shape = None
        for decl, x in zip(self.args, args):
            if isinstance(decl, ScalarArg):
                continue
            if shape is None:
                shape = tuple(x.shape)
            elif axis is not None and tuple(x.shape) != shape:
                raise ValueError("argument %r has shape %s where %s was "
                                 "expected" % (decl.name, tuple(x.shape), shape))
        if axis is None:
            shape = (n,)
            axes = (0,)
            kshape = ()
        else:
            nd = len(shape)
            try:
                ax = operator.index(axis)
            except TypeError:
                raise TypeError("axis must be an integer") from None
            if not -nd <= ax < nd:
                raise np.exceptions.AxisError(ax, nd)
            ax %= nd
            axes = (ax,)
            kshape = tuple(m for k, m in enumerate(shape) if k != ax)
        if out is None:
            out = _new_array(kshape, self.dtype_out)
        else:
            if tuple(out.shape) != kshape:
                raise ValueError("out has shape %s where %s was expected"
                                 % (tuple(out.shape), kshape))
            if out.dtype != self.dtype_out:
                raise TypeError("out has dtype %s where %s was declared"
                                % (out.dtype, self.dtype_out))
        st = state()
        # the plans live in the context's state (dropped with it), under a
        # key holding this kernel itself: nothing is keyed by an id()
        key = (self, shape, axes, out.strides)
        plan = st.plans.get(key)
        if plan is None:
            virt = _Fake(0, self._vec[0].dtype, shape,
                         _c_strides(shape, self._vec[0].dtype.itemsize))
            spec = reduce_spec(None, [virt], out, axes, self.dtype_out,
                               nsm=st.nsm, user=self._user())
            spec.kkey = (self,) + spec.kkey
            plan = _make_plan(st, spec, self.options, self.keep)
            _keep_plan(st, key, plan)
        if plan.empty:
            return out
        a = [out.ptr] + list(vals)
        if plan.needs_ws:
            a.extend(_workspace(st, stream))
        else:
            a += [0, 0]
        a.append(1.0)
        a.extend(plan.tail)
        plan.fn.prepared_async_call(plan.grid, plan.block, stream, *a)
        return out
