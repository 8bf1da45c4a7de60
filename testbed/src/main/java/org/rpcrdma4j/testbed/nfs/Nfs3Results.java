package org.rpcrdma4j.testbed.nfs;

import static org.rpcrdma4j.testbed.nfs.Nfs3Types.decodeFh;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.decodePostOpAttr;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.decodePostOpFh;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.decodeVerf;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.encodeFh;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.encodeOpaqueInPlace;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.encodePostOpAttr;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.encodePostOpFh;
import static org.rpcrdma4j.testbed.nfs.Nfs3Types.encodeVerf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Fattr3;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.NfsTime;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.WccData;

/**
 * Procedure results of RFC 1813 section 3.3. Every result is a union switched on {@code nfsstat3}: {@link Result}
 * encodes the status and lets each subclass encode the {@code resok} or {@code resfail} arm. Fields are public and
 * mutable: the service fills them, the client decodes into an empty instance.
 */
public final class Nfs3Results {

    private Nfs3Results() {
    }

    /** The {@code switch (nfsstat3 status)} common to all results. */
    public abstract static class Result implements XdrAble {
        /** nfsstat3. */
        public int status;

        /** True when {@link #status} is NFS3_OK. */
        public boolean ok() {
            return status == Nfs3.NFS3_OK;
        }

        @Override
        public final void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(status);
            encodeBody(xdr, ok());
        }

        @Override
        public final void xdrDecode(XdrDecodingStream xdr) throws IOException {
            status = xdr.xdrDecodeInt();
            decodeBody(xdr, ok());
        }

        /** Encodes the resok arm when {@code ok}, else the resfail arm. */
        protected abstract void encodeBody(XdrEncodingStream xdr, boolean ok);

        /** Decodes the resok arm when {@code ok}, else the resfail arm. */
        protected abstract void decodeBody(XdrDecodingStream xdr, boolean ok) throws IOException;
    }

    /** GETATTR3res (3.3.1): fattr3 when OK, nothing otherwise. */
    public static final class Getattr extends Result {
        public Fattr3 attr;

        @Override
        protected void encodeBody(XdrEncodingStream xdr, boolean ok) {
            if (ok) {
                attr.xdrEncode(xdr);
            }
        }

        @Override
        protected void decodeBody(XdrDecodingStream xdr, boolean ok) throws IOException {
            if (ok) {
                attr = new Fattr3();
                attr.xdrDecode(xdr);
            }
        }
    }

    /** A lone wcc_data on both arms: SETATTR3res (3.3.2), REMOVE3res (3.3.12), RMDIR3res (3.3.13), MKNOD3resfail. */
    public static final class Wcc extends Result {
        public WccData wcc = WccData.EMPTY;

        @Override
        protected void encodeBody(XdrEncodingStream xdr, boolean ok) {
            wcc.encode(xdr);
        }

        @Override
        protected void decodeBody(XdrDecodingStream xdr, boolean ok) throws IOException {
            wcc = WccData.decode(xdr);
        }
    }

    /** LOOKUP3res (3.3.3). */
    public static final class Lookup extends Result {
        public byte[] fh;
        public Fattr3 objAttr;
        public Fattr3 dirAttr;

        @Override
        protected void encodeBody(XdrEncodingStream xdr, boolean ok) {
            if (ok) {
                encodeFh(xdr, fh);
                encodePostOpAttr(xdr, objAttr);
            }
            encodePostOpAttr(xdr, dirAttr);
        }

        @Override
        protected void decodeBody(XdrDecodingStream xdr, boolean ok) throws IOException {
            if (ok) {
                fh = decodeFh(xdr);
                objAttr = decodePostOpAttr(xdr);
            }
            dirAttr = decodePostOpAttr(xdr);
        }
    }

    /** Results whose both arms start with the object's post_op_attr. */
    public abstract static class AttrResult extends Result {
        /** post_op_attr of the object (null when absent). */
        public Fattr3 attr;

        @Override
        protected final void encodeBody(XdrEncodingStream xdr, boolean ok) {
            encodePostOpAttr(xdr, attr);
            if (ok) {
                encodeOk(xdr);
            }
        }

        @Override
        protected final void decodeBody(XdrDecodingStream xdr, boolean ok) throws IOException {
            attr = decodePostOpAttr(xdr);
            if (ok) {
                decodeOk(xdr);
            }
        }

        /** The resok members after the post_op_attr. */
        protected abstract void encodeOk(XdrEncodingStream xdr);

        /** The resok members after the post_op_attr. */
        protected abstract void decodeOk(XdrDecodingStream xdr) throws IOException;
    }

    /** ACCESS3res (3.3.4). */
    public static final class Access extends AttrResult {
        public int access;

        @Override
        protected void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(access);
        }

        @Override
        protected void decodeOk(XdrDecodingStream xdr) throws IOException {
            access = xdr.xdrDecodeInt();
        }
    }

    /** READLINK3res (3.3.5). */
    public static final class Readlink extends AttrResult {
        /** nfspath3: the target's bytes, exactly as stored. */
        public byte[] target;

        @Override
        protected void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeDynamicOpaque(target);
        }

        @Override
        protected void decodeOk(XdrDecodingStream xdr) throws IOException {
            target = xdr.xdrDecodeDynamicOpaque();
        }
    }

    /**
     * READ3res (3.3.6). The data is encoded and decoded in place, as nfs4j's READ is: encoded shallow,
     * so the service's buffer itself is sent, and decoded as a view of the received reply.
     */
    public static final class Read extends AttrResult {
        public int count;
        public boolean eof;
        /** The data, between position and limit. */
        public ByteBuffer data;
        /** Run once the transport is done with a sent {@link #data}, or {@code null}. */
        Runnable giveBack;

        @Override
        protected void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(count);
            xdr.xdrEncodeBoolean(eof);
            encodeOpaqueInPlace(xdr, data, giveBack);
        }

        @Override
        protected void decodeOk(XdrDecodingStream xdr) throws IOException {
            count = xdr.xdrDecodeInt();
            eof = xdr.xdrDecodeBoolean();
            data = xdr.xdrDecodeByteBuffer();
        }

        /** @return a copy of the data */
        public byte[] bytes() {
            byte[] copy = new byte[data.remaining()];
            data.duplicate().get(copy);
            return copy;
        }
    }

    /** Results whose both arms start with a wcc_data: WRITE3res (3.3.7) and COMMIT3res (3.3.21). */
    public static final class Write extends Result {
        private final boolean commit;
        public WccData wcc = WccData.EMPTY;
        /** WRITE only: bytes written. */
        public int count;
        /** WRITE only: stable_how committed. */
        public int committed;
        /** writeverf3. */
        public long verf;

        /** An empty WRITE3res ({@code commit} false) or COMMIT3res. */
        public Write(boolean commit) {
            this.commit = commit;
        }

        @Override
        protected void encodeBody(XdrEncodingStream xdr, boolean ok) {
            wcc.encode(xdr);
            if (ok) {
                if (!commit) {
                    xdr.xdrEncodeInt(count);
                    xdr.xdrEncodeInt(committed);
                }
                encodeVerf(xdr, verf);
            }
        }

        @Override
        protected void decodeBody(XdrDecodingStream xdr, boolean ok) throws IOException {
            wcc = WccData.decode(xdr);
            if (ok) {
                if (!commit) {
                    count = xdr.xdrDecodeInt();
                    committed = xdr.xdrDecodeInt();
                }
                verf = decodeVerf(xdr);
            }
        }
    }

    /** CREATE3res (3.3.8), MKDIR3res (3.3.9), SYMLINK3res (3.3.10): post_op_fh3, post_op_attr, then dir_wcc. */
    public static final class Create extends Result {
        public byte[] fh;
        public Fattr3 objAttr;
        public WccData dirWcc = WccData.EMPTY;

        @Override
        protected void encodeBody(XdrEncodingStream xdr, boolean ok) {
            if (ok) {
                encodePostOpFh(xdr, fh);
                encodePostOpAttr(xdr, objAttr);
            }
            dirWcc.encode(xdr);
        }

        @Override
        protected void decodeBody(XdrDecodingStream xdr, boolean ok) throws IOException {
            if (ok) {
                fh = decodePostOpFh(xdr);
                objAttr = decodePostOpAttr(xdr);
            }
            dirWcc = WccData.decode(xdr);
        }
    }

    /** RENAME3res (3.3.14): fromdir_wcc and todir_wcc on both arms. */
    public static final class Rename extends Result {
        public WccData fromWcc = WccData.EMPTY;
        public WccData toWcc = WccData.EMPTY;

        @Override
        protected void encodeBody(XdrEncodingStream xdr, boolean ok) {
            fromWcc.encode(xdr);
            toWcc.encode(xdr);
        }

        @Override
        protected void decodeBody(XdrDecodingStream xdr, boolean ok) throws IOException {
            fromWcc = WccData.decode(xdr);
            toWcc = WccData.decode(xdr);
        }
    }

    /** LINK3res (3.3.15): the file's post_op_attr and linkdir_wcc on both arms. */
    public static final class Link extends Result {
        public Fattr3 attr;
        public WccData linkDirWcc = WccData.EMPTY;

        @Override
        protected void encodeBody(XdrEncodingStream xdr, boolean ok) {
            encodePostOpAttr(xdr, attr);
            linkDirWcc.encode(xdr);
        }

        @Override
        protected void decodeBody(XdrDecodingStream xdr, boolean ok) throws IOException {
            attr = decodePostOpAttr(xdr);
            linkDirWcc = WccData.decode(xdr);
        }
    }

    /**
     * An entry3 (3.3.16) or, with attributes and handle, an entryplus3 (3.3.17). {@code rawName} holds the name's
     * bytes as the directory holds them.
     */
    public record Entry(long fileid, byte[] rawName, long cookie, Fattr3 attr, byte[] fh) {

        /** The name as UTF-8 text (bytes that are not UTF-8 read as U+FFFD): for display. */
        public String name() {
            return new String(rawName, StandardCharsets.UTF_8);
        }
    }

    /** READDIR3res (3.3.16) and, with {@code plus}, READDIRPLUS3res (3.3.17). */
    public static final class Readdir extends AttrResult {
        private final boolean plus;
        public long cookieverf;
        public List<Entry> entries = new ArrayList<>();
        public boolean eof;

        /** An empty READDIR3res ({@code plus} false) or READDIRPLUS3res. */
        public Readdir(boolean plus) {
            this.plus = plus;
        }

        @Override
        protected void encodeOk(XdrEncodingStream xdr) {
            encodeVerf(xdr, cookieverf);
            for (Entry e : entries) {
                xdr.xdrEncodeBoolean(true); // entry3 *entries / *nextentry: value follows
                xdr.xdrEncodeLong(e.fileid());
                xdr.xdrEncodeDynamicOpaque(e.rawName());
                xdr.xdrEncodeLong(e.cookie());
                if (plus) {
                    encodePostOpAttr(xdr, e.attr());
                    encodePostOpFh(xdr, e.fh());
                }
            }
            xdr.xdrEncodeBoolean(false);
            xdr.xdrEncodeBoolean(eof);
        }

        @Override
        protected void decodeOk(XdrDecodingStream xdr) throws IOException {
            cookieverf = decodeVerf(xdr);
            entries = new ArrayList<>();
            while (xdr.xdrDecodeBoolean()) {
                long fileid = xdr.xdrDecodeLong();
                byte[] name = xdr.xdrDecodeDynamicOpaque();
                long cookie = xdr.xdrDecodeLong();
                Fattr3 a = plus ? decodePostOpAttr(xdr) : null;
                byte[] fh = plus ? decodePostOpFh(xdr) : null;
                entries.add(new Entry(fileid, name, cookie, a, fh));
            }
            eof = xdr.xdrDecodeBoolean();
        }
    }

    /** FSSTAT3res (3.3.18). */
    public static final class Fsstat extends AttrResult {
        public long tbytes;
        public long fbytes;
        public long abytes;
        public long tfiles;
        public long ffiles;
        public long afiles;
        public int invarsec;

        @Override
        protected void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeLong(tbytes);
            xdr.xdrEncodeLong(fbytes);
            xdr.xdrEncodeLong(abytes);
            xdr.xdrEncodeLong(tfiles);
            xdr.xdrEncodeLong(ffiles);
            xdr.xdrEncodeLong(afiles);
            xdr.xdrEncodeInt(invarsec);
        }

        @Override
        protected void decodeOk(XdrDecodingStream xdr) throws IOException {
            tbytes = xdr.xdrDecodeLong();
            fbytes = xdr.xdrDecodeLong();
            abytes = xdr.xdrDecodeLong();
            tfiles = xdr.xdrDecodeLong();
            ffiles = xdr.xdrDecodeLong();
            afiles = xdr.xdrDecodeLong();
            invarsec = xdr.xdrDecodeInt();
        }
    }

    /** FSINFO3res (3.3.19). */
    public static final class Fsinfo extends AttrResult {
        public int rtmax;
        public int rtpref;
        public int rtmult;
        public int wtmax;
        public int wtpref;
        public int wtmult;
        public int dtpref;
        public long maxfilesize;
        public NfsTime timeDelta = new NfsTime(0, 1);
        public int properties;

        @Override
        protected void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(rtmax);
            xdr.xdrEncodeInt(rtpref);
            xdr.xdrEncodeInt(rtmult);
            xdr.xdrEncodeInt(wtmax);
            xdr.xdrEncodeInt(wtpref);
            xdr.xdrEncodeInt(wtmult);
            xdr.xdrEncodeInt(dtpref);
            xdr.xdrEncodeLong(maxfilesize);
            timeDelta.encode(xdr);
            xdr.xdrEncodeInt(properties);
        }

        @Override
        protected void decodeOk(XdrDecodingStream xdr) throws IOException {
            rtmax = xdr.xdrDecodeInt();
            rtpref = xdr.xdrDecodeInt();
            rtmult = xdr.xdrDecodeInt();
            wtmax = xdr.xdrDecodeInt();
            wtpref = xdr.xdrDecodeInt();
            wtmult = xdr.xdrDecodeInt();
            dtpref = xdr.xdrDecodeInt();
            maxfilesize = xdr.xdrDecodeLong();
            timeDelta = NfsTime.decode(xdr);
            properties = xdr.xdrDecodeInt();
        }
    }

    /** PATHCONF3res (3.3.20). */
    public static final class Pathconf extends AttrResult {
        public int linkmax;
        public int nameMax;
        public boolean noTrunc;
        public boolean chownRestricted;
        public boolean caseInsensitive;
        public boolean casePreserving;

        @Override
        protected void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(linkmax);
            xdr.xdrEncodeInt(nameMax);
            xdr.xdrEncodeBoolean(noTrunc);
            xdr.xdrEncodeBoolean(chownRestricted);
            xdr.xdrEncodeBoolean(caseInsensitive);
            xdr.xdrEncodeBoolean(casePreserving);
        }

        @Override
        protected void decodeOk(XdrDecodingStream xdr) throws IOException {
            linkmax = xdr.xdrDecodeInt();
            nameMax = xdr.xdrDecodeInt();
            noTrunc = xdr.xdrDecodeBoolean();
            chownRestricted = xdr.xdrDecodeBoolean();
            caseInsensitive = xdr.xdrDecodeBoolean();
            casePreserving = xdr.xdrDecodeBoolean();
        }
    }
}
