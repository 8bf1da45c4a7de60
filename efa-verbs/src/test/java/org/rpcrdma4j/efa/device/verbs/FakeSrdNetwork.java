package org.rpcrdma4j.efa.device.verbs;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.rpcrdma4j.efa.device.Gid;

/**
 * EFA NICs with one SRD queue pair each, in the JVM, behind {@link SrdNic}: what an EFA device does that
 * {@link EfaSrdDevice} must cope with, as rdma-core's libefa and efa_io_defs.h describe it. No thread: what
 * is posted is in flight until {@link #progress()} carries it out, in the order posted or, once
 * {@link #shuffle()} is called, in an order drawn from the seeded random; completions wait in each NIC's
 * completion queue until polled.
 *
 * <ul>
 *   <li>A Send lands in the oldest receive at its destination and completes OK at both ends (the
 *       receiver's completion names the sender's QPN, the receiver's AH number for the sender's GID or
 *       0xFFFF, and with no AH, the sender's GID if the receiving NIC names source GIDs). No receive
 *       posted: REMOTE_ERROR_RNR at the sender, no retries. Longer than the receive: REMOTE_ERROR_BAD_LENGTH at
 *       the sender and the receive completes LOCAL_ERROR_BAD_LENGTH (what EFA gives the receiver is not
 *       documented; the SPI allows this). Another Q-Key: dropped at the receiver, OK at the sender.</li>
 *   <li>No NIC with the GID: LOCAL_ERROR_UNREACH_REMOTE; none with the QPN there (or closed):
 *       REMOTE_ERROR_BAD_DEST_QPN.</li>
 *   <li>RDMA: the target must have the capability (REMOTE_ERROR_FEATURE_MISMATCH), the Q-Key
 *       (REMOTE_ERROR_BAD_DEST_QPN, the fake's choice: no queue pair of that incarnation), and a
 *       registration by the rkey that holds the range and grants the right (REMOTE_ERROR_BAD_ADDRESS).</li>
 *   <li>A local scatter/gather entry outside a registration of the lkey is LOCAL_ERROR_INVALID_LKEY.
 *       Send-queue completions carry no byte length, as libefa's.</li>
 *   <li>Queues hold what was posted until its completion is polled; a post beyond the depth is refused.
 *       A closed NIC's work in flight is dropped, never completed.</li>
 *   <li>Faults for tests: {@link #failNextSend} ends a NIC's next send-queue request with a status of the
 *       test's choosing; {@link #forgeReceive} completes a NIC's oldest receive as the test says;
 *       {@link #forge} adds any completion; {@link #receiverNotReady} refuses a link's packets.</li>
 * </ul>
 */
final class FakeSrdNetwork {

    static final int OK = 0;
    static final int LOCAL_ERROR_INVALID_LKEY = 5;
    static final int LOCAL_ERROR_BAD_LENGTH = 6;
    static final int REMOTE_ERROR_BAD_ADDRESS = 7;
    static final int REMOTE_ERROR_BAD_DEST_QPN = 9;
    static final int REMOTE_ERROR_RNR = 10;
    static final int REMOTE_ERROR_BAD_LENGTH = 11;
    static final int LOCAL_ERROR_UNREACH_REMOTE = 15;
    static final int REMOTE_ERROR_FEATURE_MISMATCH = 18;

    /** The largest Send by default: an EFA port's max_msg_sz is about 8 KiB, this is smaller to test with. */
    static final int DEFAULT_MTU = 4096;

    /** What a fake NIC can do. */
    record Caps(int mtu, int sendDepth, int recvDepth, long maxRdmaSize, boolean rdmaRead, boolean rdmaWrite,
                boolean sourceGids) {
        static Caps full() {
            return new Caps(DEFAULT_MTU, 1024, 1024, 1L << 30, true, true, true);
        }
    }

    private enum Kind { SEND, READ, WRITE }

    /** A send-queue request in flight. */
    private record Work(FakeNic from, Kind kind, long wrId, int ahn, Gid gid, int qpn, int qkey, long address,
                        int length, int lkey, long remoteAddress, int rkey) {
    }

    private record Receive(long wrId, long address, int length, int lkey) {
    }

    private record Region(long address, long length, ByteBuffer memory, boolean remoteRead, boolean remoteWrite) {
        /** @return the bytes of [at, at + count), or null if they are not all in the region */
        ByteBuffer range(long at, long count) {
            if (count < 0 || Long.compareUnsigned(at, address) < 0 || Long.compareUnsigned(at - address, length) > 0
                    || count > length - (at - address)) {
                return null;
            }
            return memory.slice((int) (at - address), (int) count);
        }
    }

    /** Which queue a completion frees an entry of; none for one a test forged. */
    enum Queue { SEND, RECEIVE, NONE }

    /** A completion as the NIC hands it over. */
    record Cqe(long wrId, int status, int byteLength, int sourceQpn, int sourceAhn, Gid sourceGid, Queue queue) {
    }

    private final Random random;
    private final Map<Gid, Map<Integer, FakeNic>> hosts = new HashMap<>();
    private final List<Work> inFlight = new ArrayList<>();
    private final Set<List<FakeNic>> notReady = new HashSet<>();
    private boolean shuffle;
    private int nextQpn = 1;
    private int nextKey = 0x10;
    private long nextAddress = 0x7f00_0000_0000L;

    /** @param seed the seed of the order deliveries take once shuffled */
    FakeSrdNetwork(long seed) {
        this.random = new Random(seed);
    }

    /** @return a new NIC with its own queue pair on the GID, Q-Key drawn from the seed */
    FakeNic nic(Gid gid, Caps caps) {
        final FakeNic nic = new FakeNic(gid, nextQpn++, random.nextInt() & 0x7FFF_FFFF, caps);
        hosts.computeIfAbsent(gid, g -> new HashMap<>()).put(nic.qpn, nic);
        return nic;
    }

    /** From now on, what is in flight is carried out in an order drawn from the seed. */
    void shuffle() {
        shuffle = true;
    }

    /** From now on, every Send {@code from} makes to {@code to} finds no receive there (until {@link #ready}). */
    void receiverNotReady(FakeNic from, FakeNic to) {
        notReady.add(List.of(from, to));
    }

    /** Takes {@link #receiverNotReady} away. */
    void ready(FakeNic from, FakeNic to) {
        notReady.remove(List.of(from, to));
    }

    /** The next send-queue request the NIC posts completes with {@code status}, nothing delivered. */
    void failNextSend(FakeNic nic, int status) {
        nic.failNext = status;
        nic.failing = true;
    }

    /** Completes the NIC's oldest receive with what the test says, whatever the wire carried. */
    void forgeReceive(FakeNic nic, int status, int byteLength, int sourceQpn, int sourceAhn, Gid sourceGid) {
        final Receive receive = nic.receives.poll();
        nic.cq.add(new Cqe(receive.wrId(), status, byteLength, sourceQpn, sourceAhn, sourceGid, Queue.RECEIVE));
    }

    /** Adds a completion to the NIC's queue, for a request it may never have had. */
    void forge(FakeNic nic, Cqe cqe) {
        nic.cq.add(cqe);
    }

    /**
     * Carries out everything in flight now.
     *
     * @return how many requests were carried out
     */
    int progress() {
        final List<Work> now = new ArrayList<>(inFlight);
        inFlight.clear();
        if (shuffle) {
            Collections.shuffle(now, random);
        }
        for (Work work : now) {
            if (!work.from().closed) {
                carryOut(work);
            }
        }
        return now.size();
    }

    private void carryOut(Work work) {
        final FakeNic from = work.from();
        if (from.failing) {
            from.failing = false;
            complete(from, work.wrId(), from.failNext);
            return;
        }
        final Map<Integer, FakeNic> host = hosts.get(work.gid());
        if (host == null) {
            complete(from, work.wrId(), LOCAL_ERROR_UNREACH_REMOTE);
            return;
        }
        final FakeNic to = host.get(work.qpn());
        if (to == null || to.closed) {
            complete(from, work.wrId(), REMOTE_ERROR_BAD_DEST_QPN);
            return;
        }
        final ByteBuffer local = from.regionByKey(work.lkey(), work.address(), work.length());
        if (local == null) {
            complete(from, work.wrId(), LOCAL_ERROR_INVALID_LKEY);
            return;
        }
        switch (work.kind()) {
            case SEND -> send(work, local, to);
            case READ, WRITE -> rdma(work, local, to);
        }
    }

    private void send(Work work, ByteBuffer packet, FakeNic to) {
        final FakeNic from = work.from();
        if (work.length() > from.caps.mtu()) {
            complete(from, work.wrId(), LOCAL_ERROR_BAD_LENGTH);
            return;
        }
        if (work.qkey() != to.qkey) {
            complete(from, work.wrId(), OK);
            return;
        }
        final Receive receive = notReady.contains(List.of(from, to)) ? null : to.receives.peek();
        if (receive == null) {
            complete(from, work.wrId(), REMOTE_ERROR_RNR);
            return;
        }
        to.receives.poll();
        if (work.length() > receive.length()) {
            complete(from, work.wrId(), REMOTE_ERROR_BAD_LENGTH);
            to.cq.add(new Cqe(receive.wrId(), LOCAL_ERROR_BAD_LENGTH, 0, 0, 0, null, Queue.RECEIVE));
            return;
        }
        final ByteBuffer into = to.regionByKey(receive.lkey(), receive.address(), work.length());
        if (into == null) {
            to.cq.add(new Cqe(receive.wrId(), LOCAL_ERROR_INVALID_LKEY, 0, 0, 0, null, Queue.RECEIVE));
            complete(from, work.wrId(), REMOTE_ERROR_BAD_ADDRESS);
            return;
        }
        into.put(0, packet, 0, work.length());
        final Integer ahn = to.ahnOf(from.gid);
        to.cq.add(new Cqe(receive.wrId(), OK, work.length(), from.qpn, ahn == null ? SrdNic.UNKNOWN_AHN : ahn,
                ahn == null && to.caps.sourceGids() ? from.gid : null, Queue.RECEIVE));
        complete(from, work.wrId(), OK);
    }

    private void rdma(Work work, ByteBuffer local, FakeNic to) {
        final FakeNic from = work.from();
        final boolean read = work.kind() == Kind.READ;
        if (!(read ? to.caps.rdmaRead() : to.caps.rdmaWrite())) {
            complete(from, work.wrId(), REMOTE_ERROR_FEATURE_MISMATCH);
            return;
        }
        if (work.qkey() != to.qkey) {
            complete(from, work.wrId(), REMOTE_ERROR_BAD_DEST_QPN);
            return;
        }
        final Region region = to.regions.get(work.rkey());
        final ByteBuffer remote = region == null || !(read ? region.remoteRead() : region.remoteWrite()) ? null
                : region.range(work.remoteAddress(), work.length());
        if (remote == null) {
            complete(from, work.wrId(), REMOTE_ERROR_BAD_ADDRESS);
            return;
        }
        if (read) {
            local.put(0, remote, 0, work.length());
        } else {
            remote.put(0, local, 0, work.length());
        }
        complete(from, work.wrId(), OK);
    }

    /** A send-queue completion: libefa sets no byte length for one. */
    private static void complete(FakeNic nic, long wrId, int status) {
        nic.cq.add(new Cqe(wrId, status, 0, 0, 0, null, Queue.SEND));
    }

    /** One NIC and its SRD queue pair. */
    final class FakeNic implements SrdNic {

        final Gid gid;
        final int qpn;
        final int qkey;
        final Caps caps;
        private final ArrayDeque<Receive> receives = new ArrayDeque<>();
        private final ArrayDeque<Cqe> cq = new ArrayDeque<>();
        private final Map<Integer, Gid> handles = new HashMap<>();
        private final Map<Integer, Region> regions = new HashMap<>();
        /** Send-queue requests and receives posted whose completions are not polled yet. */
        private int sendsOutstanding;
        private int receivesOutstanding;
        private boolean failing;
        private int failNext;
        private boolean closed;

        private FakeNic(Gid gid, int qpn, int qkey, Caps caps) {
            this.gid = gid;
            this.qpn = qpn;
            this.qkey = qkey;
            this.caps = caps;
        }

        @Override
        public Attributes attributes() {
            return new Attributes(gid, qpn, qkey, caps.mtu(), caps.sendDepth(), caps.recvDepth(),
                    caps.rdmaRead() || caps.rdmaWrite() ? caps.maxRdmaSize() : 0, caps.rdmaRead(), caps.rdmaWrite(),
                    false, caps.sourceGids());
        }

        /** @return the address handles it holds */
        int addressHandles() {
            return handles.size();
        }

        /** @return the registrations it holds */
        int registrations() {
            return regions.size();
        }

        /** @return whether it was closed */
        boolean closed() {
            return closed;
        }

        private Integer ahnOf(Gid peer) {
            for (Map.Entry<Integer, Gid> entry : handles.entrySet()) {
                if (entry.getValue().equals(peer)) {
                    return entry.getKey();
                }
            }
            return null;
        }

        private ByteBuffer regionByKey(int lkey, long address, int length) {
            final Region region = regions.get(lkey);
            return region == null ? null : region.range(address, length);
        }

        @Override
        public int createAddressHandle(Gid peer) {
            checkOpen();
            // As EFA reuses its numbers: the lowest free one.
            int ahn = 0;
            while (handles.containsKey(ahn)) {
                ahn++;
            }
            handles.put(ahn, peer);
            return ahn;
        }

        @Override
        public void destroyAddressHandle(int ahn) {
            handles.remove(ahn);
        }

        @Override
        public Registration register(ByteBuffer memory, boolean remoteRead, boolean remoteWrite) {
            checkOpen();
            if (!memory.isDirect()) {
                throw new IllegalArgumentException("a NIC pins direct memory only");
            }
            final int key = nextKey++;
            final long address = nextAddress;
            nextAddress += (memory.remaining() / 4096 + 2) * 4096L;
            regions.put(key, new Region(address, memory.remaining(), memory.slice(), remoteRead, remoteWrite));
            return new Registration(address, memory.remaining(), key, key);
        }

        @Override
        public void deregister(Registration registration) {
            regions.remove(registration.lkey());
        }

        @Override
        public boolean postSend(long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey) {
            return post(new Work(this, Kind.SEND, wrId, ahn, handle(ahn), qpn, qkey, address, length, lkey, 0, 0));
        }

        @Override
        public boolean postRead(long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey,
                                long remoteAddress, int rkey) {
            if (!caps.rdmaRead()) {
                throw new IllegalStateException("the queue pair was not created for RDMA Read");
            }
            return post(new Work(this, Kind.READ, wrId, ahn, handle(ahn), qpn, qkey, address, length, lkey,
                    remoteAddress, rkey));
        }

        @Override
        public boolean postWrite(long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey,
                                 long remoteAddress, int rkey) {
            if (!caps.rdmaWrite()) {
                throw new IllegalStateException("the queue pair was not created for RDMA Write");
            }
            return post(new Work(this, Kind.WRITE, wrId, ahn, handle(ahn), qpn, qkey, address, length, lkey,
                    remoteAddress, rkey));
        }

        private Gid handle(int ahn) {
            final Gid peer = handles.get(ahn);
            if (peer == null) {
                throw new IllegalArgumentException("no address handle numbered " + ahn);
            }
            return peer;
        }

        private boolean post(Work work) {
            checkOpen();
            if (sendsOutstanding >= caps.sendDepth()) {
                return false;
            }
            sendsOutstanding++;
            inFlight.add(work);
            return true;
        }

        @Override
        public boolean postReceive(long wrId, long address, int length, int lkey) {
            checkOpen();
            if (receivesOutstanding >= caps.recvDepth()) {
                return false;
            }
            receivesOutstanding++;
            receives.add(new Receive(wrId, address, length, lkey));
            return true;
        }

        @Override
        public int poll(Completions completions) {
            checkOpen();
            int handed = 0;
            while (!cq.isEmpty()) {
                final Cqe cqe = cq.poll();
                switch (cqe.queue()) {
                    case SEND -> sendsOutstanding--;
                    case RECEIVE -> receivesOutstanding--;
                    case NONE -> {
                        // Forged: it never took an entry.
                    }
                }
                completions.completion(cqe.wrId(), cqe.status(), cqe.byteLength(), cqe.sourceQpn(),
                        cqe.sourceAhn(), cqe.sourceGid());
                handed++;
            }
            return handed;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            hosts.get(gid).remove(qpn);
            handles.clear();
            regions.clear();
            receives.clear();
            cq.clear();
        }

        private void checkOpen() {
            if (closed) {
                throw new IllegalStateException("the NIC is closed");
            }
        }
    }
}
