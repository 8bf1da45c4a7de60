package org.rpcrdma4j.efa.device.udp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.DeviceAttributes;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.MemoryRegistrations;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.PostChecks;
import org.rpcrdma4j.efa.device.RmaIov;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An EFA queue pair over UDP: the {@link Device} SPI with SRD semantics (every packet delivered
 * exactly once, in any order) on a Netty datagram channel, so the EFA endpoint runs between
 * processes and hosts without EFA hardware, as libfabric's {@code udp;ofi_rxd} lets EFA-style
 * software run.
 *
 * <ul>
 *   <li><b>Addressing.</b> The GID is the IP address the device is bound to (IPv4 as
 *       {@code ::ffff:a.b.c.d}), the QPN its UDP port, the Q-Key a random number drawn at open and
 *       checked on every datagram ({@link UdpAddresses}).</li>
 *   <li><b>Reliability.</b> {@link SrdEngine}: per-peer sequence numbers, cumulative and selective
 *       acknowledgements, duplicate suppression, retransmission on an RFC 6298 timeout with backoff,
 *       a bounded window, and a bound after which a peer is unreachable and its operations fail.
 *       A send that finds no receive posted completes with {@code REMOTE_ERROR_RNR} at its sender.</li>
 *   <li><b>RDMA.</b> Read and write (up to 1 GiB) are served by this device's I/O thread from its
 *       registrations, which check key, bounds and access, without the endpoint's progress.</li>
 *   <li><b>Threads.</b> One Netty event loop (native epoll where it loads, else NIO; chosen at
 *       open and logged) owns the socket and the engine. The posting thread hands operations over
 *       through a queue and collects completions from another in {@link #pollCompletions}, as the
 *       SPI's one progress thread; nothing else is shared but the receive queue, the registrations,
 *       both concurrent, and the armed {@linkplain #armCompletionNotification notification}, which
 *       the I/O thread runs at the end of any batch of work that left a completion to poll.</li>
 *   <li><b>Faults.</b> A fault injector in front of the socket loses, duplicates and reorders
 *       datagrams ({@link UdpFaults}, {@link UdpDeviceConfig#faults()},
 *       {@link #setLinkFaults}); {@link #refuseSendsFrom} makes the queue pair answer a peer's sends
 *       with receiver-not-ready. For tests; off by default.</li>
 * </ul>
 *
 * <p>Buffer ownership is the SPI's. A send's bytes are copied into a frame when the I/O thread
 * first sends it (before the completion); a receive buffer and a registration's bytes are written
 * by the I/O thread until the completion is polled or the region deregistered. What the SPI leaves
 * open: a send to a live peer with another Q-Key completes {@code OK} (the queue pair discards it,
 * as EFA's does); an RDMA request with another Q-Key completes with
 * {@code LOCAL_ERROR_UNRESP_REMOTE}; a send to a port nothing listens on completes with
 * {@code REMOTE_ERROR_BAD_DEST_QPN} when the host answers ICMP port unreachable, else, like a host
 * that does not answer, {@code LOCAL_ERROR_UNREACH_REMOTE} at the retransmission bound.
 */
public final class UdpDevice implements Device {

    private static final Logger LOG = LoggerFactory.getLogger(UdpDevice.class);

    /** Datagrams one epoll read takes at most (recvmmsg). */
    private static final int DATAGRAMS_PER_READ = 16;
    private static final int RECEIVE_SIZE = 65_536;

    private final UdpDeviceConfig config;
    private final DeviceAttributes attributes;
    private final DeviceAddress address;
    private final InetSocketAddress socketAddress;
    private final String transport;
    private final Counters counters = new Counters();
    private final ConcurrentLinkedQueue<PostedRecv> receives = new ConcurrentLinkedQueue<>();
    private final MemoryRegistrations registrations;
    private final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
    private final Set<InetSocketAddress> refuseFrom = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<UdpOp> commands = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakeupScheduled = new AtomicBoolean();
    private final AtomicReference<Runnable> notification = new AtomicReference<>();
    private final Map<Gid, AddressHandle> handles = new HashMap<>();
    private final Map<AddressHandle, InetAddress> handleAddresses = new IdentityHashMap<>();
    private final Set<AddressHandle> liveHandles = Collections.newSetFromMap(new IdentityHashMap<>());
    private final EventLoopGroup group;
    private final Channel channel;
    private final FaultInjector faults;
    private final SrdEngine engine;
    private final Runnable drain = this::drainCommands;
    private boolean flushNeeded;
    private volatile boolean closed;
    private int sendQueueUsed;
    private int recvQueueUsed;
    private int nextAhn = 1;

    private UdpDevice(UdpDeviceConfig config, boolean epoll, EventLoopGroup group, Channel channel, int qkey,
                      int firstKey) {
        this.config = config;
        this.group = group;
        this.channel = channel;
        this.transport = epoll ? "epoll" : "nio";
        this.socketAddress = (InetSocketAddress) channel.localAddress();
        final int mtu = config.resolvedMtu();
        this.attributes = new DeviceAttributes(mtu, config.sendQueueDepth(), config.recvQueueDepth(),
                UdpDeviceConfig.MAX_RDMA_SIZE, config.capabilities());
        this.address = new DeviceAddress(UdpAddresses.gidOf(socketAddress.getAddress()), socketAddress.getPort(),
                qkey);
        this.registrations = new MemoryRegistrations(firstKey, config.maxRegistrations());
        this.faults = new FaultInjector(this::write, config.faults(), config.faultSeed(), counters);
        this.engine = new SrdEngine(config, qkey, mtu, faults, Prober.ofJdk(socketAddress.getAddress()), counters,
                receives, registrations, completions, refuseFrom);
    }

    /**
     * Opens a device: binds its socket, starts its I/O thread.
     *
     * @param config the configuration
     * @return the device
     * @throws IOException if the socket cannot be bound, or epoll was asked for and does not load
     */
    public static UdpDevice open(UdpDeviceConfig config) throws IOException {
        Objects.requireNonNull(config, "config");
        final boolean epoll = switch (config.transport()) {
            case NIO -> false;
            case EPOLL -> {
                if (!Epoll.isAvailable()) {
                    throw new IOException("the epoll transport does not load", Epoll.unavailabilityCause());
                }
                yield true;
            }
            case AUTO -> {
                if (!Epoll.isAvailable()) {
                    LOG.info("UDP device: native epoll unavailable ({}), using NIO",
                            String.valueOf(Epoll.unavailabilityCause()));
                }
                yield Epoll.isAvailable();
            }
        };
        final SecureRandom random = new SecureRandom();
        final int qkey = random.nextInt() | 1;
        final IoHandlerFactory handlers = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, runnable -> {
            final Thread thread = new Thread(runnable, "udp-device-io");
            thread.setDaemon(true);
            return thread;
        }, handlers);
        final UdpDevice[] device = new UdpDevice[1];
        final Bootstrap bootstrap = new Bootstrap().group(group)
                .channel(epoll ? EpollDatagramChannel.class : NioDatagramChannel.class)
                .option(ChannelOption.SO_RCVBUF, config.socketBufferBytes())
                .option(ChannelOption.SO_SNDBUF, config.socketBufferBytes())
                .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                        device[0].onDatagram(packet);
                    }

                    @Override
                    public void channelReadComplete(ChannelHandlerContext ctx) {
                        device[0].afterWork();
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        device[0].onSocketError(cause);
                    }
                });
        if (epoll) {
            bootstrap.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, RECEIVE_SIZE)
                    .option(ChannelOption.RCVBUF_ALLOCATOR,
                            new FixedRecvByteBufAllocator(RECEIVE_SIZE * DATAGRAMS_PER_READ));
        } else {
            bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(RECEIVE_SIZE));
        }
        // The channel reads only once the device exists: auto-read starts after registration, so
        // bind with it off and switch it on below.
        bootstrap.option(ChannelOption.AUTO_READ, false);
        final Channel channel;
        try {
            channel = bootstrap.bind(config.bindAddress()).sync().channel();
        } catch (Exception e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e instanceof IOException io ? io : new IOException("cannot bind " + config.bindAddress(), e);
        }
        device[0] = new UdpDevice(config, epoll, group, channel, qkey, random.nextInt());
        channel.config().setAutoRead(true);
        channel.eventLoop().scheduleAtFixedRate(device[0]::onTick, config.tickNs(), config.tickNs(),
                TimeUnit.NANOSECONDS);
        LOG.info("UDP device at {} (GID {}, QPN {}): {} transport, MTU {}, window {}", device[0].socketAddress,
                device[0].address.gid(), device[0].address.qpn(), device[0].transport, device[0].attributes.mtu(),
                config.window());
        return device[0];
    }

    /**
     * Opens a device with the defaults on another address.
     *
     * @param bindAddress the local address and port
     * @return the device
     * @throws IOException if the socket cannot be bound
     */
    public static UdpDevice open(InetSocketAddress bindAddress) throws IOException {
        return open(UdpDeviceConfig.builder().withBindAddress(bindAddress).build());
    }

    @Override
    public DeviceAddress address() {
        return address;
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    /** @return the configuration the device was opened with */
    public UdpDeviceConfig config() {
        return config;
    }

    /** @return the local UDP address: the GID's IP address and the QPN as port */
    public InetSocketAddress socketAddress() {
        return socketAddress;
    }

    /** @return the Netty transport in use: {@code "epoll"} or {@code "nio"} */
    public String transport() {
        return transport;
    }

    /**
     * @param counter a counter
     * @return its value; any thread may ask, also after close
     */
    public long counter(UdpCounter counter) {
        return counters.get(counter);
    }

    /** @return every {@link UdpCounter} by its name, in the enum's order; any thread, also after close */
    @Override
    public Map<String, Long> counters() {
        Map<String, Long> all = new LinkedHashMap<>();
        for (UdpCounter counter : UdpCounter.values()) {
            all.put(counter.name(), counters.get(counter));
        }
        return Collections.unmodifiableMap(all);
    }

    /**
     * Puts faults on what this device sends one destination from now on (the fault injector; see
     * {@link UdpFaults}). Any thread may call it.
     *
     * @param to the destination's UDP address
     * @param linkFaults the faults, or {@code null} for the configuration's again
     */
    public void setLinkFaults(InetSocketAddress to, UdpFaults linkFaults) {
        faults.setLinkFaults(Objects.requireNonNull(to, "to"), linkFaults);
    }

    /**
     * Makes this queue pair answer every send from one peer with receiver-not-ready, taking no
     * receive buffer, as an overloaded receiver does (a fault for tests). Any thread may call it.
     *
     * @param from the peer's UDP address
     * @param refuse whether to refuse from now on
     */
    public void refuseSendsFrom(InetSocketAddress from, boolean refuse) {
        if (refuse) {
            refuseFrom.add(Objects.requireNonNull(from, "from"));
        } else {
            refuseFrom.remove(from);
        }
    }

    @Override
    public AddressHandle createAddressHandle(Gid peer) {
        requireOpen();
        Objects.requireNonNull(peer, "peer");
        if (handles.containsKey(peer)) {
            throw new IllegalStateException("an address handle for " + peer + " exists: " + handles.get(peer));
        }
        final AddressHandle ah = new AddressHandle(nextAhn++, peer);
        handles.put(peer, ah);
        liveHandles.add(ah);
        handleAddresses.put(ah, UdpAddresses.inetAddressOf(peer));
        return ah;
    }

    @Override
    public void destroyAddressHandle(AddressHandle ah) {
        requireOpen();
        requireLive(ah);
        handles.remove(ah.gid());
        liveHandles.remove(ah);
        handleAddresses.remove(ah);
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer memory, Set<Access> access) {
        requireOpen();
        return registrations.register(memory, access);
    }

    @Override
    public void deregisterMemory(MemoryRegion region) {
        requireOpen();
        if (!registrations.deregister(region)) {
            throw new IllegalArgumentException("not registered with " + this + ": " + region);
        }
    }

    @Override
    public boolean postSend(AddressHandle ah, int qpn, int qkey, ByteBuffer packet, long wrId) {
        requireOpen();
        final InetSocketAddress to = destination(ah, qpn);
        Objects.requireNonNull(packet, "packet");
        if (!takeSendQueueEntry()) {
            return false;
        }
        final int length = packet.remaining();
        if (length > attributes.mtu()) {
            completeAtOnce(wrId, Opcode.SEND, CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
        } else {
            submit(new UdpOp(Opcode.SEND, wrId, to, qkey, packet.slice(), null, length));
        }
        return true;
    }

    @Override
    public boolean postRecv(ByteBuffer buffer, long wrId) {
        requireOpen();
        PostChecks.receiveBuffer(buffer);
        if (recvQueueUsed == attributes.maxRecvQueueDepth()) {
            return false;
        }
        recvQueueUsed++;
        receives.add(new PostedRecv(buffer.duplicate(), wrId));
        return true;
    }

    @Override
    public boolean postRead(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset, RmaIov remote,
                            long wrId) {
        return postRdma(Opcode.RDMA_READ, Capability.RDMA_READ, Access.LOCAL_WRITE, ah, qpn, qkey, local, localOffset,
                remote, wrId);
    }

    @Override
    public boolean postWrite(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset, RmaIov remote,
                             long wrId) {
        return postRdma(Opcode.RDMA_WRITE, Capability.RDMA_WRITE, null, ah, qpn, qkey, local, localOffset, remote,
                wrId);
    }

    @Override
    public int pollCompletions(Consumer<Completion> sink, int max) {
        requireOpen();
        Objects.requireNonNull(sink, "sink");
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, not " + max);
        }
        int polled = 0;
        Completion completion;
        while (polled < max && (completion = completions.poll()) != null) {
            if (completion.opcode() == Opcode.RECV) {
                recvQueueUsed--;
                // The handle is the receiver's for the source GID as the completion is polled.
                completion = new Completion(completion.wrId(), Opcode.RECV, completion.status(),
                        completion.byteLength(), handles.get(completion.sourceGid()), completion.sourceGid(),
                        completion.sourceQpn());
            } else {
                sendQueueUsed--;
            }
            polled++;
            sink.accept(completion);
        }
        return polled;
    }

    /**
     * Armed until the I/O thread next leaves a completion to poll; it then runs {@code wake} once.
     * The queue is looked at after arming, so a completion queued meanwhile is either seen here or
     * finds the request armed: no wake-up is lost.
     */
    @Override
    public boolean armCompletionNotification(Runnable wake) {
        requireOpen();
        notification.set(Objects.requireNonNull(wake, "wake"));
        if (!completions.isEmpty()) {
            notification.set(null);
            return false;
        }
        return true;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            channel.eventLoop().submit(engine::close).await(5, TimeUnit.SECONDS);
            channel.close().await(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        registrations.clear();
        receives.clear();
        completions.clear();
        commands.clear();
        handles.clear();
        liveHandles.clear();
        handleAddresses.clear();
    }

    /** @return whether {@link #close()} was called */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "UdpDevice[" + socketAddress + ", " + address + "]";
    }

    // ---------------------------------------------------------------- posting thread

    private boolean postRdma(Opcode opcode, Capability needed, Access localAccess, AddressHandle ah, int qpn, int qkey,
                             MemoryRegion local, long localOffset, RmaIov remote, long wrId) {
        requireOpen();
        final InetSocketAddress to = destination(ah, qpn);
        PostChecks.rdma(this, needed, local, localOffset, remote);
        if (!takeSendQueueEntry()) {
            return false;
        }
        if (remote.length() > attributes.maxRdmaSize()) {
            completeAtOnce(wrId, opcode, CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
            return true;
        }
        final ByteBuffer bytes = registrations.localRange(local, localOffset, remote.length(), localAccess);
        if (bytes == null) {
            completeAtOnce(wrId, opcode, CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
            return true;
        }
        submit(new UdpOp(opcode, wrId, to, qkey, bytes, remote, bytes.remaining()));
        return true;
    }

    private InetSocketAddress destination(AddressHandle ah, int qpn) {
        requireLive(ah);
        DeviceAddress.requireQpn(qpn);
        return new InetSocketAddress(handleAddresses.get(ah), qpn);
    }

    private void submit(UdpOp op) {
        commands.add(op);
        if (wakeupScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(drain);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private void requireLive(AddressHandle ah) {
        Objects.requireNonNull(ah, "ah");
        if (!liveHandles.contains(ah)) {
            throw new IllegalArgumentException("not a live address handle of " + this + ": " + ah);
        }
    }

    private boolean takeSendQueueEntry() {
        if (sendQueueUsed == attributes.maxSendQueueDepth()) {
            return false;
        }
        sendQueueUsed++;
        return true;
    }

    private void completeAtOnce(long wrId, Opcode opcode, CompletionStatus status) {
        completions.add(Completion.ofInitiated(wrId, opcode, status, 0));
    }

    // ---------------------------------------------------------------- I/O thread

    private void drainCommands() {
        wakeupScheduled.set(false);
        final long now = System.nanoTime();
        UdpOp op;
        while ((op = commands.poll()) != null) {
            engine.submit(op, now);
        }
        afterWork();
    }

    private void onDatagram(DatagramPacket packet) {
        final ByteBuf content = packet.content();
        engine.onDatagram(content.nioBuffer(content.readerIndex(), content.readableBytes()), packet.sender(),
                System.nanoTime());
    }

    private void onTick() {
        final long now = System.nanoTime();
        faults.onTick();
        engine.onTimer(now);
        afterWork();
    }

    private void afterWork() {
        // Wake the progress thread before sending, so that it polls while this thread writes.
        if (!completions.isEmpty()) {
            final Runnable wake = notification.getAndSet(null);
            if (wake != null) {
                wake.run();
            }
        }
        engine.flush(System.nanoTime());
        if (flushNeeded) {
            flushNeeded = false;
            channel.flush();
        }
    }

    /** The socket side of the fault injector: copies the datagram into a pooled buffer and writes it. */
    private void write(ByteBuffer datagram, InetSocketAddress to) {
        final ByteBuf buffer = channel.alloc().directBuffer(datagram.remaining());
        buffer.writeBytes(datagram.duplicate());
        channel.write(new DatagramPacket(buffer, to), channel.voidPromise());
        flushNeeded = true;
    }

    private void onSocketError(Throwable cause) {
        counters.add(UdpCounter.IO_ERRORS);
        LOG.debug("UDP device {}: socket error", socketAddress, cause);
    }
}
