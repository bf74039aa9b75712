"""Writes the API reference's pages: ``api/index.rst`` and one page per
public module, each an ``autosummary`` table of the module's public names
(its ``__all__``, or for ``gpuarr.driver`` every name not starting with an
underscore), whose entries Sphinx generates from the docstrings.  Run by
``conf.py`` at every build; the pages are not kept in git."""
import importlib
import inspect
import os

#: the public modules, in the order the reference lists them, with a line
#: saying what each holds
MODULES = [
    ("gpuarr", "The flat namespace: the array API (PyCUDA's gpuarray and "
               "cumath names with numpy's semantics) and numpy's functions. "
               "numpy's scalar types are re-exported as they are "
               "(``gpuarr.float32`` is ``numpy.float32``)."),
    ("gpuarr.driver", "The CUDA driver API: devices, contexts, memory, "
                      "copies, streams, events, modules, launches, graphs, "
                      "arrays and textures."),
    ("gpuarr.compiler", "Run-time compilation: SourceModule (NVRTC, nvcc), "
                        "linking, caches."),
    ("gpuarr.gpuarray", "PyCUDA's gpuarray module: GPUArray and its "
                        "functions."),
    ("gpuarr.elementwise", "ElementwiseKernel: custom elementwise kernels."),
    ("gpuarr.reduction", "ReductionKernel: custom reductions."),
    ("gpuarr.reductions", "Built-in reductions: sum, max, mean, var, ..."),
    ("gpuarr.scan", "InclusiveScanKernel and ExclusiveScanKernel."),
    ("gpuarr.cumulative", "cumsum and cumprod."),
    ("gpuarr.cumath", "Elementwise math functions."),
    ("gpuarr.linalg", "Matrix products and numpy.linalg on cuBLAS and "
                      "cuSOLVER. ``LinAlgError`` is numpy's "
                      "(``numpy.linalg.LinAlgError``)."),
    ("gpuarr.random", "Philox random numbers with numpy's Generator "
                      "methods."),
    ("gpuarr.curandom", "PyCUDA's curandom: rand and cuRAND's generators."),
    ("gpuarr.tools", "Memory pools and PyCUDA's tools."),
    ("gpuarr.characterize", "PyCUDA's characterize: properties of the "
                            "device and its compiler."),
    ("gpuarr.dask", "Dask arrays with GPUArray chunks (needs Dask: the "
                    "``dask`` extra)."),
    ("gpuarr.nccl", "NCCL's all-reduce and broadcast of GPUArrays across "
                    "devices (needs NCCL: ``nvidia-nccl-cu13``)."),
]


def _ours(obj):
    """Whether gpuarr defines ``obj`` (numpy's scalar types and
    ``LinAlgError``, re-exported, are numpy's and documented there)."""
    mod = getattr(obj, "__module__", None)
    if isinstance(mod, str):
        return mod == "gpuarr" or mod.startswith("gpuarr.")
    return not inspect.isclass(obj)       # constants: tuples, dicts, ints


def public_names(modname):
    """``(name, object)`` of what a module's page lists: its ``__all__``
    (else every name without a leading underscore), less modules and
    numpy's own objects, sorted by name."""
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    out = {}
    for n in names:
        obj = getattr(mod, n)
        if inspect.ismodule(obj) or not _ours(obj):
            continue
        out[n] = obj
    return sorted(out.items(), key=lambda kv: kv[0].lower())


def _module_page(modname, blurb, homes):
    """One module's page; ``homes`` maps each class already documented to
    the module and name of its page (a class gets one page, under the
    first module and name listing it: two would describe one object
    twice; aliases such as ``gpuarr.ndarray`` point there)."""
    title = "``%s``" % modname
    lines = [title, "=" * len(title), "", blurb, "",
             ".. automodule:: %s" % modname, "   :no-members:", "",
             ".. currentmodule:: %s" % modname, "",
             ".. autosummary::", "   :toctree: generated", ""]
    elsewhere = []
    for n, obj in public_names(modname):
        if inspect.isclass(obj):
            home = homes.setdefault(id(obj), (modname, n))
            if home != (modname, n):
                elsewhere.append("``%s`` (:class:`%s.%s`)" % ((n,) + home))
                continue
        lines.append("   %s" % n)
    if elsewhere:
        lines += ["", "Also here, documented under the module that lists "
                  "them first: " + ", ".join(elsewhere) + "."]
    return "\n".join(lines) + "\n"


def write_pages(outdir):
    """Write the pages under ``outdir`` (rewritten only where they
    changed, so incremental builds stay incremental)."""
    os.makedirs(outdir, exist_ok=True)
    index = ["API reference", "=============", "",
             "Every public module of gpuarr, generated from the docstrings. "
             "Names that one module re-exports from another are listed "
             "under both.", "", ".. toctree::", "   :maxdepth: 1", ""]
    pages = {}
    homes = {}
    for modname, blurb in MODULES:
        pages[modname + ".rst"] = _module_page(modname, blurb, homes)
        index.append("   %s" % modname)
    pages["index.rst"] = "\n".join(index) + "\n"
    for name, text in pages.items():
        path = os.path.join(outdir, name)
        old = None
        if os.path.exists(path):
            with open(path) as f:
                old = f.read()
        if old != text:
            with open(path, "w") as f:
                f.write(text)
