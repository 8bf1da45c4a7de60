package org.rpcrdma4j.verbs;

/**
 * An asynchronous event of a device ({@code struct ibv_async_event}), copied out and already acked.
 *
 * @param type what happened
 * @param qpNum the queue pair's number if {@link AsyncEventType#concernsQueuePair()}, else -1
 * @param portNumber the port if {@link AsyncEventType#concernsPort()}, else 0
 */
public record AsyncEvent(AsyncEventType type, int qpNum, int portNumber) {
}
