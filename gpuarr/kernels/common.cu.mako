## Shared definitions of gpuarr's kernels: C types, complex numbers,
## float16 without cuda_fp16.h, numpy-compatible integer helpers, the
## grid-stride loop and strided index math.  Everything is deterministic:
## the same arguments render the same text.
##
## types(): emit the type and helper definitions once per source.
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
<%def name="types()">
// ---- gpuarr common definitions ----
#define GA_DEV __device__ __forceinline__

// float16 stored as its 16 bits; converted with PTX so cuda_fp16.h is
// not needed (NVRTC may not ship it).
GA_DEV float ga_h2f(unsigned short h) {
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
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

// a minimal complex number with numpy's layout (re, im)
template <class T> struct ga_complex {
    T re, im;
    ga_complex() = default;
    __device__ __forceinline__ ga_complex(T r) : re(r), im(0) {}
    __device__ __forceinline__ ga_complex(T r, T i) : re(r), im(i) {}
    __device__ __forceinline__ T real() const { return re; }
    __device__ __forceinline__ T imag() const { return im; }
};
template <class T> GA_DEV ga_complex<T> operator+(ga_complex<T> a, ga_complex<T> b) {
    return ga_complex<T>(a.re + b.re, a.im + b.im);
}
template <class T> GA_DEV ga_complex<T> operator-(ga_complex<T> a, ga_complex<T> b) {
    return ga_complex<T>(a.re - b.re, a.im - b.im);
}
template <class T> GA_DEV ga_complex<T> operator-(ga_complex<T> a) {
    return ga_complex<T>(-a.re, -a.im);
}
template <class T> GA_DEV ga_complex<T> operator*(ga_complex<T> a, ga_complex<T> b) {
    return ga_complex<T>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
// Smith's algorithm, as numpy's complex division
template <class T> GA_DEV ga_complex<T> operator/(ga_complex<T> a, ga_complex<T> b) {
    T ar = b.re < 0 ? -b.re : b.re, ai = b.im < 0 ? -b.im : b.im;
    if (ar >= ai) {
        if (ar == 0 && ai == 0) {
            return ga_complex<T>(a.re / ar, a.im / ai);
        }
        T rat = b.im / b.re, scl = (T)1 / (b.re + b.im * rat);
        return ga_complex<T>((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    T rat = b.re / b.im, scl = (T)1 / (b.im + b.re * rat);
    return ga_complex<T>((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
template <class T> GA_DEV ga_complex<T> operator+(ga_complex<T> a, T b) { return a + ga_complex<T>(b); }
template <class T> GA_DEV ga_complex<T> operator+(T a, ga_complex<T> b) { return ga_complex<T>(a) + b; }
template <class T> GA_DEV ga_complex<T> operator-(ga_complex<T> a, T b) { return a - ga_complex<T>(b); }
template <class T> GA_DEV ga_complex<T> operator-(T a, ga_complex<T> b) { return ga_complex<T>(a) - b; }
template <class T> GA_DEV ga_complex<T> operator*(ga_complex<T> a, T b) { return ga_complex<T>(a.re * b, a.im * b); }
template <class T> GA_DEV ga_complex<T> operator*(T a, ga_complex<T> b) { return ga_complex<T>(a * b.re, a * b.im); }
template <class T> GA_DEV ga_complex<T> operator/(ga_complex<T> a, T b) { return ga_complex<T>(a.re / b, a.im / b); }
template <class T> GA_DEV ga_complex<T> operator/(T a, ga_complex<T> b) { return ga_complex<T>(a) / b; }
template <class T> GA_DEV bool operator==(ga_complex<T> a, ga_complex<T> b) { return a.re == b.re && a.im == b.im; }
template <class T> GA_DEV bool operator!=(ga_complex<T> a, ga_complex<T> b) { return !(a == b); }
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

// ---- complex elementary functions ----
// numpy's results: C99 Annex G branch cuts (Kahan's formulas for the
// inverse functions), numpy's own formulas for expm1, log1p, exp2, log2,
// log10 and power.  Everything is computed in double; complex64 rounds once
// at the end (ga_cto<float>), complex128 has a few ulp.
typedef ga_complex<double> ga_cd;
template <class T> GA_DEV ga_cd ga_c2d(ga_complex<T> a) { return ga_cd((double)a.re, (double)a.im); }
template <class R> GA_DEV ga_complex<R> ga_cto(ga_cd a) { return ga_complex<R>((R)a.re, (R)a.im); }
template <class T> GA_DEV bool ga_cisnan(ga_complex<T> a) { return a.re != a.re || a.im != a.im; }
// i * a and -i * a, exact (signed zeros kept)
GA_DEV ga_cd ga_times_i(ga_cd a) { return ga_cd(-a.im, a.re); }
GA_DEV ga_cd ga_times_mi(ga_cd a) { return ga_cd(a.im, -a.re); }
GA_DEV ga_cd ga_csinh(ga_cd z) {
    if (z.im == 0) return ga_cd(sinh(z.re), z.im);
    double s, c; sincos(z.im, &s, &c);
    return ga_cd(sinh(z.re) * c, cosh(z.re) * s);
}
GA_DEV ga_cd ga_ccosh(ga_cd z) {
    if (z.im == 0) return ga_cd(cosh(z.re), copysign(0.0, z.re) * z.im);
    double s, c; sincos(z.im, &s, &c);
    return ga_cd(cosh(z.re) * c, sinh(z.re) * s);
}
// FreeBSD's ctanh (Kahan): no overflow for large |Re z|
GA_DEV ga_cd ga_ctanh(ga_cd z) {
    const double x = z.re, y = z.im;
    if (x != x) return ga_cd(x, y == 0 ? y : x * y);
    if (isinf(x)) return ga_cd(copysign(1.0, x), copysign(0.0, isinf(y) ? y : sin(y) * cos(y)));
    if (!isfinite(y)) return ga_cd(x != 0 ? y - y : x, y - y);
    if (fabs(x) >= 22) {
        const double e = exp(-fabs(x));
        return ga_cd(copysign(1.0, x), 4 * sin(y) * cos(y) * e * e);
    }
    const double t = tan(y), b = 1 + t * t, sh = sinh(x), rho = sqrt(1 + sh * sh);
    const double d = 1 + b * sh * sh;
    return ga_cd(b * rho * sh / d, t / d);
}
GA_DEV ga_cd ga_csin(ga_cd z) { return ga_times_mi(ga_csinh(ga_times_i(z))); }
GA_DEV ga_cd ga_ccos(ga_cd z) { return ga_ccosh(ga_times_i(z)); }
GA_DEV ga_cd ga_ctan(ga_cd z) { return ga_times_mi(ga_ctanh(ga_times_i(z))); }
// Kahan, "Branch cuts for complex elementary functions" (1987)
GA_DEV ga_cd ga_casin(ga_cd z) {
    const ga_cd s1 = ga_sqrt(ga_cd(1 - z.re, -z.im));    // sqrt(1 - z)
    const ga_cd s2 = ga_sqrt(ga_cd(1 + z.re, z.im));     // sqrt(1 + z)
    return ga_cd(atan2(z.re, s1.re * s2.re - s1.im * s2.im),
                 asinh(s1.re * s2.im - s1.im * s2.re));
}
GA_DEV ga_cd ga_cacos(ga_cd z) {
    const ga_cd s1 = ga_sqrt(ga_cd(1 - z.re, -z.im));    // sqrt(1 - z)
    const ga_cd s2 = ga_sqrt(ga_cd(1 + z.re, z.im));     // sqrt(1 + z)
    return ga_cd(2 * atan2(s1.re, s2.re), asinh(s2.re * s1.im - s2.im * s1.re));
}
GA_DEV ga_cd ga_cacosh(ga_cd z) {
    const ga_cd s1 = ga_sqrt(ga_cd(z.re - 1, z.im));     // sqrt(z - 1)
    const ga_cd s2 = ga_sqrt(ga_cd(z.re + 1, z.im));     // sqrt(z + 1)
    return ga_cd(asinh(s1.re * s2.re + s1.im * s2.im), 2 * atan2(s1.im, s2.re));
}
GA_DEV ga_cd ga_casinh(ga_cd z) { return ga_times_mi(ga_casin(ga_times_i(z))); }
GA_DEV ga_cd ga_catanh(ga_cd z) {
    const double x = z.re, y = z.im, ax = fabs(x);
    const double re = copysign(0.25 * log1p(4 * ax / ((1 - ax) * (1 - ax) + y * y)), x);
    return ga_cd(re, 0.5 * atan2(2 * y, (1 - x) * (1 + x) - y * y));
}
GA_DEV ga_cd ga_catan(ga_cd z) { return ga_times_mi(ga_catanh(ga_times_i(z))); }
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
// numpy's nc_pow: 0 ** b, small integer powers by squaring, else exp(b log a)
GA_DEV ga_cd ga_cpow(ga_cd a, ga_cd b) {
    if (b.re == 0 && b.im == 0) return ga_cd(1, 0);
    if (a.re == 0 && a.im == 0) {
        if (b.re > 0) return ga_cd(0, 0);   // numpy 2: 0 ** b is 0 when Re(b) > 0
        const double nan = __longlong_as_double(0x7ff8000000000000LL);
        return ga_cd(nan, nan);
    }
    if (b.im == 0 && b.re == trunc(b.re) && fabs(b.re) < 100) {
        const int n = (int)b.re;
        if (n == 1) return a;
        if (n == 2) return a * a;
        if (n == 3) return a * (a * a);
        const int m = n < 0 ? -n : n;
        ga_cd r(1, 0), p = a;
        for (int mask = 1;; mask <<= 1) {
            if (m & mask) r = r * p;
            if (m < (mask << 1)) break;
            p = p * p;
        }
        return n < 0 ? ga_cd(1, 0) / r : r;
    }
    return ga_exp(b * ga_log(a));
}

// N values of T at an N * sizeof(T) aligned address: one vector access
template <class T, int N> struct __align__(sizeof(T) * N) ga_vec { T v[N]; };
// ---- end of gpuarr common definitions ----
</%def>
