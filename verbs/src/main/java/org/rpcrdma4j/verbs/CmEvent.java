package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One RDMA-CM event ({@code struct rdma_cm_event}), valid until {@link #close()} acks it. Ack
 * every event, and ack it before destroying its id: {@code rdma_destroy_id} waits for the acks.
 */
public final class CmEvent implements AutoCloseable {
    private static final long PRIVATE_DATA = Structs.offset(Structs.RDMA_CM_EVENT, "param.conn.private_data");
    private static final long PRIVATE_DATA_LEN = Structs.offset(Structs.RDMA_CM_EVENT, "param.conn.private_data_len");

    private final MemorySegment event;
    private final CmEventType type;
    private final int status;
    private final CmId id;
    private final CmId listenId;
    private boolean acked;

    CmEvent(MemorySegment event, CmId id, CmId listenId) {
        this.event = event;
        this.type = CmEventType.of(event.get(JAVA_INT, Structs.offset(Structs.RDMA_CM_EVENT, "event")));
        this.status = event.get(JAVA_INT, Structs.offset(Structs.RDMA_CM_EVENT, "status"));
        this.id = id;
        this.listenId = listenId;
    }

    static MemorySegment idPointer(MemorySegment event, String field) {
        return event.get(ADDRESS, Structs.offset(Structs.RDMA_CM_EVENT, field));
    }

    /** @return what happened */
    public CmEventType type() {
        return type;
    }

    /**
     * @return 0, or the failure: a negative errno (e.g. -ETIMEDOUT for ADDR_ERROR), or for
     *         REJECTED the IB CM reject reason (28: the consumer rejected)
     */
    public int status() {
        return status;
    }

    /**
     * @return the id it concerns; for {@link CmEventType#CONNECT_REQUEST} a new id for the
     *         connection, which the caller accepts or rejects and in either case closes
     */
    public CmId id() {
        return id;
    }

    /** @return for {@link CmEventType#CONNECT_REQUEST}, the listening id; otherwise null */
    public CmId listenId() {
        return listenId;
    }

    /**
     * The room librdmacm reports for private data: not the sender's length but the CM message's
     * capacity (56 in a REQ, 196 in a REP), zero-padded. Recognise the content by its own framing
     * (RFC 8797: by its magic).
     *
     * @return the room in bytes, 0 if the event carries none
     */
    public int privateDataLength() {
        checkNotAcked();
        if (event.get(ADDRESS, PRIVATE_DATA).equals(MemorySegment.NULL)) {
            return 0;
        }
        return Byte.toUnsignedInt(event.get(JAVA_BYTE, PRIVATE_DATA_LEN));
    }

    /** @return a copy of the private data room ({@link #privateDataLength()} bytes) */
    public byte[] privateData() {
        int length = privateDataLength();
        if (length == 0) {
            return new byte[0];
        }
        return event.get(ADDRESS, PRIVATE_DATA).reinterpret(length).toArray(JAVA_BYTE);
    }

    private void checkNotAcked() {
        if (acked) {
            throw new IllegalStateException("the event was acked; its private data is gone");
        }
    }

    /** Acks the event ({@code rdma_ack_cm_event}), releasing it. */
    @Override
    public void close() throws VerbsException {
        if (acked) {
            return;
        }
        acked = true;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            Native.checkMinusOne("rdma_ack_cm_event", (int) RdmaCm.ACK_CM_EVENT.invokeExact(capture, event), capture);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    @Override
    public String toString() {
        return type.description() + " status=" + status;
    }
}
