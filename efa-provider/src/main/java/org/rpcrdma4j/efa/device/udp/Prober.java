package org.rpcrdma4j.efa.device.udp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * Asks the network whether anything listens at a port that has not answered: a connected datagram
 * socket of the JDK sends one probe, and the kernel reports the ICMP port-unreachable that comes
 * back (ECONNREFUSED on a connected UDP socket) as {@link PortUnreachableException}. That is how an
 * absent QPN becomes {@code REMOTE_ERROR_BAD_DEST_QPN} instead of a timeout; where ICMP is filtered
 * the peer still ends as unreachable at the retransmission bound.
 */
interface Prober {

    /** Nothing known yet. */
    int PENDING = 0;
    /** Nothing listens at the port: the host answered ICMP port unreachable. */
    int PORT_UNREACHABLE = 1;
    /** The host cannot be reached from here at all (no route, wrong address family). */
    int HOST_UNREACHABLE = 2;

    /**
     * Sends a probe.
     *
     * @param to where
     * @param probe the datagram to send
     * @return a handle to ask for the verdict
     */
    Probe open(InetSocketAddress to, ByteBuffer probe);

    /** A probe sent. */
    interface Probe extends AutoCloseable {
        /** @return {@link #PENDING}, {@link #PORT_UNREACHABLE} or {@link #HOST_UNREACHABLE} */
        int check();

        @Override
        void close();
    }

    /**
     * @param localAddress the address to send probes from
     * @return probes on JDK datagram channels
     */
    static Prober ofJdk(java.net.InetAddress localAddress) {
        return (to, probe) -> {
            final DatagramChannel channel;
            try {
                channel = DatagramChannel.open();
            } catch (IOException e) {
                return new Probe() {
                    @Override
                    public int check() {
                        return PENDING;
                    }

                    @Override
                    public void close() {
                    }
                };
            }
            int verdict = PENDING;
            try {
                channel.bind(new InetSocketAddress(localAddress, 0));
                channel.configureBlocking(false);
                channel.connect(to);
                channel.write(probe.duplicate());
            } catch (PortUnreachableException e) {
                verdict = PORT_UNREACHABLE;
            } catch (IOException | RuntimeException e) {
                verdict = HOST_UNREACHABLE;
            }
            final int early = verdict;
            return new Probe() {
                private final ByteBuffer sink = ByteBuffer.allocate(64);

                @Override
                public int check() {
                    if (early != PENDING) {
                        return early;
                    }
                    try {
                        sink.clear();
                        channel.read(sink);
                        return PENDING;
                    } catch (PortUnreachableException e) {
                        return PORT_UNREACHABLE;
                    } catch (IOException | RuntimeException e) {
                        return PENDING;
                    }
                }

                @Override
                public void close() {
                    try {
                        channel.close();
                    } catch (IOException e) {
                        // nothing left to do
                    }
                }
            };
        };
    }
}
