package org.rpcrdma4j.testbed.trace;

import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rpcrdma4j.xdr.Segment;

/**
 * The RDMA Writes and RDMA Reads of a RoCEv2 capture, and the bytes a chunk segment held.
 *
 * <p>An RDMA Write carries its RETH (virtual address, R_Key, length) on its first packet
 * (RDMA_WRITE_FIRST or RDMA_WRITE_ONLY); its later packets follow on the same queue pair in order. An
 * RDMA Read Request carries the RETH; its responses (RDMA_READ_RESPONSE_FIRST/MIDDLE/LAST/ONLY, the
 * first and last with an AETH) come back in order and answer the oldest outstanding request on that
 * connection (IBTA 9.7.5). In RPC-over-RDMA the segment handle is the R_Key and the segment offset the
 * virtual address (RFC 8166 §3.4.3), so a segment's data is found by handle and address range.
 */
public final class RdmaTransfers {

    private static final int RDMA_WRITE_FIRST = 0x06;
    private static final int RDMA_WRITE_MIDDLE = 0x07;
    private static final int RDMA_WRITE_LAST = 0x08;
    private static final int RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09;
    private static final int RDMA_WRITE_ONLY = 0x0A;
    private static final int RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0B;
    private static final int RDMA_READ_REQUEST = 0x0C;
    private static final int RDMA_READ_RESPONSE_FIRST = 0x0D;
    private static final int RDMA_READ_RESPONSE_MIDDLE = 0x0E;
    private static final int RDMA_READ_RESPONSE_LAST = 0x0F;
    private static final int RDMA_READ_RESPONSE_ONLY = 0x10;
    private static final int RETH_LENGTH = 16;
    private static final int AETH_LENGTH = 4;
    private static final int IMMDT_LENGTH = 4;

    /** A transfer being reassembled; {@code elided} once an export elided one of its packets' payloads. */
    private static final class Partial {
        private final int rkey;
        private final long va;
        private final ByteArrayOutputStream data = new ByteArrayOutputStream();
        private boolean elided;

        Partial(int rkey, long va) {
            this.rkey = rkey;
            this.va = va;
        }

        void add(RocePacket p, int from) {
            data.write(p.bytes(), from, p.to() - from);
            elided |= p.elided();
        }
    }

    /** Writes in progress per receiving address and queue pair. */
    private final Map<String, Partial> writes = new HashMap<>();
    /** Outstanding Read Requests per (requester, responder) address pair, oldest first. */
    private final Map<String, ArrayDeque<Partial>> reads = new HashMap<>();
    private final Map<Integer, List<RdmaTransfer>> byRkey = new HashMap<>();

    RdmaTransfers() {
    }

    /** Takes the next packet of the capture. */
    void onPacket(RocePacket p) {
        if (p.transport() != RocePacket.RC) {
            return;
        }
        byte[] b = p.bytes();
        int at = p.from();
        switch (p.opcode()) {
            case RDMA_WRITE_FIRST, RDMA_WRITE_ONLY, RDMA_WRITE_ONLY_WITH_IMMEDIATE -> {
                Partial write = new Partial(RocePacket.u32(b, at + 8), RocePacket.u64(b, at));
                write.add(p, at + RETH_LENGTH + (p.opcode() == RDMA_WRITE_ONLY_WITH_IMMEDIATE ? IMMDT_LENGTH : 0));
                if (p.opcode() == RDMA_WRITE_FIRST) {
                    writes.put(p.destination() + "/" + p.qp(), write);
                } else {
                    complete(p.frame(), true, write);
                }
            }
            case RDMA_WRITE_MIDDLE, RDMA_WRITE_LAST, RDMA_WRITE_LAST_WITH_IMMEDIATE -> {
                String key = p.destination() + "/" + p.qp();
                Partial write = p.opcode() == RDMA_WRITE_MIDDLE ? writes.get(key) : writes.remove(key);
                if (write == null) {
                    return;                      // the capture began inside this Write
                }
                write.add(p, at + (p.opcode() == RDMA_WRITE_LAST_WITH_IMMEDIATE ? IMMDT_LENGTH : 0));
                if (p.opcode() != RDMA_WRITE_MIDDLE) {
                    complete(p.frame(), true, write);
                }
            }
            case RDMA_READ_REQUEST -> reads.computeIfAbsent(p.source() + ">" + p.destination(), k -> new ArrayDeque<>())
                    .add(new Partial(RocePacket.u32(b, at + 8), RocePacket.u64(b, at)));
            case RDMA_READ_RESPONSE_FIRST, RDMA_READ_RESPONSE_MIDDLE, RDMA_READ_RESPONSE_LAST,
                 RDMA_READ_RESPONSE_ONLY -> {
                ArrayDeque<Partial> outstanding = reads.get(p.destination() + ">" + p.source());
                if (outstanding == null || outstanding.isEmpty()) {
                    return;
                }
                outstanding.peek().add(p, at + (p.opcode() == RDMA_READ_RESPONSE_MIDDLE ? 0 : AETH_LENGTH));
                if (p.opcode() == RDMA_READ_RESPONSE_LAST || p.opcode() == RDMA_READ_RESPONSE_ONLY) {
                    complete(p.frame(), false, outstanding.poll());
                }
            }
            default -> {
            }
        }
    }

    private void complete(int frame, boolean write, Partial partial) {
        byRkey.computeIfAbsent(partial.rkey, k -> new ArrayList<>()).add(new RdmaTransfer(frame, write, partial.rkey,
                partial.va, partial.data.toByteArray(), partial.elided));
    }

    /**
     * The bytes RDMA Writes or Reads moved through one chunk segment between two frames.
     *
     * @param segment the segment, with the length to gather (for an echoed Write or Reply chunk: the bytes
     *                written)
     * @param write   true to gather RDMA Writes, false RDMA Read responses
     * @param after   only transfers completed after this frame (the message that advertised the segment)
     * @param before  only transfers completed before this frame (the reply that ends its use)
     * @return the segment's bytes, or {@code null} when the capture does not hold all of them
     * @throws IllegalArgumentException if an export elided some of them: the zeros in their place must not be
     *                                  compared as Linux's
     */
    public byte[] gather(Segment segment, boolean write, int after, int before) {
        List<RdmaTransfer> transfers = byRkey.getOrDefault(segment.handle(), List.of()).stream()
                .filter(t -> t.write() == write && t.frame() > after && t.frame() < before).toList();
        // The length comes from the capture's header: allocate only what the capture's transfers can fill.
        long moved = transfers.stream().mapToLong(t -> t.data().length).sum();
        if (segment.unsignedLength() > moved) {
            return null;
        }
        byte[] data = new byte[Math.toIntExact(segment.unsignedLength())];
        long covered = 0;
        for (RdmaTransfer t : transfers) {
            long from = Math.max(t.va(), segment.offset());
            long to = Math.min(t.va() + t.data().length, segment.offset() + data.length);
            if (from < to) {
                if (t.elided()) {
                    throw new IllegalArgumentException("not checkable: the export elides the payload of the RDMA "
                            + (write ? "Write" : "Read") + " completed in frame " + t.frame() + " (segment "
                            + segment + ")");
                }
                System.arraycopy(t.data(), (int) (from - t.va()), data, (int) (from - segment.offset()),
                        (int) (to - from));
                covered += to - from;
            }
        }
        return covered == data.length ? data : null;
    }
}
