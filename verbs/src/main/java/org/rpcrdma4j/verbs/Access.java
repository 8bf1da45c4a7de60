package org.rpcrdma4j.verbs;

/** Access rights of a memory registration or window: {@code enum ibv_access_flags}. */
public enum Access {
    /** The local device may write (needed by receives, RDMA Read targets and any remote write). */
    LOCAL_WRITE(1),
    /** Peers may RDMA Write into it. */
    REMOTE_WRITE(1 << 1),
    /** Peers may RDMA Read from it. */
    REMOTE_READ(1 << 2),
    /** Peers may run atomics on it. */
    REMOTE_ATOMIC(1 << 3),
    /** Memory windows may be bound on it. */
    MW_BIND(1 << 4);

    private final int value;

    Access(int value) {
        this.value = value;
    }

    /** @return the bit of {@code IBV_ACCESS_*} */
    public int value() {
        return value;
    }

    /** The bitwise or of the rights. */
    static int bits(Access... rights) {
        int bits = 0;
        for (Access right : rights) {
            bits |= right.value;
        }
        return bits;
    }
}
