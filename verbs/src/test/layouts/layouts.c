/*
 * Prints the struct sizes, field offsets, constants and status strings that the verbs module's
 * Java layouts (org.rpcrdma4j.verbs.Structs) and enums hard-code, taken from the installed
 * rdma-core headers and libraries. Run by take-layouts.sh, never by the build; its output,
 * rdma-core-44.x86_64.txt, is committed and read by the tests.
 *
 * Line kinds: "sizeof STRUCT N", "offsetof STRUCT.FIELD[.SUB] N", "const NAME N",
 * "str FUNCTION VALUE TEXT".
 */
#include <stddef.h>
#include <stdio.h>
#include <fcntl.h>
#include <poll.h>
#include <errno.h>
#include <sys/eventfd.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <infiniband/efadv.h>

#define SZ(T) printf("sizeof %s %zu\n", #T, sizeof(struct T))
#define OFF(T, f) printf("offsetof %s.%s %zu\n", #T, #f, offsetof(struct T, f))
#define K(x) printf("const %s %lld\n", #x, (long long)(x))

int main(void)
{
	SZ(ibv_device); OFF(ibv_device, name);

	SZ(ibv_context); OFF(ibv_context, device); OFF(ibv_context, ops); OFF(ibv_context, cmd_fd);
	OFF(ibv_context, async_fd); OFF(ibv_context, num_comp_vectors);

	SZ(ibv_context_ops); OFF(ibv_context_ops, alloc_mw); OFF(ibv_context_ops, dealloc_mw);
	OFF(ibv_context_ops, poll_cq); OFF(ibv_context_ops, req_notify_cq); OFF(ibv_context_ops, post_srq_recv);
	OFF(ibv_context_ops, post_send);
	OFF(ibv_context_ops, post_recv);

	SZ(ibv_device_attr); OFF(ibv_device_attr, fw_ver); OFF(ibv_device_attr, node_guid);
	OFF(ibv_device_attr, max_mr_size); OFF(ibv_device_attr, vendor_id); OFF(ibv_device_attr, vendor_part_id);
	OFF(ibv_device_attr, max_qp); OFF(ibv_device_attr, max_qp_wr); OFF(ibv_device_attr, device_cap_flags);
	OFF(ibv_device_attr, max_sge); OFF(ibv_device_attr, max_sge_rd); OFF(ibv_device_attr, max_cq);
	OFF(ibv_device_attr, max_cqe); OFF(ibv_device_attr, max_mr); OFF(ibv_device_attr, max_pd);
	OFF(ibv_device_attr, max_qp_rd_atom); OFF(ibv_device_attr, max_qp_init_rd_atom);
	OFF(ibv_device_attr, max_mw); OFF(ibv_device_attr, phys_port_cnt);

	SZ(ibv_port_attr); OFF(ibv_port_attr, state); OFF(ibv_port_attr, max_mtu); OFF(ibv_port_attr, active_mtu);
	OFF(ibv_port_attr, gid_tbl_len); OFF(ibv_port_attr, port_cap_flags); OFF(ibv_port_attr, max_msg_sz);
	OFF(ibv_port_attr, pkey_tbl_len); OFF(ibv_port_attr, lid); OFF(ibv_port_attr, active_width);
	OFF(ibv_port_attr, active_speed); OFF(ibv_port_attr, phys_state); OFF(ibv_port_attr, link_layer);

	printf("sizeof ibv_gid %zu\n", sizeof(union ibv_gid));
	printf("offsetof ibv_gid.raw %zu\n", offsetof(union ibv_gid, raw));
	printf("offsetof ibv_gid.global.subnet_prefix %zu\n", offsetof(union ibv_gid, global.subnet_prefix));
	printf("offsetof ibv_gid.global.interface_id %zu\n", offsetof(union ibv_gid, global.interface_id));

	SZ(ibv_async_event); OFF(ibv_async_event, element); OFF(ibv_async_event, element.qp);
	OFF(ibv_async_event, element.port_num); OFF(ibv_async_event, event_type);

	SZ(ibv_pd); OFF(ibv_pd, context); OFF(ibv_pd, handle);
	SZ(ibv_mr); OFF(ibv_mr, context); OFF(ibv_mr, pd); OFF(ibv_mr, addr); OFF(ibv_mr, length);
	OFF(ibv_mr, handle); OFF(ibv_mr, lkey); OFF(ibv_mr, rkey);
	SZ(ibv_mw); OFF(ibv_mw, context); OFF(ibv_mw, pd); OFF(ibv_mw, rkey); OFF(ibv_mw, handle); OFF(ibv_mw, type);
	SZ(ibv_comp_channel); OFF(ibv_comp_channel, context); OFF(ibv_comp_channel, fd); OFF(ibv_comp_channel, refcnt);
	SZ(ibv_cq); OFF(ibv_cq, context); OFF(ibv_cq, channel); OFF(ibv_cq, cq_context); OFF(ibv_cq, handle);
	OFF(ibv_cq, cqe);
	/* Shared receive queues: ibv_create_srq, and ibv_post_srq_recv through ibv_context.ops. */
	SZ(ibv_srq_attr); OFF(ibv_srq_attr, max_wr); OFF(ibv_srq_attr, max_sge); OFF(ibv_srq_attr, srq_limit);
	SZ(ibv_srq_init_attr); OFF(ibv_srq_init_attr, srq_context); OFF(ibv_srq_init_attr, attr);
	OFF(ibv_srq_init_attr, attr.max_wr); OFF(ibv_srq_init_attr, attr.max_sge); OFF(ibv_srq_init_attr, attr.srq_limit);
	SZ(ibv_srq); OFF(ibv_srq, context); OFF(ibv_srq, srq_context); OFF(ibv_srq, pd); OFF(ibv_srq, handle);
	SZ(ibv_qp); OFF(ibv_qp, context); OFF(ibv_qp, qp_context); OFF(ibv_qp, pd); OFF(ibv_qp, send_cq);
	OFF(ibv_qp, recv_cq); OFF(ibv_qp, srq); OFF(ibv_qp, handle); OFF(ibv_qp, qp_num); OFF(ibv_qp, state);
	OFF(ibv_qp, qp_type);

	SZ(ibv_qp_cap); OFF(ibv_qp_cap, max_send_wr); OFF(ibv_qp_cap, max_recv_wr); OFF(ibv_qp_cap, max_send_sge);
	OFF(ibv_qp_cap, max_recv_sge); OFF(ibv_qp_cap, max_inline_data);
	SZ(ibv_qp_init_attr); OFF(ibv_qp_init_attr, qp_context); OFF(ibv_qp_init_attr, send_cq);
	OFF(ibv_qp_init_attr, recv_cq); OFF(ibv_qp_init_attr, srq); OFF(ibv_qp_init_attr, cap);
	OFF(ibv_qp_init_attr, cap.max_send_wr); OFF(ibv_qp_init_attr, cap.max_recv_wr);
	OFF(ibv_qp_init_attr, cap.max_send_sge); OFF(ibv_qp_init_attr, cap.max_recv_sge);
	OFF(ibv_qp_init_attr, cap.max_inline_data); OFF(ibv_qp_init_attr, qp_type); OFF(ibv_qp_init_attr, sq_sig_all);

	/* Queue pairs made by efadv_create_qp_ex, moved to RTS by ibv_modify_qp, posted to through ibv_qp_ex. */
	SZ(ibv_qp_init_attr_ex); OFF(ibv_qp_init_attr_ex, qp_context); OFF(ibv_qp_init_attr_ex, send_cq);
	OFF(ibv_qp_init_attr_ex, recv_cq); OFF(ibv_qp_init_attr_ex, srq); OFF(ibv_qp_init_attr_ex, cap);
	OFF(ibv_qp_init_attr_ex, qp_type); OFF(ibv_qp_init_attr_ex, sq_sig_all); OFF(ibv_qp_init_attr_ex, comp_mask);
	OFF(ibv_qp_init_attr_ex, pd); OFF(ibv_qp_init_attr_ex, send_ops_flags);
	SZ(ibv_qp_attr); OFF(ibv_qp_attr, qp_state); OFF(ibv_qp_attr, qkey); OFF(ibv_qp_attr, sq_psn);
	OFF(ibv_qp_attr, pkey_index); OFF(ibv_qp_attr, port_num); OFF(ibv_qp_attr, rnr_retry);
	SZ(ibv_qp_ex); OFF(ibv_qp_ex, qp_base); OFF(ibv_qp_ex, wr_id);
	OFF(ibv_qp_ex, wr_flags); OFF(ibv_qp_ex, wr_rdma_read); OFF(ibv_qp_ex, wr_rdma_write); OFF(ibv_qp_ex, wr_send);
	OFF(ibv_qp_ex, wr_set_ud_addr); OFF(ibv_qp_ex, wr_set_inline_data); OFF(ibv_qp_ex, wr_set_sge);
	OFF(ibv_qp_ex, wr_start); OFF(ibv_qp_ex, wr_complete); OFF(ibv_qp_ex, wr_abort);
	SZ(ibv_ah_attr); OFF(ibv_ah_attr, grh); OFF(ibv_ah_attr, grh.dgid); OFF(ibv_ah_attr, is_global);
	OFF(ibv_ah_attr, port_num);

	/* libefa's direct verbs (efadv.h): SRD queue pairs and what the device can do with them. */
	SZ(efadv_device_attr); OFF(efadv_device_attr, max_sq_wr);
	OFF(efadv_device_attr, max_rq_wr); OFF(efadv_device_attr, max_sq_sge); OFF(efadv_device_attr, max_rq_sge);
	OFF(efadv_device_attr, inline_buf_size); OFF(efadv_device_attr, device_caps);
	OFF(efadv_device_attr, max_rdma_size);
	SZ(efadv_qp_init_attr); OFF(efadv_qp_init_attr, driver_qp_type);
	SZ(efadv_ah_attr); OFF(efadv_ah_attr, ahn);

	SZ(ibv_sge); OFF(ibv_sge, addr); OFF(ibv_sge, length); OFF(ibv_sge, lkey);
	SZ(ibv_recv_wr); OFF(ibv_recv_wr, wr_id); OFF(ibv_recv_wr, next); OFF(ibv_recv_wr, sg_list);
	OFF(ibv_recv_wr, num_sge);
	SZ(ibv_send_wr); OFF(ibv_send_wr, wr_id); OFF(ibv_send_wr, next); OFF(ibv_send_wr, sg_list);
	OFF(ibv_send_wr, num_sge); OFF(ibv_send_wr, opcode); OFF(ibv_send_wr, send_flags);
	OFF(ibv_send_wr, imm_data); OFF(ibv_send_wr, invalidate_rkey);
	OFF(ibv_send_wr, wr); OFF(ibv_send_wr, wr.rdma.remote_addr); OFF(ibv_send_wr, wr.rdma.rkey);
	OFF(ibv_send_wr, qp_type); OFF(ibv_send_wr, bind_mw); OFF(ibv_send_wr, bind_mw.mw); OFF(ibv_send_wr, bind_mw.rkey);
	OFF(ibv_send_wr, bind_mw.bind_info); OFF(ibv_send_wr, bind_mw.bind_info.mr);
	OFF(ibv_send_wr, bind_mw.bind_info.addr); OFF(ibv_send_wr, bind_mw.bind_info.length);
	OFF(ibv_send_wr, bind_mw.bind_info.mw_access_flags);
	SZ(ibv_wc); OFF(ibv_wc, wr_id); OFF(ibv_wc, status); OFF(ibv_wc, opcode); OFF(ibv_wc, vendor_err);
	OFF(ibv_wc, byte_len); OFF(ibv_wc, imm_data); OFF(ibv_wc, invalidated_rkey); OFF(ibv_wc, qp_num);
	OFF(ibv_wc, src_qp); OFF(ibv_wc, wc_flags); OFF(ibv_wc, pkey_index); OFF(ibv_wc, slid); OFF(ibv_wc, sl);
	OFF(ibv_wc, dlid_path_bits);

	SZ(rdma_event_channel); OFF(rdma_event_channel, fd);
	SZ(rdma_cm_id); OFF(rdma_cm_id, verbs); OFF(rdma_cm_id, channel); OFF(rdma_cm_id, context);
	OFF(rdma_cm_id, qp); OFF(rdma_cm_id, route); OFF(rdma_cm_id, route.addr.src_addr);
	OFF(rdma_cm_id, route.addr.dst_addr); OFF(rdma_cm_id, ps); OFF(rdma_cm_id, port_num);
	OFF(rdma_cm_id, pd); OFF(rdma_cm_id, qp_type);
	SZ(rdma_conn_param); OFF(rdma_conn_param, private_data); OFF(rdma_conn_param, private_data_len);
	OFF(rdma_conn_param, responder_resources); OFF(rdma_conn_param, initiator_depth);
	OFF(rdma_conn_param, flow_control); OFF(rdma_conn_param, retry_count); OFF(rdma_conn_param, rnr_retry_count);
	OFF(rdma_conn_param, srq); OFF(rdma_conn_param, qp_num);
	SZ(rdma_cm_event); OFF(rdma_cm_event, id); OFF(rdma_cm_event, listen_id); OFF(rdma_cm_event, event);
	OFF(rdma_cm_event, status); OFF(rdma_cm_event, param); OFF(rdma_cm_event, param.conn); OFF(rdma_cm_event, param.conn.private_data);
	OFF(rdma_cm_event, param.conn.private_data_len);

	SZ(sockaddr_in); OFF(sockaddr_in, sin_family); OFF(sockaddr_in, sin_port); OFF(sockaddr_in, sin_addr);
	SZ(sockaddr_in6); OFF(sockaddr_in6, sin6_family); OFF(sockaddr_in6, sin6_port);
	OFF(sockaddr_in6, sin6_flowinfo); OFF(sockaddr_in6, sin6_addr); OFF(sockaddr_in6, sin6_scope_id);
	SZ(sockaddr_storage);
	SZ(pollfd); OFF(pollfd, fd); OFF(pollfd, events); OFF(pollfd, revents);

	K(IBV_ACCESS_LOCAL_WRITE); K(IBV_ACCESS_REMOTE_WRITE); K(IBV_ACCESS_REMOTE_READ);
	K(IBV_ACCESS_REMOTE_ATOMIC); K(IBV_ACCESS_MW_BIND);
	K(IBV_MW_TYPE_2); K(IBV_DEVICE_MEM_MGT_EXTENSIONS);
	K(IBV_DEVICE_MEM_WINDOW_TYPE_2A); K(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	K(IBV_QPT_RC); K(IBV_QPT_DRIVER);
	K(IBV_QP_INIT_ATTR_PD); K(IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	K(IBV_QP_EX_WITH_SEND); K(IBV_QP_EX_WITH_RDMA_READ); K(IBV_QP_EX_WITH_RDMA_WRITE);
	K(IBV_QPS_INIT); K(IBV_QPS_RTR); K(IBV_QPS_RTS);
	K(IBV_QP_STATE); K(IBV_QP_PKEY_INDEX); K(IBV_QP_PORT); K(IBV_QP_QKEY); K(IBV_QP_SQ_PSN); K(IBV_QP_RNR_RETRY);
	K(EFADV_QP_DRIVER_TYPE_SRD); K(EFADV_DEVICE_ATTR_CAPS_RDMA_READ); K(EFADV_DEVICE_ATTR_CAPS_RNR_RETRY);
	K(EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID);
	K(IBV_WR_RDMA_WRITE); K(IBV_WR_RDMA_WRITE_WITH_IMM); K(IBV_WR_SEND); K(IBV_WR_SEND_WITH_IMM);
	K(IBV_WR_RDMA_READ); K(IBV_WR_LOCAL_INV); K(IBV_WR_BIND_MW); K(IBV_WR_SEND_WITH_INV);
	K(IBV_SEND_FENCE); K(IBV_SEND_SIGNALED); K(IBV_SEND_SOLICITED); K(IBV_SEND_INLINE);
	K(IBV_WC_SEND); K(IBV_WC_RDMA_WRITE); K(IBV_WC_RDMA_READ); K(IBV_WC_COMP_SWAP); K(IBV_WC_FETCH_ADD);
	K(IBV_WC_BIND_MW); K(IBV_WC_LOCAL_INV); K(IBV_WC_TSO); K(IBV_WC_ATOMIC_WRITE); K(IBV_WC_RECV);
	K(IBV_WC_RECV_RDMA_WITH_IMM);
	K(IBV_WC_GRH); K(IBV_WC_WITH_IMM); K(IBV_WC_WITH_INV); K(IBV_WC_IP_CSUM_OK);
	K(IBV_PORT_NOP); K(IBV_PORT_DOWN); K(IBV_PORT_INIT); K(IBV_PORT_ARMED); K(IBV_PORT_ACTIVE);
	K(IBV_PORT_ACTIVE_DEFER);
	K(IBV_LINK_LAYER_UNSPECIFIED); K(IBV_LINK_LAYER_INFINIBAND); K(IBV_LINK_LAYER_ETHERNET);
	K(RDMA_PS_TCP); K(AF_INET); K(AF_INET6); K(POLLIN);
	K(F_GETFL); K(F_SETFL); K(O_NONBLOCK); K(EFD_NONBLOCK); K(EFD_CLOEXEC); K(EAGAIN); K(EINTR); K(ENODEV); K(ENOSYS); K(EOPNOTSUPP);
	K(IBV_WC_SUCCESS); K(IBV_WC_LOC_LEN_ERR); K(IBV_WC_LOC_QP_OP_ERR); K(IBV_WC_LOC_EEC_OP_ERR);
	K(IBV_WC_LOC_PROT_ERR); K(IBV_WC_WR_FLUSH_ERR); K(IBV_WC_MW_BIND_ERR); K(IBV_WC_BAD_RESP_ERR);
	K(IBV_WC_LOC_ACCESS_ERR); K(IBV_WC_REM_INV_REQ_ERR); K(IBV_WC_REM_ACCESS_ERR); K(IBV_WC_REM_OP_ERR);
	K(IBV_WC_RETRY_EXC_ERR); K(IBV_WC_RNR_RETRY_EXC_ERR); K(IBV_WC_LOC_RDD_VIOL_ERR);
	K(IBV_WC_REM_INV_RD_REQ_ERR); K(IBV_WC_REM_ABORT_ERR); K(IBV_WC_INV_EECN_ERR);
	K(IBV_WC_INV_EEC_STATE_ERR); K(IBV_WC_FATAL_ERR); K(IBV_WC_RESP_TIMEOUT_ERR); K(IBV_WC_GENERAL_ERR);
	K(IBV_WC_TM_ERR); K(IBV_WC_TM_RNDV_INCOMPLETE);
	K(IBV_EVENT_CQ_ERR); K(IBV_EVENT_QP_FATAL); K(IBV_EVENT_QP_REQ_ERR); K(IBV_EVENT_QP_ACCESS_ERR);
	K(IBV_EVENT_COMM_EST); K(IBV_EVENT_SQ_DRAINED); K(IBV_EVENT_PATH_MIG); K(IBV_EVENT_PATH_MIG_ERR);
	K(IBV_EVENT_DEVICE_FATAL); K(IBV_EVENT_PORT_ACTIVE); K(IBV_EVENT_PORT_ERR); K(IBV_EVENT_LID_CHANGE);
	K(IBV_EVENT_PKEY_CHANGE); K(IBV_EVENT_SM_CHANGE); K(IBV_EVENT_SRQ_ERR); K(IBV_EVENT_SRQ_LIMIT_REACHED);
	K(IBV_EVENT_QP_LAST_WQE_REACHED); K(IBV_EVENT_CLIENT_REREGISTER); K(IBV_EVENT_GID_CHANGE);
	K(IBV_EVENT_WQ_FATAL);
	K(RDMA_CM_EVENT_ADDR_RESOLVED); K(RDMA_CM_EVENT_ADDR_ERROR); K(RDMA_CM_EVENT_ROUTE_RESOLVED);
	K(RDMA_CM_EVENT_ROUTE_ERROR); K(RDMA_CM_EVENT_CONNECT_REQUEST); K(RDMA_CM_EVENT_CONNECT_RESPONSE);
	K(RDMA_CM_EVENT_CONNECT_ERROR); K(RDMA_CM_EVENT_UNREACHABLE); K(RDMA_CM_EVENT_REJECTED);
	K(RDMA_CM_EVENT_ESTABLISHED); K(RDMA_CM_EVENT_DISCONNECTED); K(RDMA_CM_EVENT_DEVICE_REMOVAL);
	K(RDMA_CM_EVENT_MULTICAST_JOIN); K(RDMA_CM_EVENT_MULTICAST_ERROR); K(RDMA_CM_EVENT_ADDR_CHANGE);
	K(RDMA_CM_EVENT_TIMEWAIT_EXIT);

	/* The texts come from the libraries, not the headers; the enums carry them. */
	for (int s = IBV_WC_SUCCESS; s <= IBV_WC_TM_RNDV_INCOMPLETE; s++)
		printf("str ibv_wc_status_str %d %s\n", s, ibv_wc_status_str(s));
	for (int e = IBV_EVENT_CQ_ERR; e <= IBV_EVENT_WQ_FATAL; e++)
		printf("str ibv_event_type_str %d %s\n", e, ibv_event_type_str(e));
	for (int e = RDMA_CM_EVENT_ADDR_RESOLVED; e <= RDMA_CM_EVENT_TIMEWAIT_EXIT; e++)
		printf("str rdma_event_str %d %s\n", e, rdma_event_str(e));
	return 0;
}
