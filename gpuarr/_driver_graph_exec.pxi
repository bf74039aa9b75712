# CUDA graphs, part 3; part of gpuarr/_driver.pyx, which includes this file
# after _driver_graph_nodes.pxi.
#
# Owns: GraphExec (an instantiated graph: launch, kernel-node parameter
# updates, whole-graph updates), released in its own context.

cdef class GraphExec:
    """An executable graph (``CUgraphExec``), from :meth:`Graph.instantiate`.

    It keeps its :class:`Graph` (and what that keeps) alive, and is
    released (``cuGraphExecDestroy``) in its own context when it dies.
    """
    cdef CUgraphExec exec_
    cdef readonly Context context
    cdef readonly Graph graph
    cdef list _keep
    cdef object _done          # Event recorded after each launch (_in_flight)

    def __init__(self):
        raise TypeError("executable graphs come from Graph.instantiate()")

    @property
    def handle(self):
        """The ``CUgraphExec`` as an int."""
        return <uintptr_t>self.exec_

    def launch(self, stream=None):
        """Launch the whole graph into ``stream`` (default: the legacy
        default stream) (``cuGraphLaunch``). A launch runs after the
        previous launch of the same GraphExec."""
        cdef CUstream s = _stream_handle(stream)
        cdef CUresult r
        _drop_finished_calls()
        _drop_finished_graphs()
        with nogil:
            r = gapi.cuGraphLaunch(self.exec_, s)
        if r != CUDA_SUCCESS:
            raise _make_error(r, "cuGraphLaunch", _CAPTURE_HINTS.get(r))
        # The driver destroys a running graph only when it finishes, but what
        # its nodes use (host callables, host buffers, kernel arguments) lives
        # in this object: keep it until an event after the launch has
        # happened, even if the caller drops it at once.
        if not (isinstance(stream, Stream) and (<Stream>stream).capturing):
            if self._done is None:
                self._done = Event(2)            # DISABLE_TIMING
            (<Event>self._done).record(stream)
            _graphs_in_flight[id(self)] = self

    def kernel_node_set_params(self, *args, kernel_node=None, func=None, block=None,
                               grid=(1, 1), unsigned int shared=0):
        """Give a kernel node new arguments and dims for later launches
        (``cuGraphExecKernelNodeSetParams``; PyCUDA's name). The graph the
        node belongs to is not changed.

        Parameters
        ----------
        *args
            The kernel's arguments, checked and packed as ``Function`` does.
        kernel_node : GraphNode
            A kernel node of the instantiated graph (or of one given to
            :meth:`update`).
        func : Function, optional
            The node's kernel; default: the one ``add_kernel_node`` gave it
            (needed for a node that came from a capture).
        block, grid, shared
            As :meth:`Graph.add_kernel_node`.

        Raises
        ------
        TypeError
            ``kernel_node`` not a GraphNode, no ``func``, bad arguments.
        ValueError
            A node of another graph, or not a kernel node.
        """
        cdef unsigned int g[3]
        cdef unsigned int b[3]
        cdef Py_ssize_t nargs = len(args)
        cdef size_t total
        cdef _KernelNodeParams p
        cdef char* buf = NULL
        cdef void** params = NULL
        cdef CUresult r
        if not isinstance(kernel_node, GraphNode):
            raise TypeError("kernel_node_set_params: kernel_node= must be a GraphNode, "
                            "not %s" % type(kernel_node).__name__)
        node = <GraphNode>kernel_node
        if not any((<Graph>x).graph == node.graph.graph for x in self._keep
                   if isinstance(x, Graph)):
            raise ValueError("kernel_node_set_params: kernel_node is a node of another "
                             "graph than the one instantiated")
        if func is None:
            func = node.func
            if func is None:
                raise TypeError("kernel_node_set_params: func= is needed for a node "
                                "not made by add_kernel_node")
        fn = _kernel_node_params(func, args, block, grid, shared, g, b,
                                 "kernel_node_set_params")
        t = node.type
        if t != graph_node_type.KERNEL:
            raise ValueError("kernel_node_set_params: kernel_node is a %s node, not "
                             "a kernel node" % getattr(t, "name", t))
        _gneed(gapi.cuGraphExecKernelNodeSetParams_v2, "cuGraphExecKernelNodeSetParams_v2")
        total = (<Function>fn)._pack_bytes(nargs)
        buf = <char*>malloc(total + 1)
        params = <void**>malloc((nargs + 1) * sizeof(void*))
        try:
            if buf == NULL or params == NULL:
                raise MemoryError()
            (<Function>fn)._pack(args, buf, params, [])
            _fill_kernel_params(&p, <Function>fn, g, b, shared, params, nargs)
            r = gapi.cuGraphExecKernelNodeSetParams_v2(self.exec_, node.node, &p)
        finally:
            free(buf)
            free(params)
        if r != CUDA_SUCCESS:
            raise _make_error(r, "cuGraphExecKernelNodeSetParams_v2",
                              "kernel %r, grid=%r, block=%r"
                              % ((<Function>fn).function_name, grid, block))
        self._keep.append((fn, args))

    def update(self, graph):
        """Take the node parameters of ``graph``, a graph of the same
        topology as the instantiated one, without instantiating again
        (``cuGraphExecUpdate``).

        Raises
        ------
        TypeError
            ``graph`` is not a Graph.
        RuntimeError
            (``CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE``) when the driver
            refuses: the message says why (``graph_exec_update_result``:
            topology changed, node type changed, ...); the executable
            graph is unchanged then.
        """
        cdef _ExecUpdateResultInfo info
        cdef CUresult r
        if not isinstance(graph, Graph):
            raise TypeError("update: graph must be a Graph, not %s" % type(graph).__name__)
        (<Graph>graph)._alive("update")
        _gneed(gapi.cuGraphExecUpdate_v2, "cuGraphExecUpdate_v2")
        memset(&info, 0, sizeof(info))
        r = gapi.cuGraphExecUpdate_v2(self.exec_, (<Graph>graph).graph, &info)
        if r != CUDA_SUCCESS:
            try:
                why = graph_exec_update_result(info.result).name
            except ValueError:
                why = str(info.result)
            raise _make_error(r, "cuGraphExecUpdate_v2", _UPDATE_HINTS.get(
                info.result, "the driver refused the update (%s)" % why)
                + " [%s]" % why)
        self._keep.append(graph)

    def __repr__(self):
        return "<gpuarr.driver.GraphExec 0x%x>" % <uintptr_t>self.exec_

    def __dealloc__(self):
        cdef bint pushed = False
        cdef CUresult r
        if self.exec_ == NULL or not _release_ok(self.context, "executable graph"):
            return
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = gapi.cuGraphExecDestroy(self.exec_)
            _pop_if_pushed(pushed)
        self.exec_ = NULL
        if r != CUDA_SUCCESS:
            _release_failed("executable graph", r)


# GraphExec objects launched and perhaps still running, by id: each stays
# alive until its _done event has happened (_drop_finished_graphs).
_graphs_in_flight = {}


cdef void _drop_finished_graphs() noexcept:
    cdef CUresult r
    if not _graphs_in_flight:
        return
    try:
        for key, g in list(_graphs_in_flight.items()):
            r = api.cuEventQuery((<Event>(<GraphExec>g)._done).event)
            if r != CUDA_ERROR_NOT_READY:
                del _graphs_in_flight[key]
    except BaseException:
        pass


_UPDATE_HINTS = {
    2: "the driver refused the update: the new graph's topology (its nodes or "
       "edges) differs from the instantiated one; instantiate it instead",
    3: "the driver refused the update: a node's type differs from the "
       "instantiated graph's",
    4: "the driver refused the update: a kernel node's function changed",
    5: "the driver refused the update: a node's parameters changed in a way "
       "that cannot be updated",
    6: "the driver refused the update: a node cannot be updated",
    7: "the driver refused the update: a kernel node's function changed in a "
       "way that cannot be updated",
    8: "the driver refused the update: a node's attributes changed",
}
