package org.rpcrdma4j.efa.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimFabric;

/** The address vector across a peer restart (EFA RDM protocol v4 §4.4, "QP collision") and removal. */
class AddressVectorTest {

    private static final Gid GID = new Gid(0xfe80_0000_0000_0000L, 9);

    private final SimDevice device = new SimFabric(1).createDevice(new Gid(0xfe80_0000_0000_0000L, 1), 1);
    private final List<Peer> restarted = new ArrayList<>();
    private final AddressVector av = new AddressVector(device, EndpointConfig.DEFAULT, new Random(1), restarted::add);

    @Test
    void aNewConnidOnAKnownQpnBecomesANewPeerAndTheOldConnidStaysRetired() {
        final EndpointAddress firstAddress = new EndpointAddress(GID, 5, 0x1111);
        final Peer first = av.insert(firstAddress);

        final Peer second = av.insert(new EndpointAddress(GID, 5, 0x2222));

        assertThat(second.fiAddr).isNotEqualTo(first.fiAddr);
        assertThat(av.find(GID, 5)).isSameAs(second);
        assertThat(av.get(first.fiAddr)).isSameAs(first);
        assertThat(restarted).containsExactly(first);
        assertThat(av.isRetired(firstAddress)).isTrue();
        // Inserting the dead address again gives its old handle, never the current place back.
        assertThat(av.insert(firstAddress)).isSameAs(first);
        assertThat(av.find(GID, 5)).isSameAs(second);
        // A third incarnation is a new peer again.
        final Peer third = av.insert(new EndpointAddress(GID, 5, 0x3333));
        assertThat(third.fiAddr).isNotIn(first.fiAddr, second.fiAddr);
        assertThat(restarted).containsExactly(first, second);
    }

    @Test
    void aRetiredAddressInsertedAfterItsPeerWasRemovedIsBornRestarted() {
        final EndpointAddress firstAddress = new EndpointAddress(GID, 5, 0x1111);
        final Peer first = av.insert(firstAddress);
        av.insert(new EndpointAddress(GID, 5, 0x2222));
        av.remove(first);

        final Peer again = av.insert(firstAddress);

        assertThat(again.state).isEqualTo(Peer.State.RESTARTED);
        assertThat(av.find(GID, 5).address.connid()).isEqualTo(0x2222);
    }

    @Test
    void removingTheLastPeerOfAGidDestroysItsAddressHandleAndFreesItsHandleForReuse() {
        final Peer a = av.insert(new EndpointAddress(GID, 5, 1));
        final Peer b = av.insert(new EndpointAddress(GID, 6, 2));
        assertThat(device.addressHandleCount()).isEqualTo(1);

        av.remove(a);
        assertThat(device.addressHandleCount()).isEqualTo(1);
        av.remove(b);

        assertThat(device.addressHandleCount()).isZero();
        assertThat(av.size()).isZero();
        assertThat(av.insert(new EndpointAddress(GID, 7, 3)).fiAddr).isIn(a.fiAddr, b.fiAddr);
        assertThat(device.addressHandleCount()).isEqualTo(1);
    }
}
