package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.EagerRtwFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;
import org.rpcrdma4j.efa.wire.RtaFlyweight;

/**
 * Feeds an endpoint a sequence of packets from a peer in its address vector, to which it may have a
 * send in flight: packets of every type, the base header right or not, the rest arbitrary,
 * interleaved with the endpoint's progress. However the peer
 * misbehaves, nothing may escape the endpoint's progress, nothing may be caught there either
 * ({@link EndpointCounter#PROGRESS_ERRORS}: each is a packet the endpoint did not check), and what the
 * endpoint holds for the peer stays within its limits ({@link EndpointLimits}). A hang shows as the
 * fuzzer's timeout. Emulated RMA and atomic requests may aim at a registration of the endpoint, with the right
 * key or not, in its bounds or across them, atomics with the datatypes and operations libfabric numbers and in
 * msg_id order; the bytes around it must stay untouched.
 *
 * <p>Under {@code mvn verify} it runs in regression mode over {@code EndpointReceiveFuzzTestInputs/receive/};
 * to fuzz: {@code JAZZER_FUZZ=1 mvn -pl efa-provider test -Dtest=EndpointReceiveFuzzTest}.
 */
class EndpointReceiveFuzzTest {

    private static final PacketType[] TYPES = PacketType.values();
    private static final int MAX_PACKETS = 64;
    private static final int MAX_PACKET_BYTES = 512;
    private static final int REGION = 4096;
    private static final int CANARY = 64;
    private static final byte CANARY_BYTE = 0x5a;
    /**
     * 32 receive buffers, not the default 256: every run makes its endpoints afresh, and zeroing the default's
     * 2 MiB of buffers per endpoint took most of a run's time. Fewer buffers also reach receiver-not-ready sooner.
     */
    private static final EndpointConfig CONFIG = EndpointConfig.DEFAULT.withRxBufferCount(32);

    @FuzzTest(maxDuration = "10m")
    void receive(FuzzedDataProvider data) {
        SimPair pair = new SimPair(1, SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, CONFIG, CONFIG);
        EfaEndpoint b = pair.b;
        ByteBuffer memory = ByteBuffer.allocate(REGION + 2 * CANARY);
        for (int i = 0; i < memory.capacity(); i++) {
            memory.put(i, CANARY_BYTE);
        }
        MemoryRegion region = b.register(memory.slice(CANARY, REGION),
                EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE));
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
        int[] nextMsgId = {0};
        for (int n = 0; n < MAX_PACKETS && data.remainingBytes() > 0; n++) {
            peer.postSend(toB, b.address().qpn(), b.address().connid(), packet(data, region, nextMsgId), 1000 + n);
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
        for (int i = 0; i < CANARY; i++) {
            assertThat(memory.get(i)).isEqualTo(CANARY_BYTE);
            assertThat(memory.get(CANARY + REGION + i)).isEqualTo(CANARY_BYTE);
        }
    }

    /**
     * A packet of a type the wire knows, or any type byte, with version 4 mostly, and arbitrary bytes after;
     * an RTW, RTR or RTA may name bytes around the region in its one rma_iov entry, and an RTA may be one the
     * endpoint applies: the next msg_id, a datatype and operation libfabric numbers (or just beyond), no optional
     * headers, operands as long as the rma_iov says.
     */
    private static ByteBuffer packet(FuzzedDataProvider data, MemoryRegion region, int[] nextMsgId) {
        PacketType known = data.consumeBoolean() ? data.pickValue(TYPES) : null;
        int type = known != null ? known.id() : data.consumeInt(0, 255);
        int version = data.consumeBoolean() ? BaseHeaderFlyweight.PROTOCOL_VERSION : data.consumeInt(0, 255);
        int flags = data.consumeInt(0, 0xffff);
        boolean aimed = known != null && known.hasRmaIov() && data.consumeBoolean();
        long address = region.address() + data.consumeLong(-CANARY, REGION + CANARY);
        long length = data.consumeLong(0, REGION + CANARY);
        long key = data.consumeBoolean() ? Integer.toUnsignedLong(region.key()) : data.consumeLong();
        boolean applicable = aimed && known.name().endsWith("_RTA") && data.consumeBoolean();
        byte[] rest = data.consumeBytes(MAX_PACKET_BYTES);
        int size = BaseHeaderFlyweight.HEADER_LENGTH + rest.length;
        int iovAt = aimed ? known.mandatoryHeaderLength() : 0;
        if (applicable) {
            flags = PacketFlags.REQ_ATOMIC_FLAG;
            length = Math.min(length, MAX_PACKET_BYTES);
            size = iovAt + RmaIovFlyweight.LENGTH + (int) length * (known == PacketType.COMPARE_RTA ? 2 : 1);
        } else if (aimed) {
            size = Math.max(size, iovAt + RmaIovFlyweight.LENGTH);
        }
        ByteBuffer packet = ByteBuffer.allocate(size);
        packet.put(BaseHeaderFlyweight.HEADER_LENGTH, rest, 0,
                Math.min(rest.length, size - BaseHeaderFlyweight.HEADER_LENGTH));
        new BaseHeaderFlyweight().wrap(packet, 0).type(type).version(version).flags(flags);
        if (aimed) {
            // RTWs and RTRs have rma_iov_count at offset 4, RTAs at 8; the entries follow the fixed header.
            int countAt = known.name().endsWith("_RTA") ? RtaFlyweight.RMA_IOV_COUNT_OFFSET
                    : EagerRtwFlyweight.RMA_IOV_COUNT_OFFSET;
            packet.order(ByteOrder.LITTLE_ENDIAN).putInt(countAt, 1);
            new RmaIovFlyweight().wrap(packet, iovAt).addr(address).len(length).key(key);
        }
        if (applicable) {
            new RtaFlyweight().wrap(packet, 0).msgId(Integer.toUnsignedLong(nextMsgId[0]++))
                    .atomicDatatype(data.consumeInt(0, 9)).atomicOp(data.consumeInt(0, 20));
        }
        return packet;
    }
}
