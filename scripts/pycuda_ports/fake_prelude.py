# CPU dry run only (dryrun_fake.sh): the fake libcuda of tests/fake_cuda loads
# PTX but not cubins, so every SourceModule is compiled to PTX here. Kernels
# do not run on the fake: results are garbage, only the API path is exercised.
import gpuarr.compiler as _c

_orig_build = _c._build


def _ptx_build(source, nvcc, options, keep, no_extern_c, arch, code, cache_dir,
               include_dirs, target, backend, max_major=None, fallback_ptx=False):
    return _orig_build(source, nvcc, options, keep, no_extern_c, arch, code,
                       cache_dir, include_dirs, "ptx", backend, max_major, False)


_c._build = _ptx_build
