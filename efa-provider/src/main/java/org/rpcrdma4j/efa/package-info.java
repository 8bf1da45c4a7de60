/**
 * The AWS EFA RDM protocol v4, the wire protocol of libfabric's EFA provider, as a libfabric-style
 * endpoint in Java idiom: {@link org.rpcrdma4j.efa.EfaEndpoint} with its address vector
 * ({@link org.rpcrdma4j.efa.EndpointAddress}), completion queue
 * ({@link org.rpcrdma4j.efa.CompletionEntry}, {@link org.rpcrdma4j.efa.EfaErrorCode}), memory
 * registration and manual progress, configured by {@link org.rpcrdma4j.efa.EndpointConfig} (with
 * the per-peer bounds of {@link org.rpcrdma4j.efa.EndpointLimits}), observed through
 * {@link org.rpcrdma4j.efa.EndpointCounter} and {@link org.rpcrdma4j.efa.EndpointGauge}, closed
 * with {@link org.rpcrdma4j.efa.EfaEndpoint#close()}, and driven by whichever one thread owns it.
 *
 * <p>The engine lives in {@code org.rpcrdma4j.efa.endpoint}, the packet codecs in
 * {@code org.rpcrdma4j.efa.wire}, the {@code Device} SPI and its implementations in
 * {@code org.rpcrdma4j.efa.device}. Knows nothing of RPC, XDR or NFS.
 */
package org.rpcrdma4j.efa;
