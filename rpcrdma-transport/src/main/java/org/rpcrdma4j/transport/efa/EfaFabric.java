package org.rpcrdma4j.transport.efa;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.transport.Channel;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.FabricAddress;
import org.rpcrdma4j.transport.FabricListener;
import org.rpcrdma4j.transport.MemoryAccess;
import org.rpcrdma4j.transport.Registration;
import org.rpcrdma4j.xdr.Segment;

/**
 * {@link Fabric} over one {@link EfaEndpoint}: each {@link Channel} is a tag, matched exactly, so
 * the data tag carries nothing but RPC-over-RDMA messages. Made by {@link EfaProgressLoop#attach};
 * the loop's thread is the fabric's progress thread.
 *
 * <p>Buffer ownership follows the endpoint's: a posted or sent buffer belongs to the endpoint until
 * its completion, which this class hands to the listener with the same buffer.
 *
 * <p>RDMA: a {@link Registration} is an endpoint {@link MemoryRegion} (handle = key, address = the
 * region's address); a segment maps onto {@code efa_rma_iov} (handle = key, offset = addr, length =
 * len) and the endpoint's direct RDMA read and write move it (DESIGN.md, "The fabric seen by the
 * transport").
 */
public final class EfaFabric implements Fabric {

    /** The tag of RPC-over-RDMA messages ("RDMA" then 1). */
    public static final long DATA_TAG = 0x5244_4D41_0000_0001L;
    /** The tag of connection control messages ("RDMA" then 2). */
    public static final long CONTROL_TAG = 0x5244_4D41_0000_0002L;

    private record PostedReceive(Channel channel, ByteBuffer buffer) {
    }

    private final EfaEndpoint endpoint;
    private final EfaProgressLoop loop;
    private final FabricAddress localAddress;
    private final Map<Long, PostedReceive> receives = new HashMap<>();
    private final Map<Integer, MemoryRegion> regions = new HashMap<>();
    private volatile int registrations;
    private volatile FabricListener listener;
    private long nextReceive;

    EfaFabric(EfaEndpoint endpoint, EfaProgressLoop loop) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.loop = loop;
        this.localAddress = addressOf(endpoint.address());
    }

    /**
     * @param address an EFA endpoint address
     * @return the transport's view of it: the raw address, the GID as identity, the QPN as number
     */
    public static FabricAddress addressOf(EndpointAddress address) {
        ByteBuffer raw = ByteBuffer.allocate(EndpointAddress.LENGTH);
        address.encode(raw, 0);
        return new FabricAddress(raw.array(), address.gid().toBytes(), address.qpn());
    }

    @Override
    public FabricAddress localAddress() {
        return localAddress;
    }

    @Override
    public void listen(FabricListener newListener) {
        this.listener = newListener;
    }

    @Override
    public void execute(Runnable command) {
        loop.execute(command);
    }

    @Override
    public boolean onProgressThread() {
        return loop.inLoop();
    }

    @Override
    public long insert(FabricAddress peer) {
        return endpoint.insert(EndpointAddress.decode(ByteBuffer.wrap(peer.raw()), 0));
    }

    @Override
    public boolean postReceive(Channel channel, long peer, ByteBuffer buffer) {
        long context = nextReceive++;
        long source = peer == ANY_PEER ? EfaEndpoint.ADDR_UNSPEC : peer;
        if (!endpoint.recvTagged(source, buffer, tag(channel), 0, context)) {
            return false;
        }
        receives.put(context, new PostedReceive(channel, buffer));
        return true;
    }

    @Override
    public boolean send(Channel channel, long peer, ByteBuffer message, long context) {
        return endpoint.sendTagged(peer, message, tag(channel), context);
    }

    @Override
    public Registration register(ByteBuffer memory, Set<MemoryAccess> access) {
        Set<Access> rights = EnumSet.noneOf(Access.class);
        for (MemoryAccess right : access) {
            rights.add(Access.valueOf(right.name()));
        }
        MemoryRegion region = endpoint.register(memory, rights);
        if (region == null) {
            return null;
        }
        regions.put(region.key(), region);
        registrations = regions.size();
        return new Registration(region.key(), region.address(), region.length());
    }

    @Override
    public void deregister(Registration registration) {
        MemoryRegion region = regions.remove(registration.handle());
        if (region == null) {
            throw new IllegalStateException("not registered here or deregistered already: " + registration);
        }
        registrations = regions.size();
        endpoint.deregister(region);
    }

    @Override
    public boolean read(long peer, Registration local, long localOffset, Segment remote, long context) {
        return endpoint.read(peer, region(local), localOffset, iov(remote), context);
    }

    @Override
    public boolean write(long peer, Registration local, long localOffset, Segment remote, long context) {
        return endpoint.write(peer, region(local), localOffset, iov(remote), context);
    }

    /** @return live registrations, for tests that check nothing leaks; thread-safe */
    public int registrations() {
        return registrations;
    }

    /**
     * Reads one of the endpoint's counters on the progress thread, which owns it. Thread-safe; waits
     * for the loop.
     *
     * @param counter the counter
     * @return its value
     * @throws IllegalStateException if the progress thread has stopped
     */
    public long counter(EndpointCounter counter) {
        CompletableFuture<Long> value = new CompletableFuture<>();
        execute(() -> value.complete(endpoint.counter(counter)));
        return value.join();
    }

    private MemoryRegion region(Registration registration) {
        MemoryRegion region = regions.get(registration.handle());
        if (region == null) {
            throw new IllegalStateException("not registered here: " + registration);
        }
        return region;
    }

    private static RmaIov iov(Segment segment) {
        return new RmaIov(segment.offset(), segment.unsignedLength(), segment.handle());
    }

    /** Progresses the endpoint and hands completions to the listener; loop thread only. */
    int progress(long nowNs, int pollMax) {
        return endpoint.progress(nowNs) + endpoint.poll(this::onCompletion, pollMax);
    }

    private void onCompletion(CompletionEntry entry) {
        FabricListener current = listener;
        switch (entry.kind()) {
            case TAGGED_RECV -> {
                PostedReceive receive = receives.remove(entry.context());
                if (receive == null || current == null) {
                    return;
                }
                if (entry.ok()) {
                    EfaProgressLoop.runSafely(() -> current.onReceived(receive.channel(), entry.source(),
                            receive.buffer(), (int) entry.length()));
                } else {
                    EfaProgressLoop.runSafely(() -> current.onReceiveFailed(receive.channel(), entry.source(),
                            receive.buffer(), entry.error().name()));
                }
            }
            case TAGGED_SEND -> {
                if (current != null) {
                    EfaProgressLoop.runSafely(() -> current.onSendCompleted(entry.context(),
                            entry.ok() ? null : entry.error().name()));
                }
            }
            case READ, WRITE -> {
                if (current != null) {
                    EfaProgressLoop.runSafely(() -> current.onRdmaCompleted(entry.context(),
                            entry.ok() ? null : entry.error().name()));
                }
            }
            default -> {
                // This fabric starts no untagged send or receive.
            }
        }
    }

    private static long tag(Channel channel) {
        return channel == Channel.DATA ? DATA_TAG : CONTROL_TAG;
    }
}
