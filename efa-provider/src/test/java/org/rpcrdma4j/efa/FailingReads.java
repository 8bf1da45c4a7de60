package org.rpcrdma4j.efa;

import java.nio.ByteBuffer;
import java.util.Set;
import java.util.function.Consumer;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.DeviceAttributes;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * A device whose RDMA reads, while {@link #failing}, name a key the peer never handed out, as a read of a buffer
 * its owner deregistered does: the peer's device refuses them with REMOTE_ERROR_BAD_ADDRESS. Otherwise it is
 * the device it wraps.
 */
final class FailingReads implements Device {

    private final Device device;
    boolean failing = true;

    FailingReads(Device device) {
        this.device = device;
    }

    @Override
    public boolean postRead(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset, RmaIov remote,
                            long wrId) {
        final RmaIov named = failing ? new RmaIov(remote.address(), remote.length(), ~remote.key()) : remote;
        return device.postRead(ah, qpn, qkey, local, localOffset, named, wrId);
    }

    @Override
    public DeviceAddress address() {
        return device.address();
    }

    @Override
    public DeviceAttributes attributes() {
        return device.attributes();
    }

    @Override
    public AddressHandle createAddressHandle(Gid gid) {
        return device.createAddressHandle(gid);
    }

    @Override
    public void destroyAddressHandle(AddressHandle ah) {
        device.destroyAddressHandle(ah);
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer memory, Set<Access> access) {
        return device.registerMemory(memory, access);
    }

    @Override
    public void deregisterMemory(MemoryRegion region) {
        device.deregisterMemory(region);
    }

    @Override
    public boolean postSend(AddressHandle ah, int qpn, int qkey, ByteBuffer packet, long wrId) {
        return device.postSend(ah, qpn, qkey, packet, wrId);
    }

    @Override
    public boolean postRecv(ByteBuffer buffer, long wrId) {
        return device.postRecv(buffer, wrId);
    }

    @Override
    public boolean postWrite(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset,
                             RmaIov remote, long wrId) {
        return device.postWrite(ah, qpn, qkey, local, localOffset, remote, wrId);
    }

    @Override
    public int pollCompletions(Consumer<Completion> sink, int max) {
        return device.pollCompletions(sink, max);
    }

    @Override
    public void close() {
        device.close();
    }
}
