/* <gpuarr-helpers.hpp>: PyCUDA's <pycuda-helpers.hpp> under gpuarr's name,
 * for ports made by replacing "pycuda" with "gpuarr" everywhere. */
#include <pycuda-helpers.hpp>
