package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.device.sim.SimFabric;

/**
 * Any number of endpoints on one seeded simulated fabric, stepped together by a virtual clock as
 * in {@link SimPair}; each endpoint's completions are collected, and a hook runs after every step
 * so that tests can play request-response or attack while the clock moves.
 */
final class SimNet {

    private static final int STEP_LIMIT = 2_000_000;

    final SimFabric fabric;
    final Map<EfaEndpoint, SimDevice> devices = new HashMap<>();
    private final List<EfaEndpoint> endpoints = new ArrayList<>();
    private final Map<EfaEndpoint, List<CompletionEntry>> done = new HashMap<>();
    private final List<Runnable> hooks = new ArrayList<>();
    long now;

    SimNet(long seed) {
        fabric = new SimFabric(seed);
    }

    /** @return a new endpoint on a device of its own GID */
    EfaEndpoint add(int host, SimDeviceConfig deviceConfig, EndpointConfig config) {
        final SimDevice device = fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, host), 7, deviceConfig);
        final EfaEndpoint endpoint = add(device, config.withRandomSeed(fabric.seed() + host));
        devices.put(endpoint, device);
        return endpoint;
    }

    /** @return a new endpoint over a given device, for devices that wrap a simulated one */
    EfaEndpoint add(Device device, EndpointConfig config) {
        final EfaEndpoint endpoint = new EfaEndpoint(device, config);
        endpoints.add(endpoint);
        done.put(endpoint, new ArrayList<>());
        return endpoint;
    }

    /** @return a new simulated device of its own GID, not yet used by an endpoint */
    SimDevice device(int host) {
        return fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, host), 7);
    }

    /** @return the completions of an endpoint so far; a test may remove what it has handled */
    List<CompletionEntry> done(EfaEndpoint endpoint) {
        return done.get(endpoint);
    }

    /** Runs {@code hook} after every step from now on. */
    void everyStep(Runnable hook) {
        hooks.add(hook);
    }

    void step() {
        now += SimPair.STEP_NS;
        fabric.progress(now);
        for (EfaEndpoint endpoint : endpoints) {
            endpoint.progress(now);
            endpoint.poll(done.get(endpoint)::add, Integer.MAX_VALUE);
        }
        for (Runnable hook : hooks) {
            hook.run();
        }
    }

    void runUntil(BooleanSupplier condition) {
        for (int i = 0; i < STEP_LIMIT; i++) {
            if (condition.getAsBoolean()) {
                return;
            }
            step();
        }
        fail("no progress after " + STEP_LIMIT + " steps");
    }

    void run(int steps) {
        for (int i = 0; i < steps; i++) {
            step();
        }
    }
}
