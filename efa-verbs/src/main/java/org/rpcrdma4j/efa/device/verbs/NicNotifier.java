package org.rpcrdma4j.efa.device.verbs;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that waits in the NIC ({@link RcNic#await}) while the device's progress thread sleeps, and runs
 * the wake-up that thread armed once the NIC has something to poll: how {@link VerbsDevice} offers
 * {@link org.rpcrdma4j.efa.device.Device#armCompletionNotification}. It touches nothing of the device but the
 * wake-up, so the device stays the progress thread's alone. Started at the first arming.
 *
 * <p>No wake-up is lost: the progress thread arms only after a poll that followed its request for the NIC's
 * notification found nothing ({@link VerbsDevice#armCompletionNotification}), so what came before the
 * request is in its hands and the request still stands, and what comes after makes {@code await} return; a
 * wake-up that finds the progress thread awake already costs it one empty poll.
 */
final class NicNotifier implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NicNotifier.class);
    private static final long JOIN_MS = 5_000;

    private final RcNic nic;
    private final String name;
    private final AtomicReference<Runnable> armed = new AtomicReference<>();
    private volatile boolean stopped;
    private Thread thread;

    /**
     * @param nic  the NIC to wait in
     * @param name the thread's name
     */
    NicNotifier(RcNic nic, String name) {
        this.nic = nic;
        this.name = name;
    }

    /**
     * Runs {@code wake} once, on this notifier's thread, when the NIC may have something; replaces what was
     * armed before. Progress thread only.
     *
     * @return false if the notifier has stopped (closed, or its wait failed): the caller must poll instead
     */
    boolean arm(Runnable wake) {
        if (stopped) {
            return false;
        }
        armed.set(wake);
        if (thread == null) {
            thread = new Thread(this::run, name);
            thread.setDaemon(true);
            thread.start();
        } else {
            LockSupport.unpark(thread);
        }
        return true;
    }

    private void run() {
        while (!stopped) {
            if (armed.get() == null) {
                LockSupport.park(this);
                continue;
            }
            try {
                nic.await();
            } catch (VerbsException e) {
                // The NIC's descriptors failed: wake the progress thread, whose next poll meets the failure.
                LOG.warn("{}: waiting for the NIC failed, the device is polled from now on: {}", name, e.getMessage());
                stopped = true;
            }
            final Runnable wake = armed.getAndSet(null);
            if (wake != null) {
                try {
                    wake.run();
                } catch (RuntimeException e) {
                    // A wake-up that fails must not end the thread every later arming relies on.
                    LOG.error("{}: the wake-up failed", name, e);
                }
            }
        }
    }

    /** Stops the thread, before the NIC closes. Progress thread only. */
    @Override
    public void close() {
        stopped = true;
        if (thread == null) {
            return;
        }
        nic.interruptAwait();
        LockSupport.unpark(thread);
        try {
            thread.join(JOIN_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("{} did not end within {} ms", name, JOIN_MS);
        }
    }
}
