package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;

/**
 * Test helper: a requester that drives a {@link SimulatedRc} device by hand, below any fabric, to
 * play a peer that misbehaves: garbage private data in its CM REQ, chunks it never registered, or
 * receives it never posts again. Single-threaded: each method polls the device until what it waits
 * for arrives (or a hang guard runs out).
 */
final class RawRcPeer implements RcDevice.Events, AutoCloseable {

    private static final long HANG_GUARD_MS = 10_000;
    private static final int SLOT = 4096;

    private final SimulatedRc.Device device;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment slots;
    private final RcDevice.Memory registration;
    private final ArrayDeque<byte[]> received = new ArrayDeque<>();
    private final Map<Long, Integer> receiveSlots = new HashMap<>();
    private long id;
    private long nextWrId = 1;
    private int nextSendSlot;
    private CmEventType lastCm;
    private byte[] repData;

    /** @param device a device of its own on the network */
    RawRcPeer(SimulatedRc.Device device, int slots) throws VerbsException {
        this.device = device;
        this.slots = arena.allocate((long) slots * SLOT, 4096);
        this.registration = device.register(this.slots, EnumSet.of(MemoryAccess.LOCAL_WRITE));
    }

    /**
     * Connects with exactly these bytes as the CM REQ's private data, after posting receives.
     *
     * @return the REP's private data room, or null if the server rejected the request
     */
    byte[] connect(InetSocketAddress server, byte[] privateData, int receives) throws VerbsException {
        id = device.createId();
        device.resolveAddress(id, server, 1000);
        awaitCm(CmEventType.ADDR_RESOLVED);
        device.resolveRoute(id, 1000);
        awaitCm(CmEventType.ROUTE_RESOLVED);
        device.createQueuePair(id, 64, receives);
        for (int i = 0; i < receives; i++) {
            postReceive(i);
        }
        // Linux's client asks for 6 transport retries and no RNR retry
        device.connect(id, privateData, RcFabric.Config.DEFAULT_RETRY_COUNT, RcFabric.Config.DEFAULT_RNR_RETRY_COUNT);
        CmEventType outcome = awaitCm(CmEventType.ESTABLISHED, CmEventType.REJECTED);
        return outcome == CmEventType.ESTABLISHED ? repData : null;
    }

    private void postReceive(int slot) throws VerbsException {
        long wrId = nextWrId++;
        receiveSlots.put(wrId, slot);
        device.postReceive(id, wrId, registration.address() + (long) slot * SLOT, SLOT, registration.lkey());
    }

    /** Sends one message from a slot past the receives'. */
    void send(byte[] message) throws VerbsException {
        int slot = slots() - 1 - (nextSendSlot++ % 8);
        MemorySegment.copy(message, 0, slots, ValueLayout.JAVA_BYTE, (long) slot * SLOT, message.length);
        device.postSend(id, nextWrId++, registration.address() + (long) slot * SLOT, message.length,
                registration.lkey());
    }

    private int slots() {
        return (int) (slots.byteSize() / SLOT);
    }

    /** Hands over what the device has, waiting up to 100 ms for something when it has nothing. */
    private void pollWaiting() throws VerbsException {
        if (device.poll(this) + device.arm(this) == 0) {
            device.await(100);
            device.poll(this);
        }
    }

    /** @return the next message received, the receive not posted again */
    byte[] nextMessage() throws VerbsException {
        long deadline = System.currentTimeMillis() + HANG_GUARD_MS;
        while (received.isEmpty()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("no message within the hang guard");
            }
            pollWaiting();
        }
        return received.poll();
    }

    /** Waits for the server to end the connection. */
    void awaitDisconnected() throws VerbsException {
        awaitCm(CmEventType.DISCONNECTED);
    }

    private CmEventType awaitCm(CmEventType... wanted) throws VerbsException {
        long deadline = System.currentTimeMillis() + HANG_GUARD_MS;
        while (true) {
            for (CmEventType type : wanted) {
                if (lastCm == type) {
                    lastCm = null;
                    return type;
                }
            }
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("no " + java.util.Arrays.toString(wanted) + " within the hang guard");
            }
            pollWaiting();
        }
    }

    @Override
    public void cmEvent(long eventId, CmEventType type, int status, byte[] privateData) {
        lastCm = type;
        if (type == CmEventType.ESTABLISHED) {
            repData = privateData;
        }
    }

    @Override
    public void completion(int qpNum, long wrId, WcStatus status, int byteLength, long invalidated) {
        Integer slot = receiveSlots.remove(wrId);
        if (slot != null && status == WcStatus.SUCCESS) {
            received.add(slots.asSlice((long) slot * SLOT, byteLength).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Override
    public void queuePairFailed(int qpNum, String detail) {
        throw new AssertionError(detail);
    }

    /** Disconnects, destroys the id and deregisters the slots. */
    @Override
    public void close() throws VerbsException {
        try {
            device.disconnect(id);
        } catch (VerbsException | IllegalStateException e) {
            // not connected, or gone already
        }
        device.destroy(id);
        device.deregister(registration);
        arena.close();
    }
}
