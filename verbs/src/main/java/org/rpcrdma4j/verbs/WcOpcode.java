package org.rpcrdma4j.verbs;

/** What a successful work completion completed: {@code enum ibv_wc_opcode} of rdma-core 44. */
public enum WcOpcode {
    SEND(0), RDMA_WRITE(1), RDMA_READ(2), COMP_SWAP(3), FETCH_ADD(4), BIND_MW(5), LOCAL_INV(6), TSO(7),
    ATOMIC_WRITE(9),
    /** A receive; {@link WorkCompletions#invalidatedRkey} tells whether it was a Send with Invalidate. */
    RECV(128),
    RECV_RDMA_WITH_IMM(129),
    /** A number this binding does not know; never in {@code ibv_wc} for the requests it posts. */
    UNKNOWN(-1);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** @return the number in {@code struct ibv_wc.opcode} */
    public int value() {
        return value;
    }

    /**
     * @param value a {@code struct ibv_wc.opcode}
     * @return its opcode, {@link #UNKNOWN} for any other number
     */
    public static WcOpcode of(int value) {
        return switch (value) {
            case 0 -> SEND;
            case 1 -> RDMA_WRITE;
            case 2 -> RDMA_READ;
            case 3 -> COMP_SWAP;
            case 4 -> FETCH_ADD;
            case 5 -> BIND_MW;
            case 6 -> LOCAL_INV;
            case 7 -> TSO;
            case 9 -> ATOMIC_WRITE;
            case 128 -> RECV;
            case 129 -> RECV_RDMA_WITH_IMM;
            default -> UNKNOWN;
        };
    }
}
