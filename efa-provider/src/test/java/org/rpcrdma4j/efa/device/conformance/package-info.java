/**
 * The device conformance kit: what every {@link org.rpcrdma4j.efa.device.Device} must do, as abstract
 * JUnit suites that a device implementation runs on its own device through a
 * {@link org.rpcrdma4j.efa.device.conformance.DeviceFactory}
 * ({@link org.rpcrdma4j.efa.device.conformance.DeviceSendRecvConformance},
 * {@link org.rpcrdma4j.efa.device.conformance.DeviceRdmaConformance},
 * {@link org.rpcrdma4j.efa.device.conformance.DeviceAddressingConformance},
 * {@link org.rpcrdma4j.efa.device.conformance.DeviceLifecycleConformance}). Each check comes from the
 * SPI's Javadoc ({@code org.rpcrdma4j.efa.device}) and the device semantics of EFA RDM protocol v4
 * (§1.1, §1.4, §2.2, §4.4, §4.6), never from what one device happens to do. A check that needs what
 * the device or its factory does not offer (RDMA read or write, a {@link
 * org.rpcrdma4j.efa.device.conformance.LinkFaults}, a {@link
 * org.rpcrdma4j.efa.device.conformance.ReducedCapabilities}) is reported as skipped, with the reason,
 * by a JUnit assumption. Published in efa-provider's test jar; docs/ARCHITECTURE.md, "The device
 * conformance kit", says how to run it.
 */
package org.rpcrdma4j.efa.device.conformance;
