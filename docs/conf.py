"""Sphinx configuration of gpuarr's documentation site.

Build (from the checkout's root, with gpuarr importable: installed, or
built in place)::

    pip install -r docs/requirements.txt
    sphinx-build -W -b html docs docs/_build/html

The user guide and the performance notes are Markdown pages (MyST); the
API reference is generated from the docstrings (numpydoc) by
``docs/_apigen.py``, which writes one page per public module listing its
public names.  No GPU or driver is needed: importing gpuarr and its
modules loads nothing from CUDA.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _apigen  # noqa: E402

import gpuarr  # noqa: E402

project = "gpuarr"
author = "the gpuarr developers"
copyright = "2026, the gpuarr developers"
release = version = gpuarr.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "requirements.txt"]
myst_heading_anchors = 3

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# the docstrings cross-reference numpy, PyCUDA and CUDA names that are not
# part of this site: written as ``literal`` text, they are not links
numpydoc_xref_param_type = False

html_theme = "alabaster"
html_title = "gpuarr %s" % release

_apigen.write_pages(os.path.join(HERE, "api"))
