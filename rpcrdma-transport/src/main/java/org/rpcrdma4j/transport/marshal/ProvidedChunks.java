package org.rpcrdma4j.transport.marshal;

import java.util.List;
import org.rpcrdma4j.xdr.ReplyChunk;
import org.rpcrdma4j.xdr.WriteChunk;

/**
 * What a requester provided in a call for its reply (RFC 8166 §3.4.6, §3.5.3): the responder keeps
 * it from the call until the reply is sent.
 *
 * @param writeList  the Write chunks, in order; empty when none
 * @param replyChunk the Reply chunk, or {@code null}
 */
public record ProvidedChunks(List<WriteChunk> writeList, ReplyChunk replyChunk) {

    /** A call that provided nothing: its reply goes inline. */
    public static final ProvidedChunks NONE = new ProvidedChunks(List.of(), null);

    /**
     * Copies the list.
     *
     * @param writeList  the Write chunks
     * @param replyChunk the Reply chunk, or {@code null}
     */
    public ProvidedChunks {
        writeList = List.copyOf(writeList);
    }
}
