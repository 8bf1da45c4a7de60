package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.rpcrdma4j.efa.wire.DecodedPacket;

/**
 * The receive side of FI_ORDER_SAS for one peer: RTM packets are processed in {@code msg_id}
 * order, which the sender assigns in send order (EFA RDM protocol v4 §3.2, table 3.3). A packet
 * ahead of the next expected id is copied and held until the gap closes. Ids are u32 and compared
 * by their signed 32-bit difference, so the order survives the wrap from 2^32 - 1 to 0 (§3.2,
 * eager tip 1). The window bounds how far ahead a peer may run.
 *
 * <p>Ownership: held packets are copies the window owns; the receive buffers they came from are
 * reposted at once.
 */
final class ReorderWindow {

    /** Where a msg_id falls relative to the window. */
    enum Position {
        /** The next expected id: process now. */
        NEXT,
        /** Ahead of it, inside the window: hold. */
        AHEAD,
        /** Before it: a later segment of a medium message already started, or a duplicate. */
        PAST,
        /** Beyond the window. */
        BEYOND
    }

    /** A held packet: its own copy of the bytes and where the decoder found its parts. */
    record Held(ByteBuffer buffer, DecodedPacket packet) {
    }

    private final int size;
    private final Map<Integer, ArrayDeque<Held>> held = new HashMap<>();
    private int expected;

    ReorderWindow(int size, int initialMsgId) {
        this.size = size;
        this.expected = initialMsgId;
    }

    Position classify(int msgId) {
        final int distance = msgId - expected;
        if (distance == 0) {
            return Position.NEXT;
        }
        if (distance < 0) {
            return Position.PAST;
        }
        return distance < size ? Position.AHEAD : Position.BEYOND;
    }

    void hold(int msgId, Held packet) {
        held.computeIfAbsent(msgId, id -> new ArrayDeque<>()).add(packet);
    }

    /** Moves past the expected id and returns the packets held for the new one, or null. */
    ArrayDeque<Held> advance() {
        expected++;
        return held.isEmpty() ? null : held.remove(expected);
    }

    /** Drops every held packet: the peer is gone. */
    void clear() {
        held.clear();
    }

    int expected() {
        return expected;
    }
}
