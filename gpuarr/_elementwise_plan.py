"""Where an elementwise launch goes: the kernel path and its parameters.

Layer 4, pure Python (no GPU): :func:`plan_spec` turns a resolved
operation over array-likes (``.ptr``, ``.dtype``, ``.shape``, ``.strides``
in bytes) into a :class:`~gpuarr._kernelspec.KernelSpec`, which
:mod:`gpuarr.elementwise` compiles and launches and the tests render.

Kernel paths (chosen per call from the layout after merging dimensions,
see ``docs/kernels.md``):

``rows``
    Work split in chunks of ``block * unroll * vec`` elements of the
    innermost merged axis; outer axes unravelled once per chunk.  With one
    merged axis and contiguous operands this is the contiguous fast path
    (16-byte vector accesses, ``unroll`` independent ones per thread); a
    broadcast input along the inner axis is loaded once per chunk.
``nd``
    Any layout: the linear index unravelled per element.
``transpose``
    Two merged axes where an input is contiguous along the output's outer
    axis: tiles staged through padded shared memory so both the loads and
    the stores are coalesced.
"""

from . import _dtypes, _layout
from ._kernelspec import KernelSpec
from .kernels.ops import get_op
from .kernels.program import Program

__all__ = ["plan_spec", "BLOCK", "GRID_MAX"]

#: threads per block of every elementwise kernel
BLOCK = 256
#: gridDim.x limit
GRID_MAX = 2 ** 31 - 1


def _scalar_param(dt):
    """(C type, prepare char) of a scalar kernel parameter of loop dtype."""
    if dt.kind == "f" and dt.itemsize == 2:
        return "float", "f"
    return _dtypes.reg_ctype(dt), dt.char


def _choose_vec(arrays, inner_kinds, outer_strides, max_isz, cap=16):
    """Largest vector width every contiguous operand is aligned for."""
    v = max(1, min(cap, 16 // max_isz))
    while v > 1:
        ok = True
        for (ptr, isz), kind, ost in zip(arrays, inner_kinds, outer_strides):
            if kind != "c":
                continue
            if ptr % (v * isz) or any(s % v for s in ost):
                ok = False
                break
        if ok:
            return v
        v //= 2
    return 1


def plan_spec(op, loop_in, op_out, outputs, inputs, scalar, shape, nsm=132):
    """Choose the kernel path and parameters for one elementwise launch.

    Parameters are those of :func:`run_elementwise` after resolution;
    ``op`` may also be a fused :class:`~gpuarr.kernels.program.Program`
    (``loop_in`` then holds its inputs' dtypes, ``op_out`` its results');
    ``nsm`` is the device's multiprocessor count.  Returns a
    :class:`KernelSpec`; pure Python, used by the tests to render and
    compile every path without a GPU.
    """
    program = op if isinstance(op, Program) else None
    if program is None:
        op = get_op(op)
    nout = len(outputs)
    arrays = [a for a in outputs] + [x for x, s in zip(inputs, scalar) if not s]
    # operand descriptors: outputs first, then inputs, in argument order
    ops_desc = []
    params = []
    chars = []
    for k, o in enumerate(outputs):
        ops_desc.append({"name": "out%d" % k, "mtype": _dtypes.ctype(o.dtype),
                         "out": True, "scalar": False, "idx": k})
        params.append(("%s *__restrict__" % _dtypes.ctype(o.dtype), "out%d" % k))
        chars.append("P")
    scalars = []
    for k, (x, s) in enumerate(zip(inputs, scalar)):
        idx = nout + k
        if s:
            ct, ch = _scalar_param(loop_in[k])
            ops_desc.append({"name": "in%d" % k, "mtype": ct, "out": False,
                             "scalar": True, "idx": idx, "kind": "-"})
            params.append((ct, "in%d" % k))
            chars.append(ch)
            scalars.append((k, loop_in[k]))
        else:
            ct = _dtypes.ctype(x.dtype)
            ops_desc.append({"name": "in%d" % k, "mtype": ct, "out": False,
                             "scalar": False, "idx": idx})
            params.append(("const %s *__restrict__" % ct, "in%d" % k))
            chars.append("P")
    adesc = [d for d in ops_desc if not d["scalar"]]
    # element strides, merged
    estrides = []
    for a in arrays:
        isz = a.dtype.itemsize
        st = tuple(a.strides)
        if any(s % isz for s in st):
            raise ValueError("strides %s are not a multiple of the item size "
                             "%d" % (st, isz))
        estrides.append(tuple(s // isz for s in st))
    mshape, mstrides = _layout.merge_dims(tuple(shape), estrides)
    if not mshape:
        mshape = (1,)
        mstrides = tuple((0,) for _ in arrays)
    ndim = len(mshape)
    max_isz = max(a.dtype.itemsize for a in arrays) if arrays else 1
    bstrides = [tuple(s * a.dtype.itemsize for s in st)
                for st, a in zip(mstrides, arrays)]
    wide = _layout.needs_64bit(mshape, bstrides, margin=1 << 20)
    itype, ich = ("long long", "q") if wide else ("int", "i")
    ptrs = [(a.ptr, a.dtype.itemsize) for a in arrays]
    in_dts = [x.dtype if not s else loop_in[k]
              for k, (x, s) in enumerate(zip(inputs, scalar))]
    out_dts = [o.dtype for o in outputs]

    path = None
    # --- transpose: an input contiguous along the output's outer axis
    if ndim == 2 and mshape[0] >= 16 and mshape[1] >= 16 and arrays:
        outs_ok = all(mstrides[k][1] == 1 for k in range(nout))
        staged = [k for k in range(nout, len(arrays))
                  if mstrides[k][0] == 1 and mstrides[k][1] not in (0, 1)]
        smem_isz = sum(arrays[k].dtype.itemsize for k in staged)
        if outs_ok and staged and smem_isz * 32 * 33 <= 48 * 1024:
            path = "transpose"
    if path is None:
        inner = mshape[-1]
        kinds = []
        for k, st in enumerate(mstrides):
            s = st[-1]
            if s == 1:
                kinds.append("c")
            elif s == 0 and k >= nout:
                kinds.append("0")
            else:
                kinds.append("s")
        if all(kd != "s" for kd in kinds):
            vec = _choose_vec(ptrs, kinds, [st[:-1] for st in mstrides],
                              max(a.dtype.itemsize for a, kd in zip(arrays, kinds)
                                  if kd == "c") if "c" in kinds else 1)
        else:
            vec = 1
        # 16 bytes per operand per thread: one vector access, or several
        # scalar ones (half as many when gathering a strided operand, whose
        # sectors are partly wasted).  Sweeps on the H200 (runs 29-30,
        # benchmarks/NOTES.md): the 2**28 float32 add kernel 4309-4325 ->
        # 4355-4373 GB/s with one 16-byte vector per thread instead of four.
        unroll = max(1, 16 // (vec * max_isz))
        if "s" in kinds:
            unroll = max(1, unroll // 2)
        while unroll > 1 and inner < BLOCK * unroll * vec:
            unroll //= 2
        # mid-sized arrays: fewer elements per thread, more blocks in flight
        total = 1
        for n in mshape:
            total *= n
        while unroll > 1 and total < nsm * 8 * BLOCK * unroll * vec:
            unroll //= 2
        chunk = BLOCK * unroll * vec
        if ndim == 1 or inner * 2 >= chunk:
            path = "rows"
        else:
            path = "nd"
    block = BLOCK
    tail = []
    if path == "rows":
        for d, o in zip(adesc, kinds):
            d["kind"] = o
        cpr = -(-mshape[-1] // chunk)
        nrows = 1
        for n in mshape[:-1]:
            nrows *= n
        n_chunks = cpr * nrows
        # one block per chunk: no grid-stride tail, and blocks that do not
        # fit at once simply start later (the loop in the kernel only runs
        # more than once past gridDim.x's limit)
        grid = max(1, min(n_chunks, GRID_MAX))
        tparams = [("I", "n_inner"), ("I", "chunks_per_row"), ("I", "n_chunks")]
        tail += [mshape[-1], cpr, n_chunks]
        for d in range(1, ndim - 1):
            tparams.append(("I", "shape%d" % d))
            tail.append(mshape[d])
        for d in range(ndim - 1):
            for ad, st in zip(adesc, mstrides):
                tparams.append(("I", "ost%d_%d" % (ad["idx"], d)))
                tail.append(st[d])
        for ad, st in zip(adesc, mstrides):
            if ad["kind"] == "s":
                tparams.append(("I", "ist%d" % ad["idx"]))
                tail.append(st[-1])
        extra = {"vec": vec, "unroll": unroll, "tile": 0}
        kshape = (ndim, vec, unroll, tuple(kinds))
    elif path == "nd":
        n = 1
        for s in mshape:
            n *= s
        grid = max(1, min(-(-n // block), GRID_MAX))
        if not wide and n + grid * block > _layout.INT32_MAX:
            # idx += gridDim.x * block must not overflow a 32-bit index
            grid = min(grid, nsm * (2048 // block))
        tparams = [("I", "n")]
        tail.append(n)
        for d in range(1, ndim):
            tparams.append(("I", "shape%d" % d))
            tail.append(mshape[d])
        for d in range(ndim):
            for ad, st in zip(adesc, mstrides):
                tparams.append(("I", "ost%d_%d" % (ad["idx"], d)))
                tail.append(st[d])
        extra = {"vec": 1, "unroll": 1, "tile": 0}
        kshape = (ndim,)
    else:  # transpose
        for k, ad in enumerate(adesc):
            ad["kind"] = "T" if k in staged else "s"
        tile = 64 if max_isz <= 4 and smem_isz * 64 * 65 <= 48 * 1024 else 32
        vec = max(1, min(4, 16 // max_isz))
        while vec > 1:
            ok = all(arrays[k].ptr % (vec * arrays[k].dtype.itemsize) == 0
                     and mstrides[k][1] % vec == 0 for k in staged)
            ok = ok and all(arrays[k].ptr % (vec * arrays[k].dtype.itemsize) == 0
                            and mstrides[k][0] % vec == 0 for k in range(nout))
            if ok:
                break
            vec //= 2
        tiles_x = -(-mshape[1] // tile)
        n_tiles = tiles_x * -(-mshape[0] // tile)
        grid = max(1, min(n_tiles, nsm * (2048 // block)))
        tparams = [("I", "shape0"), ("I", "shape1"), ("I", "tiles_x"),
                   ("I", "n_tiles")]
        tail += [mshape[0], mshape[1], tiles_x, n_tiles]
        for ad, st in zip(adesc, mstrides):
            tparams += [("I", "ost%d_0" % ad["idx"]), ("I", "ost%d_1" % ad["idx"])]
            tail += [st[0], st[1]]
        extra = {"vec": vec, "unroll": 1, "tile": tile}
        kshape = (vec, tile, tuple(ad["kind"] for ad in adesc))
    params = params + [(itype if t == "I" else t, n) for t, n in tparams]
    chars = "".join(chars) + ich * len(tparams)
    spec = KernelSpec("elementwise.cu.mako")
    spec.path = path
    spec.kkey = (path, op.name if program is None else program.key,
                 tuple(in_dts), tuple(scalar), tuple(loop_in),
                 tuple(out_dts), itype, kshape)
    spec.name = "gpuarr_%s_%s" % (path, op.name)
    spec.render_kw = dict(
        name=spec.name, path=path, itype=itype, block=block, params=params,
        preamble="", ops=ops_desc,
        apply=dict(op=op.name, in_dts=tuple(in_dts), scalar=tuple(scalar),
                   loop_in=tuple(loop_in), res_dt=op_out[0],
                   res_dts=tuple(op_out), out_dts=tuple(out_dts),
                   program=program),
        ndim=ndim, operation="", loop_prep="",
        after_loop="", dense=False, aligned=[], **extra)
    spec.chars = chars
    spec.grid = (grid, 1, 1)
    spec.block = (block, 1, 1)
    spec.tail = tuple(tail)
    spec.scalars = tuple(scalars)
    return spec
