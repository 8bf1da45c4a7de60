package org.rpcrdma4j.efa.device.sim;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Random;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * The simulated wire: it owns the {@link SimDevice}s, the operations in flight, a virtual clock and
 * the one random source, seeded, from which every Q-Key, key base, delay, reordering and injected
 * RNR is drawn. Single-threaded and driven by the caller: same seed and same calls, same outcome.
 *
 * <p>Posting stamps an operation with the current virtual time plus a delay from its link's
 * {@link FaultPlan}. {@link #progress(long)} then executes every operation that has become due,
 * ordered by due time and post order except where the plan reorders them. Delivery is reliable
 * but unordered, as on EFA's SRD: every operation executes exactly once, and a send is delivered
 * unless the receiver is not ready, its buffer is too short or the Q-Key is stale.
 */
public final class SimFabric {

    private static final Comparator<WorkRequest> DUE_ORDER =
            Comparator.comparingLong(WorkRequest::dueNs).thenComparingLong(WorkRequest::seq);

    private final long seed;
    private final Random random;
    private final Map<Gid, Map<Integer, SimDevice>> devices = new HashMap<>();
    private final Map<Link, FaultPlan> linkFaults = new HashMap<>();
    private final PriorityQueue<WorkRequest> inFlight = new PriorityQueue<>(DUE_ORDER);
    /** The operations due at one {@link #progress}, reused from call to call. */
    private final List<WorkRequest> due = new ArrayList<>();
    private long nowNs;
    private long nextSeq;

    /**
     * Creates an empty fabric at virtual time 0.
     *
     * @param seed the seed of every random choice the fabric and its devices make
     */
    public SimFabric(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
    }

    /** @return the seed the fabric was created with */
    public long seed() {
        return seed;
    }

    /** @return the virtual time of the last {@link #progress(long)}, 0 before the first */
    public long nowNs() {
        return nowNs;
    }

    /** @return how many operations are on the wire, posted but not yet executed */
    public int inFlight() {
        return inFlight.size();
    }

    /**
     * Creates a device with {@link SimDeviceConfig#DEFAULT}.
     *
     * @param gid the device's GID
     * @param qpn its queue pair number
     * @return the device, with a random Q-Key
     * @throws IllegalStateException if the fabric has a device at that GID and QPN
     */
    public SimDevice createDevice(Gid gid, int qpn) {
        return createDevice(gid, qpn, SimDeviceConfig.DEFAULT);
    }

    /**
     * Creates a device. Several may share a GID, as queue pairs of one EFA device do.
     *
     * @param gid the device's GID
     * @param qpn its queue pair number, 0..65535
     * @param config its MTU, queues, capabilities and faults
     * @return the device, with a random Q-Key
     * @throws IllegalStateException if the fabric has a device at that GID and QPN
     */
    public SimDevice createDevice(Gid gid, int qpn, SimDeviceConfig config) {
        Objects.requireNonNull(gid, "gid");
        DeviceAddress.requireQpn(qpn);
        Objects.requireNonNull(config, "config");
        final Map<Integer, SimDevice> atGid = devices.computeIfAbsent(gid, g -> new HashMap<>());
        if (atGid.containsKey(qpn)) {
            throw new IllegalStateException("a device exists at " + gid + " QPN " + qpn);
        }
        final SimDevice device = new SimDevice(this, gid, qpn, random.nextInt(), random.nextInt(), config);
        atGid.put(qpn, device);
        return device;
    }

    /**
     * Sets the faults on what {@code from} sends to {@code to}, in place of {@code from}'s own.
     * Applies to operations posted from now on; it survives restarts of either device and goes
     * when either closes.
     *
     * @param from the sending device
     * @param to the receiving device
     * @param plan the faults
     */
    public void setLinkFaults(SimDevice from, SimDevice to, FaultPlan plan) {
        Objects.requireNonNull(plan, "plan");
        linkFaults.put(new Link(requireOwn(from).address(), requireOwn(to).address()), plan);
    }

    /**
     * Takes a link's own faults away: what {@code from} sends to {@code to} from now on has
     * {@code from}'s faults again ({@link SimDeviceConfig#faults()}).
     *
     * @param from the sending device
     * @param to the receiving device
     */
    public void clearLinkFaults(SimDevice from, SimDevice to) {
        linkFaults.remove(new Link(requireOwn(from).address(), requireOwn(to).address()));
    }

    /**
     * Restarts a device as a new queue pair on the same GID and QPN with a new Q-Key, the way a
     * peer process that died and came back can (EFA RDM protocol v4 §4.4, "QP collision").
     * Operations still on the wire that carry the old Q-Key are dropped on arrival; those the
     * old queue pair posted still reach their targets but complete nowhere.
     *
     * @param device a device of this fabric
     */
    public void restart(SimDevice device) {
        final int oldQkey = requireOwn(device).address().qkey();
        int newQkey;
        do {
            newQkey = random.nextInt();
        } while (newQkey == oldQkey);
        device.restart(newQkey);
    }

    /** @return how many devices the fabric holds: created and not closed */
    public int deviceCount() {
        int count = 0;
        for (Map<Integer, SimDevice> atGid : devices.values()) {
            count += atGid.size();
        }
        return count;
    }

    /**
     * Forgets a device that closed: its QPN is free for a new device, and operations towards it
     * fail as towards any QPN that does not exist (or GID, if it was the last device there). The
     * faults of its links go with it, so a new device on its GID and QPN starts without them.
     */
    void remove(SimDevice device) {
        final DeviceAddress address = requireOwn(device).address();
        linkFaults.keySet().removeIf(link -> link.touches(address));
        final Map<Integer, SimDevice> atGid = devices.get(address.gid());
        atGid.remove(address.qpn());
        if (atGid.isEmpty()) {
            devices.remove(address.gid());
        }
    }

    /**
     * Advances virtual time and executes every operation due by then.
     *
     * @param nowNs the current virtual time, not before the previous one
     * @return how many operations were executed
     * @throws IllegalArgumentException if time would go backwards
     */
    public int progress(long nowNs) {
        if (nowNs < this.nowNs) {
            throw new IllegalArgumentException("time goes backwards: " + nowNs + " < " + this.nowNs);
        }
        this.nowNs = nowNs;
        due.clear();
        while (!inFlight.isEmpty() && inFlight.peek().dueNs() <= nowNs) {
            due.add(inFlight.poll());
        }
        final List<WorkRequest> order = reorder(due);
        for (int i = 0; i < order.size(); i++) {
            execute(order.get(i));
        }
        return order.size();
    }

    /** Puts an operation on the wire, due after the delay its link's fault plan draws. */
    void submit(SimDevice initiator, Opcode opcode, DeviceAddress destination, ByteBuffer packet,
                MemoryRegion local, long localOffset, RmaIov remote, long wrId) {
        final FaultPlan faults = linkFaults.isEmpty() ? initiator.config().faults()
                : linkFaults.getOrDefault(new Link(initiator.address(), destination), initiator.config().faults());
        final long delay = faults.minDelayNs() == faults.maxDelayNs()
                ? faults.minDelayNs()
                : random.nextLong(faults.minDelayNs(), faults.maxDelayNs() + 1);
        inFlight.add(new WorkRequest(nextSeq++, Math.addExact(nowNs, delay), opcode, initiator,
                initiator.incarnation(), destination, packet, local, localOffset, remote, wrId, faults));
    }

    /** @return true with the given probability; draws nothing when it is 0 */
    boolean chance(double probability) {
        return probability > 0 && random.nextDouble() < probability;
    }

    private void execute(WorkRequest wr) {
        final Map<Integer, SimDevice> atGid = devices.get(wr.destination().gid());
        final SimDevice target = atGid == null ? null : atGid.get(wr.destination().qpn());
        if (atGid == null) {
            wr.initiator().complete(wr, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE);
        } else if (target == null) {
            wr.initiator().complete(wr, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN);
        } else {
            wr.initiator().execute(wr, target);
        }
    }

    /**
     * Lets an operation chosen with its plan's reorder probability be overtaken by 1 to
     * {@code reorderWindow} of the operations due after it in this batch: it is ranked half a
     * place after the one it falls behind, and the stable sort keeps the rest in order.
     */
    private List<WorkRequest> reorder(List<WorkRequest> due) {
        boolean mayReorder = false;
        for (int i = 0; i < due.size() && !mayReorder; i++) {
            mayReorder = due.get(i).faults().reorderProbability() > 0;
        }
        if (!mayReorder) {
            // Nothing to rank: every chance() would be false without a draw, so the order stays.
            return due;
        }
        final List<Ranked> ranked = new ArrayList<>(due.size());
        for (int i = 0; i < due.size(); i++) {
            final WorkRequest wr = due.get(i);
            double rank = i;
            if (chance(wr.faults().reorderProbability())) {
                rank += 1 + random.nextInt(wr.faults().reorderWindow()) + 0.5;
            }
            ranked.add(new Ranked(rank, wr));
        }
        ranked.sort(Comparator.comparingDouble(Ranked::rank));
        return ranked.stream().map(Ranked::wr).toList();
    }

    private SimDevice requireOwn(SimDevice device) {
        Objects.requireNonNull(device, "device");
        final DeviceAddress address = device.address();
        final Map<Integer, SimDevice> atGid = devices.get(address.gid());
        if (atGid == null || atGid.get(address.qpn()) != device) {
            throw new IllegalArgumentException(device + " is not on this fabric");
        }
        return device;
    }

    /** A directed link, from one (GID, QPN) to another; Q-Keys play no part. */
    private record Link(Gid fromGid, int fromQpn, Gid toGid, int toQpn) {
        Link(DeviceAddress from, DeviceAddress to) {
            this(from.gid(), from.qpn(), to.gid(), to.qpn());
        }

        boolean touches(DeviceAddress end) {
            return fromGid.equals(end.gid()) && fromQpn == end.qpn() || toGid.equals(end.gid()) && toQpn == end.qpn();
        }
    }

    private record Ranked(double rank, WorkRequest wr) {
    }
}
