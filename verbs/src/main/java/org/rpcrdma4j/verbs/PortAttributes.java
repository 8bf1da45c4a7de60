package org.rpcrdma4j.verbs;

/**
 * What {@code ibv_query_port} reports of a port.
 *
 * @param state logical state; only {@link PortState#ACTIVE} carries traffic
 * @param maxMtu largest MTU the port supports, in bytes
 * @param activeMtu MTU in use, in bytes (RoCE: derived from the netdev's MTU)
 * @param gidTableLength entries in the GID table
 * @param portCapFlags {@code IBV_PORT_*} capability bits
 * @param maxMessageSize largest message in bytes
 * @param lid local identifier (InfiniBand; 0 on RoCE)
 * @param linkLayer InfiniBand or Ethernet (RoCE)
 */
public record PortAttributes(PortState state, int maxMtu, int activeMtu, int gidTableLength, int portCapFlags,
                             long maxMessageSize, int lid, LinkLayer linkLayer) {

    /** The MTU in bytes of an {@code enum ibv_mtu} value (1 is 256 ... 5 is 4096), 0 if unknown. */
    static int mtuBytes(int ibvMtu) {
        return ibvMtu >= 1 && ibvMtu <= 5 ? 128 << ibvMtu : 0;
    }
}
