package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.device.sim.SimFabric;

/**
 * Two endpoints on a seeded simulated fabric, and a virtual clock that drives fabric and endpoints
 * together: each step advances time by {@link #STEP_NS}, executes due wire work and progresses
 * both endpoints, collecting their completions. Only A inserts B; B learns A from the raw-address
 * header of A's first REQ, as the provider does (EFA RDM protocol v4 §2.2).
 */
final class SimPair {

    static final long STEP_NS = 1_000;
    private static final int STEP_LIMIT = 5_000_000;

    final SimFabric fabric;
    final SimDevice deviceA;
    final SimDevice deviceB;
    final EfaEndpoint a;
    final EfaEndpoint b;
    final long aToB;
    final List<CompletionEntry> doneA = new ArrayList<>();
    final List<CompletionEntry> doneB = new ArrayList<>();
    long now;

    SimPair(long seed, SimDeviceConfig deviceConfigA, SimDeviceConfig deviceConfigB, EndpointConfig configA,
            EndpointConfig configB) {
        this(seed, deviceConfigA, deviceConfigB, configA, configB, UnaryOperator.identity());
    }

    /** @param wrapB what B's endpoint sees of its device: a test's fault around the simulated one */
    SimPair(long seed, SimDeviceConfig deviceConfigA, SimDeviceConfig deviceConfigB, EndpointConfig configA,
            EndpointConfig configB, UnaryOperator<Device> wrapB) {
        fabric = new SimFabric(seed);
        deviceA = fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 1), 7, deviceConfigA);
        deviceB = fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 2), 9, deviceConfigB);
        a = new EfaEndpoint(deviceA, configA.withRandomSeed(seed));
        b = new EfaEndpoint(wrapB.apply(deviceB), configB.withRandomSeed(~seed));
        aToB = a.insert(b.address());
    }

    SimPair(long seed) {
        this(seed, SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
    }

    void step() {
        now += STEP_NS;
        fabric.progress(now);
        a.progress(now);
        b.progress(now);
        a.poll(doneA::add, Integer.MAX_VALUE);
        b.poll(doneB::add, Integer.MAX_VALUE);
    }

    void runUntil(BooleanSupplier done) {
        for (int i = 0; i < STEP_LIMIT; i++) {
            if (done.getAsBoolean()) {
                return;
            }
            step();
        }
        fail("no progress after " + STEP_LIMIT + " steps; A completed " + doneA.size() + ", B " + doneB.size());
    }

    /** Sends one eager message A to B and B back to A, so that both handshakes are done. */
    long handshake() {
        b.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(16), -1);
        a.send(aToB, ByteBuffer.allocate(1), -1);
        runUntil(() -> doneA.size() == 1 && doneB.size() == 1);
        final long bToA = doneB.get(0).source();
        a.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(16), -1);
        b.send(bToA, ByteBuffer.allocate(1), -1);
        runUntil(() -> doneA.size() == 2 && doneB.size() == 2
                && a.statistics().counter(EndpointCounter.HANDSHAKES_RECEIVED) == 1
                        && b.statistics().counter(EndpointCounter.HANDSHAKES_RECEIVED) == 1);
        doneA.clear();
        doneB.clear();
        return bToA;
    }

    /** @return {@code length} bytes drawn from a random source seeded with {@code seed} */
    static ByteBuffer pattern(int length, long seed) {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return ByteBuffer.wrap(bytes);
    }
}
