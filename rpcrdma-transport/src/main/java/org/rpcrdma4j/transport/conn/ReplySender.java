package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.transport.CallStepEvent;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.marshal.ProvidedChunks;
import org.rpcrdma4j.transport.marshal.ReplyPlan;
import org.rpcrdma4j.transport.rw.Deregistrations;
import org.rpcrdma4j.transport.rw.RdmaBatch;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The responder's conveyance of replies, as Linux's {@code svc_rdma_sendto}: planned on the worker
 * that replies ({@link ReplyPlan}), then on the progress thread each result buffer registered,
 * RDMA-Written into its chunk, and the Send after the Writes (RFC 8166 §3.4.6). A reply that cannot
 * be conveyed is answered ERR_CHUNK, never truncated; a failed RDMA Write closes the connection, as
 * svcrdma does when the requester's memory is gone. Every message sent carries the grant.
 */
final class ReplySender {

    private final Fabric fabric;
    private final ResponderCredits credits;
    private final LongAdder copied;
    private final LongAdder errorsSent;
    private final ChunkWork chunkWork;
    private final BiConsumer<Connection, String> lose;

    /**
     * @param fabric    the fabric, which registers the result buffers
     * @param credits   the grant to carry
     * @param copied    counts the bytes copied to plan replies
     * @param errorsSent counts the RDMA_ERRORs sent for replies that cannot be conveyed
     * @param chunkWork counts the replies whose chunk data is moving
     * @param lose      closes a connection for a reason, on the progress thread
     */
    ReplySender(Fabric fabric, ResponderCredits credits, LongAdder copied, LongAdder errorsSent, ChunkWork chunkWork,
                BiConsumer<Connection, String> lose) {
        this.fabric = fabric;
        this.credits = credits;
        this.copied = copied;
        this.errorsSent = errorsSent;
        this.chunkWork = chunkWork;
        this.lose = lose;
    }

    /**
     * Conveys a reply. Thread-safe: planned on the caller's thread, sent from the progress thread.
     *
     * @param connection the connection the call came on
     * @param xid        the call's XID
     * @param rpcMessage the whole RPC reply message; its bytes must not change until {@code done}
     * @param encodedIn  a buffer of the fabric's message buffers the reply was encoded into, from
     *                   {@link ReplyPlan#HEADER_ROOM} on, which is this sender's from now on; or null
     * @param provided   the chunks the call provided for its reply
     * @param payloads   the reply's DDP-eligible results
     * @param done       called with {@code null} once sent, or with the error, on the progress thread
     */
    void reply(Connection connection, int xid, MessageBytes rpcMessage, ByteBuffer encodedIn, ProvidedChunks provided,
               List<XdrItem> payloads, Consumer<RdmaTransportException> done) {
        ReplyPlan plan = ReplyPlan.of(xid, credits.granted(), rpcMessage, encodedIn, provided, payloads,
                connection.thresholds().send(), fabric.messageBuffers(), copied);
        Consumer<RdmaTransportException> finish = encodedIn == null || plan != null && plan.message() == encodedIn
                ? done : releasing(encodedIn, done);
        CallStepEvent.mark(xid, CallStepEvent.REPLY_PLANNED);
        if (plan == null) {
            execute(() -> errChunk(connection, xid), finish,
                    new RdmaTransportException(RdmaTransportException.Scope.CALL, "reply to xid 0x"
                            + Integer.toHexString(xid) + " of " + rpcMessage.length() + " bytes does not fit the chunks"
                            + " provided or the inline threshold; answered ERR_CHUNK"));
            return;
        }
        boolean queued = Connection.execute(fabric, () -> {
            if (connection.state() != Connection.State.CONNECTED) {
                fabric.messageBuffers().release(plan.message());
                finish.accept(notSent(connection, xid));
            } else if (plan.writes().isEmpty()) {
                connection.send(plan.message(), provided.invalidateHandle(), finish);
                CallStepEvent.mark(xid, CallStepEvent.REPLY_SENT);
            } else {
                writeThenSend(connection, xid, plan, provided.invalidateHandle(), finish);
            }
        });
        if (!queued) {
            fabric.messageBuffers().release(plan.message());
            finish.accept(stopped());
        }
    }

    /**
     * @return {@code done}, after giving back the buffer a reply was encoded into but not sent from,
     *     once nothing reads the reply (a Write's source may)
     */
    private Consumer<RdmaTransportException> releasing(ByteBuffer encodedIn, Consumer<RdmaTransportException> done) {
        return error -> {
            fabric.messageBuffers().release(encodedIn);
            done.accept(error);
        };
    }

    private void errChunk(Connection connection, int xid) {
        if (connection.sendError(xid, credits.granted(), RdmaError.errChunk())) {
            errorsSent.increment();
        }
    }

    /** RDMA-Writes the reply's chunk data, then sends the header (RFC 8166 §3.4.6: data before the Send). */
    private void writeThenSend(Connection connection, int xid, ReplyPlan plan, int invalidate,
                               Consumer<RdmaTransportException> done) {
        List<Registration> sources = new ArrayList<>(plan.sources().size());
        for (ByteBuffer bytes : plan.sources()) {
            Registration source = fabric.register(bytes, EnumSet.noneOf(MemoryAccess.class));
            if (source == null) {
                // The reply's buffers are disposed only once the fabric is done with them.
                Deregistrations.all(fabric, sources, 0, () -> {
                    fabric.messageBuffers().release(plan.message());
                    errChunk(connection, xid);
                    done.accept(new RdmaTransportException(RdmaTransportException.Scope.CALL, "reply to xid 0x"
                            + Integer.toHexString(xid) + ": the fabric could not register it; answered ERR_CHUNK"));
                });
                return;
            }
            sources.add(source);
        }
        chunkWork.started(sources.size());
        RdmaBatch batch = new RdmaBatch(status -> Deregistrations.all(fabric, sources, 0, () -> {
            chunkWork.ended(sources.size());
            if (!status.ok()) {
                fabric.messageBuffers().release(plan.message());
                lose.accept(connection, "RDMA Write of the reply to xid 0x" + Integer.toHexString(xid)
                        + " failed: " + status);
                done.accept(notSent(connection, xid));
            } else if (connection.state() != Connection.State.CONNECTED) {
                fabric.messageBuffers().release(plan.message());
                done.accept(notSent(connection, xid));
            } else {
                connection.send(plan.message(), invalidate, done);
                CallStepEvent.mark(xid, CallStepEvent.REPLY_SENT);
            }
        }));
        for (ReplyPlan.Write write : plan.writes()) {
            connection.work().write(sources.get(write.source()), write.sourceOffset(), write.target(),
                    batch.operation());
        }
        batch.seal();
    }

    private void execute(Runnable command, Consumer<RdmaTransportException> done, RdmaTransportException result) {
        if (!Connection.execute(fabric, command)) {
            done.accept(stopped());
        } else {
            done.accept(result);
        }
    }

    private static RdmaTransportException stopped() {
        return new RdmaTransportException(RdmaTransportException.Scope.CONNECTION,
                "the fabric's progress thread has stopped");
    }

    private static RdmaTransportException notSent(Connection connection, int xid) {
        return connection.notUp("reply to xid 0x" + Integer.toHexString(xid));
    }
}
