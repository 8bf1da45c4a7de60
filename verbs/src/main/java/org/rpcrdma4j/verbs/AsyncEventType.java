package org.rpcrdma4j.verbs;

/**
 * The type of a device's asynchronous event: {@code enum ibv_event_type} of rdma-core 44, with the
 * text {@code ibv_event_type_str} gives it. For a connection, {@link #QP_FATAL},
 * {@link #QP_REQ_ERR} and {@link #QP_ACCESS_ERR} mean its queue pair is in the error state;
 * {@link #DEVICE_FATAL} and {@link #PORT_ERR} end every connection on the device or port.
 */
public enum AsyncEventType {
    CQ_ERR("CQ error"),
    QP_FATAL("local work queue catastrophic error"),
    QP_REQ_ERR("invalid request local work queue error"),
    QP_ACCESS_ERR("local access violation work queue error"),
    COMM_EST("communication established"),
    SQ_DRAINED("send queue drained"),
    PATH_MIG("path migrated"),
    PATH_MIG_ERR("path migration request error"),
    DEVICE_FATAL("local catastrophic error"),
    PORT_ACTIVE("port active"),
    PORT_ERR("port error"),
    LID_CHANGE("LID change"),
    PKEY_CHANGE("P_Key change"),
    SM_CHANGE("SM change"),
    SRQ_ERR("SRQ catastrophic error"),
    SRQ_LIMIT_REACHED("SRQ limit reached"),
    QP_LAST_WQE_REACHED("last WQE reached"),
    CLIENT_REREGISTER("client reregistration"),
    GID_CHANGE("GID table change"),
    WQ_FATAL("WQ fatal"),
    /** A number this binding does not know. */
    UNKNOWN("unknown");

    private static final AsyncEventType[] BY_VALUE = values();

    private final String description;

    AsyncEventType(String description) {
        this.description = description;
    }

    /** @return the number in {@code struct ibv_async_event.event_type}, -1 for {@link #UNKNOWN} */
    public int value() {
        return this == UNKNOWN ? -1 : ordinal();
    }

    /** @return what {@code ibv_event_type_str} says of it */
    public String description() {
        return description;
    }

    /** @return whether the event names a queue pair ({@code element.qp}) */
    public boolean concernsQueuePair() {
        return switch (this) {
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                 QP_LAST_WQE_REACHED -> true;
            default -> false;
        };
    }

    /** @return whether the event names a port ({@code element.port_num}) */
    public boolean concernsPort() {
        return switch (this) {
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE -> true;
            default -> false;
        };
    }

    /**
     * @param value a {@code struct ibv_async_event.event_type}
     * @return its type, {@link #UNKNOWN} for a number rdma-core 44 does not define
     */
    public static AsyncEventType of(int value) {
        return value >= 0 && value < UNKNOWN.ordinal() ? BY_VALUE[value] : UNKNOWN;
    }
}
