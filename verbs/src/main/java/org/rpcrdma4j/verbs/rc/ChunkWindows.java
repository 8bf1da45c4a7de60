package org.rpcrdma4j.verbs.rc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>Progress thread only, through its {@link RcConnection}.
 */
final class ChunkWindows {

    /** One window: its device handle and the key of its last bind. */
    static final class Window {
        private final long handle;
        private int rkey;
        private boolean valid;

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
    }

    private final RcDevice device;
    private final int max;
    private final ArrayDeque<Window> free = new ArrayDeque<>();
    private final List<Window> all = new ArrayList<>();
    /** Windows whose key works, by key: what a Send with Invalidate may name. */
    private final Map<Integer, Window> bound = new HashMap<>();
    private boolean closed;

    /**
     * @param device where windows are allocated
     * @param max    the most windows allocated at once
     */
    ChunkWindows(RcDevice device, int max) {
        this.device = device;
        this.max = max;
    }

    /** @return the most windows allocated at once; a bind and a local invalidate each is a send queue entry */
    int max() {
        return max;
    }

    /** @return windows allocated and not deallocated */
    int allocated() {
        return all.size();
    }

    /**
     * @return a free window with its next key made current, counted as bound; or null when
     *     {@link #max()} are in use
     * @throws VerbsException if allocating one failed
     */
    Window bind() throws VerbsException {
        Window window = free.poll();
        if (window == null) {
            if (closed || all.size() >= max) {
                return null;
            }
            window = new Window(device.allocateWindow());
            all.add(window);
        }
        window.rkey = MemoryWindow.nextRkey(window.rkey);
        window.valid = true;
        bound.put(window.rkey, window);
        return window;
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

    /** A local invalidate of the window completed: its key reaches nothing any more. */
    void invalidatedLocally(Window window) {
        bound.remove(window.rkey);
        window.valid = false;
    }

    /** The window's key reaches nothing and the memory it was bound over is released: bind it again. */
    void free(Window window) {
        if (!closed) {
            free.add(window);
        }
    }

    /**
     * Deallocates every window, bound or not; called once the queue pair is destroyed, after which no
     * peer reaches a type 2 window bound to it anyway.
     */
    void close() throws VerbsException {
        closed = true;
        free.clear();
        bound.clear();
        try {
            for (Window window : all) {
                device.deallocateWindow(window.handle);
            }
        } finally {
            all.clear();
        }
    }
}
