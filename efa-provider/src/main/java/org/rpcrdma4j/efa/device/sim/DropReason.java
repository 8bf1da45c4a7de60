package org.rpcrdma4j.efa.device.sim;

/**
 * Why a simulated device refused an incoming operation. The device that refuses counts it
 * ({@link SimDevice#dropped(DropReason)}); the initiator learns of it, if at all, from the status
 * of its completion.
 */
public enum DropReason {
    /** A packet found no receive posted, or the fault plan injected RNR; the sender gets RNR. */
    RNR,
    /**
     * A packet was longer than the receive buffer at the head of the queue; the sender gets
     * {@code REMOTE_ERROR_BAD_LENGTH} and the buffer stays posted.
     */
    RECV_BUFFER_TOO_SHORT,
    /**
     * An operation carried a Q-Key the queue pair no longer has (it restarted). Silent for a send,
     * as a Q-Key violation is on the receiving device; an RDMA request goes unanswered.
     */
    STALE_QKEY,
    /** An RDMA request named an unknown key, a range outside the region, or a missing right. */
    REMOTE_ACCESS_DENIED,
    /** An RDMA request needs a capability this device has switched off. */
    CAPABILITY_OFF
}
