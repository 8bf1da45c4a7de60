package org.rpcrdma4j.testbed.nfs;

import static org.rpcrdma4j.testbed.nfs.Nfs3Types.decodeFh;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.decodeBytes;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.decodeVerf;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.encodeFh;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.encodeOpaqueInPlace;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.encodeVerf;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.DirOpArgs;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.NfsTime;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Sattr3;

/**
 * Procedure arguments of RFC 1813 section 3.3, grouped by wire shape. Fields are public and mutable so that the
 * service can decode into an empty instance ({@code call.retrieveCall(args)}) and the client can encode a filled one.
 */
public final class Nfs3Args {

    private Nfs3Args() {
    }

    /** A lone {@code nfs_fh3}: GETATTR3args, READLINK3args, FSSTAT3args, FSINFO3args, PATHCONF3args. */
    public static final class Fh implements XdrAble {
        public byte[] fh;

        public Fh() {
        }

        public Fh(byte[] fh) {
            this.fh = fh;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            encodeFh(xdr, fh);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            fh = decodeFh(xdr);
        }
    }

    /** {@code diropargs3} alone: LOOKUP3args, REMOVE3args, RMDIR3args. */
    public static final class DirOp implements XdrAble {
        public DirOpArgs what;

        public DirOp() {
        }

        public DirOp(byte[] dir, byte[] name) {
            this.what = new DirOpArgs(dir, name);
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            what.encode(xdr);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            what = DirOpArgs.decode(xdr);
        }
    }

    /** SETATTR3args (3.3.2): handle, sattr3 and sattrguard3 ({@code guardCtime} null when not checked). */
    public static final class Setattr implements XdrAble {
        public byte[] fh;
        public Sattr3 attr = new Sattr3();
        public NfsTime guardCtime;

        public Setattr() {
        }

        public Setattr(byte[] fh, Sattr3 attr, NfsTime guardCtime) {
            this.fh = fh;
            this.attr = attr;
            this.guardCtime = guardCtime;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            encodeFh(xdr, fh);
            attr.xdrEncode(xdr);
            xdr.xdrEncodeBoolean(guardCtime != null);
            if (guardCtime != null) {
                guardCtime.encode(xdr);
            }
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            fh = decodeFh(xdr);
            attr = new Sattr3();
            attr.xdrDecode(xdr);
            guardCtime = xdr.xdrDecodeBoolean() ? NfsTime.decode(xdr) : null;
        }
    }

    /** ACCESS3args (3.3.4). */
    public static final class Access implements XdrAble {
        public byte[] fh;
        public int access;

        public Access() {
        }

        public Access(byte[] fh, int access) {
            this.fh = fh;
            this.access = access;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            encodeFh(xdr, fh);
            xdr.xdrEncodeInt(access);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            fh = decodeFh(xdr);
            access = xdr.xdrDecodeInt();
        }
    }

    /** Handle, offset3 and count3: READ3args (3.3.6) and COMMIT3args (3.3.21). */
    public static final class FhOffsetCount implements XdrAble {
        public byte[] fh;
        public long offset;
        /** Unsigned count3. */
        public int count;

        public FhOffsetCount() {
        }

        public FhOffsetCount(byte[] fh, long offset, int count) {
            this.fh = fh;
            this.offset = offset;
            this.count = count;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            encodeFh(xdr, fh);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeInt(count);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            fh = decodeFh(xdr);
            offset = xdr.xdrDecodeLong();
            count = xdr.xdrDecodeInt();
        }
    }

    /** WRITE3args (3.3.7). The data is encoded shallow and decoded in place, as nfs4j decodes WRITE's. */
    public static final class Write implements XdrAble {
        public byte[] fh;
        public long offset;
        public int count;
        public int stable;
        /** The data, between position and limit. */
        public ByteBuffer data;

        public Write() {
        }

        public Write(byte[] fh, long offset, int stable, byte[] data) {
            this.fh = fh;
            this.offset = offset;
            this.count = data.length;
            this.stable = stable;
            this.data = ByteBuffer.wrap(data);
        }

        /** WRITE3args of the bytes between {@code data}'s position and limit, encoded in place (not copied). */
        public Write(byte[] fh, long offset, int stable, ByteBuffer data) {
            this.fh = fh;
            this.offset = offset;
            this.count = data.remaining();
            this.stable = stable;
            this.data = data;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            encodeFh(xdr, fh);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeInt(count);
            xdr.xdrEncodeInt(stable);
            encodeOpaqueInPlace(xdr, data, null);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            fh = decodeFh(xdr);
            offset = xdr.xdrDecodeLong();
            count = xdr.xdrDecodeInt();
            stable = xdr.xdrDecodeInt();
            data = xdr.xdrDecodeByteBuffer();
        }
    }

    /** CREATE3args (3.3.8): where, then createhow3 (sattr3 for UNCHECKED/GUARDED, createverf3 for EXCLUSIVE). */
    public static final class Create implements XdrAble {
        public DirOpArgs where;
        public int mode;
        public Sattr3 attr = new Sattr3();
        public long verf;

        public Create() {
        }

        public Create(byte[] dir, byte[] name, int mode, Sattr3 attr, long verf) {
            this.where = new DirOpArgs(dir, name);
            this.mode = mode;
            this.attr = attr;
            this.verf = verf;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            where.encode(xdr);
            xdr.xdrEncodeInt(mode);
            if (mode == Nfs3.EXCLUSIVE) {
                encodeVerf(xdr, verf);
            } else {
                attr.xdrEncode(xdr);
            }
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            where = DirOpArgs.decode(xdr);
            mode = xdr.xdrDecodeInt();
            switch (mode) {
                case Nfs3.UNCHECKED, Nfs3.GUARDED -> {
                    attr = new Sattr3();
                    attr.xdrDecode(xdr);
                }
                case Nfs3.EXCLUSIVE -> verf = decodeVerf(xdr);
                default -> throw new Nfs3Types.GarbageException("bad createmode3 " + mode);
            }
        }
    }

    /** MKDIR3args (3.3.9) and, with {@code target} set, SYMLINK3args (3.3.10: where, symlinkdata3). */
    public static final class Mkdir implements XdrAble {
        private final boolean symlink;
        public DirOpArgs where;
        public Sattr3 attr = new Sattr3();
        /** nfspath3 of a symbolic link, its bytes as sent (section 3.3.10); unused for MKDIR. */
        public byte[] target;

        /** An empty MKDIR3args ({@code symlink} false) or SYMLINK3args ({@code symlink} true) to decode into. */
        public Mkdir(boolean symlink) {
            this.symlink = symlink;
        }

        /** MKDIR3args. */
        public Mkdir(byte[] dir, byte[] name, Sattr3 attr) {
            this(false);
            this.where = new DirOpArgs(dir, name);
            this.attr = attr;
        }

        /** SYMLINK3args. */
        public Mkdir(byte[] dir, byte[] name, Sattr3 attr, byte[] target) {
            this(true);
            this.where = new DirOpArgs(dir, name);
            this.attr = attr;
            this.target = target;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            where.encode(xdr);
            attr.xdrEncode(xdr);
            if (symlink) {
                xdr.xdrEncodeDynamicOpaque(target);
            }
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            where = DirOpArgs.decode(xdr);
            attr = new Sattr3();
            attr.xdrDecode(xdr);
            if (symlink) {
                target = decodeBytes(xdr, Nfs3.MAXPATHLEN, "nfspath3");
            }
        }
    }

    /** RENAME3args (3.3.14). */
    public static final class Rename implements XdrAble {
        public DirOpArgs from;
        public DirOpArgs to;

        public Rename() {
        }

        public Rename(byte[] fromDir, byte[] fromName, byte[] toDir, byte[] toName) {
            this.from = new DirOpArgs(fromDir, fromName);
            this.to = new DirOpArgs(toDir, toName);
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            from.encode(xdr);
            to.encode(xdr);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            from = DirOpArgs.decode(xdr);
            to = DirOpArgs.decode(xdr);
        }
    }

    /** LINK3args (3.3.15): the file, then the directory and name of its new link. */
    public static final class Link implements XdrAble {
        public byte[] file;
        public DirOpArgs link;

        public Link() {
        }

        public Link(byte[] file, byte[] dir, byte[] name) {
            this.file = file;
            this.link = new DirOpArgs(dir, name);
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            encodeFh(xdr, file);
            link.encode(xdr);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            file = decodeFh(xdr);
            link = DirOpArgs.decode(xdr);
        }
    }

    /** READDIR3args (3.3.16) and, with {@code plus}, READDIRPLUS3args (3.3.17, which adds maxcount). */
    public static final class Readdir implements XdrAble {
        private final boolean plus;
        public byte[] dir;
        public long cookie;
        public long cookieverf;
        /** READDIR count, or READDIRPLUS dircount. */
        public int dircount;
        /** READDIRPLUS maxcount; unused for READDIR. */
        public int maxcount;

        /** An empty READDIR3args ({@code plus} false) or READDIRPLUS3args to decode into. */
        public Readdir(boolean plus) {
            this.plus = plus;
        }

        /** Filled arguments. */
        public Readdir(boolean plus, byte[] dir, long cookie, long cookieverf, int dircount, int maxcount) {
            this(plus);
            this.dir = dir;
            this.cookie = cookie;
            this.cookieverf = cookieverf;
            this.dircount = dircount;
            this.maxcount = maxcount;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            encodeFh(xdr, dir);
            xdr.xdrEncodeLong(cookie);
            encodeVerf(xdr, cookieverf);
            xdr.xdrEncodeInt(dircount);
            if (plus) {
                xdr.xdrEncodeInt(maxcount);
            }
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            dir = decodeFh(xdr);
            cookie = xdr.xdrDecodeLong();
            cookieverf = decodeVerf(xdr);
            dircount = xdr.xdrDecodeInt();
            if (plus) {
                maxcount = xdr.xdrDecodeInt();
            }
        }
    }
}
