package org.rpcrdma4j.testbed.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import com.sun.security.auth.module.UnixSystem;
import org.dcache.oncrpc4j.portmap.GenericPortmapClient;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.InetSocketAddresses;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.SocketAddressText;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;

/**
 * The demo's workload against an NFS server on another host, as Linux's {@code mount -o
 * vers=3,proto=rdma} reaches one: MOUNT over TCP at the port the server's rpcbind gives (MOUNT is
 * not served over RDMA by Linux's nfsd), then NFSv3 over RPC-over-RDMA on a connection of the given
 * fabric, with the caller's Unix credentials.
 */
public final class RemoteDemo {

    private static final int RPCBIND_PORT = 111;
    /** The most groups an AUTH_SYS credential carries (RFC 5531, appendix A). */
    private static final int MAX_GIDS = 16;
    private static final long CALL_TIMEOUT_S = 60;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    /** The server could not be reached: no rpcbind or MOUNT over TCP, or no RDMA connection. */
    public static final class UnreachableException extends IOException {
        private static final long serialVersionUID = 1L;

        UnreachableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final PrintWriter out;
    private final MountedWorkload workload;

    /**
     * @param out      where the report goes
     * @param workload what to do on the mounted export
     */
    public RemoteDemo(PrintWriter out, MountedWorkload workload) {
        this.out = out;
        this.workload = workload;
    }

    /**
     * Mounts {@code exportPath} of the server, runs the workload, unmounts and reports.
     *
     * @param fabric     the fabric to connect on; the caller closes it
     * @param rdma       the server's NFS/RDMA listener on {@code fabric}, on the host of its IP address
     * @param exportPath the path to mount
     * @return whether every check passed
     * @throws UnreachableException if rpcbind, MOUNT or the RDMA listener does not answer
     * @throws Exception            if a call fails
     */
    public boolean run(Fabric fabric, FabricAddress rdma, String exportPath) throws Exception {
        long start = System.nanoTime();
        InetSocketAddress server = new InetSocketAddress(rdma.inetAddress(), rdma.number());
        RpcAuthTypeUnix auth = unixCredential();
        InetSocketAddress mountd = mountAddress(new InetSocketAddress(server.getAddress(), RPCBIND_PORT));
        boolean ok;
        try (OncRpcClient tcp = new OncRpcClient(mountd, IpProtocolType.TCP)) {
            Nfs3Client mount = new Nfs3Client(connect(tcp, "MOUNT at " + mountd), auth, CALL_TIMEOUT_S,
                    TimeUnit.SECONDS);
            byte[] root = mount.mount(exportPath);
            out.printf("MOUNT v3 over TCP at %s: %s mounted as uid %d%n", SocketAddressText.format(mountd), exportPath,
                    auth.uid());
            try (RdmaRpcClient client = connectRdma(fabric, rdma, server)) {
                out.printf("NFSv3 over RPC-over-RDMA v1 to %s (inline thresholds %d/%d, %d credits asked)%n",
                        SocketAddressText.format(server),
                        TransportConfig.DEFAULT_INLINE_SIZE, TransportConfig.DEFAULT_INLINE_SIZE,
                        TransportConfig.DEFAULT.requesterCredits());
                try {
                    ok = workload.run(new Nfs3Client(client.transport(), auth, CALL_TIMEOUT_S, TimeUnit.SECONDS),
                            root);
                } catch (IOException e) {
                    // what the connection held then: calls and credits, the receives still posted for
                    // replies, work still on the send queue
                    TransportStatistics calls = client.statistics();
                    out.printf("when the workload broke off: %d calls in progress, %d waiting for a credit, "
                            + "%d credits, %d connection(s) to the server; %s%n",
                            calls.callsInProgress(), calls.callsWaiting(), calls.credits(), client.connects(),
                            NfsWorkload.fabricSummary(fabric.statistics()));
                    out.flush();
                    throw e;
                }
                TransportStatistics statistics = client.statistics();
                NfsWorkload.reportShapes(out, statistics);
                out.printf("  credits granted %d, at most %d calls outstanding at once, %d chunk buffers left "
                        + "registered, %d connection(s) to the server%n", statistics.credits(),
                        statistics.maxCallsInProgress(), statistics.chunkRegistrations(), client.connects());
            }
            mount.umount(exportPath);
            out.printf("unmounted %s after %.1f s%n", exportPath, (System.nanoTime() - start) / 1e9);
        }
        out.println(ok ? "all checks passed" : "SOME CHECKS FAILED");
        out.flush();
        return ok;
    }

    /**
     * AUTH_SYS with this process's user and groups (at most 16, as RFC 5531 allows) and host name, as
     * Linux's client sends; a host name that does not resolve is sent as "localhost".
     */
    static RpcAuthTypeUnix unixCredential() {
        UnixSystem unix = new UnixSystem();
        int[] gids = Arrays.stream(unix.getGroups()).limit(MAX_GIDS).mapToInt(gid -> (int) gid).toArray();
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return new RpcAuthTypeUnix((int) unix.getUid(), (int) unix.getGid(), gids,
                (int) Instant.now().getEpochSecond(), host);
    }

    /** Where MOUNT v3 listens over TCP, as the server's rpcbind says. */
    static InetSocketAddress mountAddress(InetSocketAddress rpcbind) throws UnreachableException {
        String uaddr;
        try (OncRpcClient tcp = new OncRpcClient(rpcbind, IpProtocolType.TCP)) {
            uaddr = new GenericPortmapClient(connect(tcp, "rpcbind at " + rpcbind))
                    .getPort(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3, "tcp");
        } catch (UnreachableException e) {
            throw e;
        } catch (IOException | TimeoutException | RuntimeException e) {
            throw new UnreachableException("rpcbind at " + rpcbind + " did not answer: " + e.getMessage(), e);
        }
        int port = uaddr == null || uaddr.isEmpty() ? 0 : InetSocketAddresses.forUaddrString(uaddr).getPort();
        if (port == 0) {
            throw new UnreachableException("rpcbind at " + rpcbind + " knows no MOUNT v3 over TCP (program "
                    + Nfs3.MOUNT_PROGRAM + "): is the NFS server running?", null);
        }
        // rpcbind may name its wildcard address: the server's own is the one to use
        return new InetSocketAddress(rpcbind.getAddress(), port);
    }

    private static RpcTransport connect(OncRpcClient tcp, String what) throws UnreachableException {
        try {
            return tcp.connect(CONNECT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UnreachableException("no TCP connection to " + what + ": " + e.getMessage(), e);
        }
    }

    private static RdmaRpcClient connectRdma(Fabric fabric, FabricAddress rdma, InetSocketAddress server)
            throws UnreachableException {
        try {
            return RdmaRpcClient.builder(fabric, rdma).withDdpPolicy(new NfsDdpPolicy())
                    .withConnectTimeout(CONNECT_TIMEOUT).connect();
        } catch (RdmaTransportException e) {
            throw new UnreachableException("no RPC-over-RDMA connection to " + server + " (is it reachable over an "
                    + "RDMA device of this host, and does the server listen for RDMA there?): " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UnreachableException("no RPC-over-RDMA connection to " + server + ": " + e.getMessage(), e);
        }
    }
}
