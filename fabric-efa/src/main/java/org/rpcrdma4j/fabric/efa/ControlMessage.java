package org.rpcrdma4j.fabric.efa;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.Optional;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * A message on the control tag: what RDMA-CM's connect request, accept and disconnect do for a verbs
 * RC connection, carried as tagged sends since an EFA RDM endpoint has no connections. All integers
 * big-endian (XDR).
 *
 * <pre>
 * CONNECT: type=1 | RFC 8797 private data (8) | requester id (4) | raw length (4) | raw address | identity (16) | number (4)
 * ACCEPT:  type=2 | RFC 8797 private data (8) | requester id (4) | responder id (4)
 * CLOSE:   type=3 | receiver's id (4)
 * LEAVE:   type=4
 * OVERRUN: type=5 | receiver's id (4)
 * </pre>
 *
 * Each side names a connection by an id of its own, unique among its fabric's open connections,
 * whichever side opened them: the requester's id travels in CONNECT, the responder answers with both,
 * and CLOSE names the connection by the id of the side it goes to. Data messages of a connection go on
 * the data tag of the receiver's id ({@link EfaFabric}), so one fabric can serve a peer and be its
 * client at the same time. A CLOSE answering a CONNECT refuses it. LEAVE says the sender's endpoint is
 * closing: its connections end and the receiver forgets it, so that closed peers cost nothing. OVERRUN
 * is a CLOSE that says why: the receiver sent beyond its credits and the sender's endpoint dropped
 * messages of the connection, so the receiver's connection ends on receiver-not-ready, as on verbs RC.
 *
 * @param type        the kind of message
 * @param privateData the sender's RFC 8797 private data (CONNECT, ACCEPT), else {@code null}
 * @param address     the requester's address (CONNECT), else {@code null}
 * @param receiverId  the id of the side the message goes to: the requester's for ACCEPT, the
 *                    receiver's for CLOSE and OVERRUN; 0 for CONNECT
 * @param senderId    the id of the side that sends it (CONNECT, ACCEPT), else 0
 */
record ControlMessage(Type type, ConnectPrivateData privateData, FabricAddress address, int receiverId,
                             int senderId) {

    /** The kinds of control message. */
    public enum Type {
        /** A requester opens a connection. */
        CONNECT(1),
        /** A responder accepts it; the connection is up when this arrives. */
        ACCEPT(2),
        /** Either side tears the connection down, or the responder refuses it. */
        CLOSE(3),
        /** The sender's endpoint closes: forget it. */
        LEAVE(4),
        /** The sender tears the connection down because the receiver overran its credits. */
        OVERRUN(5);

        private final int value;

        Type(int value) {
            this.value = value;
        }
    }

    /** The longest raw address accepted: the EFA raw address is 32 bytes. */
    public static final int MAX_RAW_LENGTH = 64;
    /** The longest control message; receive buffers for the control tag have this size. */
    public static final int MAX_LENGTH = 4 + ConnectPrivateData.ENCODED_LENGTH + 4 + 4 + MAX_RAW_LENGTH
            + FabricAddress.IDENTITY_LENGTH + 4;

    /**
     * Checks that each type has the fields it needs.
     *
     * @param type        the kind
     * @param privateData private data for CONNECT and ACCEPT
     * @param address     the requester's address for CONNECT
     * @param receiverId  the receiver's id for ACCEPT and CLOSE
     * @param senderId    the sender's id for CONNECT and ACCEPT
     */
    public ControlMessage {
        Objects.requireNonNull(type, "type");
        if ((type == Type.CONNECT || type == Type.ACCEPT) && privateData == null) {
            throw new IllegalArgumentException(type + " needs private data");
        }
        if (type == Type.CONNECT && (address == null || address.raw().length > MAX_RAW_LENGTH)) {
            throw new IllegalArgumentException("CONNECT needs an address of at most " + MAX_RAW_LENGTH + " bytes");
        }
    }

    /**
     * @param privateData the requester's private data
     * @param address     the requester's address
     * @param requesterId the requester's id of the connection
     * @return a CONNECT message
     */
    public static ControlMessage connect(ConnectPrivateData privateData, FabricAddress address, int requesterId) {
        return new ControlMessage(Type.CONNECT, privateData, address, 0, requesterId);
    }

    /**
     * @param privateData the responder's private data
     * @param requesterId the requester's id of the connection, from its CONNECT
     * @param responderId the responder's id of the connection
     * @return an ACCEPT message
     */
    public static ControlMessage accept(ConnectPrivateData privateData, int requesterId, int responderId) {
        return new ControlMessage(Type.ACCEPT, privateData, null, requesterId, responderId);
    }

    /**
     * @param receiverId the id the receiving side gave the connection
     * @return a CLOSE message
     */
    public static ControlMessage close(int receiverId) {
        return new ControlMessage(Type.CLOSE, null, null, receiverId, 0);
    }

    /**
     * @param receiverId the id the receiving side gave the connection
     * @return an OVERRUN message
     */
    public static ControlMessage overrun(int receiverId) {
        return new ControlMessage(Type.OVERRUN, null, null, receiverId, 0);
    }

    /** @return a LEAVE message */
    public static ControlMessage leave() {
        return new ControlMessage(Type.LEAVE, null, null, 0, 0);
    }

    /** @return the encoded message in a new buffer, position 0, limit its length */
    public ByteBuffer encode() {
        ByteBuffer out = ByteBuffer.allocate(MAX_LENGTH).order(ByteOrder.BIG_ENDIAN);
        out.putInt(type.value);
        switch (type) {
            case CONNECT -> {
                byte[] raw = address.raw();
                out.put(privateData.toBytes()).putInt(senderId).putInt(raw.length).put(raw)
                        .put(address.identity()).putInt(address.number());
            }
            case ACCEPT -> out.put(privateData.toBytes()).putInt(receiverId).putInt(senderId);
            case CLOSE, OVERRUN -> out.putInt(receiverId);
            case LEAVE -> {
                // The type says it all.
            }
        }
        return out.flip();
    }

    /**
     * Decodes a received control message. Private data of an unknown format is not an error: the
     * peer is then assumed to use the RFC 8166 defaults (RFC 8797 §5).
     *
     * @param in     the received bytes
     * @param offset where the message starts
     * @param length bytes received
     * @return the message, or empty if it is malformed
     */
    public static Optional<ControlMessage> decode(ByteBuffer in, int offset, int length) {
        ByteBuffer view = in.duplicate().order(ByteOrder.BIG_ENDIAN);
        view.limit(offset + length).position(offset);
        if (view.remaining() < 4) {
            return Optional.empty();
        }
        int type = view.getInt();
        if (type == Type.CLOSE.value) {
            return view.remaining() == 4 ? Optional.of(close(view.getInt())) : Optional.empty();
        }
        if (type == Type.OVERRUN.value) {
            return view.remaining() == 4 ? Optional.of(overrun(view.getInt())) : Optional.empty();
        }
        if (type == Type.LEAVE.value) {
            return view.remaining() == 0 ? Optional.of(leave()) : Optional.empty();
        }
        if ((type != Type.CONNECT.value && type != Type.ACCEPT.value)
                || view.remaining() < ConnectPrivateData.ENCODED_LENGTH + 8) {
            return Optional.empty();
        }
        ConnectPrivateData privateData = ConnectPrivateData.decode(view, view.position(),
                ConnectPrivateData.ENCODED_LENGTH).orElse(ConnectPrivateData.DEFAULT);
        view.position(view.position() + ConnectPrivateData.ENCODED_LENGTH);
        if (type == Type.ACCEPT.value) {
            return view.remaining() == 8 ? Optional.of(accept(privateData, view.getInt(), view.getInt()))
                    : Optional.empty();
        }
        int requesterId = view.getInt();
        // Check the count before sizing anything from it.
        long rawLength = Integer.toUnsignedLong(view.getInt());
        if (rawLength > MAX_RAW_LENGTH || view.remaining() != rawLength + FabricAddress.IDENTITY_LENGTH + 4) {
            return Optional.empty();
        }
        byte[] raw = new byte[(int) rawLength];
        byte[] identity = new byte[FabricAddress.IDENTITY_LENGTH];
        view.get(raw).get(identity);
        return Optional.of(connect(privateData, new FabricAddress(raw, identity, view.getInt()), requesterId));
    }
}
