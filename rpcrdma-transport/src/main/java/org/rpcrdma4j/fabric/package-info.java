/**
 * The fabric SPI: what the transport asks of a fabric ({@link org.rpcrdma4j.fabric.Fabric},
 * {@link org.rpcrdma4j.fabric.FabricConnection}, {@link org.rpcrdma4j.fabric.ConnectionListener},
 * {@link org.rpcrdma4j.fabric.FabricStatus}), and how fabric modules are found:
 * {@link org.rpcrdma4j.fabric.Fabrics#named} asks {@link java.util.ServiceLoader} for the
 * {@link org.rpcrdma4j.fabric.FabricProvider} of that name, which opens fabrics with
 * {@link org.rpcrdma4j.fabric.FabricOptions}. The fabrics of this project are the modules fabric-efa
 * ({@code sim}) and fabric-rc ({@code verbs}).
 */
package org.rpcrdma4j.fabric;
