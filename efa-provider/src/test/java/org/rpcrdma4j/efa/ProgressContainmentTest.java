package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.DeviceAttributes;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * An exception on the progress path costs the peer it came from, not the endpoint: a device whose
 * sends towards one GID throw (as a driver fault would) makes that peer unreachable, counts and
 * logs the exception once, and leaves the other peers' traffic flowing.
 */
class ProgressContainmentTest {

    private static final int CURSED_HOST = 3;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void aDeviceExceptionTowardsOnePeerMakesOnlyThatPeerUnreachable() {
        final SimNet net = new SimNet(seed.seed());
        final Gid cursed = new Gid(0xfe80_0000_0000_0000L, CURSED_HOST);
        final EfaEndpoint server = net.add(new ThrowingDevice(net.device(1), cursed), EndpointConfig.DEFAULT);
        final EfaEndpoint good = net.add(2, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final EfaEndpoint victim = net.add(CURSED_HOST, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final PingPong calls = new PingPong(net, server, good);
        net.runUntil(() -> calls.roundTrips() >= 2);

        final long toVictim = server.insert(victim.address());
        server.send(toVictim, ByteBuffer.allocate(100), 1);
        server.send(toVictim, SimPair.pattern(30_000, 1), 2);
        final List<CompletionEntry> serverDone = net.done(server);
        net.runUntil(() -> serverDone.size() == 2);

        assertThat(serverDone).extracting(CompletionEntry::error).containsOnly(EfaErrorCode.PEER_UNREACHABLE);
        assertThat(server.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isEqualTo(1);
        assertThat(server.statistics().counter(EndpointCounter.PEERS_UNREACHABLE)).isEqualTo(1);
        final long before = calls.roundTrips();
        net.runUntil(() -> calls.roundTrips() > before + 10);
        assertThat(server.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isEqualTo(1);
        assertThat(server.statistics().gauge(EndpointGauge.PACKETS_IN_USE)).isLessThanOrEqualTo(4);
    }

    /** A device that throws when asked to send to one GID, and otherwise is the simulated one. */
    private record ThrowingDevice(Device device, Gid cursed) implements Device {

        @Override
        public boolean postSend(AddressHandle ah, int qpn, int qkey, ByteBuffer packet, long wrId) {
            if (ah.gid().equals(cursed)) {
                throw new IllegalStateException("injected driver fault towards " + cursed);
            }
            return device.postSend(ah, qpn, qkey, packet, wrId);
        }

        @Override
        public DeviceAddress address() {
            return device.address();
        }

        @Override
        public DeviceAttributes attributes() {
            return device.attributes();
        }

        @Override
        public AddressHandle createAddressHandle(Gid gid) {
            return device.createAddressHandle(gid);
        }

        @Override
        public void destroyAddressHandle(AddressHandle ah) {
            device.destroyAddressHandle(ah);
        }

        @Override
        public MemoryRegion registerMemory(ByteBuffer memory, Set<Access> access) {
            return device.registerMemory(memory, access);
        }

        @Override
        public void deregisterMemory(MemoryRegion region) {
            device.deregisterMemory(region);
        }

        @Override
        public boolean postRecv(ByteBuffer buffer, long wrId) {
            return device.postRecv(buffer, wrId);
        }

        @Override
        public boolean postRead(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset,
                                RmaIov remote, long wrId) {
            return device.postRead(ah, qpn, qkey, local, localOffset, remote, wrId);
        }

        @Override
        public boolean postWrite(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset,
                                 RmaIov remote, long wrId) {
            return device.postWrite(ah, qpn, qkey, local, localOffset, remote, wrId);
        }

        @Override
        public int pollCompletions(Consumer<Completion> sink, int max) {
            return device.pollCompletions(sink, max);
        }

        @Override
        public void close() {
            device.close();
        }
    }
}
