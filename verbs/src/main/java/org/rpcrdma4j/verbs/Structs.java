package org.rpcrdma4j.verbs;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * The C structs of rdma-core 44 on x86_64 (LP64) that this module reads or writes (verbs.h, rdma_cma.h
 * and libefa's efadv.h), as FFM layouts
 * named after the C structs and fields. Fields the module never touches are padding. Anonymous C
 * unions are unnamed union layouts, so that a field path reads as in C ({@code ibv_wc.invalidated_rkey}).
 *
 * <p>StructLayoutTest checks every size and every named field against the values that
 * {@code src/test/layouts/layouts.c} printed from the real headers.
 */
final class Structs {
    static final StructLayout IBV_DEVICE = structLayout(
            paddingLayout(24), sequenceLayout(64, JAVA_BYTE).withName("name"), paddingLayout(664 - 88))
            .withName("ibv_device");

    static final StructLayout IBV_CONTEXT_OPS = structLayout(
            paddingLayout(56), ADDRESS.withName("alloc_mw"), paddingLayout(8), ADDRESS.withName("dealloc_mw"),
            paddingLayout(8), ADDRESS.withName("poll_cq"), ADDRESS.withName("req_notify_cq"), paddingLayout(56),
            ADDRESS.withName("post_srq_recv"), paddingLayout(32), ADDRESS.withName("post_send"), ADDRESS.withName("post_recv"), paddingLayout(40))
            .withName("ibv_context_ops");

    static final StructLayout IBV_CONTEXT = structLayout(
            ADDRESS.withName("device"), IBV_CONTEXT_OPS.withName("ops"), JAVA_INT.withName("cmd_fd"),
            JAVA_INT.withName("async_fd"), JAVA_INT.withName("num_comp_vectors"), paddingLayout(52))
            .withName("ibv_context");

    static final StructLayout IBV_DEVICE_ATTR = structLayout(
            sequenceLayout(64, JAVA_BYTE).withName("fw_ver"), JAVA_LONG.withName("node_guid"), paddingLayout(8),
            JAVA_LONG.withName("max_mr_size"), paddingLayout(8), JAVA_INT.withName("vendor_id"),
            JAVA_INT.withName("vendor_part_id"), paddingLayout(4), JAVA_INT.withName("max_qp"),
            JAVA_INT.withName("max_qp_wr"), JAVA_INT.withName("device_cap_flags"), JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("max_sge_rd"), JAVA_INT.withName("max_cq"), JAVA_INT.withName("max_cqe"),
            JAVA_INT.withName("max_mr"), JAVA_INT.withName("max_pd"), JAVA_INT.withName("max_qp_rd_atom"),
            paddingLayout(8), JAVA_INT.withName("max_qp_init_rd_atom"), paddingLayout(16), JAVA_INT.withName("max_mw"),
            paddingLayout(47), JAVA_BYTE.withName("phys_port_cnt"), paddingLayout(4))
            .withName("ibv_device_attr");

    /** The full struct; the exported ibv_query_port fills its first 48 bytes (the compat struct). */
    static final StructLayout IBV_PORT_ATTR = structLayout(
            JAVA_INT.withName("state"), JAVA_INT.withName("max_mtu"), JAVA_INT.withName("active_mtu"),
            JAVA_INT.withName("gid_tbl_len"), JAVA_INT.withName("port_cap_flags"), JAVA_INT.withName("max_msg_sz"),
            paddingLayout(8), JAVA_SHORT.withName("pkey_tbl_len"), JAVA_SHORT.withName("lid"), paddingLayout(7),
            JAVA_BYTE.withName("active_width"), JAVA_BYTE.withName("active_speed"), JAVA_BYTE.withName("phys_state"),
            JAVA_BYTE.withName("link_layer"), paddingLayout(5))
            .withName("ibv_port_attr");

    /** {@code union ibv_gid}: 8-byte aligned because of its 64-bit member. */
    static final GroupLayout IBV_GID = unionLayout(
            sequenceLayout(16, JAVA_BYTE).withName("raw"),
            structLayout(JAVA_LONG.withName("subnet_prefix"), JAVA_LONG.withName("interface_id")).withName("global"))
            .withName("ibv_gid");

    static final StructLayout IBV_ASYNC_EVENT = structLayout(
            unionLayout(ADDRESS.withName("qp"), JAVA_INT.withName("port_num")).withName("element"),
            JAVA_INT.withName("event_type"), paddingLayout(4))
            .withName("ibv_async_event");

    static final StructLayout IBV_PD = structLayout(
            ADDRESS.withName("context"), JAVA_INT.withName("handle"), paddingLayout(4)).withName("ibv_pd");

    static final StructLayout IBV_MR = structLayout(
            ADDRESS.withName("context"), ADDRESS.withName("pd"), ADDRESS.withName("addr"), JAVA_LONG.withName("length"),
            JAVA_INT.withName("handle"), JAVA_INT.withName("lkey"), JAVA_INT.withName("rkey"), paddingLayout(4))
            .withName("ibv_mr");

    static final StructLayout IBV_MW = structLayout(
            ADDRESS.withName("context"), ADDRESS.withName("pd"), JAVA_INT.withName("rkey"), JAVA_INT.withName("handle"),
            JAVA_INT.withName("type"), paddingLayout(4)).withName("ibv_mw");

    static final StructLayout IBV_COMP_CHANNEL = structLayout(
            ADDRESS.withName("context"), JAVA_INT.withName("fd"), JAVA_INT.withName("refcnt"))
            .withName("ibv_comp_channel");

    static final StructLayout IBV_CQ = structLayout(
            ADDRESS.withName("context"), ADDRESS.withName("channel"), ADDRESS.withName("cq_context"),
            JAVA_INT.withName("handle"), JAVA_INT.withName("cqe"), paddingLayout(96))
            .withName("ibv_cq");

    static final StructLayout IBV_QP = structLayout(
            ADDRESS.withName("context"), ADDRESS.withName("qp_context"), ADDRESS.withName("pd"),
            ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq"), ADDRESS.withName("srq"),
            JAVA_INT.withName("handle"), JAVA_INT.withName("qp_num"), JAVA_INT.withName("state"),
            JAVA_INT.withName("qp_type"), paddingLayout(96))
            .withName("ibv_qp");

    static final StructLayout IBV_SRQ_ATTR = structLayout(
            JAVA_INT.withName("max_wr"), JAVA_INT.withName("max_sge"), JAVA_INT.withName("srq_limit"))
            .withName("ibv_srq_attr");

    static final StructLayout IBV_SRQ_INIT_ATTR = structLayout(
            ADDRESS.withName("srq_context"), IBV_SRQ_ATTR.withName("attr"), paddingLayout(4))
            .withName("ibv_srq_init_attr");

    /** A shared receive queue: what {@code ibv_post_srq_recv} reads, its context (for the ops). */
    static final StructLayout IBV_SRQ = structLayout(
            ADDRESS.withName("context"), ADDRESS.withName("srq_context"), ADDRESS.withName("pd"),
            JAVA_INT.withName("handle"), paddingLayout(100))
            .withName("ibv_srq");

    static final StructLayout IBV_QP_CAP = structLayout(
            JAVA_INT.withName("max_send_wr"), JAVA_INT.withName("max_recv_wr"), JAVA_INT.withName("max_send_sge"),
            JAVA_INT.withName("max_recv_sge"), JAVA_INT.withName("max_inline_data"))
            .withName("ibv_qp_cap");

    static final StructLayout IBV_QP_INIT_ATTR = structLayout(
            ADDRESS.withName("qp_context"), ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"), IBV_QP_CAP.withName("cap"), JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"), paddingLayout(4))
            .withName("ibv_qp_init_attr");

    /** What {@code efadv_create_qp_ex} reads: the plain attributes, the domain and the send operations wanted. */
    static final StructLayout IBV_QP_INIT_ATTR_EX = structLayout(
            ADDRESS.withName("qp_context"), ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"), IBV_QP_CAP.withName("cap"), JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"), JAVA_INT.withName("comp_mask"), ADDRESS.withName("pd"),
            paddingLayout(56), JAVA_LONG.withName("send_ops_flags"))
            .withName("ibv_qp_init_attr_ex");

    /** Only what {@code ibv_modify_qp} needs to take a datagram queue pair to RTS. */
    static final StructLayout IBV_QP_ATTR = structLayout(
            JAVA_INT.withName("qp_state"), paddingLayout(12), JAVA_INT.withName("qkey"), paddingLayout(4),
            JAVA_INT.withName("sq_psn"), paddingLayout(92), JAVA_SHORT.withName("pkey_index"), paddingLayout(7),
            JAVA_BYTE.withName("port_num"), paddingLayout(2), JAVA_BYTE.withName("rnr_retry"), paddingLayout(11))
            .withName("ibv_qp_attr");

    /**
     * The extended queue pair: an {@code ibv_qp}, then the next request's {@code wr_id} and flags, then
     * the provider's {@code wr_*} functions, which verbs.h's static inline {@code ibv_wr_*} call.
     */
    static final StructLayout IBV_QP_EX = structLayout(
            IBV_QP.withName("qp_base"), paddingLayout(8), JAVA_LONG.withName("wr_id"), JAVA_INT.withName("wr_flags"),
            paddingLayout(36), ADDRESS.withName("wr_rdma_read"), ADDRESS.withName("wr_rdma_write"), paddingLayout(8),
            ADDRESS.withName("wr_send"), paddingLayout(24), ADDRESS.withName("wr_set_ud_addr"), paddingLayout(8),
            ADDRESS.withName("wr_set_inline_data"), paddingLayout(8), ADDRESS.withName("wr_set_sge"),
            paddingLayout(8), ADDRESS.withName("wr_start"), ADDRESS.withName("wr_complete"),
            ADDRESS.withName("wr_abort"), paddingLayout(8))
            .withName("ibv_qp_ex");

    /** An address handle's attributes: a global route to a GID through a port, as EFA needs. */
    static final StructLayout IBV_AH_ATTR = structLayout(
            structLayout(IBV_GID.withName("dgid"), paddingLayout(8)).withName("grh"), paddingLayout(5),
            JAVA_BYTE.withName("is_global"), JAVA_BYTE.withName("port_num"), paddingLayout(1))
            .withName("ibv_ah_attr");

    /** efadv.h: what an EFA device can do with SRD queue pairs ({@code efadv_query_device}). */
    static final StructLayout EFADV_DEVICE_ATTR = structLayout(
            paddingLayout(8), JAVA_INT.withName("max_sq_wr"), JAVA_INT.withName("max_rq_wr"),
            JAVA_SHORT.withName("max_sq_sge"), JAVA_SHORT.withName("max_rq_sge"), JAVA_SHORT.withName("inline_buf_size"),
            paddingLayout(2), JAVA_INT.withName("device_caps"), JAVA_INT.withName("max_rdma_size"))
            .withName("efadv_device_attr");

    /** efadv.h: the driver queue pair type {@code efadv_create_qp_ex} makes. */
    static final StructLayout EFADV_QP_INIT_ATTR = structLayout(
            paddingLayout(8), JAVA_INT.withName("driver_qp_type"), paddingLayout(4))
            .withName("efadv_qp_init_attr");

    /** efadv.h: an address handle's number on the device ({@code efadv_query_ah}). */
    static final StructLayout EFADV_AH_ATTR = structLayout(
            paddingLayout(8), JAVA_SHORT.withName("ahn"), paddingLayout(6))
            .withName("efadv_ah_attr");

    static final StructLayout IBV_SGE = structLayout(
            JAVA_LONG.withName("addr"), JAVA_INT.withName("length"), JAVA_INT.withName("lkey")).withName("ibv_sge");

    static final StructLayout IBV_RECV_WR = structLayout(
            JAVA_LONG.withName("wr_id"), ADDRESS.withName("next"), ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"), paddingLayout(4))
            .withName("ibv_recv_wr");

    static final StructLayout IBV_SEND_WR = structLayout(
            JAVA_LONG.withName("wr_id"), ADDRESS.withName("next"), ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"), JAVA_INT.withName("opcode"), JAVA_INT.withName("send_flags"),
            unionLayout(JAVA_INT.withName("imm_data"), JAVA_INT.withName("invalidate_rkey")),
            unionLayout(
                    structLayout(JAVA_LONG.withName("remote_addr"), JAVA_INT.withName("rkey"), paddingLayout(4))
                            .withName("rdma"),
                    paddingLayout(32)).withName("wr"),
            JAVA_INT.withName("qp_type"), paddingLayout(4),
            structLayout(
                    ADDRESS.withName("mw"), JAVA_INT.withName("rkey"), paddingLayout(4),
                    structLayout(ADDRESS.withName("mr"), JAVA_LONG.withName("addr"), JAVA_LONG.withName("length"),
                            JAVA_INT.withName("mw_access_flags"), paddingLayout(4)).withName("bind_info"))
                    .withName("bind_mw"))
            .withName("ibv_send_wr");

    static final StructLayout IBV_WC = structLayout(
            JAVA_LONG.withName("wr_id"), JAVA_INT.withName("status"), JAVA_INT.withName("opcode"),
            JAVA_INT.withName("vendor_err"), JAVA_INT.withName("byte_len"),
            unionLayout(JAVA_INT.withName("imm_data"), JAVA_INT.withName("invalidated_rkey")),
            JAVA_INT.withName("qp_num"), JAVA_INT.withName("src_qp"), JAVA_INT.withName("wc_flags"),
            JAVA_SHORT.withName("pkey_index"), JAVA_SHORT.withName("slid"), JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("dlid_path_bits"), paddingLayout(2))
            .withName("ibv_wc");

    static final StructLayout RDMA_EVENT_CHANNEL = structLayout(JAVA_INT.withName("fd")).withName("rdma_event_channel");

    static final StructLayout SOCKADDR_STORAGE = structLayout(paddingLayout(128)).withName("sockaddr_storage");

    static final StructLayout RDMA_CM_ID = structLayout(
            ADDRESS.withName("verbs"), ADDRESS.withName("channel"), ADDRESS.withName("context"), ADDRESS.withName("qp"),
            structLayout(
                    structLayout(sequenceLayout(128, JAVA_BYTE).withName("src_addr"),
                            sequenceLayout(128, JAVA_BYTE).withName("dst_addr"), paddingLayout(40)).withName("addr"),
                    paddingLayout(16)).withName("route"),
            JAVA_INT.withName("ps"), JAVA_BYTE.withName("port_num"), paddingLayout(3), paddingLayout(48),
            ADDRESS.withName("pd"), JAVA_INT.withName("qp_type"), paddingLayout(4))
            .withName("rdma_cm_id");

    static final StructLayout RDMA_CONN_PARAM = structLayout(
            ADDRESS.withName("private_data"), JAVA_BYTE.withName("private_data_len"),
            JAVA_BYTE.withName("responder_resources"), JAVA_BYTE.withName("initiator_depth"),
            JAVA_BYTE.withName("flow_control"), JAVA_BYTE.withName("retry_count"), JAVA_BYTE.withName("rnr_retry_count"),
            JAVA_BYTE.withName("srq"), paddingLayout(1), JAVA_INT.withName("qp_num"), paddingLayout(4))
            .withName("rdma_conn_param");

    static final StructLayout RDMA_CM_EVENT = structLayout(
            ADDRESS.withName("id"), ADDRESS.withName("listen_id"), JAVA_INT.withName("event"), JAVA_INT.withName("status"),
            unionLayout(RDMA_CONN_PARAM.withName("conn"), paddingLayout(56)).withName("param"))
            .withName("rdma_cm_event");

    static final StructLayout SOCKADDR_IN = structLayout(
            JAVA_SHORT.withName("sin_family"), JAVA_SHORT.withName("sin_port"),
            sequenceLayout(4, JAVA_BYTE).withName("sin_addr"), paddingLayout(8))
            .withName("sockaddr_in");

    static final StructLayout SOCKADDR_IN6 = structLayout(
            JAVA_SHORT.withName("sin6_family"), JAVA_SHORT.withName("sin6_port"), JAVA_INT.withName("sin6_flowinfo"),
            sequenceLayout(16, JAVA_BYTE).withName("sin6_addr"), JAVA_INT.withName("sin6_scope_id"))
            .withName("sockaddr_in6");

    static final StructLayout POLLFD = structLayout(
            JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents"))
            .withName("pollfd");

    /** Every layout above, for the layout test. */
    static final List<GroupLayout> ALL = List.of(IBV_DEVICE, IBV_CONTEXT_OPS, IBV_CONTEXT, IBV_DEVICE_ATTR,
            IBV_PORT_ATTR, IBV_GID, IBV_ASYNC_EVENT, IBV_PD, IBV_MR, IBV_MW, IBV_COMP_CHANNEL, IBV_CQ, IBV_SRQ_ATTR, IBV_SRQ_INIT_ATTR, IBV_SRQ, IBV_QP, IBV_QP_CAP,
            IBV_QP_INIT_ATTR, IBV_QP_INIT_ATTR_EX, IBV_QP_ATTR, IBV_QP_EX, IBV_AH_ATTR, EFADV_DEVICE_ATTR,
            EFADV_QP_INIT_ATTR, EFADV_AH_ATTR, IBV_SGE, IBV_RECV_WR, IBV_SEND_WR, IBV_WC, RDMA_EVENT_CHANNEL,
            SOCKADDR_STORAGE, RDMA_CM_ID, RDMA_CONN_PARAM, RDMA_CM_EVENT, SOCKADDR_IN, SOCKADDR_IN6, POLLFD);

    private Structs() {
    }

    /**
     * The byte offset of a field given by its C path ({@code "cap.max_send_wr"}); members of unnamed
     * unions and structs are found as C finds members of anonymous unions.
     *
     * @throws IllegalArgumentException if the path names no field
     */
    static long offset(GroupLayout group, String path) {
        long offset = 0;
        MemoryLayout current = group;
        for (String name : path.split("\\.")) {
            if (!(current instanceof GroupLayout g)) {
                throw new IllegalArgumentException(path + ": " + current + " has no members");
            }
            Member member = find(g, name, 0);
            if (member == null) {
                throw new IllegalArgumentException(path + ": no member " + name + " in " + g);
            }
            offset += member.offset();
            current = member.layout();
        }
        return offset;
    }

    private record Member(long offset, MemoryLayout layout) {
    }

    /** The member called name in g at its offset from base, looking through unnamed groups; null if absent. */
    private static Member find(GroupLayout g, String name, long base) {
        long at = base;
        for (MemoryLayout member : g.memberLayouts()) {
            if (member.name().filter(name::equals).isPresent()) {
                return new Member(at, member);
            }
            if (member.name().isEmpty() && member instanceof GroupLayout inner) {
                Member nested = find(inner, name, at);
                if (nested != null) {
                    return nested;
                }
            }
            if (g instanceof StructLayout) {
                at += member.byteSize();
            }
        }
        return null;
    }
}
