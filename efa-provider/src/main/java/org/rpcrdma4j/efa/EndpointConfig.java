package org.rpcrdma4j.efa;

import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The knobs of an {@link EfaEndpoint}, with libfabric's EFA defaults where libfabric has one.
 * Build variants with the {@code withX()} methods from {@link #DEFAULT}.
 *
 * <p>Protocol choice (EFA RDM protocol v4 §3.2, libfabric's {@code efa_rdm_msg_select_rtm}):
 * a message of at least {@code minReadMessageSize} bytes goes long-read if both ends announced RDMA
 * read in their handshakes (§4.1), or runting read (§4.5, {@code efa_rdm_peer_select_readbase_rtm}) if the
 * peer announced that too, no long-read or runting-read message of this endpoint is waiting for its
 * reader, and {@code runtSize} less the runt bytes in flight to the peer leaves at least 8 bytes: its
 * first bytes, that much rounded down to 8, go in RUNTREAD packets and the reader pulls the rest. Otherwise
 * it goes eager if it is at most {@code eagerMaxSize} bytes and fits one packet (MTU minus the REQ header
 * for that peer), medium up to {@code mediumMaxSize} bytes, long-CTS above.
 *
 * <p>RMA (libfabric's {@code efa_rdm_rma_post_read} and {@code efa_rdm_rma_post_write}), chosen once the
 * peer's handshake is in: direct RDMA read or write when both ends announced the feature (§4.1, §4.6);
 * otherwise emulated over sends (§3.3). A write goes long-read from {@code minReadWriteSize} bytes on when
 * both ends can RDMA-read, eager if it fits one EAGER_RTW (MTU minus header), long-CTS above; a read
 * goes SHORT_RTR if it fits one READRSP (MTU minus 24 bytes), LONGCTS_RTR above, the first window
 * {@code longCtsCredits} packets (libfabric {@code FI_EFA_TX_MIN_CREDITS}). A write with remote CQ data
 * is always emulated (the device has no write with immediate).
 *
 * <p>Delivery complete (§4.2, libfabric's {@code FI_DELIVERY_COMPLETE}): with {@code deliveryComplete} every
 * send and write completes only once its data is in the peer's receive buffer or registered memory, not when
 * its packets have been transmitted. It is a setting of the endpoint, as {@code FI_DELIVERY_COMPLETE} in
 * {@code tx_attr->op_flags} is, and not of each call: libfabric takes per-operation flags only through its
 * {@code fi_*msg} calls, which this API does not mirror, and a flag on each of the send and write calls would
 * double them for a choice an application makes once per stream of traffic (one endpoint for each, if it needs
 * both). Such an operation waits for the peer's handshake and fails with
 * {@link EfaErrorCode#PEER_LACKS_FEATURE} if the peer does not announce delivery complete (feature 1). It is
 * chosen as any other, with the eager limits 8 bytes lower for the longer DC header; eager, medium and long-CTS
 * messages and eager and long-CTS writes go in their DC variants and complete at the target's RECEIPT, while
 * long-read messages and writes (at their EOR), direct writes (at the device's completion) and every read are
 * delivery complete as they are.
 *
 * @param eagerMaxSize the largest eager message; {@link Integer#MAX_VALUE} (the default) means
 *     "whatever fits one packet", libfabric's MTU minus header
 * @param mediumMaxSize the largest medium message (libfabric {@code FI_EFA_INTER_MAX_MEDIUM_MESSAGE_SIZE}, 64 KiB)
 * @param minReadMessageSize the smallest message sent with the long-read subprotocol when both ends
 *     can use RDMA read (libfabric {@code FI_EFA_INTER_MIN_READ_MESSAGE_SIZE}, 1 MiB); at least 1
 * @param txEntryCount how many sends, reads and writes may be in progress; beyond it the API
 *     returns {@code false} (EAGAIN)
 * @param rxEntryCount how many receives may be posted or in progress
 * @param txPacketCount how many packet buffers of MTU size the endpoint owns for sending
 * @param rxBufferCount how many receive buffers the endpoint keeps posted to the device (capped
 *     at the device's receive queue depth)
 * @param reorderWindow how many msg_ids beyond the next expected one a peer's reorder buffer holds
 *     (libfabric's receive window, 16384)
 * @param longCtsCredits the most CTSDATA packets a long-CTS sender asks for and a receiver
 *     grants per CTS (protocol §3.2 {@code credit_request}); at least 1
 * @param rnrBackoffMinNs the least initial RNR backoff (libfabric: 40 µs)
 * @param rnrBackoffMaxInitialNs the most initial RNR backoff (libfabric: 120 µs)
 * @param rnrBackoffCapNs the longest RNR backoff after doubling (libfabric: 1 s)
 * @param requestConnidHeader whether the handshake asks peers for the connid header (extra request 3)
 * @param requestConstantHeaderLength whether the handshake asks peers to keep the REQ header
 *     length constant (extra request 2)
 * @param rdmaRead whether to announce and use RDMA read (extra feature 0) if the device has it
 * @param rdmaWrite whether to announce and use RDMA write (extra feature 5) if the device has it
 * @param hostId the host id the handshake carries; 0 leaves the optional header out, as the provider does
 * @param initialMsgId the first msg_id towards and from every peer; both ends must agree. libfabric
 *     starts at 0; tests start near 2^32 to exercise the wrap (protocol §3.2, eager tip 1)
 * @param randomSeed the seed of the endpoint's random source (RNR backoff jitter)
 * @param limits what one peer may make the endpoint hold, and when a peer is unreachable
 * @param tags the tags the endpoint receives on; empty (the default) means any tag and untagged
 *     messages. Once declared, a message that arrives untagged or on another tag is dropped at
 *     once and counted ({@link EndpointCounter#UNDECLARED_TAG_MESSAGES}), and untagged receives
 *     are refused
 * @param minReadWriteSize the smallest write emulated with the long-read subprotocol (a LONGREAD_RTW the
 *     target pulls by RDMA read) when both ends can use RDMA read but not RDMA write (libfabric
 *     {@code FI_EFA_INTER_MIN_READ_WRITE_SIZE}, 64 KiB); at least 1
 * @param deliveryComplete whether every send and write completes only once its data is in place at the peer
 *     (libfabric's {@code FI_DELIVERY_COMPLETE} as a transmit op flag); off by default: transmit complete, what
 *     the provider gives an operation that does not ask for delivery complete
 * @param runtSize the most message bytes in flight towards one peer in runting-read packets (libfabric
 *     {@code FI_EFA_RUNT_SIZE}, {@link #DEFAULT_RUNT_SIZE} 0 for host memory: runting read off); at least 0
 */
public record EndpointConfig(int eagerMaxSize, int mediumMaxSize, int minReadMessageSize, int txEntryCount,
                             int rxEntryCount, int txPacketCount, int rxBufferCount, int reorderWindow,
                             int longCtsCredits, long rnrBackoffMinNs, long rnrBackoffMaxInitialNs,
                             long rnrBackoffCapNs, boolean requestConnidHeader,
                             boolean requestConstantHeaderLength, boolean rdmaRead, boolean rdmaWrite, long hostId,
                             int initialMsgId, long randomSeed, EndpointLimits limits, Set<Long> tags,
                             int minReadWriteSize, boolean deliveryComplete, int runtSize) {

    /** libfabric's default largest medium message, 64 KiB. */
    public static final int DEFAULT_MEDIUM_MAX_SIZE = 65536;

    /**
     * libfabric's default smallest long-read message, 1 MiB: fi_efa(7) documents
     * {@code FI_EFA_INTER_MIN_READ_MESSAGE_SIZE} as "Default 1048576". The man page says "larger
     * than"; {@code efa_rdm_msg_select_rtm} compares with {@code >=}, as this endpoint does.
     */
    public static final int DEFAULT_MIN_READ_MESSAGE_SIZE = 1 << 20;

    /**
     * libfabric's default smallest write emulated by long-read, 64 KiB: {@code FI_EFA_INTER_MIN_READ_WRITE_SIZE}
     * ({@code EFA_DEFAULT_INTER_MIN_READ_WRITE_SIZE}), compared with {@code >=} in {@code efa_rdm_rma_post_write}.
     */
    public static final int DEFAULT_MIN_READ_WRITE_SIZE = 65536;

    /**
     * libfabric's default runt size for host memory, 0, so that no message goes runting read:
     * {@code efa_hmem_info_init_protocol_thresholds} sets {@code FI_HMEM_SYSTEM}'s to 0 ("We have not yet tested
     * runting with system memory"); {@code EFA_DEFAULT_RUNT_SIZE}, 307200, is the default for CUDA and ROCr memory.
     */
    public static final int DEFAULT_RUNT_SIZE = 0;

    /** libfabric's default receive window (msg_ids a peer may run ahead). */
    public static final int DEFAULT_REORDER_WINDOW = 16384;

    /** The defaults. */
    public static final EndpointConfig DEFAULT = new EndpointConfig(Integer.MAX_VALUE, DEFAULT_MEDIUM_MAX_SIZE,
            DEFAULT_MIN_READ_MESSAGE_SIZE, 1024, 1024, 1024, 256, DEFAULT_REORDER_WINDOW, 64, 40_000L, 120_000L,
            1_000_000_000L, true, false, true, true, 0L, 0, 0L, EndpointLimits.DEFAULT, Set.of(),
            DEFAULT_MIN_READ_WRITE_SIZE, false, DEFAULT_RUNT_SIZE);

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if a size or count is not positive (the eager and medium
     *     limits may be 0), the backoff range is inverted, or the medium limit is below the eager one
     */
    public EndpointConfig {
        if (eagerMaxSize < 0 || mediumMaxSize < 0 || minReadMessageSize < 1 || txEntryCount < 1 || rxEntryCount < 1
                || txPacketCount < 1 || rxBufferCount < 1 || reorderWindow < 1 || longCtsCredits < 1
                || minReadWriteSize < 1 || runtSize < 0) {
            throw new IllegalArgumentException("sizes must not be negative and counts must be positive");
        }
        if (rnrBackoffMinNs < 1 || rnrBackoffMaxInitialNs < rnrBackoffMinNs || rnrBackoffCapNs < rnrBackoffMaxInitialNs) {
            throw new IllegalArgumentException("bad RNR backoff range " + rnrBackoffMinNs + ".."
                    + rnrBackoffMaxInitialNs + " capped at " + rnrBackoffCapNs);
        }
        Objects.requireNonNull(limits, "limits");
        tags = Set.copyOf(Objects.requireNonNull(tags, "tags"));
    }

    /** @param value the largest eager message @return a copy with it */
    public EndpointConfig withEagerMaxSize(int value) {
        return new EndpointConfig(value, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount, txPacketCount,
                rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value the largest medium message @return a copy with it */
    public EndpointConfig withMediumMaxSize(int value) {
        return new EndpointConfig(eagerMaxSize, value, minReadMessageSize, txEntryCount, rxEntryCount, txPacketCount,
                rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value the smallest long-read message @return a copy with it */
    public EndpointConfig withMinReadMessageSize(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, value, txEntryCount, rxEntryCount, txPacketCount,
                rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value the smallest write emulated with the long-read subprotocol @return a copy with it */
    public EndpointConfig withMinReadWriteSize(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, value, deliveryComplete, runtSize);
    }

    /** @param value the runt bytes in flight per peer, 0 for no runting read @return a copy with it */
    public EndpointConfig withRuntSize(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, value);
    }

    /** @param value how many operations may be in progress @return a copy with it */
    public EndpointConfig withTxEntryCount(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, value, rxEntryCount, txPacketCount,
                rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value how many receives may be posted @return a copy with it */
    public EndpointConfig withRxEntryCount(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, value, txPacketCount,
                rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value how many send packet buffers @return a copy with it */
    public EndpointConfig withTxPacketCount(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount, value,
                rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value how many receive buffers to keep posted @return a copy with it */
    public EndpointConfig withRxBufferCount(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, value, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value the reorder window in msg_ids @return a copy with it */
    public EndpointConfig withReorderWindow(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, value, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value CTSDATA packets per CTS window @return a copy with it */
    public EndpointConfig withLongCtsCredits(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, value, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /**
     * @param minNs least initial backoff
     * @param maxInitialNs most initial backoff
     * @param capNs longest backoff
     * @return a copy with them
     */
    public EndpointConfig withRnrBackoff(long minNs, long maxInitialNs, long capNs) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, minNs, maxInitialNs, capNs,
                requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId, initialMsgId,
                randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value whether to request the connid header @return a copy with it */
    public EndpointConfig withRequestConnidHeader(boolean value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, value, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId, initialMsgId,
                randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value whether to request constant header length @return a copy with it */
    public EndpointConfig withRequestConstantHeaderLength(boolean value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, value, rdmaRead, rdmaWrite, hostId, initialMsgId, randomSeed,
                limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value whether to announce and use RDMA read @return a copy with it */
    public EndpointConfig withRdmaRead(boolean value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, value, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value whether to announce and use RDMA write @return a copy with it */
    public EndpointConfig withRdmaWrite(boolean value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, value, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value the host id for the handshake @return a copy with it */
    public EndpointConfig withHostId(long value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, value,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value the first msg_id, u32 held in an int @return a copy with it */
    public EndpointConfig withInitialMsgId(int value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId, value,
                randomSeed, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value the seed of the endpoint's random source @return a copy with it */
    public EndpointConfig withRandomSeed(long value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, value, limits, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /** @param value what one peer may make the endpoint hold @return a copy with it */
    public EndpointConfig withLimits(EndpointLimits value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, value, tags, minReadWriteSize, deliveryComplete, runtSize);
    }

    /**
     * Asks for delivery complete on every send and write, as {@code FI_DELIVERY_COMPLETE} in libfabric's
     * {@code tx_attr->op_flags}; see {@link #deliveryComplete()}.
     *
     * @param value whether sends and writes complete only once their data is in the peer's buffer
     * @return a copy with it
     */
    public EndpointConfig withDeliveryComplete(boolean value) {
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, tags, minReadWriteSize, value, runtSize);
    }

    /**
     * Declares the tags this endpoint receives on: a message untagged or on any other tag is then
     * dropped as soon as it arrives, before it can take an RX entry or bytes. The set changes at run
     * time with {@link EfaEndpoint#openTag(long)} and {@link EfaEndpoint#closeTag(long)}.
     *
     * @param values the tags, matched exactly; none to accept everything again
     * @return a copy with them
     */
    public EndpointConfig withTags(long... values) {
        final Set<Long> declared = new HashSet<>();
        for (long value : values) {
            declared.add(value);
        }
        return new EndpointConfig(eagerMaxSize, mediumMaxSize, minReadMessageSize, txEntryCount, rxEntryCount,
                txPacketCount, rxBufferCount, reorderWindow, longCtsCredits, rnrBackoffMinNs, rnrBackoffMaxInitialNs,
                rnrBackoffCapNs, requestConnidHeader, requestConstantHeaderLength, rdmaRead, rdmaWrite, hostId,
                initialMsgId, randomSeed, limits, declared, minReadWriteSize, deliveryComplete, runtSize);
    }
}
