# CUDA graphs, part 2; part of gpuarr/_driver.pyx, which includes this file
# after _driver_graph.pxi.
#
# Owns: Graph (cuGraphCreate, its nodes and edges, clone, dot output,
# instantiation; released in its own context) and GraphNode.

from gpuarr._enums import capture_status, graph_node_type, graph_exec_update_result


cdef Graph _new_graph(CUgraph h, Context ctx, bint owned):
    cdef Graph g = Graph.__new__(Graph)
    g.graph = h
    g.context = ctx
    g.owned = owned
    return g


cdef GraphNode _new_node(Graph g, CUgraphNode h):
    cdef GraphNode n = GraphNode.__new__(GraphNode)
    n.node = h
    n.graph = g
    return n


cdef CUgraphNode* _node_array(Graph g, object nodes, str what, size_t* n) except? NULL:
    """A malloc'd array of the handles of ``nodes`` (GraphNodes of ``g``;
    None or empty gives NULL and n = 0). The caller frees it."""
    cdef CUgraphNode* arr
    cdef Py_ssize_t k, j
    n[0] = 0
    if nodes is None:
        return NULL
    if isinstance(nodes, GraphNode):
        nodes = (nodes,)
    try:
        seq = tuple(nodes)
    except TypeError:
        raise TypeError("%s must be a list of GraphNode, not %s"
                        % (what, type(nodes).__name__)) from None
    if not seq:
        return NULL
    for k in range(len(seq)):
        node = seq[k]
        if not isinstance(node, GraphNode):
            raise TypeError("%s[%d] must be a GraphNode, not %s"
                            % (what, k, type(node).__name__))
        if (<GraphNode>node).graph.graph != g.graph or g.graph == NULL:
            raise ValueError("%s[%d] is a node of another graph" % (what, k))
        for j in range(k):
            if (<GraphNode>seq[j]).node == (<GraphNode>node).node:
                raise ValueError("%s[%d] repeats %s[%d] (the driver takes each "
                                 "dependency once)" % (what, k, what, j))
    arr = <CUgraphNode*>malloc(len(seq) * sizeof(CUgraphNode))
    if arr == NULL:
        raise MemoryError()
    for k in range(len(seq)):
        arr[k] = (<GraphNode>seq[k]).node
    n[0] = len(seq)
    return arr


cdef object _host_view(object obj, str what):
    """A memoryview of a host buffer: while a graph keeps it, the buffer
    stays exported (its memory cannot move)."""
    if isinstance(obj, memoryview):
        return obj
    try:
        return memoryview(obj)
    except TypeError:
        raise TypeError("%s: %s does not expose a host buffer"
                        % (what, type(obj).__name__)) from None


cdef class GraphNode:
    """A node of a :class:`Graph` (``CUgraphNode``), from the graph's
    ``add_*_node`` methods, :meth:`Graph.get_nodes` or
    :meth:`Stream.get_capture_info_v2`.

    The node keeps its graph alive; two objects for one node compare equal.
    """
    cdef CUgraphNode node
    cdef readonly Graph graph
    cdef object func            # the Function of a node made by add_kernel_node

    def __init__(self):
        raise TypeError("graph nodes come from the add_*_node methods of a Graph")

    @property
    def handle(self):
        """The ``CUgraphNode`` as an int."""
        return <uintptr_t>self.node

    @property
    def type(self):
        """The node's ``graph_node_type`` (``cuGraphNodeGetType``); an int for
        a type newer than CUDA 13.0."""
        cdef int t = 0
        _graph_api()
        _gneed(gapi.cuGraphNodeGetType, "cuGraphNodeGetType")
        check(gapi.cuGraphNodeGetType(self.node, &t), "cuGraphNodeGetType")
        try:
            return graph_node_type(t)
        except ValueError:
            return t

    def get_dependencies(self):
        """The nodes this one depends on, as a list of :class:`GraphNode`
        (``cuGraphNodeGetDependencies``)."""
        cdef size_t n = 0
        cdef CUgraphNode* arr = NULL
        _graph_api()
        if gapi.cuGraphNodeGetDependencies_v2 != NULL:
            check(gapi.cuGraphNodeGetDependencies_v2(self.node, NULL, NULL, &n),
                  "cuGraphNodeGetDependencies_v2")
        else:
            _gneed(gapi.cuGraphNodeGetDependencies, "cuGraphNodeGetDependencies_v2")
            check(gapi.cuGraphNodeGetDependencies(self.node, NULL, &n),
                  "cuGraphNodeGetDependencies")
        if n == 0:
            return []
        arr = <CUgraphNode*>malloc(n * sizeof(CUgraphNode))
        if arr == NULL:
            raise MemoryError()
        try:
            if gapi.cuGraphNodeGetDependencies_v2 != NULL:
                check(gapi.cuGraphNodeGetDependencies_v2(self.node, arr, NULL, &n),
                      "cuGraphNodeGetDependencies_v2")
            else:
                check(gapi.cuGraphNodeGetDependencies(self.node, arr, &n),
                      "cuGraphNodeGetDependencies")
            return [_new_node(self.graph, arr[k]) for k in range(n)]
        finally:
            free(arr)

    def __eq__(self, other):
        if not isinstance(other, GraphNode):
            return NotImplemented
        return self.node == (<GraphNode>other).node

    def __hash__(self):
        return hash(<uintptr_t>self.node)

    def __repr__(self):
        return "<gpuarr.driver.GraphNode 0x%x>" % <uintptr_t>self.node


cdef class Graph:
    """A CUDA graph (``cuGraphCreate``): work as nodes and dependencies,
    instantiated with :meth:`instantiate` and launched as one.

    ``Graph()`` makes an empty graph in the current context;
    :meth:`Stream.end_capture` returns the graph a capture recorded.
    Every ``add_*_node`` method takes ``dependencies``, a list of nodes of
    this graph the new node runs after (a node of another graph raises
    ``ValueError`` naming it), and returns the new :class:`GraphNode`.

    The graph keeps alive what its nodes refer to: kernels (and so their
    modules), kernel arguments, host callables and their arguments, events,
    child graphs and the host buffers of copy nodes. ``cuGraphDestroy``
    runs, in the graph's context, when the object dies.
    """
    cdef CUgraph graph
    cdef readonly Context context
    cdef bint owned
    cdef bint foreign           # the graph of a capture gpuarr did not begin
    cdef list _keep

    def __cinit__(self, *args, **kwargs):
        self._keep = []

    def __init__(self, unsigned int flags=0):
        if flags != 0:
            raise ValueError("Graph: flags must be 0 (CUDA reserves them)")
        _graph_api()
        _gneed(gapi.cuGraphCreate, "cuGraphCreate")
        self.context = _current_context()
        check(gapi.cuGraphCreate(&self.graph, 0), "cuGraphCreate")
        self.owned = True

    @property
    def handle(self):
        """The ``CUgraph`` as an int."""
        return <uintptr_t>self.graph

    def __eq__(self, other):
        if not isinstance(other, Graph):
            return NotImplemented
        return self.graph == (<Graph>other).graph

    def __hash__(self):
        return hash(<uintptr_t>self.graph)

    cdef int _alive(self, str what) except -1:
        if self.graph == NULL:
            raise _errors.LogicError("%s: the graph is gone (its capture failed)" % what)
        return 0

    cdef GraphNode _added(self, CUresult r, CUgraphNode node, str call, detail=None):
        if r != CUDA_SUCCESS:
            raise _make_error(r, call, detail)
        return _new_node(self, node)

    def add_empty_node(self, dependencies=()):
        """Add a node that does nothing (``cuGraphAddEmptyNode``): a join
        point of its dependencies."""
        cdef size_t n = 0
        cdef CUgraphNode node = NULL
        self._alive("add_empty_node")
        _gneed(gapi.cuGraphAddEmptyNode, "cuGraphAddEmptyNode")
        deps = _node_array(self, dependencies, "dependencies", &n)
        r = gapi.cuGraphAddEmptyNode(&node, self.graph, deps, n)
        free(deps)
        return self._added(r, node, "cuGraphAddEmptyNode")

    def add_kernel_node(self, *args, func=None, block=None, grid=(1, 1),
                        unsigned int shared=0, dependencies=()):
        """Add a kernel launch (``cuGraphAddKernelNode``; PyCUDA's name).

        Parameters
        ----------
        *args
            The kernel's arguments, as :class:`Function` takes them (numpy
            scalars, device pointers and arrays); checked and packed the
            same way. ``In``/``Out``/``InOut`` are refused: they copy
            around one launch.
        func : Function
            The kernel.
        block, grid : tuple of int
            Block and grid shape, 1 to 3 entries each.
        shared : int
            Dynamic shared memory in bytes.
        dependencies : list of GraphNode

        Raises
        ------
        TypeError
            ``func`` not a Function, a wrong argument (count, size or kind).
        ValueError
            Bad ``block``/``grid``, a dependency of another graph.
        """
        cdef unsigned int g[3]
        cdef unsigned int b[3]
        cdef size_t n = 0, total
        cdef Py_ssize_t nargs = len(args)
        cdef _KernelNodeParams p
        cdef CUgraphNode node = NULL
        cdef char* buf = NULL
        cdef void** params = NULL
        cdef CUgraphNode* deps = NULL
        cdef CUresult r
        self._alive("add_kernel_node")
        fn = _kernel_node_params(func, args, block, grid, shared, g, b, "add_kernel_node")
        _gneed(gapi.cuGraphAddKernelNode_v2, "cuGraphAddKernelNode_v2")
        total = (<Function>fn)._pack_bytes(nargs)
        buf = <char*>malloc(total + 1)
        params = <void**>malloc((nargs + 1) * sizeof(void*))
        try:
            if buf == NULL or params == NULL:
                raise MemoryError()
            (<Function>fn)._pack(args, buf, params, [])
            deps = _node_array(self, dependencies, "dependencies", &n)
            _fill_kernel_params(&p, <Function>fn, g, b, shared, params, nargs)
            r = gapi.cuGraphAddKernelNode_v2(&node, self.graph, deps, n, &p)
        finally:
            free(buf)
            free(params)
            free(deps)
        out = self._added(r, node, "cuGraphAddKernelNode_v2",
                          "kernel %r, grid=%r, block=%r, shared=%d bytes"
                          % ((<Function>fn).function_name, grid, block, shared))
        out.func = fn
        self._keep.append((fn, args))
        return out

    cdef GraphNode _memcpy_node(self, int dst_type, void* dst_host, CUdeviceptr dst_dev,
                                int src_type, const void* src_host, CUdeviceptr src_dev,
                                size_t nbytes, object dependencies, str what):
        cdef _Memcpy3DParams p
        cdef size_t n = 0
        cdef CUgraphNode node = NULL
        if nbytes == 0:
            raise ValueError("%s: a copy node needs at least one byte to copy" % what)
        _gneed(gapi.cuGraphAddMemcpyNode, "cuGraphAddMemcpyNode")
        ctx = _current_context()
        memset(&p, 0, sizeof(p))
        p.srcMemoryType = src_type
        p.srcHost = src_host
        p.srcDevice = src_dev
        p.srcPitch = nbytes
        p.srcHeight = 1
        p.dstMemoryType = dst_type
        p.dstHost = dst_host
        p.dstDevice = dst_dev
        p.dstPitch = nbytes
        p.dstHeight = 1
        p.WidthInBytes = nbytes
        p.Height = 1
        p.Depth = 1
        deps = _node_array(self, dependencies, "dependencies", &n)
        r = gapi.cuGraphAddMemcpyNode(&node, self.graph, deps, n, &p, (<Context>ctx).ctx)
        free(deps)
        return self._added(r, node, "cuGraphAddMemcpyNode", "%s of %d bytes" % (what, nbytes))

    def add_memcpy_htod_node(self, dest, src, dependencies=()):
        """Add a copy of the contiguous host buffer ``src`` (all its bytes)
        to device address ``dest`` (``cuGraphAddMemcpyNode`` with a 1-D
        ``CUDA_MEMCPY3D``). The graph keeps ``src`` alive and exported (a
        ``bytearray`` cannot be resized meanwhile); its contents are read
        at each launch. Page-locked buffers copy fastest."""
        cdef Py_buffer view
        self._alive("add_memcpy_htod_node")
        cdef CUdeviceptr d = _devptr(dest)
        mv = _host_view(src, "add_memcpy_htod_node")
        _get_host_buffer(mv, &view, False, "add_memcpy_htod_node")
        try:
            _check_fits(dest, view.len, "add_memcpy_htod_node")
            node = self._memcpy_node(_MEMORYTYPE_DEVICE, NULL, d, _MEMORYTYPE_HOST,
                                     view.buf, 0, view.len, dependencies,
                                     "add_memcpy_htod_node")
        finally:
            PyBuffer_Release(&view)
        self._keep.append((mv, dest))
        return node

    def add_memcpy_dtoh_node(self, dest, src, dependencies=()):
        """Add a copy of ``dest``'s size in bytes from device address
        ``src`` into the contiguous writable host buffer ``dest``
        (``cuGraphAddMemcpyNode``); the graph keeps ``dest`` alive."""
        cdef Py_buffer view
        self._alive("add_memcpy_dtoh_node")
        cdef CUdeviceptr s = _devptr(src)
        mv = _host_view(dest, "add_memcpy_dtoh_node")
        _get_host_buffer(mv, &view, True, "add_memcpy_dtoh_node")
        try:
            _check_fits(src, view.len, "add_memcpy_dtoh_node")
            node = self._memcpy_node(_MEMORYTYPE_HOST, view.buf, 0, _MEMORYTYPE_DEVICE,
                                     NULL, s, view.len, dependencies,
                                     "add_memcpy_dtoh_node")
        finally:
            PyBuffer_Release(&view)
        self._keep.append((mv, src))
        return node

    def add_memcpy_dtod_node(self, dest, src, size_t size, dependencies=()):
        """Add a copy of ``size`` bytes between device addresses
        (``cuGraphAddMemcpyNode``)."""
        self._alive("add_memcpy_dtod_node")
        cdef CUdeviceptr d = _devptr(dest), s = _devptr(src)
        _check_fits(dest, size, "add_memcpy_dtod_node")
        _check_fits(src, size, "add_memcpy_dtod_node")
        node = self._memcpy_node(_MEMORYTYPE_DEVICE, NULL, d, _MEMORYTYPE_DEVICE,
                                 NULL, s, size, dependencies, "add_memcpy_dtod_node")
        self._keep.append((dest, src))
        return node

    def add_memset_node(self, dest, value, size_t width, unsigned int element_size=1,
                        size_t height=1, pitch=None, dependencies=()):
        """Add a fill of device memory (``cuGraphAddMemsetNode``,
        ``CUDA_MEMSET_NODE_PARAMS``).

        Parameters
        ----------
        dest : device address
            Aligned to ``element_size``.
        value : int
            The element value, ``0 <= value < 2**(8 * element_size)``.
        width : int
            Elements per row (not bytes), at least 1.
        element_size : {1, 2, 4}
            Bytes per element.
        height : int
            Rows, at least 1.
        pitch : int, optional
            Bytes from one row to the next, at least ``width *
            element_size``; needed when ``height > 1``.

        Raises
        ------
        ValueError
            A bad size, value, alignment or pitch, or a fill that does not
            fit in ``dest`` (a DeviceAllocation), before any driver call.
        """
        cdef _MemsetNodeParams p
        cdef size_t n = 0
        cdef CUgraphNode node = NULL
        self._alive("add_memset_node")
        cdef CUdeviceptr d = _devptr(dest)
        if element_size not in (1, 2, 4):
            raise ValueError("add_memset_node: element_size must be 1, 2 or 4, not %d"
                             % element_size)
        v = PyNumber_Index(value)
        es = int(element_size)
        if not 0 <= v < (1 << (8 * es)):
            raise ValueError("add_memset_node: value %d does not fit in %d byte(s)"
                             % (v, element_size))
        if width == 0 or height == 0:
            raise ValueError("add_memset_node: width and height must be at least 1")
        if d % element_size:
            raise ValueError("add_memset_node: dest 0x%x is not aligned to element_size %d"
                             % (d, element_size))
        row = int(width) * int(element_size)        # Python ints: no wrap-around
        if row >= 1 << 64:
            raise ValueError("add_memset_node: width %d is past any device memory" % width)
        if pitch is None:
            if height > 1:
                raise ValueError("add_memset_node: pitch is needed when height > 1")
            pitch = row
        if pitch < row:
            raise ValueError("add_memset_node: pitch %d is less than a row (%d bytes)"
                             % (pitch, row))
        span = int(pitch) * (int(height) - 1) + int(width) * int(element_size)
        if span >= 1 << 64:
            raise ValueError("add_memset_node: the region (%d bytes) is past any "
                             "device memory" % span)
        _check_fits(dest, span, "add_memset_node")
        _gneed(gapi.cuGraphAddMemsetNode, "cuGraphAddMemsetNode")
        ctx = _current_context()
        p.dst = d
        p.pitch = pitch
        p.value = v
        p.elementSize = element_size
        p.width = width
        p.height = height
        deps = _node_array(self, dependencies, "dependencies", &n)
        r = gapi.cuGraphAddMemsetNode(&node, self.graph, deps, n, &p, (<Context>ctx).ctx)
        free(deps)
        out = self._added(r, node, "cuGraphAddMemsetNode")
        self._keep.append(dest)
        return out

    def add_host_node(self, func, *args, dependencies=()):
        """Add a call of ``func(*args)`` on a host thread at each launch
        (``cuGraphAddHostNode``), in order with the node's dependencies.

        It runs as :meth:`Stream.launch_host_func`'s callbacks do: with the
        GIL taken, exceptions reported to ``sys.unraisablehook``; it must
        not call CUDA (nor drop the last reference to gpuarr memory).

        Raises
        ------
        TypeError
            ``func`` is not callable.
        """
        cdef _HostNodeParams p
        cdef size_t n = 0
        cdef CUgraphNode node = NULL
        call = _new_host_call(func, args, "add_host_node")
        self._alive("add_host_node")
        _gneed(gapi.cuGraphAddHostNode, "cuGraphAddHostNode")
        p.fn = _host_fn_trampoline
        p.userData = <void*>call
        deps = _node_array(self, dependencies, "dependencies", &n)
        r = gapi.cuGraphAddHostNode(&node, self.graph, deps, n, &p)
        free(deps)
        out = self._added(r, node, "cuGraphAddHostNode")
        self._keep.append(call)
        return out

    def add_event_record_node(self, event, dependencies=()):
        """Add a record of ``event`` (``cuGraphAddEventRecordNode``)."""
        return self._event_node(event, dependencies, True)

    def add_event_wait_node(self, event, dependencies=()):
        """Add a wait for ``event`` (``cuGraphAddEventWaitNode``): later
        nodes run after the event's latest record."""
        return self._event_node(event, dependencies, False)

    cdef GraphNode _event_node(self, object event, object dependencies, bint record):
        cdef size_t n = 0
        cdef CUgraphNode node = NULL
        what = "add_event_record_node" if record else "add_event_wait_node"
        if not isinstance(event, Event):
            raise TypeError("%s: event must be a gpuarr.driver.Event, not %s"
                            % (what, type(event).__name__))
        self._alive(what)
        if record:
            _gneed(gapi.cuGraphAddEventRecordNode, "cuGraphAddEventRecordNode")
        else:
            _gneed(gapi.cuGraphAddEventWaitNode, "cuGraphAddEventWaitNode")
        deps = _node_array(self, dependencies, "dependencies", &n)
        if record:
            r = gapi.cuGraphAddEventRecordNode(&node, self.graph, deps, n, (<Event>event).event)
        else:
            r = gapi.cuGraphAddEventWaitNode(&node, self.graph, deps, n, (<Event>event).event)
        free(deps)
        out = self._added(r, node, "cuGraphAddEventRecordNode" if record
                          else "cuGraphAddEventWaitNode")
        self._keep.append(event)
        return out

    def add_child_graph_node(self, child, dependencies=()):
        """Add a node that runs the graph ``child`` (``cuGraphAddChildGraphNode``;
        the driver embeds a copy, so later changes to ``child`` do not
        reach it). This graph keeps ``child`` alive, with what it refers to.

        Raises
        ------
        TypeError
            ``child`` is not a Graph.
        ValueError
            ``child`` is this graph.
        """
        cdef size_t n = 0
        cdef CUgraphNode node = NULL
        if not isinstance(child, Graph):
            raise TypeError("add_child_graph_node: child must be a Graph, not %s"
                            % type(child).__name__)
        if child is self or (<Graph>child).graph == self.graph:
            raise ValueError("add_child_graph_node: a graph cannot contain itself")
        self._alive("add_child_graph_node")
        (<Graph>child)._alive("add_child_graph_node")
        _gneed(gapi.cuGraphAddChildGraphNode, "cuGraphAddChildGraphNode")
        deps = _node_array(self, dependencies, "dependencies", &n)
        r = gapi.cuGraphAddChildGraphNode(&node, self.graph, deps, n, (<Graph>child).graph)
        free(deps)
        out = self._added(r, node, "cuGraphAddChildGraphNode")
        self._keep.append(child)
        return out

    def get_nodes(self):
        """Every node of the graph, as a list of :class:`GraphNode`
        (``cuGraphGetNodes``)."""
        return self._list_nodes(False)

    def get_root_nodes(self):
        """The nodes without dependencies (``cuGraphGetRootNodes``)."""
        return self._list_nodes(True)

    cdef list _list_nodes(self, bint roots):
        cdef size_t n = 0, got = 0
        cdef CUgraphNode* arr = NULL
        cdef CUresult r
        name = "cuGraphGetRootNodes" if roots else "cuGraphGetNodes"
        self._alive(name)
        _gneed(gapi.cuGraphGetRootNodes if roots else gapi.cuGraphGetNodes, name)
        # the count first (NULL array), then the nodes
        r = (gapi.cuGraphGetRootNodes(self.graph, NULL, &n) if roots
             else gapi.cuGraphGetNodes(self.graph, NULL, &n))
        if r != CUDA_SUCCESS:
            raise _make_error(r, name)
        if n == 0:
            return []
        arr = <CUgraphNode*>malloc(n * sizeof(CUgraphNode))
        if arr == NULL:
            raise MemoryError()
        try:
            got = n
            r = (gapi.cuGraphGetRootNodes(self.graph, arr, &got) if roots
                 else gapi.cuGraphGetNodes(self.graph, arr, &got))
            if r != CUDA_SUCCESS:
                raise _make_error(r, name)
            return [_new_node(self, arr[k]) for k in range(min(n, got))]
        finally:
            free(arr)

    def add_dependencies(self, from_nodes, to_nodes):
        """Make each ``to_nodes[k]`` run after ``from_nodes[k]``
        (``cuGraphAddDependencies``). Both lists have nodes of this graph
        and the same length; a pair may not repeat an existing edge."""
        cdef size_t nf = 0, nt = 0
        cdef CUgraphNode* f = NULL
        cdef CUgraphNode* t = NULL
        cdef CUresult r
        self._alive("add_dependencies")
        if isinstance(from_nodes, GraphNode):
            from_nodes = (from_nodes,)
        if isinstance(to_nodes, GraphNode):
            to_nodes = (to_nodes,)
        from_nodes = tuple(from_nodes)
        to_nodes = tuple(to_nodes)
        if len(from_nodes) != len(to_nodes):
            raise ValueError("add_dependencies: from_nodes has %d nodes, to_nodes %d"
                             % (len(from_nodes), len(to_nodes)))
        for k in range(len(from_nodes)):
            # _node_array refuses repeats, which an edge list may have
            free(_node_array(self, (from_nodes[k],), "from_nodes[%d]" % k, &nf))
            free(_node_array(self, (to_nodes[k],), "to_nodes[%d]" % k, &nt))
        nf = len(from_nodes)
        if nf == 0:
            return None
        f = <CUgraphNode*>malloc(nf * sizeof(CUgraphNode))
        t = <CUgraphNode*>malloc(nf * sizeof(CUgraphNode))
        try:
            if f == NULL or t == NULL:
                raise MemoryError()
            for k in range(nf):
                f[k] = (<GraphNode>from_nodes[k]).node
                t[k] = (<GraphNode>to_nodes[k]).node
            if gapi.cuGraphAddDependencies_v2 != NULL:
                r = gapi.cuGraphAddDependencies_v2(self.graph, f, t, NULL, nf)
                check(r, "cuGraphAddDependencies_v2")
            else:
                _gneed(gapi.cuGraphAddDependencies, "cuGraphAddDependencies_v2")
                check(gapi.cuGraphAddDependencies(self.graph, f, t, nf),
                      "cuGraphAddDependencies")
        finally:
            free(f)
            free(t)
        return None

    def debug_dot_print(self, path, unsigned int flags=0):
        """Write the graph as Graphviz DOT to the file ``path``
        (``cuGraphDebugDotPrint``; ``graph_debug_dot_flags`` select detail)."""
        self._alive("debug_dot_print")
        _gneed(gapi.cuGraphDebugDotPrint, "cuGraphDebugDotPrint")
        p = os.fsencode(path)
        check(gapi.cuGraphDebugDotPrint(self.graph, p, flags), "cuGraphDebugDotPrint")

    def clone(self):
        """A copy of the graph (``cuGraphClone``), keeping alive what this
        one does. Its nodes are new ones."""
        cdef CUgraph h = NULL
        self._alive("clone")
        _gneed(gapi.cuGraphClone, "cuGraphClone")
        check(gapi.cuGraphClone(&h, self.graph), "cuGraphClone")
        g = _new_graph(h, self.context, True)
        g._keep = list(self._keep)
        return g

    def instantiate(self, unsigned long long flags=0):
        """An executable graph of this one's current state
        (``cuGraphInstantiateWithFlags``; ``graph_instantiate_flags``).

        Returns
        -------
        GraphExec
            It keeps this graph alive; later changes to the graph do not
            reach it (see :meth:`GraphExec.update`).
        """
        cdef CUgraphExec e = NULL
        self._alive("instantiate")
        _gneed(gapi.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags")
        ctx = _current_context()
        check(gapi.cuGraphInstantiateWithFlags(&e, self.graph, flags),
              "cuGraphInstantiateWithFlags")
        cdef GraphExec x = GraphExec.__new__(GraphExec)
        x.exec_ = e
        x.context = ctx
        x.graph = self
        x._keep = [self]
        return x

    def __repr__(self):
        return "<gpuarr.driver.Graph 0x%x>" % <uintptr_t>self.graph

    def __dealloc__(self):
        cdef bint pushed = False
        cdef CUresult r
        if self.graph == NULL or not self.owned or not _release_ok(self.context, "graph"):
            return
        r = _push_if_needed(self.context.ctx, &pushed)
        if r == CUDA_SUCCESS:
            r = gapi.cuGraphDestroy(self.graph)
            _pop_if_pushed(pushed)
        self.graph = NULL
        if r != CUDA_SUCCESS:
            _release_failed("graph", r)


cdef object _kernel_node_params(object func, tuple args, object block, object grid,
                                unsigned int shared, unsigned int* g, unsigned int* b,
                                str what):
    """Check a kernel node's function, arguments and dims (before any
    driver call); return the Function."""
    if not isinstance(func, Function):
        raise TypeError("%s: func= must be a gpuarr.driver.Function, not %s"
                        % (what, type(func).__name__))
    for k in range(len(args)):
        if isinstance(args[k], ArgumentHandler):
            raise TypeError("%s: argument %d is %s, which copies around a single "
                            "launch; a graph node takes device memory"
                            % (what, k, type(args[k]).__name__))
    if block is None:
        raise ValueError("%s: block=(x, y, z) must be given" % what)
    _dims3(block, b, "block")
    _dims3(grid, g, "grid")
    _graph_api()
    return func


cdef void _fill_kernel_params(_KernelNodeParams* p, Function fn, unsigned int* g,
                              unsigned int* b, unsigned int shared, void** params,
                              Py_ssize_t nargs) noexcept:
    memset(p, 0, sizeof(_KernelNodeParams))
    p.func = fn.func
    p.gridDimX = g[0]
    p.gridDimY = g[1]
    p.gridDimZ = g[2]
    p.blockDimX = b[0]
    p.blockDimY = b[1]
    p.blockDimZ = b[2]
    p.sharedMemBytes = shared
    p.kernelParams = params if nargs else NULL
