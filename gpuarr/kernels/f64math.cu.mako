## float64 -2 ln(u) and sincospi(t) of our own for the Box-Muller normals
## and the exponentials (random.cu.mako, with f64_math "own"), their
## constants in constant memory: ptxas rebuilds every literal double
## constant with two UMOVs at each use inside a loop, while constant-bank
## ones it loads once before it (the library log and sincospi carry
## literals: 132 UMOVs for 121 DFMAs in the float64 normal kernel).
##
## One def, `functions(host)`.  host=False: device code.  host=True: the
## same arithmetic as plain C++ (each operation one IEEE operation, fma from
## <cmath>, the reciprocal seed a float division cut to 8 bits), which
## tests/test_f64math_cpu.py compiles with the host's compiler to measure the
## accuracy against long double on millions of inputs.
<%def name="functions(host=False)">\
<%
    from gpuarr import _philox as P
    def d(v):
        return float(v).hex()
    LOG_C, SIN_C, COS_C = P.NEG2LOG_F64_C, P.SINPI_F64_C, P.COSPI_F64_C
%>\
% if host:
#include <cmath>
#include <cstring>
#define GA_F64_CONST static const
#define GA_F64_FN static inline
GA_F64_FN double ga_f64_mul(double a, double b) { return a * b; }
GA_F64_FN double ga_f64_add(double a, double b) { return a + b; }
GA_F64_FN double ga_f64_fma(double a, double b, double c) { return std::fma(a, b, c); }
GA_F64_FN long long ga_f64_bits(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
GA_F64_FN double ga_f64_from_bits(long long i) { double x; std::memcpy(&x, &i, 8); return x; }
// a seed no better than the device's rcp.approx (MUFU.RCP64H): the float
// reciprocal cut to 8 bits, a relative error up to 2^-8
GA_F64_FN double ga_f64_rcp_seed(double x)
{
    float r = 1.0f / (float)x;
    unsigned int b;
    std::memcpy(&b, &r, 4);
    b &= 0xffff8000u;
    std::memcpy(&r, &b, 4);
    return (double)r;
}
GA_F64_FN double ga_f64_rint(double x) { return std::nearbyint(x); }
% else:
#define GA_F64_CONST __constant__
#define GA_F64_FN __device__ __forceinline__
GA_F64_FN double ga_f64_mul(double a, double b) { return __dmul_rn(a, b); }
GA_F64_FN double ga_f64_add(double a, double b) { return __dadd_rn(a, b); }
GA_F64_FN double ga_f64_fma(double a, double b, double c) { return __fma_rn(a, b, c); }
GA_F64_FN long long ga_f64_bits(double x) { return __double_as_longlong(x); }
GA_F64_FN double ga_f64_from_bits(long long i) { return __longlong_as_double(i); }
// MUFU.RCP64H, from the high word of x: refined below by two cubic steps,
// enough for any seed within 2^-7 (the host build's seed is cut to 2^-8)
GA_F64_FN double ga_f64_rcp_seed(double x)
{
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    return r;
}
GA_F64_FN double ga_f64_rint(double x) { return rint(x); }
% endif

// 2/3, 2/5, ..., 2/21; then ln 2 as hi (42 bits) + lo
GA_F64_CONST double ga_f64_log_c[${len(LOG_C) + 2}] = {
% for c in LOG_C:
    ${d(c)},
% endfor
    ${d(P.LN2_HI_F64)}, ${d(P.LN2_LO_F64)}};
// sin(pi x) = pi x + x z S(z), cos(pi x) = 1 + z C(z): S's, then C's
// Taylor coefficients, then pi as hi + lo
GA_F64_CONST double ga_f64_trig_c[${len(SIN_C) + len(COS_C) + 2}] = {
% for c in SIN_C + COS_C:
    ${d(c)},
% endfor
    ${d(P.PI_HI_F64)}, ${d(P.PI_LO_F64)}};

// -2 ln(u) for u in [2^-53, 1] (positive and normal: no special cases).
// u = 2^k m with m in [sqrt(1/2), sqrt(2)) from the bits, f = m - 1
// (exact), s = f / (2 + f) from a refined reciprocal, z = s^2:
// ln m = f - (f^2/2 - s (f^2/2 + R)), R = z (2/3 + 2z/5 + ...) (2 atanh s
// regrouped so that the large terms are exact or nearly), plus k ln 2.
// |s| <= 0.1716, so the series' tail past ten terms is below 2^-58 of ln m.
GA_F64_FN double ga_neg2log_f64(double u)
{
    const long long i = ga_f64_bits(u);
    const unsigned long long kb =
        (unsigned long long)(i - 0x3fe6a09e667f3bcdll) & 0xfff0000000000000ull;
    const double m = ga_f64_from_bits(i - (long long)kb);
    const double k = (double)((long long)kb >> 52);
    const double f = ga_f64_add(m, -1.0);
    const double hfsq = ga_f64_mul(ga_f64_mul(0.5, f), f);
    const double den = ga_f64_add(2.0, f);
    // r (1 + e + e^2) with e = 1 - den r: the relative error goes from e
    // to e^3, so 2^-7 becomes 2^-63 in two steps
    double r = ga_f64_rcp_seed(den);
    double e = ga_f64_fma(-den, r, 1.0);
    r = ga_f64_fma(r, ga_f64_fma(e, e, e), r);
    e = ga_f64_fma(-den, r, 1.0);
    r = ga_f64_fma(r, ga_f64_fma(e, e, e), r);
    const double s = ga_f64_mul(f, r);
    const double z = ga_f64_mul(s, s);
    double p = ga_f64_log_c[${len(LOG_C) - 1}];
% for j in range(len(LOG_C) - 2, -1, -1):
    p = ga_f64_fma(p, z, ga_f64_log_c[${j}]);
% endfor
    const double big_r = ga_f64_mul(z, p);
    const double t1 = ga_f64_fma(s, ga_f64_add(hfsq, big_r),
                                 ga_f64_mul(k, ga_f64_log_c[${len(LOG_C) + 1}]));
    const double t2 = ga_f64_add(ga_f64_add(hfsq, -t1), -f);
    // ln u = k ln2_hi - t2, one rounding; times -2, exact
    return ga_f64_mul(-2.0, ga_f64_fma(k, ga_f64_log_c[${len(LOG_C)}], -t2));
}

// (sin(pi t), cos(pi t)) for t in [0, 2]: q = rint(2t), x = t - q/2 in
// [-1/4, 1/4] (exact), then the two series in z = x^2 (their tails past
// eight terms below 2^-57), pi x carried as hi + lo, and q mod 4 picks
// the signs and the swap.
GA_F64_FN void ga_sincospi_f64(double t, double *sp, double *cp)
{
    const double q = ga_f64_rint(ga_f64_mul(t, 2.0));
    const double x = ga_f64_fma(q, -0.5, t);
    const double z = ga_f64_mul(x, x);
    double ps = ga_f64_trig_c[${len(SIN_C) - 1}];
% for j in range(len(SIN_C) - 2, -1, -1):
    ps = ga_f64_fma(ps, z, ga_f64_trig_c[${j}]);
% endfor
    double pc = ga_f64_trig_c[${len(SIN_C) + len(COS_C) - 1}];
% for j in range(len(SIN_C) + len(COS_C) - 2, len(SIN_C) - 1, -1):
    pc = ga_f64_fma(pc, z, ga_f64_trig_c[${j}]);
% endfor
    const double pi_hi = ga_f64_trig_c[${len(SIN_C) + len(COS_C)}];
    const double pi_lo = ga_f64_trig_c[${len(SIN_C) + len(COS_C) + 1}];
    const double ph = ga_f64_mul(x, pi_hi);
    const double pl = ga_f64_fma(x, pi_lo, ga_f64_fma(x, pi_hi, -ph));
    const double sn = ga_f64_add(ph, ga_f64_fma(x, ga_f64_mul(z, ps), pl));
    const double cs = ga_f64_fma(z, pc, 1.0);
    const int qi = (int)q & 3;
    *sp = qi == 0 ? sn : qi == 1 ? cs : qi == 2 ? -sn : -cs;
    *cp = qi == 0 ? cs : qi == 1 ? -sn : qi == 2 ? -cs : sn;
}
</%def>\
