package org.rpcrdma4j.fabric.rc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * The simulated RC network's public side: a fabric opens at the address it is given, which must be one
 * of its own. What the network does with connections and memory, the RC fabric's tests check.
 */
class SimulatedRcTest {

    @Test
    void aFabricOpensAtTheAddressItIsGivenNotAtTheWildcard() {
        SimulatedRc network = new SimulatedRc();
        InetSocketAddress at = new InetSocketAddress("10.0.0.1", RcFabric.NFS_RDMA_PORT);

        try (RcFabric fabric = network.open(at)) {
            assertThat(RcFabric.socketAddressOf(fabric.localAddress())).isEqualTo(at);
        }
        assertThatThrownBy(() -> network.open(new InetSocketAddress(RcFabric.NFS_RDMA_PORT)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("an address of its own");
    }
}
