package org.rpcrdma4j.fabric.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.fabric.conformance.HangGuard;

/**
 * Watches an RC fabric's chunk copies ({@link RcMemory#beforeCopy}): writes down each one, with whether
 * the thread making it held the fabric's turn, and holds every copy of at least a given size on the
 * copying thread until {@link #open}, so that a test sees what the fabric does meanwhile.
 */
final class CopyGate implements RcMemory.CopyWatch {

    /**
     * A copy the fabric made.
     *
     * @param in     into registered memory, else out of it
     * @param bytes  its length
     * @param inTurn whether the copying thread held the fabric's turn
     * @param thread the copying thread's name
     */
    record Copy(boolean in, long bytes, boolean inTurn, String thread) {
    }

    private final RcFabric fabric;
    private final long holdFrom;
    private final List<Copy> copies = Collections.synchronizedList(new ArrayList<>());
    private final CountDownLatch holding = new CountDownLatch(1);
    private final CountDownLatch open = new CountDownLatch(1);

    private CopyGate(RcFabric fabric, long holdFrom) {
        this.fabric = fabric;
        this.holdFrom = holdFrom;
    }

    /**
     * @param fabric   the fabric whose copies to watch
     * @param holdFrom the smallest copy to hold until {@link #open}
     * @return the gate, watching from now on
     */
    static CopyGate on(RcFabric fabric, long holdFrom) {
        CopyGate gate = new CopyGate(fabric, holdFrom);
        fabric.memory().beforeCopy = gate;
        return gate;
    }

    @Override
    public void copying(boolean in, long bytes) {
        copies.add(new Copy(in, bytes, fabric.onProgressThread(), Thread.currentThread().getName()));
        if (bytes >= holdFrom) {
            holding.countDown();
            try {
                assertTrue(open.await(HangGuard.SECONDS, TimeUnit.SECONDS), "the gate was never opened");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Waits until a copy is held, failing the test if none is within the hang guard. */
    void awaitHolding() throws InterruptedException {
        assertTrue(holding.await(HangGuard.SECONDS, TimeUnit.SECONDS), "no copy was held");
    }

    /** Lets the held copies, and every one after, go on. */
    void open() {
        open.countDown();
    }

    /** @return whether {@link #open} was called: copies are no longer held */
    boolean opened() {
        return open.getCount() == 0;
    }

    /** @return the one copy held (of at least the size given), failing the test if there is not one */
    Copy held() {
        List<Copy> held = copies().stream().filter(copy -> copy.bytes() >= holdFrom).toList();
        assertEquals(1, held.size(), "copies held: " + held);
        return held.getFirst();
    }

    /** @return the copies made or begun so far */
    List<Copy> copies() {
        synchronized (copies) {
            return List.copyOf(copies);
        }
    }
}
