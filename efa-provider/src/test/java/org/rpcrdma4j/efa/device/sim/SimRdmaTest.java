package org.rpcrdma4j.efa.device.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.efa.device.sim.Sim.drain;
import static org.rpcrdma4j.efa.device.sim.Sim.gid;
import static org.rpcrdma4j.efa.device.sim.Sim.text;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.SeedWatcher;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * What only the simulated device does with RDMA: its drop counters, its 1 GiB limit checked before
 * the wire, a registration checked when the operation executes, its addresses above 2^63. What every
 * device must do is the conformance kit's ({@link SimDeviceConformanceTest}).
 */
class SimRdmaTest {

    private static final EnumSet<Access> ALL_REMOTE = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    private SimFabric fabric;
    private SimDevice a;
    private SimDevice b;
    private AddressHandle aToB;
    private ByteBuffer localMemory;
    private MemoryRegion local;
    private ByteBuffer remoteMemory;

    @BeforeEach
    void setUp() {
        fabric = new SimFabric(seed.seed());
        a = fabric.createDevice(gid(1), 1);
        b = fabric.createDevice(gid(2), 2);
        aToB = a.createAddressHandle(b.address().gid());
        localMemory = ByteBuffer.allocate(64);
        local = a.registerMemory(localMemory, EnumSet.of(Access.LOCAL_WRITE));
        remoteMemory = ByteBuffer.wrap("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    }

    private CompletionStatus read(MemoryRegion into, long offset, RmaIov remote) {
        assertThat(a.postRead(aToB, 2, b.address().qkey(), into, offset, remote, 1)).isTrue();
        fabric.progress(fabric.nowNs());
        final Completion completion = drain(a).get(0);
        assertThat(completion.opcode()).isEqualTo(Opcode.RDMA_READ);
        return completion.status();
    }

    @Test
    void aRemoteAccessRefusedForItsKeyIsCountedByTheTarget() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);
        final RmaIov wrongKey = new RmaIov(remote.address(), 4, remote.key() + 1);

        assertThat(read(local, 0, wrongKey)).isEqualTo(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(localMemory.getInt(0)).as("local memory untouched").isZero();
        assertThat(b.dropped(DropReason.REMOTE_ACCESS_DENIED)).isEqualTo(1);
    }

    @Test
    void rdmaOverOneGibIsALocalLengthErrorWithoutTouchingTheWire() {
        final RmaIov tooLong = new RmaIov(0, SimDeviceConfig.MAX_RDMA_SIZE + 1, 0);

        assertThat(a.postRead(aToB, 2, b.address().qkey(), local, 0, tooLong, 1)).isTrue();
        assertThat(a.postWrite(aToB, 2, b.address().qkey(), local, 0, tooLong, 2)).isTrue();

        assertThat(fabric.inFlight()).isZero();
        assertThat(drain(a)).extracting(Completion::status).containsOnly(CompletionStatus.LOCAL_ERROR_BAD_LENGTH);
    }

    @Test
    void rdmaOfExactlyOneGibPassesTheLengthCheck() {
        final RmaIov oneGib = new RmaIov(0, SimDeviceConfig.MAX_RDMA_SIZE, 0);

        assertThat(a.attributes().maxRdmaSize()).isEqualTo(1L << 30);
        assertThat(read(local, 0, oneGib)).as("refused later, by the 64-byte local region")
                .isEqualTo(CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
    }

    @Test
    void anRdmaWriteRefusedForWantOfTheCapabilityIsCountedByTheTarget() {
        final SimDevice target = fabric.createDevice(gid(3), 3,
                SimDeviceConfig.DEFAULT.withCapabilities(EnumSet.of(Capability.RDMA_READ)));
        final MemoryRegion remote = target.registerMemory(remoteMemory, ALL_REMOTE);
        final AddressHandle ah = a.createAddressHandle(target.address().gid());

        a.postWrite(ah, 3, target.address().qkey(), local, 0, remote.iov(0, 4), 1);
        fabric.progress(0);

        assertThat(drain(a)).extracting(Completion::status).containsExactly(CompletionStatus.REMOTE_ERROR_FEATURE_MISMATCH);
        assertThat(text(remoteMemory, 4)).isEqualTo("0123");
        assertThat(target.dropped(DropReason.CAPABILITY_OFF)).isEqualTo(1);
    }

    @Test
    void localRegionDeregisteredBeforeTheReadExecutesIsALocalKeyError() {
        final MemoryRegion remote = b.registerMemory(remoteMemory, ALL_REMOTE);
        a.postRead(aToB, 2, b.address().qkey(), local, 0, remote.iov(0, 4), 1);
        a.deregisterMemory(local);
        fabric.progress(0);

        assertThat(drain(a)).extracting(Completion::status).containsExactly(CompletionStatus.LOCAL_ERROR_INVALID_LKEY);
        assertThat(localMemory.getInt(0)).isZero();
    }

    @Test
    void registrationsCoverPositionToLimitAtDistinctAddressesAbove2To63() {
        final MemoryRegion first = b.registerMemory(remoteMemory.position(4), ALL_REMOTE);
        final MemoryRegion second = b.registerMemory(ByteBuffer.allocate(8192), ALL_REMOTE);

        assertThat(first.length()).isEqualTo(12);
        assertThat(first.address()).isNegative();
        assertThat(second.contains(first.address(), 1)).isFalse();
        assertThat(Long.compareUnsigned(second.address(), first.address() + first.length())).isPositive();
        assertThat(read(local, 0, first.iov(0, 2))).isEqualTo(CompletionStatus.OK);
        assertThat(text(localMemory.position(0), 2)).isEqualTo("45");
    }
}
