package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimFabric;

/**
 * An endpoint's lifecycle: {@code close} ends what is in progress with CANCELED, releases what the
 * endpoint holds on its device and frees the device's QPN, also after the device restarted or when
 * the device fails a step, and later calls fail with a typed error; a server that removes each
 * closed client's peer holds exactly what it held before, by its own gauges and by its device's
 * count of registrations, address handles and receives.
 */
class EndpointLifecycleTest {

    private static final Gid SERVER_GID = new Gid(0xfe80_0000_0000_0000L, 1);
    private static final Gid CLIENT_GID = new Gid(0xfe80_0000_0000_0000L, 2);
    private static final int CLIENT_QPN = 100;
    private static final long TAG = 0x77;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void closeCancelsWhatIsInProgressReleasesTheDeviceAndRefusesLaterCalls() {
        final SimPair pair = new SimPair(seed.seed());
        pair.handshake();
        final ByteBuffer never = ByteBuffer.allocate(64);
        pair.a.recv(EfaEndpoint.ADDR_UNSPEC, never, 1);
        // Long-CTS without a receive at B: A's send waits for a CTS that never comes.
        pair.a.send(pair.aToB, SimPair.pattern(200_000, 1), 2);
        pair.a.register(ByteBuffer.allocate(4096), EnumSet.of(Access.REMOTE_READ));
        pair.runUntil(() -> pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES) == 1);
        assertThat(pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isEqualTo(1);
        final int devicesBefore = pair.fabric.deviceCount();

        pair.a.close();
        pair.a.close();

        final List<CompletionEntry> cancelled = new ArrayList<>();
        pair.a.poll(cancelled::add, 10);
        assertThat(cancelled).extracting(CompletionEntry::context).containsExactlyInAnyOrder(1L, 2L);
        assertThat(cancelled).extracting(CompletionEntry::error).containsOnly(EfaErrorCode.CANCELED);
        for (EndpointGauge gauge : EndpointGauge.values()) {
            assertThat(pair.a.statistics().gauge(gauge)).as(gauge.name()).isZero();
        }
        assertThat(pair.deviceA.isClosed()).isTrue();
        assertThat(pair.deviceA.registrationCount()).isZero();
        assertThat(pair.deviceA.addressHandleCount()).isZero();
        assertThat(pair.deviceA.postedReceiveCount()).isZero();
        assertThat(pair.fabric.deviceCount()).isEqualTo(devicesBefore - 1);
        assertThatThrownBy(() -> pair.a.send(pair.aToB, ByteBuffer.allocate(1), 3))
                .isInstanceOf(EndpointClosedException.class);
        assertThatThrownBy(() -> pair.a.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(1), 4))
                .isInstanceOf(EndpointClosedException.class);
        assertThatThrownBy(() -> pair.a.insert(pair.b.address())).isInstanceOf(EndpointClosedException.class);
        assertThatThrownBy(() -> pair.a.progress(pair.now)).isInstanceOf(EndpointClosedException.class);
        // The QPN is free: a new queue pair may take it.
        assertThat(pair.fabric.createDevice(pair.a.address().gid(), pair.a.address().qpn())).isNotNull();
    }

    @Test
    void closeAfterTheDeviceRestartedReleasesEverythingAndFreesTheDevice() {
        final SimPair pair = new SimPair(seed.seed());
        pair.handshake();
        // A long-read send that B has not taken yet holds A's registration of its buffer.
        pair.a.send(pair.aToB, SimPair.pattern(EndpointConfig.DEFAULT_MIN_READ_MESSAGE_SIZE, 1), 1);
        final MemoryRegion region = pair.a.register(ByteBuffer.allocate(4096), EnumSet.of(Access.REMOTE_WRITE));
        pair.runUntil(() -> pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES) == 1);
        assertThat(pair.a.statistics().gauge(EndpointGauge.REGISTRATIONS)).isEqualTo(1);
        final int devicesBefore = pair.fabric.deviceCount();

        // A's process vanishes: its queue pair comes back knowing nothing of A's handles and registrations.
        pair.fabric.restart(pair.deviceA);
        pair.a.deregister(region);
        pair.a.close();

        final List<CompletionEntry> cancelled = new ArrayList<>();
        pair.a.poll(cancelled::add, 10);
        assertThat(cancelled).extracting(CompletionEntry::error).containsExactly(EfaErrorCode.CANCELED);
        for (EndpointGauge gauge : EndpointGauge.values()) {
            assertThat(pair.a.statistics().gauge(gauge)).as(gauge.name()).isZero();
        }
        assertThat(pair.deviceA.isClosed()).isTrue();
        assertThat(pair.fabric.deviceCount()).isEqualTo(devicesBefore - 1);
        assertThat(pair.a.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
    }

    @Test
    void closeRunsEveryStepWhenTheDeviceFailsOneAndThrowsTheFirstFailure() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice device = fabric.createDevice(SERVER_GID, 7);
        final EfaEndpoint endpoint = new EfaEndpoint(refusingToDestroyAddressHandles(device), EndpointConfig.DEFAULT);
        endpoint.insert(new EfaEndpoint(fabric.createDevice(CLIENT_GID, CLIENT_QPN), EndpointConfig.DEFAULT).address());
        endpoint.insert(new EfaEndpoint(fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), CLIENT_QPN),
                EndpointConfig.DEFAULT).address());
        endpoint.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(64), 1);

        assertThatThrownBy(endpoint::close).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("injected").satisfies(thrown ->
                        assertThat(thrown.getSuppressed()).as("the second peer's failure").hasSize(1));

        final List<CompletionEntry> cancelled = new ArrayList<>();
        endpoint.poll(cancelled::add, 10);
        assertThat(cancelled).extracting(CompletionEntry::error).containsExactly(EfaErrorCode.CANCELED);
        for (EndpointGauge gauge : EndpointGauge.values()) {
            assertThat(endpoint.statistics().gauge(gauge)).as(gauge.name()).isZero();
        }
        assertThat(device.isClosed()).isTrue();
        assertThat(fabric.deviceCount()).as("the two peers' devices").isEqualTo(2);
        // Reported once: closing again does nothing.
        endpoint.close();
    }

    /** The device, but for {@link Device#destroyAddressHandle}, which throws as a driver fault would. */
    private static Device refusingToDestroyAddressHandles(Device device) {
        return (Device) Proxy.newProxyInstance(Device.class.getClassLoader(), new Class<?>[] {Device.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("destroyAddressHandle")) {
                        throw new IllegalStateException("injected: cannot destroy " + args[0]);
                    }
                    try {
                        return method.invoke(device, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void removingAPeerEndsItsOperationsAlsoThoseWhosePacketsAreOnTheWire() {
        final SimPair pair = new SimPair(seed.seed());
        pair.handshake();
        // B's answer will be receiver-not-ready, and it takes a while to come back.
        pair.fabric.setLinkFaults(pair.deviceA, pair.deviceB, FaultPlan.NONE.withRnr(1).withDelay(50_000, 50_000));
        pair.a.send(pair.aToB, ByteBuffer.allocate(100), 1);
        pair.a.recv(pair.aToB, ByteBuffer.allocate(100), 2);
        pair.step();
        assertThat(pair.fabric.inFlight()).isEqualTo(1);

        pair.a.remove(pair.aToB);

        pair.runUntil(() -> pair.doneA.size() == 2);
        assertThat(pair.doneA).extracting(CompletionEntry::error).containsOnly(EfaErrorCode.CANCELED);
        pair.runUntil(() -> pair.fabric.inFlight() == 0);
        assertThat(pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
        assertThat(pair.a.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
        assertThat(pair.a.statistics().gauge(EndpointGauge.PACKETS_IN_USE)).isZero();
        assertThat(pair.a.statistics().gauge(EndpointGauge.PEERS)).isZero();
        assertThat(pair.a.statistics().gauge(EndpointGauge.ADDRESS_HANDLES)).isZero();
        assertThatThrownBy(() -> pair.a.send(pair.aToB, ByteBuffer.allocate(1), 3))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aThousandClientsUsedAndClosedLeaveTheServerAsItWas() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice serverDevice = fabric.createDevice(SERVER_GID, 7);
        final EfaEndpoint server = new EfaEndpoint(serverDevice, EndpointConfig.DEFAULT.withRandomSeed(seed.seed()));
        final Map<EndpointGauge, Long> baseline = gauges(server);
        final int postedBaseline = serverDevice.postedReceiveCount();
        final long[] now = {0};

        for (int i = 0; i < 1000; i++) {
            // The same GID and QPN each time: creating the device proves the last one freed it.
            final SimDevice clientDevice = fabric.createDevice(CLIENT_GID, CLIENT_QPN);
            // Small pools: each client is built from scratch, and the point is what the server keeps.
            final EfaEndpoint client = new EfaEndpoint(clientDevice,
                    EndpointConfig.DEFAULT.withTxPacketCount(64).withRxBufferCount(32).withRandomSeed(i));
            final long toServer = client.insert(server.address());
            final long toClient = call(fabric, now, server, client, toServer, 100 + i, i);
            if (i % 100 == 0) {
                // Both handshakes are done: a 1 MiB message goes long-read (registrations both sides).
                call(fabric, now, server, client, toServer, (1 << 20) + 5, i);
            }

            client.close();
            server.remove(toClient);
            assertThat(clientDevice.registrationCount() + clientDevice.addressHandleCount()
                    + clientDevice.postedReceiveCount()).isZero();
        }
        run(fabric, now, server, null, new ArrayList<>(), new ArrayList<>(), () -> fabric.inFlight() == 0);

        assertThat(gauges(server)).isEqualTo(baseline);
        assertThat(serverDevice.registrationCount()).isZero();
        assertThat(serverDevice.addressHandleCount()).isZero();
        assertThat(serverDevice.postedReceiveCount()).isEqualTo(postedBaseline);
        assertThat(fabric.deviceCount()).isEqualTo(1);
        assertThat(server.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_RECEIVED)).isEqualTo(10);
        assertThat(server.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
    }

    /** The client sends {@code length} bytes, the server answers one byte. @return the server's handle of the client */
    private static long call(SimFabric fabric, long[] now, EfaEndpoint server, EfaEndpoint client, long toServer,
                             int length, int i) {
        final ByteBuffer request = SimPair.pattern(length, i);
        final ByteBuffer atServer = ByteBuffer.allocate(length);
        final ByteBuffer atClient = ByteBuffer.allocate(16);
        final List<CompletionEntry> serverDone = new ArrayList<>();
        final List<CompletionEntry> clientDone = new ArrayList<>();
        server.recvTagged(EfaEndpoint.ADDR_UNSPEC, atServer, TAG, 0, 1);
        client.recvTagged(EfaEndpoint.ADDR_UNSPEC, atClient, TAG, 0, 2);
        client.sendTagged(toServer, request, TAG, 3);
        run(fabric, now, server, client, serverDone, clientDone, () -> serverDone.size() == 1);
        final CompletionEntry call = serverDone.get(0);
        assertThat(call.ok()).isTrue();
        assertThat(atServer).isEqualTo(request);
        server.sendTagged(call.source(), ByteBuffer.wrap(new byte[] {(byte) i}), TAG, 4);
        run(fabric, now, server, client, serverDone, clientDone,
                () -> serverDone.size() == 2 && clientDone.size() == 2);
        assertThat(serverDone.get(1).ok()).isTrue();
        assertThat(clientDone).allMatch(CompletionEntry::ok);
        assertThat(atClient.get(0)).isEqualTo((byte) i);
        return call.source();
    }

    private static Map<EndpointGauge, Long> gauges(EfaEndpoint endpoint) {
        final Map<EndpointGauge, Long> values = new EnumMap<>(EndpointGauge.class);
        for (EndpointGauge gauge : EndpointGauge.values()) {
            values.put(gauge, endpoint.statistics().gauge(gauge));
        }
        return values;
    }

    private static void run(SimFabric fabric, long[] now, EfaEndpoint server, EfaEndpoint client,
                            List<CompletionEntry> serverDone, List<CompletionEntry> clientDone, BooleanSupplier done) {
        for (int i = 0; i < 1_000_000; i++) {
            if (done.getAsBoolean()) {
                return;
            }
            now[0] += SimPair.STEP_NS;
            fabric.progress(now[0]);
            server.progress(now[0]);
            server.poll(serverDone::add, Integer.MAX_VALUE);
            if (client != null) {
                client.progress(now[0]);
                client.poll(clientDone::add, Integer.MAX_VALUE);
            }
        }
        fail("no progress: server completed " + serverDone + ", client " + clientDone);
    }
}
