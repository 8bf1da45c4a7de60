package org.rpcrdma4j.verbs;

/** The logical state of a port: {@code enum ibv_port_state}. */
public enum PortState {
    NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER,
    /** A number this binding does not know. */
    UNKNOWN;

    private static final PortState[] BY_VALUE = values();

    /** @return the number in {@code struct ibv_port_attr.state}, -1 for {@link #UNKNOWN} */
    public int value() {
        return this == UNKNOWN ? -1 : ordinal();
    }

    static PortState of(int value) {
        return value >= 0 && value < UNKNOWN.ordinal() ? BY_VALUE[value] : UNKNOWN;
    }
}
