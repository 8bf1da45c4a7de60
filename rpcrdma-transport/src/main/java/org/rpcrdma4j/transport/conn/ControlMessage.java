package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.Optional;
import org.rpcrdma4j.transport.FabricAddress;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * A message on the control channel: what RDMA-CM's connect request, accept and disconnect do for a
 * verbs RC connection, carried as tagged sends since an EFA RDM endpoint has no connections. All
 * integers big-endian (XDR).
 *
 * <pre>
 * CONNECT: type=1 | RFC 8797 private data (8) | raw length (4) | raw address | identity (16) | number (4)
 * ACCEPT:  type=2 | RFC 8797 private data (8) | connection number (4)
 * CLOSE:   type=3
 * </pre>
 *
 * The requester's address in CONNECT is its identity for the responder; the connection number in
 * ACCEPT is what the responder calls the connection, so both sides name it alike.
 *
 * @param type        the kind of message
 * @param privateData the sender's RFC 8797 private data (CONNECT, ACCEPT), else {@code null}
 * @param address     the requester's address (CONNECT), else {@code null}
 * @param number      the connection number (ACCEPT), else 0
 */
public record ControlMessage(Type type, ConnectPrivateData privateData, FabricAddress address, int number) {

    /** The kinds of control message. */
    public enum Type {
        /** A requester opens a connection. */
        CONNECT(1),
        /** A responder accepts it; the connection is up when this arrives. */
        ACCEPT(2),
        /** Either side tears the connection down. */
        CLOSE(3);

        private final int value;

        Type(int value) {
            this.value = value;
        }
    }

    /** The longest raw address accepted: the EFA raw address is 32 bytes. */
    public static final int MAX_RAW_LENGTH = 64;
    /** The longest control message; receive buffers for the control channel have this size. */
    public static final int MAX_LENGTH = 4 + ConnectPrivateData.ENCODED_LENGTH + 4 + MAX_RAW_LENGTH
            + FabricAddress.IDENTITY_LENGTH + 4;

    /**
     * Checks that each type has the fields it needs.
     *
     * @param type        the kind
     * @param privateData private data for CONNECT and ACCEPT
     * @param address     the requester's address for CONNECT
     * @param number      the connection number for ACCEPT
     */
    public ControlMessage {
        Objects.requireNonNull(type, "type");
        if (type != Type.CLOSE && privateData == null) {
            throw new IllegalArgumentException(type + " needs private data");
        }
        if (type == Type.CONNECT && (address == null || address.raw().length > MAX_RAW_LENGTH)) {
            throw new IllegalArgumentException("CONNECT needs an address of at most " + MAX_RAW_LENGTH + " bytes");
        }
    }

    /**
     * @param privateData the requester's private data
     * @param address     the requester's address
     * @return a CONNECT message
     */
    public static ControlMessage connect(ConnectPrivateData privateData, FabricAddress address) {
        return new ControlMessage(Type.CONNECT, privateData, address, 0);
    }

    /**
     * @param privateData the responder's private data
     * @param number      the responder's number for the connection
     * @return an ACCEPT message
     */
    public static ControlMessage accept(ConnectPrivateData privateData, int number) {
        return new ControlMessage(Type.ACCEPT, privateData, null, number);
    }

    /** @return a CLOSE message */
    public static ControlMessage close() {
        return new ControlMessage(Type.CLOSE, null, null, 0);
    }

    /** @return the encoded message in a new buffer, position 0, limit its length */
    public ByteBuffer encode() {
        ByteBuffer out = ByteBuffer.allocate(MAX_LENGTH).order(ByteOrder.BIG_ENDIAN);
        out.putInt(type.value);
        if (privateData != null) {
            out.put(privateData.toBytes());
        }
        if (type == Type.CONNECT) {
            byte[] raw = address.raw();
            out.putInt(raw.length).put(raw).put(address.identity()).putInt(address.number());
        } else if (type == Type.ACCEPT) {
            out.putInt(number);
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
            return Optional.of(close());
        }
        if ((type != Type.CONNECT.value && type != Type.ACCEPT.value)
                || view.remaining() < ConnectPrivateData.ENCODED_LENGTH + 4) {
            return Optional.empty();
        }
        ConnectPrivateData privateData = ConnectPrivateData.decode(view, view.position(),
                ConnectPrivateData.ENCODED_LENGTH).orElse(ConnectPrivateData.DEFAULT);
        view.position(view.position() + ConnectPrivateData.ENCODED_LENGTH);
        if (type == Type.ACCEPT.value) {
            return Optional.of(accept(privateData, view.getInt()));
        }
        // Check the count before sizing anything from it (STYLE.md §1).
        long rawLength = Integer.toUnsignedLong(view.getInt());
        if (rawLength > MAX_RAW_LENGTH || view.remaining() != rawLength + FabricAddress.IDENTITY_LENGTH + 4) {
            return Optional.empty();
        }
        byte[] raw = new byte[(int) rawLength];
        byte[] identity = new byte[FabricAddress.IDENTITY_LENGTH];
        view.get(raw).get(identity);
        return Optional.of(connect(privateData, new FabricAddress(raw, identity, view.getInt())));
    }
}
