package org.rpcrdma4j.transport.efa;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimFabric;
import org.rpcrdma4j.transport.BackoffIdleStrategy;

/**
 * An EFA network simulated in this JVM, ready to serve and call over: each {@link #newFabric()} is an
 * EFA endpoint on a simulated device of its own (GID {@code fe80::n}), and one progress thread drives
 * them all on a virtual clock that advances {@link #STEP_NS} per cycle, with the simulation in step.
 * Deterministic from its seed. Close the fabrics, then the network; try-with-resources does both:
 *
 * <pre>{@code
 * try (SimulatedEfa network = SimulatedEfa.start(8166);
 *      EfaFabric server = network.newFabric();
 *      EfaFabric client = network.newFabric()) {
 *     ...
 * }
 * }</pre>
 */
public final class SimulatedEfa implements AutoCloseable {

    /** Virtual time per progress cycle. */
    public static final long STEP_NS = 1_000;
    /** The QPN of every simulated device's endpoint (each has a GID of its own). */
    public static final int QPN = 7;
    private static final long WAIT_S = 10;

    private final SimFabric sim;
    /** Each open fabric's device, to restart it; closed fabrics are dropped as new ones come. */
    private final Map<EfaFabric, SimDevice> devices = new HashMap<>();
    private final EfaProgressLoop loop;
    private final EndpointConfig config;
    private long now;
    private int hosts;
    /** Restarts so far; each gives the new endpoint a seed of its own. */
    private int restarts;

    private SimulatedEfa(long seed, EndpointConfig config) {
        this.sim = new SimFabric(seed);
        this.config = Objects.requireNonNull(config, "config").withTags(EfaFabric.tags());
        // The clock is read only on the loop's thread.
        // The simulation knows when nothing is on its wire: the loop may then park until woken.
        this.loop = EfaProgressLoop.start("efa-sim-progress", () -> now += STEP_NS, sim::progress,
                () -> sim.inFlight() == 0, BackoffIdleStrategy.forProgress());
    }

    /**
     * Starts a simulated network with the endpoints' default configuration.
     *
     * @param seed the seed of the simulation and of its endpoints
     * @return the running network
     */
    public static SimulatedEfa start(long seed) {
        return start(seed, EndpointConfig.DEFAULT);
    }

    /**
     * Starts a simulated network.
     *
     * @param seed   the seed of the simulation and of its endpoints
     * @param config the configuration of every endpoint; its random seed is derived from {@code seed}
     *               and its tags are the transport's ({@link EfaFabric#tags()})
     * @return the running network
     */
    public static SimulatedEfa start(long seed, EndpointConfig config) {
        return new SimulatedEfa(seed, config);
    }

    /**
     * Adds an endpoint on a new simulated device, as a fabric that serves, calls, or both.
     *
     * @return the fabric; close it to release the endpoint and its device
     * @throws IllegalStateException if the network is closed
     */
    public EfaFabric newFabric() {
        return onLoop(() -> {
            devices.keySet().removeIf(EfaFabric::isClosed);
            int host = ++hosts;
            SimDevice device = sim.createDevice(new Gid(0xfe80_0000_0000_0000L, host), QPN);
            EfaFabric fabric = loop.attachNow(new EfaEndpoint(device, config.withRandomSeed(sim.seed() * 31 + host)));
            devices.put(fabric, device);
            return fabric;
        });
    }

    /**
     * Restarts the process behind a fabric, a fault for tests: the old process dies and a new one starts
     * on the same address. Its queue pair comes back on the same GID and QPN with a new connid (EFA RDM v4
     * §4.4), and the fabric goes on as the new process over a new endpoint, with a new
     * {@link EfaFabric#localAddress()}:
     * <ul>
     * <li>what the old endpoint held is gone: every connection of the fabric ends with
     *     {@link org.rpcrdma4j.transport.FabricStatus#FABRIC_ERROR}, what was posted on it flushed, its
     *     listener told, as when a device goes away; registrations made before are dead (freeing one does
     *     nothing);</li>
     * <li>each peer of those connections hears from the new queue pair, so its endpoint takes the old
     *     one as gone (a new connid on its GID and QPN) and its connections with it end at once with
     *     {@link org.rpcrdma4j.transport.FabricStatus#PEER_UNREACHABLE}, their calls failed;</li>
     * <li>a service listening on the fabric goes on listening, at the new address.</li>
     * </ul>
     * After a restart a client connects again, to the new address ({@code RdmaRpcClient.builder} with
     * the server fabric's {@code localAddress()} read afresh); a client on the restarted fabric connects
     * again too. Closing the fabric later frees all it holds.
     *
     * @param fabric a fabric of this network, open
     */
    public void restart(EfaFabric fabric) {
        onLoop(() -> {
            SimDevice device = device(fabric);
            sim.restart(device);
            fabric.restart(new EfaEndpoint(device, config.withRandomSeed(sim.seed() * 31 - ++restarts)));
            return null;
        });
    }

    /**
     * Makes one fabric's device answer every packet from another's with receiver-not-ready, as the
     * device of a process that stopped receiving does, or stops doing so. A fault for tests.
     *
     * @param from     the sender
     * @param to       the fabric that stops receiving from it
     * @param notReady whether it answers receiver-not-ready from now on
     */
    public void receiverNotReady(EfaFabric from, EfaFabric to, boolean notReady) {
        onLoop(() -> {
            sim.setLinkFaults(device(from), device(to), notReady ? FaultPlan.NONE.withRnr(1) : FaultPlan.NONE);
            return null;
        });
    }

    /** @return simulated devices that exist now; a closed fabric's device is gone */
    public int devices() {
        return onLoop(sim::deviceCount);
    }

    /** Stops the progress thread; close the fabrics first. */
    @Override
    public void close() {
        loop.close();
    }

    private SimDevice device(EfaFabric fabric) {
        return Objects.requireNonNull(devices.get(fabric), "not a fabric of this network");
    }

    private <T> T onLoop(java.util.function.Supplier<T> work) {
        if (loop.inLoop()) {
            return work.get();
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                result.complete(work.get());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get(WAIT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the simulation", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the simulation's thread did not answer within " + WAIT_S + " s", e);
        }
    }
}
