package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.Fabrics;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The UDP fabric is found by the name {@code udp}, binds the address it is given, and writes its
 * address, connid included, as text its peers read back; its progress thread sleeps while idle, and
 * the device wakes it.
 */
class UdpFabricProviderTest {

    private final UdpFabricProvider udp = new UdpFabricProvider();

    @Test
    void itIsFoundByItsNameAndBindsAnAddressInBothRoles() throws Exception {
        assertThat(Fabrics.named("udp")).isInstanceOf(UdpFabricProvider.class);
        assertThat(udp.needsListenAddress()).isTrue();
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
}
