package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/** The scatter/gather list of a work request: a native {@code struct ibv_sge[]} it points to. */
final class ScatterGather {
    private static final long SIZE = Structs.IBV_SGE.byteSize();
    private static final long ADDR = Structs.offset(Structs.IBV_SGE, "addr");
    private static final long LENGTH = Structs.offset(Structs.IBV_SGE, "length");
    private static final long LKEY = Structs.offset(Structs.IBV_SGE, "lkey");

    private final MemorySegment entries;
    private final MemorySegment request;
    private final long numSgeOffset;
    private int count;

    ScatterGather(MemorySegment entries, MemorySegment request, long sgListOffset, long numSgeOffset) {
        this.entries = entries;
        this.request = request;
        this.numSgeOffset = numSgeOffset;
        request.set(ADDRESS, sgListOffset, entries);
    }

    int capacity() {
        return (int) (entries.byteSize() / SIZE);
    }

    void clear() {
        count = 0;
        request.set(JAVA_INT, numSgeOffset, 0);
    }

    void add(long address, int length, int lkey) {
        if (count == capacity()) {
            throw new IllegalStateException("the request holds " + capacity() + " scatter/gather entries");
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        long at = count * SIZE;
        entries.set(JAVA_LONG, at + ADDR, address);
        entries.set(JAVA_INT, at + LENGTH, length);
        entries.set(JAVA_INT, at + LKEY, lkey);
        count++;
        request.set(JAVA_INT, numSgeOffset, count);
    }

    /** Adds a range of a registration, checked against its bounds. */
    void add(MemoryRegion region, long offset, int length) {
        if (offset < 0 || length < 0 || offset + length > region.length()) {
            throw new IndexOutOfBoundsException("range " + offset + "+" + length + " outside a registration of "
                    + region.length() + " bytes");
        }
        add(region.address() + offset, length, region.lkey());
    }

    int count() {
        return count;
    }
}
