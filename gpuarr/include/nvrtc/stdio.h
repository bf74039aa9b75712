/* <stdio.h> for NVRTC (gpuarr).  Device code has printf only (its output
 * reaches the host's stdout at the next synchronizing call); the rest of
 * stdio is host-only and not declared. */
#ifndef GPUARR_NVRTC_STDIO_H
#define GPUARR_NVRTC_STDIO_H
#include <stddef.h>
extern "C" __device__ int printf(const char *format, ...);
#ifndef EOF
#define EOF (-1)
#endif
#endif
