package org.rpcrdma4j.testbed.nfs;

import static org.rpcrdma4j.testbed.nfs.Nfs3.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.testbed.nfs.Nfs3Results.Entry;
import org.rpcrdma4j.testbed.nfs.Nfs3Results.Result;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.DirOpArgs;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Fattr3;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.NfsTime;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Sattr3;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.WccAttr;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.WccData;

/**
 * NFS version 3 (RFC 1813, program 100003 version 3) over a local directory: a <em>test service</em>, see the
 * package documentation for what it leaves out.
 *
 * <p><b>Names</b> are bytes, never text: LOOKUP, CREATE, MKDIR, SYMLINK, LINK, REMOVE, RMDIR, RENAME and READDIR
 * pass them to and from the file system unchanged ({@link PathBytes}), UTF-8 or not. They are checked before any file
 * system call: empty, {@code "."}, {@code ".."} (except in LOOKUP, where {@code ".."} of the root is the root
 * itself), or containing {@code '/'} or NUL are {@code NFS3ERR_INVAL}, longer than {@value Nfs3#NAME_MAX} bytes
 * {@code NFS3ERR_NAMETOOLONG}; a name the local file system refuses gets its error ({@code EINVAL}, {@code EILSEQ}:
 * {@code NFS3ERR_INVAL}). <b>Symbolic links</b> are data, never followed; their targets are kept byte for byte by
 * {@link SymlinkTargets}. READ/WRITE counts are capped to {@link Nfs3#MAX_IO} and READDIR/READDIRPLUS counts to
 * {@link Nfs3#DTPREF}, as advertised by FSINFO.
 *
 * <p><b>Attributes</b> are what the file system reports through the Linux {@code unix} attribute view: type, mode,
 * nlink, uid, gid, size, rdev, the three times, {@code fsid} the device number and {@code fileid} the inode number
 * (as Linux's nfsd reports them). What java.nio on Java 17 cannot see is said where it is reported: {@code used}
 * (st_blocks) is the size, FSSTAT's file slots (statvfs f_files) are 0, FSINFO's time_delta and maxfilesize are
 * bounds rather than the file system's own values.
 */
public final class Nfs3Service implements RpcDispatchable {

    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final int S_IFMT = 0170000;
    /** The attributes fattr3 needs: numeric ids only ("unix:*" would look owner and group names up). */
    private static final String UNIX_ATTRIBUTES =
            "unix:mode,nlink,uid,gid,size,rdev,dev,ino,lastAccessTime,lastModifiedTime,ctime";
    private static final byte[] DOT = {'.'};
    private static final byte[] DOT_DOT = {'.', '.'};
    /** FSINFO time_delta: Linux's nfsd answers 1 s too, a bound that holds for its file systems but FAT (2 s). */
    private static final NfsTime TIME_DELTA = new NfsTime(1, 0);
    /** READ buffers kept for reuse: enough for every worker of a busy service. */
    private static final int READ_BUFFERS_KEPT = 16;

    private final FileHandles handles;
    private final SymlinkTargets targets;
    private final ReadBuffers readBuffers = new ReadBuffers(MAX_IO, READ_BUFFERS_KEPT);
    private final long writeVerifier = new SecureRandom().nextLong();
    /** createverf3 of files made by EXCLUSIVE CREATE, so that a retransmission succeeds (section 3.3.8). */
    private final Map<Path, Long> exclusiveVerifiers = new ConcurrentHashMap<>();

    /** A service over the handles' export root, with the {@link SymlinkTargets#ofUser user's link target store}. */
    public Nfs3Service(FileHandles handles) {
        this(handles, SymlinkTargets.ofUser());
    }

    /** A service over the handles' export root, keeping link targets that need it in {@code targets}. */
    public Nfs3Service(FileHandles handles, SymlinkTargets targets) {
        this.handles = handles;
        this.targets = targets;
    }

    /** The writeverf3 returned by WRITE and COMMIT: constant for the life of this instance (section 3.3.7). */
    public long writeVerifier() {
        return writeVerifier;
    }

    @FunctionalInterface
    private interface Body<R extends Result> {
        void run(R res) throws IOException;
    }

    /** Runs {@code body}, turning a failure into the result's nfsstat3, and replies. */
    private static <R extends Result> void serve(RpcCall call, R res, Body<R> body) {
        try {
            body.run(res);
        } catch (IOException e) {
            res.status = statusOf(e);
        } catch (UncheckedIOException e) {
            res.status = statusOf(e.getCause());
        } catch (InvalidPathException e) {
            res.status = NFS3ERR_INVAL;
        }
        call.reply(res);
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case NFSPROC3_NULL -> call.reply(XdrVoid.XDR_VOID);
            case NFSPROC3_GETATTR -> {
                Nfs3Args.Fh a = new Nfs3Args.Fh();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Getattr(), r -> r.attr = attrs(handles.resolve(a.fh)));
            }
            case NFSPROC3_SETATTR -> {
                Nfs3Args.Setattr a = new Nfs3Args.Setattr();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Wcc(), r -> setattr(a, r));
            }
            case NFSPROC3_LOOKUP -> {
                Nfs3Args.DirOp a = new Nfs3Args.DirOp();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Lookup(), r -> lookup(a.what, r));
            }
            case NFSPROC3_ACCESS -> {
                Nfs3Args.Access a = new Nfs3Args.Access();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Access(), r -> access(a, r));
            }
            case NFSPROC3_READLINK -> {
                Nfs3Args.Fh a = new Nfs3Args.Fh();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Readlink(), r -> readlink(a, r));
            }
            case NFSPROC3_READ -> {
                Nfs3Args.FhOffsetCount a = new Nfs3Args.FhOffsetCount();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Read(), r -> read(a, r));
            }
            case NFSPROC3_WRITE -> {
                Nfs3Args.Write a = new Nfs3Args.Write();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Write(false), r -> write(a, r));
            }
            case NFSPROC3_CREATE -> {
                Nfs3Args.Create a = new Nfs3Args.Create();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Create(), r -> create(a, r));
            }
            case NFSPROC3_MKDIR, NFSPROC3_SYMLINK -> {
                Nfs3Args.Mkdir a = new Nfs3Args.Mkdir(call.getProcedure() == NFSPROC3_SYMLINK);
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Create(), r -> mkdirOrSymlink(a, r));
            }
            case NFSPROC3_MKNOD -> serve(call, new Nfs3Results.Wcc(), r -> r.status = NFS3ERR_NOTSUPP);
            case NFSPROC3_LINK -> {
                Nfs3Args.Link a = new Nfs3Args.Link();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Link(), r -> link(a, r));
            }
            case NFSPROC3_REMOVE, NFSPROC3_RMDIR -> {
                Nfs3Args.DirOp a = new Nfs3Args.DirOp();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Wcc(), r -> remove(a.what, call.getProcedure() == NFSPROC3_RMDIR, r));
            }
            case NFSPROC3_RENAME -> {
                Nfs3Args.Rename a = new Nfs3Args.Rename();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Rename(), r -> rename(a, r));
            }
            case NFSPROC3_READDIR, NFSPROC3_READDIRPLUS -> {
                boolean plus = call.getProcedure() == NFSPROC3_READDIRPLUS;
                Nfs3Args.Readdir a = new Nfs3Args.Readdir(plus);
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Readdir(plus), r -> readdir(a, plus, r));
            }
            case NFSPROC3_FSSTAT -> {
                Nfs3Args.Fh a = new Nfs3Args.Fh();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Fsstat(), r -> fsstat(a, r));
            }
            case NFSPROC3_FSINFO -> {
                Nfs3Args.Fh a = new Nfs3Args.Fh();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Fsinfo(), r -> fsinfo(a, r));
            }
            case NFSPROC3_PATHCONF -> {
                Nfs3Args.Fh a = new Nfs3Args.Fh();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Pathconf(), r -> pathconf(a, r));
            }
            case NFSPROC3_COMMIT -> {
                Nfs3Args.FhOffsetCount a = new Nfs3Args.FhOffsetCount();
                call.retrieveCall(a);
                serve(call, new Nfs3Results.Write(true), r -> commit(a, r));
            }
            default -> call.failProcedureUnavailable();
        }
    }

    // ---------------------------------------------------------------- procedures

    /** SETATTR, section 3.3.2: the guard compares ctime; NFS3ERR_NOT_SYNC on mismatch. */
    private void setattr(Nfs3Args.Setattr a, Nfs3Results.Wcc r) throws IOException {
        Path p = handles.resolve(a.fh);
        Fattr3 before = attrs(p);
        r.wcc = new WccData(before.toWcc(), before);
        try {
            if (a.guardCtime != null && !a.guardCtime.equals(before.ctime)) {
                throw new Nfs3Exception(NFS3ERR_NOT_SYNC, "SETATTR");
            }
            applySattr(p, before.type, a.attr);
        } finally {
            r.wcc = new WccData(before.toWcc(), attrsOrNull(p));
        }
    }

    /** LOOKUP, section 3.3.3. */
    private void lookup(DirOpArgs what, Nfs3Results.Lookup r) throws IOException {
        Path dir = handles.resolve(what.dir());
        r.dirAttr = attrsOrNull(dir);
        Path obj;
        if (Arrays.equals(DOT, what.name())) {
            obj = requireDir(dir);
        } else if (Arrays.equals(DOT_DOT, what.name())) {
            obj = requireDir(dir).equals(handles.root()) ? dir : dir.getParent();
        } else {
            obj = child(dir, what.name());
        }
        r.objAttr = attrs(obj);
        r.fh = handles.handleOf(obj);
    }

    /** ACCESS, section 3.3.4: checked against the server process's own permissions. */
    private void access(Nfs3Args.Access a, Nfs3Results.Access r) throws IOException {
        Path p = handles.resolve(a.fh);
        r.attr = attrs(p);
        int allowed = 0;
        if (r.attr.type == NF3LNK) {
            allowed = ACCESS3_READ;
        } else {
            if (Files.isReadable(p)) {
                allowed |= ACCESS3_READ;
            }
            if (Files.isWritable(p)) {
                allowed |= ACCESS3_MODIFY | ACCESS3_EXTEND | (r.attr.type == NF3DIR ? ACCESS3_DELETE : 0);
            }
            if (Files.isExecutable(p)) {
                allowed |= r.attr.type == NF3DIR ? ACCESS3_LOOKUP : ACCESS3_EXECUTE;
            }
        }
        r.access = a.access & allowed;
    }

    /** READLINK, section 3.3.5: NFS3ERR_INVAL if the object is not a symbolic link. */
    private void readlink(Nfs3Args.Fh a, Nfs3Results.Readlink r) throws IOException {
        Path p = handles.resolve(a.fh);
        r.attr = attrs(p);
        if (r.attr.type != NF3LNK) {
            throw new Nfs3Exception(NFS3ERR_INVAL, "READLINK");
        }
        r.target = targets.read(p);
    }

    /** READ, section 3.3.6: count capped to rtmax; eof when the reply reaches the end of the file. */
    private void read(Nfs3Args.FhOffsetCount a, Nfs3Results.Read r) throws IOException {
        Path p = handles.resolve(a.fh);
        r.attr = attrs(p);
        requireRegular(r.attr);
        // offset3 is unsigned: from 2^63 on it lies past any file java.nio can hold, so nothing is there
        int count = a.offset < 0 ? 0 : (int) Math.min(Integer.toUnsignedLong(a.count), MAX_IO);
        ByteBuffer buf = readBuffers.take(count);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long pos = Math.max(a.offset, 0);
            while (buf.hasRemaining()) {
                int n = ch.read(buf, pos);
                if (n < 0) {
                    break;
                }
                pos += n;
            }
            r.eof = a.offset < 0 || pos >= ch.size();
        } catch (IOException | RuntimeException e) {
            readBuffers.give(buf);
            throw e;
        }
        r.data = buf.flip();
        r.count = r.data.remaining();
        r.giveBack = () -> readBuffers.give(buf);
        r.attr = attrsOrNull(p);
    }

    /** WRITE, section 3.3.7: count capped to wtmax; FILE_SYNC/DATA_SYNC forced before the reply. */
    private void write(Nfs3Args.Write a, Nfs3Results.Write r) throws IOException {
        Path p = handles.resolve(a.fh);
        Fattr3 before = attrs(p);
        r.wcc = new WccData(before.toWcc(), before);
        requireRegular(before);
        if (Integer.toUnsignedLong(a.count) > a.data.remaining() || a.stable < UNSTABLE || a.stable > FILE_SYNC) {
            throw new Nfs3Exception(NFS3ERR_INVAL, "WRITE");
        }
        int count = (int) Math.min(Integer.toUnsignedLong(a.count), MAX_IO);
        if (a.offset < 0 || a.offset + count < 0) {
            throw new Nfs3Exception(NFS3ERR_FBIG, "WRITE past maxfilesize");
        }
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = a.data.duplicate().limit(a.data.position() + count);
            long pos = a.offset;
            while (buf.hasRemaining()) {
                pos += ch.write(buf, pos);
            }
            if (a.stable != UNSTABLE) {
                ch.force(a.stable == FILE_SYNC);
            }
        } finally {
            r.wcc = new WccData(before.toWcc(), attrsOrNull(p));
        }
        r.count = count;
        r.committed = a.stable;
        r.verf = writeVerifier;
    }

    /** CREATE, section 3.3.8: UNCHECKED, GUARDED (NFS3ERR_EXIST) and EXCLUSIVE (verifier replay). */
    private void create(Nfs3Args.Create a, Nfs3Results.Create r) throws IOException {
        Path dir = handles.resolve(a.where.dir());
        WccAttr pre = preOp(dir);
        try {
            Path p = child(dir, a.where.name());
            switch (a.mode) {
                case UNCHECKED -> {
                    try {
                        Files.createFile(p);
                    } catch (FileAlreadyExistsException e) {
                        if (!Files.isRegularFile(p, NOFOLLOW)) {
                            throw e;
                        }
                    }
                    applySattr(p, NF3REG, a.attr);
                }
                case GUARDED -> {
                    Files.createFile(p);
                    applySattr(p, NF3REG, a.attr);
                }
                default -> {
                    try {
                        Files.createFile(p);
                        exclusiveVerifiers.put(p, a.verf);
                    } catch (FileAlreadyExistsException e) {
                        Long verf = exclusiveVerifiers.get(p);
                        if (verf == null || verf != a.verf) {
                            throw e;
                        }
                    }
                }
            }
            r.objAttr = attrs(p);
            r.fh = handles.handleOf(p);
        } finally {
            r.dirWcc = new WccData(pre, attrsOrNull(dir));
        }
    }

    /** MKDIR (3.3.9) and SYMLINK (3.3.10); the link target is stored byte for byte and never interpreted. */
    private void mkdirOrSymlink(Nfs3Args.Mkdir a, Nfs3Results.Create r) throws IOException {
        Path dir = handles.resolve(a.where.dir());
        WccAttr pre = preOp(dir);
        try {
            Path p = child(dir, a.where.name());
            if (a.target != null) {
                if (a.target.length == 0 || indexOf(a.target, (byte) 0) >= 0) {
                    throw new Nfs3Exception(NFS3ERR_INVAL, "SYMLINK");
                }
                targets.create(p, a.target);
            } else {
                Files.createDirectory(p);
                applySattr(p, NF3DIR, a.attr);
            }
            r.objAttr = attrs(p);
            r.fh = handles.handleOf(p);
        } finally {
            r.dirWcc = new WccData(pre, attrsOrNull(dir));
        }
    }

    /** REMOVE (3.3.12: not a directory) and RMDIR (3.3.13: a directory, NFS3ERR_NOTEMPTY if not empty). */
    private void remove(DirOpArgs what, boolean rmdir, Nfs3Results.Wcc r) throws IOException {
        Path dir = handles.resolve(what.dir());
        WccAttr pre = preOp(dir);
        try {
            Path p = child(dir, what.name());
            Fattr3 victim = attrs(p);
            if (rmdir && victim.type != NF3DIR) {
                throw new Nfs3Exception(NFS3ERR_NOTDIR, "RMDIR");
            }
            if (!rmdir && victim.type == NF3DIR) {
                throw new Nfs3Exception(NFS3ERR_ISDIR, "REMOVE");
            }
            Files.delete(p);
            handles.forget(p);
            exclusiveVerifiers.remove(p);
            unlinked(victim);
        } finally {
            r.wcc = new WccData(pre, attrsOrNull(dir));
        }
    }

    /**
     * LINK, section 3.3.15: link(2), which links a symbolic link itself, never its target. A directory is
     * NFS3ERR_ISDIR, as Linux's nfsd answers (link(2) says EPERM); another file system mounted inside the export is
     * NFS3ERR_XDEV. The new name joins the file's handle at once: a client that binds it to the handle it linked
     * (Linux's does) keeps a valid handle when the first name is removed.
     */
    private void link(Nfs3Args.Link a, Nfs3Results.Link r) throws IOException {
        Path file = handles.resolve(a.file);
        Path dir = handles.resolve(a.link.dir());
        WccAttr pre = preOp(dir);
        try {
            Path p = child(dir, a.link.name());
            if (attrs(file).type == NF3DIR) {
                throw new Nfs3Exception(NFS3ERR_ISDIR, "LINK");
            }
            Files.createLink(p, file);
            handles.idOf(p); // the new name joins the file's handle
        } finally {
            r.attr = attrsOrNull(file);
            r.linkDirWcc = new WccData(pre, attrsOrNull(dir));
        }
    }

    /** RENAME, section 3.3.14: rename(2) semantics, an existing compatible target is replaced. */
    private void rename(Nfs3Args.Rename a, Nfs3Results.Rename r) throws IOException {
        Path fromDir = handles.resolve(a.from.dir());
        Path toDir = handles.resolve(a.to.dir());
        WccAttr preFrom = preOp(fromDir);
        WccAttr preTo = preOp(toDir);
        try {
            Path from = child(fromDir, a.from.name());
            Path to = child(toDir, a.to.name());
            attrs(from); // NFS3ERR_NOENT before anything else
            if (!from.equals(to)) {
                if (to.startsWith(from)) {
                    throw new Nfs3Exception(NFS3ERR_INVAL, "RENAME into itself");
                }
                Fattr3 replaced = attrsOrNull(to);
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
                handles.renamed(from, to);
                if (replaced != null) {
                    unlinked(replaced);
                }
            }
        } finally {
            r.fromWcc = new WccData(preFrom, attrsOrNull(fromDir));
            r.toWcc = new WccData(preTo, attrsOrNull(toDir));
        }
    }

    /** A directory entry: its name's bytes and its path. */
    private record Listed(byte[] name, Path path) {
    }

    /**
     * READDIR (3.3.16) and READDIRPLUS (3.3.17). The listing is {@code "."}, {@code ".."} then the names in sorted
     * order; entry i has cookie i+1, and the cookie verifier is the directory's mtime, so cookies stay valid while
     * the directory is unchanged. Replies fit in {@code min(count, dtpref)} bytes (READDIRPLUS: dircount counts the
     * fileid, name and cookie of each entry, maxcount the whole reply).
     */
    private void readdir(Nfs3Args.Readdir a, boolean plus, Nfs3Results.Readdir r) throws IOException {
        Path dir = handles.resolve(a.dir);
        r.attr = attrs(dir);
        requireDir(dir);
        long verf = r.attr.mtime.toNanos();
        if (a.cookie != 0 && a.cookieverf != 0 && a.cookieverf != verf) {
            throw new Nfs3Exception(NFS3ERR_BAD_COOKIE, "READDIR");
        }
        List<Listed> names = new ArrayList<>();
        names.add(new Listed(DOT, dir));
        names.add(new Listed(DOT_DOT, dir.equals(handles.root()) ? dir : dir.getParent()));
        List<Listed> sorted = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                sorted.add(new Listed(PathBytes.nameOf(p), p));
            }
        }
        sorted.sort((x, y) -> Arrays.compareUnsigned(x.name(), y.name()));
        names.addAll(sorted);
        if (a.cookie < 0 || a.cookie > names.size()) {
            throw new Nfs3Exception(NFS3ERR_BAD_COOKIE, "READDIR");
        }
        long max = Math.min(Integer.toUnsignedLong(plus ? a.maxcount : a.dircount), DTPREF);
        long dirMax = plus ? Math.min(Integer.toUnsignedLong(a.dircount), DTPREF) : Long.MAX_VALUE;
        // status, post_op_attr (4 + 84), cookieverf, end of list, eof
        long size = 4 + 4 + 84 + 8 + 4 + 4;
        long dirSize = 0;
        int i = (int) a.cookie;
        for (; i < names.size(); i++) {
            byte[] name = names.get(i).name();
            int dirPart = 8 + 4 + pad(name.length) + 8;
            int entry = 4 + dirPart + (plus ? 4 + 84 + 4 + 4 + FileHandles.HANDLE_SIZE : 0);
            if (size + entry > max || dirSize + dirPart > dirMax) {
                break;
            }
            Path p = names.get(i).path();
            long fileid;
            Fattr3 attr = null;
            byte[] fh = null;
            try {
                if (plus) {
                    attr = attrs(p);
                    fileid = attr.fileid;
                    fh = handles.handleOf(p);
                } else {
                    fileid = (Long) Files.getAttribute(p, "unix:ino", NOFOLLOW);
                }
            } catch (NoSuchFileException e) {
                continue; // removed since listed
            }
            r.entries.add(new Entry(fileid, name, i + 1L, attr, fh));
            size += entry;
            dirSize += dirPart;
        }
        if (r.entries.isEmpty() && i < names.size()) {
            throw new Nfs3Exception(NFS3ERR_TOOSMALL, "READDIR");
        }
        r.eof = i >= names.size();
        r.cookieverf = verf;
    }

    /**
     * FSSTAT, section 3.3.18: space from the object's FileStore (statvfs). File slots (f_files, f_ffree) are not
     * visible to java.nio and are reported as 0, as Linux reports them for file systems without a fixed number of
     * inodes (btrfs): "no figure", not "full". invarsec 0: the figures may change at any time.
     */
    private void fsstat(Nfs3Args.Fh a, Nfs3Results.Fsstat r) throws IOException {
        Path p = handles.resolve(a.fh);
        r.attr = attrs(p);
        FileStore store = Files.getFileStore(p);
        r.tbytes = store.getTotalSpace();
        r.fbytes = store.getUnallocatedSpace();
        r.abytes = store.getUsableSpace();
        r.tfiles = 0;
        r.ffiles = 0;
        r.afiles = 0;
        r.invarsec = 0;
    }

    /**
     * FSINFO, section 3.3.19: the limits this service enforces; rtmult and wtmult the file system's block size
     * (statvfs f_bsize). maxfilesize is the largest size java.nio can address; a file system with a lower limit
     * answers a WRITE or SETATTR past it with NFS3ERR_FBIG. time_delta is a bound ({@link #TIME_DELTA}): the file
     * system's own granularity is not visible to java.nio.
     */
    private void fsinfo(Nfs3Args.Fh a, Nfs3Results.Fsinfo r) throws IOException {
        Path p = handles.resolve(a.fh);
        r.attr = attrs(p);
        int block = (int) Math.min(Files.getFileStore(p).getBlockSize(), MAX_IO);
        r.rtmax = MAX_IO;
        r.rtpref = MAX_IO;
        r.rtmult = block;
        r.wtmax = MAX_IO;
        r.wtpref = MAX_IO;
        r.wtmult = block;
        r.dtpref = DTPREF;
        r.maxfilesize = Long.MAX_VALUE;
        r.timeDelta = TIME_DELTA;
        r.properties = FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME;
    }

    /**
     * PATHCONF, section 3.3.20: linkmax {@link Nfs3#LINK_MAX} (ext4's, as the file system's own is not visible to
     * java.nio), name_max the limit this service enforces; the rest is what Linux file systems other than vfat and
     * casefolded ext4 directories do, as Linux's nfsd answers.
     */
    private void pathconf(Nfs3Args.Fh a, Nfs3Results.Pathconf r) throws IOException {
        r.attr = attrs(handles.resolve(a.fh));
        r.linkmax = LINK_MAX;
        r.nameMax = NAME_MAX;
        r.noTrunc = true;
        r.chownRestricted = true;
        r.caseInsensitive = false;
        r.casePreserving = true;
    }

    /** COMMIT, section 3.3.21: forces the whole file and returns the instance's write verifier. */
    private void commit(Nfs3Args.FhOffsetCount a, Nfs3Results.Write r) throws IOException {
        Path p = handles.resolve(a.fh);
        Fattr3 before = attrs(p);
        r.wcc = new WccData(before.toWcc(), before);
        requireRegular(before);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ch.force(true);
        }
        r.wcc = new WccData(before.toWcc(), attrsOrNull(p));
        r.verf = writeVerifier;
    }

    // ---------------------------------------------------------------- helpers

    /**
     * The path of {@code name} in directory {@code dir}, refusing names that could leave the directory: empty,
     * {@code "."}, {@code ".."}, or containing {@code '/'} or NUL (NFS3ERR_INVAL), longer than NAME_MAX bytes
     * (NFS3ERR_NAMETOOLONG). {@code dir} must be a directory (NFS3ERR_NOTDIR).
     */
    private static Path child(Path dir, byte[] name) throws IOException {
        if (name.length == 0 || Arrays.equals(DOT, name) || Arrays.equals(DOT_DOT, name)
                || indexOf(name, (byte) '/') >= 0 || indexOf(name, (byte) 0) >= 0) {
            throw new Nfs3Exception(NFS3ERR_INVAL, "name");
        }
        if (name.length > NAME_MAX) {
            throw new Nfs3Exception(NFS3ERR_NAMETOOLONG, "name");
        }
        requireDir(dir);
        return PathBytes.child(dir, name);
    }

    private static int indexOf(byte[] bytes, byte b) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** After a name of {@code victim} is gone: a link that had no other name loses its stored target. */
    private void unlinked(Fattr3 victim) {
        if (victim.type == NF3LNK && victim.nlink == 1) {
            targets.forget(victim.fsid, victim.fileid);
        }
    }

    private static Path requireDir(Path dir) throws IOException {
        if (!Files.isDirectory(dir, NOFOLLOW)) {
            throw new Nfs3Exception(NFS3ERR_NOTDIR, "directory");
        }
        return dir;
    }

    private static void requireRegular(Fattr3 attr) throws Nfs3Exception {
        if (attr.type == NF3DIR) {
            throw new Nfs3Exception(NFS3ERR_ISDIR, "regular file");
        }
        if (attr.type != NF3REG) {
            throw new Nfs3Exception(NFS3ERR_INVAL, "regular file");
        }
    }

    private static int pad(int n) {
        return (n + 3) & ~3;
    }

    /** fattr3 of a path, never following a symbolic link (section 2.6). */
    private Fattr3 attrs(Path p) throws IOException {
        Map<String, Object> u = Files.readAttributes(p, UNIX_ATTRIBUTES, NOFOLLOW);
        Fattr3 a = new Fattr3();
        int mode = (Integer) u.get("mode");
        a.type = switch (mode & S_IFMT) {
            case 0100000 -> NF3REG;
            case 0040000 -> NF3DIR;
            case 0120000 -> NF3LNK;
            case 0060000 -> NF3BLK;
            case 0020000 -> NF3CHR;
            case 0140000 -> NF3SOCK;
            case 0010000 -> NF3FIFO;
            default -> throw new Nfs3Exception(NFS3ERR_IO, "file type " + Integer.toOctalString(mode & S_IFMT));
        };
        a.mode = mode & 07777;
        a.nlink = (Integer) u.get("nlink");
        a.uid = (Integer) u.get("uid");
        a.gid = (Integer) u.get("gid");
        a.size = (Long) u.get("size");
        if (a.type == NF3LNK) {
            a.size = targets.size(p, a.size);
        }
        a.used = a.size; // st_blocks is not visible to java.nio on Java 17: the apparent size stands in
        long rdev = (Long) u.get("rdev");
        a.rdevMajor = (int) ((rdev >>> 8) & 0xfff);
        a.rdevMinor = (int) ((rdev & 0xff) | ((rdev >>> 12) & 0xfff00));
        a.fsid = (Long) u.get("dev");
        a.fileid = (Long) u.get("ino");
        a.atime = time((FileTime) u.get("lastAccessTime"));
        a.mtime = time((FileTime) u.get("lastModifiedTime"));
        a.ctime = time((FileTime) u.get("ctime"));
        return a;
    }

    private Fattr3 attrsOrNull(Path p) {
        try {
            return attrs(p);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private WccAttr preOp(Path p) {
        Fattr3 a = attrsOrNull(p);
        return a == null ? null : a.toWcc();
    }

    private static NfsTime time(FileTime t) {
        return NfsTime.ofNanos(t.to(TimeUnit.NANOSECONDS));
    }

    /** Applies sattr3 (section 2.6) to an object of type {@code type}: size only for regular files. */
    private static void applySattr(Path p, int type, Sattr3 s) throws IOException {
        if (s.size != null) {
            if (type != NF3REG) {
                throw new Nfs3Exception(type == NF3DIR ? NFS3ERR_ISDIR : NFS3ERR_INVAL, "SETATTR size");
            }
            if (s.size < 0) { // size3 is unsigned: 2^63 and above is past maxfilesize
                throw new Nfs3Exception(NFS3ERR_FBIG, "SETATTR size");
            }
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                if (s.size < ch.size()) {
                    ch.truncate(s.size);
                } else if (s.size > ch.size()) {
                    ch.write(ByteBuffer.allocate(1), s.size - 1);
                }
            }
        }
        if (s.mode != null && type != NF3LNK) {
            Files.setAttribute(p, "unix:mode", s.mode & 07777);
        }
        if (s.uid != null && !s.uid.equals(Files.getAttribute(p, "unix:uid", NOFOLLOW))) {
            Files.setAttribute(p, "unix:uid", s.uid, NOFOLLOW);
        }
        if (s.gid != null && !s.gid.equals(Files.getAttribute(p, "unix:gid", NOFOLLOW))) {
            Files.setAttribute(p, "unix:gid", s.gid, NOFOLLOW);
        }
        if (s.atimeHow != DONT_CHANGE || s.mtimeHow != DONT_CHANGE) {
            FileTime now = FileTime.from(Instant.now());
            FileTime atime = s.atimeHow == DONT_CHANGE ? null
                    : s.atimeHow == SET_TO_SERVER_TIME ? now : FileTime.from(s.atime.toNanos(), TimeUnit.NANOSECONDS);
            FileTime mtime = s.mtimeHow == DONT_CHANGE ? null
                    : s.mtimeHow == SET_TO_SERVER_TIME ? now : FileTime.from(s.mtime.toNanos(), TimeUnit.NANOSECONDS);
            Files.getFileAttributeView(p, BasicFileAttributeView.class, NOFOLLOW).setTimes(mtime, atime, null);
        }
    }

    /** Maps a java.nio failure to nfsstat3 (section 2.6). */
    static int statusOf(IOException e) {
        if (e instanceof Nfs3Exception n) {
            return n.status();
        }
        if (e instanceof NoSuchFileException) {
            return NFS3ERR_NOENT;
        }
        if (e instanceof FileAlreadyExistsException) {
            return NFS3ERR_EXIST;
        }
        if (e instanceof DirectoryNotEmptyException) {
            return NFS3ERR_NOTEMPTY;
        }
        if (e instanceof AccessDeniedException) {
            return NFS3ERR_ACCES;
        }
        if (e instanceof NotDirectoryException) {
            return NFS3ERR_NOTDIR;
        }
        if (e instanceof NotLinkException) {
            return NFS3ERR_INVAL;
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            String reason = f.getReason();
            if (reason.contains("Is a directory")) {
                return NFS3ERR_ISDIR;
            } else if (reason.contains("Not a directory")) {
                return NFS3ERR_NOTDIR;
            } else if (reason.contains("Directory not empty")) {
                return NFS3ERR_NOTEMPTY;
            } else if (reason.contains("File name too long")) {
                return NFS3ERR_NAMETOOLONG;
            } else if (reason.contains("Operation not permitted")) {
                return NFS3ERR_PERM;
            } else if (reason.contains("Invalid argument") || reason.contains("Too many levels of symbolic links")
                    || reason.contains("multibyte")) { // EILSEQ: a name the file system cannot hold
                return NFS3ERR_INVAL;
            } else if (reason.contains("File too large")) {
                return NFS3ERR_FBIG;
            } else if (reason.contains("No space left")) {
                return NFS3ERR_NOSPC;
            } else if (reason.contains("Read-only file system")) {
                return NFS3ERR_ROFS;
            } else if (reason.contains("cross-device")) {
                return NFS3ERR_XDEV;
            } else if (reason.contains("File exists")) {
                return NFS3ERR_EXIST;
            } else if (reason.contains("Too many links")) {
                return NFS3ERR_MLINK;
            }
        }
        return NFS3ERR_IO;
    }
}
