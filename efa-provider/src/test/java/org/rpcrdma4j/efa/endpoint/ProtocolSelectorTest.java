package org.rpcrdma4j.efa.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.ExtraFeature;

class ProtocolSelectorTest {

    private static final int MTU = 8192;
    private static final long GIB = 1L << 30;
    private static final int MIN_READ = EndpointConfig.DEFAULT_MIN_READ_MESSAGE_SIZE;

    private final ProtocolSelector selector =
            new ProtocolSelector(EndpointConfig.DEFAULT, MTU, true, true, GIB, () -> 0);

    static Peer peer() {
        return new Peer(0, new EndpointAddress(new Gid(1, 2), 3, 4), null, new ReorderWindow(16, 0),
                new Backoff(1, 2, 4, new Random(0)), 0);
    }

    @Test
    void beforeTheHandshakeTheRawAddressHeaderShrinksTheEagerLimit() {
        // EAGER_MSGRTM 8 bytes + raw-address header 40 (DISCREPANCIES.md A4).
        assertThat(selector.eagerLimit(peer(), false, false, false)).isEqualTo(MTU - 8 - 40);
        assertThat(selector.eagerLimit(peer(), true, true, false)).isEqualTo(MTU - 16 - 40 - 8);
    }

    @Test
    void afterTheHandshakeTheConnidHeaderReplacesTheRawAddressIfRequested() {
        final Peer peer = peer();
        peer.handshakeReceived = true;
        assertThat(selector.eagerLimit(peer, false, false, false)).isEqualTo(MTU - 8);
        peer.extraInfo = ExtraFeature.CONNID_HEADER.mask();
        assertThat(selector.eagerLimit(peer, false, false, false)).isEqualTo(MTU - 8 - 4);
        peer.extraInfo |= ExtraFeature.CONSTANT_HEADER_LENGTH.mask();
        assertThat(selector.eagerLimit(peer, false, false, false)).as("constant header length keeps the raw address")
                .isEqualTo(MTU - 8 - 40);
    }

    @Test
    void eagerUpToThePacketThenMediumUpTo64KiBThenLongCts() {
        final Peer peer = peer();
        final int eager = selector.eagerLimit(peer, false, false, false);
        assertThat(selector.select(0, peer, false, false, false)).isEqualTo(Protocol.EAGER);
        assertThat(selector.select(eager, peer, false, false, false)).isEqualTo(Protocol.EAGER);
        assertThat(selector.select(eager + 1, peer, false, false, false)).isEqualTo(Protocol.MEDIUM);
        assertThat(selector.select(65536, peer, false, false, false)).isEqualTo(Protocol.MEDIUM);
        assertThat(selector.select(65537, peer, false, false, false)).isEqualTo(Protocol.LONG_CTS);
    }

    @Test
    void configuredThresholdsApply() {
        final ProtocolSelector small = new ProtocolSelector(
                EndpointConfig.DEFAULT.withEagerMaxSize(100).withMediumMaxSize(1000), MTU, true, true, GIB, () -> 0);
        assertThat(small.select(100, peer(), false, false, false)).isEqualTo(Protocol.EAGER);
        assertThat(small.select(101, peer(), false, false, false)).isEqualTo(Protocol.MEDIUM);
        assertThat(small.select(1001, peer(), false, false, false)).isEqualTo(Protocol.LONG_CTS);
    }

    @Test
    void longReadFromTheThresholdOnOnlyWhenBothSidesReadAfterTheHandshake() {
        final Peer peer = peer();
        assertThat(selector.select(MIN_READ, peer, false, false, false)).as("features unknown before the handshake")
                .isEqualTo(Protocol.LONG_CTS);
        peer.handshakeReceived = true;
        assertThat(selector.select(MIN_READ, peer, false, false, false)).as("peer without RDMA read")
                .isEqualTo(Protocol.LONG_CTS);
        peer.extraInfo = ExtraFeature.RDMA_READ.mask();
        assertThat(selector.select(MIN_READ - 1, peer, false, false, false)).isEqualTo(Protocol.LONG_CTS);
        assertThat(selector.select(MIN_READ, peer, true, true, false)).isEqualTo(Protocol.LONG_READ);
        assertThat(new ProtocolSelector(EndpointConfig.DEFAULT, MTU, false, true, GIB, () -> 0)
                .select(MIN_READ, peer, false, false, false))
                .as("this side does not read").isEqualTo(Protocol.LONG_CTS);
    }

    @Test
    void aSmallThresholdTakesPrecedenceOverEagerAndMediumAsInLibfabric() {
        final Peer peer = peer();
        peer.handshakeReceived = true;
        peer.extraInfo = ExtraFeature.RDMA_READ.mask();
        final ProtocolSelector small = new ProtocolSelector(EndpointConfig.DEFAULT.withMinReadMessageSize(1000), MTU,
                true, true, GIB, () -> 0);
        assertThat(small.select(999, peer, false, false, false)).isEqualTo(Protocol.EAGER);
        assertThat(small.select(1000, peer, false, false, false)).isEqualTo(Protocol.LONG_READ);
    }

    @Test
    void runtingReadWhenThePeerAnnouncedItNothingIsBeingReadAndTheBudgetLeavesARunt() {
        final int runtSize = 300_000;
        final int[] beingRead = {0};
        final ProtocolSelector runting = new ProtocolSelector(EndpointConfig.DEFAULT.withRuntSize(runtSize), MTU,
                true, true, GIB, () -> beingRead[0]);
        final Peer peer = peer();
        peer.handshakeReceived = true;
        peer.extraInfo = ExtraFeature.RDMA_READ.mask();
        assertThat(runting.select(MIN_READ, peer, false, false, false)).as("peer without RUNT").isEqualTo(Protocol.LONG_READ);

        peer.extraInfo |= ExtraFeature.RUNT.mask();
        assertThat(runting.select(MIN_READ - 1, peer, false, false, false)).isEqualTo(Protocol.LONG_CTS);
        assertThat(runting.select(MIN_READ, peer, true, false, false)).isEqualTo(Protocol.RUNT_READ);
        assertThat(runting.select(MIN_READ, peer, true, false, true)).as("delivery complete: never runting read")
                .isEqualTo(Protocol.LONG_READ);
        assertThat(runting.runtLength(peer, MIN_READ)).isEqualTo(runtSize);
        assertThat(selector.select(MIN_READ, peer, false, false, false)).as("runt size 0, the default for host memory")
                .isEqualTo(Protocol.LONG_READ);

        peer.runtBytesInFlight = runtSize - 15;
        assertThat(runting.runtLength(peer, MIN_READ)).as("the budget left, rounded down to 8").isEqualTo(8);
        peer.runtBytesInFlight = runtSize - 7;
        assertThat(runting.runtLength(peer, MIN_READ)).isZero();
        assertThat(runting.select(MIN_READ, peer, false, false, false)).isEqualTo(Protocol.LONG_READ);
        peer.runtBytesInFlight = runtSize + 1;
        assertThat(runting.runtLength(peer, MIN_READ)).isZero();

        peer.runtBytesInFlight = 0;
        beingRead[0] = 1;
        assertThat(runting.select(MIN_READ, peer, false, false, false)).as("a message is being read")
                .isEqualTo(Protocol.LONG_READ);
        beingRead[0] = 0;
        final ProtocolSelector small = new ProtocolSelector(EndpointConfig.DEFAULT.withRuntSize(runtSize)
                .withMinReadMessageSize(1000), MTU, true, true, GIB, () -> 0);
        assertThat(small.select(1000, peer, false, false, false)).isEqualTo(Protocol.RUNT_READ);
        assertThat(small.runtLength(peer, 1003)).as("a message shorter than the budget, rounded down to 8")
                .isEqualTo(1000);
    }

    @Test
    void runtPacketsAreCutAsTheProviderCutsThem() {
        // One packet holds it.
        assertThat(RuntRead.segmentLength(800, 0, 1000)).isEqualTo(800);
        // 2500 in packets of at most 1000: three of 834 rounded down to 832, and the 4 left go in the last.
        assertThat(RuntRead.segmentLength(2500, 0, 1000)).isEqualTo(832);
        assertThat(RuntRead.segmentLength(2500, 832, 1000)).isEqualTo(832);
        assertThat(RuntRead.segmentLength(2500, 1664, 1000)).isEqualTo(836);
        // 2016 in packets of at most 1010: two of 1008, nothing left.
        assertThat(RuntRead.segmentLength(2016, 0, 1010)).isEqualTo(1008);
        assertThat(RuntRead.segmentLength(2016, 1008, 1010)).isEqualTo(1008);
        // 2024 in packets of at most 1020: two of 1008 and 8 left, which the last takes.
        assertThat(RuntRead.segmentLength(2024, 0, 1020)).isEqualTo(1008);
        assertThat(RuntRead.segmentLength(2024, 1008, 1020)).isEqualTo(1016);
        // 2040 in packets of at most 1020: two of 1016; the 8 left do not fit the last and go in a third.
        assertThat(RuntRead.segmentLength(2040, 0, 1020)).isEqualTo(1016);
        assertThat(RuntRead.segmentLength(2040, 1016, 1020)).isEqualTo(1016);
        assertThat(RuntRead.segmentLength(2040, 2032, 1020)).isEqualTo(8);
    }

    @Test
    void aMessageNeedingMoreReadIovEntriesThanThePeerAcceptsGoesLongCts() {
        final Peer peer = peer();
        peer.handshakeReceived = true;
        peer.extraInfo = ExtraFeature.RDMA_READ.mask();
        // Four entries of at most 1 MiB each are the most a peer accepts (EFA_RDM_IOV_LIMIT).
        final ProtocolSelector smallRdma = new ProtocolSelector(EndpointConfig.DEFAULT, MTU, true, true, 1 << 20, () -> 0);
        assertThat(smallRdma.select(4 << 20, peer, false, false, false)).isEqualTo(Protocol.LONG_READ);
        assertThat(smallRdma.select((4 << 20) + 1, peer, false, false, false)).isEqualTo(Protocol.LONG_CTS);
    }

    @Test
    void rmaGoesDirectWhenBothEndsAnnouncedTheFeatureElseEmulatedByTheProvidersThresholds() {
        final Peer peer = peer();
        peer.handshakeReceived = true;
        peer.extraInfo = ExtraFeature.CONNID_HEADER.mask();
        // After the handshake an EAGER_RTW to this peer has 8 + 24 + 4 header bytes, 8 more with CQ data.
        final int eager = MTU - 36;
        assertThat(selector.selectRma(rma(peer, true, MTU - 25, false))).isEqualTo(Protocol.SHORT_RTR);
        assertThat(selector.selectRma(rma(peer, true, MTU - 24, false))).isEqualTo(Protocol.LONGCTS_RTR);
        assertThat(selector.selectRma(rma(peer, false, eager, false))).isEqualTo(Protocol.EAGER_RTW);
        assertThat(selector.selectRma(rma(peer, false, eager + 1, false))).isEqualTo(Protocol.LONGCTS_RTW);
        assertThat(selector.selectRma(rma(peer, false, eager - 8, true))).isEqualTo(Protocol.EAGER_RTW);
        assertThat(selector.selectRma(rma(peer, false, eager - 7, true))).isEqualTo(Protocol.LONGCTS_RTW);

        peer.extraInfo |= ExtraFeature.RDMA_READ.mask();
        final int minRw = EndpointConfig.DEFAULT_MIN_READ_WRITE_SIZE;
        assertThat(selector.selectRma(rma(peer, true, 1, false))).isEqualTo(Protocol.DIRECT_READ);
        assertThat(selector.selectRma(rma(peer, false, minRw - 1, false))).isEqualTo(Protocol.LONGCTS_RTW);
        assertThat(selector.selectRma(rma(peer, false, minRw, false))).isEqualTo(Protocol.LONGREAD_RTW);

        peer.extraInfo |= ExtraFeature.RDMA_WRITE.mask();
        assertThat(selector.selectRma(rma(peer, false, 1, false))).isEqualTo(Protocol.DIRECT_WRITE);
        assertThat(selector.selectRma(rma(peer, false, 1, true))).as("no write with immediate")
                .isEqualTo(Protocol.EAGER_RTW);
        assertThat(new ProtocolSelector(EndpointConfig.DEFAULT, MTU, true, false, GIB, () -> 0)
                .selectRma(rma(peer, false, 1, false))).as("this side does not write").isEqualTo(Protocol.EAGER_RTW);
    }

    @Test
    void deliveryCompleteLowersOnlyTheEagerLimitsByItsLongerHeaders() {
        final Peer peer = peer();
        peer.handshakeReceived = true;
        peer.extraInfo = ExtraFeature.CONNID_HEADER.mask() | ExtraFeature.DELIVERY_COMPLETE.mask();
        // DC_EAGER_MSGRTM 16 bytes, DC_EAGER_TAGRTM 24 (8 more than without DC), the connid 4, CQ data 8.
        assertThat(selector.eagerLimit(peer, false, false, true)).isEqualTo(MTU - 16 - 4);
        assertThat(selector.eagerLimit(peer, true, true, true)).isEqualTo(MTU - 24 - 8 - 4);
        final int eager = MTU - 20;
        assertThat(selector.select(eager, peer, false, false, true)).isEqualTo(Protocol.EAGER);
        assertThat(selector.select(eager + 1, peer, false, false, true)).isEqualTo(Protocol.MEDIUM);
        assertThat(selector.select(65536, peer, false, false, true)).isEqualTo(Protocol.MEDIUM);
        assertThat(selector.select(65537, peer, false, false, true)).isEqualTo(Protocol.LONG_CTS);
        peer.extraInfo |= ExtraFeature.RDMA_READ.mask();
        assertThat(selector.select(MIN_READ, peer, false, false, true)).as("long-read is delivery complete as it is")
                .isEqualTo(Protocol.LONG_READ);

        // DC_EAGER_RTW: 16 bytes, one rma_iov of 24, the connid 4; long-read from the same threshold.
        peer.extraInfo &= ~ExtraFeature.RDMA_READ.mask();
        final int eagerWrite = MTU - 44;
        assertThat(selector.selectRma(dc(rma(peer, false, eagerWrite, false)))).isEqualTo(Protocol.EAGER_RTW);
        assertThat(selector.selectRma(dc(rma(peer, false, eagerWrite + 1, false)))).isEqualTo(Protocol.LONGCTS_RTW);
        assertThat(selector.selectRma(rma(peer, false, eagerWrite + 1, false))).as("8 bytes more without DC")
                .isEqualTo(Protocol.EAGER_RTW);
        peer.extraInfo |= ExtraFeature.RDMA_READ.mask();
        final int minRw = EndpointConfig.DEFAULT_MIN_READ_WRITE_SIZE;
        assertThat(selector.selectRma(dc(rma(peer, false, minRw, false)))).isEqualTo(Protocol.LONGREAD_RTW);
    }

    private static TxEntry dc(TxEntry op) {
        op.deliveryComplete = true;
        return op;
    }

    private static TxEntry rma(Peer peer, boolean read, long length, boolean cqData) {
        final TxEntry op = new TxEntry();
        op.peer = peer;
        op.kind = read ? CompletionEntry.Kind.READ : CompletionEntry.Kind.WRITE;
        op.remote = new RmaIov(0, length, 1);
        op.hasCqData = cqData;
        return op;
    }
}
