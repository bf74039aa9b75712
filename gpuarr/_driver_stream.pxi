# Streams and events; part of gpuarr/_driver.pyx, which includes this file.
#
# Owns: the Stream and Event classes (creation in the current context,
# synchronization, queries, timing, release in their own context).

# The docstring opens with a text signature ("Name(...)", "--", a blank line,
# unindented) for inspect.signature(), which cannot see a cdef class's
# constructor: numpydoc and Sphinx check and show its parameters from it.
cdef class Stream:
    """Stream(flags=0, priority=0)
--

A CUDA stream (``cuStreamCreate``) in the current context.

    PyCUDA's ``Stream``. Released in its own context when the object dies.

    Parameters
    ----------
    flags : int, optional
        ``stream_flags`` (``NON_BLOCKING`` = 1 does not synchronize with the
        legacy default stream).
    priority : int, optional
        Scheduling priority (``cuStreamCreateWithPriority``): lower numbers
        are served first, within :meth:`Context.get_stream_priority_range`
        (``(0, -5)`` on an H200: 0 is the default and lowest). The driver
        clamps values outside the range.

    Raises
    ------
    TypeError
        When ``priority`` is not an integer.
    OverflowError
        For negative ``flags``.
    InvalidContextError
        When no context is current.
    """

    def __cinit__(self, unsigned int flags=0, priority=0):
        cdef int prio
        if not isinstance(priority, (int, np.integer)) or isinstance(priority, bool):
            raise TypeError("priority must be an int, not %s" % type(priority).__name__)
        prio = priority
        self.context = _current_context()
        if prio == 0:
            check(api.cuStreamCreate(&self.stream, flags), "cuStreamCreate")
        else:
            check(api.cuStreamCreateWithPriority(&self.stream, flags, prio),
                  "cuStreamCreateWithPriority")

    @property
    def handle(self):
        """The ``CUstream`` as an int."""
        return <uintptr_t>self.stream

    def __cuda_stream__(self):
        """The CUDA stream protocol: ``(0, handle)``, the protocol's version
        and the ``CUstream`` as an int, so CuPy, PyTorch, Numba and
        cuda.core take a gpuarr stream wherever they take one of theirs."""
        return (0, <uintptr_t>self.stream)

    @property
    def priority(self):
        """The stream's priority as the driver clamped it
        (``cuStreamGetPriority``)."""
        cdef int v = 0
        check(api.cuStreamGetPriority(self.stream, &v), "cuStreamGetPriority")
        return v

    @property
    def flags(self):
        """The ``stream_flags`` the stream was made with (``cuStreamGetFlags``)."""
        cdef unsigned int v = 0
        check(api.cuStreamGetFlags(self.stream, &v), "cuStreamGetFlags")
        return v

    def synchronize(self):
        """Wait for the stream's work to finish (``cuStreamSynchronize``)."""
        cdef CUresult r
        with nogil:
            r = api.cuStreamSynchronize(self.stream)
        check(r, "cuStreamSynchronize")
        _drop_finished_calls()
        _drop_finished_graphs()

    def is_done(self):
        """Whether all the stream's work has finished (``cuStreamQuery``)."""
        r = api.cuStreamQuery(self.stream)
        if r == CUDA_ERROR_NOT_READY:
            return False
        check(r, "cuStreamQuery")
        return True

    def wait_for_event(self, Event event not None):
        """Make later work in this stream wait for ``event``
        (``cuStreamWaitEvent``)."""
        check(api.cuStreamWaitEvent(self.stream, event.event, 0), "cuStreamWaitEvent")

    # Host callbacks and stream capture (implemented in _driver_graph.pxi).

    def add_callback(self, callback, flags=0):
        """Call ``callback(stream, status)`` on a host thread once the work
        queued so far has finished (``cuStreamAddCallback``).

        ``stream`` is this Stream and ``status`` the stream's ``CUresult``
        (0, or the error that stopped its work). Later work in the stream
        waits for the callback. The callback is kept alive until it has run;
        it runs with the GIL taken, and an exception raised in it is
        reported to ``sys.unraisablehook`` (``object`` is the callback: as
        Python reports exceptions it cannot raise), never lost. It must not
        call CUDA, gpuarr's driver included (nor drop the last reference to
        gpuarr memory): the driver forbids CUDA calls in host callbacks.

        Raises
        ------
        TypeError
            ``callback`` is not callable (before any driver call).
        ValueError
            ``flags`` is not 0.
        LogicError
            The stream is capturing (use :meth:`launch_host_func`).
        """
        _stream_add_callback(self, callback, flags)

    def launch_host_func(self, func, *args):
        """Call ``func(*args)`` on a host thread in stream order
        (``cuLaunchHostFunc``): after the work queued so far, before work
        queued later.

        As :meth:`add_callback` (GIL taken, exceptions to
        ``sys.unraisablehook``, no CUDA calls inside); ``func`` and ``args``
        stay alive until it has run. On a capturing stream it becomes a host
        node of the captured graph, run at every launch of it, and the graph
        keeps ``func`` and ``args`` alive.

        Raises
        ------
        TypeError
            ``func`` is not callable (before any driver call).
        """
        _stream_launch_host_func(self, func, args)

    def begin_capture(self, mode=0):
        """Start recording the work queued on this stream into a graph
        instead of running it (``cuStreamBeginCapture_v2``; PyCUDA's name).

        Parameters
        ----------
        mode : capture_mode
            ``GLOBAL`` (default; other threads' unsafe calls, such as a
            synchronous ``mem_alloc``, are refused while it lasts),
            ``THREAD_LOCAL`` (this thread's only) or ``RELAXED``.

        Raises
        ------
        ValueError
            A bad ``mode``; the legacy default stream (it cannot be captured).
        LogicError
            The stream is capturing already.
        """
        _stream_begin_capture(self, mode)

    def end_capture(self):
        """End the capture and return the recorded :class:`Graph`
        (``cuStreamEndCapture``).

        Raises
        ------
        LogicError
            The stream is not capturing.
        Error
            The capture failed (``CUDA_ERROR_STREAM_CAPTURE_*``; the message
            says what broke it, e.g. a synchronous call or the legacy default
            stream used meanwhile); the capture is over then.
        """
        return _stream_end_capture(self)

    def is_capturing(self):
        """Whether the stream is capturing (``cuStreamIsCapturing``): True
        also for a capture that an illegal call has invalidated (it still
        needs :meth:`end_capture`)."""
        return _stream_is_capturing(self)

    def get_capture_info_v2(self):
        """``(status, id, graph, dependencies)`` of the stream's capture
        (``cuStreamGetCaptureInfo``; PyCUDA's name): a ``capture_status``,
        the capture's unique id, the :class:`Graph` being recorded and the
        nodes the next captured work will depend on. ``(NONE, 0, None, [])``
        when not capturing. Nodes added to ``graph`` with its ``add_*_node``
        methods join the capture through
        :meth:`update_capture_dependencies`."""
        return _stream_capture_info(self)

    def update_capture_dependencies(self, nodes, flags=0):
        """Set (``flags=update_capture_dependencies_flags.SET_CAPTURE_DEPENDENCIES``)
        or extend (``ADD_CAPTURE_DEPENDENCIES``, 0) the nodes the next
        captured work depends on (``cuStreamUpdateCaptureDependencies``;
        PyCUDA's name). ``nodes`` are nodes of the graph being captured."""
        _stream_update_capture_dependencies(self, nodes, flags)

    def __repr__(self):
        return "<gpuarr.driver.Stream 0x%x>" % <uintptr_t>self.stream

    def __dealloc__(self):
        if self.capturing:
            _capture_abandoned(self.context)
        if self.stream == NULL or not _release_ok(self.context, "stream"):
            return
        _release_in_context(self.context, _REL_STREAM, <uintptr_t>self.stream, None)
        self.stream = NULL


# The docstring opens with a text signature ("Name(...)", "--", a blank line,
# unindented) for inspect.signature(), which cannot see a cdef class's
# constructor: numpydoc and Sphinx check and show its parameters from it.
cdef class Event:
    """Event(flags=0, *, ipc_handle=None)
--

A CUDA event (``cuEventCreate``) in the current context.

    PyCUDA's ``Event``. Destroyed in its own context when the object dies.

    Parameters
    ----------
    flags : int, optional
        ``event_flags``: ``BLOCKING_SYNC`` (1; ``synchronize`` sleeps instead
        of spinning), ``DISABLE_TIMING`` (2), ``INTERPROCESS`` (4; needs
        ``DISABLE_TIMING``, for :meth:`ipc_handle`).
    ipc_handle : bytes, optional
        Open the event of another process instead
        (``cuIpcOpenEventHandle``); see :meth:`from_ipc_handle`.

    Raises
    ------
    ValueError
        For ``INTERPROCESS`` without ``DISABLE_TIMING`` (the driver's rule),
        or flags given with ``ipc_handle``.
    InvalidContextError
        When no context is current.
    """

    def __cinit__(self, unsigned int flags=0, *, ipc_handle=None):
        if ipc_handle is not None:
            if flags:
                raise ValueError("flags cannot be given with ipc_handle (an opened "
                                 "event has the flags it was made with)")
            self.context = _current_context()
            _event_open_ipc(self, ipc_handle)
            return
        if flags & 4 and not flags & 2:
            raise ValueError("event_flags.INTERPROCESS needs event_flags.DISABLE_TIMING")
        self.context = _current_context()
        check(api.cuEventCreate(&self.event, flags), "cuEventCreate")

    @staticmethod
    def from_ipc_handle(handle):
        """The event of another process, from the 64 bytes its
        :meth:`ipc_handle` returned (``cuIpcOpenEventHandle``; PyCUDA's
        ``Event.from_ipc_handle``). Record and wait on it as on any
        event; it is destroyed here when the object dies."""
        return Event(ipc_handle=handle)

    def ipc_handle(self):
        """64 bytes another process opens with :meth:`from_ipc_handle`
        (``cuIpcGetEventHandle``; the event must have been made with
        ``INTERPROCESS | DISABLE_TIMING``).

        Raises
        ------
        LogicError
            For an event made without ``INTERPROCESS``.
        """
        return _event_ipc_handle(self)

    @property
    def handle(self):
        return <uintptr_t>self.event

    def record(self, stream=None):
        """Record the event in ``stream`` (default: the legacy default
        stream) (``cuEventRecord``). Returns ``self``."""
        check(api.cuEventRecord(self.event, _stream_handle(stream)), "cuEventRecord")
        return self

    def synchronize(self):
        """Wait until the event has happened (``cuEventSynchronize``).
        Returns ``self``."""
        cdef CUresult r
        with nogil:
            r = api.cuEventSynchronize(self.event)
        check(r, "cuEventSynchronize")
        return self

    def query(self):
        """Whether the event has happened (``cuEventQuery``)."""
        r = api.cuEventQuery(self.event)
        if r == CUDA_ERROR_NOT_READY:
            return False
        check(r, "cuEventQuery")
        return True

    def time_since(self, Event start not None):
        """Milliseconds from ``start`` to this event (``cuEventElapsedTime``)."""
        cdef float ms = 0
        check(api.cuEventElapsedTime(&ms, start.event, self.event), "cuEventElapsedTime")
        return ms

    def time_till(self, Event end not None):
        """Milliseconds from this event to ``end`` (``cuEventElapsedTime``)."""
        cdef float ms = 0
        check(api.cuEventElapsedTime(&ms, self.event, end.event), "cuEventElapsedTime")
        return ms

    def __dealloc__(self):
        if self.event == NULL or not _release_ok(self.context, "event"):
            return
        _release_in_context(self.context, _REL_EVENT, <uintptr_t>self.event, None)
        self.event = NULL
