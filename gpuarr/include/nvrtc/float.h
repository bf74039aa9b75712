/* <float.h> for NVRTC (gpuarr): CCCL's <cuda/std/cfloat> where libcu++ is on
 * the include path (newer CCCL defines these macros under NVRTC; CCCL 3.0,
 * CUDA 13.0's, includes <float.h> there instead, which is this file, so the
 * macros below are defined whenever it did not), else IEEE binary32 (float)
 * and binary64 (double); long double is not available in device code. */
#ifndef GPUARR_NVRTC_FLOAT_H
#define GPUARR_NVRTC_FLOAT_H
#if __has_include(<cuda/std/cfloat>)
/* C++ headers: safe inside SourceModule's extern "C" { } */
extern "C++" {
#include <cuda/std/cfloat>
}
#endif  /* libcu++ */
#ifndef FLT_MAX
#define FLT_RADIX 2
#define FLT_ROUNDS 1
#define FLT_EVAL_METHOD 0
#define DECIMAL_DIG 17
#define FLT_DECIMAL_DIG 9
#define DBL_DECIMAL_DIG 17
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define FLT_MAX 3.40282346638528859812e+38F
#define DBL_MAX 1.79769313486231570815e+308
#define FLT_EPSILON 1.19209289550781250000e-7F
#define DBL_EPSILON 2.22044604925031308085e-16
#define FLT_MIN 1.17549435082228750797e-38F
#define DBL_MIN 2.22507385850720138309e-308
#define FLT_TRUE_MIN 1.40129846432481707092e-45F
#define DBL_TRUE_MIN 4.94065645841246544177e-324
#define FLT_HAS_SUBNORM 1
#define DBL_HAS_SUBNORM 1
#endif  /* FLT_MAX */
#endif
