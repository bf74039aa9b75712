"""Per-context state of the layers above the driver.

Compiled kernels, launch plans, scratch buffers and memory pools belong to
one context. Each module keeps them in a table made here, keyed by the
:class:`~gpuarr.driver.Context` (or by a tuple whose first item is it). When
a context is detached, the driver's detach hook drops every table's entries
for it, before the context is released, so no layer keeps a dead context's
modules or memory alive and nothing is freed into a released context.

Importing this module loads the driver binding but not ``libcuda``.
"""

from . import driver as _drv

_tables = []


def table():
    """A new dict for per-context state whose entries are dropped when
    their context is detached."""
    d = {}
    _tables.append(d)
    return d


def forget(ctx):
    """Drop every table's entries for ``ctx`` (a Context)."""
    for d in _tables:
        # list(d) copies the keys in one step, so a concurrent insert from
        # another thread cannot break the scan
        for key in [k for k in list(d) if k is ctx or (type(k) is tuple and k and k[0] is ctx)]:
            d.pop(key, None)


def on_detach(func):
    """Call ``func(ctx)`` when a context is detached (before its release):
    for caches that are not keyed by context, such as a last-used entry."""
    _drv.add_detach_hook(func)


_drv.add_detach_hook(forget)
