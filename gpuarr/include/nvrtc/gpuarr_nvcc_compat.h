/* Pre-included by gpuarr under NVRTC (-include gpuarr_nvcc_compat.h): the
 * typedefs nvcc's host headers (glibc's <sys/types.h>, which nvcc's
 * cuda_runtime.h brings in) give every nvcc kernel without an #include. */
#ifndef GPUARR_NVCC_COMPAT_H
#define GPUARR_NVCC_COMPAT_H
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
#endif
