package org.rpcrdma4j.efa.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimFabric;

/** The address vector across a peer restart (efa-rdm-protocol-v4.md §4.4, "QP collision"). */
class AddressVectorTest {

    private static final Gid GID = new Gid(0xfe80_0000_0000_0000L, 9);

    private final AddressVector av = new AddressVector(new SimFabric(1).createDevice(new Gid(0xfe80_0000_0000_0000L, 1), 1),
            EndpointConfig.DEFAULT, new Random(1));

    @Test
    void aNewConnidOnAKnownQpnBecomesANewPeerAndTheOldConnidStaysRetired() {
        final Peer first = av.insert(new EndpointAddress(GID, 5, 0x1111));

        final Peer second = av.replace(new EndpointAddress(GID, 5, 0x2222));

        assertThat(second.fiAddr).isNotEqualTo(first.fiAddr);
        assertThat(av.find(GID, 5)).isSameAs(second);
        assertThat(av.get(first.fiAddr)).isSameAs(first);
        // A late raw-address packet of the dead queue pair must not take the address back.
        assertThat(av.replace(new EndpointAddress(GID, 5, 0x1111))).isNull();
        assertThat(av.find(GID, 5)).isSameAs(second);
        // A third incarnation is a new peer again.
        assertThat(av.replace(new EndpointAddress(GID, 5, 0x3333)).fiAddr).isNotIn(first.fiAddr, second.fiAddr);
    }
}
