package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.wire.ExtraFeature;

/**
 * Where every RMA operation starts, as in libfabric's {@code efa_rdm_rma_post_read} and
 * {@code efa_rdm_rma_post_write}: it waits for the peer's handshake (triggering it if need be), since
 * the choice depends on the peer's features, then {@link ProtocolSelector#selectRma} picks direct RDMA or
 * an emulation, and an emulated operation is prepared: the local region's bytes found (it must be
 * registered through this endpoint, and grant local write to a read), a long-read write's source
 * registered for the peer to read (without a registration it goes eager or long-CTS, as the provider's
 * {@code -FI_ENOMEM} fallback), an emulated read's receive taken. A write that asks for delivery complete
 * fails with {@link EfaErrorCode#PEER_LACKS_FEATURE} if the peer's handshake does not announce it (§2.1, §4.2).
 */
final class RmaStart {

    private final ArrayDeque<TxEntry> beforeHandshake = new ArrayDeque<>();
    private final Handshake handshake;
    private final ProtocolSelector selector;
    private final RegisteredMemory memory;
    private final DirectRma direct;
    private final LongReadSender longRead;
    private final EmulatedRead emulatedRead;
    private final TxSide tx;
    private final Counters counters;

    RmaStart(Handshake handshake, ProtocolSelector selector, RegisteredMemory memory, DirectRma direct,
             LongReadSender longRead, EmulatedRead emulatedRead, TxSide tx, Counters counters) {
        this.handshake = handshake;
        this.selector = selector;
        this.memory = memory;
        this.direct = direct;
        this.longRead = longRead;
        this.emulatedRead = emulatedRead;
        this.tx = tx;
        this.counters = counters;
    }

    void start(TxEntry entry) {
        if (entry.peer.handshakeReceived && beforeHandshake.isEmpty()) {
            choose(entry);
        } else {
            // May wait for a peer that never answers; TxSide.forget ends it with the peer.
            handshake.trigger(entry.peer);
            beforeHandshake.add(entry);
        }
    }

    /** @return whether no operation waits for a handshake */
    boolean idle() {
        return beforeHandshake.isEmpty();
    }

    /** @return how many waiting operations were started or dropped */
    int progress() {
        int done = 0;
        final Iterator<TxEntry> it = beforeHandshake.iterator();
        while (it.hasNext()) {
            final TxEntry entry = it.next();
            if (entry.completed || entry.peer.handshakeReceived) {
                it.remove();
                if (!entry.completed) {
                    choose(entry);
                }
                done++;
            }
        }
        return done;
    }

    /** Forgets every operation waiting: the endpoint is closing. */
    void clear() {
        beforeHandshake.clear();
    }

    private void choose(TxEntry entry) {
        if (entry.deliveryComplete && !entry.peer.has(ExtraFeature.DELIVERY_COMPLETE)) {
            // §2.1, §4.2: as MessageStart; libfabric's provider checks it only for an emulated write.
            tx.fail(entry, EfaErrorCode.PEER_LACKS_FEATURE);
            return;
        }
        entry.protocol = selector.selectRma(entry);
        switch (entry.protocol) {
            case DIRECT_READ -> {
                counters.increment(EndpointCounter.DIRECT_READS);
                direct.start(entry);
            }
            case DIRECT_WRITE -> {
                counters.increment(EndpointCounter.DIRECT_WRITES);
                direct.start(entry);
            }
            default -> emulate(entry);
        }
    }

    private void emulate(TxEntry entry) {
        final boolean read = entry.kind == CompletionEntry.Kind.READ;
        final ByteBuffer bytes = entry.remote.length() > Integer.MAX_VALUE ? null
                : memory.local(entry.local, entry.localOffset, entry.remote.length());
        if (bytes == null || read && !entry.local.access().contains(Access.LOCAL_WRITE)) {
            // What the device says of a local region it refuses (a direct operation ends the same).
            tx.fail(entry, EfaErrorCode.LOCAL_ERROR_INVALID_LKEY);
            return;
        }
        entry.data = bytes;
        if (entry.protocol == Protocol.LONGREAD_RTW && !longRead.register(entry)) {
            entry.protocol = selector.emulatedWrite(entry);
        }
        if (read && !emulatedRead.start(entry, bytes)) {
            tx.fail(entry, EfaErrorCode.OTHER);
            return;
        }
        tx.start(entry);
    }
}
