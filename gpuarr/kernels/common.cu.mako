## Shared definitions of gpuarr's kernels: C types, complex numbers,
## float16 without cuda_fp16.h, numpy-compatible integer helpers, the
## grid-stride loop and strided index math.  Everything is deterministic:
## the same arguments render the same text.
##
## types(): emit the type and helper definitions once per source.
## streaming(): ga_ldcs(p) and ga_stcs(p, x), a load and a store of any
##   1- to 16-byte T with the streaming (evict-first) hint, for data read
##   or written once (the hinted intrinsics take built-in types alone).
##
## Value conversions, C expressions of numpy dtypes' values (the dtypes are
## numpy.dtype objects; compute types are those of _dtypes.reg_ctype:
## float16 is computed in a float holding an exact half value):
##   load(expr, dt)            memory value -> compute value
##   store(expr, dt)           compute value -> memory value
##   convert(expr, src, dst)   compute value of src -> compute value of dst
##                             (numpy's casts: to bool is != 0, complex to
##                             real takes the real part, to float16 rounds
##                             once, from double where the source needs it)
<%!
    import numpy as np
    from gpuarr._dtypes import reg_ctype
    from gpuarr._headers import text as header_text

    def part_dtype(dt):
        """The dtype of the parts of complex dtype ``dt``."""
        return np.dtype("f4") if dt.itemsize == 8 else np.dtype("f8")

    def is_half(dt):
        return dt.kind == "f" and dt.itemsize == 2
%>\
<%def name="load(expr, dt)" buffered="True" filter="trim">
% if is_half(dt):
((float)(${expr}))
% else:
${expr}
% endif
</%def>\
<%def name="store(expr, dt)" buffered="True" filter="trim">
% if is_half(dt):
ga_half(${expr})
% else:
${expr}
% endif
</%def>\
<%def name="convert(expr, src, dst)" buffered="True" filter="trim">
<% part = "float" if dst.itemsize == 8 else "double" %>\
% if src == dst:
${expr}
% elif dst.kind == "b" and src.kind == "c":
ga_nonzero(${expr})
% elif dst.kind == "b":
((${expr}) != 0)
% elif dst.kind == "c" and src.kind == "c":
ga_complex<${part}>((${part})(${expr}).re, (${part})(${expr}).im)
% elif dst.kind == "c":
ga_complex<${part}>((${part})(${expr}))
% elif src.kind == "c":
${real_convert(real_part(expr), part_dtype(src), dst, False)}
% else:
${real_convert(expr, src, dst, src.kind == "f" and src.itemsize == 4)}
% endif
</%def>\
<%def name="real_part(expr)" buffered="True" filter="trim">
(${expr}).re
</%def>\
## a real value of src to real dst's compute type; single: src is float32
## (rounded to float16 from float, which is exact for it)
<%def name="real_convert(expr, src, dst, single)" buffered="True" filter="trim">
% if src == dst:
${expr}
% elif is_half(dst) and (src.itemsize <= 2 or single):
ga_hround((float)(${expr}))
% elif is_half(dst):
ga_hround_d((double)(${expr}))
% else:
((${reg_ctype(dst)})(${expr}))
% endif
</%def>\
<%def name="streaming()">\
template <class T> __device__ __forceinline__ T ga_ldcs(const T *p)
{
    union { T v; unsigned char b1; unsigned short b2; unsigned int b4;
            unsigned long long b8[2]; } u;
    if (sizeof(T) == 1) u.b1 = __ldcs((const unsigned char *)p);
    else if (sizeof(T) == 2) u.b2 = __ldcs((const unsigned short *)p);
    else if (sizeof(T) == 4) u.b4 = __ldcs((const unsigned int *)p);
    else {
        u.b8[0] = __ldcs((const unsigned long long *)p);
        if (sizeof(T) == 16)
            u.b8[1] = __ldcs((const unsigned long long *)p + 1);
    }
    return u.v;
}

template <class T> __device__ __forceinline__ void ga_stcs(T *p, T x)
{
    union { T v; unsigned char b1; unsigned short b2; unsigned int b4;
            unsigned long long b8[2]; } u;
    u.v = x;
    if (sizeof(T) == 1) __stcs((unsigned char *)p, u.b1);
    else if (sizeof(T) == 2) __stcs((unsigned short *)p, u.b2);
    else if (sizeof(T) == 4) __stcs((unsigned int *)p, u.b4);
    else {
        __stcs((unsigned long long *)p, u.b8[0]);
        if (sizeof(T) == 16)
            __stcs((unsigned long long *)p + 1, u.b8[1]);
    }
}
</%def>\
<%def name="types()">
// ---- gpuarr common definitions ----
#define GA_DEV __device__ __forceinline__

// float16 stored as its 16 bits; converted with PTX so cuda_fp16.h is
// not needed (NVRTC may not ship it).
GA_DEV float ga_h2f(unsigned short h) {
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    // (cvt makes every NaN the positive canonical one; numpy keeps the
    // sign, which signbit and copysign read)
    return f == f ? f : __int_as_float(__float_as_int(f) | ((h & 0x8000u) << 16));
}
GA_DEV unsigned short ga_f2h(float f) {
    unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
GA_DEV unsigned short ga_d2h(double d) {
    unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h;
}
struct ga_half {
    unsigned short x;
    ga_half() = default;
    __device__ __forceinline__ ga_half(float f) : x(ga_f2h(f)) {}
    __device__ __forceinline__ operator float() const { return ga_h2f(x); }
    static __device__ __forceinline__ ga_half from_bits(unsigned short b) {
        ga_half h; h.x = b; return h;
    }
};
// round a float (or double) to the nearest float16, kept as a float
GA_DEV float ga_hround(float f) { return ga_h2f(ga_f2h(f)); }
GA_DEV float ga_hround_d(double d) { return ga_h2f(ga_d2h(d)); }

// gpuarr::complex<T> (ga_complex<T>): the text of gpuarr/include/gpuarr/complex.hpp
${header_text("gpuarr/complex.hpp")}
// numpy's lexicographic complex ordering
template <class T> GA_DEV bool ga_clt(ga_complex<T> a, ga_complex<T> b) {
    return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);
}
template <class T> GA_DEV bool ga_cle(ga_complex<T> a, ga_complex<T> b) {
    // numpy's CLE: the real parts compare strictly unless equal
    return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);
}
GA_DEV float ga_hypot(float a, float b) { return hypotf(a, b); }
GA_DEV double ga_hypot(double a, double b) { return hypot(a, b); }
GA_DEV float ga_atan2(float a, float b) { return atan2f(a, b); }
GA_DEV double ga_atan2(double a, double b) { return atan2(a, b); }
GA_DEV float ga_sqrtr(float a) { return sqrtf(a); }
GA_DEV double ga_sqrtr(double a) { return sqrt(a); }
GA_DEV float ga_expr(float a) { return expf(a); }
GA_DEV double ga_expr(double a) { return exp(a); }
GA_DEV float ga_logr(float a) { return logf(a); }
GA_DEV double ga_logr(double a) { return log(a); }
GA_DEV void ga_sincos(float a, float *s, float *c) { sincosf(a, s, c); }
GA_DEV void ga_sincos(double a, double *s, double *c) { sincos(a, s, c); }
GA_DEV float ga_copysign(float a, float b) { return copysignf(a, b); }
GA_DEV double ga_copysign(double a, double b) { return copysign(a, b); }
template <class T> GA_DEV T ga_abs(ga_complex<T> a) { return ga_hypot(a.re, a.im); }
template <class T> GA_DEV T ga_angle(ga_complex<T> a) { return ga_atan2(a.im, a.re); }
template <class T> GA_DEV ga_complex<T> ga_conj(ga_complex<T> a) { return ga_complex<T>(a.re, -a.im); }
template <class T> GA_DEV ga_complex<T> ga_exp(ga_complex<T> a) {
    T e = ga_expr(a.re);
    if (a.im == 0) return ga_complex<T>(e, a.im);
    T s, c; ga_sincos(a.im, &s, &c);
    return ga_complex<T>(e * c, e * s);
}
template <class T> GA_DEV ga_complex<T> ga_log(ga_complex<T> a) {
    return ga_complex<T>(ga_logr(ga_hypot(a.re, a.im)), ga_atan2(a.im, a.re));
}
template <class T> GA_DEV ga_complex<T> ga_sqrt(ga_complex<T> a) {
    if (a.re == 0 && a.im == 0) return ga_complex<T>(0, a.im);
    T t = ga_sqrtr(((a.re < 0 ? -a.re : a.re) + ga_hypot(a.re, a.im)) * (T)0.5);
    if (a.re >= 0) return ga_complex<T>(t, a.im / (2 * t));
    return ga_complex<T>((a.im < 0 ? -a.im : a.im) / (2 * t), ga_copysign(t, a.im));
}
template <class T> GA_DEV ga_complex<T> ga_sign(ga_complex<T> a) {
    T m = ga_hypot(a.re, a.im);
    if (m == 0) return ga_complex<T>(0, 0);
    return ga_complex<T>(a.re / m, a.im / m);
}
template <class T> GA_DEV bool ga_nonzero(T a) { return a != 0; }
template <class T> GA_DEV bool ga_nonzero(ga_complex<T> a) { return a.re != 0 || a.im != 0; }
template <class T> GA_DEV bool ga_isinf(T a) { return a == a && a - a != a - a; }
template <class T> GA_DEV bool ga_isfinite(T a) { return a - a == a - a; }

// integer helpers with numpy's results (no C undefined behaviour)
template <class T> GA_DEV T ga_floor_divide(T a, T b) {
    if (b == 0) return 0;
    if ((T)-1 < (T)0 && b == (T)-1) return (T)((unsigned long long)0 - (unsigned long long)a);
    T q = a / b;
    if ((T)-1 < (T)0 && (a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
template <class T> GA_DEV T ga_remainder(T a, T b) {
    if (b == 0) return 0;
    if ((T)-1 < (T)0 && b == (T)-1) return 0;
    T r = a % b;
    if ((T)-1 < (T)0 && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
// numpy's npy_divmod for floats
template <class T> GA_DEV T ga_fdivmod(T a, T b, T *mod) {
    T m = fmod(a, b);
    if (b == 0) { *mod = m; return a / b; }
    T div = (a - m) / b;
    if (m != 0) {
        if ((b < 0) != (m < 0)) { m += b; div -= (T)1; }
    } else {
        m = ga_copysign((T)0, b);
    }
    T fl;
    if (div != 0) {
        fl = floor(div);
        if (div - fl > (T)0.5) fl += (T)1;
    } else {
        fl = ga_copysign((T)0, a / b);
    }
    *mod = m;
    return fl;
}
GA_DEV float ga_floor_divide(float a, float b) { float m; return ga_fdivmod(a, b, &m); }
GA_DEV double ga_floor_divide(double a, double b) { double m; return ga_fdivmod(a, b, &m); }
GA_DEV float ga_remainder(float a, float b) {
    if (b == 0) return fmodf(a, b);
    float m; ga_fdivmod(a, b, &m); return m;
}
GA_DEV double ga_remainder(double a, double b) {
    if (b == 0) return fmod(a, b);
    double m; ga_fdivmod(a, b, &m); return m;
}
template <class T> GA_DEV T ga_ipow(T a, T b) {
    if ((T)-1 < (T)0 && b < 0) {
        if (a == 1) return 1;
        if (a == (T)-1) return (b & 1) ? (T)-1 : (T)1;
        return 0;
    }
    T r = 1;
    while (b != 0) {
        if (b & 1) r = (T)(r * a);
        a = (T)(a * a);
        b = (T)(b >> 1);
    }
    return r;
}
template <class T> GA_DEV T ga_lshift(T a, T b) {
    if ((unsigned long long)(long long)b < (unsigned long long)(8 * sizeof(T)))
        return (T)((unsigned long long)a << b);
    return 0;
}
template <class T> GA_DEV T ga_rshift(T a, T b) {
    if ((unsigned long long)(long long)b < (unsigned long long)(8 * sizeof(T)))
        return (T)(a >> b);
    return ((T)-1 < (T)0 && a < 0) ? (T)-1 : (T)0;
}
template <class T> GA_DEV T ga_clip_int(T x, T lo, T hi) {
    T y = x < lo ? lo : x;
    return y > hi ? hi : y;
}
template <class T> GA_DEV T ga_clip_float(T x, T lo, T hi) {
    T y = (x >= lo || x != x) ? x : lo;
    return (y <= hi || y != y) ? y : hi;
}
// numpy's modf, frexp and ldexp: C99's, with frexp's exponent 0 (and its
// mantissa the value itself) for infinities and NaN, where C leaves the
// exponent unspecified; ldexp's exponent clamped far past every float's
// range (the result is then 0 or inf, as for the exact exponent)
GA_DEV float ga_modf_frac(float x) { float i; return modff(x, &i); }
GA_DEV double ga_modf_frac(double x) { double i; return modf(x, &i); }
GA_DEV float ga_frexp_m(float x) { int e; const float m = frexpf(x, &e); return ga_isfinite(x) ? m : x; }
GA_DEV double ga_frexp_m(double x) { int e; const double m = frexp(x, &e); return ga_isfinite(x) ? m : x; }
GA_DEV int ga_frexp_e(float x) { int e; frexpf(x, &e); return ga_isfinite(x) ? e : 0; }
GA_DEV int ga_frexp_e(double x) { int e; frexp(x, &e); return ga_isfinite(x) ? e : 0; }
GA_DEV int ga_exp_clamp(long long e) { return (int)(e < -100000 ? -100000 : (e > 100000 ? 100000 : e)); }
GA_DEV float ga_ldexp(float x, long long e) { return ldexpf(x, ga_exp_clamp(e)); }
GA_DEV double ga_ldexp(double x, long long e) { return ldexp(x, ga_exp_clamp(e)); }
// numpy's logaddexp and logaddexp2 (npy_logaddexp: equal operands, equal
// infinities among them, give x + log 2; a NaN difference is returned)
GA_DEV float ga_logaddexp(float x, float y) {
    if (x == y) return x + 0.6931471805599453f;
    const float d = x - y;
    return d > 0 ? x + log1pf(expf(-d)) : (d <= 0 ? y + log1pf(expf(d)) : d);
}
GA_DEV double ga_logaddexp(double x, double y) {
    if (x == y) return x + 0.6931471805599453;
    const double d = x - y;
    return d > 0 ? x + log1p(exp(-d)) : (d <= 0 ? y + log1p(exp(d)) : d);
}
GA_DEV float ga_logaddexp2(float x, float y) {
    if (x == y) return x + 1.0f;
    const float d = x - y;
    return d > 0 ? x + log1pf(exp2f(-d)) * 1.4426950408889634f
                 : (d <= 0 ? y + log1pf(exp2f(d)) * 1.4426950408889634f : d);
}
GA_DEV double ga_logaddexp2(double x, double y) {
    if (x == y) return x + 1.0;
    const double d = x - y;
    return d > 0 ? x + log1p(exp2(-d)) * 1.4426950408889634
                 : (d <= 0 ? y + log1p(exp2(d)) * 1.4426950408889634 : d);
}
// numpy's heaviside: NaN for NaN, h0 at 0
template <class T> GA_DEV T ga_heaviside(T x, T h0) {
    return x != x ? x : (x == 0 ? h0 : (x < 0 ? (T)0 : (T)1));
}
// nextafter and spacing; float16 (bits 16, computed as float) steps its own
// bits, where float32's next value would round back to x
GA_DEV float ga_nextafter(float x, float y, int bits) {
    if (bits != 16) return nextafterf(x, y);
    if (x != x || y != y) return x + y;
    if (x == y) return y;
    unsigned short h = ga_f2h(x);       // exact: x is a float16
    if (x == 0) h = y > 0 ? 0x0001u : 0x8001u;
    else h = (x < y) == (x > 0) ? (unsigned short)(h + 1u) : (unsigned short)(h - 1u);
    return ga_h2f(h);
}
GA_DEV double ga_nextafter(double x, double y, int bits) { (void)bits; return nextafter(x, y); }
// numpy's spacing: NaN for infinities; float32 and float64 the step away
// from zero (from either zero, up: npy_spacing), float16 the step up, so
// positive (npy_half_spacing)
GA_DEV float ga_spacing(float x, int bits) {
    if (ga_isinf(x)) return __int_as_float(0x7fc00000);
    const float inf = __int_as_float(0x7f800000);
    return ga_nextafter(x, (bits == 16 || !(x < 0)) ? inf : -inf, bits) - x;
}
GA_DEV double ga_spacing(double x, int bits) {
    (void)bits;
    if (ga_isinf(x)) return __longlong_as_double(0x7ff8000000000000ll);
    const double inf = __longlong_as_double(0x7ff0000000000000ll);
    return nextafter(x, !(x < 0) ? inf : -inf) - x;
}
// numpy's gcd and lcm, in the unsigned type of the loop (gcd(0, 0) == 0;
// the absolute value of the most negative integer is its unsigned
// magnitude, as numpy's C computes it)
template <class U, class T> GA_DEV U ga_uabs(T a) { return a < 0 ? (U)((U)0 - (U)a) : (U)a; }
template <class U> GA_DEV U ga_ugcd(U a, U b) {
    while (b != 0) { const U t = (U)(a % b); a = b; b = t; }
    return a;
}
template <class U> GA_DEV U ga_ulcm(U a, U b) {
    const U g = ga_ugcd<U>(a, b);
    return g == 0 ? (U)0 : (U)(a / g * b);
}

// ---- complex elementary functions ----
// numpy's results: C99 Annex G branch cuts (Kahan's formulas for the
// inverse functions), numpy's own formulas for expm1, log1p, exp2, log2,
// log10 and power.  Everything is computed in double; complex64 rounds once
// at the end (ga_cto<float>), complex128 has a few ulp.
typedef ga_complex<double> ga_cd;
template <class T> GA_DEV ga_cd ga_c2d(ga_complex<T> a) { return ga_cd((double)a.re, (double)a.im); }
template <class R> GA_DEV ga_complex<R> ga_cto(ga_cd a) { return ga_complex<R>((R)a.re, (R)a.im); }
template <class T> GA_DEV bool ga_cisnan(ga_complex<T> a) { return a.re != a.re || a.im != a.im; }
// the kernels are those of gpuarr/complex.hpp
GA_DEV ga_cd ga_times_i(ga_cd a) { return gpuarr::detail::times_i(a); }
GA_DEV ga_cd ga_times_mi(ga_cd a) { return gpuarr::detail::times_mi(a); }
GA_DEV ga_cd ga_csinh(ga_cd z) { return gpuarr::detail::csinh(z); }
GA_DEV ga_cd ga_ccosh(ga_cd z) { return gpuarr::detail::ccosh(z); }
GA_DEV ga_cd ga_ctanh(ga_cd z) { return gpuarr::detail::ctanh(z); }
GA_DEV ga_cd ga_csin(ga_cd z) { return gpuarr::detail::csin(z); }
GA_DEV ga_cd ga_ccos(ga_cd z) { return gpuarr::detail::ccos(z); }
GA_DEV ga_cd ga_ctan(ga_cd z) { return gpuarr::detail::ctan(z); }
GA_DEV ga_cd ga_casin(ga_cd z) { return gpuarr::detail::casin(z); }
GA_DEV ga_cd ga_cacos(ga_cd z) { return gpuarr::detail::cacos(z); }
GA_DEV ga_cd ga_cacosh(ga_cd z) { return gpuarr::detail::cacosh(z); }
GA_DEV ga_cd ga_casinh(ga_cd z) { return gpuarr::detail::casinh(z); }
GA_DEV ga_cd ga_catanh(ga_cd z) { return gpuarr::detail::catanh(z); }
GA_DEV ga_cd ga_catan(ga_cd z) { return gpuarr::detail::catan(z); }
// numpy's clip of complex values: max(x, lo) then min(., hi), lexicographic,
// a NaN x (or NaN bound picked) propagating
template <class T> GA_DEV ga_complex<T> ga_cclip(ga_complex<T> x, ga_complex<T> lo, ga_complex<T> hi) {
    const ga_complex<T> y = (ga_cisnan(x) || ga_clt(lo, x)) ? x : lo;
    return (ga_cisnan(y) || ga_clt(y, hi)) ? y : hi;
}
// numpy's nc_expm1 and nc_log1p
GA_DEV ga_cd ga_cexpm1(ga_cd z) {
    const double h = sin(z.im / 2);
    return ga_cd(expm1(z.re) * cos(z.im) - 2 * h * h, exp(z.re) * sin(z.im));
}
GA_DEV ga_cd ga_clog1p(ga_cd z) {
    return ga_cd(log(hypot(z.re + 1, z.im)), atan2(z.im, z.re + 1));
}
GA_DEV ga_cd ga_cpow(ga_cd a, ga_cd b) { return gpuarr::detail::cpow(a, b); }

// N values of T at an N * sizeof(T) aligned address: one vector access
template <class T, int N> struct __align__(sizeof(T) * N) ga_vec { T v[N]; };
// ---- end of gpuarr common definitions ----
</%def>
