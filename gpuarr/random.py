"""Random numbers on the GPU with numpy's ``Generator`` interface.

::

    import gpuarr.autoinit
    import gpuarr.random
    rng = gpuarr.random.default_rng(42)
    x = rng.standard_normal(10**8, dtype=numpy.float32)   # a GPUArray
    k = rng.integers(0, 6, size=1000)

The bit generator is Philox4x32-10 (Salmon et al., "Parallel random
numbers: as easy as 1, 2, 3", SC'11), computed inside the kernels from a
64-bit key and a 128-bit counter: no state arrays, no set-up kernel.

Reproducibility
---------------
Element ``k`` of a request is a function of (key, offset, k) only, whatever
the GPU and launch configuration: it uses Philox block ``offset + k // per``
where ``per`` is 4 for values made from one 32-bit word (float32 values,
integers whose range fits 32 bits) and 2 for values made from 64 bits
(float64 values, wider integer ranges).  Each call advances the offset by
the ``ceil(n / per)`` blocks it used, so successive calls give fresh
numbers, and ``n1`` values then ``n2`` values equal ``n1 + n2`` values at
once whenever ``n1`` is a multiple of ``per`` (any multiple of 4 will do).
The exact definition of every value is :mod:`gpuarr._philox`, a numpy
reference the tests compare the GPU with.

Differences from numpy
----------------------
* ``size=None`` gives a 0-d GPUArray, not a Python scalar (no implicit
  device-to-host copy).
* Distribution parameters must be scalars (no broadcasting of arrays).
* The values are not numpy's: the same seed gives different numbers
  (numpy's ``Philox`` is Philox4x64 and its transforms differ).
* ``uniform``, ``normal`` and ``exponential`` take a ``dtype`` (float32 or
  float64), and every method a keyword ``stream``.
"""

import operator

import numpy as np

from . import _config, _creation, _percontext
from . import _philox
from ._enums import device_attribute
from ._kernelspec import compile_function

__all__ = ["Philox", "Generator", "default_rng"]

_F4 = np.dtype(np.float32)
_F8 = np.dtype(np.float64)
_FLOATS = (_F4, _F8)
_BLOCK = 256
_MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------------------
# the bit generator

def _key_from_seed(seed):
    if isinstance(seed, np.random.SeedSequence):
        ss = seed
    else:
        ss = np.random.SeedSequence(seed)
    return int(ss.generate_state(1, np.uint64)[0])


class Philox:
    """Philox4x32-10 bit generator: a 64-bit key and a 64-bit block offset.

    Parameters
    ----------
    seed : None, int, sequence of int or numpy.random.SeedSequence, optional
        Entropy for the key, mixed by :class:`numpy.random.SeedSequence`
        (so ``seed`` obeys numpy's rules: non-negative integers).  None
        takes fresh entropy from the operating system.
    key : int, optional
        The 64-bit Philox key itself, in ``[0, 2**64)``; exclusive with
        ``seed``.
    offset : int, optional
        First Philox block to use (the counter's low 64 bits), default 0.

    Raises
    ------
    ValueError
        For a negative seed, both ``seed`` and ``key``, or a key or offset
        out of range.
    TypeError
        For a seed, key or offset of the wrong type.
    """

    def __init__(self, seed=None, *, key=None, offset=0):
        if key is not None:
            if seed is not None:
                raise ValueError("seed and key cannot be both used")
            key = operator.index(key)
            if not 0 <= key <= _MASK64:
                raise ValueError("key must be in [0, 2**64)")
        else:
            key = _key_from_seed(seed)
        self._key = key
        self.offset = offset
        self._schedule = None

    @property
    def key(self):
        """The 64-bit key (int)."""
        return self._key

    @property
    def offset(self):
        """The next unused Philox block (int in ``[0, 2**64)``)."""
        return self._offset

    @offset.setter
    def offset(self, value):
        value = operator.index(value)
        if not 0 <= value <= _MASK64:
            raise ValueError("offset must be in [0, 2**64)")
        self._offset = value

    @property
    def state(self):
        """``{"bit_generator": "Philox4x32", "key": int, "offset": int}``."""
        return {"bit_generator": "Philox4x32", "key": self._key,
                "offset": self._offset}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox4x32":
            raise ValueError("state must be a dict from Philox.state")
        key = operator.index(value["key"])
        if not 0 <= key <= _MASK64:
            raise ValueError("key must be in [0, 2**64)")
        self._key = key
        self._schedule = None
        self.offset = value["offset"]

    def advance(self, delta):
        """Skip ``delta`` Philox blocks (4 float32 or 2 float64 values each).

        Returns
        -------
        Philox
            ``self``.
        """
        delta = operator.index(delta)
        if delta < 0:
            raise ValueError("delta must be non-negative")
        self._offset = (self._offset + delta) & _MASK64
        return self

    def _reserve(self, nblocks):
        start = self._offset
        self._offset = (start + nblocks) & _MASK64
        return start

    def _keys(self):
        ks = self._schedule
        if ks is None:
            k0, k1 = _philox.split_key(self._key)
            ks = []
            for r in range(10):
                ks.append((k0 + r * _philox.W0) & 0xFFFFFFFF)
                ks.append((k1 + r * _philox.W1) & 0xFFFFFFFF)
            ks = self._schedule = tuple(ks)
        return ks

    def __repr__(self):
        return "Philox(key=0x%016x, offset=%d)" % (self._key, self._offset)


# ---------------------------------------------------------------------------
# kernels

#: The current context's kernels: (dist, dtype char, affine, per, impl,
#: float64 math) -> (function, grid cap, module).
_kernels = _percontext.state(lambda ctx: {})
_IMPLS = ("grid-stride", "warp-chunks")


#: The kernel used by default: ``"warp-chunks"`` (each warp takes chunks of
#: 64 whole Philox blocks, two per lane, with no bounds checks) or
#: ``"grid-stride"`` (one block per thread per step, bounds checked each
#: step; called v2 and v1 in ``docs/random.md``'s history).  Both give the
#: same numbers.  Set by ``GPUARR_RANDOM`` (read by :mod:`gpuarr._config`),
#: or assign ``gpuarr.random.IMPL`` at run time.
IMPL = _config.settings.random

#: The float64 normals' and exponentials' ``log`` and ``sincospi``:
#: ``"own"`` (``kernels/f64math.cu.mako``, with their constants in constant
#: memory; within an ulp of the exact values, tests/test_f64math_cpu.py;
#: 1.19x the float64 normals' rate of CUDA's on an H100) or ``"library"``
#: (CUDA's ``log`` and ``sincospi``).  Assign at run time to compare them.
F64_MATH = "own"
_F64_MATHS = ("library", "own")


def kernel_impl():
    """The kernel in use: :data:`IMPL`, checked.

    Raises
    ------
    ValueError
        When it is neither ``"warp-chunks"`` nor ``"grid-stride"`` (a bad
        ``GPUARR_RANDOM``).
    """
    if IMPL not in _IMPLS:
        _config.choice("GPUARR_RANDOM", IMPL)
    return IMPL


def kernel_spec(dist, dtype, affine, per, impl=None, f64_math=None):
    """Name, source and ``prepare`` types of a random-number kernel.

    Pure Python (no GPU): used by :func:`_kernel` and by the CPU tests that
    compile every variant.

    Parameters
    ----------
    dist : {"uniform", "normal", "exponential", "integers"}
    dtype : numpy.dtype
    affine : bool
        Whether the kernel applies the parameters (``low + range * u``,
        ``loc + scale * z``, ``scale * e``); integers ignore it.
    per : {4, 2}
        Values per Philox block.
    impl : {"grid-stride", "warp-chunks"}, optional
        Kernel generation; default :func:`kernel_impl`.
    f64_math : {"library", "own"}, optional
        The float64 ``log`` and ``sincospi``; default :data:`F64_MATH`.

    Returns
    -------
    name, source, arg_types : str, str, str
    """
    from . import _dtypes
    from .kernels import render
    if impl is None:
        impl = kernel_impl()
    elif impl not in _IMPLS:
        raise ValueError("impl must be one of %s, not %r"
                         % (", ".join(repr(i) for i in _IMPLS), impl))
    if f64_math is None:
        f64_math = F64_MATH
    if f64_math not in _F64_MATHS:
        raise ValueError("f64_math must be one of %s, not %r"
                         % (", ".join(repr(m) for m in _F64_MATHS), f64_math))
    dt = np.dtype(dtype)
    if dist == "integers":
        ptype, pchar = "unsigned long long", "Q"
        affine = False
        ctype = "bool" if dt.kind == "b" else _dtypes.ctype(dt)
    else:
        ptype = ctype = "float" if dt == _F4 else "double"
        pchar = "f" if dt == _F4 else "d"
    name = "ga_random_%s_%s%d%s_%d" % (dist, dt.kind, dt.itemsize,
                                        "_a" if affine else "", per)
    src = render("random.cu.mako", dist=dist, ctype=ctype, ptype=ptype,
                 per=per, affine=affine, itemsize=dt.itemsize, name=name,
                 impl=impl, f64_math=f64_math)
    return name, src, "PQQQi" + pchar + pchar + "Q" + "I" * 20


def _kernel(dist, dt, affine, per, impl):
    """(function, grid cap, module) of a kernel in the current context."""
    kernels = _kernels()
    kkey = (dist, dt.char, affine, per, impl, F64_MATH)
    entry = kernels.get(kkey)
    if entry is None:
        name, src, chars = kernel_spec(dist, dt, affine, per, impl, F64_MATH)
        fn, mod = compile_function(src, name, chars)
        nsm = _percontext.current_context().get_device().get_attribute(
            device_attribute.MULTIPROCESSOR_COUNT)
        # resident blocks per SM from the register count (allocated per
        # warp in units of 256 registers), at most 2048 threads per SM
        regs = max(1, fn.num_regs)
        per_warp = -(-regs * 32 // 256) * 256
        bps = max(1, min(2048 // _BLOCK, 65536 // (per_warp * (_BLOCK // 32))))
        entry = (fn, int(nsm) * bps, mod)
        kernels[kkey] = entry
    return entry


def _launch(bitgen, dist, out, affine, per, a, b, thresh=0, stream=None):
    n = out.size
    if n == 0:
        return out
    nblocks = -(-n // per)
    impl = kernel_impl()
    if nblocks >= 1 << 37:      # v2 counts a warp's steps in 32 bits
        impl = "grid-stride"
    fn, cap, _ = _kernel(dist, out.dtype, affine, per, impl)
    offset = bitgen._reserve(nblocks)
    # v2: two Philox blocks per thread per step
    grid = min(cap, -(-nblocks // (_BLOCK * (2 if impl == "warp-chunks" else 1))))
    nvec = min(per, 16 // out.dtype.itemsize)
    vec = 1 if out.ptr % (nvec * out.dtype.itemsize) == 0 else 0
    fn.prepared_async_call((grid, 1), (_BLOCK, 1, 1), stream, out.ptr, n,
                           nblocks, offset, vec, a, b, thresh, *bitgen._keys())
    return out


def clear_cache():
    """Forget the compiled kernels (they are rebuilt on demand)."""
    _kernels.clear()


# ---------------------------------------------------------------------------
# argument checking (numpy's rules and messages)

def _shape(size):
    if size is None:
        return ()
    try:
        return (operator.index(size),)
    except TypeError:
        pass
    try:
        return tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError("expected a sequence of integers or a single "
                        "integer, got '%s'" % (size,)) from None


def _check_shape(shape):
    for s in shape:
        if s < 0:
            raise ValueError("negative dimensions are not allowed")
    return shape


def _output(method, size, dtype, out, allowed):
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError("Unsupported dtype %r for %s" % (dtype, method)) from None
    if dt not in allowed:
        raise TypeError("Unsupported dtype %r for %s" % (dt, method))
    if out is None:
        shape = _check_shape(_shape(size))
        return dt, shape, None
    if not all(hasattr(out, a) for a in ("ptr", "dtype", "shape", "flags")):
        raise TypeError("out must be a GPUArray, not %s" % type(out).__name__)
    if out.dtype != dt:
        raise TypeError("Supplied output array has the wrong type. Expected "
                        "%s, got %s" % (dt, out.dtype))
    if not out.flags.c_contiguous:
        raise ValueError("Supplied output array must be contiguous, "
                         "writable, aligned, and in machine byte-order.")
    if size is not None and _check_shape(_shape(size)) != tuple(out.shape):
        raise ValueError("size must match out.shape when used together")
    return dt, tuple(out.shape), out


def _alloc(dt, shape, out):
    if out is not None:
        return out
    return _creation.empty(shape, dt)


def _float_param(x, name):
    if isinstance(x, (bool, np.bool_)):
        return float(x)
    if isinstance(x, (int, float, np.integer, np.floating)):
        return float(x)
    if hasattr(x, "shape") and getattr(x, "shape") == () and hasattr(x, "item"):
        return float(x.item())
    raise TypeError("%s must be a real scalar (gpuarr does not broadcast "
                    "distribution parameters), got %s" % (name, type(x).__name__))


def _check_scale(scale, name="scale"):
    s = _float_param(scale, name)
    if not np.isnan(s) and np.signbit(s):
        raise ValueError("%s < 0" % name)
    return s


def _int_param(x, name):
    if isinstance(x, (float, np.floating)):
        if not np.isfinite(x):
            raise OverflowError("cannot convert float %s to integer" % x)
        return int(x)            # numpy truncates toward zero
    if hasattr(x, "shape") and getattr(x, "shape") == () and hasattr(x, "item"):
        return _int_param(x.item(), name)
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError("%s must be an integer scalar (gpuarr does not "
                        "broadcast distribution parameters), got %s"
                        % (name, type(x).__name__)) from None


def _int_bounds(dt):
    if dt.kind == "b":
        return 0, 1
    info = np.iinfo(dt)
    return int(info.min), int(info.max)


_INT_DTYPES = tuple(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64))


# ---------------------------------------------------------------------------
# the generator

class Generator:
    """numpy-style random number generator producing GPUArrays.

    Parameters
    ----------
    bit_generator : Philox
        Holds the key and the offset; shared (not copied).

    Notes
    -----
    Every method checks its arguments with numpy's rules (and raises
    numpy's exception types) before allocating or launching anything.
    Kernels run asynchronously on ``stream`` (default stream when None).
    """

    def __init__(self, bit_generator):
        if not isinstance(bit_generator, Philox):
            raise TypeError("bit_generator must be a gpuarr.random.Philox, "
                            "not %s" % type(bit_generator).__name__)
        self._bitgen = bit_generator

    @property
    def bit_generator(self):
        """The :class:`Philox` instance."""
        return self._bitgen

    def __repr__(self):
        return "Generator(%r)" % (self._bitgen,)

    def random(self, size=None, dtype=np.float64, out=None, *, stream=None):
        """Uniform floats in [0, 1).

        Each value has a full mantissa of random bits: ``j * 2**-24`` (float32)
        or ``j * 2**-53`` (float64) with ``j`` uniform.

        Parameters
        ----------
        size : int or tuple of int, optional
            Output shape; None gives a 0-d array.
        dtype : {numpy.float64, numpy.float32}, optional
        out : GPUArray, optional
            C-contiguous array of ``dtype`` to fill (then ``size`` must be
            None or ``out.shape``).
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray

        Raises
        ------
        TypeError
            For another dtype or an ``out`` of the wrong type.
        ValueError
            For a negative dimension, a non-contiguous ``out`` or a ``size``
            that disagrees with it.
        """
        dt, shape, out = _output("random", size, dtype, out, _FLOATS)
        out = _alloc(dt, shape, out)
        per = 4 if dt == _F4 else 2
        return _launch(self._bitgen, "uniform", out, False, per, 0.0, 1.0,
                       stream=stream)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64, out=None,
                *, stream=None):
        """Uniform floats in [low, high): ``low + (high - low) * random()``.

        ``high - low`` is computed in float64 and rounded to ``dtype``; the
        multiply and the add are each rounded once in ``dtype``.  Rounding
        can give ``high`` itself, as in numpy.

        Parameters
        ----------
        low, high : float
        size, dtype, out, stream
            As for :meth:`random`.

        Returns
        -------
        GPUArray

        Raises
        ------
        OverflowError
            When ``high - low`` is not finite (in ``dtype``).
        TypeError, ValueError
            As for :meth:`random`.
        """
        lo = _float_param(low, "low")
        hi = _float_param(high, "high")
        dt, shape, out = _output("uniform", size, dtype, out, _FLOATS)
        rng = hi - lo
        with np.errstate(over="ignore"):
            bad = (not np.isfinite(rng) or not np.isfinite(dt.type(rng))
                   or not np.isfinite(dt.type(lo)))
        if bad:
            raise OverflowError("high - low range exceeds valid bounds")
        out = _alloc(dt, shape, out)
        per = 4 if dt == _F4 else 2
        return _launch(self._bitgen, "uniform", out, True, per,
                       dt.type(lo), dt.type(rng), stream=stream)

    def standard_normal(self, size=None, dtype=np.float64, out=None, *,
                        stream=None):
        """Standard normal floats (Box-Muller, both outputs used).

        float32 values reach 6.76 standard deviations (``u1`` takes all 32
        bits of a word), float64 values 8.57.  float32 values use the
        hardware's ``lg2.approx``, ``sqrt.approx`` and ``__sincosf``: within
        a few ulp of the exact Box-Muller value for radii above 1.18, within
        ``4e-7 / r`` absolute below (``gpuarr._philox.normal_f32_bound``;
        docs/random.md); float64 values within 4 ulp.

        Parameters
        ----------
        size, dtype, out, stream
            As for :meth:`random`.

        Returns
        -------
        GPUArray
        """
        dt, shape, out = _output("standard_normal", size, dtype, out, _FLOATS)
        out = _alloc(dt, shape, out)
        per = 4 if dt == _F4 else 2
        return _launch(self._bitgen, "normal", out, False, per, 0.0, 1.0,
                       stream=stream)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64, out=None,
               *, stream=None):
        """Normal floats: ``loc + scale * standard_normal()``.

        Parameters
        ----------
        loc : float
        scale : float
            Non-negative (NaN allowed, as in numpy).
        size, dtype, out, stream
            As for :meth:`random`.

        Returns
        -------
        GPUArray

        Raises
        ------
        ValueError
            ``"scale < 0"`` for a negative scale (including -0.0, as numpy).
        """
        lo = _float_param(loc, "loc")
        sc = _check_scale(scale)
        dt, shape, out = _output("normal", size, dtype, out, _FLOATS)
        out = _alloc(dt, shape, out)
        per = 4 if dt == _F4 else 2
        return _launch(self._bitgen, "normal", out, True, per,
                       dt.type(lo), dt.type(sc), stream=stream)

    def exponential(self, scale=1.0, size=None, dtype=np.float64, out=None, *,
                    stream=None):
        """Exponential floats: ``scale * -log(1 - u)``.

        ``1 - u`` is drawn directly in (0, 1]: ``(w + 1/2) * 2**-32`` rounded
        to float32 for float32 (largest value 22.9 * scale), and
        ``(j + 1) * 2**-53`` for float64 (36.7 * scale).

        Parameters
        ----------
        scale : float
            Non-negative.
        size, dtype, out, stream
            As for :meth:`random`.

        Returns
        -------
        GPUArray

        Raises
        ------
        ValueError
            ``"scale < 0"``.
        """
        sc = _check_scale(scale)
        dt, shape, out = _output("exponential", size, dtype, out, _FLOATS)
        out = _alloc(dt, shape, out)
        per = 4 if dt == _F4 else 2
        return _launch(self._bitgen, "exponential", out, sc != 1.0, per,
                       dt.type(0.0), dt.type(sc), stream=stream)

    def integers(self, low, high=None, size=None, dtype=np.int64,
                 endpoint=False, out=None, *, stream=None):
        """Uniform integers in [low, high) (or [low, high] with ``endpoint``).

        Unbiased: Lemire's multiply-and-reject method on 32-bit words when
        the range has at most 2**32 values, on 64-bit words otherwise.

        Parameters
        ----------
        low : int
            Lowest value, or the (exclusive) upper bound when ``high`` is
            None (then ``low`` is 0).
        high : int, optional
        size : int or tuple of int, optional
        dtype : integer or bool dtype, optional
            Default int64.
        endpoint : bool, optional
            Include ``high``.
        out : GPUArray, optional
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray

        Raises
        ------
        ValueError
            ``"low >= high"`` (``"low > high"`` with ``endpoint``),
            ``"high <= 0"`` / ``"high < 0"`` with one bound, and
            ``"low is out of bounds for int8"`` etc.
        TypeError
            For a non-integer dtype: ``"Unsupported dtype ... for integers"``.
        """
        lo = _int_param(low, "low")
        if high is None:
            hi, lo = lo, 0
            if endpoint and hi < 0:
                raise ValueError("high < 0")
            if not endpoint and hi <= 0:
                raise ValueError("high <= 0")
        else:
            hi = _int_param(high, "high")
        dt, shape, out = _output("integers", size, dtype, out, _INT_DTYPES)
        bmin, bmax = _int_bounds(dt)
        top = hi if endpoint else hi - 1
        if lo < bmin:
            raise ValueError("low is out of bounds for %s" % dt)
        if top > bmax:
            raise ValueError("high is out of bounds for %s" % dt)
        if lo > top:
            raise ValueError("low > high" if endpoint else "low >= high")
        rng = top - lo
        per, s, thresh = _philox.integer_params(rng)
        out = _alloc(dt, shape, out)
        return _launch(self._bitgen, "integers", out, False, per,
                       lo & _MASK64, s, thresh, stream=stream)


def default_rng(seed=None):
    """A :class:`Generator` over :class:`Philox` (numpy's ``default_rng``).

    Parameters
    ----------
    seed : None, int, sequence of int, numpy.random.SeedSequence, Philox or Generator
        A Generator is returned unchanged; a Philox is wrapped; anything
        else seeds a new Philox (see :class:`Philox`).

    Returns
    -------
    Generator
    """
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, Philox):
        return Generator(seed)
    return Generator(Philox(seed))
