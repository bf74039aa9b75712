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


def retire_stream_buffer(entry):
    """Wait until no queued work can still use a per-stream buffer that
    is about to be dropped (and freed).

    ``entry`` is a cache entry whose last item is the stream the buffer is
    used on (None: the legacy default stream).  ``cuMemFree`` only *may*
    synchronize (CUDA driver API reference), so the stream is synchronized
    first; the whole context for the default stream.
    """
    stream = entry[-1]
    if stream is None:
        _drv.Context.synchronize()
    else:
        stream.synchronize()


def evict_stream_buffers(entries, limit, keep=None):
    """Drop the least recently used entries of ``entries`` (an
    OrderedDict of per-stream buffers, see :func:`retire_stream_buffer`)
    until at most ``limit`` remain, never the one under the key ``keep``."""
    while len(entries) > limit:
        victim = next((k for k in entries if k != keep), None)
        if victim is None:
            return
        retire_stream_buffer(entries[victim])
        del entries[victim]


_drv.add_detach_hook(forget)
