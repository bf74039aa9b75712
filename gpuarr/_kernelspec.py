"""One generated kernel launch, described without a device, and its build.

Layer 4, below :mod:`gpuarr.elementwise` and :mod:`gpuarr.reduction`: their
planners (``plan_spec``, ``reduce_spec``) fill a :class:`KernelSpec`; the
tests render and compile specs with no GPU, and the launch code builds
them with :func:`compile_function` on a cache miss.
"""

from .kernels import render

__all__ = ["KernelSpec", "compile_function"]


def compile_function(source, name, arg_types, options=None, keep=False):
    """Compile ``source`` and return its prepared kernel ``name``.

    Parameters
    ----------
    source : str
        CUDA C++ whose kernels are declared ``extern "C"`` (compiled with
        ``no_extern_c=True``).
    name : str
        The kernel's name.
    arg_types : str
        Its argument format for :meth:`gpuarr.driver.Function.prepare`.
    options : list of str, optional
        Extra compiler options.
    keep : bool
        Keep the compiler's files.

    Returns
    -------
    (function, module)
        The module must be kept alive as long as the function is used.
    """
    # imported here, not at the top: loading the compiler is needed only
    # when a kernel is built, and ``import gpuarr`` stays light
    from .compiler import SourceModule
    mod = SourceModule(source, options=options, no_extern_c=True, keep=keep)
    fn = mod.get_function(name)
    fn.prepare(arg_types)
    return fn, mod


class KernelSpec:
    """Everything about one launch except the device.

    Attributes
    ----------
    kkey : tuple
        The kernel's cache key: equal keys render equal sources.
    name : str
        The kernel's name.
    template : str
        The template in ``gpuarr/kernels`` that renders it.
    render_kw : dict
        The template's variables.
    chars : str
        The argument format (``Function.prepare``).
    grid, block : tuple of int
        Launch dimensions.
    tail : tuple of int
        Trailing integer arguments (sizes and strides).
    path : str
        The kernel path chosen (``"rows"``, ``"nd"``, ``"cols"``, ...).
    scalars : tuple
        Elementwise: ``(input position, loop dtype)`` of each scalar input.
    offsets : tuple of int
        Reductions: byte offsets added to each input's pointer.
    needs_ws : bool
        Reductions: the launch uses a per-stream workspace.
    empty : bool
        Reductions: there is nothing to launch (no output element).
    """

    __slots__ = ("kkey", "name", "template", "render_kw", "chars", "grid",
                 "block", "tail", "path", "scalars", "offsets", "needs_ws",
                 "empty")

    def __init__(self, template):
        self.template = template
        self.scalars = ()
        self.offsets = ()
        self.needs_ws = False
        self.empty = False

    def source(self):
        """Render the kernel's CUDA source."""
        return render(self.template, **self.render_kw)

    def build(self, options=None, keep=False):
        """Compile the kernel: ``(function, module)`` of
        :func:`compile_function`."""
        return compile_function(self.source(), self.name, self.chars,
                                options, keep)
