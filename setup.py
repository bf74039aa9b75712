"""Build gpuarr's Cython extension.

The extensions link against nothing from CUDA: ``libcuda.so.1`` is opened
with ``dlopen`` at the first driver call (``libcublas`` at the first
matrix product), so the package builds and imports
on machines with no CUDA toolkit and no driver.

The extension is built with Python's optimization flags, no debug
information, and linked stripped (3.1 MB with symbols,
about 0.5 MB without); ``GPUARR_BUILD_DEBUG=1`` keeps the symbols and
builds with -O0 -g for debugging.
"""
import os

import numpy
import setuptools
from Cython.Build import cythonize
from setuptools import Extension, setup

_DEBUG = os.environ.get("GPUARR_BUILD_DEBUG", "") not in ("", "0")

extensions = [
    Extension(
        "gpuarr._driver",
        ["gpuarr/_driver.pyx"],
        include_dirs=[numpy.get_include()],
        libraries=["dl"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O0", "-g"] if _DEBUG else ["-g0"],
        extra_link_args=[] if _DEBUG else ["-Wl,--strip-all"],
    ),
    Extension(
        "gpuarr._cublas",
        ["gpuarr/_cublas.pyx"],
        libraries=["dl"],
        extra_compile_args=["-O0", "-g"] if _DEBUG else ["-g0"],
        extra_link_args=[] if _DEBUG else ["-Wl,--strip-all"],
    ),
]

# PEP 639's License-Expression where setuptools writes it (77 and newer);
# the License field before
_LICENSE = ({"license_expression": "MIT"}
            if int(setuptools.__version__.split(".")[0]) >= 77
            else {"license": "MIT"})

setup(
    **_LICENSE,
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False,
                             "embedsignature": True},
    ),
)
