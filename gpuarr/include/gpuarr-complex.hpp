/* <gpuarr-complex.hpp>: PyCUDA's <pycuda-complex.hpp> under gpuarr's name,
 * so that a port made by replacing "pycuda" with "gpuarr" everywhere, kernel
 * sources included, still compiles.  It gives gpuarr::complex<T> (and
 * pycuda::complex<T>, the same type). */
#include <pycuda-complex.hpp>
