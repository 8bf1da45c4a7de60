package org.rpcrdma4j.testbed.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.portmap.GenericPortmapClient;
import org.dcache.oncrpc4j.portmap.OncRpcPortmap;
import org.dcache.oncrpc4j.portmap.OncRpcbindServer;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.junit.jupiter.api.Test;

/** MOUNT registered with an rpcbind and removed again, and a silent rpcbind never holding a server up. */
class RpcbindRegistrationTest {

    private static final OncRpcProgram MOUNT = new OncRpcProgram(100005, 3);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void registersWithAnRpcbindAndUnregistersAtClose() throws Exception {
        // oncrpc4j's own rpcbind, which serves portmap version 2 only: the registration falls back to it.
        OncRpcSvc rpcbind = new OncRpcSvcBuilder().withUDP().withBindAddress(LOOPBACK.getHostAddress()).withPort(0)
                .withoutAutoPublish().withSameThreadIoStrategy()
                .withRpcService(new OncRpcProgram(OncRpcPortmap.PORTMAP_PROGRAMM, OncRpcPortmap.PORTMAP_V2),
                        new OncRpcbindServer())
                .build();
        rpcbind.start();
        try {
            InetSocketAddress at = rpcbind.getInetSocketAddress(IpProtocolType.UDP);

            RpcbindRegistration registration = RpcbindRegistration.register(at, MOUNT,
                    new InetSocketAddress(LOOPBACK, 20048), Duration.ofSeconds(5));
            assertThat(port(at)).endsWith(".78.80"); // port 20048 = 78 * 256 + 80

            registration.close();
            assertThat(port(at)).as("gone once closed: port 0").endsWith(".0.0");
        } finally {
            rpcbind.stop();
        }
    }

    @Test
    void anRpcbindThatNeverAnswersIsGivenUpOn() throws Exception {
        try (DatagramSocket silent = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
            AtomicInteger asked = new AtomicInteger();
            Thread listener = new Thread(() -> drain(silent, asked));
            listener.start();
            InetSocketAddress at = (InetSocketAddress) silent.getLocalSocketAddress();

            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                RpcbindRegistration.register(at, MOUNT, new InetSocketAddress(LOOPBACK, 20048), Duration.ofMillis(200))
                        .close();
            });
            silent.close();
            listener.join();

            // Each of register and close asks version 4's NULL, then sends version 2's SET or UNSET, then gives up.
            assertThat(asked).hasValue(4);
        }
    }

    /** @return the universal address rpcbind gives for MOUNT over TCP */
    private static String port(InetSocketAddress rpcbind) throws Exception {
        try (OncRpcClient client = new OncRpcClient(rpcbind.getAddress(), IpProtocolType.UDP, rpcbind.getPort())) {
            return new GenericPortmapClient(client.connect()).getPort(MOUNT.getNumber(), MOUNT.getVersion(), "tcp");
        }
    }

    private static void drain(DatagramSocket socket, AtomicInteger asked) {
        byte[] datagram = new byte[2048];
        try {
            while (true) {
                socket.receive(new DatagramPacket(datagram, datagram.length));
                asked.incrementAndGet();
            }
        } catch (IOException e) {
            // closed
        }
    }
}
