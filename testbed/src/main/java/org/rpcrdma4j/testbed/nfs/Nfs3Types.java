package org.rpcrdma4j.testbed.nfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.glassfish.grizzly.memory.ByteBufferWrapper;

/**
 * The basic data types of RFC 1813 section 2.5/2.6 shared by several procedures: {@code nfs_fh3}, {@code nfstime3},
 * {@code fattr3}, {@code post_op_attr}, {@code wcc_attr}/{@code pre_op_attr}, {@code wcc_data}, {@code post_op_fh3},
 * {@code sattr3} and {@code diropargs3}. Each type both encodes and decodes, so the service and the client share it.
 */
public final class Nfs3Types {

    private Nfs3Types() {
    }

    /**
     * Undecodable arguments. Thrown from {@code xdrDecode}, it propagates out of {@code dispatchOncRpcCall} and
     * oncrpc4j answers GARBAGE_ARGS.
     */
    public static final class GarbageException extends OncRpcException {
        private static final long serialVersionUID = 1L;

        /** @param message what could not be decoded */
        public GarbageException(String message) {
            super(message);
        }
    }

    /** Encodes {@code nfs_fh3} (section 2.5: {@code opaque data<NFS3_FHSIZE>}). */
    public static void encodeFh(XdrEncodingStream xdr, byte[] fh) {
        xdr.xdrEncodeDynamicOpaque(fh);
    }

    /**
     * Encodes the bytes of {@code opaque data<>} in place, as nfs4j encodes READ data: oncrpc4j's
     * shallow encoding sends the buffer itself, so neither the encoding nor RPC-over-RDMA copies it.
     *
     * @param data     the bytes, between position and limit; left as they are
     * @param giveBack run once the transport has disposed the sent message, or {@code null}
     */
    public static void encodeOpaqueInPlace(XdrEncodingStream xdr, ByteBuffer data, Runnable giveBack) {
        if (xdr instanceof Xdr buffers) {
            ByteBuffer view = data.duplicate();
            buffers.xdrEncodeShallowByteBuffer(giveBack == null ? new ByteBufferWrapper(view)
                    : new LentBuffer(view, giveBack));
        } else {
            xdr.xdrEncodeByteBuffer(data.duplicate());
        }
    }

    /** Decodes {@code nfs_fh3}; a handle longer than NFS3_FHSIZE is garbage. */
    public static byte[] decodeFh(XdrDecodingStream xdr) throws IOException {
        return decodeBytes(xdr, Nfs3.NFS3_FHSIZE, "nfs_fh3");
    }

    /** Encodes a fixed 8-byte verifier (cookieverf3, createverf3, writeverf3). */
    public static void encodeVerf(XdrEncodingStream xdr, long verf) {
        xdr.xdrEncodeLong(verf);
    }

    /** Decodes a fixed 8-byte verifier as a big-endian long. */
    public static long decodeVerf(XdrDecodingStream xdr) throws IOException {
        return xdr.xdrDecodeLong();
    }

    /**
     * Decodes an XDR {@code string} or {@code opaque<>} as its bytes, unchanged: NFS names and paths are bytes
     * (section 2.5), which decoding them as text would alter. A length over {@code max} is garbage, refused before
     * anything is allocated.
     */
    static byte[] decodeBytes(XdrDecodingStream xdr, int max, String what) throws IOException {
        int length = xdr.xdrDecodeInt();
        if (length < 0 || length > max) {
            throw new GarbageException(what + " of " + Integer.toUnsignedLong(length) + " bytes, over " + max);
        }
        return xdr.xdrDecodeOpaque(length);
    }

    /** {@code nfstime3}: unsigned seconds and nanoseconds since the epoch (section 2.5). */
    public record NfsTime(long seconds, int nseconds) {

        /** From nanoseconds since the epoch. */
        public static NfsTime ofNanos(long nanos) {
            return new NfsTime(Math.floorDiv(nanos, 1_000_000_000L), (int) Math.floorMod(nanos, 1_000_000_000L));
        }

        /** Nanoseconds since the epoch. */
        public long toNanos() {
            return seconds * 1_000_000_000L + nseconds;
        }

        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt((int) seconds);
            xdr.xdrEncodeInt(nseconds);
        }

        static NfsTime decode(XdrDecodingStream xdr) throws IOException {
            return new NfsTime(Integer.toUnsignedLong(xdr.xdrDecodeInt()), xdr.xdrDecodeInt());
        }
    }

    /** {@code fattr3} (section 2.6): 84 bytes on the wire. */
    public static final class Fattr3 implements XdrAble {
        /** ftype3. */
        public int type;
        /** Permission bits (07777). */
        public int mode;
        public int nlink;
        public int uid;
        public int gid;
        public long size;
        public long used;
        /** specdata3 major, minor. */
        public int rdevMajor;
        public int rdevMinor;
        public long fsid;
        public long fileid;
        public NfsTime atime = new NfsTime(0, 0);
        public NfsTime mtime = new NfsTime(0, 0);
        public NfsTime ctime = new NfsTime(0, 0);

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(type);
            xdr.xdrEncodeInt(mode);
            xdr.xdrEncodeInt(nlink);
            xdr.xdrEncodeInt(uid);
            xdr.xdrEncodeInt(gid);
            xdr.xdrEncodeLong(size);
            xdr.xdrEncodeLong(used);
            xdr.xdrEncodeInt(rdevMajor);
            xdr.xdrEncodeInt(rdevMinor);
            xdr.xdrEncodeLong(fsid);
            xdr.xdrEncodeLong(fileid);
            atime.encode(xdr);
            mtime.encode(xdr);
            ctime.encode(xdr);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            type = xdr.xdrDecodeInt();
            mode = xdr.xdrDecodeInt();
            nlink = xdr.xdrDecodeInt();
            uid = xdr.xdrDecodeInt();
            gid = xdr.xdrDecodeInt();
            size = xdr.xdrDecodeLong();
            used = xdr.xdrDecodeLong();
            rdevMajor = xdr.xdrDecodeInt();
            rdevMinor = xdr.xdrDecodeInt();
            fsid = xdr.xdrDecodeLong();
            fileid = xdr.xdrDecodeLong();
            atime = NfsTime.decode(xdr);
            mtime = NfsTime.decode(xdr);
            ctime = NfsTime.decode(xdr);
        }

        /** The {@code wcc_attr} subset (size, mtime, ctime) of these attributes. */
        public WccAttr toWcc() {
            return new WccAttr(size, mtime, ctime);
        }
    }

    /** Encodes {@code post_op_attr} (section 2.6): a boolean then, if true, fattr3. */
    public static void encodePostOpAttr(XdrEncodingStream xdr, Fattr3 attr) {
        xdr.xdrEncodeBoolean(attr != null);
        if (attr != null) {
            attr.xdrEncode(xdr);
        }
    }

    /** Decodes {@code post_op_attr}; null when the attributes do not follow. */
    public static Fattr3 decodePostOpAttr(XdrDecodingStream xdr) throws IOException {
        if (!xdr.xdrDecodeBoolean()) {
            return null;
        }
        Fattr3 attr = new Fattr3();
        attr.xdrDecode(xdr);
        return attr;
    }

    /** Encodes {@code post_op_fh3} (section 2.6). */
    public static void encodePostOpFh(XdrEncodingStream xdr, byte[] fh) {
        xdr.xdrEncodeBoolean(fh != null);
        if (fh != null) {
            encodeFh(xdr, fh);
        }
    }

    /** Decodes {@code post_op_fh3}; null when no handle follows. */
    public static byte[] decodePostOpFh(XdrDecodingStream xdr) throws IOException {
        return xdr.xdrDecodeBoolean() ? decodeFh(xdr) : null;
    }

    /** {@code wcc_attr} (section 2.6): size, mtime and ctime before an operation. */
    public record WccAttr(long size, NfsTime mtime, NfsTime ctime) {
    }

    /** {@code wcc_data} (section 2.6): pre_op_attr and post_op_attr, either may be absent (null). */
    public record WccData(WccAttr before, Fattr3 after) {

        /** wcc_data with neither attribute. */
        public static final WccData EMPTY = new WccData(null, null);

        /** Encodes this wcc_data. */
        public void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeBoolean(before != null);
            if (before != null) {
                xdr.xdrEncodeLong(before.size());
                before.mtime().encode(xdr);
                before.ctime().encode(xdr);
            }
            encodePostOpAttr(xdr, after);
        }

        /** Decodes a wcc_data. */
        public static WccData decode(XdrDecodingStream xdr) throws IOException {
            WccAttr before = null;
            if (xdr.xdrDecodeBoolean()) {
                before = new WccAttr(xdr.xdrDecodeLong(), NfsTime.decode(xdr), NfsTime.decode(xdr));
            }
            return new WccData(before, decodePostOpAttr(xdr));
        }
    }

    /**
     * {@code sattr3} (section 2.6): each member is a discriminated union ({@code set_mode3}, {@code set_uid3},
     * {@code set_gid3}, {@code set_size3}, {@code set_atime}, {@code set_mtime}); null means "do not set".
     * {@code atimeHow}/{@code mtimeHow} carry the {@code time_how} discriminant.
     */
    public static final class Sattr3 implements XdrAble {
        public Integer mode;
        public Integer uid;
        public Integer gid;
        public Long size;
        public int atimeHow = Nfs3.DONT_CHANGE;
        public NfsTime atime;
        public int mtimeHow = Nfs3.DONT_CHANGE;
        public NfsTime mtime;

        /** An sattr3 that only sets the mode. */
        public static Sattr3 ofMode(int mode) {
            Sattr3 s = new Sattr3();
            s.mode = mode;
            return s;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            encodeOptInt(xdr, mode);
            encodeOptInt(xdr, uid);
            encodeOptInt(xdr, gid);
            xdr.xdrEncodeBoolean(size != null);
            if (size != null) {
                xdr.xdrEncodeLong(size);
            }
            encodeTime(xdr, atimeHow, atime);
            encodeTime(xdr, mtimeHow, mtime);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            mode = decodeOptInt(xdr);
            uid = decodeOptInt(xdr);
            gid = decodeOptInt(xdr);
            size = xdr.xdrDecodeBoolean() ? xdr.xdrDecodeLong() : null;
            atimeHow = xdr.xdrDecodeInt();
            atime = decodeTime(xdr, atimeHow);
            mtimeHow = xdr.xdrDecodeInt();
            mtime = decodeTime(xdr, mtimeHow);
        }

        private static void encodeOptInt(XdrEncodingStream xdr, Integer v) {
            xdr.xdrEncodeBoolean(v != null);
            if (v != null) {
                xdr.xdrEncodeInt(v);
            }
        }

        private static Integer decodeOptInt(XdrDecodingStream xdr) throws IOException {
            return xdr.xdrDecodeBoolean() ? xdr.xdrDecodeInt() : null;
        }

        private static void encodeTime(XdrEncodingStream xdr, int how, NfsTime t) {
            xdr.xdrEncodeInt(how);
            if (how == Nfs3.SET_TO_CLIENT_TIME) {
                t.encode(xdr);
            }
        }

        private static NfsTime decodeTime(XdrDecodingStream xdr, int how) throws IOException {
            return switch (how) {
                case Nfs3.DONT_CHANGE, Nfs3.SET_TO_SERVER_TIME -> null;
                case Nfs3.SET_TO_CLIENT_TIME -> NfsTime.decode(xdr);
                default -> throw new GarbageException("bad time_how " + how);
            };
        }
    }

    /** {@code diropargs3} (section 2.6): a directory handle and a name in it, as bytes. */
    public record DirOpArgs(byte[] dir, byte[] name) {

        /** A name given as text, sent as its UTF-8 bytes. */
        public DirOpArgs(byte[] dir, String name) {
            this(dir, name.getBytes(StandardCharsets.UTF_8));
        }

        void encode(XdrEncodingStream xdr) {
            encodeFh(xdr, dir);
            xdr.xdrEncodeDynamicOpaque(name);
        }

        /** Names longer than MNTPATHLEN bytes are garbage; the service answers NAMETOOLONG above NAME_MAX. */
        static DirOpArgs decode(XdrDecodingStream xdr) throws IOException {
            return new DirOpArgs(decodeFh(xdr), decodeBytes(xdr, Nfs3.MNTPATHLEN, "filename3"));
        }
    }
}
