package org.rpcrdma4j.efa.device.udp;

import java.nio.ByteBuffer;

/**
 * A receive buffer posted to a {@link UdpDevice}: a duplicate made at the post, so its bounds are
 * those of the post; the I/O thread writes a packet at its position and hands the completion over
 * through the completion queue.
 *
 * @param buffer the space, between position and limit
 * @param wrId the work request id
 */
record PostedRecv(ByteBuffer buffer, long wrId) {
}
