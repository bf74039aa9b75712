"""Which device an operation on arrays runs on (issue 16: several GPUs in
one process).

An operation runs on its arrays' device, as PyTorch's do, whatever the
current context: :func:`on_arrays_device` wraps an entry point so that,
when its array arguments live on another device than the current
context's, that device's context is pushed around the call (its output
is allocated there, its kernels are that context's).  Arrays of two
devices in one operation raise :class:`ValueError` before any launch.

While the process has made Context objects for one device only (the
driver's ``context_devices``), nothing is asked: the wrapped call costs
one length test.  Past that, each array argument costs one
``cuPointerGetAttributes`` call.

The array layer registers its array class (:func:`register_array_type`),
so the kernel families of layer 4 can route their calls too without
importing it.
"""

import functools
import types

from . import driver as _drv

__all__ = ["register_array_type", "target_context", "on_arrays_device",
           "call_in", "route", "device_of",
           "mixed_devices_error"]

_SEEN = _drv.context_devices
_ARRAY_TYPES = []
_ATTRS = None


def register_array_type(cls):
    """Count instances of ``cls`` (an array class with ``ptr`` and
    ``size``) as arrays whose device decides where an operation runs."""
    if cls not in _ARRAY_TYPES:
        _ARRAY_TYPES.append(cls)


def _arrays(objs):
    kinds = tuple(_ARRAY_TYPES)
    for x in objs:
        if isinstance(x, kinds):
            yield x
        elif type(x) in (list, tuple):
            for y in x:
                if isinstance(y, kinds):
                    yield y


def device_of(a):
    """``(ordinal, Context or None)`` of array ``a``'s memory: the
    context the memory was allocated in when the driver says so and
    gpuarr knows it (memory of stream-ordered pools has none), else None;
    ``(None, None)`` for an empty array."""
    global _ATTRS
    if not a.size or not a.ptr:
        return None, None
    if _ATTRS is None:
        pa = _drv.pointer_attribute
        _ATTRS = (pa.DEVICE_ORDINAL, pa.CONTEXT)
    got = _drv.pointer_get_attributes(int(a.ptr), list(_ATTRS))
    ctx = got.get(_ATTRS[1])
    return int(got[_ATTRS[0]]), ctx if isinstance(ctx, _drv.Context) else None


def mixed_devices_error(first, second):
    """The ValueError for one operation over arrays of two devices."""
    return ValueError(
        "the arrays of one operation are on different devices (device %d "
        "and device %d); copy one over first with .to_device(n)"
        % (first, second))


def _place(objs):
    """``(ordinal, Context or None)`` shared by the arrays among ``objs``,
    ``(None, None)`` for none; ValueError for two devices."""
    dev = ctx = None
    for a in _arrays(objs):
        d, c = device_of(a)
        if d is None:
            continue
        if dev is None:
            dev, ctx = d, c
        elif d != dev:
            raise mixed_devices_error(dev, d)
    return dev, ctx


def _context_for(dev, ctx):
    if dev is None:
        return None
    cur = _drv.Context.get_current()
    if cur is not None and (cur is ctx or (
            ctx is None and cur.get_device().handle == dev)):
        return None
    return ctx if ctx is not None else _drv.Device(dev).get_primary_context()


def target_context(objs):
    """The Context an operation over ``objs`` (its positional and keyword
    argument values; GPUArrays among them, or in a list or tuple among
    them, count) has to run in, or None to run in the current one.

    Returns None at once while the process knows one device.  Else it is
    the context of the arrays' memory (the device's kept primary context,
    :meth:`gpuarr.driver.Device.get_primary_context`, when the driver
    names none), unless the current context is on that device already.

    Raises
    ------
    ValueError
        For arrays on two devices.
    """
    if len(_SEEN) < 2:
        return None
    return _context_for(*_place(objs))


def call_in(ctx, func, *args, **kwargs):
    """``func(*args, **kwargs)`` with ``ctx`` pushed for the call."""
    ctx.push()
    try:
        return func(*args, **kwargs)
    finally:
        _drv.Context.pop()


def on_arrays_device(func, source=None):
    """Decorator: run ``func`` in the context of its array arguments'
    device (:func:`target_context`), pushing it for the call when it is
    not current.

    ``source``, for a copy (an assignment), is the position of the
    argument copied from: an array there on another device than the
    other arrays is first copied to theirs (``to_device``, which needs no
    peer access), so a copy between devices works where any other
    operation over two devices raises ValueError.
    """
    @functools.wraps(func)
    def run(*args, **kwargs):
        if len(_SEEN) < 2:
            return func(*args, **kwargs)
        if source is not None and len(args) > source:
            rest = args[:source] + args[source + 1:] + tuple(kwargs.values())
            dev, ctx = _place(rest)
            src = args[source]
            if dev is not None and isinstance(src, tuple(_ARRAY_TYPES)):
                d = device_of(src)[0]
                if d is not None and d != dev:
                    args = args[:source] + (src.to_device(dev),) \
                        + args[source + 1:]
            ctx = _context_for(dev, ctx) if dev is not None \
                else target_context(args + tuple(kwargs.values()))
        else:
            ctx = target_context(args + tuple(kwargs.values()))
        if ctx is None:
            return func(*args, **kwargs)
        return call_in(ctx, func, *args, **kwargs)
    return run


def route(namespace, skip=(), names=None, copies=None):
    """Wrap every function a module defines and lists in ``__all__`` with
    :func:`on_arrays_device`, in place: called at the end of a routine
    module with ``globals()``, before any other module reads its names
    (so GPUArray's methods, the flat namespace and numpy's dispatch all
    get the wrapped functions).  Names in ``skip`` stay as they are (a
    function that picks its contexts itself, or one that takes no
    arrays); ``names`` replaces ``__all__`` as the list to wrap;
    ``copies`` maps the names of copies to their ``source`` position
    (:func:`on_arrays_device`)."""
    mod = namespace["__name__"]
    for name in namespace["__all__"] if names is None else names:
        f = namespace.get(name)
        if isinstance(f, types.FunctionType) and f.__module__ == mod \
                and name not in skip:
            namespace[name] = on_arrays_device(
                f, (copies or {}).get(name))
