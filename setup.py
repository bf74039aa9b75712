"""Build gpuarr's Cython extension.

The extension links against nothing from CUDA: ``libcuda.so.1`` is opened
with ``dlopen`` at the first driver call, so the package builds and imports
on machines with no CUDA toolkit and no driver.
"""
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "gpuarr._driver",
        ["gpuarr/_driver.pyx"],
        include_dirs=[numpy.get_include()],
        libraries=["dl"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ),
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False,
                             "embedsignature": True},
    ),
)
