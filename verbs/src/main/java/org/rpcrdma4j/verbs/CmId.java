package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * An RDMA-CM id ({@code struct rdma_cm_id}) of the reliable-connection port space: a listener, or
 * one connection with its RC queue pair. Its events arrive on its {@link CmEventChannel}.
 *
 * <p>Passive side: {@link #bind}, {@link #listen}; each CONNECT_REQUEST brings a new id, on which
 * {@link #createQueuePair}, post receives, then {@link #accept} or {@link #reject}; ESTABLISHED
 * follows. Active side: {@link #resolveAddress} (ADDR_RESOLVED), {@link #resolveRoute}
 * (ROUTE_RESOLVED), {@link #createQueuePair}, post receives, {@link #connect} (ESTABLISHED, or
 * REJECTED / UNREACHABLE / CONNECT_ERROR). Either side: {@link #disconnect} (DISCONNECTED on both),
 * then {@link #close()}.
 */
public final class CmId implements AutoCloseable {
    private static final long SRC_ADDR = Structs.offset(Structs.RDMA_CM_ID, "route.addr.src_addr");
    private static final long DST_ADDR = Structs.offset(Structs.RDMA_CM_ID, "route.addr.dst_addr");

    private final CmEventChannel channel;
    private final MemorySegment id;
    private QueuePair queuePair;
    /** Volatile: an id may be closed on another thread than the one that uses it. */
    private volatile boolean closed;

    CmId(CmEventChannel channel, MemorySegment id) {
        this.channel = channel;
        this.id = id.reinterpret(Structs.RDMA_CM_ID.byteSize());
    }

    MemorySegment pointer() {
        return id;
    }

    /** Every call on a destroyed id would touch freed native memory. */
    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the id was closed");
        }
    }

    /**
     * Binds to a local address ({@code rdma_bind_addr}); the wildcard address binds no device yet.
     *
     * @throws VerbsException EADDRINUSE, EADDRNOTAVAIL (no RDMA device has that address), ...
     */
    public void bind(InetSocketAddress address) throws VerbsException {
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            int rc = (int) RdmaCm.BIND_ADDR.invokeExact(capture, id, SocketAddresses.encode(address, arena));
            Native.checkMinusOne("rdma_bind_addr", rc, capture);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** Listens for connection requests ({@code rdma_listen}); each arrives as CONNECT_REQUEST. */
    public void listen(int backlog) throws VerbsException {
        checkOpen();
        call("rdma_listen", capture -> (int) RdmaCm.LISTEN.invokeExact(capture, id, backlog));
    }

    /**
     * Resolves the peer's address to a local device and port ({@code rdma_resolve_addr});
     * ADDR_RESOLVED or ADDR_ERROR follows.
     *
     * @param source local address to use, or null for the routing table's choice
     */
    public void resolveAddress(InetSocketAddress source, InetSocketAddress destination, int timeoutMillis)
            throws VerbsException {
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment src = source == null ? MemorySegment.NULL : SocketAddresses.encode(source, arena);
            int rc = (int) RdmaCm.RESOLVE_ADDR.invokeExact(capture, id, src, SocketAddresses.encode(destination, arena),
                    timeoutMillis);
            Native.checkMinusOne("rdma_resolve_addr", rc, capture);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** Resolves the route to the peer ({@code rdma_resolve_route}); ROUTE_RESOLVED or ROUTE_ERROR follows. */
    public void resolveRoute(int timeoutMillis) throws VerbsException {
        checkOpen();
        call("rdma_resolve_route", capture -> (int) RdmaCm.RESOLVE_ROUTE.invokeExact(capture, id, timeoutMillis));
    }

    /**
     * @return the device the id is bound to, borrowed from the id (closing it does nothing); null
     *         before an address is bound or resolved to a device
     */
    public VerbsContext verbsContext() {
        checkOpen();
        MemorySegment verbs = id.get(ADDRESS, Structs.offset(Structs.RDMA_CM_ID, "verbs"));
        return verbs.equals(MemorySegment.NULL) ? null : new VerbsContext(verbs, false);
    }

    /** @return the RDMA port number of the device, from 1; 0 before one is bound */
    public int portNumber() {
        checkOpen();
        return Byte.toUnsignedInt(id.get(JAVA_BYTE, Structs.offset(Structs.RDMA_CM_ID, "port_num")));
    }

    /** @return the local address, or null before binding or resolution */
    public InetSocketAddress localAddress() {
        checkOpen();
        return SocketAddresses.decode(id.asSlice(SRC_ADDR, Structs.SOCKADDR_STORAGE.byteSize()));
    }

    /** @return the peer's address, or null before a request or resolution */
    public InetSocketAddress peerAddress() {
        checkOpen();
        return SocketAddresses.decode(id.asSlice(DST_ADDR, Structs.SOCKADDR_STORAGE.byteSize()));
    }

    /**
     * Creates the id's RC queue pair ({@code rdma_create_qp}); RDMA-CM moves it through INIT, RTR
     * and RTS as the connection is set up, and to ERROR on disconnect.
     *
     * @param pd a protection domain of {@link #verbsContext()}'s device
     * @param config queue sizes and completion queues
     * @return the queue pair, destroyed by {@link #close()}
     */
    public QueuePair createQueuePair(ProtectionDomain pd, QueuePairConfig config) throws VerbsException {
        return createQueuePair(pd, config, null);
    }

    /**
     * Creates the id's RC queue pair as {@link #createQueuePair(ProtectionDomain, QueuePairConfig)}
     * does, its receives taken from a shared receive queue: the queue pair has no receive queue of its
     * own ({@code config}'s receive sizes are ignored, and posting a receive to it fails), and its
     * receive completions go to {@code config}'s receive completion queue.
     *
     * @param srq the shared receive queue, of {@code pd}; null for a receive queue of its own
     */
    public QueuePair createQueuePair(ProtectionDomain pd, QueuePairConfig config, SharedReceiveQueue srq)
            throws VerbsException {
        checkOpen();
        if (queuePair != null) {
            throw new IllegalStateException("the id already has a queue pair");
        }
        var l = Structs.IBV_QP_INIT_ATTR;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment init = initAttributes(arena, config, srq);
            int rc = (int) RdmaCm.CREATE_QP.invokeExact(capture, id, pd.pointer(), init);
            Native.checkMinusOne("rdma_create_qp", rc, capture);
            QueuePairConfig granted = config.granted(init, l);
            MemorySegment qp = id.get(ADDRESS, Structs.offset(Structs.RDMA_CM_ID, "qp"));
            queuePair = new QueuePair(pd.context(), qp, granted);
            return queuePair;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** @return an RC queue pair's {@code ibv_qp_init_attr}: the config's queues and sizes, and the SRQ if any */
    static MemorySegment initAttributes(Arena arena, QueuePairConfig config, SharedReceiveQueue srq) {
        var l = Structs.IBV_QP_INIT_ATTR;
        MemorySegment init = arena.allocate(l);
        config.writeTo(init, l);
        init.set(JAVA_INT, Structs.offset(l, "qp_type"), Constants.IBV_QPT_RC);
        if (srq != null) {
            init.set(ADDRESS, Structs.offset(l, "srq"), srq.pointer());
        }
        return init;
    }

    /** @return the queue pair made by {@link #createQueuePair}, or null */
    public QueuePair queuePair() {
        return queuePair;
    }

    /** Requests a connection ({@code rdma_connect}), private data in the CM REQ. */
    public void connect(ConnectionParameters parameters) throws VerbsException {
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment param = parameters.encode(arena, ConnectionParameters.MAX_CONNECT_PRIVATE_DATA);
            Native.checkMinusOne("rdma_connect", (int) RdmaCm.CONNECT.invokeExact(capture, id, param), capture);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** Accepts a connection request ({@code rdma_accept}), private data in the CM REP. */
    public void accept(ConnectionParameters parameters) throws VerbsException {
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment param = parameters.encode(arena, ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA);
            Native.checkMinusOne("rdma_accept", (int) RdmaCm.ACCEPT.invokeExact(capture, id, param), capture);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Rejects a connection request ({@code rdma_reject}); the peer sees REJECTED with this data.
     *
     * @param privateData at most {@link ConnectionParameters#MAX_REJECT_PRIVATE_DATA} bytes, or empty
     */
    public void reject(byte[] privateData) throws VerbsException {
        checkOpen();
        if (privateData.length > ConnectionParameters.MAX_REJECT_PRIVATE_DATA) {
            throw new IllegalArgumentException(privateData.length + " bytes of private data, more than the "
                    + ConnectionParameters.MAX_REJECT_PRIVATE_DATA + " a CM REJ holds");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment data = MemorySegment.NULL;
            if (privateData.length > 0) {
                data = arena.allocate(privateData.length);
                MemorySegment.copy(privateData, 0, data, JAVA_BYTE, 0, privateData.length);
            }
            int rc = (int) RdmaCm.REJECT.invokeExact(capture, id, data, (byte) privateData.length);
            Native.checkMinusOne("rdma_reject", rc, capture);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** Disconnects ({@code rdma_disconnect}): the queue pair goes to ERROR, its work requests flush. */
    public void disconnect() throws VerbsException {
        checkOpen();
        call("rdma_disconnect", capture -> (int) RdmaCm.DISCONNECT.invokeExact(capture, id));
    }

    /**
     * Destroys the queue pair ({@code rdma_destroy_qp}) and the id ({@code rdma_destroy_id}).
     * Ack this id's events first: {@code rdma_destroy_id} waits for them.
     */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (queuePair != null) {
                queuePair.destroyed();
                RdmaCm.DESTROY_QP.invokeExact(id);
                queuePair = null;
            }
            call("rdma_destroy_id", capture -> (int) RdmaCm.DESTROY_ID.invokeExact(capture, id));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        } finally {
            // Only now: rdma_destroy_id returns once every event reported for the id is acked, and
            // until then another thread may read one, which must still find this id, closed.
            channel.forget(this);
        }
    }

    @Override
    public String toString() {
        return closed ? "CmId[closed]" : "CmId[" + localAddress() + " -> " + peerAddress() + "]";
    }

    @FunctionalInterface
    private interface IntCall {
        int invoke(MemorySegment capture) throws Throwable;
    }

    /** Makes a librdmacm call that returns -1 and sets errno, with a capture segment for the errno. */
    private static void call(String name, IntCall call) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            Native.checkMinusOne(name, call.invoke(capture), capture);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
