"""cuRAND generator kernels: which dtypes each distribution takes, the
module source of each generator kind, and its per-context build (layer 4,
beneath :mod:`gpuarr.curandom`).

:func:`fill_kernel` and :func:`kernel_source` are pure Python (the CPU tests
render and compile every kind); :func:`module` compiles a kind's module once
per context with NVRTC (``#include <curand_kernel.h>``, the headers found by
:func:`gpuarr._curand.include_dirs`), and :func:`gpuarr._percontext.state`
drops it when the context goes.
"""

import numpy as np

from . import _curand, _percontext
from ._errors import UnsupportedDtypeError

__all__ = ["KINDS", "fill_kernel", "kernel_source", "launch_shape", "module",
           "clear_cache"]

_F4, _F8 = np.dtype(np.float32), np.dtype(np.float64)
_I4, _U4 = np.dtype(np.int32), np.dtype(np.uint32)
_I8, _U8 = np.dtype(np.int64), np.dtype(np.uint64)
_CTYPE = {_F4: "float", _F8: "double", _U4: "unsigned int",
          _U8: "unsigned long long"}

#: generator kind -> template flags (see gpuarr/kernels/curand.cu.mako)
KINDS = {
    "xorwow": dict(state="curandStateXORWOW", seeded=True, scrambled=False,
                   bits=32, subsequence=False, local_state=True),
    "mrg32k3a": dict(state="curandStateMRG32k3a", seeded=True,
                     scrambled=False, bits=32, subsequence=True,
                     local_state=True),
    "sobol32": dict(state="curandStateSobol32", seeded=False, scrambled=False,
                    bits=32, subsequence=False, local_state=False),
    "scrambled_sobol32": dict(state="curandStateScrambledSobol32",
                              seeded=False, scrambled=True, bits=32,
                              subsequence=False, local_state=False),
    "sobol64": dict(state="curandStateSobol64", seeded=False, scrambled=False,
                    bits=64, subsequence=False, local_state=False),
    "scrambled_sobol64": dict(state="curandStateScrambledSobol64",
                              seeded=False, scrambled=True, bits=64,
                              subsequence=False, local_state=False),
}

_DISTS = ("uniform", "normal", "log_normal", "poisson", "poisson_inplace")


def fill_kernel(kind, dist, dtype, pairs=False):
    """Name and ``prepare`` format of the fill kernel for one request.

    Pure Python; also the one place that says which dtypes each
    distribution takes (PyCUDA's): uniform float32, float64, int32/uint32
    (32 raw bits) and, for the 64-bit Sobol forms, int64/uint64 (64 raw
    bits); normal and log-normal float32, float64; Poisson uint32 with one
    mean, float32, float64 or uint32 with each element's own.

    Parameters
    ----------
    kind : str
        A key of :data:`KINDS`.
    dist : {"uniform", "normal", "log_normal", "poisson", "poisson_inplace"}
        ``"poisson_inplace"``: each element's value is its own mean and is
        replaced by the draw.
    dtype : numpy.dtype
    pairs : bool
        Normal and log-normal of XORWOW and MRG32k3a: the Box-Muller pair
        form (PyCUDA uses it for even sizes).

    Returns
    -------
    name, arg_types : str, str

    Raises
    ------
    UnsupportedDtypeError
        (a TypeError and a NotImplementedError) for a dtype the
        distribution does not take.
    ValueError
        For an unknown distribution or kind.
    """
    if kind not in KINDS:
        raise ValueError("unknown generator kind %r" % (kind,))
    if dist not in _DISTS:
        raise ValueError("unknown distribution %r" % (dist,))
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise UnsupportedDtypeError("%s: unsupported dtype %r" % (dist, dtype)) from None
    bits = KINDS[kind]["bits"]
    if dist == "uniform":
        if dt in (_F4, _F8):
            return "ga_curand_uniform_%s%d" % (dt.kind, dt.itemsize), "PPQ"
        if dt in (_I4, _U4):
            return "ga_curand_raw_u4", "PPQ"
        if dt in (_I8, _U8) and bits == 64:
            return "ga_curand_raw_u8", "PPQ"
        allowed = "float32, float64, int32, uint32" + (
            ", int64, uint64" if bits == 64 else "")
    elif dist == "poisson":
        if dt == _U4:
            return "ga_curand_poisson_u4", "PPQd"
        allowed = "uint32"
    elif dist == "poisson_inplace":
        if dt in (_F4, _F8, _U4):
            return "ga_curand_poisson_inplace_%s%d" % (dt.kind, dt.itemsize), "PPQ"
        allowed = "float32, float64, uint32"
    else:
        if dt in (_F4, _F8):
            two = pairs and KINDS[kind]["seeded"]
            name = "ga_curand_%s%s_%s%d" % (dist, "2" if two else "",
                                            dt.kind, dt.itemsize)
            chars = "PPQ" + ("" if dist == "normal" else dt.char * 2)
            return name, chars + ("i" if two else "")
        allowed = "float32, float64"
    raise UnsupportedDtypeError("%s of the %s generator supports %s, not %s"
                                % (dist, kind, allowed, dt))


def _fills(kind):
    """``[(name, template dist, C type, prepare format)]`` of every fill
    kernel of ``kind``."""
    out = []
    seeded = KINDS[kind]["seeded"]
    for dist in _DISTS:
        if dist == "uniform":
            dts = [_F4, _F8, _U4] + ([_U8] if KINDS[kind]["bits"] == 64 else [])
        elif dist == "poisson":
            dts = [_U4]
        elif dist == "poisson_inplace":
            dts = [_F4, _F8, _U4]
        else:
            dts = [_F4, _F8]
        two = (False, True) if seeded and dist in ("normal", "log_normal") \
            else (False,)
        for dt in dts:
            for pairs in two:
                name, chars = fill_kernel(kind, dist, dt, pairs)
                tdist = "raw" if dt.kind == "u" and dist == "uniform" else dist
                out.append((name, tdist + ("2" if pairs else ""), _CTYPE[dt],
                            chars))
    return out


def kernel_source(kind):
    """The CUDA source of one generator kind's module, and its kernels.

    Pure Python (no GPU, no cuRAND): the CPU tests compile it.

    Parameters
    ----------
    kind : str
        A key of :data:`KINDS`.

    Returns
    -------
    source : str
    kernels : dict
        Kernel name -> ``prepare`` format.
    """
    from .kernels import render
    k = KINDS[kind]
    fills = _fills(kind)
    src = render("curand.cu.mako", fills=[f[:3] for f in fills], **k)
    skip = "I" if (k["bits"] == 32 and not k["seeded"]) else "Q"
    kernels = {}
    if k["seeded"]:
        kernels["ga_curand_init"] = "PIPQ"
    else:
        kernels["ga_curand_init"] = "PIP" + ("P" if k["scrambled"] else "") + skip
    for name, _, _, chars in fills:
        kernels[name] = chars
    skips = ["skipahead"]
    if k["seeded"]:
        skips.append("skipahead_sequence")
    if k["subsequence"]:
        skips.append("skipahead_subsequence")
    for s in skips:
        kernels["ga_curand_" + s] = "PI" + skip
        kernels["ga_curand_%s_array" % s] = "PIP"
    return src, kernels


def launch_shape(kind, blocks, per_block, dimensions=_curand.DIMENSIONS):
    """Blocks and threads per block of a generator's launches (one thread
    per state, so their product is its ``state_count``).

    Pure Python. XORWOW and MRG32k3a take ``blocks`` (the multiprocessor
    count) and ``per_block`` (the kernels' thread limit) as they are. A
    Sobol state is one dimension, and cuRAND's tables have ``dimensions``
    (20000) of them: more states would repeat a dimension, so that element
    ``k + 20000 * j`` of a fill equals element ``k`` (PyCUDA's states
    repeat so). Their ``state_count`` is capped at ``dimensions``: as many
    of the ``blocks`` as fit, each with a whole number of warps (32
    threads) as large as fits (at most ``per_block``), so every
    multiprocessor still gets a block (132 multiprocessors: 132 blocks of
    128 threads, 16896 states).

    Parameters
    ----------
    kind : str
        A key of :data:`KINDS`.
    blocks, per_block : int
        Positive.
    dimensions : int, optional
        Rows of the direction-vector tables.

    Returns
    -------
    blocks, per_block : int, int
    """
    if KINDS[kind]["seeded"] or blocks * per_block <= dimensions:
        return blocks, per_block
    warp = min(32, per_block)
    blocks = min(blocks, dimensions // warp)
    per_block = min(per_block, dimensions // blocks // warp * warp)
    return blocks, per_block


# -- per-context modules -----------------------------------------------------

def _build(kind, ctx):
    """Compile ``kind``'s module in ``ctx``: (module, functions, state size,
    generators per block, block count)."""
    from . import driver as drv
    from .compiler import SourceModule
    from ._enums import device_attribute
    src, kernels = kernel_source(kind)
    mod = SourceModule(src, no_extern_c=True,
                       include_dirs=list(_curand.include_dirs()))
    fns = {}
    for name, chars in kernels.items():
        fn = mod.get_function(name)
        fn.prepare(chars)
        fns[name] = fn
    ptr, _ = mod.get_global("ga_curand_state_size")
    size = np.zeros(1, np.uint32)
    drv.memcpy_dtoh(size, ptr)
    dev = ctx.get_device()
    gpb = min([fn.max_threads_per_block for fn in fns.values()]
              + [dev.get_attribute(device_attribute.MAX_THREADS_PER_BLOCK),
                 dev.get_attribute(device_attribute.MAX_BLOCK_DIM_X)])
    blocks = dev.get_attribute(device_attribute.MULTIPROCESSOR_COUNT)
    return mod, fns, int(size[0]), int(gpb), int(blocks)


#: the current context's compiled generator modules: kind -> _build(...)
_modules = _percontext.state(lambda ctx: {})


def module(kind):
    """``(module, {name: prepared Function}, state size in bytes,
    generators per block, block count)`` of ``kind`` in the current
    context, compiled on first use."""
    table = _modules()
    entry = table.get(kind)
    if entry is None:
        entry = table[kind] = _build(kind, _percontext.current_context())
    return entry


def clear_cache():
    """Forget the compiled cuRAND generator modules of every context
    (existing generators keep theirs)."""
    _modules.clear()
