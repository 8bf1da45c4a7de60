package org.rpcrdma4j.verbs.tools;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CmEvent;
import org.rpcrdma4j.verbs.CmEventChannel;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.CmId;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.FdPoller;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.MemoryWindow;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.VerbsContext;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletions;

/**
 * One side of {@link RcLoopbackCheck}: its CM event channel, and once a connection has an id, the
 * id's device resources, with waits that end at a deadline. Confined to the thread that runs the
 * side; prints one line per step.
 */
final class CheckPeer implements AutoCloseable {
    /** Layout of the registered buffer: receive, send, RDMA source/target, RDMA Read target. */
    static final int RECV = 0;
    static final int SEND = 4096;
    static final int EXPOSED = 8192;
    static final int READ_INTO = 12288;
    static final int SLOT = 4096;

    /** A completion taken off the queue, kept until the step that expects it claims it. */
    record Completion(long wrId, WcStatus status, WcOpcode opcode, int byteLength, boolean withInvalidate,
                      int invalidatedRkey, String description) {
    }

    final String name;
    final CmEventChannel events;
    private final long deadlineNanos;
    private final FdPoller poller;
    private final Arena arena = Arena.ofShared();
    final MemorySegment buffer = arena.allocate(4 * SLOT, 4096);
    private final WorkCompletions polled = new WorkCompletions(4);
    private final List<Completion> unclaimed = new ArrayList<>();
    /** CM events that arrived while a completion was awaited, not yet acked. */
    private final ArrayDeque<CmEvent> pendingEvents = new ArrayDeque<>();
    private final int eventChannelIndex;
    private int completionChannelIndex = -1;

    CmId listener;
    CmId id;
    ProtectionDomain pd;
    CompletionChannel completionChannel;
    CompletionQueue cq;
    QueuePair qp;
    MemoryRegion region;
    MemoryWindow window;

    CheckPeer(String name, int timeoutSeconds) throws VerbsException {
        this.name = name;
        this.deadlineNanos = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        this.events = CmEventChannel.create();
        this.poller = new FdPoller(2);
        this.eventChannelIndex = poller.register(events.fd());
    }

    void step(String step, String detail) {
        System.out.println(name + ": " + step + " OK" + (detail.isEmpty() ? "" : " " + detail));
        System.out.flush();
    }

    private int remainingMillis(String waitingFor) throws CheckFailed {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw new CheckFailed("timed out waiting for " + waitingFor);
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000));
    }

    /** The next CM event, which must be of the expected type; the caller acks it. */
    CmEvent awaitEvent(CmEventType expected) throws VerbsException, CheckFailed {
        while (true) {
            CmEvent event = pendingEvents.isEmpty() ? events.getEvent() : pendingEvents.poll();
            if (event == null) {
                poller.poll(remainingMillis(expected.description()));
                continue;
            }
            if (event.type() != expected) {
                String got = event.toString();
                event.close();
                throw new CheckFailed("expected " + expected.description() + ", got " + got);
            }
            return event;
        }
    }

    /** Creates the device resources of the connection's id: PD, channel, CQ, registration, queue pair. */
    void setUp(CmId connection, Access... rights) throws VerbsException {
        id = connection;
        VerbsContext context = id.verbsContext();
        pd = context.allocateProtectionDomain();
        completionChannel = context.createCompletionChannel();
        completionChannelIndex = poller.register(completionChannel.fd());
        cq = context.createCompletionQueue(16, completionChannel, 0);
        region = pd.register(buffer, rights);
        qp = id.createQueuePair(pd, new QueuePairConfig(cq, cq, 8, 8, 1, 1, 0, true));
        step("resources", "device " + context.deviceName() + " port " + id.portNumber() + ", qp " + qp.qpNum()
                + ", cq " + cq.capacity() + " entries, lkey " + hex(region.lkey()) + " rkey " + hex(region.rkey()));
    }

    /**
     * The completion of the request with this wr_id, which must have succeeded with the expected
     * opcode. Polls first; when the queue is empty, arms it, polls once more, then sleeps on the
     * completion channel.
     */
    Completion awaitCompletion(long wrId, WcOpcode expected) throws VerbsException, CheckFailed {
        while (true) {
            for (Completion c : unclaimed) {
                if (c.wrId() == wrId) {
                    unclaimed.remove(c);
                    if (c.status() != WcStatus.SUCCESS || c.opcode() != expected) {
                        throw new CheckFailed("expected a successful " + expected + ", got " + c.description());
                    }
                    return c;
                }
            }
            if (drain() > 0) {
                continue;
            }
            cq.requestNotify(false);
            if (drain() > 0) {
                continue;
            }
            poller.poll(remainingMillis(expected + " completion of request " + wrId));
            if (poller.isReadable(completionChannelIndex) && completionChannel.getEvent() != null) {
                cq.ackEvents();
            }
            if (poller.isReadable(eventChannelIndex)) {
                // kept for the step that awaits it, so that the descriptor does not stay readable
                CmEvent event = events.getEvent();
                if (event != null) {
                    pendingEvents.add(event);
                }
            }
        }
    }

    private int drain() throws VerbsException {
        int n = cq.poll(polled);
        for (int i = 0; i < n; i++) {
            boolean inv = polled.succeeded(i) && polled.withInvalidate(i);
            WcOpcode opcode = polled.succeeded(i) ? polled.opcode(i) : WcOpcode.UNKNOWN;
            unclaimed.add(new Completion(polled.wrId(i), polled.status(i), opcode, polled.byteLength(i), inv,
                    inv ? polled.invalidatedRkey(i) : 0, polled.describe(i)));
        }
        return n;
    }

    static String hex(int value) {
        return "0x" + Integer.toHexString(value);
    }

    /** Releases everything, in the order verbs requires; the first failure is rethrown after the rest. */
    @Override
    public void close() throws VerbsException {
        VerbsException first = null;
        for (CmEvent event : pendingEvents) {
            try {
                event.close();
            } catch (VerbsException e) {
                first = first == null ? e : first;
            }
        }
        for (AutoCloseable resource : new AutoCloseable[] {id, listener, cq, completionChannel, window, region, pd}) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (VerbsException e) {
                if (first == null) {
                    first = e;
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        events.close();
        poller.close();
        arena.close();
        if (first != null) {
            throw first;
        }
    }

    /** A step saw something other than what rdma-core's semantics promise. */
    static final class CheckFailed extends Exception {
        private static final long serialVersionUID = 1L;

        CheckFailed(String message) {
            super(message);
        }
    }
}
