/**
 * The device SPI: what an EFA device offers the EFA RDM provider, and nothing more.
 *
 * <p>The model is the one of {@code libibverbs} plus the EFA direct-verbs extensions, reduced to
 * what protocol v4 uses (EFA RDM protocol v4 §1.1): datagrams of at most the MTU sent to
 * (address handle, QPN, Q-Key), pre-posted receive buffers, bounded send and receive queues,
 * completions with the device's status ({@link org.rpcrdma4j.efa.device.CompletionStatus}),
 * RDMA read of up to 1 GiB and, optionally, RDMA write against memory registered with a key and
 * access rights ({@link org.rpcrdma4j.efa.device.MemoryRegion},
 * {@link org.rpcrdma4j.efa.device.RmaIov}).
 *
 * <p>Delivery is reliable but unordered (SRD). A receive completion names the sender's address
 * handle only if the receiver created one for the sender's GID, because the EFA device cannot
 * report the address of an unknown sender (EFA RDM protocol v4 §2.2); the source QPN is always
 * reported, and the GID wherever the device can name it (an EFA NIC read without the extended
 * completion queue cannot, for a sender it has no handle for: the endpoint then takes the sender's
 * address from the packet's raw-address header).
 *
 * <p>Errors: misuse of the API (a handle from elsewhere, a negative length, an operation the device
 * has no capability for) throws {@link java.lang.IllegalArgumentException} or
 * {@link java.lang.IllegalStateException}; everything the device itself reports (message too long,
 * receiver not ready, remote access refused, ...) is a {@link org.rpcrdma4j.efa.device.Completion}
 * with a status, never an exception. A full queue is neither: the post method returns
 * {@code false}, the {@code EAGAIN} of {@code ibv_post_send}.
 *
 * <p>Implementations: {@link org.rpcrdma4j.efa.device.sim} (in-JVM, seeded, with fault injection),
 * {@link org.rpcrdma4j.efa.device.udp} (SRD semantics over UDP), and in the {@code efa-verbs} module
 * the verbs devices (RC queue pairs per peer on RoCE or InfiniBand; SRD on an EFA NIC). Those that
 * open on an address of this host are found by name through {@link org.rpcrdma4j.efa.device.DeviceProvider}.
 */
package org.rpcrdma4j.efa.device;
