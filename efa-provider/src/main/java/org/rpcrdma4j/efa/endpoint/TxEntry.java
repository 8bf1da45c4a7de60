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
 * fetch or compare atomic. Its {@link #id} is the {@code send_id} of a long-CTS, long-read or runting-read
 * message or write (§3.2 table 3.5, §3.3 table 3.9, §4.1 tables 4.1 and 4.3, §4.5), of a READRSP
 * (DISCREPANCIES.md A1) and of every delivery-complete REQ, which the target's RECEIPT names (§4.2), and the
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
    /**
     * Runting read: the registration the read_iov describes, kept for the runt packets still to build after the
     * receiver's EOR has let it go (the receiver reads nothing more then).
     */
    MemoryRegion described;
    /** Runting read: the message's first bytes, sent in RUNTREAD packets (libfabric's {@code bytes_runt}). */
    int runtLength;
    /** Runting read: of them, those counted in the peer's {@link Peer#runtBytesInFlight}. */
    int runtInFlight;
    /** Long-read or runting-read message: counted among the messages whose reader has not answered yet. */
    boolean readInFlight;
    /** Long-read: the receiver's EOR arrived, so it has read everything (§4.1). */
    boolean eorReceived;
    /** The receiver answered READ_NACK: the message goes on as long-CTS, marked REQ_READ_NACK (§4.7). */
    boolean readNacked;
    /** Whether the entry is on the engine's list of entries with packets still to build. */
    boolean pending;
    /** Direct RDMA: the operation is on the device, whose completion is still to come. */
    boolean rmaPosted;
    /**
     * The application asked for delivery complete ({@code FI_DELIVERY_COMPLETE}, §4.2): the operation goes only
     * to a peer that announced the feature, and where its subprotocol has a DC variant it completes at the
     * target's RECEIPT.
     */
    boolean deliveryComplete;
    /** The target's RECEIPT arrived: the data is in the application's buffer there (§4.2). */
    boolean receiptReceived;
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
     * @return whether the operation runs a DC variant and completes only at the target's RECEIPT (§4.2); not
     *     before its subprotocol is chosen
     */
    boolean awaitsReceipt() {
        return deliveryComplete && protocol != null && protocol.hasDeliveryCompleteVariant();
    }

    /**
     * @return whether every byte is in a packet (for long-read: described by the RTM; for runting read: every
     *     runt byte) and every packet has completed, for long-read and runting read whether the receiver's EOR
     *     has arrived if one is due, for an emulated read whether every byte has arrived, for a fetch or compare
     *     atomic whether its ATOMRSP has, and for a DC variant whether the RECEIPT has
     */
    boolean isDone() {
        return reqBuilt && bytesBuilt == (protocol == Protocol.RUNT_READ ? runtLength : length)
                && packetsOutstanding == 0 && (!awaitsEor() || eorReceived) && readInto == null
                && !awaitingResponse && (!awaitsReceipt() || receiptReceived);
    }

    /** @return whether the peer reads from this operation's buffer and answers EOR (§4.1, §4.5) */
    boolean awaitsEor() {
        return protocol == Protocol.LONG_READ || protocol == Protocol.LONGREAD_RTW
                || protocol == Protocol.RUNT_READ && runtLength < length;
    }

    /** Runting read: counts the runt in the peer's runt bytes in flight, before any of it is built. */
    void reserveRunt() {
        runtInFlight = runtLength;
        peer.runtBytesInFlight += runtLength;
    }

    /** Runting read: {@code bytes} of the runt are no longer in flight (sent and completed, or never to be sent). */
    void runtDone(int bytes) {
        runtInFlight -= bytes;
        peer.runtBytesInFlight -= bytes;
    }
}
