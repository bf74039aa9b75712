# Streams and events; part of gpuarr/_driver.pyx, which includes this file.
#
# Owns: the Stream and Event classes (creation in the current context,
# synchronization, queries, timing, release in their own context).

cdef class Stream:
    """A CUDA stream (``cuStreamCreate``) in the current context.

    Parameters
    ----------
    flags : int
        ``stream_flags`` (``NON_BLOCKING`` = 1 does not synchronize with the
        legacy default stream).
    """

    def __cinit__(self, unsigned int flags=0):
        self.context = _current_context()
        check(api.cuStreamCreate(&self.stream, flags), "cuStreamCreate")

    @property
    def handle(self):
        """The ``CUstream`` as an int."""
        return <uintptr_t>self.stream

    def synchronize(self):
        """Wait for the stream's work to finish (``cuStreamSynchronize``)."""
        cdef CUresult r
        with nogil:
            r = api.cuStreamSynchronize(self.stream)
        check(r, "cuStreamSynchronize")

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

    def __repr__(self):
        return "<gpuarr.driver.Stream 0x%x>" % <uintptr_t>self.stream

    def __dealloc__(self):
        cdef bint pushed = False
        cdef CUresult r
        if self.stream == NULL or not _release_ok(self.context, "stream"):
            return
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = api.cuStreamDestroy(self.stream)
            _pop_if_pushed(pushed)
        self.stream = NULL
        if r != CUDA_SUCCESS:
            _release_failed("stream", r)


cdef class Event:
    """A CUDA event (``cuEventCreate``) in the current context.

    Parameters
    ----------
    flags : int
        ``event_flags`` (``BLOCKING_SYNC`` = 1, ``DISABLE_TIMING`` = 2).
    """

    def __cinit__(self, unsigned int flags=0):
        self.context = _current_context()
        check(api.cuEventCreate(&self.event, flags), "cuEventCreate")

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
        cdef bint pushed = False
        cdef CUresult r
        if self.event == NULL or not _release_ok(self.context, "event"):
            return
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = api.cuEventDestroy(self.event)
            _pop_if_pushed(pushed)
        self.event = NULL
        if r != CUDA_SUCCESS:
            _release_failed("event", r)
