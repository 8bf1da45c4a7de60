package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.rpcrdma4j.efa.AtomicDatatype;
import org.rpcrdma4j.efa.AtomicOp;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.DroppedMessages;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.EndpointGauge;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.ExtraFeature;

/**
 * The single-threaded progress engine behind {@link org.rpcrdma4j.efa.EfaEndpoint}; applications
 * use that class, which checks arguments and documents the contract. Public only so that the API
 * package can reach it.
 *
 * <p>One call of {@link #progress(long)} polls the device, dispatches what arrived and answers
 * send completions, then works the queues in libfabric's order
 * ({@code efa_rdm_ep_progress_internal}): packets waiting for a full send queue or for a peer's
 * RNR backoff, HANDSHAKEs owed, CTS packets owed, long-read and runting-read reads waiting for the
 * send queue with the EOR and READ_NACK packets owed, PEER_ERROR and RECEIPT packets owed, sends and RMA
 * operations that waited for a handshake, operations with packets still to build, and direct RDMA operations
 * waiting for the send queue.
 *
 * <p>Containment: every device completion, every stage and every device call is guarded; an
 * exception costs the packet, operation or peer it came from ({@link ProgressErrors},
 * {@link PeerTeardown}), never the endpoint. Peers that stop being active on the progress path are
 * torn down between stages.
 *
 * <p>Lifecycle: {@link #close()} cancels every operation, drops every queue, removes every peer,
 * then closes the device, which takes its registrations and posted receives with it; a step that
 * fails stops none of the others.
 *
 * <p>Buffer ownership: the engine owns its receive buffers (posted to the device, or being
 * dispatched) and its send packet buffers (see {@link PacketEntry}); the application's buffers
 * belong to the engine from the call that hands them over until that operation's completion is
 * written. Not thread-safe; no locks. Only {@link #counter} and {@link #gauge} may be called from
 * any thread: each figure is kept, where it changes, in a field the progress thread alone writes
 * and other threads may read.
 */
public final class ProgressEngine {

    private static final int POLL_BATCH = 64;
    private static final int POLL_BUDGET = 4096;

    private final Device device;
    private final EndpointAddress self;
    private final EndpointConfig config;
    private final Counters counters = new Counters();
    private final ProgressErrors errors = new ProgressErrors(counters);
    private final PeerTeardown teardown = new PeerTeardown(counters);
    private final CompletionQueue cq = new CompletionQueue();
    private final AddressVector av;
    private final IdTable<TxEntry> txEntries;
    private final PacketPool packets;
    private final TxQueue txQueue;
    private final TxSide tx;
    private final RxSide rx;
    private final Handshake handshake;
    private final LongCtsReceiver longCtsReceiver;
    private final LongReadSender longReadSender;
    private final LongReadReceiver longReadReceiver;
    private final DirectRma directRma;
    private final RegisteredMemory memory;
    private final PeerErrors peerErrors;
    private final Receipts receipts;
    private final MessageStart messageStart;
    private final RmaStart rmaStart;
    private final PacketDispatcher dispatcher;
    private final int mtu;
    private final ByteBuffer[] receiveBuffers;
    private final Consumer<Completion> onDeviceCompletion = this::onDeviceCompletion;
    /** What {@link #progress} runs after the device's completions, bound once: it runs millions of times a second. */
    private final Stage[] stages;

    /**
     * Creates the engine and posts its receive buffers.
     *
     * @param device the device, owned by the engine from now on
     * @param config the configuration
     */
    public ProgressEngine(Device device, EndpointConfig config) {
        this.device = Objects.requireNonNull(device, "device");
        this.config = Objects.requireNonNull(config, "config");
        this.mtu = device.attributes().mtu();
        this.self = EndpointAddress.of(device.address());
        final Random random = new Random(config.randomSeed());
        this.av = new AddressVector(device, config, random, this::onRestart);
        this.packets = new PacketPool(config.txPacketCount(), mtu);
        this.txQueue = new TxQueue(device, packets, counters, errors, config.limits().peerUnreachableNs());
        this.txEntries = new IdTable<>(config.txEntryCount());
        this.tx = new TxSide(txEntries, packets, txQueue, cq, counters,
                Math.min(config.limits().packetsPerPeer(), config.txPacketCount()));
        this.rx = new RxSide(config, cq, counters);
        final ReqHeader reqHeader = new ReqHeader(self);
        this.handshake = new Handshake(packets, txQueue, reqHeader, self, counters, config, device.attributes());
        final boolean canRead = handshake.announces(ExtraFeature.RDMA_READ);
        final long maxRdmaSize = device.attributes().maxRdmaSize();
        this.longReadSender = new LongReadSender(device, reqHeader, txEntries, counters);
        final ProtocolSelector selector = new ProtocolSelector(config, mtu, canRead,
                handshake.announces(ExtraFeature.RDMA_WRITE), maxRdmaSize, longReadSender::messagesBeingRead);
        this.memory = new RegisteredMemory(device);
        this.peerErrors = new PeerErrors(packets, txQueue, self, counters);
        this.receipts = new Receipts(packets, txQueue, self, counters);
        final RmaAccess access = new RmaAccess(memory, peerErrors, counters);
        final EagerRtm eager = new EagerRtm(reqHeader, rx, counters);
        final MediumRtm medium = new MediumRtm(reqHeader, rx, mtu, config.mediumMaxSize(), counters);
        final LongCtsSender longCtsSender = new LongCtsSender(reqHeader, self, txEntries, counters, mtu,
                config.longCtsCredits());
        this.longCtsReceiver = new LongCtsReceiver(rx, packets, txQueue, self, counters, mtu, config.longCtsCredits());
        this.longReadReceiver = new LongReadReceiver(device, rx, packets, txQueue, self, counters, peerErrors, canRead);
        final RuntRead runtRead = new RuntRead(reqHeader, rx, longReadSender, longReadReceiver, counters, mtu,
                maxRdmaSize);
        final EagerRtw eagerRtw = new EagerRtw(reqHeader, access, rx, counters);
        final LongCtsRtw longCtsRtw = new LongCtsRtw(reqHeader, longCtsSender, access, rx, counters, mtu);
        final LongReadRtw longReadRtw = new LongReadRtw(reqHeader, maxRdmaSize, access, rx, counters);
        final EmulatedRead emulatedRead = new EmulatedRead(reqHeader, rx, counters, mtu, config.longCtsCredits());
        final ReadResponder readResponder = new ReadResponder(access, longCtsSender, self, counters, mtu,
                config.limits().sendsPerPeer());
        final EmulatedAtomic atomic = new EmulatedAtomic(reqHeader, txEntries, counters);
        final AtomicResponder atomicResponder = new AtomicResponder(access, rx, self, counters,
                config.limits().sendsPerPeer());
        rx.subprotocols(longCtsReceiver, longReadReceiver, emulatedRead, receipts);
        tx.subprotocols(eager, medium, longCtsSender, longReadSender, runtRead);
        tx.rmaSubprotocols(eagerRtw, longCtsRtw, longReadRtw, emulatedRead, readResponder);
        emulatedRead.txSide(tx);
        readResponder.txSide(tx);
        tx.atomicSubprotocols(atomic, atomicResponder);
        atomic.txSide(tx);
        atomicResponder.txSide(tx);
        peerErrors.sides(tx, rx);
        receipts.sides(tx, rx);
        this.directRma = new DirectRma(device);
        this.messageStart = new MessageStart(handshake, selector, longReadSender, tx, counters);
        this.rmaStart = new RmaStart(handshake, selector, memory, directRma, longReadSender, emulatedRead, tx,
                counters);
        this.stages = new Stage[] {
            new Stage(txQueue::progress, "retrying queued packets"),
            new Stage(handshake::progress, "sending HANDSHAKE packets"),
            new Stage(longCtsReceiver::progress, "sending CTS packets"),
            new Stage(longReadReceiver::progress, "posting long-read reads"),
            new Stage(peerErrors::progress, "sending PEER_ERROR packets"),
            new Stage(receipts::progress, "sending RECEIPT packets"),
            new Stage(messageStart::progress, "starting sends after the handshake"),
            new Stage(rmaStart::progress, "starting RMA after the handshake"),
            new Stage(tx::progress, "building packets"),
            new Stage(directRma::progress, "posting direct RDMA")};
        this.dispatcher = new PacketDispatcher(av, counters, handshake, eager, medium, runtRead, longCtsSender,
                longCtsReceiver, longReadSender, longReadReceiver, tx, rx, teardown, errors, new RmaTargets(eagerRtw,
                        longCtsRtw, longReadRtw, emulatedRead, readResponder, atomic, atomicResponder, peerErrors),
                receipts);
        teardown.components(handshake, longCtsReceiver, longReadReceiver, peerErrors, receipts, txQueue, tx, rx);
        txQueue.teardown(teardown);
        final int receiveCount = Math.min(config.rxBufferCount(), device.attributes().maxRecvQueueDepth());
        this.receiveBuffers = new ByteBuffer[receiveCount];
        for (int i = 0; i < receiveCount; i++) {
            receiveBuffers[i] = ByteBuffer.allocate(mtu);
            device.postRecv(receiveBuffers[i], i);
        }
    }

    /** @return this endpoint's raw address */
    public EndpointAddress address() {
        return self;
    }

    /**
     * @param address a peer's raw address
     * @return its handle
     */
    public long insert(EndpointAddress address) {
        final long fiAddr = av.insert(address).fiAddr;
        teardown.runDeferred();
        return fiAddr;
    }

    /**
     * Cancels a posted receive that no message has matched.
     *
     * @param context the receive's context
     * @return false if no such receive waits
     */
    public boolean cancelReceive(long context) {
        return rx.cancel(context);
    }

    /** @param tag a tag to take messages on again; see {@link org.rpcrdma4j.efa.EfaEndpoint#openTag(long)} */
    public void openTag(long tag) {
        rx.openTag(tag);
    }

    /** @param tag a tag to stop taking messages on; see {@link org.rpcrdma4j.efa.EfaEndpoint#closeTag(long)} */
    public void closeTag(long tag) {
        rx.closeTag(tag);
    }

    /**
     * Removes a peer; see {@link org.rpcrdma4j.efa.EfaEndpoint#remove(long)}.
     *
     * @param fiAddr its handle
     */
    public void remove(long fiAddr) {
        final Peer peer = av.get(fiAddr);
        teardown.fail(peer, Peer.State.REMOVED);
        av.remove(peer);
    }

    /**
     * @param fiAddr a handle
     * @return whether it names a peer
     */
    public boolean knows(long fiAddr) {
        return av.get(fiAddr) != null;
    }

    /**
     * Starts a send; see {@link org.rpcrdma4j.efa.EfaEndpoint#send}.
     *
     * @param destination the peer's handle
     * @param data the message
     * @param tagged whether it is a tagged send
     * @param tag the tag
     * @param hasCqData whether CQ data goes with it
     * @param cqData the CQ data
     * @param context the application's context
     * @return false if the TX entry table is full
     */
    public boolean send(long destination, ByteBuffer data, boolean tagged, long tag, boolean hasCqData, long cqData,
                        long context) {
        final Peer peer = av.get(destination);
        if (peer.txEntries >= config.limits().sendsPerPeer()) {
            return false;
        }
        final TxEntry entry = new TxEntry();
        entry.peer = peer;
        entry.kind = tagged ? CompletionEntry.Kind.TAGGED_SEND : CompletionEntry.Kind.SEND;
        entry.context = context;
        entry.data = data.slice();
        entry.length = entry.data.capacity();
        entry.tagged = tagged;
        entry.tag = tag;
        entry.hasCqData = hasCqData;
        entry.cqData = cqData;
        entry.deliveryComplete = config.deliveryComplete();
        if (!tx.register(entry)) {
            return false;
        }
        if (!peer.isActive()) {
            tx.failAtStart(entry);
            return true;
        }
        messageStart.start(entry);
        return true;
    }

    /**
     * Posts a receive; see {@link org.rpcrdma4j.efa.EfaEndpoint#recv}.
     *
     * @param source the handle to receive from, or -1 for any
     * @param buffer where the message goes
     * @param tagged whether it is a tagged receive
     * @param tag the tag
     * @param ignore the bits of the tag to ignore
     * @param context the application's context
     * @return false if the RX entry table is full
     */
    public boolean recv(long source, ByteBuffer buffer, boolean tagged, long tag, long ignore, long context) {
        final RxEntry posted = new RxEntry();
        posted.buffer = buffer.slice();
        posted.source = source;
        posted.tagged = tagged;
        posted.tag = tag;
        posted.ignore = ignore;
        posted.context = context;
        final Peer peer = source >= 0 ? av.get(source) : null;
        if (peer != null && !peer.isActive()) {
            rx.refuse(posted, peer.failure());
            return true;
        }
        return rx.post(posted);
    }

    /**
     * Starts an RMA read or write, direct or emulated; see {@link org.rpcrdma4j.efa.EfaEndpoint#read}.
     *
     * @param read true for a read, false for a write
     * @param peerAddr the peer's handle
     * @param local the local region
     * @param localOffset where in it
     * @param remote the peer's memory
     * @param hasCqData whether a write carries remote CQ data
     * @param cqData the CQ data
     * @param context the application's context
     * @return false if the TX entry table is full
     */
    public boolean rma(boolean read, long peerAddr, MemoryRegion local, long localOffset, RmaIov remote,
                       boolean hasCqData, long cqData, long context) {
        final Peer peer = av.get(peerAddr);
        if (peer.txEntries >= config.limits().sendsPerPeer()) {
            return false;
        }
        final TxEntry entry = new TxEntry();
        entry.peer = peer;
        entry.kind = read ? CompletionEntry.Kind.READ : CompletionEntry.Kind.WRITE;
        entry.context = context;
        entry.length = (int) Math.min(remote.length(), Integer.MAX_VALUE);
        entry.local = local;
        entry.localOffset = localOffset;
        entry.remote = remote;
        entry.hasCqData = hasCqData;
        entry.cqData = cqData;
        // A read completes where its data lands: delivery complete by nature (§4.2).
        entry.deliveryComplete = !read && config.deliveryComplete();
        if (!tx.register(entry)) {
            return false;
        }
        if (!peer.isActive()) {
            tx.failAtStart(entry);
            return true;
        }
        rmaStart.start(entry);
        return true;
    }

    /**
     * Starts an emulated atomic; see {@link org.rpcrdma4j.efa.EfaEndpoint#atomic}. The caller has checked the
     * operation against the kind and the operands' lengths against the remote's and {@link #maxAtomicCount}.
     *
     * @param kind {@code ATOMIC}, {@code FETCH_ATOMIC} or {@code COMPARE_ATOMIC}
     * @param peerAddr the peer's handle
     * @param operand the operand, or null for a fetch of ATOMIC_READ
     * @param compare a compare atomic's compare operand, else null
     * @param result a fetch or compare atomic's result buffer, else null
     * @param remote the peer's elements
     * @param datatype the element type
     * @param op the operation
     * @param context the application's context
     * @return false if the TX entry table is full
     */
    public boolean atomic(CompletionEntry.Kind kind, long peerAddr, ByteBuffer operand, ByteBuffer compare,
                          ByteBuffer result, RmaIov remote, AtomicDatatype datatype, AtomicOp op, long context) {
        final Peer peer = av.get(peerAddr);
        if (peer.txEntries >= config.limits().sendsPerPeer()) {
            return false;
        }
        final TxEntry entry = new TxEntry();
        entry.peer = peer;
        entry.kind = kind;
        entry.protocol = switch (kind) {
            case ATOMIC -> Protocol.WRITE_RTA;
            case FETCH_ATOMIC -> Protocol.FETCH_RTA;
            default -> Protocol.COMPARE_RTA;
        };
        entry.context = context;
        entry.length = (int) remote.length();
        entry.remote = remote;
        entry.data = operand == null ? null : operand.slice();
        entry.compare = compare == null ? null : compare.slice();
        entry.result = result == null ? null : result.slice();
        entry.datatype = datatype;
        entry.atomicOp = op;
        entry.awaitingResponse = kind != CompletionEntry.Kind.ATOMIC;
        // §4.2: only a write atomic has a DC variant; a fetch or compare completes where its answer lands.
        entry.deliveryComplete = kind == CompletionEntry.Kind.ATOMIC && config.deliveryComplete();
        if (!tx.register(entry)) {
            return false;
        }
        if (!peer.isActive()) {
            tx.failAtStart(entry);
            return true;
        }
        // §3.3: an RTA takes the next msg_id like a message (efa_rdm_atomic_generic_efa), so it starts as one.
        messageStart.start(entry);
        return true;
    }

    /**
     * @param datatype an element type
     * @param op an operation
     * @return the most elements one atomic may have; see {@link org.rpcrdma4j.efa.EfaEndpoint#maxAtomicCount}
     */
    public int maxAtomicCount(AtomicDatatype datatype, AtomicOp op) {
        return EmulatedAtomic.maxCount(mtu, datatype, op);
    }

    /**
     * Registers memory; see {@link org.rpcrdma4j.efa.EfaEndpoint#register}.
     *
     * @param bytes the bytes between position and limit
     * @param access the rights to grant
     * @return the region, or null if the device registered nothing
     */
    public MemoryRegion register(ByteBuffer bytes, Set<Access> access) {
        return memory.register(bytes, access);
    }

    /** @param region a region {@link #register} made; see {@link org.rpcrdma4j.efa.EfaEndpoint#deregister} */
    public void deregister(MemoryRegion region) {
        memory.deregister(region);
    }

    /**
     * Makes progress; see {@link org.rpcrdma4j.efa.EfaEndpoint#progress(long)}.
     *
     * @param nowNs the current time
     * @return how much work was done
     */
    public int progress(long nowNs) {
        txQueue.now(nowNs);
        tx.now(nowNs);
        int work = 0;
        int polled;
        while (work < POLL_BUDGET && (polled = device.pollCompletions(onDeviceCompletion, POLL_BATCH)) > 0) {
            work += polled;
        }
        teardown.runDeferred();
        for (Stage stage : stages) {
            work += contained(stage.work(), stage.what());
        }
        teardown.runDeferred();
        return work;
    }

    /** See {@link org.rpcrdma4j.efa.EfaEndpoint#idle()}. */
    public boolean idle() {
        return cq.size() == 0 && txQueue.idle() && handshake.idle() && longCtsReceiver.idle() && longReadReceiver.idle()
                && peerErrors.idle() && receipts.idle() && messageStart.idle() && rmaStart.idle() && tx.idle()
                && directRma.idle();
    }

    /**
     * Cancels every operation (its completion says {@link org.rpcrdma4j.efa.EfaErrorCode#CANCELED}),
     * drops every queue, removes every peer and closes the device; see
     * {@link org.rpcrdma4j.efa.EfaEndpoint#close()}. Each step runs even if one before it failed,
     * so the device is closed whatever happened.
     *
     * @throws RuntimeException the first step's failure, once every step has run
     */
    public void close() {
        final CloseSteps steps = new CloseSteps();
        steps.run(teardown::runDeferred);
        steps.run(handshake::clear);
        steps.run(longCtsReceiver::clear);
        steps.run(longReadReceiver::clear);
        steps.run(peerErrors::clear);
        steps.run(receipts::clear);
        steps.run(messageStart::clear);
        steps.run(rmaStart::clear);
        steps.run(directRma::clear);
        steps.run(memory::clear);
        steps.run(txQueue::clear);
        steps.run(tx::cancelAll);
        steps.run(rx::cancelAll);
        for (Peer peer : av.peers()) {
            steps.run(() -> av.remove(peer));
        }
        steps.run(packets::reset);
        steps.run(device::close);
        steps.throwFirstFailure();
    }

    /**
     * @param gauge what to measure
     * @return its value now; any thread, which may see it a moment old
     */
    public long gauge(EndpointGauge gauge) {
        return switch (gauge) {
            case PEERS -> av.size();
            case ADDRESS_HANDLES -> av.addressHandleCount();
            case TX_ENTRIES -> txEntries.size();
            case RX_ENTRIES -> rx.entryCount();
            case UNEXPECTED_MESSAGES -> rx.unexpectedCount();
            case UNEXPECTED_BYTES -> rx.heldBytes();
            case PACKETS_IN_USE -> packets.inUse();
            case REGISTRATIONS -> longReadSender.registrations() + longReadReceiver.registrations();
            case COMPLETIONS -> cq.size();
        };
    }

    /** One step of {@link #progress}: its work, and what it does for the error it may record. */
    private record Stage(IntSupplier work, String what) {
    }

    private int contained(IntSupplier stage, String what) {
        try {
            return stage.getAsInt();
        } catch (RuntimeException e) {
            errors.record(what, e);
            return 0;
        }
    }

    /** A new connid took a peer's GID and QPN (§4.4): what was in progress with it cannot finish. */
    private void onRestart(Peer replaced) {
        counters.increment(EndpointCounter.PEER_RESTARTS);
        teardown.failLater(replaced, Peer.State.RESTARTED);
    }

    /**
     * @param sink receives the entries
     * @param max the most to hand over
     * @return how many were handed over
     */
    public int poll(Consumer<CompletionEntry> sink, int max) {
        return cq.poll(sink, max);
    }

    /**
     * @param sink receives the reports of messages dropped for lack of room
     * @return how many were handed over
     */
    public int pollDropped(Consumer<DroppedMessages> sink) {
        return rx.pollDropped(sink);
    }

    /**
     * @param counter an event
     * @return how often it happened; any thread, which may see it a moment old
     */
    public long counter(EndpointCounter counter) {
        return counters.get(counter);
    }

    private void onDeviceCompletion(Completion completion) {
        switch (completion.opcode()) {
            case RECV -> {
                final int index = (int) completion.wrId();
                final ByteBuffer buffer = receiveBuffers[index];
                try {
                    if (completion.status() == CompletionStatus.OK) {
                        dispatcher.onReceived(buffer, completion);
                    }
                } catch (RuntimeException e) {
                    errors.record("identifying a received packet", e);
                } finally {
                    // The slot was freed by the poll, so the repost cannot meet a full queue.
                    device.postRecv(buffer, index);
                }
            }
            case SEND -> {
                Peer peer = null;
                try {
                    final PacketEntry packet = packets.get(completion.wrId());
                    peer = packet.peer;
                    tx.onSendCompleted(packet, completion.status());
                } catch (RuntimeException e) {
                    errors.record("completing a packet to " + peer, e);
                    if (peer != null) {
                        teardown.failLater(peer, Peer.State.UNREACHABLE);
                    }
                }
            }
            case RDMA_READ, RDMA_WRITE -> {
                try {
                    if (LongReadReceiver.isReceiverRead(completion.wrId())) {
                        longReadReceiver.onReadCompleted(completion.wrId(), completion.status());
                    } else {
                        tx.onRmaCompleted(completion.wrId(), completion.status());
                    }
                } catch (RuntimeException e) {
                    errors.record("completing an RDMA operation", e);
                }
            }
        }
    }
}
