package org.rpcrdma4j.testbed.trace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Sorts the packets of a capture into its RDMA connections, and drops the packets a capture holds
 * twice.
 *
 * <p>A connection is made by an RDMA-CM exchange (IBTA 12.6): the ConnectRequest names the client's
 * queue pair (its Local QPN), the ConnectReply the server's. Every reliable-connection packet is
 * addressed to one of them (the BTH's destination QP), so it belongs to the connection whose endpoint
 * it reaches; a reconnect makes a new connection, which takes over its endpoints from then on. Packets
 * to an endpoint no exchange in the capture named (a capture that began after the connect) go to a
 * connection per pair of addresses, with the RFC 8797 defaults.
 *
 * <p>A reliable connection numbers its packets (the BTH's PSN, 24 bits): a packet whose number the
 * receiving endpoint has already seen in the same sequence is a retransmission or a frame captured
 * twice, and is dropped. An endpoint receives two sequences: its peer's requests (Sends, Writes, Read
 * Requests) and the responses to its own Read Requests.
 */
final class RdmaConnections {

    /** The CM message's data starts after the MAD's 24-byte common header. */
    private static final int CM_DATA = 24;
    /** REQ: Local Communication ID, reserved, Service ID, Local CA GUID, reserved, Local Q_Key, then the QPN. */
    private static final int REQ_LOCAL_QPN = CM_DATA + 32;
    /** REP: Local and Remote Communication IDs, Local Q_Key, then the QPN. */
    private static final int REP_LOCAL_QPN = CM_DATA + 12;
    private static final int RDMA_READ_RESPONSE_FIRST = 0x0D;
    private static final int RDMA_READ_RESPONSE_LAST = 0x0F;
    private static final int RDMA_READ_RESPONSE_ONLY = 0x10;
    private static final int ACKNOWLEDGE = 0x11;
    private static final int ATOMIC_ACKNOWLEDGE = 0x12;
    private static final int PSN_MODULUS = 1 << 24;

    /** One connection's readers, fed its packets in capture order. */
    static final class Connection {
        private final int number;
        private final RoceSends sends = new RoceSends();
        private final RdmaTransfers transfers = new RdmaTransfers();
        private final ConnectExchange connect = new ConnectExchange();
        private String endpoints;

        Connection(int number, String endpoints) {
            this.number = number;
            this.endpoints = endpoints;
        }

        private void accept(RocePacket packet) {
            sends.onPacket(packet);
            transfers.onPacket(packet);
            connect.onPacket(packet);
        }

        Capture.Connection result() {
            return new Capture.Connection(number, endpoints, sends.sends(), transfers, connect);
        }
    }

    private final List<Connection> connections = new ArrayList<>();
    /** Each endpoint ("address/QPN") to the connection that owns it now. */
    private final Map<String, Connection> byEndpoint = new HashMap<>();
    /** The connections of packets to endpoints no captured exchange named, per address pair. */
    private final Map<String, Connection> unnamed = new HashMap<>();
    /** A ConnectRequest not yet answered, per client address. */
    private final Map<Integer, Connection> requested = new HashMap<>();
    /** The highest PSN seen per endpoint and sequence. */
    private final Map<String, Integer> lastPsn = new HashMap<>();
    private int duplicates;

    /** Takes the next packet of the capture. */
    void onPacket(RocePacket packet) {
        if (packet.transport() == RocePacket.UD) {
            onCm(packet);
        } else if (packet.transport() == RocePacket.RC && !duplicate(packet)) {
            connectionOf(packet).accept(packet);
        }
    }

    /** @return the connections, in the order they were made */
    List<Capture.Connection> connections() {
        return connections.stream().map(Connection::result).toList();
    }

    /** @return how many packets were dropped as seen before */
    int duplicates() {
        return duplicates;
    }

    private void onCm(RocePacket packet) {
        int attribute = packet.cmAttribute();
        int mad = packet.mad();
        if (attribute == RocePacket.CM_REQ && packet.to() >= mad + REQ_LOCAL_QPN + 3) {
            int qpn = u24(packet.bytes(), mad + REQ_LOCAL_QPN);
            Connection pending = requested.get(packet.source());
            if (pending != null && pending.endpoints.equals(endpoint(packet.source(), qpn))) {
                return;                          // the CM retransmitted its request
            }
            Connection c = new Connection(connections.size() + 1, endpoint(packet.source(), qpn));
            connections.add(c);
            requested.put(packet.source(), c);
            c.accept(packet);
        } else if (attribute == RocePacket.CM_REP && packet.to() >= mad + REP_LOCAL_QPN + 3) {
            Connection c = requested.remove(packet.destination());
            if (c == null) {
                return;                          // a retransmitted reply, or one to a request not captured
            }
            int qpn = u24(packet.bytes(), mad + REP_LOCAL_QPN);
            String server = endpoint(packet.source(), qpn);
            for (String endpoint : List.of(c.endpoints, server)) {
                byEndpoint.put(endpoint, c);
                // A queue pair number used again starts new packet sequences.
                lastPsn.keySet().removeIf(sequence -> sequence.startsWith(endpoint + "/"));
            }
            c.endpoints = c.endpoints + " <-> " + server;
            c.accept(packet);
        }
    }

    private Connection connectionOf(RocePacket packet) {
        Connection c = byEndpoint.get(endpoint(packet.destination(), packet.qp()));
        if (c != null) {
            return c;
        }
        int low = Math.min(packet.source(), packet.destination());
        int high = Math.max(packet.source(), packet.destination());
        String pair = address(low) + " <-> " + address(high) + " (no RDMA-CM exchange captured)";
        return unnamed.computeIfAbsent(pair, name -> {
            Connection unknown = new Connection(connections.size() + 1, name);
            connections.add(unknown);
            return unknown;
        });
    }

    private boolean duplicate(RocePacket packet) {
        if (packet.opcode() == ACKNOWLEDGE || packet.opcode() == ATOMIC_ACKNOWLEDGE) {
            return false;                        // acknowledgements repeat their PSN and carry nothing read here
        }
        boolean response = packet.opcode() >= RDMA_READ_RESPONSE_FIRST && packet.opcode() <= RDMA_READ_RESPONSE_LAST
                || packet.opcode() == RDMA_READ_RESPONSE_ONLY;
        String sequence = endpoint(packet.destination(), packet.qp()) + (response ? "/responses" : "/requests");
        Integer last = lastPsn.get(sequence);
        // Ahead of the last by less than half the number space is new; anything else was seen.
        int ahead = Math.floorMod(packet.psn() - (last == null ? 0 : last), PSN_MODULUS);
        if (last != null && (ahead == 0 || ahead >= PSN_MODULUS / 2)) {
            duplicates++;
            return true;
        }
        lastPsn.put(sequence, packet.psn());
        return false;
    }

    private static String endpoint(int address, int qpn) {
        return address(address) + "/QP 0x" + Integer.toHexString(qpn);
    }

    private static String address(int address) {
        return (address >>> 24) + "." + (address >>> 16 & 0xFF) + "." + (address >>> 8 & 0xFF) + "." + (address & 0xFF);
    }

    private static int u24(byte[] b, int at) {
        return (b[at] & 0xFF) << 16 | (b[at + 1] & 0xFF) << 8 | b[at + 2] & 0xFF;
    }
}
