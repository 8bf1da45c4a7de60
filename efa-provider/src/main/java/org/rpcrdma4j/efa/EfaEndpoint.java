package org.rpcrdma4j.efa;

import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.endpoint.ProgressEngine;

/**
 * A reliable datagram (RDM) endpoint speaking EFA RDM protocol v4 over one {@link Device}: the
 * Java shape of a libfabric {@code fid_ep} with its address vector, completion queue and memory
 * registration (the libfabric programmer's guide), and of the EFA provider's protocol behind it.
 *
 * <h2>Operations</h2>
 * Peers are reached by the handle {@link #insert(EndpointAddress)} returns ({@code fi_addr_t}).
 * Messages go eager, medium, long-CTS or, between peers that both use RDMA read, long-read or runting
 * read by size ({@link EndpointConfig}); tagged messages match a receive when the tag bits outside its ignore
 * mask are equal; messages from one peer are matched in the order they were sent
 * ({@code FI_ORDER_SAS}); a message that arrives before its receive waits in the unexpected queue.
 * RMA read and write go to a peer's registered memory: by direct RDMA when both sides announced the
 * feature in the handshake, else emulated over sends, with the peer's endpoint checking key, bounds
 * and rights before it touches a byte. Atomics ({@link #atomic}, {@link #fetchAtomic},
 * {@link #compareAtomic}) are always emulated, one packet each, and applied by the peer's endpoint in the
 * order they were sent.
 *
 * <h2>Completion</h2>
 * A send or write completes once its data has been transmitted at least (transmit complete, the provider's
 * default), or, on an endpoint configured with {@link EndpointConfig#deliveryComplete()}, once its data is in the
 * peer's receive buffer or registered memory ({@code FI_DELIVERY_COMPLETE}, EFA RDM protocol v4 §4.2). Such a
 * send or write waits for the peer's handshake and ends with {@link EfaErrorCode#PEER_LACKS_FEATURE} if the
 * peer does not announce delivery complete. A read completes once its data is in the local region.
 *
 * <h2>Progress</h2>
 * Manual ({@code FI_PROGRESS_MANUAL}): nothing happens unless {@link #progress(long)} is called,
 * by the thread that owns the endpoint (in rpcrdma4j, the transport's progress loop). Receiver-not-ready, a full device
 * send queue and an exhausted packet pool are absorbed: the packets wait and are retried, with
 * randomized exponential backoff from a peer that keeps answering RNR. The only back-pressure the
 * application sees is a {@code false} from a call when the endpoint's TX or RX entry table is full
 * (EAGAIN): poll completions and progress, then try again.
 *
 * <h2>Peers</h2>
 * A peer that comes back as a new queue pair on the same GID and QPN with a new connid (a
 * restarted process, EFA RDM protocol v4 §4.4 "QP collision") is a new peer with a new handle,
 * whether it is {@linkplain #insert inserted} or its first packet names it; the old handle's
 * operations end with {@link EfaErrorCode#PEER_RESTARTED}. A peer that stops receiving is held to
 * its share of the endpoint ({@link EndpointLimits}) and, after a bounded time of RNR, declared
 * unreachable: its operations end with {@link EfaErrorCode#PEER_UNREACHABLE}, and so does
 * everything started with it later. {@link #remove(long)} forgets a peer and all it holds.
 *
 * <h2>Lifecycle</h2>
 * {@link #close()} ends every operation with {@link EfaErrorCode#CANCELED}, releases every peer,
 * address handle, packet buffer, posted receive and registration the endpoint holds, and closes the
 * device, which frees its QPN; a step that fails stops none of the others. Its completions remain
 * to be {@linkplain #poll polled} and its {@linkplain #statistics() statistics} and
 * {@linkplain #deviceCounters() device's counters} to be read; every other call throws
 * {@link EndpointClosedException}.
 *
 * <h2>Buffer ownership</h2>
 * The bytes between position and limit of a buffer given to a send, receive or atomic belong to the
 * endpoint until that operation's completion has been written: a send's or an atomic operand's may be
 * read at any time before, a receive's or an atomic result's written. Positions and limits are never
 * changed.
 *
 * <h2>Threads</h2>
 * Not thread-safe. One thread calls everything, including {@link #progress(long)}; other threads
 * hand it commands. Only {@link #statistics()} and {@link #deviceCounters()} may be called from any thread.
 */
public final class EfaEndpoint implements AutoCloseable {

    /** The handle that names no peer: a receive posted with it takes messages from anyone. */
    public static final long ADDR_UNSPEC = -1;

    private final Device device;
    private final EndpointConfig config;
    private final ProgressEngine engine;
    private boolean closed;

    /**
     * Creates an endpoint over a device and posts its receive buffers.
     *
     * @param device the device; the endpoint owns it from now on
     * @param config the configuration
     */
    public EfaEndpoint(Device device, EndpointConfig config) {
        this.device = Objects.requireNonNull(device, "device");
        this.config = Objects.requireNonNull(config, "config");
        this.engine = new ProgressEngine(device, config);
    }

    /** @return this endpoint's raw address, to hand to peers out of band */
    public EndpointAddress address() {
        return engine.address();
    }

    /**
     * Inserts a peer into the address vector ({@code fi_av_insert}).
     *
     * @param address the peer's raw address
     * @return the peer's handle; inserting the same address again returns the same handle. A new
     *     connid on the GID and QPN of a known peer gives a new handle, and the old one's operations
     *     end with {@link EfaErrorCode#PEER_RESTARTED}
     * @throws EndpointClosedException if the endpoint is closed
     */
    public long insert(EndpointAddress address) {
        requireOpen();
        return engine.insert(Objects.requireNonNull(address, "address"));
    }

    /**
     * Removes a peer from the address vector ({@code fi_av_remove}): its operations end with
     * {@link EfaErrorCode#CANCELED} (those the device still works on, when it reports them), what
     * was received from it and not yet taken is dropped, and its handle may be given to a peer
     * inserted later. Inserting its address again makes a fresh peer, unreachable ones included.
     *
     * @param handle the peer's handle
     * @throws IllegalArgumentException if the handle names no peer
     * @throws EndpointClosedException if the endpoint is closed
     */
    public void remove(long handle) {
        requireOpen();
        engine.remove(requirePeer(handle));
    }

    /**
     * Cancels a posted receive that no message has matched yet ({@code fi_cancel}): it completes
     * with {@link EfaErrorCode#CANCELED}, and its buffer is the application's again.
     *
     * @param context the context the receive was posted with
     * @return false if no such receive waits: it took a message already (its completion comes), or
     *     none was posted with this context
     * @throws EndpointClosedException if the endpoint is closed
     */
    public boolean cancel(long context) {
        requireOpen();
        return engine.cancelReceive(context);
    }

    /**
     * Takes messages on a tag from now on: declares it beside those of
     * {@link EndpointConfig#withTags(long...)}, or, on an endpoint that takes every tag, opens again
     * a tag {@link #closeTag closed} before. Nothing that arrived on it while it was closed is
     * delivered: a tag reopened starts clean.
     *
     * @param tag the tag
     * @throws EndpointClosedException if the endpoint is closed
     */
    public void openTag(long tag) {
        requireOpen();
        engine.openTag(tag);
    }

    /**
     * Stops taking messages on a tag, as one stream of messages ends (an application's connection
     * multiplexed on tags): receives posted for exactly this tag (no ignore bits) complete with
     * {@link EfaErrorCode#CANCELED}; unexpected messages on it are dropped
     * ({@link EndpointCounter#CLOSED_TAG_MESSAGES}), so that they cannot reach a later user of the
     * tag; what arrives on it from now on is dropped at once
     * ({@link EndpointCounter#UNDECLARED_TAG_MESSAGES}) until {@link #openTag} takes it again. A
     * message a receive has matched already completes as usual. libfabric has no such call: it is
     * what closing a tagged receive context does, or an {@code fi_cancel} of every receive on the
     * tag together with discarding its unexpected messages (which {@code fi_cancel} cannot reach).
     *
     * @param tag the tag
     * @throws EndpointClosedException if the endpoint is closed
     */
    public void closeTag(long tag) {
        requireOpen();
        engine.closeTag(tag);
    }

    /**
     * Registers memory for RDMA ({@code fi_mr_reg}).
     *
     * @param memory the bytes between position and limit
     * @param access the rights to grant
     * @return the region, whose {@link MemoryRegion#iov(long, long)} names bytes for peers, or
     *     {@code null} if the device cannot register more memory. Peers reach it by direct RDMA through the
     *     device and by emulated RMA through this endpoint, which checks the same key, bounds and rights
     */
    public MemoryRegion register(ByteBuffer memory, Set<Access> access) {
        requireOpen();
        return engine.register(Objects.requireNonNull(memory, "memory"), Objects.requireNonNull(access, "access"));
    }

    /** @return whether {@link #close} was called: the endpoint and its device have released everything */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Deregisters memory.
     *
     * @param region a region this endpoint registered
     */
    public void deregister(MemoryRegion region) {
        requireOpen();
        engine.deregister(region);
    }

    /**
     * Sends a message ({@code fi_send}).
     *
     * @param destination the peer's handle
     * @param data the message, between position and limit
     * @param context returned in the completion
     * @return false if the endpoint has no free TX entry, or the peer already has
     *     {@link EndpointLimits#sendsPerPeer()} operations in progress (EAGAIN). With a peer that is
     *     no longer active the operation is accepted and completes at once with its failure
     * @throws IllegalArgumentException if the handle names no peer
     */
    public boolean send(long destination, ByteBuffer data, long context) {
        return engine.send(requirePeer(destination), requireData(data), false, 0, false, 0, context);
    }

    /**
     * Sends a message with remote CQ data ({@code fi_senddata}).
     *
     * @param destination the peer's handle
     * @param data the message
     * @param cqData given to the receiver in its completion
     * @param context returned in the completion
     * @return false if the endpoint has no free TX entry, or the peer already has
     *     {@link EndpointLimits#sendsPerPeer()} operations in progress (EAGAIN). With a peer that is
     *     no longer active the operation is accepted and completes at once with its failure
     * @throws IllegalArgumentException if the handle names no peer
     */
    public boolean sendData(long destination, ByteBuffer data, long cqData, long context) {
        return engine.send(requirePeer(destination), requireData(data), false, 0, true, cqData, context);
    }

    /**
     * Sends a tagged message ({@code fi_tsend}).
     *
     * @param destination the peer's handle
     * @param data the message
     * @param tag the tag
     * @param context returned in the completion
     * @return false if the endpoint has no free TX entry, or the peer already has
     *     {@link EndpointLimits#sendsPerPeer()} operations in progress (EAGAIN). With a peer that is
     *     no longer active the operation is accepted and completes at once with its failure
     * @throws IllegalArgumentException if the handle names no peer
     */
    public boolean sendTagged(long destination, ByteBuffer data, long tag, long context) {
        return engine.send(requirePeer(destination), requireData(data), true, tag, false, 0, context);
    }

    /**
     * Sends a tagged message with remote CQ data ({@code fi_tsenddata}).
     *
     * @param destination the peer's handle
     * @param data the message
     * @param tag the tag
     * @param cqData given to the receiver in its completion
     * @param context returned in the completion
     * @return false if the endpoint has no free TX entry, or the peer already has
     *     {@link EndpointLimits#sendsPerPeer()} operations in progress (EAGAIN). With a peer that is
     *     no longer active the operation is accepted and completes at once with its failure
     * @throws IllegalArgumentException if the handle names no peer
     */
    public boolean sendTaggedData(long destination, ByteBuffer data, long tag, long cqData, long context) {
        return engine.send(requirePeer(destination), requireData(data), true, tag, true, cqData, context);
    }

    /**
     * Posts a receive for an untagged message ({@code fi_recv}). A longer message fills the
     * buffer and completes with {@link EfaErrorCode#MESSAGE_TRUNCATED}.
     *
     * @param source the peer to receive from, or {@link #ADDR_UNSPEC} for any
     * @param buffer where the message goes, between position and limit
     * @param context returned in the completion
     * @return false if the endpoint has no free RX entry (EAGAIN)
     * @throws IllegalArgumentException if the source names no peer
     * @throws IllegalStateException if the configuration declared tags: the endpoint takes tagged
     *     messages only
     */
    public boolean recv(long source, ByteBuffer buffer, long context) {
        if (!config.tags().isEmpty()) {
            throw new IllegalStateException("the endpoint declared its tags: it takes tagged messages only");
        }
        return engine.recv(requireSource(source), requireWritable(buffer), false, 0, 0, context);
    }

    /**
     * Posts a receive for a tagged message ({@code fi_trecv}): it takes a message whose tag
     * equals {@code tag} in every bit not set in {@code ignore}.
     *
     * @param source the peer to receive from, or {@link #ADDR_UNSPEC} for any
     * @param buffer where the message goes
     * @param tag the tag
     * @param ignore the tag bits that do not matter
     * @param context returned in the completion
     * @return false if the endpoint has no free RX entry (EAGAIN)
     * @throws IllegalArgumentException if the source names no peer
     */
    public boolean recvTagged(long source, ByteBuffer buffer, long tag, long ignore, long context) {
        return engine.recv(requireSource(source), requireWritable(buffer), true, tag, ignore, context);
    }

    /**
     * Reads a peer's registered memory into a local region ({@code fi_read}). Once the peer's handshake is
     * in, the read goes by one device RDMA read when both ends announced RDMA read (direct read, EFA RDM
     * protocol v4 §4.1), else emulated over sends (§3.3: SHORT_RTR answered by READRSP, or LONGCTS_RTR
     * answered by READRSP and CTSDATA); see {@link EndpointConfig}. The peer must keep progressing its
     * endpoint to serve an emulated read. A refused remote access ends with
     * {@link EfaErrorCode#REMOTE_ERROR_BAD_ADDRESS}; an emulated one only if the peer's handshake admits
     * PEER_ERROR, by which it reports it (otherwise the read waits until the peer ends).
     *
     * @param peer the peer's handle
     * @param local the region to read into, registered through this endpoint; needs {@link Access#LOCAL_WRITE}
     * @param localOffset where in it
     * @param remote the peer's bytes
     * @param context returned in the completion
     * @return false if the endpoint has no free TX entry, or the peer already has
     *     {@link EndpointLimits#sendsPerPeer()} operations in progress (EAGAIN). With a peer that is
     *     no longer active the operation is accepted and completes at once with its failure
     * @throws IllegalArgumentException if the handle names no peer or the offset is negative
     */
    public boolean read(long peer, MemoryRegion local, long localOffset, RmaIov remote, long context) {
        return engine.rma(true, requirePeer(peer), Objects.requireNonNull(local, "local"),
                requireOffset(localOffset), Objects.requireNonNull(remote, "remote"), false, 0, context);
    }

    /**
     * Writes a local region into a peer's registered memory ({@code fi_write}). Once the peer's handshake
     * is in, the write goes by one device RDMA write when both ends announced RDMA write (direct write,
     * §4.6), else emulated over sends: LONGREAD_RTW (the peer RDMA-reads the bytes, §4.1) from
     * {@link EndpointConfig#minReadWriteSize()} bytes when both ends announced RDMA read, else EAGER_RTW if
     * it fits one packet, LONGCTS_RTW above (§3.3). An emulated write completes when its bytes are delivered
     * (eager) or placed (long-CTS, long-read), or, with {@link EndpointConfig#deliveryComplete()}, at the
     * target's RECEIPT once they are in place (DC_EAGER_RTW, DC_LONGCTS_RTW, §4.2); a refused remote access ends
     * with {@link EfaErrorCode#REMOTE_ERROR_BAD_ADDRESS}, for an emulated write only if the peer's handshake
     * admits PEER_ERROR and the write is not a plain eager one (an EAGER_RTW names no operation to refuse).
     *
     * @param peer the peer's handle
     * @param local the region the bytes come from, registered through this endpoint
     * @param localOffset where in it
     * @param remote where the bytes go
     * @param context returned in the completion
     * @return false if the endpoint has no free TX entry, or the peer already has
     *     {@link EndpointLimits#sendsPerPeer()} operations in progress (EAGAIN). With a peer that is
     *     no longer active the operation is accepted and completes at once with its failure
     * @throws IllegalArgumentException if the handle names no peer or the offset is negative
     */
    public boolean write(long peer, MemoryRegion local, long localOffset, RmaIov remote, long context) {
        return engine.rma(false, requirePeer(peer), Objects.requireNonNull(local, "local"),
                requireOffset(localOffset), Objects.requireNonNull(remote, "remote"), false, 0, context);
    }

    /**
     * Writes with remote CQ data ({@code fi_writedata}): as {@link #write}, always emulated (the device
     * has no RDMA write with immediate), and the peer's endpoint reports the write with
     * {@link CompletionEntry.Kind#REMOTE_WRITE} and {@code cqData} ({@code FI_REMOTE_CQ_DATA}, §3.3).
     *
     * @param peer the peer's handle
     * @param local the region the bytes come from, registered through this endpoint
     * @param localOffset where in it
     * @param remote where the bytes go
     * @param cqData given to the peer in its completion
     * @param context returned in the completion
     * @return false on EAGAIN, as {@link #write}
     * @throws IllegalArgumentException if the handle names no peer or the offset is negative
     */
    public boolean writeData(long peer, MemoryRegion local, long localOffset, RmaIov remote, long cqData,
                             long context) {
        return engine.rma(false, requirePeer(peer), Objects.requireNonNull(local, "local"),
                requireOffset(localOffset), Objects.requireNonNull(remote, "remote"), true, cqData, context);
    }

    /**
     * Applies an atomic operation to a peer's registered memory ({@code fi_atomic}), element by element:
     * {@code remote.length() / datatype.size()} elements, each {@code target = target op operand}
     * ({@link AtomicOp}). Always emulated (EFA RDM protocol v4 §3.3): one WRITE_RTA carries the operand, the peer's
     * endpoint applies it on its progress thread, after every message and atomic this endpoint sent it before
     * (FI_ORDER_SAS), so atomics on the same memory from any number of peers are atomic with respect to each other.
     * It completes when the packet is delivered (transmit complete), as the provider's does; a refused access
     * (key, bounds, remote-write right, a datatype or operation the peer does not serve) is reported by nothing,
     * as a WRITE_RTA names no operation for the peer to report. On an endpoint configured with
     * {@link EndpointConfig#deliveryComplete()} it goes as DC_WRITE_RTA (§4.2) once the peer's handshake announced
     * delivery complete (else it fails with {@link EfaErrorCode#PEER_LACKS_FEATURE}), completes once the peer
     * applied it (its RECEIPT), and a refusal is reported ({@link EfaErrorCode#REMOTE_ERROR_BAD_ADDRESS}). The
     * operand is read until the completion.
     *
     * @param peer the peer's handle
     * @param operand the elements, between position and limit, little endian: {@code remote.length()} bytes
     * @param remote the peer's elements, a whole number of them
     * @param datatype the element type
     * @param op MIN, MAX, SUM, PROD, LOR, LAND, BOR, BAND, LXOR, BXOR or ATOMIC_WRITE ({@link AtomicOp#isWrite()})
     * @param context returned in the completion, of kind {@link CompletionEntry.Kind#ATOMIC}
     * @return false on EAGAIN, as {@link #write}
     * @throws IllegalArgumentException if the handle names no peer, {@code fi_atomic} does not take the operation,
     *     the remote is not a whole number of elements, holds more than {@link #maxAtomicCount} of them, or the
     *     operand is not as long as it
     */
    public boolean atomic(long peer, ByteBuffer operand, RmaIov remote, AtomicDatatype datatype, AtomicOp op,
                          long context) {
        requirePeer(peer);
        requireAtomic(CompletionEntry.Kind.ATOMIC, remote, datatype, op);
        requireOperand("operand", operand, remote);
        return engine.atomic(CompletionEntry.Kind.ATOMIC, peer, operand, null, null, remote, datatype, op, context);
    }

    /**
     * Applies an atomic operation to a peer's registered memory and returns the elements as they were
     * ({@code fi_fetch_atomic}), as {@link #atomic}, with ATOMIC_READ too. One FETCH_RTA carries the operand; the
     * peer's endpoint applies it and answers with an ATOMRSP, whose elements go into {@code result}; then the
     * operation completes. A refused access (key, bounds, remote read and write rights (read only for
     * ATOMIC_READ), a datatype or operation the peer does not serve) ends it with
     * {@link EfaErrorCode#REMOTE_ERROR_BAD_ADDRESS} if the peer's handshake admits PEER_ERROR, by which it reports
     * it (otherwise the operation waits until the peer ends), with {@code result} untouched.
     *
     * @param peer the peer's handle
     * @param operand the elements, {@code remote.length()} bytes; null for ATOMIC_READ, which ignores it
     * @param result where the elements before the operation go, between position and limit:
     *     {@code remote.length()} bytes, written before the completion
     * @param remote the peer's elements, a whole number of them
     * @param datatype the element type
     * @param op MIN to BXOR, ATOMIC_READ or ATOMIC_WRITE ({@link AtomicOp#isFetch()}); a fetched ATOMIC_WRITE is a
     *     swap
     * @param context returned in the completion, of kind {@link CompletionEntry.Kind#FETCH_ATOMIC}
     * @return false on EAGAIN, as {@link #write}
     * @throws IllegalArgumentException if the handle names no peer, {@code fi_fetch_atomic} does not take the
     *     operation, the remote is not a whole number of elements or holds more than {@link #maxAtomicCount} of
     *     them, an operand or the result is not as long as it, or the result is read-only
     */
    public boolean fetchAtomic(long peer, ByteBuffer operand, ByteBuffer result, RmaIov remote,
                               AtomicDatatype datatype, AtomicOp op, long context) {
        requirePeer(peer);
        requireAtomic(CompletionEntry.Kind.FETCH_ATOMIC, remote, datatype, op);
        if (operand != null || op != AtomicOp.ATOMIC_READ) {
            requireOperand("operand", operand, remote);
        }
        requireResult(result, remote);
        return engine.atomic(CompletionEntry.Kind.FETCH_ATOMIC, peer, operand, null, result, remote, datatype, op,
                context);
    }

    /**
     * Compares a peer's elements with {@code compare} and, where the comparison holds, replaces them with the
     * operand's, returning the elements as they were ({@code fi_compare_atomic}); otherwise as
     * {@link #fetchAtomic}. One COMPARE_RTA carries operand and compare, so each may have half of what a fetch's
     * may.
     *
     * @param peer the peer's handle
     * @param operand the elements that replace the peer's, {@code remote.length()} bytes
     * @param compare the elements compared with the peer's, {@code remote.length()} bytes; MSWAP's mask
     * @param result where the elements before the operation go, {@code remote.length()} bytes
     * @param remote the peer's elements, a whole number of them
     * @param datatype the element type
     * @param op CSWAP, CSWAP_NE, CSWAP_LE, CSWAP_LT, CSWAP_GE, CSWAP_GT or MSWAP ({@link AtomicOp#isCompare()})
     * @param context returned in the completion, of kind {@link CompletionEntry.Kind#COMPARE_ATOMIC}
     * @return false on EAGAIN, as {@link #write}
     * @throws IllegalArgumentException if the handle names no peer, {@code fi_compare_atomic} does not take the
     *     operation, the remote is not a whole number of elements or holds more than {@link #maxAtomicCount} of
     *     them, an operand or the result is not as long as it, or the result is read-only
     */
    public boolean compareAtomic(long peer, ByteBuffer operand, ByteBuffer compare, ByteBuffer result, RmaIov remote,
                                 AtomicDatatype datatype, AtomicOp op, long context) {
        requirePeer(peer);
        requireAtomic(CompletionEntry.Kind.COMPARE_ATOMIC, remote, datatype, op);
        requireOperand("operand", operand, remote);
        requireOperand("compare", compare, remote);
        requireResult(result, remote);
        return engine.atomic(CompletionEntry.Kind.COMPARE_ATOMIC, peer, operand, compare, result, remote, datatype, op,
                context);
    }

    /**
     * The most elements one atomic may have ({@code fi_atomicvalid} and its fetch and compare variants): its
     * operands must fit one packet, by the provider's rule (MTU less the RTA header, a raw address and four
     * {@code rma_iov} entries; half of that per operand for a compare operation).
     *
     * @param datatype the element type
     * @param op the operation
     * @return the count; a larger atomic is refused
     */
    public int maxAtomicCount(AtomicDatatype datatype, AtomicOp op) {
        return engine.maxAtomicCount(Objects.requireNonNull(datatype, "datatype"), Objects.requireNonNull(op, "op"));
    }

    /**
     * Drives the device and the protocol: handles what the device completed, then retries what
     * waits. Call it often; nothing moves without it.
     *
     * @param nowNs the current time in nanoseconds, from any clock that does not go backwards
     * @return how much work was done, 0 if none (an idle strategy may back off then)
     */
    public int progress(long nowNs) {
        requireOpen();
        return engine.progress(nowNs);
    }

    /**
     * Whether {@link #progress} has nothing to do until the device completes something or the
     * application posts or cancels an operation: no packet waits to be built, posted or retried after a
     * receiver-not-ready backoff, no HANDSHAKE, CTS or RDMA read is owed, and no completion waits to be
     * {@linkplain #poll polled}. A progress thread may then sleep until woken, if its device, too, has
     * nothing in flight (a simulated network knows) or will wake it ({@link #armWakeup}).
     *
     * @return whether the endpoint is idle; progress thread only
     */
    public boolean idle() {
        return engine.idle();
    }

    /**
     * Lets the progress thread sleep until the device completes something: if the endpoint is
     * {@linkplain #idle idle}, arms the device's one-shot notification
     * ({@link Device#armCompletionNotification}), which runs {@code wake} on the device's thread.
     *
     * @param wake what wakes the progress thread; it must not block
     * @return whether the thread may sleep until {@code wake} runs (or it posts something itself);
     *     {@code false} if the endpoint has work, is closed, or its device cannot notify
     */
    public boolean armWakeup(Runnable wake) {
        return !closed && engine.idle() && device.armCompletionNotification(wake);
    }

    /**
     * Closes the endpoint ({@code fi_close}): every operation in progress completes with
     * {@link EfaErrorCode#CANCELED}, every peer is removed, and everything the endpoint holds is
     * released, the device included. Completions written before and by the close can still be
     * {@linkplain #poll polled}. Closing again does nothing.
     *
     * @throws RuntimeException what the first step of the close that failed threw (the device
     *     refusing to free something), once every other step has run; the endpoint is closed
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            engine.close();
        }
    }

    /**
     * Reads completions ({@code fi_cq_read}, errors included).
     *
     * @param sink receives each entry, oldest first
     * @param max the most entries to hand over
     * @return how many were handed over
     * @throws RuntimeException what {@code sink} throws; the entry it was handed counts as handed over
     */
    public int poll(Consumer<CompletionEntry> sink, int max) {
        return engine.poll(Objects.requireNonNull(sink, "sink"), max);
    }

    /**
     * Reads the reports of unexpected messages dropped for lack of room, one per peer and tag that lost
     * messages since the last call ({@link DroppedMessages}). A dropped message is never retransmitted:
     * the application ends what it belonged to, as a reliable connection breaks on receiver-not-ready.
     * libfabric's EFA provider writes an error to the endpoint's event queue instead, for the endpoint.
     *
     * @param sink receives each report, oldest first
     * @return how many were handed over
     * @throws RuntimeException what {@code sink} throws; the report it was handed counts as handed over
     */
    public int pollDropped(Consumer<DroppedMessages> sink) {
        return engine.pollDropped(Objects.requireNonNull(sink, "sink"));
    }

    /**
     * Reads every counter and gauge, on any thread, without waiting for the one that progresses the
     * endpoint. On that thread they are read at one moment; on another each is read as that thread
     * last wrote it, so they may be a moment old and of consecutive moments. A closed endpoint's
     * gauges are 0, but for {@link EndpointGauge#COMPLETIONS}.
     *
     * @return what the endpoint has counted and holds now
     */
    public EndpointStatistics statistics() {
        Map<EndpointCounter, Long> counters = new EnumMap<>(EndpointCounter.class);
        for (EndpointCounter counter : EndpointCounter.values()) {
            counters.put(counter, engine.counter(counter));
        }
        Map<EndpointGauge, Long> gauges = new EnumMap<>(EndpointGauge.class);
        for (EndpointGauge gauge : EndpointGauge.values()) {
            gauges.put(gauge, engine.gauge(gauge));
        }
        return new EndpointStatistics(counters, gauges);
    }

    /**
     * @return what the device below counts of its own ({@link Device#counters()}: a UDP device's
     *     retransmissions, for one); any thread, also after close
     */
    public Map<String, Long> deviceCounters() {
        return device.counters();
    }

    private void requireOpen() {
        if (closed) {
            throw new EndpointClosedException(engine.address());
        }
    }

    private long requirePeer(long handle) {
        requireOpen();
        if (!engine.knows(handle)) {
            throw new IllegalArgumentException("no peer with handle " + handle);
        }
        return handle;
    }

    private long requireSource(long handle) {
        requireOpen();
        return handle == ADDR_UNSPEC ? handle : requirePeer(handle);
    }

    private static ByteBuffer requireData(ByteBuffer data) {
        return Objects.requireNonNull(data, "data");
    }

    private static ByteBuffer requireWritable(ByteBuffer buffer) {
        if (Objects.requireNonNull(buffer, "buffer").isReadOnly()) {
            throw new IllegalArgumentException("a receive or result buffer must be writable");
        }
        return buffer;
    }

    private void requireAtomic(CompletionEntry.Kind kind, RmaIov remote, AtomicDatatype datatype, AtomicOp op) {
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(datatype, "datatype");
        Objects.requireNonNull(op, "op");
        switch (kind) {
            case ATOMIC -> {
                if (!op.isWrite()) {
                    throw new IllegalArgumentException(op + " is no write atomic (fi_atomic takes MIN to BXOR and "
                            + "ATOMIC_WRITE)");
                }
            }
            case FETCH_ATOMIC -> {
                if (!op.isFetch()) {
                    throw new IllegalArgumentException(op + " is no fetch atomic (fi_fetch_atomic takes MIN to "
                            + "ATOMIC_WRITE); a compare operation goes by compareAtomic");
                }
            }
            default -> {
                if (!op.isCompare()) {
                    throw new IllegalArgumentException(op + " is no compare atomic (fi_compare_atomic takes CSWAP "
                            + "to MSWAP)");
                }
            }
        }
        final long length = remote.length();
        if (length == 0 || length % datatype.size() != 0) {
            throw new IllegalArgumentException("the remote's " + length + " bytes are no whole, non-zero number of "
                    + datatype + " elements of " + datatype.size() + " bytes");
        }
        final int max = engine.maxAtomicCount(datatype, op);
        if (length / datatype.size() > max) {
            throw new IllegalArgumentException(op + " on " + length / datatype.size() + " " + datatype
                    + " elements: one packet holds at most " + max);
        }
    }

    private static void requireOperand(String name, ByteBuffer operand, RmaIov remote) {
        if (Objects.requireNonNull(operand, name).remaining() != remote.length()) {
            throw new IllegalArgumentException("the " + name + " has " + operand.remaining() + " bytes, the remote "
                    + remote.length());
        }
    }

    private static void requireResult(ByteBuffer result, RmaIov remote) {
        requireOperand("result", requireWritable(result), remote);
    }

    private static long requireOffset(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        return offset;
    }
}
