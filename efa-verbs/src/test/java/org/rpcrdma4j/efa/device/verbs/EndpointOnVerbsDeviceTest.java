package org.rpcrdma4j.efa.device.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.MemoryRegion;

/**
 * Two EFA RDM endpoints on {@link VerbsDevice}s over {@link FakeRcNetwork}, one thread driving both: messages of
 * each size class the endpoint sends differently (eager, medium, long-read by the NIC's RDMA Read) and the
 * endpoint's own RDMA read and write on the NIC arrive byte for byte, as they do over Soft-RoCE in the rig.
 */
class EndpointOnVerbsDeviceTest {

    private final FakeRcNetwork network = new FakeRcNetwork();
    private final List<VerbsDevice> devices = new ArrayList<>();
    private final List<EfaEndpoint> endpoints = new ArrayList<>();
    private long now;

    @AfterEach
    void close() {
        endpoints.forEach(EfaEndpoint::close);
    }

    private EfaEndpoint endpoint(int host) throws Exception {
        final InetAddress ip = InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) host});
        final VerbsDevice device = VerbsDevice.open(network.nic(ip),
                VerbsDeviceConfig.on(new InetSocketAddress(ip, 0)));
        devices.add(device);
        final EfaEndpoint endpoint = new EfaEndpoint(device, EndpointConfig.DEFAULT);
        endpoints.add(endpoint);
        return endpoint;
    }

    /**
     * Drives every device and endpoint until {@code count} completions came at {@code at}, for a bounded number of
     * rounds; the other endpoints' completions are dropped.
     */
    private List<CompletionEntry> turnUntil(EfaEndpoint at, int count) {
        final List<CompletionEntry> entries = new ArrayList<>();
        for (int round = 0; round < 10_000 && entries.size() < count; round++) {
            now += 100_000;
            devices.forEach(VerbsDevice::progress);
            for (EfaEndpoint endpoint : endpoints) {
                endpoint.progress(now);
                if (endpoint != at) {
                    endpoint.poll(entry -> { }, Integer.MAX_VALUE);
                }
            }
            at.poll(entries::add, Integer.MAX_VALUE);
        }
        return entries;
    }

    private static ByteBuffer pattern(int size, int seed) {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            buffer.put(i, (byte) (seed + i * 31));
        }
        return buffer;
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 5_000, 200_000, 1 << 20})
    void aMessageOfEachSizeClassArrivesWhole(int size) throws Exception {
        final EfaEndpoint sender = endpoint(1);
        final EfaEndpoint receiver = endpoint(2);
        final long toReceiver = sender.insert(receiver.address());
        // A message each way first: the sender then has the receiver's handshake, which long-read waits for.
        assertThat(receiver.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocateDirect(8), 6)).isTrue();
        assertThat(sender.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocateDirect(8), 5)).isTrue();
        assertThat(sender.send(toReceiver, pattern(8, 0), 0)).isTrue();
        assertThat(turnUntil(receiver, 1)).singleElement().satisfies(entry -> assertThat(entry.ok()).isTrue());
        assertThat(receiver.send(receiver.insert(sender.address()), pattern(8, 1), 4)).isTrue();
        assertThat(turnUntil(sender, 1)).singleElement().satisfies(entry -> assertThat(entry.context()).isEqualTo(5));
        final ByteBuffer into = ByteBuffer.allocateDirect(size);
        assertThat(receiver.recv(EfaEndpoint.ADDR_UNSPEC, into, 7)).isTrue();
        final ByteBuffer message = pattern(size, size);

        assertThat(sender.send(toReceiver, message, 1)).isTrue();

        assertThat(turnUntil(receiver, 1)).singleElement().satisfies(entry -> {
            assertThat(entry.ok()).as(entry.toString()).isTrue();
            assertThat(entry.context()).isEqualTo(7);
            assertThat(entry.length()).isEqualTo(size);
        });
        assertThat(into).isEqualTo(message);
        if (size >= 1 << 20) {
            assertThat(sender.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_SENT)).as("pulled by RDMA Read")
                    .isPositive();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void theEndpointsRdmaReadAndWriteGoThroughTheNic(boolean write) throws Exception {
        final EfaEndpoint initiator = endpoint(1);
        final EfaEndpoint target = endpoint(2);
        final int size = 64 * 1024;
        final ByteBuffer local = write ? pattern(size, 3) : ByteBuffer.allocateDirect(size);
        final ByteBuffer remote = write ? ByteBuffer.allocateDirect(size) : pattern(size, 5);
        final MemoryRegion localRegion = initiator.register(local, EnumSet.of(Access.LOCAL_WRITE));
        final MemoryRegion remoteRegion = target.register(remote,
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        final long peer = initiator.insert(target.address());

        final boolean posted = write ? initiator.write(peer, localRegion, 0, remoteRegion.iov(0, size), 9)
                : initiator.read(peer, localRegion, 0, remoteRegion.iov(0, size), 9);

        assertThat(posted).isTrue();
        assertThat(turnUntil(initiator, 1)).singleElement().satisfies(entry -> {
            assertThat(entry.ok()).as(entry.toString()).isTrue();
            assertThat(entry.context()).isEqualTo(9);
        });
        assertThat(local).isEqualTo(remote);
        assertThat(initiator.statistics().counter(write ? EndpointCounter.DIRECT_WRITES : EndpointCounter.DIRECT_READS))
                .as("on the NIC, not emulated").isPositive();
    }
}
