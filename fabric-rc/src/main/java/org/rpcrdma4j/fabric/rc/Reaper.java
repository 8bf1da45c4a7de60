package org.rpcrdma4j.fabric.rc;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tears ended connections down on a thread of its own, one after the other: destroying a queue pair
 * can block in the kernel for a long time (rdma_rxe waited 30-40 s in {@code rxe_destroy_qp} for one
 * whose RDMA had failed), and the fabric's progress thread must serve the other connections
 * meanwhile, as Linux's svcrdma frees a transport off its I/O path. A teardown's follow-up, which
 * needs the progress thread (memory back to the pools), is handed back to it by the teardown itself.
 *
 * <p>One thread bounds what teardowns cost the machine; the queue holds at most one teardown per
 * connection the fabric ever had open at once.
 */
final class Reaper {

    private static final Logger LOG = LoggerFactory.getLogger(Reaper.class);
    /** How often {@link #close} says it is still waiting. */
    private static final long WAIT_REPORT_SECONDS = 10;
    private static final Runnable STOP = () -> { };

    private final LinkedBlockingQueue<Runnable> teardowns = new LinkedBlockingQueue<>();
    private final Thread thread;

    /** @param name the thread's name */
    Reaper(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues a teardown; it runs after those queued before it. Any thread. */
    void submit(Runnable teardown) {
        teardowns.add(teardown);
    }

    /**
     * Runs every teardown queued so far, then stops the thread. Waits for it however long the kernel
     * takes: the device must outlive every queue pair destroyed on it.
     */
    void close() {
        teardowns.add(STOP);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(WAIT_REPORT_SECONDS));
                    if (!thread.isAlive()) {
                        return;
                    }
                    LOG.warn("still waiting for connection teardowns: a queue pair's destroy blocks in the kernel");
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        while (true) {
            Runnable teardown;
            try {
                teardown = teardowns.take();
            } catch (InterruptedException e) {
                continue; // it stops at STOP, after what was queued before
            }
            if (teardown == STOP) {
                return;
            }
            try {
                teardown.run();
            } catch (RuntimeException e) {
                LOG.error("a connection teardown failed", e);
            }
        }
    }
}
