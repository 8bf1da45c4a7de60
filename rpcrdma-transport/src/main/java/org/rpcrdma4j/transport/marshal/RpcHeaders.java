package org.rpcrdma4j.transport.marshal;

import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;

/**
 * Reads what the transport needs of an RPC message header (RFC 5531 §9) to ask a {@link DdpPolicy}:
 * the procedure of a call and where the body of a call or reply begins.
 */
public final class RpcHeaders {

    private static final int CALL = 0;
    private static final int MSG_ACCEPTED = 0;
    private static final int SUCCESS = 0;

    private RpcHeaders() {
    }

    /**
     * @param call an encoded RPC call
     * @return the procedure it asks for
     * @throws IllegalArgumentException if it is not a well-formed call header
     */
    public static DdpPolicy.RpcProcedure procedure(byte[] call) {
        return procedure(MessageBytes.of(call));
    }

    /**
     * @param call an encoded RPC call
     * @return the procedure it asks for
     * @throws IllegalArgumentException if it is not a well-formed call header
     */
    public static DdpPolicy.RpcProcedure procedure(MessageBytes call) {
        Reader in = header(call, CALL);
        in.word();
        return new DdpPolicy.RpcProcedure(in.word(), in.word(), in.word());
    }

    /**
     * @param call an encoded RPC call
     * @return the call with the index of its arguments: after rpcvers, prog, vers, proc, cred and verf
     * @throws IllegalArgumentException if it is not a well-formed call header
     */
    public static DdpPolicy.RpcMessage call(byte[] call) {
        return call(MessageBytes.of(call));
    }

    /**
     * @param call an encoded RPC call
     * @return the call with the index of its arguments: after rpcvers, prog, vers, proc, cred and verf
     * @throws IllegalArgumentException if it is not a well-formed call header
     */
    public static DdpPolicy.RpcMessage call(MessageBytes call) {
        Reader in = header(call, CALL);
        in.skip(16);
        in.skipOpaqueAuth();
        in.skipOpaqueAuth();
        return new DdpPolicy.RpcMessage(call, in.at);
    }

    /**
     * @param reply an encoded RPC reply
     * @return the reply with the index of its results: after the verifier and accept_stat of an
     *     accepted SUCCESS reply; the end of the message for any other reply, which has no results
     * @throws IllegalArgumentException if it is not a well-formed reply header
     */
    public static DdpPolicy.RpcMessage reply(byte[] reply) {
        return reply(MessageBytes.of(reply));
    }

    /**
     * @param reply an encoded RPC reply
     * @return the reply with the index of its results, as {@link #reply(byte[])}
     * @throws IllegalArgumentException if it is not a well-formed reply header
     */
    public static DdpPolicy.RpcMessage reply(MessageBytes reply) {
        Reader in = header(reply, 1);
        if (in.word() != MSG_ACCEPTED) {
            return new DdpPolicy.RpcMessage(reply, reply.length());
        }
        in.skipOpaqueAuth();
        return new DdpPolicy.RpcMessage(reply, in.word() == SUCCESS ? in.at : reply.length());
    }

    private static Reader header(MessageBytes message, int type) {
        if (message.length() < 8) {
            throw new IllegalArgumentException("an RPC message of " + message.length() + " bytes has no header");
        }
        Reader in = new Reader(message);
        in.word();
        if (in.word() != type) {
            throw new IllegalArgumentException("not an RPC " + (type == CALL ? "call" : "reply"));
        }
        return in;
    }

    /** Reads words in order, any short read an {@link IllegalArgumentException}. */
    private static final class Reader {

        private final MessageBytes message;
        private int at;

        Reader(MessageBytes message) {
            this.message = message;
        }

        int word() {
            skip(4);
            return message.getInt(at - 4);
        }

        void skip(long bytes) {
            if (bytes > message.length() - at) {
                throw new IllegalArgumentException("truncated RPC header");
            }
            at += (int) bytes;
        }

        void skipOpaqueAuth() {
            word();
            long length = Integer.toUnsignedLong(word());
            if (length > message.length() - at) {
                throw new IllegalArgumentException("truncated RPC header: opaque_auth of " + length
                        + " bytes runs past the message");
            }
            skip((length + 3) & ~3L);
        }
    }
}
