package org.rpcrdma4j.efa.device.udp;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Where the reliability layer's datagrams go: the socket, the fault injector in front of it, or a
 * test's in-memory pipe.
 *
 * <p>Buffer ownership: the sink copies the bytes between the buffer's position and limit before it
 * returns and keeps no reference; the caller keeps the buffer (to retransmit it).
 */
interface DatagramSink {

    /**
     * @param datagram the bytes to send, between position and limit
     * @param to where
     */
    void send(ByteBuffer datagram, InetSocketAddress to);
}
