package org.rpcrdma4j.testbed.nfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** XDR types of the MOUNT v3 protocol (RFC 1813 Appendix I section 5.1/5.2). */
public final class MountXdr {

    private MountXdr() {
    }

    /** {@code dirpath} (string&lt;MNTPATHLEN&gt;): the argument of MNT and UMNT, as bytes. */
    public static final class Dirpath implements XdrAble {
        public byte[] path;

        public Dirpath() {
        }

        /** A path given as text, sent as its UTF-8 bytes. */
        public Dirpath(String path) {
            this.path = path.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeDynamicOpaque(path);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            path = Nfs3Types.decodeBytes(xdr, Nfs3.MNTPATHLEN, "dirpath");
        }
    }

    /** {@code mountres3} (5.2.1): on MNT3_OK the root {@code fhandle3} and the accepted auth flavors. */
    public static final class MountResult implements XdrAble {
        /** mountstat3. */
        public int status;
        public byte[] fh;
        public int[] authFlavors = new int[0];

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(status);
            if (status == Nfs3.MNT3_OK) {
                xdr.xdrEncodeDynamicOpaque(fh);
                xdr.xdrEncodeIntVector(authFlavors);
            }
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            status = xdr.xdrDecodeInt();
            if (status == Nfs3.MNT3_OK) {
                fh = Nfs3Types.decodeFh(xdr);
                authFlavors = xdr.xdrDecodeIntVector();
            }
        }
    }

    /** One {@code exportnode} (5.2.5): an exported directory and the groups allowed to mount it. */
    public record Export(String dir, List<String> groups) {
    }

    /** {@code exports} (5.2.5): a linked list of exportnode, each with a linked list of group names. */
    public static final class Exports implements XdrAble {
        public List<Export> exports = new ArrayList<>();

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            for (Export e : exports) {
                xdr.xdrEncodeBoolean(true);
                xdr.xdrEncodeString(e.dir());
                for (String g : e.groups()) {
                    xdr.xdrEncodeBoolean(true);
                    xdr.xdrEncodeString(g);
                }
                xdr.xdrEncodeBoolean(false);
            }
            xdr.xdrEncodeBoolean(false);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            exports = new ArrayList<>();
            while (xdr.xdrDecodeBoolean()) {
                String dir = xdr.xdrDecodeString();
                List<String> groups = new ArrayList<>();
                while (xdr.xdrDecodeBoolean()) {
                    groups.add(xdr.xdrDecodeString());
                }
                exports.add(new Export(dir, groups));
            }
        }
    }

    /** {@code mountopt3} for DUMP (5.2.2): this service keeps no mount list, so it is always empty. */
    public static final class EmptyList implements XdrAble {
        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeBoolean(false);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            while (xdr.xdrDecodeBoolean()) {
                xdr.xdrDecodeString();
                xdr.xdrDecodeString();
            }
        }
    }
}
