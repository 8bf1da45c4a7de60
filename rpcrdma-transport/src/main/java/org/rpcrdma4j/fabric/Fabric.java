package org.rpcrdma4j.fabric;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * The seam between the RPC-over-RDMA transport and a fabric: connections that carry messages and
 * RDMA Reads and Writes ({@link FabricConnection}), made by connecting or by accepting, and memory
 * registered under a handle that peers name in RDMA segments (RFC 8166 §3.4.3).
 *
 * <h2>Two kinds of fabric</h2>
 * A connection-oriented fabric (verbs RC with RDMA-CM, what Linux speaks) has a queue pair per
 * connection and carries the RFC 8797 private data in the CM REQ and REP. A connectionless one (the
 * EFA RDM endpoint) sets connections up over its own messages. The transport sees the same thing on
 * both: a connect request with the peer's private data, a connection established with it, messages
 * and RDMA on the connection, and one disconnect event after which everything posted on it has come
 * back.
 *
 * <h2>Threads</h2>
 * A fabric has one progress thread. Every method of a fabric and its connections may only be called
 * on it, that is from {@link ConnectionListener} and connect-request callbacks or from commands handed
 * to {@link #execute}, except {@link #execute}, {@link #onProgressThread}, {@link #localAddress},
 * {@link #messageBuffers} and {@link #statistics}, which never waits for the progress thread. A
 * fabric may let the thread that hands over a command run it itself while the progress thread idles,
 * in a {@link ProgressTurn} that the progress thread holds whenever it works: that thread then stands
 * for the progress thread until the command returns.
 *
 * <h2>Buffer ownership</h2>
 * Registered memory (between position and limit at {@link #register}) stays the caller's, but the
 * fabric and, with remote access, peers may read or write it until {@link #deregister} returns, or its
 * continuation runs ({@link #deregister(Registration, long, Runnable)}). A fabric may
 * move it through registered memory of its own (a device cannot address a heap buffer): it reads the
 * caller's bytes, when the device or a peer may read them, before the work that can read them goes
 * out: an RDMA that names the registration, or, for memory registered for a connection
 * ({@link #register(FabricConnection, ByteBuffer, Set)}), a message sent on that connection after it,
 * which is how a peer learns of a handle (memory with a remote right registered for no connection is
 * read at {@link #register}). What the device or peers wrote is in the caller's buffer once
 * {@link #deregister} returns, not before, or, deregistered with a continuation
 * ({@link #deregister(Registration, long, Runnable)}), once the continuation runs. Memory only
 * written (write rights, no {@link MemoryAccess#REMOTE_READ}: an RDMA Read's target, a Write chunk's)
 * is not read at {@link #register}: after {@link #deregister} a byte of it that nobody wrote is
 * undefined, so a caller registers what is to be written and reads only what was. So a requester
 * deregisters a call's chunks before it reads the reply the responder wrote there, and a responder
 * deregisters an RDMA Read's target before it uses the bytes read; a fabric never reads messages to
 * learn what was written.
 *
 * <h2>Remote invalidation</h2>
 * A connection that can invalidate a peer's handle with a message says so
 * ({@link FabricConnection#remoteInvalidation}); verbs RC does it with Send with Invalidate, the EFA
 * fabric cannot. The transport's requester does not offer remote invalidation in its RFC 8797 private
 * data itself: a fabric whose connection-bound keys can be invalidated so (verbs RC with memory
 * windows) offers it in the data it sends and handles the invalidations it receives, which the
 * transport never hears of.
 */
public interface Fabric extends AutoCloseable {

    /** @return this fabric's own address, to give to peers */
    FabricAddress localAddress();

    /**
     * Runs a command on the progress thread, in submission order, before the fabric's next progress,
     * or at once on the calling thread in the progress thread's stead (see Threads above).
     *
     * @param command what to run; it must not block
     * @throws IllegalStateException if the progress thread has stopped
     */
    void execute(Runnable command);

    /**
     * @return whether the caller is the progress thread or runs a command in its stead, and so must
     *     never wait for the progress thread
     */
    boolean onProgressThread();

    /**
     * Accepts connection requests from now on, each handed to {@code acceptor}, which must
     * {@linkplain ConnectRequest#accept accept} or {@linkplain ConnectRequest#reject reject} it
     * before returning. One acceptor per fabric; the fabric may at the same time open any number of
     * connections of its own with {@link #connect}.
     *
     * @param acceptor gets the requests, on the progress thread
     * @throws IllegalStateException if the fabric has an acceptor already
     */
    void listen(Consumer<ConnectRequest> acceptor);

    /** Refuses connection requests from now on; connections accepted before stay open. */
    void stopListening();

    /**
     * Opens a connection to a listening peer. The receives are posted before the peer can send; the
     * listener hears {@link ConnectionListener#onEstablished} once the peer accepted, or
     * {@link ConnectionListener#onDisconnected} if it refused or is not there.
     *
     * @param peer        the peer's address
     * @param privateData this side's RFC 8797 private data
     * @param receives    buffers to post for the peer's first messages
     * @param listener    gets the connection's events
     * @return the connection, not yet established
     */
    FabricConnection connect(FabricAddress peer, ConnectPrivateData privateData, List<ByteBuffer> receives,
                             ConnectionListener listener);

    /**
     * @return where to allocate buffers this fabric sends from and receives into without copying them;
     *     {@link MessageBuffers#HEAP} for a fabric that copies every message anyway. Any thread
     */
    default MessageBuffers messageBuffers() {
        return MessageBuffers.HEAP;
    }

    /**
     * Registers local memory for RDMA (RFC 8166 §3.4.3).
     *
     * @param memory the bytes between position and limit
     * @param access the rights to grant: {@link MemoryAccess#LOCAL_WRITE} for the target of an RDMA
     *               Read, remote rights for memory a peer reads or writes
     * @return the registration, or {@code null} if the fabric cannot register more memory
     */
    Registration register(ByteBuffer memory, Set<MemoryAccess> access);

    /**
     * Registers local memory that the peer of one connection reaches (RFC 8166 §3.4.3): a requester's
     * chunks. A fabric whose keys can be tied to a connection uses that (verbs RC binds a memory
     * window on the connection's queue pair, which the peer's Send with Invalidate or a local
     * invalidate ends at {@link #deregister}); the others register as {@link #register(ByteBuffer, Set)}.
     *
     * @param on     the connection whose peer reaches the memory
     * @param memory the bytes between position and limit
     * @param access the rights to grant
     * @return the registration, deregistered with {@link #deregister}, or {@code null} if the fabric
     *     cannot register more memory
     */
    default Registration register(FabricConnection on, ByteBuffer memory, Set<MemoryAccess> access) {
        return register(memory, access);
    }

    /**
     * Invalidates a registration: from now on no peer reaches its memory.
     *
     * @param registration a registration of this fabric, not yet deregistered
     */
    void deregister(Registration registration);

    /**
     * Invalidates a registration of which the caller will read only the first bytes (a reply's memory,
     * as far as the responder wrote it; none of an RDMA Read that failed): as {@link #deregister}, but
     * only those bytes need reach the caller's buffer, so a fabric that moves the memory through its
     * own copies back no more.
     *
     * @param registration a registration of this fabric, not yet deregistered
     * @param readable     the bytes, from the registration's first, the caller will read; 0 for none
     */
    default void deregister(Registration registration, long readable) {
        deregister(registration);
    }

    /**
     * Invalidates a registration as {@link #deregister(Registration, long)} does, for a caller that
     * reads or reuses the memory only in a continuation: a fabric that copies what was written back
     * into the caller's buffer may then make that copy outside its progress turn, on a thread of its
     * own, so that the copy holds up none of its other connections, and runs {@code then} as a command
     * ({@link #execute}) once the bytes are there and it touches the caller's memory no more. The
     * default deregisters at once and runs {@code then} before returning, as does a fabric that has
     * nothing left to do with the memory.
     *
     * @param registration a registration of this fabric, not yet deregistered
     * @param readable     the bytes, from the registration's first, the caller will read; 0 for none
     * @param then         runs on the progress thread once those bytes are in the caller's buffer and
     *                     the fabric is done with it
     */
    default void deregister(Registration registration, long readable, Runnable then) {
        deregister(registration, readable);
        then.run();
    }

    /**
     * What the fabric holds and has counted: its connections, its registrations and its own figures
     * ({@link FabricStatistics}; each fabric's type adds them typed). Any thread, at once: it never
     * waits for the progress thread, however busy or stuck that is, so off it a figure may be a moment
     * old. Read on the progress thread, the figures are of one moment.
     *
     * @return the snapshot
     */
    FabricStatistics statistics();

    /**
     * Ends every connection (each listener hears of its end), releases the fabric's registrations and
     * device, and stops its progress thread; a second call does nothing. Never on the progress thread.
     */
    @Override
    void close();

    /**
     * A peer's request to connect, handed to the acceptor given to {@link Fabric#listen}.
     */
    interface ConnectRequest {

        /** @return the requesting peer's address */
        FabricAddress peer();

        /**
         * @return the peer's RFC 8797 private data, or {@link ConnectPrivateData#DEFAULT} when it sent
         *     none or data of another protocol (recognised by its magic, not its length)
         */
        ConnectPrivateData privateData();

        /**
         * Accepts the connection: posts the receives, then answers with this side's private data.
         *
         * @param ours     this side's RFC 8797 private data
         * @param receives buffers to post for the peer's first messages
         * @param listener gets the connection's events
         * @return the connection; {@link ConnectionListener#onEstablished} follows
         */
        FabricConnection accept(ConnectPrivateData ours, List<ByteBuffer> receives, ConnectionListener listener);

        /** Refuses the connection; the peer hears that it was refused. */
        void reject();
    }
}
