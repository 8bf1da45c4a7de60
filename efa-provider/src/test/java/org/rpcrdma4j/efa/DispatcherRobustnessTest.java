package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimDevice;

/** Packets that cannot be processed are counted and dropped; the endpoint carries on. */
class DispatcherRobustnessTest {

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void malformedAndUnidentifiablePacketsAreCountedAndDropped() {
        final SimPair pair = new SimPair(seed.seed());
        final SimDevice stranger = pair.fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
        final AddressHandle ah = stranger.createAddressHandle(pair.b.address().gid());
        final int qpn = pair.b.address().qpn();
        final int qkey = pair.b.address().connid();
        stranger.postSend(ah, qpn, qkey, ByteBuffer.wrap(new byte[] {64, 3, 0, 0, 0, 0, 0, 0}), 1);  // version 3
        // An EAGER_MSGRTM (type 64, version 4) without the raw-address header, from an unknown sender.
        stranger.postSend(ah, qpn, qkey, ByteBuffer.wrap(new byte[] {64, 4, 4, 0, 0, 0, 0, 0, 42}), 2);
        // A CTS naming no operation cannot even be attributed: the sender is unknown.
        stranger.postSend(ah, qpn, qkey, ByteBuffer.wrap(new byte[] {99, 4, 0, 0}), 3);
        pair.step();
        pair.step();

        assertThat(pair.b.counter(EndpointCounter.MALFORMED_PACKETS)).isEqualTo(2);
        assertThat(pair.b.counter(EndpointCounter.UNKNOWN_PEER_PACKETS)).isEqualTo(1);
        EagerMessagingTest.assertMessagesArriveInOrder(pair, 5);
    }
}
