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
           "integers", "integer_params", "sincospi", "sincospi_f32",
           "PI_HI_F32", "PI_LO_F32", "SIN_F32", "COS_F32"]

#: Philox4x32 multipliers and Weyl key increments (Random123's constants).
M0 = 0xD2511F53
M1 = 0xCD9E8D57
W0 = 0x9E3779B9
W1 = 0xBB67AE85

#: Coefficients of the float32 sincospi of normals (see :func:`sincospi_f32`):
#: sin(pi x) = PI_HI x + (PI_LO x + x^3 (S0 + S1 x^2 + S2 x^4)),
#: cos(pi x) = 1 + C0 x^2 + C1 x^4 + C2 x^6 + C3 x^8 on |x| <= 1/4, fitted
#: (Lawson's iteration for near-minimax relative error) and rounded to float32
#: one coefficient at a time.
PI_HI_F32 = float.fromhex("0x1.921fb6p+1")
PI_LO_F32 = float.fromhex("-0x1.777a5cp-24")
SIN_F32 = (float.fromhex("-0x1.4abbbep+2"), float.fromhex("0x1.465facp+1"),
           float.fromhex("-0x1.2db5a6p-1"))
COS_F32 = (float.fromhex("-0x1.3bd3ccp+2"), float.fromhex("0x1.03c1b0p+2"),
           float.fromhex("-0x1.55b2b6p+0"), float.fromhex("0x1.d4f7eep-3"))

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


def _f32(a):
    return np.asarray(a, np.float64).astype(np.float32).astype(np.float64)


def _fma32(a, b, c):
    # float32 fma emulated in float64: a*b is exact (24 + 24 bits), the sum
    # is rounded twice (to 53 bits, then to 24), which rarely differs from
    # one rounding by one float32 ulp; good enough for error bounds.
    return _f32(np.asarray(a, np.float64) * b + c)


def sincospi_f32(m):
    """The kernels' float32 ``(sin, cos)(pi * m * 2**-23)``, m < 2**24.

    Exact integer reduction to ``x = m * 2**-23 - q/2`` in [-1/4, 1/4), the
    polynomials of ``SIN_F32``/``COS_F32`` in float32 (emulated), then the
    quadrant's swap and signs.  Returned as float64 arrays holding float32
    values.
    """
    m = np.asarray(m, np.int64)
    q = (m + (1 << 21)) >> 22
    x = (m - (q << 22)).astype(np.float64) * 2.0 ** -23
    x2 = _f32(x * x)
    x3 = _f32(x2 * x)
    p = _fma32(SIN_F32[2], x2, SIN_F32[1])
    p = _fma32(p, x2, SIN_F32[0])
    sp = _fma32(p, x3, _f32(x * PI_LO_F32))
    sp = _fma32(x, PI_HI_F32, sp)
    cp = _fma32(COS_F32[3], x2, COS_F32[2])
    cp = _fma32(cp, x2, COS_F32[1])
    cp = _fma32(cp, x2, COS_F32[0])
    cp = _fma32(cp, x2, 1.0)
    odd = (q & 1) == 1
    a = np.where(odd, cp, sp)
    b = np.where(odd, sp, cp)
    return np.where(q & 2, -a, a), np.where((q + 1) & 2, -b, b)


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


def standard_normal(key, offset, n, dtype=np.float64):
    """Box-Muller normals, computed in float64 (then rounded to float32).

    Pairs of values come from pairs of words of one block: float32 values
    ``2j`` and ``2j + 1`` of a block use words ``(2j, 2j+1)``:
    ``u1 = open01_f32(w[2j])``, ``a = (w[2j+1] >> 8) * 2**-23`` in [0, 2),
    ``r = sqrt(-2 log u1)``, values ``r cos(pi a)`` and ``r sin(pi a)``
    (the GPU's sin/cos of this angle: :func:`sincospi_f32`, <= 0.86 ulp).
    float64 values 0 and 1 of a block use the 64-bit words ``W0 = (w0, w1)``
    and ``W1 = (w2, w3)``: ``u1 = open01_f64(W0)``,
    ``a = (W1 >> 11) * 2**-52``.  The GPU computes in the output's precision
    with CUDA's ``logf``/``log``, ``sqrtf``/``sqrt`` and
    ``sincospif``/``sincospi``, so it agrees to a few ulp, not exactly.
    """
    dt, per = _check_per(dtype)
    nb = -(-n // per)
    w = blocks(key, offset, nb)
    if per == 4:
        u1 = open01_f32(w[:, 0::2]).astype(np.float64)
        a = (w[:, 1::2] >> np.uint32(8)).astype(np.float64) * 2.0 ** -23
    else:
        w = w.astype(np.uint64)
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
    """``scale * (0 - log(v))`` with ``v`` in (0, 1] (``open01_*``), i.e.
    ``-log(1 - u)`` for a uniform ``u``; computed in float64 then rounded."""
    dt, per = _check_per(dtype)
    w = uniform_bits(key, offset, n, per)
    v = open01_f32(w).astype(np.float64) if per == 4 else open01_f64(w)
    e = (0.0 - np.log(v)).astype(dt)
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
