/**
 * Chunk data movement (RFC 8166 §3.4), the counterpart of Linux {@code svc_rdma_rw.c}: a queue of
 * RDMA Reads and Writes that absorbs the fabric's back-pressure, a join of their completions, and
 * the responder's pull of a call's Read chunks. Everything here runs on the fabric's progress thread
 * and never waits.
 */
package org.rpcrdma4j.transport.rw;
