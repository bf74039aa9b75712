/* PyCUDA's <pycuda-complex.hpp> for gpuarr: pycuda::complex<T> is
 * gpuarr::complex<T> (gpuarr/complex.hpp), the type of gpuarr's
 * complex64/complex128 arrays in every kernel, with std::complex's
 * functions.  PyCUDA's member names _M_re and _M_im are there too. */
#ifndef GPUARR_PYCUDA_COMPLEX_HPP
#define GPUARR_PYCUDA_COMPLEX_HPP
#include <gpuarr/complex.hpp>
extern "C++" {
namespace pycuda {
using gpuarr::complex;
using gpuarr::real;
using gpuarr::imag;
using gpuarr::abs;
using gpuarr::arg;
using gpuarr::norm;
using gpuarr::conj;
using gpuarr::proj;
using gpuarr::polar;
using gpuarr::exp;
using gpuarr::log;
using gpuarr::log10;
using gpuarr::sqrt;
using gpuarr::pow;
using gpuarr::sin;
using gpuarr::cos;
using gpuarr::tan;
using gpuarr::sinh;
using gpuarr::cosh;
using gpuarr::tanh;
using gpuarr::asin;
using gpuarr::acos;
using gpuarr::atan;
using gpuarr::asinh;
using gpuarr::acosh;
using gpuarr::atanh;
}  // namespace pycuda
}  // extern "C++"
#endif
