package org.rpcrdma4j.transport.marshal;

import java.nio.ByteBuffer;
import org.rpcrdma4j.transport.DdpPolicy;

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
        ByteBuffer in = header(call, CALL);
        in.getInt();
        return new DdpPolicy.RpcProcedure(in.getInt(), in.getInt(), in.getInt());
    }

    /**
     * @param call an encoded RPC call
     * @return the call with the index of its arguments: after rpcvers, prog, vers, proc, cred and verf
     * @throws IllegalArgumentException if it is not a well-formed call header
     */
    public static DdpPolicy.RpcMessage call(byte[] call) {
        ByteBuffer in = header(call, CALL);
        in.position(in.position() + 16);
        skipOpaqueAuth(in);
        skipOpaqueAuth(in);
        return new DdpPolicy.RpcMessage(call, in.position());
    }

    /**
     * @param reply an encoded RPC reply
     * @return the reply with the index of its results: after the verifier and accept_stat of an
     *     accepted SUCCESS reply; the end of the message for any other reply, which has no results
     * @throws IllegalArgumentException if it is not a well-formed reply header
     */
    public static DdpPolicy.RpcMessage reply(byte[] reply) {
        ByteBuffer in = header(reply, 1);
        if (in.getInt() != MSG_ACCEPTED) {
            return new DdpPolicy.RpcMessage(reply, reply.length);
        }
        skipOpaqueAuth(in);
        return new DdpPolicy.RpcMessage(reply, in.getInt() == SUCCESS ? in.position() : reply.length);
    }

    private static ByteBuffer header(byte[] message, int type) {
        ByteBuffer in = ByteBuffer.wrap(message);
        try {
            in.getInt();
            if (in.getInt() != type) {
                throw new IllegalArgumentException("not an RPC " + (type == CALL ? "call" : "reply"));
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("an RPC message of " + message.length + " bytes has no header", e);
        }
        return in;
    }

    private static void skipOpaqueAuth(ByteBuffer in) {
        try {
            in.getInt();
            long length = Integer.toUnsignedLong(in.getInt());
            if (length > in.remaining()) {
                throw new IllegalArgumentException("opaque_auth of " + length + " bytes runs past the message");
            }
            in.position(in.position() + (int) ((length + 3) & ~3L));
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
            throw new IllegalArgumentException("truncated RPC header", e);
        }
    }
}
