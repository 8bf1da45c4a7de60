package org.rpcrdma4j.transport;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A JFR event that marks the moment a call or its reply passes one step of the transport, on the
 * thread that takes the step, so that a recording shows where the microseconds of a call go: the
 * time between two marks of one XID is the step in between (a thread hand-off included). Disabled
 * unless a recording enables {@value #NAME}; then a mark costs one check. {@code testbed bench rpc
 * --breakdown} records it and prints the median time of each step.
 */
@Name(CallStepEvent.NAME)
@Label("RPC call step")
@Category({"rpcrdma4j"})
@Description("A call or its reply passing one step of the RPC-over-RDMA transport")
@StackTrace(false)
@Enabled(false)
public final class CallStepEvent extends Event {

    /** The event's name, to enable it in a recording. */
    public static final String NAME = "org.rpcrdma4j.CallStep";

    /** The caller handed the encoded call to the transport (caller's thread). */
    public static final String CALL_SUBMITTED = "call submitted";
    /** The call is planned; next it is handed to the progress thread (caller's thread). */
    public static final String CALL_PLANNED = "call planned";
    /** The call's Send is posted (requester's progress thread, or the caller's in its stead). */
    public static final String CALL_SENT = "call sent";
    /** The call's header is checked and its message taken from the receive buffer (responder's progress thread). */
    public static final String CALL_RECEIVED = "call received";
    /** The call is decoded, accepted and handed to where its program runs (responder's progress thread). */
    public static final String CALL_DISPATCHED = "call dispatched";
    /** The program starts (a worker, or the progress thread with the same-thread strategy). */
    public static final String PROGRAM_STARTED = "program started";
    /** The program's encoded reply reached the transport (the program's thread). */
    public static final String REPLY_SUBMITTED = "reply submitted";
    /** The reply is planned; next it is handed to the progress thread (the program's thread). */
    public static final String REPLY_PLANNED = "reply planned";
    /** The reply's Send is posted (responder's progress thread, or the program's in its stead). */
    public static final String REPLY_SENT = "reply sent";
    /** The reply's header is checked and the reply rebuilt (requester's progress thread). */
    public static final String REPLY_RECEIVED = "reply received";
    /** The reply is about to be handed to oncrpc4j's reply queue, which wakes the caller (requester's progress thread). */
    public static final String REPLY_DELIVERED = "reply delivered";

    /** Asks whether a recording enabled the event, which is the same for every instance. */
    private static final CallStepEvent PROBE = new CallStepEvent();

    /** The call's XID. */
    @Label("XID")
    public int xid;

    /** Which step: one of this class's constants. */
    @Label("Step")
    public String step;

    /**
     * Marks that the call {@code xid} passed {@code step} now, if a recording enabled the event.
     *
     * @param xid  the call's XID
     * @param step one of this class's constants
     */
    public static void mark(int xid, String step) {
        if (PROBE.isEnabled()) { // else no event is made: every call passes several steps
            CallStepEvent event = new CallStepEvent();
            event.xid = xid;
            event.step = step;
            event.commit();
        }
    }
}
