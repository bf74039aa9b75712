/* gpuarr's complex number type and its math, for device code.
 *
 * gpuarr::complex<T> (T = float or double) has numpy's layout: the real
 * part, then the imaginary part, no padding; complex64 and complex128
 * arrays are arrays of complex<float> and complex<double>.  gpuarr's
 * generated kernels (ElementwiseKernel, ReductionKernel, ...) carry this
 * file's text, so the type is there without an #include; user kernels get
 * it with #include <gpuarr/complex.hpp> or #include <pycuda-complex.hpp>
 * (which also names it pycuda::complex).  Spellings: gpuarr::complex<T>,
 * pycuda::complex<T>, ga_complex<T> (one type).
 *
 * Members: re and im (also under PyCUDA's names _M_re and _M_im), real(),
 * imag(), real(x), imag(x), value_type, and the compound assignments.
 * complex<float> converts to complex<double> implicitly; the other way
 * takes an explicit conversion, or an assignment.
 * The default constructor leaves the value uninitialized, as for float
 * (so that __shared__ arrays of complex are allowed); complex<T>() and
 * complex<T>(0) are zero.
 *
 * Functions (found by argument-dependent lookup, so plain exp(z) works):
 * real imag abs arg norm conj proj polar exp log log10 sqrt sin cos tan
 * sinh cosh tanh asin acos atan asinh acosh atanh pow (complex^complex,
 * complex^real, real^complex).  Results follow numpy's (C99 Annex G branch
 * cuts); they are computed in double precision, so complex<float> results
 * are correctly rounded from a double result, complex<double> ones within
 * a few ulp.  Arithmetic takes real operands of any arithmetic type (a
 * real operand converts to T: z * 2.0 is a complex<float> for a
 * complex<float> z); complex<float> with complex<double> gives
 * complex<double>.
 */
#ifndef GPUARR_COMPLEX_HPP
#define GPUARR_COMPLEX_HPP

#ifndef GA_DEV
#define GA_DEV __device__ __forceinline__
#endif

extern "C++" {

namespace gpuarr {

namespace detail {
template <class T> struct same { typedef T type; };
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
}  // namespace detail

template <class T> struct complex {
    typedef T value_type;
    union { T re; T _M_re; };
    union { T im; T _M_im; };

    complex() = default;
    GA_DEV complex(T r) : re(r), im(0) {}
    GA_DEV complex(T r, T i) : re(r), im(i) {}
    // widening (complex<float> -> complex<double>) is implicit,
    // narrowing explicit, as in PyCUDA and std::complex
    template <class U, typename detail::enable_if<(sizeof(U) <= sizeof(T)), int>::type = 0>
    GA_DEV complex(const complex<U> &z) : re((T)z.re), im((T)z.im) {}
    template <class U, typename detail::enable_if<(sizeof(U) > sizeof(T)), int>::type = 0>
    GA_DEV explicit complex(const complex<U> &z) : re((T)z.re), im((T)z.im) {}

    GA_DEV T real() const { return re; }
    GA_DEV T imag() const { return im; }
    GA_DEV void real(T x) { re = x; }
    GA_DEV void imag(T x) { im = x; }

    GA_DEV complex &operator=(T x) { re = x; im = 0; return *this; }
    // assigning another width converts, as in PyCUDA and std::complex (a
    // template, so the type stays trivially copyable)
    template <class U> GA_DEV complex &operator=(const complex<U> &z) {
        re = (T)z.re; im = (T)z.im; return *this;
    }
    GA_DEV complex &operator+=(T x) { re += x; return *this; }
    GA_DEV complex &operator-=(T x) { re -= x; return *this; }
    GA_DEV complex &operator*=(T x) { re *= x; im *= x; return *this; }
    GA_DEV complex &operator/=(T x) { re /= x; im /= x; return *this; }
    template <class U> GA_DEV complex &operator+=(const complex<U> &z) {
        re += (T)z.re; im += (T)z.im; return *this;
    }
    template <class U> GA_DEV complex &operator-=(const complex<U> &z) {
        re -= (T)z.re; im -= (T)z.im; return *this;
    }
    template <class U> GA_DEV complex &operator*=(const complex<U> &z);
    template <class U> GA_DEV complex &operator/=(const complex<U> &z);
};

// ---- arithmetic ----
template <class T> GA_DEV complex<T> operator+(const complex<T> &a) { return a; }
template <class T> GA_DEV complex<T> operator-(const complex<T> &a) { return complex<T>(-a.re, -a.im); }
template <class T> GA_DEV complex<T> operator+(const complex<T> &a, const complex<T> &b) {
    return complex<T>(a.re + b.re, a.im + b.im);
}
template <class T> GA_DEV complex<T> operator-(const complex<T> &a, const complex<T> &b) {
    return complex<T>(a.re - b.re, a.im - b.im);
}
template <class T> GA_DEV complex<T> operator*(const complex<T> &a, const complex<T> &b) {
    return complex<T>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
// a / b by Smith's method (R. L. Smith, "Algorithm 116: Complex
// division", CACM 5(8), 1962): with b = c + id and |c| >= |d|,
//   a / b = (a * (1 - i r)) / (c + d r),   r = d / c,
// which forms no product of two of the parts of b, so it neither overflows
// nor underflows where the quotient itself is representable.  For
// |d| > |c| divide -i a by -i b = d - ic instead (the same quotient, with
// the larger part of the divisor first).  b == 0 divides each part of a by
// +0, as numpy does: an infinity of that part's sign, NaN for a zero part.
template <class T> GA_DEV complex<T> operator/(const complex<T> &a, const complex<T> &b) {
    const T mag_re = b.re < 0 ? -b.re : b.re, mag_im = b.im < 0 ? -b.im : b.im;
    if (mag_re == 0 && mag_im == 0) return complex<T>(a.re / mag_re, a.im / mag_im);
    // num / (big + i small) with |big| >= |small|; a NaN part lands in the
    // second case and makes the result NaN
    const bool turn = !(mag_re >= mag_im);
    const T big = turn ? b.im : b.re, small = turn ? -b.re : b.im;
    const T num_re = turn ? a.im : a.re, num_im = turn ? -a.re : a.im;
    const T r = small / big, den = big + small * r;
    return complex<T>((num_re + num_im * r) / den, (num_im - num_re * r) / den);
}
template <class T> template <class U>
GA_DEV complex<T> &complex<T>::operator*=(const complex<U> &z) { return *this = *this * complex<T>(z); }
template <class T> template <class U>
GA_DEV complex<T> &complex<T>::operator/=(const complex<U> &z) { return *this = *this / complex<T>(z); }

// a real operand of any arithmetic type converts to T
template <class T> GA_DEV complex<T> operator+(const complex<T> &a, typename detail::same<T>::type b) {
    return complex<T>(a.re + b, a.im);
}
template <class T> GA_DEV complex<T> operator+(typename detail::same<T>::type a, const complex<T> &b) {
    return complex<T>(a + b.re, b.im);
}
template <class T> GA_DEV complex<T> operator-(const complex<T> &a, typename detail::same<T>::type b) {
    return complex<T>(a.re - b, a.im);
}
template <class T> GA_DEV complex<T> operator-(typename detail::same<T>::type a, const complex<T> &b) {
    return complex<T>(a - b.re, -b.im);
}
template <class T> GA_DEV complex<T> operator*(const complex<T> &a, typename detail::same<T>::type b) {
    return complex<T>(a.re * b, a.im * b);
}
template <class T> GA_DEV complex<T> operator*(typename detail::same<T>::type a, const complex<T> &b) {
    return complex<T>(a * b.re, a * b.im);
}
template <class T> GA_DEV complex<T> operator/(const complex<T> &a, typename detail::same<T>::type b) {
    return complex<T>(a.re / b, a.im / b);
}
template <class T> GA_DEV complex<T> operator/(typename detail::same<T>::type a, const complex<T> &b) {
    return complex<T>(a) / b;
}

// complex<float> with complex<double>: complex<double>, as numpy
#define GPUARR_MIXED_(OP)                                                              \
    GA_DEV complex<double> operator OP(const complex<float> &a, const complex<double> &b) { \
        return complex<double>(a) OP b;                                                \
    }                                                                                  \
    GA_DEV complex<double> operator OP(const complex<double> &a, const complex<float> &b) { \
        return a OP complex<double>(b);                                                \
    }
GPUARR_MIXED_(+)
GPUARR_MIXED_(-)
GPUARR_MIXED_(*)
GPUARR_MIXED_(/)
#undef GPUARR_MIXED_

// ---- comparisons ----
template <class T> GA_DEV bool operator==(const complex<T> &a, const complex<T> &b) {
    return a.re == b.re && a.im == b.im;
}
template <class T> GA_DEV bool operator!=(const complex<T> &a, const complex<T> &b) { return !(a == b); }
template <class T> GA_DEV bool operator==(const complex<T> &a, typename detail::same<T>::type b) {
    return a.re == b && a.im == 0;
}
template <class T> GA_DEV bool operator==(typename detail::same<T>::type a, const complex<T> &b) {
    return a == b.re && b.im == 0;
}
template <class T> GA_DEV bool operator!=(const complex<T> &a, typename detail::same<T>::type b) { return !(a == b); }
template <class T> GA_DEV bool operator!=(typename detail::same<T>::type a, const complex<T> &b) { return !(a == b); }
GA_DEV bool operator==(const complex<float> &a, const complex<double> &b) { return complex<double>(a) == b; }
GA_DEV bool operator==(const complex<double> &a, const complex<float> &b) { return a == complex<double>(b); }
GA_DEV bool operator!=(const complex<float> &a, const complex<double> &b) { return !(a == b); }
GA_DEV bool operator!=(const complex<double> &a, const complex<float> &b) { return !(a == b); }

// ---- the double-precision kernels of the functions ----
namespace detail {
typedef complex<double> cd;
GA_DEV double qnan() { return __longlong_as_double(0x7ff8000000000000LL); }
GA_DEV double inf() { return __longlong_as_double(0x7ff0000000000000LL); }
// i * z and -i * z, exact (signed zeros kept)
GA_DEV cd times_i(cd z) { return cd(-z.im, z.re); }
GA_DEV cd times_mi(cd z) { return cd(z.im, -z.re); }
GA_DEV cd cexp(cd z) {
    const double e = ::exp(z.re);
    if (z.im == 0) return cd(e, z.im);
    double s, c;
    ::sincos(z.im, &s, &c);
    return cd(e * c, e * s);
}
GA_DEV cd clog(cd z) { return cd(::log(::hypot(z.re, z.im)), ::atan2(z.im, z.re)); }
GA_DEV cd csqrt(cd z) {
    if (z.re == 0 && z.im == 0) return cd(0, z.im);
    if (::isinf(z.im)) return cd(inf(), z.im);
    const double t = ::sqrt((::fabs(z.re) + ::hypot(z.re, z.im)) * 0.5);
    if (z.re >= 0) return cd(t, z.im / (2 * t));
    return cd(::fabs(z.im) / (2 * t), ::copysign(t, z.im));
}
GA_DEV cd csinh(cd z) {
    if (z.im == 0) return cd(::sinh(z.re), z.im);
    double s, c;
    ::sincos(z.im, &s, &c);
    return cd(::sinh(z.re) * c, ::cosh(z.re) * s);
}
GA_DEV cd ccosh(cd z) {
    if (z.im == 0) return cd(::cosh(z.re), ::copysign(0.0, z.re) * z.im);
    double s, c;
    ::sincos(z.im, &s, &c);
    return cd(::cosh(z.re) * c, ::sinh(z.re) * s);
}
// tanh(x + iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y).  In that form
// cosh 2x overflows for |x| > 355 although the quotient is near +-1, so:
// * |x| >= 22: tanh x rounds to +-1 in double, and the imaginary part is
//   sin 2y / (cosh 2x + cos 2y) = 2 sin 2y e^(-2|x|) to far below an ulp;
// * otherwise, with t = tan y, s = sinh x, beta = 1 + t^2 = 1 / cos^2 y and
//   rho = sqrt(1 + s^2) = cosh x, dividing top and bottom by 2 cos^2 y gives
//   tanh(x + iy) = (beta rho s + i t) / (1 + beta s^2)
//   (W. Kahan, "Branch cuts for complex elementary functions", 1987),
//   whose terms stay finite for |x| < 22.
// Special values as C99 Annex G: NaN x keeps a zero y; an infinite or NaN
// y gives NaN (with a zero x kept); infinite x gives +-1 and a zero of the
// sign of sin 2y (of y when y is infinite).
GA_DEV cd ctanh(cd z) {
    const double x = z.re, y = z.im, qn = qnan();
    if (::isnan(x)) return cd(x, y == 0 ? y : x);
    const double one = ::copysign(1.0, x);
    if (::isinf(x)) {
        if (::isinf(y)) return cd(one, ::copysign(0.0, y));
        double s, c;
        ::sincos(y, &s, &c);
        return cd(one, ::copysign(0.0, s * c));
    }
    if (!::isfinite(y)) return cd(x == 0 ? x : qn, qn);
    if (::fabs(x) >= 22) {
        double s, c;
        ::sincos(y, &s, &c);          // sin 2y = 2 s c, without overflow of 2y
        return cd(one, 4 * s * c * ::exp(-2 * ::fabs(x)));
    }
    const double t = ::tan(y), sh = ::sinh(x);
    const double beta = 1 + t * t, rho = ::sqrt(1 + sh * sh);
    const double den = 1 + beta * sh * sh;
    return cd(beta * rho * sh / den, t / den);
}
GA_DEV cd csin(cd z) { return times_mi(csinh(times_i(z))); }
GA_DEV cd ccos(cd z) { return ccosh(times_i(z)); }
GA_DEV cd ctan(cd z) { return times_mi(ctanh(times_i(z))); }
// Kahan, "Branch cuts for complex elementary functions" (1987)
GA_DEV cd casin(cd z) {
    const cd s1 = csqrt(cd(1 - z.re, -z.im));   // sqrt(1 - z)
    const cd s2 = csqrt(cd(1 + z.re, z.im));    // sqrt(1 + z)
    return cd(::atan2(z.re, s1.re * s2.re - s1.im * s2.im), ::asinh(s1.re * s2.im - s1.im * s2.re));
}
GA_DEV cd cacos(cd z) {
    const cd s1 = csqrt(cd(1 - z.re, -z.im));   // sqrt(1 - z)
    const cd s2 = csqrt(cd(1 + z.re, z.im));    // sqrt(1 + z)
    return cd(2 * ::atan2(s1.re, s2.re), ::asinh(s2.re * s1.im - s2.im * s1.re));
}
GA_DEV cd cacosh(cd z) {
    const cd s1 = csqrt(cd(z.re - 1, z.im));    // sqrt(z - 1)
    const cd s2 = csqrt(cd(z.re + 1, z.im));    // sqrt(z + 1)
    return cd(::asinh(s1.re * s2.re + s1.im * s2.im), 2 * ::atan2(s1.im, s2.re));
}
GA_DEV cd casinh(cd z) { return times_mi(casin(times_i(z))); }
GA_DEV cd catanh(cd z) {
    const double x = z.re, y = z.im, ax = ::fabs(x);
    const double re = ::copysign(0.25 * ::log1p(4 * ax / ((1 - ax) * (1 - ax) + y * y)), x);
    return cd(re, 0.5 * ::atan2(2 * y, (1 - x) * (1 + x) - y * y));
}
GA_DEV cd catan(cd z) { return times_mi(catanh(times_i(z))); }
// numpy's nc_pow: b == 0 gives 1, 0 ** b is 0 for Re b > 0 (else NaN),
// small integer powers by repeated multiplication, else exp(b log a)
GA_DEV cd cpow(cd a, cd b) {
    if (b.re == 0 && b.im == 0) return cd(1, 0);
    if (a.re == 0 && a.im == 0) {
        if (b.re > 0) return cd(0, 0);
        return cd(qnan(), qnan());
    }
    if (b.im == 0 && b.re == ::trunc(b.re) && ::fabs(b.re) < 100) {
        const int n = (int)b.re;
        if (n == 1) return a;
        if (n == 2) return a * a;
        if (n == 3) return a * (a * a);
        const int m = n < 0 ? -n : n;
        cd r(1, 0), p = a;
        for (int mask = 1;; mask <<= 1) {
            if (m & mask) r = r * p;
            if (m < (mask << 1)) break;
            p = p * p;
        }
        return n < 0 ? cd(1, 0) / r : r;
    }
    return cexp(b * clog(a));
}
template <class T> GA_DEV cd widen(const complex<T> &z) { return cd((double)z.re, (double)z.im); }
template <class T> GA_DEV complex<T> narrow(cd z) { return complex<T>((T)z.re, (T)z.im); }
}  // namespace detail

// ---- the functions: std::complex's names, numpy's results ----
template <class T> GA_DEV T real(const complex<T> &z) { return z.re; }
template <class T> GA_DEV T imag(const complex<T> &z) { return z.im; }
template <class T> GA_DEV T abs(const complex<T> &z) { return (T)::hypot((double)z.re, (double)z.im); }
template <class T> GA_DEV T arg(const complex<T> &z) { return (T)::atan2((double)z.im, (double)z.re); }
template <class T> GA_DEV T norm(const complex<T> &z) { return z.re * z.re + z.im * z.im; }
template <class T> GA_DEV complex<T> conj(const complex<T> &z) { return complex<T>(z.re, -z.im); }
// C99's cproj: every infinity goes to (+inf, +-0)
template <class T> GA_DEV complex<T> proj(const complex<T> &z) {
    if (::isinf(z.re) || ::isinf(z.im)) return complex<T>((T)detail::inf(), ::copysign((T)0, z.im));
    return z;
}
template <class T> GA_DEV complex<T> polar(const T &rho, typename detail::same<T>::type theta = 0) {
    double s, c;
    ::sincos((double)theta, &s, &c);
    return complex<T>((T)(rho * c), (T)(rho * s));
}
#define GPUARR_CFUNC_(NAME, KERNEL)                                                   \
    template <class T> GA_DEV complex<T> NAME(const complex<T> &z) {               \
        return detail::narrow<T>(detail::KERNEL(detail::widen(z)));                \
    }
GPUARR_CFUNC_(exp, cexp)
GPUARR_CFUNC_(log, clog)
GPUARR_CFUNC_(sqrt, csqrt)
GPUARR_CFUNC_(sin, csin)
GPUARR_CFUNC_(cos, ccos)
GPUARR_CFUNC_(tan, ctan)
GPUARR_CFUNC_(sinh, csinh)
GPUARR_CFUNC_(cosh, ccosh)
GPUARR_CFUNC_(tanh, ctanh)
GPUARR_CFUNC_(asin, casin)
GPUARR_CFUNC_(acos, cacos)
GPUARR_CFUNC_(atan, catan)
GPUARR_CFUNC_(asinh, casinh)
GPUARR_CFUNC_(acosh, cacosh)
GPUARR_CFUNC_(atanh, catanh)
#undef GPUARR_CFUNC_
template <class T> GA_DEV complex<T> log10(const complex<T> &z) {
    const detail::cd l = detail::clog(detail::widen(z));
    return complex<T>((T)(l.re * 0.43429448190325182), (T)(l.im * 0.43429448190325182));
}
template <class T> GA_DEV complex<T> pow(const complex<T> &a, const complex<T> &b) {
    return detail::narrow<T>(detail::cpow(detail::widen(a), detail::widen(b)));
}
template <class T> GA_DEV complex<T> pow(const complex<T> &a, typename detail::same<T>::type b) {
    return detail::narrow<T>(detail::cpow(detail::widen(a), detail::cd((double)b, 0)));
}
template <class T> GA_DEV complex<T> pow(typename detail::same<T>::type a, const complex<T> &b) {
    return detail::narrow<T>(detail::cpow(detail::cd((double)a, 0), detail::widen(b)));
}
GA_DEV complex<double> pow(const complex<float> &a, const complex<double> &b) { return pow(complex<double>(a), b); }
GA_DEV complex<double> pow(const complex<double> &a, const complex<float> &b) { return pow(a, complex<double>(b)); }
}  // namespace gpuarr

// gpuarr's generated kernels spell the type ga_complex<T>
template <class T> using ga_complex = gpuarr::complex<T>;
}  // extern "C++"

#endif  // GPUARR_COMPLEX_HPP
