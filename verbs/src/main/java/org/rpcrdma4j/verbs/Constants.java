package org.rpcrdma4j.verbs;

/**
 * Numbers from the rdma-core 44 (efadv.h included), glibc and Linux x86_64 headers that this module
 * passes to native calls or reads in their answers, named as in C. Enumerations a user sees are enums
 * ({@link WcStatus}, {@link CmEventType}, ...); these are the rest. ConstantsTest checks each against
 * {@code src/test/layouts}.
 */
final class Constants {
    static final int IBV_MW_TYPE_2 = 2;
    static final int IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
    static final int IBV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23;
    static final int IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;
    static final int IBV_QPT_RC = 2;
    /** The type of a provider's own queue pairs, such as EFA's SRD ones. */
    static final int IBV_QPT_DRIVER = 0xff;

    static final int IBV_QP_INIT_ATTR_PD = 1;
    static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;
    static final int IBV_QP_EX_WITH_RDMA_WRITE = 1;
    static final int IBV_QP_EX_WITH_SEND = 1 << 2;
    static final int IBV_QP_EX_WITH_RDMA_READ = 1 << 4;

    static final int IBV_QPS_INIT = 1;
    static final int IBV_QPS_RTR = 2;
    static final int IBV_QPS_RTS = 3;
    static final int IBV_QP_STATE = 1;
    static final int IBV_QP_PKEY_INDEX = 1 << 4;
    static final int IBV_QP_PORT = 1 << 5;
    static final int IBV_QP_QKEY = 1 << 6;
    static final int IBV_QP_SQ_PSN = 1 << 16;
    static final int IBV_QP_RNR_RETRY = 1 << 11;

    static final int EFADV_QP_DRIVER_TYPE_SRD = 0;
    static final int EFADV_DEVICE_ATTR_CAPS_RDMA_READ = 1;
    static final int EFADV_DEVICE_ATTR_CAPS_RNR_RETRY = 1 << 1;
    static final int EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID = 1 << 2;

    static final int IBV_WR_RDMA_WRITE = 0;
    static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    static final int IBV_WR_SEND = 2;
    static final int IBV_WR_SEND_WITH_IMM = 3;
    static final int IBV_WR_RDMA_READ = 4;
    static final int IBV_WR_LOCAL_INV = 7;
    static final int IBV_WR_BIND_MW = 8;
    static final int IBV_WR_SEND_WITH_INV = 9;

    static final int IBV_SEND_FENCE = 1;
    static final int IBV_SEND_SIGNALED = 2;
    static final int IBV_SEND_SOLICITED = 4;
    static final int IBV_SEND_INLINE = 8;

    static final int IBV_WC_GRH = 1;
    static final int IBV_WC_WITH_IMM = 2;
    static final int IBV_WC_WITH_INV = 8;
    /** Also the kernel's {@code IB_WC_WITH_INVALIDATE}, which rdma_rxe writes into user completions. */
    static final int IBV_WC_IP_CSUM_OK = 4;

    static final int RDMA_PS_TCP = 0x0106;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int POLLIN = 1;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 04000;
    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;
    static final int EAGAIN = 11;
    static final int EINTR = 4;
    static final int ENODEV = 19;
    static final int ENOSYS = 38;
    static final int EOPNOTSUPP = 95;

    private Constants() {
    }
}
