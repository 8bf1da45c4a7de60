package org.rpcrdma4j.verbs;

/** A port's link layer: {@code IBV_LINK_LAYER_*}; RoCE and Soft-RoCE ports are {@link #ETHERNET}. */
public enum LinkLayer {
    UNSPECIFIED, INFINIBAND, ETHERNET,
    /** A number this binding does not know. */
    UNKNOWN;

    private static final LinkLayer[] BY_VALUE = values();

    /** @return the number in {@code struct ibv_port_attr.link_layer}, -1 for {@link #UNKNOWN} */
    public int value() {
        return this == UNKNOWN ? -1 : ordinal();
    }

    static LinkLayer of(int value) {
        return value >= 0 && value < UNKNOWN.ordinal() ? BY_VALUE[value] : UNKNOWN;
    }
}
