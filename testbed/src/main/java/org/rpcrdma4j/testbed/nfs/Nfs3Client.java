package org.rpcrdma4j.testbed.nfs;

import static org.rpcrdma4j.testbed.nfs.Nfs3.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.testbed.nfs.Nfs3Results.Entry;
import org.rpcrdma4j.testbed.nfs.Nfs3Results.Result;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Fattr3;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Sattr3;

/**
 * An NFSv3 + MOUNT v3 client helper over any oncrpc4j {@link RpcTransport} (TCP, or RPC-over-RDMA): each
 * method is one {@link RpcCall#call} and throws {@link Nfs3Exception} when the reply's status is not OK; READ and
 * WRITE also start without waiting, for several calls in flight. Names and link targets are bytes on the wire; the
 * methods taking a {@code String} send its UTF-8 bytes. A test helper, not a product: no retransmission, no caching.
 */
public final class Nfs3Client {

    /**
     * How a blocking call is made and waited for; by default oncrpc4j's own
     * {@link RpcCall#call(int, XdrAble, XdrAble, long, TimeUnit)}.
     */
    @FunctionalInterface
    public interface Caller {

        /**
         * Makes one call and waits for its result.
         *
         * @param program   the program to call
         * @param procedure the procedure number
         * @param args      the arguments
         * @param result    decoded from the reply
         * @param timeout   how long to wait for the reply
         * @param unit      the unit of {@code timeout}
         * @throws IOException      if the call failed
         * @throws TimeoutException if no reply came in time
         */
        void call(RpcCall program, int procedure, XdrAble args, XdrAble result, long timeout, TimeUnit unit)
                throws IOException, TimeoutException;
    }

    private final RpcCall nfs;
    private final RpcCall mount;
    private final long timeoutMillis;
    private final Caller caller;

    /** A client with AUTH_NONE and a 30 second timeout per call. */
    public Nfs3Client(RpcTransport transport) {
        this(transport, new RpcAuthTypeNone(), 30, TimeUnit.SECONDS);
    }

    /** A client with the given credential and per-call timeout. */
    public Nfs3Client(RpcTransport transport, RpcAuth auth, long timeout, TimeUnit unit) {
        this(transport, auth, timeout, unit, RpcCall::call);
    }

    /** A client with the given credential and per-call timeout whose blocking calls wait as {@code caller} does. */
    public Nfs3Client(RpcTransport transport, RpcAuth auth, long timeout, TimeUnit unit, Caller caller) {
        this.nfs = new RpcCall(NFS_PROGRAM, NFS_V3, auth, transport);
        this.mount = new RpcCall(MOUNT_PROGRAM, MOUNT_V3, auth, transport);
        this.timeoutMillis = unit.toMillis(timeout);
        this.caller = caller;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private void call(RpcCall program, int proc, XdrAble args, XdrAble res) throws IOException {
        try {
            caller.call(program, proc, args, res, timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException("procedure " + proc + " timed out", e);
        }
    }

    private <R extends Result> R nfs(int proc, XdrAble args, R res, String what) throws IOException {
        call(nfs, proc, args, res);
        if (!res.ok()) {
            throw new Nfs3Exception(res.status, what);
        }
        return res;
    }

    /**
     * Starts an NFSv3 call and returns without waiting, so that several can be in flight. {@code done} gets the
     * decoded result, or why the call failed ({@link Nfs3Exception} when the status is not OK); it runs on the
     * transport's reply thread, so it must not block.
     */
    private <R extends Result> void start(int proc, XdrAble args, R res, String what, BiConsumer<R, Throwable> done)
            throws IOException {
        nfs.call(proc, args, new CompletionHandler<RpcReply, RpcTransport>() {
            @Override
            public void completed(RpcReply reply, RpcTransport transport) {
                try {
                    reply.getReplyResult(res);
                } catch (IOException | RuntimeException e) {
                    done.accept(null, e);
                    return;
                }
                if (res.ok()) {
                    done.accept(res, null);
                } else {
                    done.accept(null, new Nfs3Exception(res.status, what));
                }
            }

            @Override
            public void failed(Throwable error, RpcTransport transport) {
                done.accept(null, error);
            }
        }, timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Calls an NFSv3 procedure with arbitrary arguments and result, without checking the status. */
    public void callNfs(int proc, XdrAble args, XdrAble res) throws IOException {
        call(nfs, proc, args, res);
    }

    // ---------------------------------------------------------------- MOUNT

    /** MNT (Appendix I 5.2.1): the root handle of {@code exportPath}. */
    public byte[] mount(String exportPath) throws IOException {
        MountXdr.MountResult r = new MountXdr.MountResult();
        call(mount, MOUNTPROC3_MNT, new MountXdr.Dirpath(exportPath), r);
        if (r.status != MNT3_OK) {
            throw new Nfs3Exception(r.status, "MNT " + exportPath);
        }
        return r.fh;
    }

    /** UMNT (5.2.3). */
    public void umount(String exportPath) throws IOException {
        call(mount, MOUNTPROC3_UMNT, new MountXdr.Dirpath(exportPath), XdrVoid.XDR_VOID);
    }

    /** EXPORT (5.2.5). */
    public List<MountXdr.Export> exports() throws IOException {
        MountXdr.Exports r = new MountXdr.Exports();
        call(mount, MOUNTPROC3_EXPORT, XdrVoid.XDR_VOID, r);
        return r.exports;
    }

    // ---------------------------------------------------------------- NFS

    /** NULL (3.3.0). */
    public void ping() throws IOException {
        call(nfs, NFSPROC3_NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID);
    }

    /** GETATTR (3.3.1). */
    public Fattr3 getattr(byte[] fh) throws IOException {
        return nfs(NFSPROC3_GETATTR, new Nfs3Args.Fh(fh), new Nfs3Results.Getattr(), "GETATTR").attr;
    }

    /** SETATTR (3.3.2) without a guard; returns the attributes after. */
    public Fattr3 setattr(byte[] fh, Sattr3 attr) throws IOException {
        return nfs(NFSPROC3_SETATTR, new Nfs3Args.Setattr(fh, attr, null), new Nfs3Results.Wcc(), "SETATTR")
                .wcc.after();
    }

    /** LOOKUP (3.3.3): the handle of {@code name} in {@code dir}. */
    public byte[] lookup(byte[] dir, String name) throws IOException {
        return lookup(dir, utf8(name));
    }

    /** LOOKUP (3.3.3) of a name given as bytes. */
    public byte[] lookup(byte[] dir, byte[] name) throws IOException {
        return nfs(NFSPROC3_LOOKUP, new Nfs3Args.DirOp(dir, name), new Nfs3Results.Lookup(), "LOOKUP").fh;
    }

    /** LOOKUP of each component of a '/'-separated path below {@code dir} (empty components skipped). */
    public byte[] walk(byte[] dir, String path) throws IOException {
        byte[] fh = dir;
        for (String name : path.split("/")) {
            if (!name.isEmpty()) {
                fh = lookup(fh, name);
            }
        }
        return fh;
    }

    /** ACCESS (3.3.4): the subset of {@code access} bits granted. */
    public int access(byte[] fh, int access) throws IOException {
        return nfs(NFSPROC3_ACCESS, new Nfs3Args.Access(fh, access), new Nfs3Results.Access(), "ACCESS").access;
    }

    /** READLINK (3.3.5): the target as UTF-8 text (bytes that are not UTF-8 read as U+FFFD). */
    public String readlink(byte[] fh) throws IOException {
        return new String(readlinkBytes(fh), StandardCharsets.UTF_8);
    }

    /** READLINK (3.3.5): the target's bytes. */
    public byte[] readlinkBytes(byte[] fh) throws IOException {
        return nfs(NFSPROC3_READLINK, new Nfs3Args.Fh(fh), new Nfs3Results.Readlink(), "READLINK").target;
    }

    /** READ (3.3.6): one call; the result carries data, count and eof. */
    public Nfs3Results.Read read(byte[] fh, long offset, int count) throws IOException {
        return nfs(NFSPROC3_READ, new Nfs3Args.FhOffsetCount(fh, offset, count), new Nfs3Results.Read(), "READ");
    }

    /**
     * READ (3.3.6) without waiting; {@code done} runs on the reply thread, where the result's data is valid.
     */
    public void readAsync(byte[] fh, long offset, int count, BiConsumer<Nfs3Results.Read, Throwable> done)
            throws IOException {
        start(NFSPROC3_READ, new Nfs3Args.FhOffsetCount(fh, offset, count), new Nfs3Results.Read(), "READ", done);
    }

    /** Reads a whole file with READs of at most {@code chunk} bytes until eof. */
    public byte[] readAll(byte[] fh, int chunk) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        long offset = 0;
        while (true) {
            Nfs3Results.Read r = read(fh, offset, chunk);
            out.writeBytes(r.bytes());
            offset += r.count;
            if (r.eof) {
                return out.toByteArray();
            }
            if (r.count == 0) {
                throw new IOException("READ returned no data before eof");
            }
        }
    }

    /** WRITE (3.3.7): one call; the result carries count, committed and the write verifier. */
    public Nfs3Results.Write write(byte[] fh, long offset, byte[] data, int stable) throws IOException {
        return nfs(NFSPROC3_WRITE, new Nfs3Args.Write(fh, offset, stable, data), new Nfs3Results.Write(false),
                "WRITE");
    }

    /**
     * WRITE (3.3.7) of the bytes between {@code data}'s position and limit without waiting; they must stay
     * unchanged until {@code done} runs, on the reply thread.
     */
    public void writeAsync(byte[] fh, long offset, ByteBuffer data, int stable,
            BiConsumer<Nfs3Results.Write, Throwable> done) throws IOException {
        start(NFSPROC3_WRITE, new Nfs3Args.Write(fh, offset, stable, data), new Nfs3Results.Write(false), "WRITE",
                done);
    }

    /** Writes {@code data} from offset 0 in WRITEs of at most {@code chunk} bytes. */
    public void writeAll(byte[] fh, byte[] data, int chunk, int stable) throws IOException {
        int off = 0;
        do {
            int n = Math.min(chunk, data.length - off);
            Nfs3Results.Write w = write(fh, off, java.util.Arrays.copyOfRange(data, off, off + n), stable);
            off += w.count;
        } while (off < data.length);
    }

    /** CREATE (3.3.8) UNCHECKED or GUARDED with {@code attr}; returns the new handle. */
    public byte[] create(byte[] dir, String name, int mode, Sattr3 attr) throws IOException {
        return create(dir, utf8(name), mode, attr);
    }

    /** CREATE (3.3.8) of a name given as bytes. */
    public byte[] create(byte[] dir, byte[] name, int mode, Sattr3 attr) throws IOException {
        return nfs(NFSPROC3_CREATE, new Nfs3Args.Create(dir, name, mode, attr, 0), new Nfs3Results.Create(),
                "CREATE").fh;
    }

    /** CREATE GUARDED with mode 0644. */
    public byte[] create(byte[] dir, String name) throws IOException {
        return create(dir, name, GUARDED, Sattr3.ofMode(0644));
    }

    /** MKDIR (3.3.9) with mode 0755. */
    public byte[] mkdir(byte[] dir, String name) throws IOException {
        return nfs(NFSPROC3_MKDIR, new Nfs3Args.Mkdir(dir, utf8(name), Sattr3.ofMode(0755)),
                new Nfs3Results.Create(), "MKDIR " + name).fh;
    }

    /** SYMLINK (3.3.10) with name and target given as text. */
    public byte[] symlink(byte[] dir, String name, String target) throws IOException {
        return symlink(dir, utf8(name), utf8(target));
    }

    /** SYMLINK (3.3.10) with name and target given as bytes. */
    public byte[] symlink(byte[] dir, byte[] name, byte[] target) throws IOException {
        return nfs(NFSPROC3_SYMLINK, new Nfs3Args.Mkdir(dir, name, new Sattr3(), target), new Nfs3Results.Create(),
                "SYMLINK").fh;
    }

    /** REMOVE (3.3.12). */
    public void remove(byte[] dir, String name) throws IOException {
        remove(dir, utf8(name));
    }

    /** REMOVE (3.3.12) of a name given as bytes. */
    public void remove(byte[] dir, byte[] name) throws IOException {
        nfs(NFSPROC3_REMOVE, new Nfs3Args.DirOp(dir, name), new Nfs3Results.Wcc(), "REMOVE");
    }

    /** RMDIR (3.3.13). */
    public void rmdir(byte[] dir, String name) throws IOException {
        nfs(NFSPROC3_RMDIR, new Nfs3Args.DirOp(dir, utf8(name)), new Nfs3Results.Wcc(), "RMDIR " + name);
    }

    /** RENAME (3.3.14). */
    public void rename(byte[] fromDir, String fromName, byte[] toDir, String toName) throws IOException {
        rename(fromDir, utf8(fromName), toDir, utf8(toName));
    }

    /** RENAME (3.3.14) of names given as bytes. */
    public void rename(byte[] fromDir, byte[] fromName, byte[] toDir, byte[] toName) throws IOException {
        nfs(NFSPROC3_RENAME, new Nfs3Args.Rename(fromDir, fromName, toDir, toName), new Nfs3Results.Rename(),
                "RENAME");
    }

    /** LINK (3.3.15): {@code name} in {@code dir} becomes a new name of {@code file}. */
    public Nfs3Results.Link link(byte[] file, byte[] dir, String name) throws IOException {
        return link(file, dir, utf8(name));
    }

    /** LINK (3.3.15) of a name given as bytes. */
    public Nfs3Results.Link link(byte[] file, byte[] dir, byte[] name) throws IOException {
        return nfs(NFSPROC3_LINK, new Nfs3Args.Link(file, dir, name), new Nfs3Results.Link(), "LINK");
    }

    /** One READDIR (3.3.16) or READDIRPLUS (3.3.17) call. */
    public Nfs3Results.Readdir readdir(byte[] dir, boolean plus, long cookie, long cookieverf, int dircount,
            int maxcount) throws IOException {
        return nfs(plus ? NFSPROC3_READDIRPLUS : NFSPROC3_READDIR,
                new Nfs3Args.Readdir(plus, dir, cookie, cookieverf, dircount, maxcount),
                new Nfs3Results.Readdir(plus), plus ? "READDIRPLUS" : "READDIR");
    }

    /**
     * The whole listing of {@code dir} (without "." and ".."), following cookies until eof with replies of at most
     * {@code count} bytes (READDIRPLUS: maxcount {@code count}, dircount {@code count / 2}).
     */
    public List<Entry> list(byte[] dir, boolean plus, int count) throws IOException {
        List<Entry> all = new ArrayList<>();
        long cookie = 0;
        long verf = 0;
        while (true) {
            Nfs3Results.Readdir r = readdir(dir, plus, cookie, verf, plus ? count / 2 : count, count);
            for (Entry e : r.entries) {
                if (!".".equals(e.name()) && !"..".equals(e.name())) {
                    all.add(e);
                }
                cookie = e.cookie();
            }
            verf = r.cookieverf;
            if (r.eof) {
                return all;
            }
            if (r.entries.isEmpty()) {
                throw new IOException("READDIR returned no entries before eof");
            }
        }
    }

    /** FSSTAT (3.3.18). */
    public Nfs3Results.Fsstat fsstat(byte[] fh) throws IOException {
        return nfs(NFSPROC3_FSSTAT, new Nfs3Args.Fh(fh), new Nfs3Results.Fsstat(), "FSSTAT");
    }

    /** FSINFO (3.3.19). */
    public Nfs3Results.Fsinfo fsinfo(byte[] fh) throws IOException {
        return nfs(NFSPROC3_FSINFO, new Nfs3Args.Fh(fh), new Nfs3Results.Fsinfo(), "FSINFO");
    }

    /** PATHCONF (3.3.20). */
    public Nfs3Results.Pathconf pathconf(byte[] fh) throws IOException {
        return nfs(NFSPROC3_PATHCONF, new Nfs3Args.Fh(fh), new Nfs3Results.Pathconf(), "PATHCONF");
    }

    /** COMMIT (3.3.21) of the whole file: the write verifier. */
    public long commit(byte[] fh) throws IOException {
        return nfs(NFSPROC3_COMMIT, new Nfs3Args.FhOffsetCount(fh, 0, 0), new Nfs3Results.Write(true), "COMMIT")
                .verf;
    }
}
