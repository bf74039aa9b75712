"""gpuarr's layers: the one table of which module sits where (layer 0).

Imports point down: a module may import modules of its own layer or of a
lower one, never of a higher one, at module level or inside a function,
with an import statement or through ``importlib``.  No module imports
another module's private (underscored) name.  ``tests/test_layers.py``
checks every module of the package against this table, and
``docs/architecture.md`` explains it.

Within layer 5 the routine modules and the class import each other (the
class's methods hand work to them); they read each other's attributes only
when a function runs, so any of them may be imported first.
"""

#: layer number -> what the layer is for
LAYER_NAMES = {
    0: "pure Python: settings, dtypes, shape rules, errors, caches, templates",
    1: "the CUDA driver binding",
    2: "above the driver: per-context state, memory pools, autoinit",
    3: "run-time compilation",
    4: "kernel builders",
    5: "the array",
    6: "numpy-named APIs and the flat namespace",
}

#: module -> (layer, what it owns)
LAYERS = {
    "gpuarr._config": (0, "every GPUARR_* setting and CUDA_DEVICE, read once"),
    "gpuarr._dtypes": (0, "supported dtypes, their C types, numpy's promotion"),
    "gpuarr._layout": (0, "shape and stride arithmetic (broadcasting, reshape "
                          "views, dimension merging, index widths)"),
    "gpuarr._errors": (0, "the exception classes and the CUresult table"),
    "gpuarr._enums": (0, "the CUDA driver's enums, by PyCUDA's names"),
    "gpuarr._argtypes": (0, "parsing Function.prepare's argument types"),
    "gpuarr._cache": (0, "the on-disk cache of compiled images"),
    "gpuarr._philox": (0, "Philox4x32-10 on the host (keys, counters)"),
    "gpuarr._layers": (0, "this table"),
    "gpuarr._docpieces": (0, "docstring pieces shared by several functions"),
    "gpuarr._dispatch": (0, "the registry of numpy functions gpuarr "
                            "implements; binding by numpy's signature"),
    "gpuarr._headers": (0, "the headers shipped in gpuarr/include (complex "
                           "type, PyCUDA's, C headers for NVRTC)"),
    "gpuarr._image": (0, "kernel parameter counts read from a cubin or PTX "
                         "image"),
    "gpuarr._vectypes": (0, "CUDA's vector types (float3, ...) as numpy "
                            "dtypes: PyCUDA's gpuarray.vec"),
    "gpuarr._indexkey": (0, "numpy's indexing rules: basic or advanced keys, "
                            "where the index dimensions go"),
    "gpuarr.kernels": (0, "rendering the Mako templates"),
    "gpuarr.kernels.ops": (0, "the built-in elementwise operations' table"),
    "gpuarr.kernels.program": (0, "fused programs: built-in operations as "
                                  "steps of one kernel body"),
    "gpuarr._cuda": (1, "cuda.h's types and entry points, declared by hand "
                        "(Cython)"),
    "gpuarr._driver": (1, "libcuda loaded at run time, every handle, launch"),
    "gpuarr.driver": (1, "the public driver API (PyCUDA's names)"),
    "gpuarr._percontext": (2, "per-context state, dropped at detach"),
    "gpuarr._placement": (2, "which device an operation on arrays runs on: "
                             "the arrays' context pushed, two devices "
                             "refused"),
    "gpuarr.tools": (2, "memory pools; PyCUDA's tools names"),
    "gpuarr._pycudatools": (2, "PyCUDA's tools helpers: default context, "
                               "DeviceData, OccupancyRecord, C type names, "
                               "pytest helpers"),
    "gpuarr.autoinit": (2, "the primary context of CUDA_DEVICE, made current"),
    "gpuarr.autoprimaryctx": (2, "PyCUDA's other name for autoinit"),
    "gpuarr._nvrtc": (3, "finding and calling NVRTC"),
    "gpuarr._toolchain": (3, "choosing the compiler, running nvcc, compile "
                             "error reports"),
    "gpuarr.compiler": (3, "SourceModule, compile: NVRTC or nvcc, cached"),
    "gpuarr.characterize": (3, "PyCUDA's characterize: the device's "
                               "features, sizeof of a C type"),
    "gpuarr._curand": (3, "libcurand loaded at run time (direction vectors, "
                          "scramble constants, version); cuRAND's device "
                          "headers found for NVRTC"),
    "gpuarr._cublas": (3, "libcublas's entry points, opened with dlopen "
                          "(Cython)"),
    "gpuarr._blas": (3, "finding cuBLAS, a handle and workspaces per "
                        "context, GEMM, the TF32 switch"),
    "gpuarr._cusolver": (3, "libcusolver loaded with ctypes, a handle per "
                            "context, LU, Cholesky, QR, eigh, SVD calls"),
    "gpuarr._nccl": (3, "libnccl loaded with ctypes: communicators, "
                        "all-reduce, broadcast, groups"),
    "gpuarr._nvjitlink": (3, "finding and calling nvJitLink (linking on the "
                             "host)"),
    "gpuarr._dynamic": (3, "DynamicModule, DynamicSourceModule: relocatable "
                           "code linked with cuLink (and libcudadevrt)"),
    "gpuarr._kernelargs": (4, "user kernels' C arguments: parsing, checks, "
                              "packing (VectorArg, ScalarArg)"),
    "gpuarr._kernelspec": (4, "KernelSpec (one launch without a device) and "
                              "building a kernel"),
    "gpuarr._elementwise_plan": (4, "an elementwise launch's kernel path and "
                                    "parameters"),
    "gpuarr._reduction_plan": (4, "a reduction's dtypes, kernel path and "
                                  "parameters"),
    "gpuarr.elementwise": (4, "elementwise kernels, ElementwiseKernel"),
    "gpuarr.reduction": (4, "reduction kernels, ReductionKernel"),
    "gpuarr._indexkernels": (4, "advanced indexing kernels: mask counts and "
                                "selection, index offsets, gathers and "
                                "scatters"),
    "gpuarr.scan": (4, "scan kernels, Inclusive/ExclusiveScanKernel"),
    "gpuarr._curand_plan": (4, "cuRAND generator kernels: dtypes per "
                               "distribution, module source, per-context "
                               "builds"),
    "gpuarr._gatherkernels": (4, "the gather kernel of pad, repeat, tril "
                                 "and triu (per-axis source tables)"),
    "gpuarr._histkernels": (4, "histogram's one-pass kernel (edges and "
                               "counts in shared memory)"),
    "gpuarr._joinkernels": (4, "the joining kernel (many strided copies, "
                               "casting, in one launch) and take/put"),
    "gpuarr._sortkernels": (4, "sorting and searching kernels: radix sort "
                               "passes, one-block row sort, searchsorted, "
                               "unique's compaction and bitmap path"),
    "gpuarr._matmulkernels": (4, "the integer and bool matrix-product "
                                 "kernel"),
    "gpuarr._fusedkernels": (4, "launching fused programs through the "
                                "elementwise planner"),
    "gpuarr._array": (5, "the GPUArray class: attributes, views, operators"),
    "gpuarr._arraytypes": (5, "for type checkers only: GPUArray's slots and "
                              "generated methods"),
    "gpuarr._creation": (5, "new arrays: empty, zeros, to_gpu, asarray, ..."),
    "gpuarr._transfer": (5, "get/set, copy, astype, fill, assignment"),
    "gpuarr._ufunc": (5, "elementwise dispatch: promotion, broadcasting, "
                         "out=, the fast paths"),
    "gpuarr._indexing": (5, "__getitem__ and __setitem__"),
    "gpuarr._manipulation": (5, "reshape, transpose, broadcast_to, ... "
                                "as functions"),
    "gpuarr._interop": (5, "the CUDA Array Interface and DLPack"),
    "gpuarr._protocols": (5, "ufunc objects; __array_ufunc__ and "
                             "__array_function__"),
    "gpuarr._rearrange": (5, "tile, repeat, roll, diag, diagflat, tril, "
                             "triu, trace, meshgrid, indices"),
    "gpuarr._padding": (5, "pad and copyto"),
    "gpuarr._selection": (5, "numpy's nonzero, take, put, take_along_axis, "
                             "compress, place, choose ..."),
    "gpuarr._joining": (5, "concatenate, stack, hstack, ...; take, "
                           "multi_take, multi_put"),
    "gpuarr._sorting": (5, "sort, argsort, partition, argpartition, "
                           "searchsorted, unique, lexsort (the sort/argsort "
                           "methods too)"),
    "gpuarr._setops": (5, "isin, intersect1d, union1d, setdiff1d, "
                          "unique_values, unique_counts, unique_inverse, "
                          "unique_all"),
    "gpuarr._logic": (6, "isclose, allclose, array_equal, array_equiv, "
                         "isposinf, isneginf"),
    "gpuarr._mathfuncs": (6, "around (round), nan_to_num, diff, ediff1d, "
                             "cumulative_sum, cumulative_prod, trapezoid, "
                             "cross, sinc"),
    "gpuarr._interp": (6, "interp: numpy's loop as one kernel"),
    "gpuarr._convolve": (6, "correlate, convolve: direct sums, one kernel"),
    "gpuarr._bits": (6, "packbits, unpackbits"),
    "gpuarr._editing": (6, "append, delete, insert, resize, trim_zeros"),
    "gpuarr._layoutfuncs": (6, "ascontiguousarray, asfortranarray, "
                               "isfortran, shares_memory, may_share_memory"),
    "gpuarr._indexfuncs": (6, "broadcast_arrays, unravel_index, "
                              "ravel_multi_index, ix_, tri, the triangle and "
                              "diagonal indices, fill_diagonal, select, "
                              "putmask"),
    "gpuarr._histograms": (5, "bincount, digitize, histogram, "
                              "histogram_bin_edges"),
    "gpuarr._quantiles": (5, "quantile, percentile, median and their "
                             "NaN-ignoring forms"),
    "gpuarr._matmul": (5, "matmul and @, tensordot: cuBLAS or the "
                          "integer kernel, transposed views without copies"),
    "gpuarr._decomp": (5, "numpy.linalg's solvers and factorizations on "
                          "cuSOLVER"),
    "gpuarr._svdsolve": (5, "pinv, lstsq, matrix_rank (built on the SVD)"),
    "gpuarr._contract": (5, "einsum, outer, kron, multi_dot, matrix_power"),
    "gpuarr._nanstats": (5, "nanmean, nanvar, nanstd, nanprod, nanargmax, "
                            "nanargmin"),
    "gpuarr._fusiontrace": (5, "gpuarr.fuse's tracing: the stand-in "
                               "values and the steps they record"),
    "gpuarr._fusion": (5, "gpuarr.fuse: traces per signature, one kernel "
                          "per call"),
    "gpuarr._maskedreduce": (5, "the reductions' where= and initial= "
                                "(fused masked reductions)"),
    "gpuarr._covariance": (5, "average, cov, corrcoef"),
    "gpuarr._reducecore": (5, "the reductions' machinery: axes, numpy's "
                              "result dtypes, targets, empty inputs, the "
                              "cached full-reduction launch"),
    "gpuarr.reductions": (5, "numpy's reductions (the sum, max, ... methods): "
                             "sums, products, moments; exports the rest"),
    "gpuarr._extrema": (5, "max, min, nanmax, nanmin, ptp, argmax, argmin, "
                           "any, all"),
    "gpuarr._dots": (5, "dot, inner, vdot in one fused pass"),
    "gpuarr.cumulative": (5, "cumsum and cumprod (the methods too)"),
    "gpuarr._pyreduce": (5, "PyCUDA's gpuarray reductions by PyCUDA's "
                            "signatures; subset_sum, subset_dot, ..."),
    "gpuarr._pymethods": (5, "PyCUDA's GPUArray methods numpy lacks: "
                             "reverse, mul_add, bind_to_texref, splay"),
    "gpuarr.gpuarray": (5, "PyCUDA's gpuarray names, re-exported"),
    "gpuarr.cumath": (6, "numpy-named elementwise math (PyCUDA's cumath)"),
    "gpuarr.linalg": (6, "numpy.linalg names"),
    "gpuarr.random": (6, "Philox generator with numpy's Generator methods"),
    "gpuarr._curand_generators": (6, "PyCUDA's cuRAND generator classes"),
    "gpuarr._sobol_tables": (6, "cuRAND's Sobol direction vectors and "
                                "scramble constants, get_curand_version"),
    "gpuarr.curandom": (6, "PyCUDA's curandom names"),
    "gpuarr._dispatch_table": (6, "the numpy functions gpuarr implements, "
                                  "one line each"),
    "gpuarr._diagnostics": (6, "what gpuarr found: show_config, "
                               "python -m gpuarr"),
    "gpuarr.__main__": (6, "python -m gpuarr"),
    "gpuarr.nccl": (6, "NCCL's all-reduce and broadcast of GPUArrays "
                       "across devices"),
    "gpuarr.dask": (6, "Dask arrays with GPUArray chunks: registration, "
                       "context thread pools, the distributed preload"),
    "gpuarr": (6, "the flat namespace, imported on first use"),
}


def layer(module):
    """The layer number of ``module`` (a dotted name in :data:`LAYERS`).

    Raises
    ------
    KeyError
        For a module missing from the table.
    """
    return LAYERS[module][0]
