package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * Feeds an endpoint a sequence of packets from a peer in its address vector, to which it may have a
 * send in flight: packets of every type, the base header right or not, the rest arbitrary,
 * interleaved with the endpoint's progress. However the peer
 * misbehaves, nothing may escape the endpoint's progress, nothing may be caught there either
 * ({@link EndpointCounter#PROGRESS_ERRORS}: each is a packet the endpoint did not check), and what the
 * endpoint holds for the peer stays within its limits ({@link EndpointLimits}). A hang shows as the
 * fuzzer's timeout.
 *
 * <p>Under {@code mvn verify} it runs in regression mode over {@code EndpointReceiveFuzzTestInputs/receive/};
 * to fuzz: {@code JAZZER_FUZZ=1 mvn -pl efa-provider test -Dtest=EndpointReceiveFuzzTest}.
 */
class EndpointReceiveFuzzTest {

    private static final PacketType[] TYPES = PacketType.values();
    private static final int MAX_PACKETS = 64;
    private static final int MAX_PACKET_BYTES = 512;

    @FuzzTest(maxDuration = "10m")
    void receive(FuzzedDataProvider data) {
        SimPair pair = new SimPair(1);
        EfaEndpoint b = pair.b;
        SimDevice peer = pair.fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
        long toPeer = b.insert(EndpointAddress.of(peer.address()));
        // Operations in flight for the peer's packets to name: receives, and a send long enough to wait for a CTS.
        for (int i = data.consumeInt(0, 4); i > 0; i--) {
            b.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(data.consumeInt(0, 70_000)), i);
        }
        if (data.consumeBoolean()) {
            b.send(toPeer, ByteBuffer.allocate(data.consumeInt(0, 300_000)), 10);
        }
        AddressHandle toB = peer.createAddressHandle(b.address().gid());
        for (int n = 0; n < MAX_PACKETS && data.remainingBytes() > 0; n++) {
            peer.postSend(toB, b.address().qpn(), b.address().connid(), packet(data), 1000 + n);
            for (int steps = data.consumeInt(0, 3); steps > 0; steps--) {
                pair.step();
            }
        }
        for (int i = 0; i < 200; i++) {
            pair.step();
        }

        EndpointStatistics statistics = b.statistics();
        EndpointLimits limits = EndpointLimits.DEFAULT;
        assertThat(statistics.counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
        assertThat(statistics.gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isLessThanOrEqualTo(
                limits.unexpectedMessagesPerPeer());
        assertThat(statistics.gauge(EndpointGauge.UNEXPECTED_BYTES)).isLessThanOrEqualTo(
                limits.unexpectedBytesPerPeer());
        assertThat(statistics.gauge(EndpointGauge.PEERS)).isLessThanOrEqualTo(1);
    }

    /** A packet of a type the wire knows, or any type byte, with version 4 mostly, and arbitrary bytes after. */
    private static ByteBuffer packet(FuzzedDataProvider data) {
        int type = data.consumeBoolean() ? data.pickValue(TYPES).id() : data.consumeInt(0, 255);
        int version = data.consumeBoolean() ? BaseHeaderFlyweight.PROTOCOL_VERSION : data.consumeInt(0, 255);
        int flags = data.consumeInt(0, 0xffff);
        byte[] rest = data.consumeBytes(MAX_PACKET_BYTES);
        ByteBuffer packet = ByteBuffer.allocate(BaseHeaderFlyweight.HEADER_LENGTH + rest.length);
        new BaseHeaderFlyweight().wrap(packet, 0).type(type).version(version).flags(flags);
        packet.put(BaseHeaderFlyweight.HEADER_LENGTH, rest);
        return packet;
    }
}
