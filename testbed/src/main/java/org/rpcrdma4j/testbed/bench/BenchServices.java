package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.nfs.FileHandles;
import org.rpcrdma4j.testbed.nfs.MountService;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Service;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The testbed's NFSv3 and MOUNT service as {@code bench rpc} serves it, the same program on each transport:
 * over oncrpc4j's TCP transport and over rpcrdma4j on a fabric with NFS's DDP binding, its programs on a pool of
 * workers or, with the same-thread strategy, on the thread that received the call. Each service is started.
 */
final class BenchServices {

    /** The path clients mount. */
    static final String EXPORT = "/export";

    private BenchServices() {
    }

    /**
     * @param handles    the export
     * @param address    the IP address to listen on, any port
     * @param sameThread whether programs run on the selector thread
     * @param workers    the workers otherwise; oncrpc4j shuts them down when the service stops, so each service
     *                   needs its own
     * @return the service, started
     * @throws IOException if it cannot bind
     */
    static OncRpcSvc tcp(FileHandles handles, String address, boolean sameThread, ExecutorService workers)
            throws IOException {
        OncRpcSvcBuilder builder = new OncRpcSvcBuilder().withTCP().withBindAddress(address).withPort(0)
                .withoutAutoPublish();
        if (sameThread) {
            builder.withSameThreadIoStrategy();
        } else {
            builder.withWorkerThreadIoStrategy().withWorkerThreadExecutionService(workers);
        }
        OncRpcSvc svc = builder
                .withRpcService(new OncRpcProgram(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3), new Nfs3Service(handles))
                .withRpcService(new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3), new MountService(EXPORT, handles))
                .build();
        svc.start();
        return svc;
    }

    /**
     * @param fabric     the fabric to listen on; the caller closes it after stopping the service
     * @param handles    the export
     * @param sameThread whether programs run on the fabric's progress thread
     * @param workers    the workers otherwise
     * @return the service, started
     */
    static RdmaRpcSvc rdma(Fabric fabric, FileHandles handles, boolean sameThread, ExecutorService workers) {
        RdmaRpcSvcBuilder builder = new RdmaRpcSvcBuilder().withFabric(fabric).withConfig(TransportConfig.DEFAULT);
        if (sameThread) {
            builder.withSameThreadIoStrategy();
        } else {
            builder.withWorkerThreadExecutionService(workers);
        }
        RdmaRpcSvc svc = builder
                .withRpcService(new OncRpcProgram(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3), new Nfs3Service(handles))
                .withDdpPolicy(new NfsDdpPolicy())
                .withRpcService(new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3), new MountService(EXPORT, handles))
                .build();
        svc.start();
        return svc;
    }
}
