/* PyCUDA's <pycuda-helpers.hpp> for gpuarr.
 *
 * PyCUDA's helpers read double and complex values through texture
 * references, which CUDA 12 removed.  What remains meaningful is kept,
 * on texture and surface *objects*:
 *
 *   fp_tex_float, fp_tex_double (int2), fp_tex_cfloat (uint2),
 *   fp_tex_cdouble (int4): the element types to create the texture or
 *   surface with for float, double, complex<float>, complex<double>.
 *
 *   T fp_tex1Dfetch<T>(cudaTextureObject_t, int i)
 *   T fp_tex2D<T>(cudaTextureObject_t, float x, float y)
 *   T fp_tex2DLayered<T>(cudaTextureObject_t, float x, float y, int layer)
 *   T fp_tex3D<T>(cudaTextureObject_t, float x, float y, float z)
 *       a fetch of T (name it: fp_tex1Dfetch<double>(tex, i)), for T =
 *       double, pycuda::complex<float>, pycuda::complex<double> (stored as
 *       above) or a type textures hold directly (float, int, ...).
 *
 *   fp_surf2DLayeredwrite(T value, cudaSurfaceObject_t, int i, int j,
 *                         int layer, cudaSurfaceBoundaryMode mode)
 *   fp_surf2DLayeredread(T *value, cudaSurfaceObject_t, i, j, layer, mode)
 *   fp_surf3Dwrite(T value, cudaSurfaceObject_t, i, j, k, mode)
 *   fp_surf3Dread(T *value, cudaSurfaceObject_t, i, j, k, mode)
 *       i counts elements (the byte offset is computed), as in PyCUDA.
 *
 * PyCUDA's overloads on texture<...> references are not provided: there
 * are no texture references to name.
 */
#ifndef GPUARR_PYCUDA_HELPERS_HPP
#define GPUARR_PYCUDA_HELPERS_HPP
#include <pycuda-complex.hpp>
extern "C++" {
typedef float fp_tex_float;
typedef int2 fp_tex_double;
typedef uint2 fp_tex_cfloat;
typedef int4 fp_tex_cdouble;

namespace gpuarr {
namespace detail {
// how a value of T is stored in a texture or surface element
template <class T> struct fp_store {
    typedef T stored;
    static GA_DEV T get(const T &v) { return v; }
    static GA_DEV T put(const T &v) { return v; }
};
template <> struct fp_store<double> {
    typedef int2 stored;
    static GA_DEV double get(int2 v) { return __hiloint2double(v.y, v.x); }
    static GA_DEV int2 put(double d) { return make_int2(__double2loint(d), __double2hiint(d)); }
};
template <> struct fp_store<complex<float> > {
    typedef uint2 stored;
    static GA_DEV complex<float> get(uint2 v) {
        return complex<float>(__uint_as_float(v.x), __uint_as_float(v.y));
    }
    static GA_DEV uint2 put(complex<float> z) {
        return make_uint2(__float_as_uint(z.re), __float_as_uint(z.im));
    }
};
template <> struct fp_store<complex<double> > {
    typedef int4 stored;
    static GA_DEV complex<double> get(int4 v) {
        return complex<double>(__hiloint2double(v.y, v.x), __hiloint2double(v.w, v.z));
    }
    static GA_DEV int4 put(complex<double> z) {
        return make_int4(__double2loint(z.re), __double2hiint(z.re),
                         __double2loint(z.im), __double2hiint(z.im));
    }
};
}  // namespace detail
}  // namespace gpuarr

template <class T> GA_DEV T fp_tex1Dfetch(cudaTextureObject_t tex, int i) {
    typedef gpuarr::detail::fp_store<T> S;
    return S::get(tex1Dfetch<typename S::stored>(tex, i));
}
template <class T> GA_DEV T fp_tex2D(cudaTextureObject_t tex, float x, float y) {
    typedef gpuarr::detail::fp_store<T> S;
    return S::get(tex2D<typename S::stored>(tex, x, y));
}
template <class T> GA_DEV T fp_tex2DLayered(cudaTextureObject_t tex, float x, float y, int layer) {
    typedef gpuarr::detail::fp_store<T> S;
    return S::get(tex2DLayered<typename S::stored>(tex, x, y, layer));
}
template <class T> GA_DEV T fp_tex3D(cudaTextureObject_t tex, float x, float y, float z) {
    typedef gpuarr::detail::fp_store<T> S;
    return S::get(tex3D<typename S::stored>(tex, x, y, z));
}
template <class T>
GA_DEV void fp_surf2DLayeredwrite(T value, cudaSurfaceObject_t surf, int i, int j, int layer,
                                  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    typedef gpuarr::detail::fp_store<T> S;
    surf2DLayeredwrite(S::put(value), surf, (int)(i * sizeof(typename S::stored)), j, layer, mode);
}
template <class T>
GA_DEV void fp_surf2DLayeredread(T *value, cudaSurfaceObject_t surf, int i, int j, int layer,
                                 cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    typedef gpuarr::detail::fp_store<T> S;
    typename S::stored v;
    surf2DLayeredread(&v, surf, (int)(i * sizeof(typename S::stored)), j, layer, mode);
    *value = S::get(v);
}
template <class T>
GA_DEV void fp_surf3Dwrite(T value, cudaSurfaceObject_t surf, int i, int j, int k,
                           cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    typedef gpuarr::detail::fp_store<T> S;
    surf3Dwrite(S::put(value), surf, (int)(i * sizeof(typename S::stored)), j, k, mode);
}
template <class T>
GA_DEV void fp_surf3Dread(T *value, cudaSurfaceObject_t surf, int i, int j, int k,
                          cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    typedef gpuarr::detail::fp_store<T> S;
    typename S::stored v;
    surf3Dread(&v, surf, (int)(i * sizeof(typename S::stored)), j, k, mode);
    *value = S::get(v);
}
}  // extern "C++"
#endif
