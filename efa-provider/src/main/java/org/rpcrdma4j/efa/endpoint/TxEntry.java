package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.AtomicDatatype;
import org.rpcrdma4j.efa.AtomicOp;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * One send, read, write or atomic in progress (libfabric's txe), or the serving of a peer's emulated read or
 * fetch or compare atomic. Its {@link #id} is the {@code send_id} of a long-CTS or long-read message or write
 * (§3.2 table 3.5, §3.3 table 3.9, §4.1 tables 4.1 and 4.3) and of a READRSP (DISCREPANCIES.md A1), and the
 * {@code recv_id} of a FETCH_RTA or COMPARE_RTA (§3.3 table 3.14), as the provider's {@code tx_id}.
 *
 * <p>Ownership: {@link #data} is the application's buffer; the engine reads it, packet by packet,
 * until the operation's completion is written, and the application must not change it before. A
 * long-read message's buffer is registered instead and read by the peer's device until its EOR. A fetch or
 * compare atomic's {@link #result} is written when its ATOMRSP arrives, before its completion.
 */
final class TxEntry {

    int id;
    Peer peer;
    CompletionEntry.Kind kind;
    Protocol protocol;
    long context;
    ByteBuffer data;
    int length;
    boolean tagged;
    long tag;
    boolean hasCqData;
    long cqData;
    int msgId;
    /** Whether the REQ packet (the first one) has been built. */
    boolean reqBuilt;
    /** Data bytes put into packets so far; the next packet starts here. */
    int bytesBuilt;
    /** Long-CTS: data may be built up to here, the end of the window the last CTS granted. */
    int windowEnd;
    /** Long-CTS: the receiver's {@code recv_id} from its CTS. */
    int recvId;
    int packetsOutstanding;
    /** Long-read: the send buffer's registration, held from the RTM until the EOR or READ_NACK. */
    MemoryRegion sendRegion;
    /** Long-read: the receiver's EOR arrived, so it has read everything (§4.1). */
    boolean eorReceived;
    /** The receiver answered READ_NACK: the message goes on as long-CTS, marked REQ_READ_NACK (§4.7). */
    boolean readNacked;
    /** Whether the entry is on the engine's list of entries with packets still to build. */
    boolean pending;
    /** Direct RDMA: the operation is on the device, whose completion is still to come. */
    boolean rmaPosted;
    EfaErrorCode error = EfaErrorCode.SUCCESS;
    boolean completed;
    MemoryRegion local;
    long localOffset;
    RmaIov remote;
    /**
     * The target of an emulated read or fetch or compare atomic serving a peer (§3.3): nothing of the
     * application's, so no completion; {@link #recvId} is the requester's, from its RTR or RTA.
     */
    boolean internal;
    /**
     * An emulated read: the receive that takes the READRSP and CTSDATA packets into the local region, until
     * it ends; then null.
     */
    RxEntry readInto;
    /** An emulated atomic (§3.3): the element type and operation its RTA names. */
    AtomicDatatype datatype;
    AtomicOp atomicOp;
    /** A compare atomic's compare operand, {@link #length} bytes like {@link #data}. */
    ByteBuffer compare;
    /** A fetch or compare atomic's result buffer, which the ATOMRSP fills. */
    ByteBuffer result;
    /** A fetch or compare atomic whose ATOMRSP has not arrived: its target's answer, which completes it. */
    boolean awaitingResponse;

    /**
     * @return whether every byte is in a packet (for long-read: described by the RTM) and every
     *     packet has completed, for long-read whether the receiver's EOR has arrived, for an
     *     emulated read whether every byte has arrived, and for a fetch or compare atomic whether its ATOMRSP has
     */
    boolean isDone() {
        return reqBuilt && bytesBuilt == length && packetsOutstanding == 0
                && (protocol != Protocol.LONG_READ && protocol != Protocol.LONGREAD_RTW || eorReceived)
                && readInto == null && !awaitingResponse;
    }
}
