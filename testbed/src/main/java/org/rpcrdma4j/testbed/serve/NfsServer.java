package org.rpcrdma4j.testbed.serve;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.dcache.oncrpc4j.portmap.OncRpcEmbeddedPortmap;
import org.dcache.oncrpc4j.portmap.OncRpcPortmap;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.nfs.FileHandles;
import org.rpcrdma4j.testbed.nfs.MountService;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Service;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The NFSv3 and MOUNT test service on a fabric, and optionally MOUNT and rpcbind over TCP on an IP
 * address: the Linux client's {@code mount.nfs} asks rpcbind where MOUNT is and talks MOUNT over TCP
 * even when NFS itself goes over RDMA.
 */
public final class NfsServer implements AutoCloseable {

    /** Where MOUNT listens over TCP: the port Linux's {@code rpc.mountd} is conventionally given. */
    public static final int MOUNT_TCP_PORT = 20048;
    private static final int MAX_HANDLES = 1_000_000;
    /** The rpcbind MOUNT is registered with, as oncrpc4j registers: this host's, over UDP. */
    private static final InetSocketAddress LOCAL_RPCBIND = new InetSocketAddress(InetAddress.getLoopbackAddress(),
            OncRpcPortmap.PORTMAP_PORT);
    /** How long each of rpcbind's answers is waited for; oncrpc4j waits for ever. */
    private static final Duration RPCBIND_TIMEOUT = Duration.ofSeconds(2);

    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final LongAdder nfsCalls = new LongAdder();
    private final LongAdder rdmaMountCalls = new LongAdder();
    private final LongAdder tcpMountCalls = new LongAdder();
    private final RdmaRpcSvc rdma;
    private OncRpcEmbeddedPortmap portmap;
    private OncRpcSvc tcp;
    private RpcbindRegistration registration;

    /**
     * Starts the service over RPC-over-RDMA on {@code fabric} and, when {@code tcpAddress} is given,
     * MOUNT over TCP on it (port {@value #MOUNT_TCP_PORT}), registered with an rpcbind on port 111
     * (the one running, else one started in this JVM).
     *
     * @param fabric     the fabric to listen on; the caller closes it after {@link #close}
     * @param export     the directory served
     * @param mountPath  the path clients mount
     * @param tcpAddress where MOUNT and rpcbind listen over TCP, or {@code null} for none
     * @throws IOException if the export cannot be read or a TCP service cannot bind
     */
    public NfsServer(Fabric fabric, Path export, String mountPath, InetAddress tcpAddress) throws IOException {
        FileHandles handles = new FileHandles(export, MAX_HANDLES);
        OncRpcProgram nfs = new OncRpcProgram(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3);
        OncRpcProgram mount = new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3);
        MountService mountService = new MountService(mountPath, handles);
        rdma = new RdmaRpcSvcBuilder().withFabric(fabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(workers)
                .withRpcService(nfs, counting(new Nfs3Service(handles), nfsCalls))
                .withDdpPolicy(new NfsDdpPolicy())
                .withRpcService(mount, counting(mountService, rdmaMountCalls))
                .build();
        try {
            if (tcpAddress != null) {
                portmap = new OncRpcEmbeddedPortmap();
                tcp = new OncRpcSvcBuilder().withTCP().withBindAddress(tcpAddress.getHostAddress())
                        .withPort(MOUNT_TCP_PORT).withoutAutoPublish().withWorkerThreadIoStrategy()
                        .withServiceName("testbed-mount")
                        .withRpcService(mount, counting(mountService, tcpMountCalls)).build();
                tcp.start();
                registration = RpcbindRegistration.register(LOCAL_RPCBIND, mount,
                        new InetSocketAddress(tcpAddress, MOUNT_TCP_PORT), RPCBIND_TIMEOUT);
            }
            rdma.start();
        } catch (IOException | RuntimeException e) {
            stopTcp();
            throw e;
        }
    }

    private static RpcDispatchable counting(RpcDispatchable service, LongAdder calls) {
        return call -> {
            calls.increment();
            service.dispatchOncRpcCall(call);
        };
    }

    /** @return NFS calls served so far */
    public long nfsCalls() {
        return nfsCalls.sum();
    }

    /** @return MOUNT calls served so far over RDMA */
    public long rdmaMountCalls() {
        return rdmaMountCalls.sum();
    }

    /** @return MOUNT calls served so far over TCP */
    public long tcpMountCalls() {
        return tcpMountCalls.sum();
    }

    /** @return what the RDMA service holds and has counted */
    public TransportStatistics statistics() {
        return rdma.statistics();
    }

    /** Stops the services: RDMA first, then MOUNT over TCP and the rpcbind this JVM started. */
    @Override
    public void close() throws IOException {
        try {
            rdma.stop();
        } finally {
            stopTcp();
        }
    }

    private void stopTcp() throws IOException {
        try {
            if (registration != null) {
                registration.close();
            }
            if (tcp != null) {
                tcp.stop(5, TimeUnit.SECONDS);
            }
        } finally {
            try {
                if (portmap != null) {
                    portmap.shutdown();
                }
            } finally {
                workers.shutdownNow();
            }
        }
    }
}
