package org.rpcrdma4j.fabric.efa.simtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.fabric.conformance.ChunkProgram;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;

/**
 * Each fabric's device is built as its {@link SimDeviceConfig} says ({@link SimulatedEfa#newFabric(SimDeviceConfig)}
 * and the network's default, {@link SimulatedEfa.Builder#withDeviceConfig}): capabilities, queue depths and MTU
 * show in what the service can do and in how its endpoint sends.
 */
class DeviceConfigTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_22);
    private static final int CHUNK = 65536;
    private static final int CALLS = 64;

    @Test
    void aServerWithRdmaReadAndWritePullsReadChunksAndFillsWriteChunks() throws Exception {
        try (Served served = servedBy(EnumSet.allOf(Capability.class))) {
            assertThat(served.put(CHUNK)).isEqualTo(CHUNK);
            assertThat(served.get(CHUNK)).isEqualTo(ChunkProgram.pattern(CHUNK));
            assertThat(Served.counter(served.serverFabric, EndpointCounter.DIRECT_READS)).isPositive();
            assertThat(Served.counter(served.serverFabric, EndpointCounter.DIRECT_WRITES)).isPositive();
        }
    }

    @Test
    void aServerWithRdmaReadOnlyPullsReadChunksAndFillsWriteChunksByEmulatedWrites() throws Exception {
        try (Served served = servedBy(EnumSet.of(Capability.RDMA_READ))) {
            assertThat(served.put(CHUNK)).isEqualTo(CHUNK);
            assertThat(served.get(CHUNK)).isEqualTo(ChunkProgram.pattern(CHUNK));
            assertThat(Served.counter(served.serverFabric, EndpointCounter.DIRECT_READS)).isPositive();
            // The client can be read from, so a chunk of FI_EFA_INTER_MIN_READ_WRITE_SIZE or more goes long-read.
            assertThat(Served.counter(served.serverFabric, EndpointCounter.LONGREAD_RTW_WRITES)).isPositive();
            assertThat(Served.counter(served.serverFabric, EndpointCounter.DIRECT_WRITES)).isZero();
        }
    }

    @Test
    void aServerWithoutRdmaServesChunksByEmulatedReadsAndWrites() throws Exception {
        try (Served served = servedBy(Set.of())) {
            assertThat(served.echo(new byte[] {1, 2, 3})).containsExactly(1, 2, 3);
            assertThat(served.put(CHUNK)).isEqualTo(CHUNK);
            assertThat(served.get(CHUNK)).isEqualTo(ChunkProgram.pattern(CHUNK));
            assertThat(Served.counter(served.serverFabric, EndpointCounter.LONGCTS_RTR_READS)).isPositive();
            assertThat(Served.counter(served.serverFabric, EndpointCounter.LONGCTS_RTW_WRITES)).isPositive();
            assertThat(Served.counter(served.serverFabric, EndpointCounter.DIRECT_READS)
                    + Served.counter(served.serverFabric, EndpointCounter.DIRECT_WRITES)).isZero();
        }
    }

    @Test
    void smallDeviceQueuesHoldPacketsBackAndLoseNoCall() throws Exception {
        // Each echo is a medium message of at least three 1 KiB packets both ways: the server's endpoint posts a
        // reply's packets in one go into a send queue of two, whose entries come free only when it polls their
        // completions, so a reply always finds it full; and a call's packets outnumber its two receives.
        SimDeviceConfig oneKib = SimDeviceConfig.DEFAULT.withMtu(1024);
        SimulatedEfa network = SimulatedEfa.builder(SEED).withDeviceConfig(oneKib).start();
        SimDeviceConfig small = oneKib.withSendQueueDepth(2).withRecvQueueDepth(2);
        try (Served served = new Served(network, network.newFabric(small), network.newFabric())) {
            served.echoConcurrently(CALLS, 2500);
            assertThat(Served.counter(served.serverFabric, EndpointCounter.QUEUE_FULL_PACKETS)).as("replies held back")
                    .isPositive();
            assertThat(Served.counter(served.clientFabric, EndpointCounter.RNR_RETRANSMISSIONS)).as("calls sent again")
                    .isPositive();
            assertThat(Served.counter(served.serverFabric, EndpointCounter.MEDIUM_MESSAGES_SENT)).isPositive();
        }
    }

    @Test
    void aSmallerMtuSendsWhatNoLongerFitsOnePacketAsAMediumMessage() throws Exception {
        SimulatedEfa network = SimulatedEfa.builder(SEED).withDeviceConfig(SimDeviceConfig.DEFAULT.withMtu(2048))
                .start();
        try (Served served = new Served(network, network.newFabric(), network.newFabric())) {
            assertThat(served.echo(ChunkProgram.pattern(3000))).isEqualTo(ChunkProgram.pattern(3000));
            assertThat(Served.counter(served.clientFabric, EndpointCounter.MEDIUM_MESSAGES_SENT)).isPositive();
            assertThat(Served.counter(served.serverFabric, EndpointCounter.MEDIUM_MESSAGES_SENT)).isPositive();
        }
    }

    private static Served servedBy(Set<Capability> capabilities) throws Exception {
        SimulatedEfa network = SimulatedEfa.start(SEED);
        return new Served(network, network.newFabric(SimDeviceConfig.DEFAULT.withCapabilities(capabilities)),
                network.newFabric());
    }
}
