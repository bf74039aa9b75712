"""Which PyCUDA names and kernel-source features the fetched examples use, and
whether gpuarr has them. Needs no GPU: modules are imported, names looked up
with getattr, kernel snippets compiled with NVRTC for sm_90.

Run from the repository root:
    PYTHONPATH=$PWD python3 scripts/pycuda_ports/check_gaps.py > /tmp/gaps_table.md

The table of uses below was written by reading each example in orig/; it is
the input, this script only checks it against the tree it runs in.
"""

import ast
import importlib
import inspect
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# examples whose stored upstream text is Python 2 (print statements, tuple
# parameters): they fail with SyntaxError under python3 whatever gpuarr does
PY2 = {"demo_complex", "select-to-list", "matrix-transpose", "transpose",
       "multiple_threads", "rotate", "sparse-solve"}

# ---------------------------------------------------------------------------
# uses per example. Kinds of entry:
#   "mod.a.b"            getattr chain from gpuarr.mod (classes: methods too)
#   "sig:mod.f(param)"   f accepts a parameter of that name (or **kwargs)
#   "src:mod.name"       module mod binds name at top level (mod not imported:
#                        autoinit needs a GPU)
#   "mod:name"           gpuarr.name exists as a module (found, not imported)
#   "kernel:feature"     a kernel-source feature, compiled below
#   "dep:name"           a third-party module (not gpuarr's business)
#   "note:text"          behaviour to watch on the GPU, not checkable here
USES = {
    "hello_gpu": [
        "driver.In", "driver.Out", "compiler.SourceModule",
        "compiler.SourceModule.get_function", "driver.Function.__call__",
        "note:no `import pycuda.autoinit` upstream (removed by a 2024 lint "
        "pass): fails on PyCUDA too unless a context exists"],
    "demo": [
        "src:autoinit.context", "driver.mem_alloc", "driver.memcpy_htod",
        "driver.memcpy_dtoh", "driver.InOut", "compiler.SourceModule",
        "driver.Function.__call__", "gpuarray.to_gpu",
        "gpuarray.GPUArray.__rmul__", "gpuarray.GPUArray.get",
        "gpuarray.GPUArray.__str__",
        "note:func(..., grid=(1, 1), shared=0): 2-tuple grid, shared="],
    "demo_elementwise": [
        "src:autoinit.context", "curandom.rand",
        "elementwise.ElementwiseKernel",
        "sig:elementwise.ElementwiseKernel(preamble)",
        "gpuarray.empty_like", "gpuarray.GPUArray.__mul__",
        "note:kernel called with Python ints for float parameters"],
    "demo_struct": [
        "driver.to_device", "driver.from_device", "driver.mem_alloc",
        "driver.memcpy_htod", "driver.get_version", "driver.Function.prepare",
        "driver.Function.prepared_call", "driver.DeviceAllocation.__int__",
        "driver.DeviceAllocation.__index__",
        "note:memcpy_htod(int address, bytes); numpy.uintp(DeviceAllocation);"
        " prepared_call with a plain int for 'P'",
        "note:no `import pycuda.autoinit` upstream (removed by a 2024 lint "
        "pass): fails on PyCUDA too unless a context exists"],
    "demo_meta_template": [
        "driver.to_device", "driver.mem_alloc", "driver.from_device_like",
        "compiler.SourceModule", "driver.Function.__call__", "dep:jinja2",
        "note:no `import pycuda.autoinit` upstream (removed by a 2024 lint "
        "pass): fails on PyCUDA too unless a context exists"],
    "demo_complex": [
        "src:autoinit.context", "gpuarray.to_gpu", "gpuarray.empty_like",
        "elementwise.ElementwiseKernel", "curandom.rand",
        "kernel:pycuda-complex.hpp"],
    "demo_cdpSimplePrint": [
        "src:autoinit.context", "compiler.DynamicSourceModule",
        "driver.Context.set_limit", "driver.limit.PRINTF_FIFO_SIZE",
        "driver.limit.DEV_RUNTIME_SYNC_DEPTH", "driver.Function.prepare",
        "driver.Function.prepared_call", "kernel:#include <cstdio>",
        "kernel:device-side launch (cudadevrt)",
        "note:mod.get_function(...).prepare('iiii').prepared_call: prepare "
        "must return the Function"],
    "dump_properties": [
        "driver.init", "driver.Device", "driver.Device.count",
        "driver.Device.name", "driver.Device.compute_capability",
        "driver.Device.total_memory", "driver.Device.get_attributes",
        "note:str(att) of get_attributes() keys sorts and prints"],
    "fill_gpu_with_nans": [
        "driver.mem_get_info", "gpuarray.empty", "driver.MemoryError",
        "gpuarray.GPUArray.fill",
        "note:allocates all free device memory; needs driver.MemoryError on "
        "CUDA_ERROR_OUT_OF_MEMORY",
        "note:no `import pycuda.autoinit` upstream (removed by a 2024 lint "
        "pass): fails on PyCUDA too unless a context exists"],
    "select-to-list": [
        "src:autoinit.context", "gpuarray.to_gpu", "gpuarray.zeros",
        "driver.Function.prepare", "driver.Function.prepared_call",
        "gpuarray.GPUArray.gpudata", "driver.Event", "driver.Event.record",
        "driver.Event.synchronize", "driver.Event.time_since",
        "driver.Context.synchronize", "sig:gpuarray.GPUArray.get(ary)",
        "note:prepare(..., block=) and prepared_call(grid, *args): the "
        "pre-CUDA-4 form"],
    "matrix-transpose": [
        "src:autoinit.context", "curandom.rand", "gpuarray.zeros_like",
        "driver.Function.prepare", "driver.Function.prepared_call",
        "driver.Event", "driver.Context.synchronize",
        "sig:gpuarray.GPUArray.get(ary)"],
    "transpose": [
        "src:autoinit.context", "curandom.rand", "gpuarray.empty",
        "driver.Function.prepare", "driver.DeviceAllocation.free",
        "dep:pytools"],
    "demo_graph": [
        "src:autoinit.context", "driver.mem_alloc_like", "driver.Stream",
        "driver.Stream.begin_capture", "driver.Stream.get_capture_info_v2",
        "driver.Stream.update_capture_dependencies",
        "driver.Stream.end_capture", "driver.memcpy_htod_async",
        "driver.memcpy_dtoh_async", "driver.Graph", "driver.Graph.add_kernel_node",
        "driver.Graph.debug_dot_print", "driver.Graph.instantiate",
        "driver.GraphExec", "driver.GraphExec.kernel_node_set_params",
        "driver.GraphExec.launch", "driver.Function.__call__"],
    "multiple_threads": [
        "driver.init", "driver.Device.count", "driver.Device.make_context",
        "driver.Context.pop", "driver.mem_alloc", "driver.memcpy_htod",
        "driver.memcpy_dtoh", "compiler.SourceModule"],
    "rotate": [
        "src:autoinit.context", "compiler.SourceModule.get_texref",
        "driver.matrix_to_texref", "driver.TextureReference.set_filter_mode",
        "driver.filter_mode.LINEAR", "sig:driver.Function.__call__(texrefs)",
        "kernel:texture<float, 2> reference", "dep:Image (PIL, old name)"],
    "sparse-solve": [
        "src:autoinit.context", "tools.DeviceMemoryPool",
        "tools.DeviceMemoryPool.allocate", "tools.DeviceMemoryPool.stop_holding",
        "tools.PageLockedMemoryPool", "tools.PageLockedMemoryPool.allocate",
        "tools.PageLockedMemoryPool.stop_holding",
        "sig:gpuarray.to_gpu(allocator)", "sparse.packeted.PacketedSpMV",
        "sparse.operator.DiagonalPreconditioner", "sparse.cg.solve_pkt_with_cg",
        "dep:scipy", "dep:pytools", "dep:hedge"],
    "cai_cupy_arrays": [
        "src:autoinit.context", "compiler.SourceModule",
        "driver.Function.__call__", "dep:cupy",
        "note:a CuPy array passed straight to a Function (CUDA Array "
        "Interface); gpuarr must share CuPy's context (primary)"],
    "cai_numba": [
        "mod:autoprimaryctx", "gpuarray.to_gpu",
        "gpuarray.GPUArray.__cuda_array_interface__", "dep:numba",
        "note:`import pycuda.driver as pycuda` (the alias stays); Numba "
        "needs the primary context"],
    # ------------------------------------------------------------ from-wiki
    "from-wiki/arithmetic_example": [
        "src:autoinit.context", "driver.Event", "driver.Event.time_till",
        "compiler.SourceModule", "sig:compiler.SourceModule(no_extern_c)",
        "gpuarray.to_gpu", "gpuarray.GPUArray.gpudata",
        "kernel:extern \"C\" with no_extern_c",
        "note:grid=(N/1024+1, 1, 1) is a float tuple under python3 (PyCUDA's"
        " launch may or may not take it; gpuarr does)"],
    "from-wiki/c++_function_templates": [
        "src:autoinit.context", "compiler.SourceModule",
        "sig:compiler.SourceModule(no_extern_c)", "gpuarray.to_gpu",
        "kernel:template + extern \"C\" (no_extern_c)"],
    "from-wiki/convolution": [
        "src:autoinit.context", "compiler.SourceModule",
        "compiler.SourceModule.get_global", "driver.mem_alloc_like",
        "driver.memcpy_htod", "driver.memcpy_dtoh", "kernel:__mul24 and __constant__",
        "note:memcpy_htod(get_global(...)[0], array): a raw address as dest"],
    "from-wiki/demo_complex": [
        "src:autoinit.context", "gpuarray.to_gpu", "gpuarray.empty_like",
        "elementwise.ElementwiseKernel", "curandom.rand",
        "kernel:pycuda-complex.hpp"],
    "from-wiki/distance_element_wise3d": [
        "src:autoinit.context", "gpuarray.vec.float3", "gpuarray.vec.make_float3",
        "sig:gpuarray.zeros(shape)", "gpuarray.GPUArray.__setitem__",
        "elementwise.ElementwiseKernel",
        "sig:elementwise.ElementwiseKernel(arguments)",
        "sig:elementwise.ElementwiseKernel(operation)",
        "kernel:#include <math.h>", "kernel:float3 by value",
        "driver.Event.time_till",
        "note:n[i, j, k] = make_float3(...): 5000 scalar setitems of a "
        "struct dtype"],
    "from-wiki/gpu_scalar_mult": [
        "elementwise.get_linear_combination_kernel",
        "gpuarray.GPUArray.bind_to_texref_ext", "gpuarray.GPUArray._grid",
        "gpuarray.GPUArray._block", "gpuarray.GPUArray.mem_size",
        "tools.context_dependent_memoize", "tools.dtype_to_ctype",
        "elementwise.ScalarArg", "elementwise.VectorArg",
        "elementwise.get_elwise_module", "elementwise.VectorArg.struct_char",
        "curandom.rand",
        "note:main() binds texture references (gone in CUDA 12) before "
        "main_no_tex() runs",
        "note:no `import pycuda.autoinit` upstream: fails on PyCUDA too"],
    "from-wiki/kernel_concurrency": [
        "src:autoinit.context", "src:autoinit.device", "driver.Stream",
        "driver.Event", "sig:driver.Event.record(stream)",
        "driver.Event.time_till", "driver.device_attribute.CONCURRENT_KERNELS",
        "driver.Device.get_attribute", "driver.mem_alloc",
        "driver.memcpy_htod", "driver.memcpy_dtoh",
        "sig:driver.Function.__call__(stream)"],
    "from-wiki/manhattan_distance_for_2D_array": [
        "src:autoinit.context", "driver.InOut", "compiler.SourceModule",
        "kernel:#include<math.h>"],
    "from-wiki/matrix_transpose": [
        "src:autoinit.context", "tools.context_dependent_memoize",
        "driver.Function.prepare", "driver.Function.prepared_call",
        "curandom.rand", "gpuarray.empty", "gpuarray.GPUArray.nbytes",
        "driver.DeviceAllocation.free", "driver.Context.synchronize",
        "driver.Event.time_since", "dep:pytools", "dep:matplotlib",
        "note:source.gpudata.free() then the array is dropped: free must be "
        "idempotent"],
    "from-wiki/matrixmul_simple": [
        "src:autoinit.context", "compiler.SourceModule", "gpuarray.to_gpu",
        "gpuarray.empty", "tools",
        "note:`from pycuda import driver, compiler, gpuarray, tools`; GPUArrays"
        " passed straight to a Function"],
    "from-wiki/matrixmul_tiled": [
        "src:autoinit.context", "compiler.SourceModule", "gpuarray.to_gpu",
        "gpuarray.empty", "tools", "kernel:uint (host typedef)"],
    "from-wiki/measure_gpuarray_speed_random": [
        "src:autoinit.context", "curandom.rand", "gpuarray.zeros",
        "driver.Event.time_till", "dep:pytools",
        "note:CPU-heavy (numpy.random.rand of 2**24, 100 times): may pass 60 s"],
    "from-wiki/multiple_threads": [
        "driver.init", "driver.Device.count", "driver.Device.make_context",
        "driver.Context.pop", "driver.mem_alloc", "driver.memcpy_htod",
        "driver.memcpy_dtoh", "compiler.SourceModule"],
    "from-wiki/rotate": [
        "src:autoinit.context", "compiler.SourceModule.get_texref",
        "driver.matrix_to_texref", "driver.TextureReference.set_filter_mode",
        "driver.filter_mode.LINEAR", "sig:driver.Function.__call__(texrefs)",
        "kernel:texture<float, 2> reference", "dep:Image (PIL, old name)",
        "note:needs an image path argument; without it prints usage, exits -1"],
    "from-wiki/select_to_list": [
        "src:autoinit.context", "gpuarray.to_gpu", "gpuarray.zeros",
        "driver.Function.prepare", "driver.Function.prepared_call",
        "gpuarray.GPUArray.gpudata", "driver.Event", "driver.Event.time_since",
        "driver.Context.synchronize", "sig:gpuarray.GPUArray.get(ary)"],
    "from-wiki/simple_speed_test": [
        "src:autoinit.context", "driver.In", "driver.Out",
        "elementwise.ElementwiseKernel", "cumath.sin", "driver.Event.time_till",
        "note:numpy.int (removed in numpy 1.24): fails on any modern numpy"],
    "from-wiki/sparse_solve": [
        "tools.DeviceMemoryPool", "tools.DeviceMemoryPool.allocate",
        "tools.DeviceMemoryPool.stop_holding", "tools.PageLockedMemoryPool",
        "tools.PageLockedMemoryPool.allocate",
        "tools.PageLockedMemoryPool.stop_holding",
        "sig:gpuarray.to_gpu(allocator)", "sparse.packeted.PacketedSpMV",
        "sparse.operator.DiagonalPreconditioner", "sparse.cg.solve_pkt_with_cg",
        "dep:scipy",
        "note:no `import pycuda.autoinit` upstream: fails on PyCUDA too"],
    "from-wiki/threads_and_blocks": [
        "compiler.SourceModule", "kernel:#include <stdio.h> + printf",
        "note:no `import pycuda.autoinit` upstream: fails on PyCUDA too"],
    "from-wiki/using_printf": [
        "compiler.SourceModule", "kernel:#include <stdio.h> + printf",
        "note:no `import pycuda.autoinit` upstream: fails on PyCUDA too"],
}

# kernel-source features: source and SourceModule keyword arguments
KERNEL = {
    "#include <stdio.h> + printf": (
        '#include <stdio.h>\n__global__ void k(){ printf("%d\\n", threadIdx.x); }', {}),
    "#include <cstdio>": (
        '#include <cstdio>\n__global__ void k(){ printf("x\\n"); }', {}),
    "#include <math.h>": (
        '#include <math.h>\n__global__ void k(float *a){ a[0] = sqrt(pow(a[1], 2)); }', {}),
    "#include<math.h>": (
        '#include<math.h>\n__global__ void k(float *a){ a[0] = a[1]; }', {}),
    "pycuda-complex.hpp": (
        '#include <pycuda-complex.hpp>\n__global__ void k(pycuda::complex<float> *z)'
        '{ z[0] = z[1] * z[2]; z[3] = pycuda::complex<float>(); float r = abs(z[4]); }', {}),
    "texture<float, 2> reference": (
        'texture<float, 2> tex;\n__global__ void k(float *a){ a[0] = tex2D(tex, 0.f, 0.f); }', {}),
    "device-side launch (cudadevrt)": (
        '__global__ void k(int d){ if (d > 0) k<<<1, 1>>>(d - 1); }', {}),
    "uint (host typedef)": (
        '__global__ void k(float *a){ const uint i = threadIdx.x; a[i] = 1; }', {}),
    "__mul24 and __constant__": (
        '__device__ __constant__ float c[17];\n'
        '__global__ void k(float *a, int *b){ a[0] = c[0]; b[0] = __mul24(b[1], b[2]); }', {}),
    "float3 by value": (
        '__global__ void k(float3 p, float3 *n, float *r)'
        '{ r[0] = sqrt(pow(p.x - n[0].x, 2)); }', {}),
    "extern \"C\" with no_extern_c": (
        'extern "C" { __global__ void func(float *a){ a[0] = 1; } }',
        {"no_extern_c": True}),
    "template + extern \"C\" (no_extern_c)": (
        'template <class T> __device__ T incr(T x){ return x + 1; }\n'
        'extern "C" { __global__ void func(float *a){ a[0] = incr(a[0]); } }',
        {"no_extern_c": True}),
}


def _import(mod):
    return importlib.import_module("gpuarr." + mod)


def check_attr(path):
    parts = path.split(".")
    # longest importable module prefix
    for cut in range(len(parts), 0, -1):
        try:
            obj = _import(".".join(parts[:cut]))
        except ImportError:
            continue
        except Exception as e:          # importing needs a GPU, etc.
            return False, "import gpuarr.%s: %s" % (".".join(parts[:cut]), e)
        rest = parts[cut:]
        break
    else:
        return False, "no module gpuarr.%s" % parts[0]
    for p in rest:
        if p.startswith("__") and isinstance(obj, type):
            # type itself has __call__, __str__...: look in the class's own MRO
            if not any(p in vars(k) for k in obj.__mro__ if k is not object):
                return False, "no %s" % p
        elif not hasattr(obj, p):
            return False, "no %s" % p
        obj = getattr(obj, p)
    return True, ""


def check_sig(spec):
    path, param = spec[:-1].split("(")
    ok, why = check_attr(path)
    if not ok:
        return ok, why
    obj = _import(path.split(".")[0])
    for p in path.split(".")[1:]:
        obj = getattr(obj, p)
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None, "signature not readable (extension type)"
    ps = sig.parameters
    if param in ps or any(p.kind == p.VAR_KEYWORD for p in ps.values()):
        return True, ""
    return False, "no parameter %r" % param


def check_src(spec):
    mod, name = spec.rsplit(".", 1)
    path = os.path.join(os.getcwd(), "gpuarr", *mod.split(".")) + ".py"
    if not os.path.exists(path):
        return False, "no gpuarr/%s.py" % mod
    tree = ast.parse(open(path).read())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
    return (name in names), ("" if name in names else "not bound")


def check_mod(name):
    import importlib.util
    try:
        found = importlib.util.find_spec("gpuarr." + name) is not None
    except ImportError as e:
        return False, str(e)
    return found, ("" if found else "no module gpuarr.%s" % name)


def check_kernel(feature):
    import gpuarr.compiler as comp
    src, kw = KERNEL[feature]
    try:
        comp.compile(src, arch="sm_90", cache_dir=False, **kw)
        return True, ""
    except Exception as e:
        lines = [l.strip() for l in str(e).splitlines() if "error" in l.lower()]
        return False, (lines[0] if lines else str(e).splitlines()[0])[:110]


def check(entry):
    kind, _, rest = entry.partition(":")
    if kind == "sig":
        return check_sig(rest)
    if kind == "src":
        return check_src(rest)
    if kind == "kernel":
        return check_kernel(rest)
    if kind == "mod":
        return check_mod(rest)
    if kind in ("dep", "note"):
        return None, ""
    return check_attr(entry)


def main():
    sys.path.insert(0, os.getcwd())
    verbose = "-v" in sys.argv
    results = {}
    users = {}
    for ex, uses in USES.items():
        for u in uses:
            users.setdefault(u, []).append(ex)
    for u in users:
        results[u] = check(u)
        if verbose:
            print("%-60s %s %s" % (u[:60], results[u][0], results[u][1]),
                  file=sys.stderr)

    gaps = [(u, exs) for u, exs in users.items() if results[u][0] is False]

    def key(item):
        u, exs = item
        live = [e for e in exs if e not in PY2]
        return (-len(live), -len(exs), u)
    gaps.sort(key=key)
    print("| gap | why | examples blocked (py3) | also in py2-only files |")
    print("|---|---|---|---|")
    for u, exs in gaps:
        live = [e for e in exs if e not in PY2]
        dead = [e for e in exs if e in PY2]
        print("| `%s` | %s | %d: %s | %s |" % (
            u, results[u][1].replace("|", "/"), len(live), ", ".join(live),
            ", ".join(dead)))
    print()
    print("| example | uses | missing in gpuarr |")
    print("|---|---|---|")
    for ex, uses in USES.items():
        checked = [u for u in uses if results[u][0] is not None]
        miss = [u for u in uses if results[u][0] is False]
        print("| %s%s | %d checked | %s |" % (
            ex, " (py2)" if ex in PY2 else "", len(checked),
            ", ".join("`%s`" % m for m in miss) or "none"))
    unk = [u for u in users if results[u][0] is None and not u.startswith(("dep:", "note:"))]
    if unk:
        print()
        print("not checkable here: " + ", ".join(unk))


if __name__ == "__main__":
    main()
