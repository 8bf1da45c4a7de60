package org.rpcrdma4j.fabric.rc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import org.rpcrdma4j.verbs.MemoryWindow;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The type 2 memory windows of one requester's connection, through which the responder reaches the
 * requester's chunk memory. A window is bound over one chunk registration per call, with a fresh key
 * (the low byte of its last one incremented), by a bind posted on the connection's queue pair ahead
 * of the call's Send; the responder can use the key only through this queue pair. When the call ends
 * the key is invalidated, by the responder's Send with Invalidate or by a local invalidate, and the
 * window goes back to the free list to be bound again. Windows are allocated when the free list is
 * empty, at most {@link #max()} of them, and deallocated with the queue pair.
 *
 * <p>A window invalidated locally is <em>parked</em> before it goes back: bound with a key no peer
 * was given, over no memory a peer may reach, with no right. A responder may still name its last
 * key in a Send with Invalidate (the reply to a call that timed out); with the window parked the key
 * matches no window and the receive fails, which ends the connection. Left unbound, the window
 * would match it: IB devices refuse to invalidate a window that is not bound, but rdma_rxe (Linux
 * 6.1) does not, and dereferences the window's absent queue pair. A parked window is invalidated
 * locally before its next bind, both posted at once. A window the peer invalidated needs no parking:
 * it named the key for the last time.
 *
 * <p>Progress thread only, through its {@link RcConnection}.
 */
final class ChunkWindows {

    /** One window: its device handle and the key of its last bind. */
    static final class Window {
        private final long handle;
        private int rkey;
        private boolean valid;
        private boolean parked;

        private Window(RcDevice.Window allocated) {
            this.handle = allocated.handle();
            this.rkey = allocated.rkey();
        }

        long handle() {
            return handle;
        }

        /** @return the key of its last bind: the one a peer names while it is bound */
        int rkey() {
            return rkey;
        }

        /** @return whether its key still reaches memory: bound and not yet invalidated */
        boolean valid() {
            return valid;
        }

        /** @return whether it is bound with no right over no memory, to be invalidated before a bind */
        boolean parked() {
            return parked;
        }
    }

    private final RcDevice device;
    private final int max;
    private final IntConsumer allocated;
    private final ArrayDeque<Window> free = new ArrayDeque<>();
    private final List<Window> all = new ArrayList<>();
    /** Windows whose key works, by key: what a Send with Invalidate may name. */
    private final Map<Integer, Window> bound = new HashMap<>();
    private boolean closed;

    /**
     * @param device    where windows are allocated
     * @param max       the most windows allocated at once
     * @param allocated told of the windows allocated (a positive count) and deallocated (a negative one)
     */
    ChunkWindows(RcDevice device, int max, IntConsumer allocated) {
        this.device = device;
        this.max = max;
        this.allocated = allocated;
    }

    /** @return the most windows allocated at once; a bind and a local invalidate each is a send queue entry */
    int max() {
        return max;
    }

    /**
     * @return a free window, perhaps {@linkplain Window#parked() parked}; or null when {@link #max()}
     *     are in use
     * @throws VerbsException if allocating one failed
     */
    Window take() throws VerbsException {
        Window window = free.poll();
        if (window == null) {
            if (closed || all.size() >= max) {
                return null;
            }
            window = new Window(device.allocateWindow());
            all.add(window);
            allocated.accept(1);
        }
        return window;
    }

    /**
     * Makes the window's next key current for a bind over memory a peer reaches.
     *
     * @return the key
     */
    int bindKey(Window window) {
        window.rkey = MemoryWindow.nextRkey(window.rkey);
        window.valid = true;
        window.parked = false;
        bound.put(window.rkey, window);
        return window.rkey;
    }

    /**
     * Makes the window's next key current for parking it; no peer is given that key.
     *
     * @return the key
     */
    int parkKey(Window window) {
        window.rkey = MemoryWindow.nextRkey(window.rkey);
        window.parked = true;
        return window.rkey;
    }

    /**
     * A receive said the peer invalidated a key (Send with Invalidate).
     *
     * @return whether it was the key of a window bound here, which reaches nothing any more
     */
    boolean invalidatedRemotely(int rkey) {
        Window window = bound.remove(rkey);
        if (window == null) {
            return false;
        }
        window.valid = false;
        return true;
    }

    /** A local invalidate of the window completed, or is posted ahead of its next bind. */
    void invalidatedLocally(Window window) {
        bound.remove(window.rkey);
        window.valid = false;
        window.parked = false;
    }

    /** The window's key reaches nothing and the memory it was bound over is released: bind it again. */
    void free(Window window) {
        if (!closed) {
            free.add(window);
        }
    }

    /**
     * Deallocates every window, bound or not ({@code ibv_dealloc_mw} unbinds a bound one); called when
     * the queue pair, in the error state with nothing outstanding, is about to be destroyed, on the
     * fabric's reaper thread, so it does not report the windows gone: the caller does, back on the
     * progress thread.
     *
     * @return the windows there were
     */
    int close() throws VerbsException {
        closed = true;
        free.clear();
        bound.clear();
        int count = all.size();
        try {
            for (Window window : all) {
                device.deallocateWindow(window.handle);
            }
        } finally {
            all.clear();
        }
        return count;
    }
}
