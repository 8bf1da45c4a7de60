package org.rpcrdma4j.fabric.efa;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.device.sim.SimFabric;
import org.rpcrdma4j.fabric.BackoffIdleStrategy;

/**
 * An EFA network simulated in this JVM, ready to serve and call over, and to test an oncrpc4j service
 * under faults: each {@link #newFabric()} is an EFA endpoint on a simulated device of its own (GID
 * {@code fe80::n}), and one progress thread drives them all on a virtual clock that advances
 * {@link #STEP_NS} per cycle, with the simulation in step. Close the fabrics, then the network;
 * try-with-resources does both:
 *
 * <pre>{@code
 * try (SimulatedEfa network = SimulatedEfa.start(8166);
 *      EfaFabric server = network.newFabric();
 *      EfaFabric client = network.newFabric()) {
 *     ...
 * }
 * }</pre>
 *
 * <h2>Faults</h2>
 * Each device is built as its {@link SimDeviceConfig} says ({@link #newFabric(SimDeviceConfig)}): MTU,
 * queue depths, capabilities (none, RDMA read, RDMA read and write) and the faults on all it sends.
 * While the network runs, {@link #setLinkFaults} puts a {@link FaultPlan} on what one fabric sends to
 * another (delay, reordering, receiver-not-ready by chance; with a chance of 1, a receiver that stopped
 * receiving) and {@link #clearLinkFaults} takes it away; {@link #restart} and {@link #kill} end the
 * process behind a fabric. Every random choice (Q-Keys, delays, reorderings, injected RNR, the
 * endpoints' own) is drawn from the network's seed; the threads of the test and of the programs decide
 * when each operation is posted, so a test asserts outcomes, not one exact order of packets.
 *
 * <h2>Raw endpoints</h2>
 * {@link #newEndpoint} adds an endpoint a test drives by hand ({@link RawEndpoint}), to send any message
 * on any tag to a fabric.
 *
 * <h2>Threads</h2>
 * Every method may be called from any thread; those that touch the simulation run on its progress thread
 * and wait for it (at most 10 s).
 */
public final class SimulatedEfa implements AutoCloseable {

    /** Virtual time per progress cycle. */
    public static final long STEP_NS = 1_000;
    /** The QPN of every simulated device's endpoint (each has a GID of its own). */
    public static final int QPN = 7;

    private final SimFabric sim;
    /** Each open fabric's device; a fabric is forgotten as soon as it has closed. */
    private final Map<EfaFabric, SimDevice> devices = new HashMap<>();
    /** Progressed with the simulation; one is forgotten as soon as it closes. */
    private final List<RawEndpoint> rawEndpoints = new ArrayList<>();
    private final EfaProgressLoop loop;
    private final EndpointConfig endpointConfig;
    private final SimDeviceConfig deviceConfig;
    private long now;
    private int hosts;
    /** Restarts so far; each gives the new endpoint a seed of its own. */
    private int restarts;

    private SimulatedEfa(Builder builder) {
        this.sim = new SimFabric(builder.seed);
        this.endpointConfig = builder.endpointConfig.withTags(EfaFabric.tags());
        this.deviceConfig = builder.deviceConfig;
        // The clock is read only on the loop's thread.
        // The simulation knows when nothing is on its wire: the loop may then park until woken.
        this.loop = EfaProgressLoop.start("efa-sim-progress", () -> now += STEP_NS, this::progress, this::quiet,
                builder.idleSpin.toNanos(), BackoffIdleStrategy.forProgress());
    }

    /**
     * @param seed the seed of the simulation and of its endpoints
     * @return a builder of a network with the endpoints' and devices' default configurations
     */
    public static Builder builder(long seed) {
        return new Builder(seed);
    }

    /**
     * Starts a simulated network with the endpoints' and devices' default configurations.
     *
     * @param seed the seed of the simulation and of its endpoints
     * @return the running network
     */
    public static SimulatedEfa start(long seed) {
        return builder(seed).start();
    }

    /**
     * Adds an endpoint on a new simulated device of the network's device configuration, as a fabric
     * that serves, calls, or both.
     *
     * @return the fabric; close it to release the endpoint and its device
     * @throws IllegalStateException if the network is closed
     */
    public EfaFabric newFabric() {
        return newFabric(deviceConfig);
    }

    /**
     * Adds an endpoint on a new simulated device built as {@code device} says: its MTU, queue depths,
     * capabilities (an empty set: no RDMA; {@code RDMA_READ}; both), registration limit and faults on
     * what it sends.
     *
     * @param device the device's configuration
     * @return the fabric; close it to release the endpoint and its device, which the network then forgets
     * @throws IllegalStateException if the network is closed
     */
    public EfaFabric newFabric(SimDeviceConfig device) {
        Objects.requireNonNull(device, "device");
        return loop.call(() -> {
            int host = ++hosts;
            SimDevice simDevice = newDevice(host, device);
            EfaFabric fabric = loop.attach(new EfaEndpoint(simDevice, endpointConfig.withRandomSeed(seed(host))),
                    devices::remove);
            devices.put(fabric, simDevice);
            return fabric;
        });
    }

    /**
     * Adds an endpoint a test drives by hand, on a new simulated device of the network's device
     * configuration: it may send anything, on any tag, to the network's fabrics and raw endpoints.
     *
     * @param config the endpoint's configuration (declare no tags to receive on every tag); its random
     *               seed is derived from the network's
     * @return the endpoint, progressed by the network's progress thread; close it to release it and its
     *     device, which the network then forgets
     * @throws IllegalStateException if the network is closed
     */
    public RawEndpoint newEndpoint(EndpointConfig config) {
        Objects.requireNonNull(config, "config");
        return loop.call(() -> {
            int host = ++hosts;
            RawEndpoint raw = new RawEndpoint(new EfaEndpoint(newDevice(host, deviceConfig),
                    config.withRandomSeed(seed(host))), loop, rawEndpoints::remove);
            rawEndpoints.add(raw);
            return raw;
        });
    }

    /**
     * Restarts the process behind a fabric, a fault for tests: the old process dies and a new one starts
     * on the same address. Its queue pair comes back on the same GID and QPN with a new connid (EFA RDM v4
     * §4.4), and the fabric goes on as the new process over a new endpoint, with a new
     * {@link EfaFabric#localAddress()}:
     * <ul>
     * <li>what the old endpoint held is gone: every connection of the fabric ends with
     *     {@link org.rpcrdma4j.fabric.FabricStatus#FABRIC_ERROR}, what was posted on it flushed, its
     *     listener told, as when a device goes away; registrations made before are dead (freeing one does
     *     nothing);</li>
     * <li>each peer of those connections hears from the new queue pair, so its endpoint takes the old
     *     one as gone (a new connid on its GID and QPN) and its connections with it end at once with
     *     {@link org.rpcrdma4j.fabric.FabricStatus#PEER_UNREACHABLE}, their calls failed;</li>
     * <li>a service listening on the fabric goes on listening, at the new address.</li>
     * </ul>
     * After a restart a client connects again, to the new address ({@code RdmaRpcClient.builder} with
     * the server fabric's {@code localAddress()} read afresh); a client on the restarted fabric connects
     * again too. Closing the fabric later frees all it holds. Link faults stay.
     *
     * @param fabric a fabric of this network, open
     * @throws IllegalStateException if the fabric is not an open fabric of this network
     */
    public void restart(EfaFabric fabric) {
        loop.call(() -> {
            SimDevice device = device(fabric);
            sim.restart(device);
            fabric.restart(new EfaEndpoint(device, endpointConfig.withRandomSeed(sim.seed() * 31 - ++restarts)));
            return null;
        });
    }

    /**
     * Kills the process behind a fabric, a fault for tests: it dies without a word and nothing takes its
     * place. Every connection of the fabric ends with
     * {@link org.rpcrdma4j.fabric.FabricStatus#FABRIC_ERROR}, what was posted on it flushed, its listener
     * told, and the fabric is closed, its device gone, the network forgets it. Its peers are not told:
     * what they send to it from then on fails, so each connection with it ends
     * ({@link org.rpcrdma4j.fabric.FabricStatus#PEER_UNREACHABLE}) when its side next sends, as towards
     * a host that crashed; a peer that sends nothing keeps its connection.
     *
     * @param fabric a fabric of this network, open
     * @throws IllegalStateException if the fabric is not an open fabric of this network
     */
    public void kill(EfaFabric fabric) {
        loop.call(() -> {
            device(fabric);
            fabric.kill();
            return null;
        });
    }

    /**
     * Puts faults on what one fabric sends to another from now on, in place of the sender's device's own
     * ({@link SimDeviceConfig#faults()}), until {@link #clearLinkFaults cleared}: a delay in virtual time
     * ({@link FaultPlan#withDelay}), reordering ({@link FaultPlan#withReorder}), receiver-not-ready by
     * chance ({@link FaultPlan#withRnr}); {@code FaultPlan.NONE.withRnr(1)} is a receiver that stopped
     * receiving, which the sender's endpoint declares unreachable after
     * {@link org.rpcrdma4j.efa.EndpointLimits#peerUnreachableNs()} of virtual time. The faults stay across
     * restarts of either fabric and go when either closes.
     *
     * @param from   the sender
     * @param to     the receiver
     * @param faults the faults
     * @throws IllegalStateException if a fabric is not an open fabric of this network
     */
    public void setLinkFaults(EfaFabric from, EfaFabric to, FaultPlan faults) {
        Objects.requireNonNull(faults, "faults");
        loop.call(() -> {
            sim.setLinkFaults(device(from), device(to), faults);
            return null;
        });
    }

    /**
     * Takes the faults {@link #setLinkFaults} put on a link away: what {@code from} sends to {@code to} has
     * its device's own faults again.
     *
     * @param from the sender
     * @param to   the receiver
     * @throws IllegalStateException if a fabric is not an open fabric of this network
     */
    public void clearLinkFaults(EfaFabric from, EfaFabric to) {
        loop.call(() -> {
            sim.clearLinkFaults(device(from), device(to));
            return null;
        });
    }

    /** @return simulated devices that exist now; a closed fabric's or raw endpoint's device is gone */
    public int devices() {
        return loop.call(sim::deviceCount);
    }

    /** @return the virtual time, in nanoseconds: {@link #STEP_NS} per progress cycle since the start */
    public long nowNs() {
        return loop.call(() -> now);
    }

    /**
     * Stops the progress thread; close the fabrics and raw endpoints first. Whatever is still open stops
     * with it: nothing progresses it any more.
     */
    @Override
    public void close() {
        loop.close();
    }

    /** Moves the wire, then the raw endpoints; the loop then progresses the fabrics. Loop thread only. */
    private void progress(long nowNs) {
        sim.progress(nowNs);
        for (int i = 0; i < rawEndpoints.size(); i++) {
            rawEndpoints.get(i).progress(nowNs);
        }
    }

    /** @return whether nothing is on the wire and no raw endpoint has work: nothing moves until a thread posts */
    private boolean quiet() {
        if (sim.inFlight() > 0) {
            return false;
        }
        for (int i = 0; i < rawEndpoints.size(); i++) {
            if (!rawEndpoints.get(i).idle()) {
                return false;
            }
        }
        return true;
    }

    /** @return host n's device, at GID {@code fe80::n} */
    private SimDevice newDevice(int host, SimDeviceConfig config) {
        return sim.createDevice(new Gid(0xfe80_0000_0000_0000L, host), QPN, config);
    }

    private long seed(int host) {
        return sim.seed() * 31 + host;
    }

    private SimDevice device(EfaFabric fabric) {
        SimDevice device = devices.get(Objects.requireNonNull(fabric, "fabric"));
        if (device == null) {
            throw new IllegalStateException(fabric.localAddress() + " is not an open fabric of this network");
        }
        return device;
    }

    /**
     * The progress thread's spin before it parks when nothing can happen ({@link Builder#withIdleSpin}):
     * about a short call's turn on a worker, so that NULL and GETATTR replies find it awake.
     */
    public static final Duration DEFAULT_IDLE_SPIN = Duration.ofNanos(50_000);

    /** Configures a {@link SimulatedEfa} and starts it. */
    public static final class Builder {

        private final long seed;
        private EndpointConfig endpointConfig = EndpointConfig.DEFAULT;
        private SimDeviceConfig deviceConfig = SimDeviceConfig.DEFAULT;
        private Duration idleSpin = DEFAULT_IDLE_SPIN;

        private Builder(long seed) {
            this.seed = seed;
        }

        /**
         * @param config the configuration of every fabric's endpoint (its RNR backoff, limits, time to
         *               declare a peer unreachable...); its random seed is derived from the network's and
         *               its tags are the transport's ({@link EfaFabric#tags()})
         * @return this builder
         */
        public Builder withEndpointConfig(EndpointConfig config) {
            this.endpointConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * @param config the configuration of the devices {@link SimulatedEfa#newFabric()} and
         *               {@link SimulatedEfa#newEndpoint} make
         *               ({@link SimDeviceConfig#DEFAULT} unless set)
         * @return this builder
         */
        public Builder withDeviceConfig(SimDeviceConfig config) {
            this.deviceConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * @param spin how long the progress thread keeps spinning and yielding once nothing can happen
         *             until another thread hands it work (a worker's reply, a caller's call), before it
         *             parks until woken: a reply within it saves the thread's wake-up, a longer wait costs
         *             that much CPU at most ({@link #DEFAULT_IDLE_SPIN} unless set; 0 parks at once)
         * @return this builder
         */
        public Builder withIdleSpin(Duration spin) {
            if (spin.isNegative()) {
                throw new IllegalArgumentException("idle spin " + spin + " < 0");
            }
            this.idleSpin = spin;
            return this;
        }

        /** @return the running network, its progress thread started */
        public SimulatedEfa start() {
            return new SimulatedEfa(this);
        }
    }
}
