package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.on;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.receives;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.device.udp.UdpCounter;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.Fabrics;
import org.rpcrdma4j.fabric.conformance.EventRecorder;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * The UDP fabric is found by the name {@code udp}, binds the address it is given, and writes its
 * address, connid included, as text its peers read back; its progress thread sleeps while idle, and
 * the device wakes it; its statistics show its device's counters, and a system property switches on
 * its device's faults, the hook a test uses in a process it starts.
 */
class UdpFabricProviderTest {

    private final UdpFabricProvider udp = new UdpFabricProvider();

    @Test
    void itIsFoundByItsNameAndBindsAnAddressInBothRoles() throws Exception {
        assertThat(Fabrics.named("udp")).isInstanceOf(UdpFabricProvider.class);
        assertThat(udp.needsListenAddress()).isTrue();
        assertThat(udp.deviceProfiles()).as("the UDP device is built with what a profile says")
                .containsExactlyInAnyOrder(DeviceProfile.values());
        assertThatThrownBy(() -> udp.open(FabricOptions.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs the address of this host");
    }

    @Test
    void aFabricsAddressAsTextIsReadBackAsThatAddress() throws Exception {
        try (Fabric fabric = udp.open(FabricOptions.DEFAULT.listening("127.0.0.1:0"))) {
            FabricAddress address = fabric.localAddress();
            String text = udp.format(address);

            assertThat(text).matches("127\\.0\\.0\\.1:\\d+/\\p{XDigit}+");
            assertThat(udp.peer(text)).isEqualTo(address);
            assertThat(address.inetAddress().getHostAddress()).isEqualTo("127.0.0.1");
        }
    }

    @Test
    void aPeerWithoutItsConnidOrWithABadOneIsRefused() {
        assertThatThrownBy(() -> udp.peer("127.0.0.1:20049")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the connid is missing");
        assertThatThrownBy(() -> udp.peer("127.0.0.1:20049/xyz")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a connid");
        assertThatThrownBy(() -> udp.peer("127.0.0.1:70000/1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("out of range");
    }

    /**
     * A progress thread that polled a device filling its queue from another thread found a small
     * call's messages only at its next poll, after a park or a yield of its backoff (issue 23); now it
     * parks with no timeout, and only the device's notification or a command wakes it.
     */
    @Test
    void anIdleFabricsProgressThreadSleepsUntilItsDeviceWakesIt() throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(1);
        try (Fabric server = udp.open(FabricOptions.DEFAULT.listening("127.0.0.1:0"));
             Fabric client = udp.open(FabricOptions.DEFAULT.listening("127.0.0.1:0"))) {
            Thread serving = progressThread(server);
            Thread calling = progressThread(client);
            RdmaRpcSvc svc = new RdmaRpcSvcBuilder().withFabric(server).withWorkerThreadExecutionService(workers)
                    .withRpcService(TestProgram.PROGRAM, new TestProgram()).build();
            svc.start();
            try (RdmaRpcClient rpc = RdmaRpcClient.builder(client, server.localAddress()).connect()) {
                RpcCall call = new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(),
                        new RpcAuthTypeNone(), rpc.transport());
                for (int i = 0; i < 10; i++) {
                    HangGuard.waitFor(() -> sleeps(serving) && sleeps(calling));
                    // The server's thread sleeps: only its device's notification can tell it of the call.
                    call.call(TestProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, HangGuard.SECONDS,
                            TimeUnit.SECONDS);
                }
            } finally {
                svc.stop();
            }
        } finally {
            workers.shutdownNow();
        }
    }

    private static Thread progressThread(Fabric fabric) throws Exception {
        CompletableFuture<Thread> thread = new CompletableFuture<>();
        fabric.execute(() -> thread.complete(Thread.currentThread()));
        return thread.get(HangGuard.SECONDS, TimeUnit.SECONDS);
    }

    /** @return whether the thread is parked without a timeout (a backoff's park has one) */
    private static boolean sleeps(Thread thread) {
        return thread.getState() == Thread.State.WAITING;
    }

    @Test
    void theFaultsPropertyDuplicatesWhatTheDeviceSendsAndTheFabricsCountersShowIt() throws Exception {
        ConnectPrivateData data = new ConnectPrivateData(false, 4096, 4096);
        try (Fabric server = udp.open(FabricOptions.DEFAULT.listening("127.0.0.1:0"));
             Fabric client = openWithFaults("duplicate=1")) {
            on(server, () -> {
                server.listen(request -> request.accept(data, receives(1, 4096), new EventRecorder()));
                return null;
            });
            EventRecorder clientEvents = new EventRecorder();
            on(client, () -> client.connect(server.localAddress(), data, receives(1, 4096), clientEvents));
            clientEvents.established.get(HangGuard.SECONDS, TimeUnit.SECONDS);

            String duplicated = EfaFabricStatistics.DEVICE_PREFIX + UdpCounter.FAULT_DUPLICATED.name();
            String dropped = EfaFabricStatistics.DEVICE_PREFIX + UdpCounter.DUPLICATES.name();
            assertThat(client.statistics().counters().get(duplicated)).as("every datagram sent twice").isPositive();
            assertThat(server.statistics().counters().get(duplicated)).as("the server's device has no faults")
                    .isZero();
            assertThat(server.statistics().counters().get(dropped)).as("the copies, dropped by the server")
                    .isPositive();
        }
    }

    @Test
    void aFaultsPropertyThatCannotBeReadIsRefused() {
        assertThatThrownBy(() -> openWithFaults("jitter=1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jitter");
    }

    /** Opens a fabric with the faults property set, as a process started with it would. */
    private Fabric openWithFaults(String faults) throws Exception {
        System.setProperty(UdpFabricProvider.FAULTS_PROPERTY, faults);
        try {
            return udp.open(FabricOptions.DEFAULT.listening("127.0.0.1:0"));
        } finally {
            System.clearProperty(UdpFabricProvider.FAULTS_PROPERTY);
        }
    }
}
