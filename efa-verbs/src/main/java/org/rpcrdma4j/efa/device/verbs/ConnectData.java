package org.rpcrdma4j.efa.device.verbs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.Gid;

/**
 * The private data of the verbs device's CM REQ and REP: the sender's whole device address (GID, QPN,
 * Q-Key) and whether it serves RDMA read and write, 32 bytes, little endian; and of its REJ, when it
 * refuses a request because its own request to the same peer is the one to keep. The Q-Key is the device's incarnation: drawn at open, so a process
 * restarted on the same GID and port is told apart from the one before it (EFA RDM v4 §4.4, "QP
 * collision"). The passive side names the connection by the GID and QPN the REQ carries, not by the
 * socket address RDMA-CM shows, whose port is the connecting id's own.
 *
 * <pre>
 *  0              4      5      6      8                      24          26     28          32
 *  | magic (u32)  | vers | kind | caps | 0 | GID (16, network order) | QPN (u16) | 0 0  | Q-Key (u32) |
 * </pre>
 *
 * kind: 1 an address (REQ, REP), 2 "collision" (REJ: this side's own request is kept, its REQ follows);
 * caps: bit 0 RDMA read, bit 1 RDMA write, so an initiator refuses what its target cannot serve, as the
 * EFA device answers a feature mismatch.
 *
 * RDMA-CM hands over the CM message's room (56 bytes in a REQ, 196 in a REP), not the sender's
 * length, so the data is recognised by its magic, and what follows it is ignored.
 */
final class ConnectData {

    /** "EFAv" read as a little-endian u32. */
    static final int MAGIC = 0x7641_4645;
    static final byte VERSION = 1;
    static final int LENGTH = 32;
    static final byte KIND_ADDRESS = 1;
    static final byte KIND_COLLISION = 2;
    static final int CAP_READ = 1;
    static final int CAP_WRITE = 2;

    /** A peer's address and what RDMA it serves. */
    record Peer(DeviceAddress address, boolean read, boolean write) {
    }

    private ConnectData() {
    }

    static byte[] address(DeviceAddress address, boolean read, boolean write) {
        final ByteBuffer data = header(KIND_ADDRESS);
        data.put(6, (byte) ((read ? CAP_READ : 0) | (write ? CAP_WRITE : 0))).put(8, address.gid().toBytes())
                .putShort(24, (short) address.qpn()).putInt(28, address.qkey());
        return data.array();
    }

    static byte[] collision() {
        return header(KIND_COLLISION).array();
    }

    private static ByteBuffer header(byte kind) {
        return ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN).putInt(0, MAGIC).put(4, VERSION).put(5, kind);
    }

    /**
     * @param privateData what a REQ or REP carried
     * @return the sender, or null if the data is not an address of ours: too short, another magic,
     *     version or kind
     */
    static Peer decodeAddress(byte[] privateData) {
        final ByteBuffer data = check(privateData, KIND_ADDRESS);
        if (data == null) {
            return null;
        }
        final byte[] gid = new byte[Gid.LENGTH];
        data.get(8, gid);
        final int caps = data.get(6);
        return new Peer(new DeviceAddress(Gid.of(gid), data.getShort(24) & 0xFFFF, data.getInt(28)),
                (caps & CAP_READ) != 0, (caps & CAP_WRITE) != 0);
    }

    /** @return whether a REJ's data says "collision" */
    static boolean isCollision(byte[] privateData) {
        return check(privateData, KIND_COLLISION) != null;
    }

    private static ByteBuffer check(byte[] privateData, byte kind) {
        if (privateData == null || privateData.length < LENGTH) {
            return null;
        }
        final ByteBuffer data = ByteBuffer.wrap(privateData).order(ByteOrder.LITTLE_ENDIAN);
        return data.getInt(0) == MAGIC && data.get(4) == VERSION && data.get(5) == kind ? data : null;
    }
}
