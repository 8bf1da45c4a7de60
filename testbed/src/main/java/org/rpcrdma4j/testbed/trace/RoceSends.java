package org.rpcrdma4j.testbed.trace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Finds the RDMA Sends of a RoCEv2 capture ({@link RocePacket}). Reliable-connection
 * Send packets are put together per receiving address and queue pair (first, middle, last or only),
 * as Soft-RoCE sends them in order. The client is the side that sent the RDMA-CM ConnectRequest.
 */
public final class RoceSends {

    private static final int SEND_FIRST = 0x00;
    private static final int SEND_MIDDLE = 0x01;
    private static final int SEND_LAST = 0x02;
    private static final int SEND_LAST_WITH_IMMEDIATE = 0x03;
    private static final int SEND_ONLY = 0x04;
    private static final int SEND_ONLY_WITH_IMMEDIATE = 0x05;
    private static final int SEND_LAST_WITH_INVALIDATE = 0x16;
    private static final int SEND_ONLY_WITH_INVALIDATE = 0x17;

    private final Map<String, List<byte[]>> partial = new HashMap<>();
    /** The keys of {@link #partial} with a packet whose payload an export elided. */
    private final Set<String> elided = new HashSet<>();
    private final List<RdmaSend> sends = new ArrayList<>();
    /** The client's IPv4 address; the ConnectRequest comes before any traffic of its connection. */
    private Integer clientAddress;

    RoceSends() {
    }

    /**
     * @param pcap a capture of RoCEv2 traffic between two hosts, pcap or pcapng
     * @return its RDMA Sends in the order they completed
     * @throws IOException if the capture cannot be read or is cut short
     */
    public static List<RdmaSend> read(InputStream pcap) throws IOException {
        RoceSends reader = new RoceSends();
        PcapReader.read(pcap, frame -> {
            RocePacket packet = RocePacket.parse(frame);
            if (packet != null) {
                reader.onPacket(packet);
            }
        });
        return reader.sends();
    }

    /**
     * Reads a capture that may be cut short, as tshark does: the Sends completed before the cut are kept.
     *
     * @param pcap a capture of RoCEv2 traffic between two hosts, pcap or pcapng
     * @param cut  gets the cut, if the capture ends inside a frame or block
     * @return its RDMA Sends completed before the cut, in order
     * @throws IOException if the capture cannot be read at all
     */
    public static List<RdmaSend> read(InputStream pcap, Consumer<TruncatedCaptureException> cut) throws IOException {
        RoceSends reader = new RoceSends();
        try {
            PcapReader.read(pcap, frame -> {
                RocePacket packet = RocePacket.parse(frame);
                if (packet != null) {
                    reader.onPacket(packet);
                }
            });
        } catch (TruncatedCaptureException e) {
            cut.accept(e);
        }
        return reader.sends();
    }

    /** @return the Sends completed so far, in order */
    List<RdmaSend> sends() {
        return sends;
    }

    /** Takes the next packet of the capture. */
    void onPacket(RocePacket packet) {
        int operation = packet.opcode();
        int payload = packet.from();
        if (packet.transport() == RocePacket.UD) {
            // The sender of the first ConnectRequest is the client.
            if (clientAddress == null && packet.cmAttribute() == RocePacket.CM_REQ) {
                clientAddress = packet.source();
            }
        } else if (packet.transport() == RocePacket.RC) {
            OptionalInt invalidate = OptionalInt.empty();
            if (operation == SEND_LAST_WITH_INVALIDATE || operation == SEND_ONLY_WITH_INVALIDATE) {
                if (payload + 4 <= packet.to()) {
                    invalidate = OptionalInt.of(ByteBuffer.wrap(packet.bytes()).getInt(payload));
                }
                payload += 4;                    // IETH: the R_key to invalidate
            } else if (operation == SEND_LAST_WITH_IMMEDIATE || operation == SEND_ONLY_WITH_IMMEDIATE) {
                payload += 4;                    // ImmDt
            }
            if (payload <= packet.to()) {
                onSendPacket(packet, operation, payload, invalidate);
            }
        }
    }

    private void onSendPacket(RocePacket packet, int operation, int from, OptionalInt invalidate) {
        boolean first = operation == SEND_FIRST || operation == SEND_ONLY || operation == SEND_ONLY_WITH_IMMEDIATE
                || operation == SEND_ONLY_WITH_INVALIDATE;
        boolean last = operation == SEND_LAST || operation == SEND_LAST_WITH_IMMEDIATE
                || operation == SEND_LAST_WITH_INVALIDATE || operation == SEND_ONLY
                || operation == SEND_ONLY_WITH_IMMEDIATE || operation == SEND_ONLY_WITH_INVALIDATE;
        if (!first && !last && operation != SEND_MIDDLE) {
            return;
        }
        String key = packet.destination() + "/" + packet.qp();
        if (first) {
            partial.put(key, new ArrayList<>());
            elided.remove(key);
        }
        List<byte[]> pieces = partial.get(key);
        if (pieces == null) {
            return;                              // the capture began inside this Send
        }
        pieces.add(Arrays.copyOfRange(packet.bytes(), from, packet.to()));
        if (packet.elided()) {
            elided.add(key);
        }
        if (last) {
            partial.remove(key);
            int length = pieces.stream().mapToInt(piece -> piece.length).sum();
            byte[] message = new byte[length];
            int at = 0;
            for (byte[] piece : pieces) {
                System.arraycopy(piece, 0, message, at, piece.length);
                at += piece.length;
            }
            sends.add(new RdmaSend(packet.frame(), clientAddress != null && packet.source() == clientAddress, message,
                    elided.remove(key), invalidate));
        }
    }
}
