package org.rpcrdma4j.transport.oncrpc;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * Builds an {@link RdmaRpcSvc} in the manner of oncrpc4j's {@code OncRpcSvcBuilder}. The fabric is
 * the bind address: the service answers on that fabric's address.
 */
public final class RdmaRpcSvcBuilder {

    private final Map<OncRpcProgram, RpcDispatchable> programs = new HashMap<>();
    private final Map<OncRpcProgram, DdpPolicy> policies = new HashMap<>();
    private Fabric fabric;
    private TransportConfig config = TransportConfig.DEFAULT;
    private ExecutorService workers;

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
     * @param executor where programs run (required); the service does not shut it down
     * @return this builder
     */
    public RdmaRpcSvcBuilder withWorkerThreadExecutionService(ExecutorService executor) {
        this.workers = Objects.requireNonNull(executor, "executor");
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
     * Gives a program's upper-layer binding: where the DDP-eligible results of its replies sit, to
     * RDMA-Write them into the requester's Write chunks. A program without one uses
     * {@link DdpPolicy#NONE}: its replies go inline or through the Reply chunk.
     *
     * @param program the program number and version
     * @param policy  its DDP policy
     * @return this builder
     */
    public RdmaRpcSvcBuilder withDdpPolicy(OncRpcProgram program, DdpPolicy policy) {
        policies.put(Objects.requireNonNull(program, "program"), Objects.requireNonNull(policy, "policy"));
        return this;
    }

    /**
     * @return the service, not started
     * @throws IllegalArgumentException if the fabric or the executor is missing
     */
    public RdmaRpcSvc build() {
        if (fabric == null) {
            throw new IllegalArgumentException("a fabric to bind to is required: withFabric(...)");
        }
        if (workers == null) {
            throw new IllegalArgumentException("a worker executor is required: withWorkerThreadExecutionService(...)");
        }
        return new RdmaRpcSvc(fabric, config, workers, programs, policies);
    }
}
