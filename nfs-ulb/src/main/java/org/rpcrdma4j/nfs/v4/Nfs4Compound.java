package org.rpcrdma4j.nfs.v4;

import java.util.ArrayList;
import java.util.List;
import org.rpcrdma4j.nfs.XdrCursor;
import org.rpcrdma4j.transport.DdpPolicy;

/**
 * What a COMPOUND call shows of the Linux client procedure it comes from: its operations in order,
 * whether the walk saw all of them, and the arguments that size a reply (the attributes of its first
 * GETATTR, the type of a CREATE, the count of a bulk read).
 *
 * <p>The walk steps over the arguments of the operations that come before others in Linux's
 * compounds; it stops after the first operation it cannot step over, so {@link #complete} is false
 * when operations follow it.
 *
 * @param ops        the operation numbers read, in order
 * @param complete   whether every operation of the COMPOUND was read
 * @param attributes the attribute bitmap of the first GETATTR (up to three words), empty when none
 * @param createType the object type of the first CREATE, or -1 when none
 * @param count      the bytes a bulk result may take: READ and READ_PLUS count, READDIR, LISTXATTRS,
 *                   GETDEVICEINFO and LAYOUTGET maxcount; -1 when none
 */
record Nfs4Compound(List<Integer> ops, boolean complete, int[] attributes, int createType, long count) {

    private static final long UNBOUNDED = Integer.MAX_VALUE;
    private static final int STATEID = 16;

    /**
     * @param call a COMPOUND call
     * @return what it shows
     * @throws IllegalArgumentException if the call ends inside what is read
     */
    static Nfs4Compound read(DdpPolicy.RpcMessage call) {
        XdrCursor args = new XdrCursor(call);
        args.opaque(UNBOUNDED);                                 // tag
        args.uint32();                                          // minorversion
        long total = args.uint32();
        List<Integer> ops = new ArrayList<>();
        int[] attributes = null;
        int createType = -1;
        long count = -1;
        for (long i = 0; i < total; i++) {
            int op = args.int32();
            ops.add(op);
            boolean last = i == total - 1;
            switch (op) {
                case Nfs4DdpPolicy.OP_GETATTR -> {
                    int[] bitmap = bitmap(args);
                    if (attributes == null) {
                        attributes = bitmap;
                    }
                }
                case Nfs4DdpPolicy.OP_CREATE -> {
                    int type = args.int32();
                    if (createType < 0) {
                        createType = type;
                    }
                    if (!last) {
                        Nfs4DdpPolicy.skipCreate(type, args);
                    }
                }
                case Nfs4DdpPolicy.OP_READ, Nfs4DdpPolicy.OP_READ_PLUS -> {
                    args.skip(STATEID + 8);                     // stateid, offset
                    count = args.uint32();
                }
                case Nfs4DdpPolicy.OP_READDIR -> {
                    args.skip(8 + 8 + 4);                       // cookie, cookieverf, dircount
                    count = args.uint32();
                    bitmap(args);
                }
                case Nfs4DdpPolicy.OP_LISTXATTRS -> {
                    args.skip(8);                               // cookie
                    count = args.uint32();
                }
                case Nfs4DdpPolicy.OP_GETDEVICEINFO -> {
                    args.skip(16 + 4);                          // deviceid, layout type
                    count = args.uint32();
                    bitmap(args);                               // notify types
                }
                case Nfs4DdpPolicy.OP_LAYOUTGET -> {
                    args.skip(4 + 4 + 4 + 8 + 8 + 8 + STATEID); // avail, type, iomode, offset, length, minlength
                    count = args.uint32();
                }
                default -> {
                    if (!last && !Nfs4DdpPolicy.skipArgs(op, args)) {
                        return new Nfs4Compound(ops, false, orNone(attributes), createType, count);
                    }
                }
            }
        }
        return new Nfs4Compound(ops, true, orNone(attributes), createType, count);
    }

    private static int[] orNone(int[] attributes) {
        return attributes == null ? new int[0] : attributes;
    }

    private static int[] bitmap(XdrCursor args) {
        long words = args.uint32();
        if (words > 8) {
            throw new IllegalArgumentException("bitmap4 of " + words + " words");
        }
        int[] bitmap = new int[(int) words];
        for (int i = 0; i < words; i++) {
            bitmap[i] = args.int32();
        }
        return bitmap;
    }
}
