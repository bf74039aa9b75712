"""Per-context state (gpuarr._percontext.state and
gpuarr.tools.context_dependent_memoize) against the fake libcuda: objects are kept per context, dropped at detach,
and no kernel of a detached context is launched in a new one.

Each scenario runs in a fresh interpreter with ``GPUARR_LIBCUDA`` naming
the fake (tests/fake_cuda), through test_driver_fake's runner, and asserts
inside it.  Kernels are really rendered but "compiled" to FAKE module
images (the fake cannot load a cubin): the image is loaded by ``prepare``,
in the context current then, with the parameter sizes of the argument
format, so the fake counts module loads and flags any launch of a function
outside the current context (``wrong_context_launches``) or of an unloaded
one (an error).
"""
import textwrap

from test_driver_fake import check as run_fake_scenario

PRELUDE = """\
import gc
import numpy as np
import gpuarr.driver as drv
import gpuarr.compiler
from gpuarr import _percontext, tools
from gpuarr._argtypes import parse_arg_types
from fakecuda import Fake
fk = Fake()
drv.init()
dev = drv.Device(0)


class FakeFunction:
    # a kernel "compiled" from real source: prepare() loads a FAKE image
    # with the parameter sizes of the argument format
    def __init__(self, name):
        self.name = name

    def prepare(self, chars):
        sizes = ",".join(str(n) for _, n in parse_arg_types(chars))
        image = ("FAKE\\nkernel %s %s\\n" % (self.name, sizes)).encode()
        self.module = drv.module_from_buffer(image)
        self.function = self.module.get_function(self.name)
        self.function.prepare(chars)
        self.prepared_async_call = self.function.prepared_async_call
        self.num_regs = self.function.num_regs

    def set_attribute(self, attr, value):
        self.function.set_attribute(attr, value)


class FakeSourceModule:
    def __init__(self, source, options=None, no_extern_c=False, keep=False):
        assert no_extern_c and 'extern "C"' in source
        self.source = source

    def get_function(self, name):
        return FakeFunction(name)


gpuarr.compiler.SourceModule = FakeSourceModule


def no_context_raises(fn):
    try:
        fn()
    except drv.InvalidContextError as e:
        assert e.code == 201 and e.name == "CUDA_ERROR_INVALID_CONTEXT", e
        assert "no CUDA context is current" in str(e)
    else:
        raise AssertionError("no InvalidContextError")
"""

EPILOGUE = """
assert fk["errors"] == 0, ("the fake saw a failing call", fk.last_error())
assert fk["wrong_context_launches"] == 0
"""


def check(lib, code):
    """Run a scenario (test_driver_fake's runner, without autoinit: the
    scenarios make their own contexts)."""
    run_fake_scenario(lib, PRELUDE + textwrap.dedent(code) + EPILOGUE,
                      autoinit=False)


def test_state_is_per_context_and_dropped_at_detach(fake_lib):
    check(fake_lib, """
        made = []
        def factory(ctx):
            made.append(ctx)
            return ["state of", ctx.handle]
        get = _percontext.state(factory)
        no_context_raises(get)
        no_context_raises(_percontext.current_context)
        a = dev.make_context()
        sa = get()
        assert get() is sa and made == [a]
        assert _percontext.current_context() is a
        b = dev.make_context()                  # pushed: b is current
        sb = get()
        assert sb is not sa and get() is sb and made == [a, b]
        drv.Context.pop()                       # a is current again
        assert get() is sa and len(made) == 2
        assert set(get.states) == {a, b}
        a.detach()                              # pops a: none is current
        assert list(get.states) == [b]
        no_context_raises(get)
        b.push()
        assert get() is sb
        c = dev.make_context()
        sc = get()
        assert sc is not sa and sc is not sb and made[-1] is c
        # clear() forgets every context's object: made again on demand
        get.clear()
        assert get.states == {} and get() is not sc and len(made) == 4
        c.detach()
        b.detach()
        assert get.states == {}
        no_context_raises(get)
    """)


def test_context_dependent_memoize(fake_lib):
    check(fake_lib, """
        calls = []

        @tools.context_dependent_memoize
        def kernel(dtype, scale=1):
            "A docstring."
            calls.append((drv.Context.get_current(), dtype, scale))
            if dtype == "bad":
                raise ValueError(dtype)
            return object()

        assert kernel.__name__ == "kernel" and kernel.__doc__ == "A docstring."
        no_context_raises(lambda: kernel("f4"))
        a = dev.make_context()
        ka = kernel("f4")
        assert kernel("f4") is ka and len(calls) == 1
        # other arguments, keyword arguments: other results
        assert kernel("f8") is not ka and kernel("f4", scale=2) is not ka
        assert kernel("f4", scale=2) is kernel("f4", scale=2)
        assert kernel("f4", 2) is not kernel("f4", scale=2)
        assert len(calls) == 4
        # a call that raises caches nothing
        for _ in range(2):
            try:
                kernel("bad")
            except ValueError:
                pass
        assert len(calls) == 6
        b = dev.make_context()
        kb = kernel("f4")
        assert kb is not ka and calls[-1][0] is b
        drv.Context.pop()
        assert kernel("f4") is ka and len(calls) == 7
        # detaching a drops its results only
        a.detach()
        b.push()
        assert kernel("f4") is kb and len(calls) == 7
        c = dev.make_context()
        kc = kernel("f4")
        assert kc is not ka and kc is not kb and calls[-1][0] is c
        kernel.clear_cache()
        assert kernel("f4") is not kc and len(calls) == 9
        tools.clear_context_caches()
        kernel("f4")
        assert len(calls) == 10
        c.detach()
        b.detach()
    """)


def test_default_pool_is_per_context(fake_lib):
    check(fake_lib, """
        no_context_raises(tools.default_pool)
        a = dev.make_context()
        pa = tools.default_pool()
        assert tools.default_pool() is pa
        b = dev.make_context()
        pb = tools.default_pool()
        assert pb is not pa
        blk = pb.allocate(1000)
        blk.free()
        b.detach()                              # pops b: a is current
        assert tools.default_pool() is pa
        c = dev.make_context()
        assert tools.default_pool() is not pb
        c.detach()
        a.detach()
    """)


def test_no_kernel_of_a_detached_context_is_reused(fake_lib):
    """Every kernel family launches in context A, A is detached, B is
    made: the same calls load their modules again and launch them in B."""
    check(fake_lib, """
        import gpuarr.gpuarray as ga
        from gpuarr import elementwise as ew, reduction as R, scan as S
        from gpuarr import random as grandom
        from gpuarr.scan import InclusiveScanKernel

        axpy = ew.ElementwiseKernel("float a, float *x, float *y",
                                    "y[i] = a * x[i] + y[i]")
        dot = R.ReductionKernel(np.float32, "0", "a+b", "x[i]*y[i]",
                                "float *x, float *y")
        scan = InclusiveScanKernel(np.int32, "a+b")
        rng = grandom.default_rng(7)

        def every_family():
            x = ga.to_gpu(np.ones(1000, np.float32))
            y = ga.to_gpu(np.ones(1000, np.float32))
            m = ga.to_gpu(np.ones((40, 25), np.float32))
            r = ga.empty(40, np.float32)
            names = []
            def launched():
                names.append(fk.last_launch()["name"])
            i = ga.to_gpu(np.arange(5000, dtype=np.int32))
            f4 = np.dtype(np.float32)
            for call in (
                    lambda: ew.run_elementwise("add", [y], [x, y]),
                    lambda: ew.run_elementwise("multiply", [y], [x, 2.0]),
                    lambda: x + y,
                    lambda: axpy(2.0, x, y),
                    lambda: R.run_reduction("sum", (m,), r, (1,), f4),
                    lambda: x.sum(),
                    lambda: dot(x, y),
                    lambda: dot(m, m, axis=0),
                    lambda: scan(i),
                    lambda: S.run_scan(i.ptr, i.dtype, i.ptr, i.dtype, 5000,
                                       "a+b", i.dtype, impl="block-per-tile"),
                    lambda: S.run_column_scan(m.ptr, f4, m.ptr, f4, 1, 40, 25,
                                              (0, 25, 1), "a+b", f4),
                    lambda: rng.standard_normal(1000, dtype=np.float32)):
                call()
                launched()
            return names

        a = dev.make_context()
        loads = fk["module_loads"]
        first = every_family()
        built = fk["module_loads"] - loads
        assert built >= len(set(first)), (built, first)
        assert fk.last_launch()["ctx"] == a.handle
        # the same calls again in A: nothing is built again
        assert every_family() == first and fk["module_loads"] == loads + built
        a.detach()
        gc.collect()
        b = dev.make_context()
        loads = fk["module_loads"]
        launches = fk["launches"]
        second = every_family()
        assert second == first
        assert fk["module_loads"] - loads == built, \
            "a kernel of the detached context was reused"
        assert fk["launches"] - launches == len(second)
        assert fk.last_launch()["ctx"] == b.handle
        b.detach()
    """)
