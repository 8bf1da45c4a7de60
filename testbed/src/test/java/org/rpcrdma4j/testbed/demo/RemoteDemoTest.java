package org.rpcrdma4j.testbed.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.junit.jupiter.api.Test;

/** The remote demo's refusals and credentials: a server with no rpcbind is unreachable, said plainly. */
class RemoteDemoTest {

    @Test
    void noRpcbindIsAnUnreachableServer() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        InetSocketAddress nobody = new InetSocketAddress(InetAddress.getLoopbackAddress(), closedPort);

        assertThatThrownBy(() -> RemoteDemo.mountAddress(nobody))
                .isInstanceOf(RemoteDemo.UnreachableException.class)
                .hasMessageContaining("rpcbind at " + nobody);
    }

    @Test
    void theCredentialIsThisProcesssUnixUser() {
        RpcAuthTypeUnix auth = RemoteDemo.unixCredential();

        assertThat(auth.uid()).isEqualTo(new com.sun.security.auth.module.UnixSystem().getUid());
        assertThat(auth.gids().length).isBetween(0, 16);
    }
}
