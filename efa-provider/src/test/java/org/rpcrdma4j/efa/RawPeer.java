package org.rpcrdma4j.efa;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimFabric;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.HandshakeFlyweight;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketDecoder;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * A hand-built peer on a simulated fabric: a bare device that sends the packets a test writes to one endpoint
 * and keeps a copy of every packet it receives, so that a test can play a peer that announces what it likes
 * and check what the endpoint sends it.
 */
final class RawPeer {

    private static final int BUFFERS = 16;

    private final SimDevice device;
    private final EfaEndpoint endpoint;
    private final AddressHandle toEndpoint;
    private final ByteBuffer[] buffers = new ByteBuffer[BUFFERS];
    private final List<ByteBuffer> received = new ArrayList<>();
    private long wrId;

    RawPeer(SimFabric fabric, int host, EfaEndpoint endpoint) {
        this.device = fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, host), 11);
        this.endpoint = endpoint;
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = ByteBuffer.allocate(device.attributes().mtu());
            device.postRecv(buffers[i], i);
        }
        this.toEndpoint = device.createAddressHandle(endpoint.address().gid());
    }

    /** @return the address the endpoint inserts to reach this peer */
    EndpointAddress address() {
        return EndpointAddress.of(device.address());
    }

    /** Sends one packet to the endpoint. */
    void send(ByteBuffer packet) {
        device.postSend(toEndpoint, endpoint.address().qpn(), endpoint.address().connid(), packet, wrId++);
    }

    /** Takes what the device received since the last call; call it between steps. */
    void poll() {
        device.pollCompletions(c -> {
            if (c.opcode() == Opcode.RECV) {
                final ByteBuffer buffer = buffers[(int) c.wrId()];
                received.add(ByteBuffer.allocate(c.byteLength()).put(0, buffer, 0, c.byteLength()));
                device.postRecv(buffer, (int) c.wrId());
            }
        }, BUFFERS);
    }

    /** @return every packet received so far, in arrival order */
    List<ByteBuffer> received() {
        return received;
    }

    /** @return the types of the packets received so far, in arrival order */
    List<PacketType> types() throws PacketDecodeException {
        final List<PacketType> types = new ArrayList<>();
        for (ByteBuffer packet : received) {
            types.add(new PacketDecoder().decode(packet, 0, packet.capacity()).type());
        }
        return types;
    }

    /** @return a HANDSHAKE announcing {@code features}, without optional fields */
    static ByteBuffer handshake(long features) {
        final ByteBuffer packet = ByteBuffer.allocate(HandshakeFlyweight.EXTRA_INFO_OFFSET
                + HandshakeFlyweight.EXTRA_INFO_WORD_LENGTH);
        new BaseHeaderFlyweight().wrap(packet, 0).type(PacketType.HANDSHAKE.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(0);
        new HandshakeFlyweight().wrap(packet, 0).nextraP3(HandshakeFlyweight.MIN_NEXTRA_P3 + 1).extraInfo(0, features);
        return packet;
    }
}
