/* <assert.h> for NVRTC (gpuarr).  assert() is NVRTC's own (a failed one
 * stops the kernel and makes the context unusable); with NDEBUG defined it
 * does nothing, as in C. */
#ifdef NDEBUG
#undef assert
#define assert(e) ((void)0)
#endif
