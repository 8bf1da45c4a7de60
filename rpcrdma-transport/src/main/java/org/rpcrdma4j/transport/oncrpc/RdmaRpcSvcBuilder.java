package org.rpcrdma4j.transport.oncrpc;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * Builds an {@link RdmaRpcSvc} in the manner of oncrpc4j's {@code OncRpcSvcBuilder}. The fabric is
 * the bind address: the service answers on that fabric's address.
 */
public final class RdmaRpcSvcBuilder {

    private final Map<OncRpcProgram, RpcDispatchable> programs = new HashMap<>();
    private Fabric fabric;
    private TransportConfig config = TransportConfig.DEFAULT;
    private Executor workers;
    private DdpPolicy policy = DdpPolicy.NONE;

    /**
     * @param bindFabric the fabric to serve on (required); the service does not own it
     * @return this builder
     */
    public RdmaRpcSvcBuilder withFabric(Fabric bindFabric) {
        this.fabric = Objects.requireNonNull(bindFabric, "fabric");
        return this;
    }

    /**
     * @param transportConfig inline sizes, credits and connection limit; Linux's defaults otherwise
     * @return this builder
     */
    public RdmaRpcSvcBuilder withConfig(TransportConfig transportConfig) {
        this.config = Objects.requireNonNull(transportConfig, "config");
        return this;
    }

    /**
     * Runs programs on workers of this executor: the default strategy, as oncrpc4j's
     * {@code withWorkerThreadIoStrategy}. Either this or {@link #withSameThreadIoStrategy} is required;
     * the later call wins.
     *
     * @param executor where programs run; the service does not shut it down
     * @return this builder
     */
    public RdmaRpcSvcBuilder withWorkerThreadExecutionService(ExecutorService executor) {
        this.workers = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Runs every program on the fabric's progress thread, as soon as its call is received, without
     * handing it to a worker: oncrpc4j's {@code withSameThreadIoStrategy}. It saves a thread hand-off
     * and a worker's wake-up per call, and suits only programs that never block (no file or network
     * I/O that can wait, no lock held long, no backward call waited for): while a program runs, no
     * connection of the fabric makes progress. The later of this and
     * {@link #withWorkerThreadExecutionService} wins.
     *
     * @return this builder
     */
    public RdmaRpcSvcBuilder withSameThreadIoStrategy() {
        this.workers = CallDispatcher.SAME_THREAD;
        return this;
    }

    /**
     * @param program    the program number and version
     * @param dispatcher the program
     * @return this builder
     */
    public RdmaRpcSvcBuilder withRpcService(OncRpcProgram program, RpcDispatchable dispatcher) {
        programs.put(Objects.requireNonNull(program, "program"), Objects.requireNonNull(dispatcher, "dispatcher"));
        return this;
    }

    /**
     * Gives the upper-layer binding of the programs served: where the DDP-eligible results of their
     * replies sit, to RDMA-Write them into the requester's Write chunks. One policy for every
     * program, telling them apart by the procedure it is given, as a client gives one to
     * {@code RdmaRpcClient.builder}: {@code NfsDdpPolicy} covers NFS and NFSACL and leaves other
     * programs alone; {@link DdpPolicy#forProgram} makes one for a program of your own. Without one,
     * replies go inline or through the Reply chunk ({@link DdpPolicy#NONE}).
     *
     * @param policy the DDP policy
     * @return this builder
     */
    public RdmaRpcSvcBuilder withDdpPolicy(DdpPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /**
     * @return the service, not started
     * @throws IllegalArgumentException if the fabric or where programs run is missing
     */
    public RdmaRpcSvc build() {
        if (fabric == null) {
            throw new IllegalArgumentException("a fabric to bind to is required: withFabric(...)");
        }
        if (workers == null) {
            throw new IllegalArgumentException("a worker executor is required: withWorkerThreadExecutionService(...),"
                    + " or withSameThreadIoStrategy() for programs that never block");
        }
        return new RdmaRpcSvc(fabric, config, workers, programs, policy);
    }
}
