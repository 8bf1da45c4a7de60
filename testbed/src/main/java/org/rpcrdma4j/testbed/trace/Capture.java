package org.rpcrdma4j.testbed.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.function.Consumer;

/**
 * What one pass over a RoCEv2 capture finds: its RDMA connections ({@link RdmaConnections}), each with
 * its RDMA Sends, RDMA Writes and Reads, and the RDMA-CM private data that made it.
 *
 * @param connections the connections, in the order they were made
 * @param duplicates  the packets dropped because the capture held them before (retransmissions,
 *                    frames captured twice)
 */
public record Capture(List<Connection> connections, int duplicates) {

    /**
     * One RDMA connection of a capture.
     *
     * @param number    1 for the capture's first connection, and so on
     * @param endpoints its client and server queue pairs ("address/QP n"), as its RDMA-CM exchange named them
     * @param sends     its Sends in the order they completed
     * @param transfers its Writes and Read responses
     * @param connect   the RFC 8797 private data of its ConnectRequest and ConnectReply
     */
    public record Connection(int number, String endpoints, List<RdmaSend> sends, RdmaTransfers transfers,
                             ConnectExchange connect) {
    }

    /**
     * @param pcap a capture of one RPC-over-RDMA client and server, pcap or pcapng
     * @return what it holds
     * @throws IOException if the capture cannot be read or is cut short
     */
    public static Capture read(InputStream pcap) throws IOException {
        return collect(packets -> PcapReader.read(pcap, frame -> {
            RocePacket packet = RocePacket.parse(frame);
            if (packet != null) {
                packets.accept(packet);
            }
        }));
    }

    /**
     * Reads a capture that may be cut short, as tshark does: what comes before the cut is kept.
     *
     * @param pcap a capture of one RPC-over-RDMA client and server, pcap or pcapng
     * @param cut  gets the cut, if the capture ends inside a frame or block
     * @return what it holds up to the cut
     * @throws IOException if the capture cannot be read at all
     */
    public static Capture read(InputStream pcap, Consumer<TruncatedCaptureException> cut) throws IOException {
        return collect(packets -> {
            try {
                PcapReader.read(pcap, frame -> {
                    RocePacket packet = RocePacket.parse(frame);
                    if (packet != null) {
                        packets.accept(packet);
                    }
                });
            } catch (TruncatedCaptureException e) {
                cut.accept(e);
            }
        });
    }

    /**
     * @param export a capture's JSON Lines export ({@link JsonLinesPackets}), which finds what the pcap would;
     *               Sends and transfers whose payload it elides are marked so
     * @return what it holds
     * @throws IOException if the export cannot be read or parsed
     */
    public static Capture readJsonLines(BufferedReader export) throws IOException {
        return collect(packets -> JsonLinesPackets.read(export, packets));
    }

    /** Where the packets of a capture come from: the pcap itself or its export. */
    private interface PacketSource {
        void read(Consumer<RocePacket> packets) throws IOException;
    }

    private static Capture collect(PacketSource source) throws IOException {
        RdmaConnections connections = new RdmaConnections();
        source.read(connections::onPacket);
        return new Capture(connections.connections(), connections.duplicates());
    }
}
