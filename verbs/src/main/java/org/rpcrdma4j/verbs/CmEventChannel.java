package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An RDMA-CM event channel ({@code struct rdma_event_channel}): the ids made on it report their
 * address resolution, connection requests, establishment and disconnection here. Its descriptor
 * is non-blocking: wait for it with {@link FdPoller}, then take events with {@link #getEvent()}.
 *
 * <p>Not thread-safe: one thread creates and uses its ids and takes its events; another may close an id
 * meanwhile ({@link CmId#close}), and the events read until its destroy returns still name it.
 */
public final class CmEventChannel implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment channel;
    private final MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
    private final MemorySegment eventOut = arena.allocate(ADDRESS);
    /** By native pointer; concurrent, as an id may be closed on another thread than the one reading events. */
    private final Map<Long, CmId> ids = new ConcurrentHashMap<>();
    private final int fd;
    private boolean closed;

    private CmEventChannel(MemorySegment channel) {
        this.channel = channel.reinterpret(Structs.RDMA_EVENT_CHANNEL.byteSize());
        this.fd = this.channel.get(JAVA_INT, Structs.offset(Structs.RDMA_EVENT_CHANNEL, "fd"));
    }

    /**
     * Opens a channel ({@code rdma_create_event_channel}).
     *
     * @throws LibraryUnavailableException if librdmacm or libibverbs is missing
     * @throws VerbsException e.g. ENOENT or ENODEV when the kernel has no RDMA-CM ({@code /dev/infiniband/rdma_cm})
     */
    public static CmEventChannel create() throws VerbsException {
        Verbs.requireRdmacm();
        MemorySegment pointer;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(Native.CAPTURE_STATE);
            pointer = Native.checkPointer("rdma_create_event_channel",
                    (MemorySegment) RdmaCm.CREATE_EVENT_CHANNEL.invokeExact(capture), capture);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        CmEventChannel channel = new CmEventChannel(pointer);
        try {
            LibC.setNonBlocking(channel.fd);
        } catch (VerbsException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    /** @return the descriptor to wait on for readability ({@link FdPoller#register(int)}) */
    public int fd() {
        return fd;
    }

    /**
     * Creates an id for a reliable connection ({@code rdma_create_id} with {@code RDMA_PS_TCP}).
     *
     * @return the id, to be {@link CmId#close() closed} by the caller
     */
    public CmId createId() throws VerbsException {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(Native.CAPTURE_STATE);
            MemorySegment idOut = call.allocate(ADDRESS);
            int rc = (int) RdmaCm.CREATE_ID.invokeExact(capture, channel, idOut, MemorySegment.NULL,
                    Constants.RDMA_PS_TCP);
            Native.checkMinusOne("rdma_create_id", rc, capture);
            return adopt(idOut.get(ADDRESS, 0));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the event channel was destroyed");
        }
    }

    private CmId adopt(MemorySegment pointer) {
        CmId id = new CmId(this, pointer);
        ids.put(pointer.address(), id);
        return id;
    }

    void forget(CmId id) {
        ids.remove(id.pointer().address());
    }

    /**
     * Takes the next event without blocking ({@code rdma_get_cm_event}).
     *
     * @return the event, to be {@link CmEvent#close() acked}; null if none is pending
     */
    public CmEvent getEvent() throws VerbsException {
        checkOpen();
        MemorySegment event;
        try {
            int rc = (int) RdmaCm.GET_CM_EVENT.invokeExact(capture, channel, eventOut);
            if (rc != 0) {
                int errno = Native.errno(capture);
                if (errno == Constants.EAGAIN || errno == Constants.EINTR) {
                    return null;
                }
                throw new VerbsException("rdma_get_cm_event", errno);
            }
            event = eventOut.get(ADDRESS, 0).reinterpret(Structs.RDMA_CM_EVENT.byteSize());
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        MemorySegment idPointer = CmEvent.idPointer(event, "id");
        MemorySegment listenPointer = CmEvent.idPointer(event, "listen_id");
        CmId listenId = listenPointer.equals(MemorySegment.NULL) ? null : ids.get(listenPointer.address());
        CmId id = ids.get(idPointer.address());
        if (id == null) {
            // a connection request's id is new; librdmacm made it on this channel
            id = adopt(idPointer);
        }
        return new CmEvent(event, id, listenId);
    }

    /**
     * Destroys the channel ({@code rdma_destroy_event_channel}) after its ids.
     *
     * @throws IllegalStateException if an id made on it is still open
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (!ids.isEmpty()) {
            throw new IllegalStateException(ids.size() + " ids on this channel are still open");
        }
        closed = true;
        try {
            RdmaCm.DESTROY_EVENT_CHANNEL.invokeExact(channel);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        arena.close();
    }
}
