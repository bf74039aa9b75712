"""CPU reference of gpuarr's random numbers: Philox4x32-10 and the transforms.

Pure numpy (layer 0).  This module defines, bit for bit, what the kernels in
``kernels/random.cu.mako`` compute, so that tests can compare the GPU's
output with it.  It is slow (a few million values per second) and meant for
tests and documentation, not for production use.

Philox4x32-10
-------------
J. K. Salmon, M. A. Moraes, R. O. Dror and D. E. Shaw, "Parallel random
numbers: as easy as 1, 2, 3", SC'11.  A 128-bit counter ``(c0, c1, c2, c3)``
and a 64-bit key ``(k0, k1)`` (32-bit words) go through ten rounds of::

    hi0:lo0 = 0xD2511F53 * c0        (64-bit product)
    hi1:lo1 = 0xCD9E8D57 * c2
    (c0, c1, c2, c3) = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)

with the key bumped by the Weyl constants ``(0x9E3779B9, 0xBB67AE85)``
between rounds.  The result is four independent-looking 32-bit words.

The counter rule
----------------
A request for ``n`` values at stream offset ``offset`` (a 64-bit count of
Philox blocks) with ``per`` values per block (4 for 32-bit outputs, 2 for
values that need 64 random bits) gives element ``k`` the block
``offset + k // per``; the block's counter is ``(lo32(offset + k // per),
hi32(offset + k // per), attempt, 0)`` with ``attempt = 0``.  Element ``k``
uses word ``k % 4`` (``per == 4``) or words ``2 * (k % 2)`` (low half) and
``2 * (k % 2) + 1`` (high half) (``per == 2``).  Rejection sampling (bounded
integers) redraws with ``attempt = 1, 2, ...`` in the same block and lane,
so the output is a function of (key, offset, k) only.  A request consumes
``ceil(n / per)`` blocks.
"""

import numpy as np

__all__ = ["M0", "M1", "W0", "W1", "philox4x32", "blocks", "split_key",
           "words_per_value", "values_per_block", "uniform_bits",
           "u01_f32", "u01_f64", "open01_f32", "open01_f64",
           "random", "uniform", "standard_normal", "normal", "exponential",
           "integers", "integer_params", "sincospi", "fma_f32",
           "neg2log_f32", "angle_f32", "normal_radius", "normal_f32_bound",
           "NEG2LOG_F32",
           "NEG2LN2_F32", "TWO_PI_F32"]

#: Philox4x32 multipliers and Weyl key increments (Random123's constants).
M0 = 0xD2511F53
M1 = 0xCD9E8D57
W0 = 0x9E3779B9
W1 = 0xBB67AE85

#: -2 ln(m) for m in [sqrt(1/2), sqrt(2)): with g = 2 - 2m (exact),
#: -2 ln(m) = g + g**2 * Q(g), Q(g) = sum(NEG2LOG_F32[i] * g**i), fitted
#: (Lawson's iteration for near-minimax relative error of the whole sum,
#: |error| < 2**-24.9 before rounding) and rounded to float32 one
#: coefficient at a time, the others refitted after each rounding.
NEG2LOG_F32 = tuple(float.fromhex(h) for h in (
    "0x1.fffffap-3", "0x1.5556f0p-4", "0x1.0004a6p-5", "0x1.98d39ap-7",
    "0x1.535c98p-8", "0x1.317d6cp-9", "0x1.2502ccp-10", "0x1.65e53ap-12"))
#: -2 ln 2 and 2 pi rounded to float32.
NEG2LN2_F32 = float(np.float32(-2 * np.log(2.0)))
TWO_PI_F32 = float(np.float32(2 * np.pi))



def _f64_constants():
    """The float64 kernels' own ``-2 ln u`` and ``sincospi`` constants
    (``kernels/f64math.cu.mako``), from 60-digit decimal arithmetic, each
    rounded once to float64: Taylor coefficients, whose truncation error
    on the reduced ranges is below 2**-57 of the result."""
    from decimal import Decimal, localcontext
    from fractions import Fraction
    with localcontext() as ctx:
        ctx.prec = 60
        pi = Decimal("3.14159265358979323846264338327950288419716939937510582")
        ln2 = Decimal("0.693147180559945309417232121458176568075500134360255")
        # ln(m) = 2 atanh(s) = 2s + s R, R = z (2/3 + 2z/5 + ...), z = s**2,
        # |s| <= (sqrt(2) - 1) / (sqrt(2) + 1): ten terms
        log_c = tuple(float(Fraction(2, 2 * j + 1)) for j in range(1, 11))
        # k ln 2 as k * hi (exact for |k| < 2**11: 42 bits) + k * lo
        ln2_hi = float(int(ln2 * 2 ** 42) / Decimal(2 ** 42))
        ln2_lo = float(ln2 - Decimal(ln2_hi))
        # sin(pi x) = pi x + x z S(z), cos(pi x) = 1 + z C(z), z = x**2,
        # |x| <= 1/4: eight terms each
        fact, sin_c, cos_c = Decimal(1), [], []
        for j in range(1, 18):
            fact *= j
            if j >= 2 and j % 2 == 0:
                cos_c.append(float((-1) ** (j // 2) * pi ** j / fact))
            elif j >= 3:
                sin_c.append(float((-1) ** (j // 2) * pi ** j / fact))
        pi_hi = float(pi)
        pi_lo = float(pi - Decimal(pi_hi))
    return (log_c, ln2_hi, ln2_lo, tuple(sin_c[:8]), tuple(cos_c[:8]),
            pi_hi, pi_lo)


#: The float64 constants of ``kernels/f64math.cu.mako``: log's series,
#: ln 2 split, sin's and cos's series, pi split (:func:`_f64_constants`).
(NEG2LOG_F64_C, LN2_HI_F64, LN2_LO_F64, SINPI_F64_C, COSPI_F64_C,
 PI_HI_F64, PI_LO_F64) = _f64_constants()

_MASK32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)


def split_key(key):
    """``(k0, k1)``, the low and high 32-bit words of a 64-bit key."""
    key = int(key)
    if not 0 <= key < 1 << 64:
        raise ValueError("key must be in [0, 2**64), got %d" % key)
    return key & 0xFFFFFFFF, key >> 32


def philox4x32(counter, key, rounds=10):
    """Philox4x32-R of many counters under one key.

    Parameters
    ----------
    counter : array_like of uint32, shape (..., 4)
        Counter words ``c0..c3``.
    key : pair of int
        Key words ``(k0, k1)``.
    rounds : int, optional
        Number of rounds (10 for Philox4x32-10).

    Returns
    -------
    numpy.ndarray of uint32, shape (..., 4)
    """
    c = np.asarray(counter, dtype=np.uint32).astype(np.uint64)
    if c.shape[-1:] != (4,):
        raise ValueError("counter must have a last axis of length 4")
    c0, c1, c2, c3 = (c[..., i] for i in range(4))
    k0, k1 = (int(k) & 0xFFFFFFFF for k in key)
    m0, m1 = np.uint64(M0), np.uint64(M1)
    for r in range(rounds):
        if r:
            k0 = (k0 + W0) & 0xFFFFFFFF
            k1 = (k1 + W1) & 0xFFFFFFFF
        p0 = m0 * c0            # < 2**64: exact in uint64
        p1 = m1 * c2
        c0, c1, c2, c3 = ((p1 >> _U32) ^ c1 ^ np.uint64(k0), p1 & _MASK32,
                          (p0 >> _U32) ^ c3 ^ np.uint64(k1), p0 & _MASK32)
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


def blocks(key, offset, nblocks, attempt=0, lanes=None):
    """The Philox outputs of blocks ``offset .. offset + nblocks - 1``.

    Parameters
    ----------
    key : int
        64-bit key.
    offset : int
        First block (64-bit, wraps modulo 2**64).
    nblocks : int
    attempt : int or array of int, optional
        Counter word ``c2`` (0 for first draws, ``j`` for the ``j``-th
        redraw of rejection sampling).
    lanes : array of int, optional
        Block numbers relative to ``offset`` (instead of ``range(nblocks)``).

    Returns
    -------
    numpy.ndarray of uint32, shape (nblocks, 4)
    """
    if lanes is None:
        lanes = np.arange(nblocks, dtype=np.uint64)
    b = (np.uint64(int(offset) % (1 << 64)) + np.asarray(lanes, np.uint64))
    ctr = np.zeros(b.shape + (4,), dtype=np.uint64)
    ctr[..., 0] = b & _MASK32
    ctr[..., 1] = b >> _U32
    ctr[..., 2] = np.asarray(attempt, dtype=np.uint64)
    return philox4x32(ctr.astype(np.uint32), split_key(key))


def words_per_value(kind):
    """Random 32-bit words each value needs: 1 or 2."""
    return 2 if kind == 2 else 1


def values_per_block(dtype, dist="uniform", rng=None):
    """Values produced per Philox block for a distribution and dtype.

    4 when each value takes one 32-bit word (float32 values, integers whose
    range fits 32 bits), 2 when it takes 64 bits (float64 values, integers
    with a range above 2**32).
    """
    dt = np.dtype(dtype)
    if dist == "integers":
        return 4 if rng < 1 << 32 else 2
    return 4 if dt.itemsize <= 4 else 2


def uniform_bits(key, offset, n, per):
    """Per element: its 32-bit word (``per == 4``) or 64-bit word (``per == 2``,
    low word first).  Returned as uint32 or uint64 arrays of length n."""
    nb = -(-n // per)
    w = blocks(key, offset, nb)
    if per == 4:
        return w.reshape(-1)[:n].copy()
    w = w.astype(np.uint64)
    lo, hi = w[:, 0::2], w[:, 1::2]
    return (lo | (hi << _U32)).reshape(-1)[:n]


def u01_f32(w32):
    """float32 in [0, 1): the top 24 bits of a word times 2**-24 (exact)."""
    return ((np.asarray(w32, np.uint32) >> np.uint32(8)).astype(np.float32)
            * np.float32(2.0 ** -24))


def u01_f64(w64):
    """float64 in [0, 1): the top 53 bits of a 64-bit word times 2**-53."""
    return ((np.asarray(w64, np.uint64) >> np.uint64(11)).astype(np.float64)
            * 2.0 ** -53)


def open01_f32(w32):
    """float32 in (0, 1] from all 32 bits: ``fma(float(w), 2**-32, 2**-33)``.

    The word is first rounded to float32 (as ``__uint2float_rn``), then the
    fused multiply-add rounds once; both are exact here in float64 before
    the final rounding, so the result equals the GPU's.  The smallest value
    is 2**-33, so ``-log`` of it reaches 22.87 (normal tails to 6.76 sigma).
    """
    f = np.asarray(w32, np.uint32).astype(np.float32).astype(np.float64)
    return (f * 2.0 ** -32 + 2.0 ** -33).astype(np.float32)


def open01_f64(w64):
    """float64 in (0, 1]: ``(top 53 bits + 1) * 2**-53`` (exact)."""
    return (((np.asarray(w64, np.uint64) >> np.uint64(11)).astype(np.float64)
             + 1.0) * 2.0 ** -53)


def sincospi(x):
    """``(sin(pi x), cos(pi x))`` in float64 for x in [0, 2), reduced exactly.

    ``x - q/2`` with ``q = round(2x)`` is exact (Sterbenz), so the only
    rounding before numpy's sin/cos is that of ``pi * r`` with
    ``|r| <= 1/4``: a relative error of about 2**-53, unlike
    ``sin(pi * x)`` whose error near the zeros is unbounded in ulps.
    """
    x = np.asarray(x, np.float64)
    q = np.rint(2.0 * x)
    r = x - 0.5 * q
    t = np.pi * r
    s, c = np.sin(t), np.cos(t)
    qi = q.astype(np.int64) & 3
    sin = np.choose(qi, [s, c, -s, -c])
    cos = np.choose(qi, [c, -s, -c, s])
    return sin, cos


def fma_f32(a, b, c):
    """Correctly rounded float32 ``fma(a, b, c)`` (the GPU's ``__fmaf_rn``).

    ``a * b`` of two float32 values is exact in float64 (48 bits); the sum
    is formed in float64 rounded to odd (the exact error of the float64
    sum, from TwoSum, decides the sticky bit), and rounding that to float32
    is then the correct rounding of the exact ``a * b + c`` (53 >= 24 + 2).
    Signed zeros follow IEEE 754 (``-0 + +0 = +0``).

    Parameters
    ----------
    a, b, c : array_like of float32

    Returns
    -------
    numpy.ndarray of float32
    """
    a = np.asarray(a, np.float32).astype(np.float64)
    b = np.asarray(b, np.float32).astype(np.float64)
    c = np.asarray(c, np.float32).astype(np.float64)
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    even = (s.view(np.int64) & 1) == 0
    toward = np.where(err > 0, np.inf, -np.inf)
    s = np.where((err != 0) & even, np.nextafter(s, toward), s)
    return s.astype(np.float32)


def neg2log_f32(u):
    """The kernels' float32 ``-2 ln(u)`` for u in [2**-33, 1], bit for bit.

    ``u = 2**k * m`` with m in [sqrt(1/2), sqrt(2)) by integer operations on
    the bits, ``g = fma(m, -2, 2)`` (exact), then
    ``fma(k, NEG2LN2_F32, fma(g * g, Q(g), g))`` with Q evaluated by
    Horner's rule in float32 fmas.  Every step is an IEEE operation, so this
    emulation equals the GPU's result exactly.  The error against the exact
    ``-2 ln(u)`` is below one float32 ulp (checked exhaustively over
    [2**-2, 1] and on samples of every binade by tests/test_random_cpu.py);
    ``u = 1`` gives +0.

    Parameters
    ----------
    u : array_like of float32, in [2**-33, 1]

    Returns
    -------
    numpy.ndarray of float32
    """
    u = np.asarray(u, np.float32)
    i = u.view(np.int32).astype(np.int64)
    kb = (i - 0x3F3504F3) & ~np.int64(0x7FFFFF)       # floor to 2**23 units
    m = (i - kb).astype(np.int32).view(np.float32)
    kf = (kb >> 23).astype(np.float32)
    g = fma_f32(m, np.float32(-2.0), np.float32(2.0))
    s = g * g
    q = np.full(g.shape, NEG2LOG_F32[-1], np.float32)
    for coef in NEG2LOG_F32[-2::-1]:
        q = fma_f32(q, g, np.float32(coef))
    tm = fma_f32(s, q, g)
    return fma_f32(kf, np.float32(NEG2LN2_F32), tm)


def angle_f32(wb):
    """The float32 Box-Muller angle of a word, in (-pi, pi), bit for bit.

    ``v = float(0x3f800000 | (wb >> 9)) - 1.5`` (the word's top 23 bits as
    ``j * 2**-23 - 1/2``, exact) and ``x = fma(v, 2 pi, 2 pi * 2**-24)``
    (rounded once): ``2 pi ((j + 1/2) 2**-23 - 1/2)`` to within float32
    rounding, symmetric about 0 and strictly inside (-pi, pi), the range
    where ``__sinf``/``__cosf`` have their documented accuracy.
    """
    wb = np.asarray(wb, np.uint32)
    bits = (np.uint32(0x3F800000) | (wb >> np.uint32(9))).view(np.float32)
    v = bits - np.float32(1.5)
    two_pi = np.float32(TWO_PI_F32)
    return fma_f32(v, two_pi, two_pi * np.float32(2.0 ** -24))


def _check_per(dtype):
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError("float32 or float64 expected, got %s" % dt)
    return dt, (4 if dt.itemsize == 4 else 2)


def random(key, offset, n, dtype=np.float64):
    """Uniform [0, 1) values (exactly the GPU's)."""
    dt, per = _check_per(dtype)
    w = uniform_bits(key, offset, n, per)
    return u01_f32(w) if per == 4 else u01_f64(w)


def uniform(key, offset, n, low, rng, dtype=np.float64):
    """``low + rng * u`` with ``low``, ``rng`` already of ``dtype``: each
    operation rounded once in ``dtype`` (exactly the GPU's)."""
    dt = np.dtype(dtype)
    u = random(key, offset, n, dt)
    return dt.type(low) + dt.type(rng) * u


def _normal_f32_parts(key, offset, n):
    # per element: the exact radius of its pair (float64, from the float32
    # u1), the float32 angle of its pair
    nb = -(-n // 4)
    w = blocks(key, offset, nb)
    u1 = open01_f32(w[:, 0::2]).astype(np.float64)
    r = np.sqrt(-2.0 * np.log(u1))
    x = angle_f32(w[:, 1::2])
    r = np.repeat(r.reshape(-1), 2)[:n]
    x = np.repeat(x.reshape(-1), 2)[:n]
    return r, x


def normal_radius(key, offset, n):
    """Per float32 normal: the exact radius ``r = sqrt(-2 ln u1)`` of its
    Box-Muller pair (float64), the ``r`` of :func:`normal_f32_bound`."""
    return _normal_f32_parts(key, offset, n)[0]


def normal_f32_bound(key, offset, n, z):
    """Per float32 normal, the largest ``|z_gpu - z_ref|`` the kernel may show.

    ``z_ref`` is :func:`standard_normal`'s float32 value ``z``.  The GPU's
    ``t = -2 ln u1`` comes from ``lg2.approx`` (absolute error at most
    2**-22 on [0.5, 2], 2 ulp elsewhere: CUDA C++ Programming Guide,
    ``__log2f``), times ``-2 ln 2`` rounded, clamped at 0: within
    ``d = t * 2**-21`` of the exact ``t``, plus 4e-7 where u1 >= 1/2
    (``r <= sqrt(2 ln 2)``), so the radius is within ``min(sqrt(d),
    d / r)``; ``sqrt.approx`` adds ``r * 2**-22``, and
    ``__sincosf`` (absolute error at most 2**-21.19 on (-pi, pi)) ``r *
    2**-21.19``; both results are rounded: ``spacing(|z|)``.

    Returns
    -------
    numpy.ndarray of float64, shape ``(n,)``
    """
    r = normal_radius(key, offset, n)
    d = np.where(r <= 1.17741, 4e-7, 0.0) + r * r * 2.0 ** -21
    with np.errstate(divide="ignore"):
        dr = np.minimum(np.sqrt(d), d / r)
    sp = np.spacing(np.abs(np.asarray(z, np.float32))).astype(np.float64)
    return dr + r * (2.0 ** -22 + 2.0 ** -21.19) + sp


def standard_normal(key, offset, n, dtype=np.float64):
    """Box-Muller normals: the GPU's up to the documented error bound.

    float32 (values ``2j``, ``2j + 1`` of a block from words ``2j``,
    ``2j + 1``): ``u1 = open01_f32(w[2j])`` (bit-exact), the exact radius
    ``r = sqrt(-2 ln u1)``, ``x = angle_f32(w[2j+1])`` (bit-exact), values
    ``r cos x`` and ``r sin x`` in float64, rounded to float32.  The GPU
    computes the radius and sin/cos with hardware approximations
    (``lg2.approx``, ``sqrt.approx``, ``__sincosf``) and stays within
    :func:`normal_f32_bound`: ``r * 2**-19.9`` (a few ulp where ``|z|`` is
    near ``r``) for the radii above 1.18 (u1 < 1/2), plus an absolute
    ``4e-7 / r`` below (``|z| <= r``): 3.6e-7 near 1.1, 4e-5 at 0.01, at most
    6.4e-4 for the rare radii below 1e-3 (probability 5e-7).

    float64 values 0 and 1 of a block use the 64-bit words
    ``W0 = (w0, w1)`` and ``W1 = (w2, w3)``: ``u1 = open01_f64(W0)``,
    ``a = (W1 >> 11) * 2**-52``, ``r = sqrt(-2 log u1)``, values
    ``r cos(pi a)`` and ``r sin(pi a)`` in float64 (:func:`sincospi`).  The
    GPU uses CUDA's ``log``, ``sqrt`` and ``sincospi`` and agrees within a
    few ulp.
    """
    dt, per = _check_per(dtype)
    if per == 4:
        r, x = _normal_f32_parts(key, offset, n)
        r = r.astype(np.float64)
        x = x.astype(np.float64)
        odd = (np.arange(n) & 1) == 1
        z = r * np.where(odd, np.sin(x), np.cos(x))
        return z.astype(np.float32)
    nb = -(-n // per)
    w = blocks(key, offset, nb).astype(np.uint64)
    w64 = w[:, 0::2] | (w[:, 1::2] << _U32)
    u1 = open01_f64(w64[:, 0:1])
    a = (w64[:, 1:2] >> np.uint64(11)).astype(np.float64) * 2.0 ** -52
    r = np.sqrt(-2.0 * np.log(u1))
    s, c = sincospi(a)
    z = np.stack([r * c, r * s], axis=-1).reshape(-1)[:n]
    return z.astype(dt)


def normal(key, offset, n, loc, scale, dtype=np.float64):
    """``loc + scale * z`` in ``dtype`` (each operation rounded once)."""
    dt = np.dtype(dtype)
    z = standard_normal(key, offset, n, dt)
    return dt.type(loc) + dt.type(scale) * z


def exponential(key, offset, n, scale=1.0, dtype=np.float64):
    """``scale * -log(v)`` with ``v`` in (0, 1] (``open01_*``), i.e.
    ``-log(1 - u)`` for a uniform ``u``; never -0.

    float32: ``0.5 * neg2log_f32(v)`` (the halving is exact), then times
    ``scale`` rounded once: exactly the GPU's.  float64: ``0 - log(v)``
    in float64 (the GPU's CUDA ``log`` is within 1 ulp), times ``scale``.
    """
    dt, per = _check_per(dtype)
    w = uniform_bits(key, offset, n, per)
    if per == 4:
        e = np.float32(0.5) * neg2log_f32(open01_f32(w))
    else:
        e = 0.0 - np.log(open01_f64(w))
    return dt.type(scale) * e


def integer_params(rng):
    """Kernel parameters of a bounded integer draw over ``rng + 1`` values.

    Returns
    -------
    per : int
        Values per block (4 with 32-bit words, 2 with 64-bit words).
    s : int
        Number of values modulo 2**32 or 2**64 (0 means the full width).
    thresh : int
        Lemire's rejection threshold ``(2**w - s) % s`` (0 when ``s == 0``).
    """
    s = rng + 1
    if rng < 1 << 32:
        per, width = 4, 32
    else:
        per, width = 2, 64
    s %= 1 << width
    thresh = ((1 << width) - s) % s if s else 0
    return per, s, thresh


def integers(key, offset, n, low, rng, dtype=np.int64):
    """Lemire's nearly divisionless bounded integers, ``low + [0, rng]``.

    For a word ``x`` of ``w`` bits (32 or 64) and ``s = rng + 1`` values,
    ``m = x * s``; while ``m mod 2**w < (2**w - s) mod s`` redraw ``x``
    (block counter word ``c2`` = attempt, same lane); the value is
    ``low + m // 2**w`` wrapped to the dtype.  ``s == 2**w`` outputs ``x``.
    """
    dt = np.dtype(dtype)
    per, s, thresh = integer_params(rng)
    nb = -(-n // per)
    k = np.arange(n, dtype=np.int64)
    if per == 4:
        x = [int(v) for v in blocks(key, offset, nb).reshape(-1)[:n]]
    else:
        x = [int(v) for v in uniform_bits(key, offset, n, 2)]
    width = 32 if per == 4 else 64
    mask = (1 << width) - 1
    out = []
    for i, xi in enumerate(x):
        if s == 0:
            out.append(xi)
            continue
        m = xi * s
        attempt = 0
        while (m & mask) < thresh:
            attempt += 1
            wb = blocks(key, offset, 1, attempt=attempt,
                        lanes=[int(k[i]) // per])[0]
            lane = int(k[i]) % per
            if per == 4:
                xi = int(wb[lane])
            else:
                xi = int(wb[2 * lane]) | (int(wb[2 * lane + 1]) << 32)
            m = xi * s
        out.append(m >> width)
    low = int(low)
    bits = np.array([(low + v) % (1 << 64) for v in out], dtype=np.uint64)
    if dt.kind == "b":
        return bits != 0
    if dt.itemsize == 8:
        return bits.view(dt)
    mask = np.uint64((1 << (8 * dt.itemsize)) - 1)
    return (bits & mask).astype(np.dtype("u%d" % dt.itemsize)).view(dt)
