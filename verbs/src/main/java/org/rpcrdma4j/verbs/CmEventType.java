package org.rpcrdma4j.verbs;

/** The type of an RDMA-CM event: {@code enum rdma_cm_event_type} of rdma-core 44. */
public enum CmEventType {
    ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR,
    /** A connection request on a listening id; the event's id is the new connection's. */
    CONNECT_REQUEST,
    CONNECT_RESPONSE, CONNECT_ERROR, UNREACHABLE, REJECTED, ESTABLISHED, DISCONNECTED,
    /** The device under the id went away: destroy its queue pair and id. */
    DEVICE_REMOVAL,
    MULTICAST_JOIN, MULTICAST_ERROR, ADDR_CHANGE,
    /** The queue pair's time-wait is over: its number may be reused and the id destroyed. */
    TIMEWAIT_EXIT,
    /** A number this binding does not know. */
    UNKNOWN;

    private static final CmEventType[] BY_VALUE = values();

    /** @return the number in {@code struct rdma_cm_event.event}, -1 for {@link #UNKNOWN} */
    public int value() {
        return this == UNKNOWN ? -1 : ordinal();
    }

    /** @return the name {@code rdma_event_str} gives it */
    public String description() {
        return "RDMA_CM_EVENT_" + name();
    }

    /**
     * @param value a {@code struct rdma_cm_event.event}
     * @return its type, {@link #UNKNOWN} for a number rdma-core 44 does not define
     */
    public static CmEventType of(int value) {
        return value >= 0 && value < UNKNOWN.ordinal() ? BY_VALUE[value] : UNKNOWN;
    }
}
