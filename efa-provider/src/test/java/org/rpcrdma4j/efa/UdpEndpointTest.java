package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.CompletionEntry.Kind;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.conformance.HangGuard;
import org.rpcrdma4j.efa.device.udp.UdpCounter;
import org.rpcrdma4j.efa.device.udp.UdpDevice;
import org.rpcrdma4j.efa.device.udp.UdpDeviceConfig;
import org.rpcrdma4j.efa.device.udp.UdpFaults;

/**
 * The EFA endpoint, unchanged, on two {@link UdpDevice}s over loopback in one JVM, each losing 5%
 * of what it sends, duplicating 2% and reordering 20% (the devices' fault injector, seeded): eager,
 * medium, long-CTS and long-read messages, and direct RDMA read and write, each byte checked. Every
 * wait is bounded by the kit's {@link HangGuard}; nothing depends on how long anything takes.
 */
class UdpEndpointTest {

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    private UdpDevice deviceA;
    private UdpDevice deviceB;
    private EfaEndpoint a;
    private EfaEndpoint b;
    private long aToB;
    private final List<CompletionEntry> doneA = new ArrayList<>();
    private final List<CompletionEntry> doneB = new ArrayList<>();

    private void open(UdpFaults faults) throws IOException {
        final UdpDeviceConfig config = UdpDeviceConfig.builder().withFaults(faults).withFaultSeed(seed.seed())
                .withRto(TimeUnit.MILLISECONDS.toNanos(20), TimeUnit.MILLISECONDS.toNanos(5),
                        TimeUnit.MILLISECONDS.toNanos(500))
                .build();
        deviceA = UdpDevice.open(config.toBuilder().withBindAddress(
                new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0)).build());
        deviceB = UdpDevice.open(config.toBuilder().withFaultSeed(~seed.seed()).withBindAddress(
                new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 2}), 0)).build());
        a = new EfaEndpoint(deviceA, EndpointConfig.DEFAULT.withRandomSeed(seed.seed()));
        b = new EfaEndpoint(deviceB, EndpointConfig.DEFAULT.withRandomSeed(~seed.seed()));
        aToB = a.insert(b.address());
        assertThat(deviceB.attributes().mtu()).as("same MTU on both loopback addresses")
                .isEqualTo(deviceA.attributes().mtu());
    }

    @AfterEach
    void close() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private void runUntil(BooleanSupplier done) {
        final HangGuard guard = new HangGuard();
        while (!done.getAsBoolean()) {
            final long now = System.nanoTime();
            final int work = a.progress(now) + b.progress(now);
            a.poll(doneA::add, Integer.MAX_VALUE);
            b.poll(doneB::add, Integer.MAX_VALUE);
            if (work == 0) {
                guard.check(() -> "A completed " + doneA + ", B " + doneB);
                Thread.onSpinWait();
            }
        }
    }

    private static UdpFaults lossy() {
        return UdpFaults.NONE.withLoss(0.05).withDuplication(0.02).withReorder(0.2, 4);
    }

    @Test
    void messagesOfEverySubprotocolArriveIntactOverALossyLink() throws IOException {
        open(lossy());
        final int[] sizes = {1, 100, 9_000, 200_000, 3 << 20};
        final ByteBuffer[] into = new ByteBuffer[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            into[i] = ByteBuffer.allocate(sizes[i]);
            assertThat(b.recv(EfaEndpoint.ADDR_UNSPEC, into[i], 100 + i)).isTrue();
        }
        for (int i = 0; i < sizes.length; i++) {
            final int index = i;
            runUntil(() -> a.send(aToB, SimPair.pattern(sizes[index], index), index));
        }
        runUntil(() -> doneA.size() == sizes.length && doneB.size() == sizes.length);

        assertThat(doneA).allSatisfy(entry -> assertThat(entry.error()).isEqualTo(EfaErrorCode.SUCCESS));
        assertThat(doneB).allSatisfy(entry -> assertThat(entry.error()).isEqualTo(EfaErrorCode.SUCCESS));
        for (CompletionEntry received : doneB) {
            final int i = (int) received.context() - 100;
            assertThat(received.kind()).isEqualTo(Kind.RECV);
            assertThat(received.length()).isEqualTo(sizes[i]);
            assertThat(into[i].rewind()).as("message %d of %d bytes", i, sizes[i])
                    .isEqualTo(SimPair.pattern(sizes[i], i));
        }
        assertThat(deviceA.counter(UdpCounter.FAULT_DROPPED) + deviceB.counter(UdpCounter.FAULT_DROPPED))
                .as("the link lost datagrams").isPositive();
        assertThat(deviceA.counter(UdpCounter.RETRANSMISSIONS) + deviceB.counter(UdpCounter.RETRANSMISSIONS))
                .as("and the devices sent them again").isPositive();
    }

    @Test
    void aThousandSmallMessagesArriveOnceEachOverALossyLink() throws IOException {
        open(lossy());
        final int count = 1000;
        final ByteBuffer[] into = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            into[i] = ByteBuffer.allocate(64);
            final int index = i;
            runUntil(() -> b.recv(EfaEndpoint.ADDR_UNSPEC, into[index], index));
        }
        for (int i = 0; i < count; i++) {
            final ByteBuffer message = ByteBuffer.allocate(Integer.BYTES).putInt(0, i);
            final int index = i;
            runUntil(() -> a.send(aToB, message, index));
        }
        runUntil(() -> doneA.size() == count && doneB.size() == count);

        final Set<Integer> seen = new HashSet<>();
        for (CompletionEntry received : doneB) {
            assertThat(received.error()).isEqualTo(EfaErrorCode.SUCCESS);
            assertThat(seen.add(into[(int) received.context()].getInt(0))).isTrue();
        }
        assertThat(seen).hasSize(count);
        assertThat(doneA).extracting(CompletionEntry::error).containsOnly(EfaErrorCode.SUCCESS);
    }

    @Test
    void directRdmaReadAndWriteMoveEveryByteOverALossyLink() throws IOException {
        open(lossy());
        final int size = 4 << 20;
        final ByteBuffer remote = SimPair.pattern(size, 1);
        final MemoryRegion remoteRegion = b.register(remote, EnumSet.of(Access.REMOTE_READ));
        final ByteBuffer target = ByteBuffer.allocate(size);
        final MemoryRegion targetRegion = b.register(target, EnumSet.of(Access.REMOTE_WRITE));
        final ByteBuffer local = ByteBuffer.allocate(size);
        final MemoryRegion localRegion = a.register(local, EnumSet.of(Access.LOCAL_WRITE));
        final MemoryRegion sourceRegion = a.register(SimPair.pattern(size, 2), Set.of());

        runUntil(() -> a.read(aToB, localRegion, 0, remoteRegion.iov(0, size), 7));
        runUntil(() -> a.write(aToB, sourceRegion, 0, targetRegion.iov(0, size), 8));
        runUntil(() -> doneA.size() == 2);

        assertThat(doneA).containsExactlyInAnyOrder(
                new CompletionEntry(Kind.READ, 7, size, 0, 0, false, aToB, EfaErrorCode.SUCCESS),
                new CompletionEntry(Kind.WRITE, 8, size, 0, 0, false, aToB, EfaErrorCode.SUCCESS));
        assertThat(local).isEqualTo(SimPair.pattern(size, 1));
        assertThat(target).isEqualTo(SimPair.pattern(size, 2));
        assertThat(doneB).as("one-sided: nothing completes at the target").isEmpty();
        assertThat(deviceA.counter(UdpCounter.RETRANSMISSIONS) + deviceB.counter(UdpCounter.RETRANSMISSIONS))
                .as("loss was repaired").isPositive();
    }

    @Test
    void withoutFaultsNothingIsSentTwice() throws IOException {
        open(UdpFaults.NONE);
        final ByteBuffer into = ByteBuffer.allocate(100);
        b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        a.send(aToB, SimPair.pattern(100, 3), 2);
        runUntil(() -> doneA.size() == 1 && doneB.size() == 1);
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(100, 3));
        assertThat(deviceA.counter(UdpCounter.BAD_LENGTH) + deviceA.counter(UdpCounter.BAD_HEADER)
                + deviceB.counter(UdpCounter.BAD_LENGTH) + deviceB.counter(UdpCounter.BAD_HEADER)).isZero();
    }
}
