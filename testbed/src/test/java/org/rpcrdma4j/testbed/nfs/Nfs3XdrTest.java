package org.rpcrdma4j.testbed.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Fattr3;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.NfsTime;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Sattr3;

/** Wire sizes and round trips of the RFC 1813 XDR types. */
class Nfs3XdrTest {

    private static byte[] encode(XdrAble value) throws IOException {
        Xdr xdr = new Xdr(1024);
        xdr.beginEncoding();
        value.xdrEncode(xdr);
        xdr.endEncoding();
        return xdr.getBytes();
    }

    private static <T extends XdrAble> T decode(byte[] bytes, T into) throws IOException {
        Xdr xdr = new Xdr(bytes);
        xdr.beginDecoding();
        into.xdrDecode(xdr);
        xdr.endDecoding();
        return into;
    }

    @Test
    void fattr3Is84Bytes() throws IOException {
        Fattr3 a = new Fattr3();
        a.type = Nfs3.NF3REG;
        a.mode = 0644;
        a.size = 1L << 40;
        a.fileid = 77;
        a.mtime = new NfsTime(0xFFFF_FFF0L, 999_999_999);
        byte[] bytes = encode(a);
        assertThat(bytes).hasSize(84);
        Fattr3 b = decode(bytes, new Fattr3());
        assertThat(b.size).isEqualTo(1L << 40);
        assertThat(b.fileid).isEqualTo(77);
        assertThat(b.mtime).isEqualTo(new NfsTime(0xFFFF_FFF0L, 999_999_999));
    }

    @Test
    void sattr3EncodesEachDiscriminatedUnion() throws IOException {
        assertThat(encode(new Sattr3())).hasSize(6 * 4);
        Sattr3 s = Sattr3.ofMode(0755);
        s.size = 12L;
        s.atimeHow = Nfs3.SET_TO_SERVER_TIME;
        s.mtimeHow = Nfs3.SET_TO_CLIENT_TIME;
        s.mtime = new NfsTime(5, 6);
        byte[] bytes = encode(s);
        assertThat(bytes).hasSize(4 + 4 + 4 + 4 + 4 + 8 + 4 + 4 + 8);
        Sattr3 t = decode(bytes, new Sattr3());
        assertThat(t.mode).isEqualTo(0755);
        assertThat(t.uid).isNull();
        assertThat(t.size).isEqualTo(12L);
        assertThat(t.atimeHow).isEqualTo(Nfs3.SET_TO_SERVER_TIME);
        assertThat(t.mtime).isEqualTo(new NfsTime(5, 6));
    }

    @Test
    void readdirplusResultRoundTrips() throws IOException {
        Nfs3Results.Readdir r = new Nfs3Results.Readdir(true);
        r.attr = new Fattr3();
        r.cookieverf = 42;
        r.entries.add(new Nfs3Results.Entry(9, new byte[] {'n', (byte) 0xFF}, 3, new Fattr3(), new byte[16]));
        r.eof = true;
        Nfs3Results.Readdir back = decode(encode(r), new Nfs3Results.Readdir(true));
        assertThat(back.cookieverf).isEqualTo(42);
        assertThat(back.entries).singleElement().satisfies(e -> {
            assertThat(e.rawName()).containsExactly('n', (byte) 0xFF);
            assertThat(e.cookie()).isEqualTo(3);
            assertThat(e.fh()).hasSize(16);
        });
        assertThat(back.eof).isTrue();
    }
}
