package org.rpcrdma4j.transport.conn;

/**
 * What a responder's chunk work holds now: the calls whose Read chunks or reply chunk data are
 * moving, and the buffers registered for them, one per registration. Written on the progress thread,
 * read from any.
 */
final class ChunkWork {

    private volatile int pending;
    private volatile int buffers;

    /** @param registered the buffers the work registered */
    void started(int registered) {
        pending++;
        buffers += registered;
    }

    /** @param registered the buffers the work deregistered */
    void ended(int registered) {
        pending--;
        buffers -= registered;
    }

    /** @return calls whose chunk data is moving now */
    int pending() {
        return pending;
    }

    /** @return buffers registered now */
    int buffers() {
        return buffers;
    }
}
