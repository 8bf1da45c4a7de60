package org.rpcrdma4j.efa.device.verbs;

import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The EFA NIC {@link EfaSrdDevice} drives, narrowed to what it needs: one SRD queue pair (reliable,
 * any order, receiver-not-ready reported) on one completion queue, address handles named by the
 * number the device gives them ({@code efadv_query_ah}), memory registrations ({@link NicMemory}), posts
 * and one poll. {@link VerbsSrdNic} runs it on libibverbs and libefa; tests run the device on an in-JVM
 * fake, as no EFA NIC is at hand.
 *
 * <p>Not thread-safe: the device's one progress thread calls it.
 */
interface SrdNic extends NicMemory, AutoCloseable {

    /**
     * What {@code efa_io_rx_cdesc.ah}, and so a receive completion's {@code slid}, holds when the receiver
     * has no address handle for the sender.
     */
    int UNKNOWN_AHN = 0xFFFF;

    /**
     * What the NIC and its queue pair are.
     *
     * @param gid                the NIC's GID (port 1, index 0)
     * @param qpn                the SRD queue pair's number
     * @param qkey               the Q-Key it was brought up with; packets naming another are dropped by the NIC
     * @param maxMessageSize     the largest Send ({@code ibv_port_attr.max_msg_sz}, which libfabric's EFA
     *                           provider takes as its MTU)
     * @param sendQueueDepth     the send requests the queue pair holds, as granted
     * @param receiveQueueDepth  the receives the queue pair holds, as granted
     * @param maxRdmaSize        the largest RDMA request ({@code max_rdma_size}), 0 without RDMA
     * @param rdmaRead           whether the queue pair can RDMA Read ({@code EFADV_DEVICE_ATTR_CAPS_RDMA_READ})
     * @param rdmaWrite          whether it can RDMA Write (no bit for it in rdma-core 44's efadv.h)
     * @param rnrRetry           whether the NIC retries receiver-not-ready itself before reporting it
     *                           ({@code EFADV_DEVICE_ATTR_CAPS_RNR_RETRY}), as many times as the queue pair says
     * @param sourceGids         whether a receive from a sender with no address handle here names its GID
     *                           ({@code EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID}, through {@code efadv_wc_read_sgid})
     */
    record Attributes(Gid gid, int qpn, int qkey, int maxMessageSize, int sendQueueDepth, int receiveQueueDepth,
                      long maxRdmaSize, boolean rdmaRead, boolean rdmaWrite, boolean rnrRetry, boolean sourceGids) {
    }

    /** Where {@link #poll} hands each completion. */
    interface Completions {

        /**
         * One work completion.
         *
         * @param wrId       the work request's id
         * @param status     its {@code efa_io_comp_status} (0: success), for a failure libefa's
         *                   {@code ibv_wc.vendor_err}
         * @param byteLength for a successful receive, the bytes that arrived
         * @param sourceQpn  for a successful receive, the sender's queue pair ({@code src_qp})
         * @param sourceAhn  for a successful receive, the number of this NIC's address handle for the sender
         *                   ({@code slid}), {@link #UNKNOWN_AHN} if it has none
         * @param sourceGid  for a successful receive from a sender with no address handle here, its GID if the
         *                   NIC names it; otherwise null
         */
        void completion(long wrId, int status, int byteLength, int sourceQpn, int sourceAhn, Gid sourceGid);
    }

    /** @return what the NIC and its queue pair are */
    Attributes attributes();

    /**
     * Creates an address handle to a GID ({@code ibv_create_ah}) and returns its number ({@code efadv_query_ah}),
     * by which posts name it and receive completions name the sender.
     */
    int createAddressHandle(Gid gid) throws VerbsException;

    /** Destroys the address handle of that number ({@code ibv_destroy_ah}). */
    void destroyAddressHandle(int ahn) throws VerbsException;

    /** Posts a signaled Send of registered bytes to (address handle, QPN, Q-Key); false if the send queue is full. */
    boolean postSend(long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey) throws VerbsException;

    /** Posts a signaled RDMA Read of the peer's bytes into registered memory; false if the send queue is full. */
    boolean postRead(long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey, long remoteAddress,
                     int rkey) throws VerbsException;

    /** Posts a signaled RDMA Write of registered bytes into the peer's; false if the send queue is full. */
    boolean postWrite(long wrId, int ahn, int qpn, int qkey, long address, int length, int lkey, long remoteAddress,
                      int rkey) throws VerbsException;

    /** Posts a receive of at most {@code length} bytes; false if the receive queue is full. */
    boolean postReceive(long wrId, long address, int length, int lkey) throws VerbsException;

    /**
     * Hands over the completions there are now.
     *
     * @return how many were handed over
     */
    int poll(Completions completions) throws VerbsException;

    /**
     * Destroys the queue pair first, so nothing on it still uses what follows, then every address handle
     * and registration still made, the completion queue, the protection domain and the device. Giving a
     * handle or registration back afterwards does nothing.
     */
    @Override
    void close();
}
