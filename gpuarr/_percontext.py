"""Per-context state of the layers above the driver.

Compiled kernels, launch plans, scratch buffers and memory pools belong to
one context.  Each layer keeps them through :func:`state`: a getter that
gives the current context's object, made on first use and keyed by the
:class:`~gpuarr.driver.Context` itself.  When a context is detached, the
driver's detach hook drops every entry for it (and every getter's memory of
it), before the context is released, so no layer keeps a dead context's
modules or memory alive, nothing is freed into a released context and no
new context is handed a dead one's kernels.

:func:`current_context` and :func:`no_context_error` are the one place the
"no context is current" error is made.

Importing this module loads the driver binding but not ``libcuda``.
"""

from . import driver as _drv
from ._errors import no_context_error as _no_context_error

__all__ = ["state", "current_context", "no_context_error", "table", "forget",
           "on_detach", "retire_stream_buffer", "evict_stream_buffers",
           "release_in"]

_tables = []
_getters = []

# what a getter remembers before its first hit and after a detach: no
# Context (nor None) is this object, so the identity test misses
_NOTHING = object()


def no_context_error():
    """The error for a call that needs a current context when none is.

    Returns
    -------
    gpuarr.driver.InvalidContextError
        ``CUDA_ERROR_INVALID_CONTEXT`` (201), saying how to make one
        current.  The caller raises it.
    """
    return _no_context_error()


def current_context():
    """The current :class:`~gpuarr.driver.Context`.

    Raises
    ------
    gpuarr.driver.InvalidContextError
        When no context is current (:func:`no_context_error`).
    """
    ctx = _drv.Context.get_current()
    if ctx is None:
        raise no_context_error()
    return ctx


def table():
    """A new dict for per-context state whose entries are dropped when
    their context is detached: keys are a Context, or a tuple whose first
    item is one."""
    d = {}
    _tables.append(d)
    return d


def state(factory, name=None, doc=None):
    """A getter of per-context state made by ``factory``.

    Parameters
    ----------
    factory : callable
        ``factory(ctx) -> object``, called with the current
        :class:`~gpuarr.driver.Context` the first time the getter runs
        while that context is current.
    name, doc : str, optional
        The getter's ``__name__`` and docstring, for a getter that is a
        public function of its module (it is then that module's).

    Returns
    -------
    callable
        ``get()`` returns the current context's object, raising
        :class:`~gpuarr.driver.InvalidContextError` when no context is
        current.  The objects are kept in a :func:`table` keyed by the
        Context itself (never by ``id()``) and dropped when it is
        detached.  The getter remembers the last (context, object) pair
        as one tuple, so a call in the same context as the previous one
        costs one ``Context.get_current()`` and one identity test.
        ``get.clear()`` forgets every context's object (they are made
        again on demand); ``get.states`` is the table itself (Context ->
        object), for code that visits every context's object.

    Notes
    -----
    Two threads missing at once may both call ``factory``; one object is
    kept.  The objects must not refer to their context's state through
    ``id()``: a new context can reuse the address of a detached one.
    """
    states = table()
    last = (_NOTHING, None)

    def get():
        nonlocal last
        ctx = _drv.Context.get_current()
        hit = last
        if ctx is hit[0]:
            return hit[1]
        st = states.get(ctx)
        if st is None:
            if ctx is None:
                raise no_context_error()
            st = states.setdefault(ctx, factory(ctx))
        last = (ctx, st)
        return st

    def drop(ctx):
        nonlocal last
        if last[0] is ctx:
            last = (_NOTHING, None)

    def clear():
        nonlocal last
        states.clear()
        last = (_NOTHING, None)

    get.clear = clear
    get.states = states
    if name is not None:
        get.__name__ = get.__qualname__ = name
        get.__module__ = factory.__module__
    if doc is not None:
        get.__doc__ = doc
    _getters.append(drop)
    return get


def forget(ctx):
    """Drop every table's entries for ``ctx`` (a Context), and make every
    :func:`state` getter forget it was the last one seen."""
    for drop in _getters:
        drop(ctx)
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


def release_in(ctx, release):
    """Call ``release()`` with ``ctx`` current (pushed if another context
    is), never raising: for destructors of library handles (cuBLAS,
    cuSOLVER) that belong to one context.  A context already gone took
    the handle with it; the error is dropped."""
    try:
        pushed = _drv.Context.get_current() is not ctx
        if pushed:
            ctx.push()
        try:
            release()
        finally:
            if pushed:
                _drv.Context.pop()
    except Exception:
        pass


_drv.add_detach_hook(forget)
