package org.rpcrdma4j.testbed.capture;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * One capture file: the RPC-over-RDMA traffic of the fabrics that capture into it
 * ({@link CapturingProvider}), written as RoCEv2 frames in a pcap file as it happens, so that tshark and
 * Wireshark, {@code testbed replay} and {@code testbed decode pcap} read it as they read a capture of
 * Linux's NFS/RDMA.
 *
 * <p>Each connection becomes an RC connection between two queue pairs of its own ({@link WireConnection}),
 * opened by an RDMA-CM exchange that carries both sides' RFC 8797 private data. An endpoint's IP address is
 * its own when it has an IPv4 one that its peer does not share (verbs, rc-sim, udp between hosts);
 * otherwise (the simulated EFA network's GIDs, or two ends on one host) it is one of 198.18.0.0/15, the
 * range RFC 2544 sets aside for test networks, the same for that endpoint throughout the capture.
 *
 * <p>Thread-safe: fabrics with progress threads of their own write into one capture, each packet and
 * each message's packets at once. A failure to write stops the capture (the fabrics go on) and is
 * thrown by {@link #close}.
 */
public final class RoceCapture implements Closeable {

    /** The path MTU: the payload of one packet, as on a RoCE port of 4096 bytes. */
    static final int PATH_MTU = 4096;
    /** 198.18.0.0: the first address of the RFC 2544 test range, where synthesized addresses come from. */
    private static final int SYNTHETIC_NETWORK = 0xC6120000;
    private static final int SYNTHETIC_ADDRESSES = (1 << 17) - 2;
    /** The first queue pair number, Linux's first on a fresh device. */
    private static final int FIRST_QPN = 0x11;

    private final Path file;
    private final OutputStream out;
    private final PcapWriter pcap;
    private final InstantSource clock;
    private final Set<Fabric> fabrics = new CopyOnWriteArraySet<>();
    private final Map<String, Integer> addresses = new HashMap<>();
    private int nextQpn = FIRST_QPN;
    private int identification;
    private long frames;
    private IOException failure;
    private boolean closed;

    /**
     * @param file  where the capture goes; replaced if it exists
     * @param out   the open file
     * @param clock the time stamps' source
     * @throws IOException if the file header cannot be written
     */
    RoceCapture(Path file, OutputStream out, InstantSource clock) throws IOException {
        this.file = file;
        this.out = out;
        this.clock = clock;
        this.pcap = new PcapWriter(out);
    }

    /**
     * Creates the file and writes its header.
     *
     * @param file where the capture goes; replaced if it exists
     * @return the capture, empty
     * @throws IOException if the file cannot be created ({@link java.nio.file.NoSuchFileException} for a
     *                     directory that is not there, {@link java.nio.file.AccessDeniedException}, ...)
     */
    public static RoceCapture create(Path file) throws IOException {
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20);
        try {
            return new RoceCapture(file, out, InstantSource.system());
        } catch (IOException e) {
            out.close();
            throw e;
        }
    }

    /** @return the frames written so far */
    public synchronized long frames() {
        return frames;
    }

    /** A fabric of this capture opened: connections to it are captured at its end only. */
    void attach(Fabric fabric) {
        fabrics.add(fabric);
    }

    /** A fabric of this capture closed. */
    void detach(Fabric fabric) {
        fabrics.remove(fabric);
    }

    /**
     * @param peer the address a client connects to
     * @return whether a fabric of this capture listens there, and so captures the connection itself
     */
    boolean capturedAt(FabricAddress peer) {
        return fabrics.stream().anyMatch(fabric -> fabric.localAddress().equals(peer));
    }

    /**
     * Writes a connection's RDMA-CM exchange: ConnectRequest, ConnectReply, ReadyToUse.
     *
     * @param client     the client's end, as the connection shows it
     * @param server     the server's end
     * @param clientData the client's RFC 8797 private data
     * @param serverData the server's
     * @return the connection, to write its traffic
     */
    synchronized WireConnection connect(InetSocketAddress client, InetSocketAddress server,
                                        ConnectPrivateData clientData, ConnectPrivateData serverData) {
        boolean apart = !client.getAddress().equals(server.getAddress());
        WireConnection.End c = new WireConnection.End(address(client, apart), nextQpn++);
        WireConnection.End s = new WireConnection.End(address(server, apart), nextQpn++);
        byte[] deth = CmMads.deth();
        int clientCommId = c.qpn() * 0x01000193;
        int serverCommId = s.qpn() * 0x01000193;
        packet(c, s.ip(), RoceFrame.UD_SEND_ONLY, CmMads.GSI_QP, 0, deth, ByteBuffer.wrap(CmMads.request(
                clientCommId, c.ip(), s.ip(), client.getPort(), c.qpn(), c.nextPsn(), clientData)));
        packet(s, c.ip(), RoceFrame.UD_SEND_ONLY, CmMads.GSI_QP, 0, deth, ByteBuffer.wrap(CmMads.reply(
                serverCommId, clientCommId, s.ip(), s.qpn(), s.nextPsn(), serverData)));
        packet(c, s.ip(), RoceFrame.UD_SEND_ONLY, CmMads.GSI_QP, 1, deth,
                ByteBuffer.wrap(CmMads.readyToUse(clientCommId, serverCommId)));
        return new WireConnection(this, c, s);
    }

    /** Writes one packet from {@code from}'s queue pair; called with this capture's lock held. */
    void packet(WireConnection.End from, int to, int opcode, int destinationQp, int psn, byte[] extension,
                ByteBuffer payload) {
        if (closed || failure != null) {
            return;
        }
        byte[] frame = RoceFrame.encode(from.ip(), to, from.udpPort(), identification++, opcode, destinationQp, psn,
                extension, payload);
        Instant now = clock.instant();
        try {
            pcap.write(now.getEpochSecond() * 1_000_000_000L + now.getNano(), frame);
            frames++;
        } catch (IOException e) {
            failure = e;
        }
    }

    /** An endpoint's IPv4 address (see the class comment). */
    private int address(InetSocketAddress end, boolean apart) {
        InetAddress ip = end.getAddress();
        if (apart && ip instanceof Inet4Address && !ip.isAnyLocalAddress()) {
            return ByteBuffer.wrap(ip.getAddress()).getInt();
        }
        String key = apart ? ip.getHostAddress() : end.toString();
        return addresses.computeIfAbsent(key, k -> SYNTHETIC_NETWORK + 1 + addresses.size() % SYNTHETIC_ADDRESSES);
    }

    /**
     * Writes what is buffered and closes the file; what the fabrics do from now on is not captured.
     * Closing again does nothing.
     *
     * @throws IOException if a frame or the file could not be written: the capture ends where it failed
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            out.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
        if (failure != null) {
            throw new IOException("writing the capture " + file + " failed after " + frames + " frames: "
                    + failure.getMessage(), failure);
        }
    }
}
