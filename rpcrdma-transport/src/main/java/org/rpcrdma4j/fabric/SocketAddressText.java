package org.rpcrdma4j.fabric;

import java.net.InetSocketAddress;

/**
 * IP socket addresses as users write them to fabrics on IP networks: {@code ADDRESS[:PORT]},
 * {@code [IPv6]:PORT} or a bare IPv6 address.
 */
public final class SocketAddressText {

    private SocketAddressText() {
    }

    /**
     * @param text        the address, its port optional
     * @param defaultPort the port when the text has none
     * @return the socket address, resolved
     * @throws IllegalArgumentException if the port is not a number from 0 to 65535 or the host is unknown
     */
    public static InetSocketAddress parse(String text, int defaultPort) {
        String host = text;
        int port = defaultPort;
        int colon = text.lastIndexOf(':');
        boolean bracketed = text.startsWith("[");
        if (colon > 0 && (bracketed ? text.lastIndexOf(']') < colon : text.indexOf(':') == colon)) {
            host = text.substring(0, colon);
            try {
                port = Integer.parseInt(text.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a port in " + text);
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range in " + text);
            }
        }
        if (bracketed) {
            host = host.substring(1, host.length() - 1);
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unknown host in " + text);
        }
        return address;
    }

    /**
     * @param address a socket address
     * @return it as {@link #parse} reads it: {@code ADDRESS:PORT}, an IPv6 address in brackets
     */
    public static String format(InetSocketAddress address) {
        String host = address.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
