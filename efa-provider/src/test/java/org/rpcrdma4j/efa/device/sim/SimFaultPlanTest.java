package org.rpcrdma4j.efa.device.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.efa.device.sim.Sim.drain;
import static org.rpcrdma4j.efa.device.sim.Sim.gid;
import static org.rpcrdma4j.efa.device.sim.Sim.packet;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.SeedWatcher;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;

class SimFaultPlanTest {

    private static final int PACKETS = 200;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    /**
     * Sends {@link #PACKETS} packets from one device to another under {@code faults}, progressing
     * every 100 ns, and returns the order in which the receiver got them (by the sender's wrId,
     * carried as the packet's payload).
     */
    private static List<Long> deliveryOrder(long seed, FaultPlan faults) {
        final SimFabric fabric = new SimFabric(seed);
        final SimDevice a = fabric.createDevice(gid(1), 1, SimDeviceConfig.DEFAULT.withFaults(faults));
        final SimDevice b = fabric.createDevice(gid(2), 2);
        final AddressHandle ah = a.createAddressHandle(b.address().gid());
        final ByteBuffer[] buffers = new ByteBuffer[PACKETS];
        for (int i = 0; i < PACKETS; i++) {
            buffers[i] = ByteBuffer.allocate(Long.BYTES);
            b.postRecv(buffers[i], i);
            a.postSend(ah, 2, b.address().qkey(), ByteBuffer.allocate(Long.BYTES).putLong(0, i), i);
        }
        for (long now = 0; fabric.inFlight() > 0; now += 100) {
            fabric.progress(now);
        }
        assertThat(drain(a)).extracting(Completion::status).containsOnly(CompletionStatus.OK);
        return drain(b).stream().map(c -> buffers[(int) c.wrId()].getLong(0)).toList();
    }

    private static List<Long> inPostOrder() {
        return LongStream.range(0, PACKETS).boxed().toList();
    }

    @Test
    void withoutFaultsPacketsArriveInPostOrder() {
        assertThat(deliveryOrder(seed.seed(), FaultPlan.NONE)).isEqualTo(inPostOrder());
    }

    @Test
    void reorderingIsObservedAndEveryPacketStillArrivesExactlyOnce() {
        final List<Long> order = deliveryOrder(seed.seed(), FaultPlan.NONE.withReorder(0.5, 8));

        assertThat(order).isNotEqualTo(inPostOrder());
        assertThat(order).containsExactlyInAnyOrderElementsOf(inPostOrder());
    }

    @Test
    void delayRangeReordersAcrossProgressCalls() {
        final List<Long> order = deliveryOrder(seed.seed(), FaultPlan.NONE.withDelay(0, 10_000));

        assertThat(order).isNotEqualTo(inPostOrder());
        assertThat(order).containsExactlyInAnyOrderElementsOf(inPostOrder());
    }

    @Test
    void theSameSeedGivesTheSameDeliveryOrder() {
        final FaultPlan faults = FaultPlan.NONE.withDelay(0, 5_000).withReorder(0.3, 4);

        assertThat(deliveryOrder(seed.seed(), faults)).isEqualTo(deliveryOrder(seed.seed(), faults));
    }

    @Test
    void anotherSeedGivesAnotherDeliveryOrder() {
        final FaultPlan faults = FaultPlan.NONE.withDelay(0, 5_000).withReorder(0.3, 4);

        assertThat(deliveryOrder(seed.seed(), faults)).isNotEqualTo(deliveryOrder(seed.seed() + 1, faults));
    }

    @Test
    void delayedPacketIsDeliveredWhenItsTimeComesAndNotBefore() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1,
                SimDeviceConfig.DEFAULT.withFaults(FaultPlan.NONE.withDelay(1_000, 1_000)));
        final SimDevice b = fabric.createDevice(gid(2), 2);
        b.postRecv(packet(8), 100);
        a.postSend(a.createAddressHandle(b.address().gid()), 2, b.address().qkey(), packet("x"), 1);

        assertThat(fabric.progress(999)).isZero();
        assertThat(drain(a)).isEmpty();
        assertThat(drain(b)).isEmpty();

        assertThat(fabric.progress(1_000)).isEqualTo(1);
        assertThat(drain(b)).hasSize(1);
        assertThat(drain(a)).hasSize(1);
    }

    @Test
    void delayCountsFromTheVirtualTimeOfThePost() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1,
                SimDeviceConfig.DEFAULT.withFaults(FaultPlan.NONE.withDelay(1_000, 1_000)));
        final SimDevice b = fabric.createDevice(gid(2), 2);
        b.postRecv(packet(8), 100);
        fabric.progress(5_000);
        a.postSend(a.createAddressHandle(b.address().gid()), 2, b.address().qkey(), packet("x"), 1);

        assertThat(fabric.progress(5_999)).isZero();
        assertThat(fabric.progress(6_000)).isEqualTo(1);
    }

    @Test
    void linkFaultsTakePrecedenceOverTheSendersOwn() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1,
                SimDeviceConfig.DEFAULT.withFaults(FaultPlan.NONE.withDelay(1_000, 1_000)));
        final SimDevice b = fabric.createDevice(gid(2), 2);
        final SimDevice c = fabric.createDevice(gid(3), 3);
        fabric.setLinkFaults(a, b, FaultPlan.NONE);
        b.postRecv(packet(8), 100);
        c.postRecv(packet(8), 100);
        a.postSend(a.createAddressHandle(b.address().gid()), 2, b.address().qkey(), packet("x"), 1);
        a.postSend(a.createAddressHandle(c.address().gid()), 3, c.address().qkey(), packet("x"), 2);

        fabric.progress(0);
        assertThat(drain(a)).extracting(Completion::wrId).containsExactly(1L);
        fabric.progress(1_000);
        assertThat(drain(a)).extracting(Completion::wrId).containsExactly(2L);
    }

    @Test
    void clearedLinkFaultsGiveBackTheSendersOwn() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1,
                SimDeviceConfig.DEFAULT.withFaults(FaultPlan.NONE.withDelay(1_000, 1_000)));
        final SimDevice b = fabric.createDevice(gid(2), 2);
        final AddressHandle ah = a.createAddressHandle(b.address().gid());
        b.postRecv(packet(8), 100);
        b.postRecv(packet(8), 101);
        fabric.setLinkFaults(a, b, FaultPlan.NONE);
        a.postSend(ah, 2, b.address().qkey(), packet("x"), 1);
        fabric.clearLinkFaults(a, b);
        a.postSend(ah, 2, b.address().qkey(), packet("x"), 2);

        fabric.progress(0);
        assertThat(drain(a)).extracting(Completion::wrId).containsExactly(1L);
        fabric.progress(1_000);
        assertThat(drain(a)).extracting(Completion::wrId).containsExactly(2L);
    }

    @Test
    void aDeviceThatClosesTakesItsLinkFaultsWithIt() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1);
        final SimDevice gone = fabric.createDevice(gid(2), 2);
        fabric.setLinkFaults(a, gone, FaultPlan.NONE.withRnr(1));
        gone.close();
        final SimDevice b = fabric.createDevice(gid(2), 2);
        b.postRecv(packet(8), 100);

        a.postSend(a.createAddressHandle(b.address().gid()), 2, b.address().qkey(), packet("x"), 1);
        fabric.progress(0);

        assertThat(drain(a)).extracting(Completion::status).containsExactly(CompletionStatus.OK);
        assertThat(b.dropped(DropReason.RNR)).isZero();
    }

    @Test
    void timeCannotGoBackwards() {
        final SimFabric fabric = new SimFabric(seed.seed());
        fabric.progress(10);
        assertThatThrownBy(() -> fabric.progress(9)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void restartKeepsTheQpnAndChangesTheQkey() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice b = fabric.createDevice(gid(2), 2);
        final DeviceAddress before = b.address();

        fabric.restart(b);

        assertThat(b.address().gid()).isEqualTo(before.gid());
        assertThat(b.address().qpn()).isEqualTo(before.qpn());
        assertThat(b.address().qkey()).isNotEqualTo(before.qkey());
    }

    @Test
    void afterARestartPacketsSentToTheOldQkeyAreDroppedAndToTheNewOneDelivered() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1);
        final SimDevice b = fabric.createDevice(gid(2), 2);
        final AddressHandle ah = a.createAddressHandle(b.address().gid());
        final int oldQkey = b.address().qkey();
        fabric.restart(b);
        b.postRecv(packet(8), 100);

        a.postSend(ah, 2, oldQkey, packet("old"), 1);
        fabric.progress(0);
        assertThat(drain(a)).extracting(Completion::status)
                .as("the receiving device drops it silently").containsExactly(CompletionStatus.OK);
        assertThat(drain(b)).isEmpty();
        assertThat(b.dropped(DropReason.STALE_QKEY)).isEqualTo(1);

        a.postSend(ah, 2, b.address().qkey(), packet("new"), 2);
        fabric.progress(0);
        assertThat(drain(b)).extracting(Completion::wrId).containsExactly(100L);
    }

    @Test
    void packetOnTheWireDuringARestartIsDropped() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1,
                SimDeviceConfig.DEFAULT.withFaults(FaultPlan.NONE.withDelay(1_000, 1_000)));
        final SimDevice b = fabric.createDevice(gid(2), 2);
        a.postSend(a.createAddressHandle(b.address().gid()), 2, b.address().qkey(), packet("x"), 1);
        fabric.restart(b);
        b.postRecv(packet(8), 100);

        fabric.progress(1_000);

        assertThat(drain(b)).isEmpty();
        assertThat(b.dropped(DropReason.STALE_QKEY)).isEqualTo(1);
    }

    @Test
    void restartForgetsReceivesHandlesAndRegistrations() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1);
        final SimDevice b = fabric.createDevice(gid(2), 2);
        final AddressHandle aToB = a.createAddressHandle(b.address().gid());
        final AddressHandle bToA = b.createAddressHandle(a.address().gid());
        final MemoryRegion exposed = b.registerMemory(ByteBuffer.allocate(64), EnumSet.of(Access.REMOTE_READ));
        final MemoryRegion into = a.registerMemory(ByteBuffer.allocate(64), EnumSet.of(Access.LOCAL_WRITE));
        b.postRecv(packet(8), 100);

        fabric.restart(b);

        assertThatThrownBy(() -> b.postSend(bToA, 1, a.address().qkey(), packet("y"), 3))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(b.addressHandleCount()).isZero();
        assertThat(b.registrationCount()).isZero();
        a.postSend(aToB, 2, b.address().qkey(), packet("x"), 1);
        a.postRead(aToB, 2, b.address().qkey(), into, 0, exposed.iov(0, 64), 2);
        fabric.progress(0);
        assertThat(drain(a)).extracting(Completion::status).containsExactly(
                CompletionStatus.REMOTE_ERROR_RNR, CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
    }

    @Test
    void freeingWhatARestartTookFreesNothingOnce() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1);
        final AddressHandle ah = a.createAddressHandle(gid(2));
        final MemoryRegion region = a.registerMemory(ByteBuffer.allocate(64), EnumSet.of(Access.REMOTE_READ));

        fabric.restart(a);

        // The process that held them is gone with the old queue pair: nothing is left to free.
        a.destroyAddressHandle(ah);
        a.deregisterMemory(region);
        assertThatThrownBy(() -> a.destroyAddressHandle(ah)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.deregisterMemory(region)).isInstanceOf(IllegalArgumentException.class);
        assertThat(a.createAddressHandle(gid(2))).isNotEqualTo(ah);
    }

    @Test
    void operationsPostedBeforeTheInitiatorRestartedCompleteNowhere() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1);
        final SimDevice b = fabric.createDevice(gid(2), 2);
        b.postRecv(packet(8), 100);
        a.postSend(a.createAddressHandle(b.address().gid()), 2, b.address().qkey(), packet("x"), 1);

        fabric.restart(a);
        fabric.progress(0);

        assertThat(drain(b)).as("the packet was on the wire").hasSize(1);
        assertThat(drain(a)).isEmpty();
    }

    @Test
    void rdmaReadToAStaleQkeyGoesUnanswered() {
        final SimFabric fabric = new SimFabric(seed.seed());
        final SimDevice a = fabric.createDevice(gid(1), 1);
        final SimDevice b = fabric.createDevice(gid(2), 2);
        final MemoryRegion into = a.registerMemory(ByteBuffer.allocate(64), EnumSet.of(Access.LOCAL_WRITE));
        final int oldQkey = b.address().qkey();
        fabric.restart(b);
        final MemoryRegion exposed = b.registerMemory(ByteBuffer.allocate(64), EnumSet.of(Access.REMOTE_READ));

        a.postRead(a.createAddressHandle(b.address().gid()), 2, oldQkey, into, 0, exposed.iov(0, 64), 1);
        fabric.progress(0);

        assertThat(drain(a)).containsExactly(
                Completion.ofInitiated(1, Opcode.RDMA_READ, CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE, 0));
        assertThat(b.dropped(DropReason.STALE_QKEY)).isEqualTo(1);
    }

    @Test
    void faultPlanRejectsNonsense() {
        assertThatThrownBy(() -> FaultPlan.NONE.withDelay(10, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FaultPlan.NONE.withReorder(0.5, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FaultPlan.NONE.withRnr(1.5)).isInstanceOf(IllegalArgumentException.class);
    }
}
