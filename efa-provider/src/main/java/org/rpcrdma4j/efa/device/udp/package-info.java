/**
 * {@link org.rpcrdma4j.efa.device.udp.UdpDevice}: the {@code Device} SPI over UDP with SRD
 * semantics (reliable, unordered, each packet once), its own small reliability layer
 * ({@code SrdEngine}: sequence numbers, cumulative and selective acknowledgements, RFC 6298
 * retransmission timeouts, a bounded window, unreachable peers), RDMA read and write served by the
 * device, and a fault injector for tests ({@link org.rpcrdma4j.efa.device.udp.UdpFaults}). The
 * datagram format is {@code SrdFrame}'s; configuration is
 * {@link org.rpcrdma4j.efa.device.udp.UdpDeviceConfig}.
 */
package org.rpcrdma4j.efa.device.udp;
