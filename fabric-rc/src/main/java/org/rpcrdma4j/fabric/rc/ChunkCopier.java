package org.rpcrdma4j.fabric.rc;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the chunk copies that the RC fabric's progress thread hands over, on a thread of its own,
 * outside the fabric's turn: a megabyte copied into or out of registered memory takes as long as many
 * small calls, and while the progress thread made it no other connection of the fabric would progress.
 * What follows a copy (the memory freed, the work held back for it posted, the transport's
 * continuation) goes back to the turn as a command. A thread other than the progress thread makes the
 * copies of the commands it runs itself, once it has let go of the turn ({@link RcFabric#execute}).
 * Which copies there are is {@link RcMemory}'s.
 */
final class ChunkCopier {

    private static final Logger LOG = LoggerFactory.getLogger(ChunkCopier.class);
    private static final Copy STOP = new Copy(() -> 0, bytes -> { });

    /**
     * A copy between a caller's buffer and registered memory, and what follows it in the turn. A copy
     * not yet begun can be called off ({@link #callOff}); what follows it runs all the same.
     */
    static final class Copy {

        private static final int WAITING = 0;
        private static final int MAKING = 1;
        private static final int ENDED = 2;

        private final LongSupplier copy;
        private final LongConsumer then;
        private final AtomicInteger state = new AtomicInteger(WAITING);
        private long bytes;

        /**
         * @param copy makes the copy, outside the turn, and returns the bytes copied
         * @param then what follows it, in the turn, given the bytes copied
         */
        Copy(LongSupplier copy, LongConsumer then) {
            this.copy = copy;
            this.then = then;
        }

        /** Makes the copy unless it was called off; any thread, outside the turn. A failure is logged. */
        void make() {
            if (!state.compareAndSet(WAITING, MAKING)) {
                return;
            }
            try {
                bytes = copy.getAsLong();
            } catch (RuntimeException e) {
                LOG.error("a chunk copy failed", e);
            } finally {
                state.set(ENDED);
            }
        }

        /** @return whether the copy was called off, not begun: it will touch no memory */
        boolean callOff() {
            return state.compareAndSet(WAITING, ENDED);
        }

        /** @return whether the copy is over, made or called off: it touches no memory any more */
        boolean ended() {
            return state.get() == ENDED;
        }

        /** What follows the copy; in the turn, once it is made or called off. */
        void done() {
            then.accept(bytes);
        }
    }

    private final LinkedBlockingQueue<Copy> copies = new LinkedBlockingQueue<>();
    private final Consumer<Runnable> toTurn;
    private final Thread thread;
    /** Set in the turn by {@link #close}; read in the turn by {@link #submit}. */
    private boolean closed;

    /**
     * @param name   the thread's name
     * @param toTurn runs a command in the fabric's turn after what is being done now
     */
    ChunkCopier(String name, Consumer<Runnable> toTurn) {
        this.toTurn = toTurn;
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Makes a copy after those handed over before it, then hands what follows it to the turn. In the
     * turn. Once closed, the fabric has stopped: the copy is made and followed at once.
     */
    void submit(Copy copy) {
        if (closed) {
            copy.make();
            copy.done();
            return;
        }
        copies.add(copy);
    }

    /**
     * Makes every copy handed over so far, hands what follows them to the turn, then stops the thread.
     * In the turn, as the fabric stops.
     */
    void close() {
        copies.add(STOP);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        closed = true;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (true) {
            Copy copy;
            try {
                copy = copies.take();
            } catch (InterruptedException e) {
                continue; // it stops at STOP, after what was handed over before
            }
            if (copy == STOP) {
                return;
            }
            copy.make();
            toTurn.accept(copy::done);
        }
    }
}
