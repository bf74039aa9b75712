"""Where a reduction goes: its dtypes, kernel path and parameters.

Layer 4, pure Python (no GPU): :func:`reduce_spec` turns a reduction of
array-likes (``.ptr``, ``.dtype``, ``.shape``, ``.strides`` in bytes) into
a :class:`~gpuarr._kernelspec.KernelSpec`, which :mod:`gpuarr.reduction`
compiles and launches and the tests render; :func:`op_dtypes` chooses the
dtypes of a built-in reduction (``reduction.cu.mako`` writes its C).

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
into segments; segment partials go to a per-stream workspace of
:data:`PART_BYTES` bytes and :data:`TICKETS` tickets, and the last block to
finish a row (atomic ticket) combines them, writes the result and resets
its ticket: one launch in every case.
"""

import numpy as np

from . import _dtypes, _layout
from ._kernelspec import KernelSpec

__all__ = ["OPS", "SUBSET_OPS", "INDEX_MODES", "Dtypes", "op_dtypes",
           "user_dtypes", "reduce_spec", "PART_BYTES", "TICKETS"]

_BLOCK = 256
_RS = _BLOCK // 32          # slices of the cols path
_MAX_ROW_ITEMS = 8192       # rows * splits when split (rows path)
_MAX_COL_ITEMS = 2048       # tiles * splits when split (cols path)
#: bytes of partial results a split launch may write (its workspace)
PART_BYTES = max(_MAX_ROW_ITEMS, _MAX_COL_ITEMS * 32) * 32
#: row tickets a split launch may use (32-bit counters after the partials)
TICKETS = _MAX_ROW_ITEMS
_MIN_BLOCKS = 4             # resident blocks per SM (64 registers a thread)
_MIN_SEG = 8192             # fewest elements worth a block of their own
_ROW_UNROLL = 8             # vector loads per step, one block per long row
#: loads in flight per lane of the cols path for elements of 4 bytes or
#: more; twice as many for smaller ones (benchmarks/sweep_cols.py, run 51:
#: sum(axis=0) of (16384, 16384) float32 3380 -> 4190 GB/s at 8, float64
#: 4404 -> 4490, float16 1928 -> 2893 at 16)
COL_UNROLL = 8

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
    # over a[subset] (b[subset]): the subset is the one strided operand, the
    # indexed arrays are gathered (reduce_spec's ``gathers``)
    "subset_sum": (1, True, False), "subset_dot": (1, True, False),
    "subset_min": (1, True, False), "subset_max": (1, True, False),
}
#: the gathering reductions and the arrays each indexes
SUBSET_OPS = {"subset_sum": 1, "subset_dot": 2, "subset_min": 1,
              "subset_max": 1}
#: how a gathering reduction treats indices (numpy.take's ``mode``)
INDEX_MODES = ("raise", "wrap", "clip")

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


class Dtypes:
    """The dtypes of one reduction, from which ``reduction.cu.mako`` writes
    its C (made by :func:`op_dtypes` and :func:`user_dtypes`).

    Attributes
    ----------
    ct : numpy.dtype
        The dtype the inputs' values are converted to.
    acc_dt : numpy.dtype or None
        The accumulator's dtype; None for argmax/argmin, whose accumulator
        is a (value, index) pair of a ``val_dt`` value.
    val_dt, aux_dt : numpy.dtype or None
        argmax/argmin's compared values; var/std's per-row auxiliary value.
    final_dt : numpy.dtype
        The result's dtype before its conversion to the output's.
    acc_bytes : int
        Registers an accumulator takes, in bytes.
    """

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
        The operands' dtypes (for the subset reductions: the subset's, then
        the gathered arrays').
    ct : numpy.dtype
        The computation dtype (numpy's ``dtype=`` of the reduction: the sum's
        result dtype, the mean's intermediate, the compared values' dtype).
    aux_dt : numpy.dtype, optional
        dtype of the per-row auxiliary value (the mean, for var/std).

    Returns
    -------
    Dtypes
        ``ct`` (the dtype the inputs' values are converted to), ``acc_dt``
        (the accumulator's; None for argmax/argmin, whose pairs hold a
        ``val_dt`` value), ``aux_dt`` (var/std; else None), ``final_dt``
        (the result's before its conversion to the output dtype).

    Raises
    ------
    ValueError
        For an unknown ``op``.
    """
    d0 = in_dts[1] if op in SUBSET_OPS else in_dts[0]
    if op in ("sum", "prod", "nansum", "mean", "dot", "vdot",
              "count_nonzero", "subset_sum", "subset_dot"):
        if op == "count_nonzero":
            ct = _I8
        adt = _sum_acc(ct)
        if op == "mean":
            return Dtypes(ct, adt, np.dtype("c16") if adt.kind == "c" else _F8)
        return Dtypes(ct, adt, adt)
    if op in ("max", "min", "nanmax", "nanmin", "subset_max", "subset_min"):
        adt = _cmp_acc(d0)
        return Dtypes(ct, adt, adt)
    if op in ("any", "all"):
        return Dtypes(ct, _I4, _I4)
    if op in ("argmax", "argmin"):
        return Dtypes(ct, None, _I8, val_dt=_cmp_acc(d0))
    if op in ("var", "std"):
        return Dtypes(aux_dt, _real(aux_dt), _F8, aux_dt=aux_dt)
    if op in ("sumsq", "abssum", "absmax", "absmin"):
        rdt = _real(ct)
        if rdt == _F2:
            rdt = _F4
        return Dtypes(ct, rdt, rdt)
    raise ValueError("unknown reduction %r" % (op,))


def user_dtypes(dtype_out):
    """The :class:`Dtypes` of a :class:`gpuarr.reduction.ReductionKernel`
    reducing into ``dtype_out``: its accumulator is of ``dtype_out`` (held
    in memory's C type), one of fewer than 4 bytes given 8 bytes of
    registers."""
    types = Dtypes(dtype_out, dtype_out, dtype_out)
    types.acc_bytes = dtype_out.itemsize if dtype_out.itemsize >= 4 else 8
    return types


def _estrides(a):
    isz = a.dtype.itemsize
    out = []
    for s in a.strides:
        if s % isz:
            raise ValueError("strides %s are not a multiple of the item size "
                             "%d" % (tuple(a.strides), isz))
        out.append(s // isz)
    return out


def _group_axes(shape, in_estr, out_estr, axes, commutative):
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
    mr, mrs = _layout.merge_dims(tuple(rsh), [tuple(s) for s in rst])
    if not mr:
        mr, mrs = (1,), tuple((0,) for _ in range(nin))
    ksh = tuple(shape[a] for a in kept)
    kst = [tuple(st[a] for a in kept) for st in in_estr]
    kst.append(tuple(out_estr))
    mk, mks = _layout.merge_dims(ksh, kst)
    return mk, mks, mr, mrs, offs


def reduce_spec(op, inputs, out, axes, ct, aux_dt=None, nsm=132,
                user=None, gathers=(), index_mode=None, fused=None):
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
        For :class:`~gpuarr.reduction.ReductionKernel`: ``types`` (its
        :func:`user_dtypes`),
        ``neutral`` and ``reduce`` (C expressions), ``args`` (C
        parameters), ``map`` (expression), ``preamble``, ``name``, ``chars``
        (argument format of the user's parameters).
    gathers : sequence of array-like
        For the subset reductions (:data:`SUBSET_OPS`): the 1-D arrays the
        subset (``inputs[0]``) indexes, any strides; the kernel takes their
        pointers after the inputs' and their element strides and lengths
        (``long long`` each) after the other trailing integers.
    index_mode : str, optional
        For the subset reductions, one of :data:`INDEX_MODES`: ``"raise"``
        wraps negative indices once (the caller checked the bounds),
        ``"wrap"`` takes them modulo the length, ``"clip"`` clamps them.
    fused : gpuarr.kernels.program.Program, optional
        A fused program of one output: ``op`` (a one-input reduction of
        :data:`OPS`) reduces its value.  The program reads the ``inputs``'
        elements as its first inputs and scalar kernel parameters (after
        the inputs' pointers, of the dtypes ``fused.in_dtypes`` gives) as
        the rest.

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
    map_dts = tuple(x.dtype for x in inputs)
    if fused is not None:
        nin, commutative = len(inputs), OPS[op][1]
        if OPS[op][0] != 1 or op in SUBSET_OPS or OPS[op][2] or \
                len(fused.outputs) != 1:
            raise ValueError("a fused program feeds one-input reductions")
        map_dts = fused.out_dtypes
        types = op_dtypes(op, map_dts, ct, aux_dt)
    elif user is None:
        nin, commutative, _ = OPS[op]
        if (op in SUBSET_OPS) != bool(gathers) or (
                gathers and (len(gathers) != SUBSET_OPS[op]
                             or index_mode not in INDEX_MODES)):
            raise ValueError("%s takes %d gathered arrays and an index mode"
                             % (op, SUBSET_OPS.get(op, 0)))
        types = op_dtypes(op, tuple(x.dtype for x in inputs)
                          + tuple(g.dtype for g in gathers), ct, aux_dt)
    else:
        nin, commutative = 1, False
        types = user["types"]
    mk, mks, mr, mrs, offs = _group_axes(shape, in_estr, out_estr, axes,
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
        U = COL_UNROLL if isz >= 4 else 2 * COL_UNROLL
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
    wide = (_layout.needs_64bit(shape, bstr, margin=chunk_margin)
            or n_items * 32 + 64 > _layout.INT32_MAX)
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
        kw = dict(mode="values", op=op, in_dts=in_dts, map_dts=map_dts,
                  inputs=[(_dtypes.ctype(d), "in%d" % k)
                          for k, d in enumerate(in_dts)],
                  user_args=[], user_map="", user_neutral="", user_reduce="",
                  preamble="", fused=fused, fused_scalars=[])
        fkey = None
        schars = ""
        if fused is not None:
            name = "gpuarr_fused_%s_%s" % (op, path)
            for k, dt in enumerate(fused.in_dtypes[nin:]):
                if dt.kind == "f" and dt.itemsize == 2:
                    kw["fused_scalars"].append(("float", "ga_s%d" % k))
                    schars += "f"
                else:
                    kw["fused_scalars"].append((_dtypes.reg_ctype(dt),
                                                "ga_s%d" % k))
                    schars += dt.char
            fkey = fused.key
        gdts = tuple(g.dtype for g in gathers)
        kw.update(gathers=[(_dtypes.ctype(d), d) for d in gdts],
                  index_mode=index_mode)
        nptr = nin + len(gdts) + (1 if types.aux_dt is not None else 0)
        chars = "P" * (1 + nptr) + schars
        spec.kkey = (op, in_dts, ct, aux_dt, out_dt, path, itype, G, V, U,
                     nacc, kdim, rdim, rcontig, gdts, index_mode, fkey)
    else:
        name = user["name"]
        in_dts = ()
        kw = dict(mode="user", op=None, in_dts=(), map_dts=(), inputs=[],
                  fused=None, fused_scalars=[],
                  user_args=user["args"], user_map=user["map"],
                  user_neutral=user["neutral"], user_reduce=user["reduce"],
                  preamble=user["preamble"], gathers=[], index_mode=None)
        chars = "P" + user["chars"]
        spec.kkey = ("user", out_dt, path, itype, G, V, U, nacc, kdim, rdim,
                     rcontig)
    chars += "PPd" + ich * len(tail)
    for g in gathers:
        # element stride and length of each gathered array, 64-bit
        chars += "qq"
        spec.tail += (_estrides(g)[0], g.shape[0])
    spec.name = name
    spec.chars = chars
    spec.render_kw = dict(
        name=name, path=path, itype=itype, block=_BLOCK,
        min_blocks=_MIN_BLOCKS, group=G, vec=V,
        unroll=U, nacc=nacc, ct=types.ct, acc_dt=types.acc_dt,
        val_dt=types.val_dt, aux_dt=types.aux_dt, final_dt=types.final_dt,
        out_dt=out_dt, kdim=kdim, rdim=rdim, nin=nin, rcontig=rcontig, **kw)
    return spec
