package org.rpcrdma4j.xdr;

import java.util.List;

/** Arithmetic shared by the chunk records. */
final class Chunks {

    private Chunks() {
    }

    /** Sums segment lengths as unsigned values; a u32 count of u32 lengths cannot overflow a long. */
    static long length(List<Segment> segments) {
        long sum = 0;
        for (int i = 0; i < segments.size(); i++) {
            sum += segments.get(i).unsignedLength();
        }
        return sum;
    }
}
