package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/**
 * An open RDMA device ({@code struct ibv_context}). Either opened by name and closed by
 * {@link #close()}, or borrowed from an RDMA-CM id ({@link CmId#verbsContext()}), which owns it:
 * then {@link #close()} does nothing. Two wrappers of the same device context are equal, so an RC
 * fabric can keep one protection domain and completion queue per device.
 *
 * <p>Reads the provider's data-path function pointers ({@code ibv_context.ops}) once; the queues
 * made from this context call through them.
 */
public final class VerbsContext implements AutoCloseable {
    private static final long OPS = Structs.offset(Structs.IBV_CONTEXT, "ops");

    private final MemorySegment context;
    private final boolean owned;
    final MemorySegment pollCq;
    final MemorySegment reqNotifyCq;
    final MemorySegment postSend;
    final MemorySegment postRecv;
    final MemorySegment postSrqRecv;
    final MemorySegment allocMw;
    final MemorySegment deallocMw;
    private boolean closed;
    private boolean asyncNonBlocking;

    VerbsContext(MemorySegment context, boolean owned) {
        this.context = context.reinterpret(Structs.IBV_CONTEXT.byteSize());
        this.owned = owned;
        pollCq = op("poll_cq");
        reqNotifyCq = op("req_notify_cq");
        postSend = op("post_send");
        postRecv = op("post_recv");
        postSrqRecv = op("post_srq_recv");
        allocMw = op("alloc_mw");
        deallocMw = op("dealloc_mw");
    }

    private MemorySegment op(String name) {
        return context.get(ADDRESS, OPS + Structs.offset(Structs.IBV_CONTEXT_OPS, name));
    }

    /**
     * Opens a device by name.
     *
     * @param deviceName a name from {@link Verbs#deviceNames()}, e.g. {@code rxe0}
     * @return the open device, to be closed by the caller
     * @throws VerbsException ENODEV if no device has that name, or what {@code ibv_open_device} reports
     */
    public static VerbsContext open(String deviceName) throws VerbsException {
        Verbs.requireIbverbs();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = Native.checkPointer("ibv_get_device_list",
                    (MemorySegment) Ibv.GET_DEVICE_LIST.invokeExact(capture, count), capture);
            try {
                MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * (count.get(JAVA_INT, 0) + 1L));
                for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
                    MemorySegment device = devices.getAtIndex(ADDRESS, i);
                    String name = Native.string((MemorySegment) Ibv.GET_DEVICE_NAME.invokeExact(device), 64);
                    if (deviceName.equals(name)) {
                        MemorySegment context = Native.checkPointer("ibv_open_device",
                                (MemorySegment) Ibv.OPEN_DEVICE.invokeExact(capture, device), capture);
                        return new VerbsContext(context, true);
                    }
                }
                throw new VerbsException("ibv_open_device(" + deviceName + ")", Constants.ENODEV);
            } finally {
                Ibv.FREE_DEVICE_LIST.invokeExact(list);
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    MemorySegment pointer() {
        checkOpen();
        return context;
    }

    /** A closed device's memory is freed. */
    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the device was closed");
        }
    }

    /** @return the device's name, e.g. {@code rxe0} */
    public String deviceName() {
        checkOpen();
        try {
            MemorySegment device = context.get(ADDRESS, Structs.offset(Structs.IBV_CONTEXT, "device"));
            return Native.string((MemorySegment) Ibv.GET_DEVICE_NAME.invokeExact(device), 64);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** @return how many completion vectors {@link #createCompletionQueue} may choose from */
    public int completionVectorCount() {
        checkOpen();
        return context.get(JAVA_INT, Structs.offset(Structs.IBV_CONTEXT, "num_comp_vectors"));
    }

    /** @return the device's limits ({@code ibv_query_device}) */
    public DeviceAttributes queryDevice() throws VerbsException {
        checkOpen();
        var l = Structs.IBV_DEVICE_ATTR;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(l);
            Native.checkReturnedErrno("ibv_query_device", (int) Ibv.QUERY_DEVICE.invokeExact(context, a));
            return new DeviceAttributes(a.getString(Structs.offset(l, "fw_ver")), Long.reverseBytes(a.get(JAVA_LONG, Structs.offset(l, "node_guid"))),
                    a.get(JAVA_LONG, Structs.offset(l, "max_mr_size")), a.get(JAVA_INT, Structs.offset(l, "vendor_id")),
                    a.get(JAVA_INT, Structs.offset(l, "vendor_part_id")), a.get(JAVA_INT, Structs.offset(l, "max_qp")),
                    a.get(JAVA_INT, Structs.offset(l, "max_qp_wr")), a.get(JAVA_INT, Structs.offset(l, "device_cap_flags")),
                    a.get(JAVA_INT, Structs.offset(l, "max_sge")), a.get(JAVA_INT, Structs.offset(l, "max_sge_rd")),
                    a.get(JAVA_INT, Structs.offset(l, "max_cq")), a.get(JAVA_INT, Structs.offset(l, "max_cqe")),
                    a.get(JAVA_INT, Structs.offset(l, "max_mr")), a.get(JAVA_INT, Structs.offset(l, "max_pd")),
                    a.get(JAVA_INT, Structs.offset(l, "max_qp_rd_atom")),
                    a.get(JAVA_INT, Structs.offset(l, "max_qp_init_rd_atom")), a.get(JAVA_INT, Structs.offset(l, "max_mw")),
                    Byte.toUnsignedInt(a.get(JAVA_BYTE, Structs.offset(l, "phys_port_cnt"))));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * @param port a port number, from 1
     * @return the port's state and limits ({@code ibv_query_port})
     */
    public PortAttributes queryPort(int port) throws VerbsException {
        checkOpen();
        var l = Structs.IBV_PORT_ATTR;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(l);
            Native.checkReturnedErrno("ibv_query_port", (int) Ibv.QUERY_PORT.invokeExact(context, (byte) port, a));
            return new PortAttributes(PortState.of(a.get(JAVA_INT, Structs.offset(l, "state"))),
                    PortAttributes.mtuBytes(a.get(JAVA_INT, Structs.offset(l, "max_mtu"))),
                    PortAttributes.mtuBytes(a.get(JAVA_INT, Structs.offset(l, "active_mtu"))),
                    a.get(JAVA_INT, Structs.offset(l, "gid_tbl_len")), a.get(JAVA_INT, Structs.offset(l, "port_cap_flags")),
                    Integer.toUnsignedLong(a.get(JAVA_INT, Structs.offset(l, "max_msg_sz"))),
                    Short.toUnsignedInt(a.get(JAVA_SHORT, Structs.offset(l, "lid"))),
                    LinkLayer.of(a.get(JAVA_BYTE, Structs.offset(l, "link_layer"))));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * @param port a port number, from 1
     * @param index an index below {@link PortAttributes#gidTableLength()}
     * @return the GID at that index ({@code ibv_query_gid}); all zero for an unused entry
     */
    public Gid queryGid(int port, int index) throws VerbsException {
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment gid = arena.allocate(Structs.IBV_GID);
            int rc = (int) Ibv.QUERY_GID.invokeExact(capture, context, (byte) port, index, gid);
            Native.checkMinusOne("ibv_query_gid", rc, capture);
            return new Gid(gid.toArray(JAVA_BYTE));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Finds the GID of an IP address on a RoCE port: the index to use when addressing by GID
     * outside RDMA-CM (which picks the GID itself). Searches the whole table rather than assuming
     * an index, because index 0 (link-local IPv6) is unusable on hosts with IPv6 disabled.
     *
     * @param port a port number, from 1
     * @param address an address of the port's netdev
     * @return the index, or -1 if the table does not hold it
     */
    public int gidIndexOf(int port, InetAddress address) throws VerbsException {
        Gid wanted = Gid.of(address);
        int length = queryPort(port).gidTableLength();
        for (int i = 0; i < length; i++) {
            if (wanted.equals(queryGid(port, i))) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The descriptor that becomes readable when the device has an asynchronous event (queue pair
     * fatal, port error, device fatal), made non-blocking on first use so that
     * {@link #getAsyncEvent()} never waits.
     *
     * @return the descriptor to wait on ({@link FdPoller#register(int)})
     */
    public int asyncEventFd() throws VerbsException {
        checkOpen();
        int fd = context.get(JAVA_INT, Structs.offset(Structs.IBV_CONTEXT, "async_fd"));
        if (!asyncNonBlocking) {
            LibC.setNonBlocking(fd);
            asyncNonBlocking = true;
        }
        return fd;
    }

    /**
     * Takes the device's next asynchronous event without blocking ({@code ibv_get_async_event}),
     * copies it and acks it ({@code ibv_ack_async_event}).
     *
     * @return the event, or null if none is pending
     */
    public AsyncEvent getAsyncEvent() throws VerbsException {
        asyncEventFd();
        var l = Structs.IBV_ASYNC_EVENT;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment event = arena.allocate(l);
            int rc = (int) Ibv.GET_ASYNC_EVENT.invokeExact(capture, context, event);
            if (rc != 0) {
                int errno = Native.errno(capture);
                if (errno == Constants.EAGAIN || errno == Constants.EINTR) {
                    return null;
                }
                throw new VerbsException("ibv_get_async_event", errno);
            }
            AsyncEventType type = AsyncEventType.of(event.get(JAVA_INT, Structs.offset(l, "event_type")));
            int qpNum = -1;
            int port = 0;
            if (type.concernsQueuePair()) {
                MemorySegment qp = event.get(ADDRESS, Structs.offset(l, "element.qp"))
                        .reinterpret(Structs.IBV_QP.byteSize());
                qpNum = qp.get(JAVA_INT, Structs.offset(Structs.IBV_QP, "qp_num"));
            } else if (type.concernsPort()) {
                port = event.get(JAVA_INT, Structs.offset(l, "element.port_num"));
            }
            Ibv.ACK_ASYNC_EVENT.invokeExact(event);
            return new AsyncEvent(type, qpNum, port);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** @return a new protection domain ({@code ibv_alloc_pd}) */
    public ProtectionDomain allocateProtectionDomain() throws VerbsException {
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment pd = Native.checkPointer("ibv_alloc_pd",
                    (MemorySegment) Ibv.ALLOC_PD.invokeExact(capture, context), capture);
            return new ProtectionDomain(this, pd);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** @return a new completion channel ({@code ibv_create_comp_channel}), its descriptor non-blocking */
    public CompletionChannel createCompletionChannel() throws VerbsException {
        return CompletionChannel.create(this);
    }

    /**
     * Creates a completion queue ({@code ibv_create_cq}).
     *
     * @param entries at least this many entries (the device may round up)
     * @param channel where its notifications go, or null to only poll it
     * @param vector completion vector, below {@link #completionVectorCount()}
     * @return the queue
     */
    public CompletionQueue createCompletionQueue(int entries, CompletionChannel channel, int vector)
            throws VerbsException {
        return CompletionQueue.create(this, entries, channel, vector);
    }

    /** Closes the device if this wrapper opened it ({@code ibv_close_device}). */
    @Override
    public void close() throws VerbsException {
        if (!owned || closed) {
            return;
        }
        closed = true;
        try {
            Native.checkReturnedErrno("ibv_close_device", (int) Ibv.CLOSE_DEVICE.invokeExact(context));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VerbsContext c && c.context.address() == context.address();
    }

    @Override
    public int hashCode() {
        return Long.hashCode(context.address());
    }

    @Override
    public String toString() {
        return closed ? "VerbsContext[closed]" : "VerbsContext[" + deviceName() + "]";
    }
}
