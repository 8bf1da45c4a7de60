package org.rpcrdma4j.fabric;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The right to touch a fabric's endpoints, queue pairs and registrations, which have no locks of
 * their own. The fabric's progress thread holds the turn while it polls and runs commands, never while
 * it sleeps; a thread that hands over a command ({@link Fabric#execute}) takes the turn if it is free
 * and runs the command itself, so that posting a Send needs no hand-off between threads and no
 * wake-up of a sleeping progress thread (the Linux client likewise posts from the RPC task's own
 * thread and completes in the completion queue's context). The RC fabric works so.
 *
 * <p>Nobody waits for a busy turn by parking, which would need a wake-up: a thread handing over a
 * command leaves it to the progress thread instead (spinning for the turn was measured to cost more
 * on a shared two-core machine: the spinning thread takes the core the holder needs), and the
 * progress thread yields until the turn is free.
 */
public final class ProgressTurn {

    private final ReentrantLock lock = new ReentrantLock();

    /**
     * Takes the turn for a thread that hands over a command, if it is free.
     *
     * @return whether it has the turn now; false if the turn is busy, or if the caller holds it
     *     already: a command handed over within the turn runs after the one that hands it over
     */
    public boolean tryTake() {
        return !lock.isHeldByCurrentThread() && lock.tryLock();
    }

    /** Takes the turn for the progress thread, yielding while another thread holds it. */
    public void take() {
        while (!lock.tryLock()) {
            Thread.yield();
        }
    }

    /** Gives the turn back; only by the thread that holds it. */
    public void release() {
        lock.unlock();
    }

    /** @return whether the calling thread holds the turn */
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }
}
