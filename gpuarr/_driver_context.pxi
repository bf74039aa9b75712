# Contexts; part of gpuarr/_driver.pyx, which includes this file.
#
# Owns: the Context class, the one-wrapper-per-CUcontext table (_contexts,
# _last), the per-thread stack of contexts this module pushed (_tls,
# _stack), adopting a context made current by someone else (_wrap_current),
# _current_context() with the one "no current context" error, and the
# detach hooks that upper layers register (add_detach_hook).

# Callables run with a Context about to be detached, so upper layers (the
# compiler's module cache) can drop what they hold in it without the driver
# importing them.
_detach_hooks = []


def add_detach_hook(func):
    """Call ``func(context)`` whenever a context is detached, before it is
    released. For caches of upper layers; exceptions are ignored.

    A gpuarr hook (PyCUDA has none): the compiler's module cache uses it to
    drop what it holds in the context. Hooks run in the order added, each
    added once; they cannot be removed.

    Parameters
    ----------
    func : callable
        Called as ``func(context)`` with the :class:`Context` being
        detached; its return value is ignored, and so is any
        :class:`Exception` it raises.
    """
    if func not in _detach_hooks:
        _detach_hooks.append(func)


# Context wrappers by handle, so one CUcontext has one Python object.
_contexts = weakref.WeakValueDictionary()
# The ordinals of the devices some Context object was made for in this
# process (never shrinks): while it holds one device, operations need not
# ask which device their arrays are on (gpuarr._placement reads it).
context_devices = set()
# (handle, weak reference to its Context) of the last lookup, replaced as one
# object so that threads with different current contexts never see a mixed
# pair; weak, so the cache never keeps a context alive.
cdef tuple _last = (0, None)
# Per thread, the Context objects this module pushed, so that a pushed
# context stays alive while it is on the stack (as the driver's stack
# would have it), e.g. after Device(0).retain_primary_context().push().
_tls = threading.local()


cdef list _stack():
    st = getattr(_tls, "stack", None)
    if st is None:
        st = _tls.stack = []
    return st


cdef void _stack_remove(Context ctx):
    st = _stack()
    for k in range(len(st) - 1, -1, -1):
        if st[k] is ctx:
            del st[k]
            return


cdef Context _new_context(CUcontext c, Device dev, bint primary, bint owned):
    cdef Context ctx
    key = <uintptr_t>c
    old = _contexts.get(key)
    if old is not None and (<Context>old).valid:
        # A second retain of the same primary context: one wrapper stands
        # for both holds, and the extra one is given back by one detach()
        # (_retained), so that a retain/detach pair leaves the context, and
        # the wrapper whoever holds it uses, as they were.
        if owned and primary:
            if (<Context>old).owned:
                _retained[key] = _retained.get(key, 0) + 1
            else:
                (<Context>old).owned = True
        return old
    ctx = Context.__new__(Context)
    ctx.ctx = c
    ctx.device = dev
    context_devices.add(dev.handle)
    ctx.primary = primary
    ctx.owned = owned
    ctx.valid = True
    _contexts[key] = ctx
    return ctx


cdef Context _wrap_current(CUcontext c):
    """The Context object for ``c``, which is current on this thread."""
    global _last
    cdef CUdevice dev = 0
    cdef CUcontext primary = NULL
    cdef unsigned int flags = 0
    cdef int active = 0
    cdef tuple last = _last
    if <uintptr_t>c == <uintptr_t>last[0] and last[1] is not None:
        ctx = last[1]()
        if ctx is not None and (<Context>ctx).valid:
            return ctx
    ctx = _contexts.get(<uintptr_t>c)
    if ctx is None or not (<Context>ctx).valid:
        check(api.cuCtxGetDevice(&dev), "cuCtxGetDevice")
        d = _device_from_handle(dev)
        check(api.cuDevicePrimaryCtxGetState(dev, &flags, &active), "cuDevicePrimaryCtxGetState")
        ctx = None
        if active:
            check(api.cuDevicePrimaryCtxRetain(&primary, dev), "cuDevicePrimaryCtxRetain")
            if primary == c:
                # Current because someone else (CuPy, PyTorch, the runtime)
                # made it so: hold our own reference while we use it.
                ctx = _new_context(c, d, True, True)
            else:
                check(api.cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease_v2")
        if ctx is None:
            ctx = _new_context(c, d, False, False)
    _last = (<uintptr_t>c, weakref.ref(ctx))
    return ctx


cdef Context _current_context():
    """The current Context; raises when none is current."""
    cdef CUcontext c = NULL
    _ensure()
    check(api.cuCtxGetCurrent(&c), "cuCtxGetCurrent")
    if c == NULL:
        raise _errors.no_context_error()
    return _wrap_current(c)


class _ContextMethod:
    """A method that acts on the instance, or on the current context when
    called on the class (PyCUDA's ``Context.synchronize()`` is static)."""

    def __init__(self, func):
        self.func = func
        functools.update_wrapper(self, func)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return functools.partial(self.func, None)
        return functools.partial(self.func, obj)


def _ctx_synchronize(Context self=None):
    """Wait for all work in the context to finish (``cuCtxSynchronize``).

    Called on the class, synchronizes the current context.
    """
    cdef CUresult r, r2 = CUDA_SUCCESS
    cdef bint pushed = False
    if self is None:
        self = _current_context()
    if not self.valid:
        raise _errors.InvalidContextError("the context was detached")
    with nogil:
        r = _push_if_needed(self.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = api.cuCtxSynchronize()
            r2 = _pop_if_pushed(pushed)
    check(r, "cuCtxSynchronize")
    check(r2, "cuCtxPopCurrent_v2")
    if self.deferred:
        _drain_pushed(self)


def _ctx_get_api_version(Context self=None):
    """The API version of this context (``cuCtxGetApiVersion``), an int
    such as 3020; on the class, of the current context.

    Raises
    ------
    InvalidContextError
        For a detached context, or on the class with no current context.
    """
    cdef unsigned int v = 0
    if self is None:
        self = _current_context()
    if not self.valid:
        raise _errors.InvalidContextError("the context was detached")
    check(api.cuCtxGetApiVersion(self.ctx, &v), "cuCtxGetApiVersion")
    return v


# Holds taken with Context.attach (cuCtxAttach) and not yet given back, per
# context handle; each detach() of that context gives one back (cuCtxDetach).
_attached = {}
# Extra holds on a primary context: retain_primary_context() while a
# wrapper holding it is alive returns that wrapper and counts one here; each
# detach() gives one back (cuDevicePrimaryCtxRelease) before the wrapper's
# own.
_retained = {}


cdef int _give_back_attach(CUcontext c) except -1:
    """cuCtxDetach once for ``c`` (pushed for the call if not current:
    the driver wants it current)."""
    cdef CUresult r, r2 = CUDA_SUCCESS
    cdef bint pushed = False
    key = <uintptr_t>c
    r = _push_if_needed(c, &pushed)
    if r == CUDA_SUCCESS:
        r = api.cuCtxDetach(c)
        r2 = _pop_if_pushed(pushed)
    check(r, "cuCtxDetach")
    # the hold is given back only now that the driver took it: a failed
    # detach leaves the count (and a later detach() to retry) as it was
    n = _attached.get(key, 0)
    if n <= 1:
        _attached.pop(key, None)
    else:
        _attached[key] = n - 1
    check(r2, "cuCtxPopCurrent_v2")
    return 0


def _ctx_get_device(Context self=None):
    """The :class:`Device` of this context (of the current one, on the class)."""
    if self is None:
        self = _current_context()
    return self.device


cdef class Context:
    """A CUDA context (``CUcontext``).

    Made by :meth:`Device.retain_primary_context` (the default, shared with
    CuPy and PyTorch), :meth:`Device.make_context`, or returned by
    :meth:`get_current`. Every handle made in a context keeps it alive.
    """

    def __init__(self):
        raise TypeError("contexts come from Device.retain_primary_context(), "
                        "Device.make_context() or Context.get_current()")

    synchronize = _ContextMethod(_ctx_synchronize)
    get_device = _ContextMethod(_ctx_get_device)
    get_api_version = _ContextMethod(_ctx_get_api_version)

    @staticmethod
    def attach(unsigned int flags=0):
        """Take a hold on the current context (``cuCtxAttach``) and return
        it (PyCUDA's ``Context.attach``).

        Each ``attach()`` is given back by one :meth:`detach` of the
        returned context (``cuCtxDetach``), which does nothing else: the
        object stays as valid as it was before the ``attach`` (a later
        ``detach()`` releases the hold it was made with, if any).
        ``cuCtxAttach`` is deprecated since
        CUDA 4.0: :meth:`get_current` gives the current context without a
        hold, and ``Device(n).retain_primary_context()`` a held one.

        Parameters
        ----------
        flags : int
            Must be 0 (the driver's rule).

        Returns
        -------
        Context

        Raises
        ------
        InvalidContextError
            When no context is current.
        NotSupportedError
            When the driver no longer exports ``cuCtxAttach`` (the message
            says what to use instead).
        LogicError
            For ``flags`` other than 0 (``CUDA_ERROR_INVALID_VALUE``).
        """
        cdef CUcontext c = NULL
        _ensure()
        if api.cuCtxAttach == NULL or api.cuCtxDetach == NULL:
            raise _errors.NotSupportedError(
                "Context.attach: this CUDA driver does not export cuCtxAttach "
                "(deprecated since CUDA 4.0); use Context.get_current() for "
                "the current context, or Device(n).retain_primary_context() "
                "and .push() to hold and activate the device's primary context")
        _current_context()
        check(api.cuCtxAttach(&c, flags), "cuCtxAttach")
        ctx = _wrap_current(c)
        key = <uintptr_t>c
        _attached[key] = _attached.get(key, 0) + 1
        return ctx

    @staticmethod
    def get_stream_priority_range():
        """``(least, greatest)`` stream priorities of the current context
        (``cuCtxGetStreamPriorityRange``; lower numbers are higher
        priorities, so ``greatest <= least``; ``(0, 0)`` where the device
        has no priorities).

        Raises
        ------
        InvalidContextError
            When no context is current.
        NotSupportedError
            When the driver lacks ``cuCtxGetStreamPriorityRange``.
        """
        cdef int least = 0, greatest = 0
        _current_context()
        if api.cuCtxGetStreamPriorityRange == NULL:
            raise _errors.NotSupportedError(
                "this driver has no cuCtxGetStreamPriorityRange")
        check(api.cuCtxGetStreamPriorityRange(&least, &greatest),
              "cuCtxGetStreamPriorityRange")
        return (least, greatest)

    @property
    def handle(self):
        """The ``CUcontext`` as an int."""
        return <uintptr_t>self.ctx

    @property
    def is_primary(self):
        return bool(self.primary)

    @property
    def pending_releases(self):
        """How many handles of objects that died wait to be released in
        this context: those dropped while a stream capture was in progress
        in the process (releasing them would invalidate it). They are
        released when the capture ends, or at the context's next
        allocation, synchronize, push or detach once none is in progress."""
        return len(self.deferred) if self.deferred else 0

    @staticmethod
    def enable_peer_access(peer, unsigned int flags=0):
        """Let the current context use memory allocated in ``peer``, a
        context of another device (``cuCtxEnablePeerAccess``; PyCUDA's
        static ``Context.enable_peer_access``). One direction only: call it
        in each context for both.

        Raises
        ------
        TypeError
            When ``peer`` is not a :class:`Context`.
        InvalidContextError
            When ``peer`` was detached or no context is current.
        LogicError
            ``CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED``; ``NotSupportedError``
            (``CUDA_ERROR_PEER_ACCESS_UNSUPPORTED``) where
            :meth:`Device.can_access_peer` is False, the same device
            included.
        """
        _peer_access(peer, True, flags)

    @staticmethod
    def disable_peer_access(peer, unsigned int flags=0):
        """Undo :meth:`enable_peer_access` for ``peer``
        (``cuCtxDisablePeerAccess``).

        Raises
        ------
        LogicError
            ``CUDA_ERROR_PEER_ACCESS_NOT_ENABLED`` when it was not enabled.
        """
        _peer_access(peer, False, flags)

    def push(self):
        """Make this context current on this thread (``cuCtxPushCurrent``)."""
        if not self.valid:
            raise _errors.InvalidContextError("the context was detached")
        check(api.cuCtxPushCurrent(self.ctx), "cuCtxPushCurrent_v2")
        _stack().append(self)
        if self.deferred:
            _drain_deferred(self)

    def __enter__(self):
        """``with ctx:`` pushes the context for the block (:meth:`push`)
        and pops it after, exception or not."""
        self.push()
        return self

    def __exit__(self, exc_type, exc, tb):
        Context.pop()
        return False

    @staticmethod
    def pop():
        """Pop the current context off this thread's stack
        (``cuCtxPopCurrent``) and return it."""
        cdef CUcontext c = NULL
        _ensure()
        check(api.cuCtxPopCurrent(&c), "cuCtxPopCurrent_v2")
        ctx = _contexts.get(<uintptr_t>c)
        st = _stack()
        if st and (<Context>st[len(st) - 1]).ctx == c:
            ctx = st.pop()
        return ctx

    @staticmethod
    def get_current():
        """The current context, or None when none is current."""
        cdef CUcontext c = NULL
        _ensure()
        check(api.cuCtxGetCurrent(&c), "cuCtxGetCurrent")
        if c == NULL:
            return None
        return _wrap_current(c)

    def detach(self):
        """Give up this object's hold on the context.

        Pops it if it is current, then releases the primary context
        (``cuDevicePrimaryCtxRelease``) or destroys a created one
        (``cuCtxDestroy``). Handles still alive in it are dropped, with a
        warning, when they die.  A primary context retained more than once
        (one object stands for every retain) gives back one extra retain
        per ``detach()``, and nothing else changes, until the last; an
        :meth:`attach` hold likewise.
        """
        global _last
        cdef CUcontext cur = NULL
        if not self.valid:
            return
        if <uintptr_t>self.ctx in _attached:
            # Give back one Context.attach hold, and only that: the object
            # stays valid (its other hold, or none for a context someone
            # else made current, is as it was before the attach).
            _give_back_attach(self.ctx)
            return
        n = _retained.get(<uintptr_t>self.ctx, 0)
        if n:
            # one of several retains: release it, nothing else changes
            check(api.cuDevicePrimaryCtxRelease(self.device.handle), "cuDevicePrimaryCtxRelease_v2")
            if n == 1:
                del _retained[<uintptr_t>self.ctx]
            else:
                _retained[<uintptr_t>self.ctx] = n - 1
            return
        for hook in list(_detach_hooks):
            try:
                hook(self)
            except Exception:
                pass
        if self.deferred:
            _drain_pushed(self)
        self.valid = False
        if _last[1] is not None and _last[1]() is self:
            _last = (0, None)
        if not self.owned:
            return
        check(api.cuCtxGetCurrent(&cur), "cuCtxGetCurrent")
        if cur == self.ctx and self.primary:
            check(api.cuCtxPopCurrent(&cur), "cuCtxPopCurrent_v2")
        if cur == self.ctx:       # popped above, or by cuCtxDestroy below
            _stack_remove(self)
        if self.primary:
            check(api.cuDevicePrimaryCtxRelease(self.device.handle), "cuDevicePrimaryCtxRelease_v2")
        else:
            check(api.cuCtxDestroy(self.ctx), "cuCtxDestroy_v2")

    @staticmethod
    def get_limit(limit):
        """Value of a ``CUlimit`` of the current context (``cuCtxGetLimit``)."""
        cdef size_t v = 0
        _current_context()
        check(api.cuCtxGetLimit(&v, int(limit)), "cuCtxGetLimit")
        return v

    @staticmethod
    def set_limit(limit, size_t value):
        """Set a ``CUlimit`` of the current context (``cuCtxSetLimit``)."""
        _current_context()
        check(api.cuCtxSetLimit(int(limit), value), "cuCtxSetLimit")

    @staticmethod
    def get_cache_config():
        """The current context's ``func_cache`` preference."""
        cdef int v = 0
        _current_context()
        check(api.cuCtxGetCacheConfig(&v), "cuCtxGetCacheConfig")
        from gpuarr._enums import func_cache
        return func_cache(v)

    @staticmethod
    def set_cache_config(config):
        """Set the current context's ``func_cache`` preference."""
        _current_context()
        check(api.cuCtxSetCacheConfig(int(config)), "cuCtxSetCacheConfig")

    def __eq__(self, other):
        return isinstance(other, Context) and (<Context>other).ctx == self.ctx

    def __hash__(self):
        return hash(("Context", <uintptr_t>self.ctx))

    def __repr__(self):
        return "<gpuarr.driver.Context %s0x%x on device %d%s>" % (
            "primary " if self.primary else "", <uintptr_t>self.ctx,
            self.device.handle if self.device is not None else -1,
            "" if self.valid else ", detached")

    def __dealloc__(self):
        cdef CUcontext cur = NULL
        if self.valid and not _finalizing and _loaded and _attached:
            try:
                while <uintptr_t>self.ctx in _attached:
                    _give_back_attach(self.ctx)
            except BaseException:
                _attached.pop(<uintptr_t>self.ctx, None)
        if not self.owned or not self.valid or _finalizing or not _loaded:
            return
        if self.deferred:
            try:
                _drain_pushed(self)
            except BaseException:
                pass
        self.valid = False
        if self.primary:
            for _ in range(_retained.pop(<uintptr_t>self.ctx, 0)):
                api.cuDevicePrimaryCtxRelease(self.device.handle)
            r = api.cuDevicePrimaryCtxRelease(self.device.handle)
        else:
            r = api.cuCtxDestroy(self.ctx)
        if r != CUDA_SUCCESS:
            _release_failed("context", r)
