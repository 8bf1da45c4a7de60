package org.rpcrdma4j.testbed.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.rpcrdma4j.testbed.nfs.Nfs3.*;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.testbed.nfs.Nfs3Results.Entry;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Fattr3;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Sattr3;

/** NFSv3 + MOUNT v3 test service and client helper over oncrpc4j's TCP transport on loopback. */
class Nfs3ServiceTest {

    @TempDir
    static Path tmp;
    @TempDir
    static Path targetStore;

    private static OncRpcSvc svc;
    private static OncRpcClient rpcClient;
    private static Nfs3Client client;
    private static Nfs3Service service;
    private static Path exportDir;
    private static byte[] root;

    @BeforeAll
    static void start() throws IOException {
        exportDir = tmp.toRealPath();
        FileHandles handles = new FileHandles(exportDir, 100_000);
        service = new Nfs3Service(handles, new SymlinkTargets(targetStore));
        svc = serve(handles, service);
        rpcClient = connect(svc);
        client = new Nfs3Client(rpcClient.connect());
        root = client.mount("/export/");
    }

    /** A started TCP service of {@code service} and MOUNT over {@code handles}. */
    static OncRpcSvc serve(FileHandles handles, Nfs3Service service) throws IOException {
        OncRpcSvc s = new OncRpcSvcBuilder().withTCP().withPort(0).withBindAddress("127.0.0.1").withoutAutoPublish()
                .withWorkerThreadIoStrategy().withWorkerThreadPoolSize(2).withServiceName("nfs3-test")
                .withRpcService(new OncRpcProgram(NFS_PROGRAM, NFS_V3), service)
                .withRpcService(new OncRpcProgram(MOUNT_PROGRAM, MOUNT_V3), new MountService("/export", handles))
                .build();
        s.start();
        return s;
    }

    private static OncRpcClient connect(OncRpcSvc s) throws IOException {
        int port = s.getInetSocketAddress(IpProtocolType.TCP).getPort();
        return new OncRpcClient(InetAddress.getByName("127.0.0.1"), IpProtocolType.TCP, port);
    }

    @AfterAll
    static void stop() throws IOException {
        if (rpcClient != null) {
            rpcClient.close();
        }
        if (svc != null) {
            svc.stop();
        }
    }

    private static void assertStatus(ThrowingCallable call, int status) {
        assertThatThrownBy(call).isInstanceOfSatisfying(Nfs3Exception.class, e -> assertThat(e.status())
                .as(e.getMessage()).isEqualTo(status));
    }

    private static byte[] sha256(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    @Test
    void mountExportsAndNull() throws IOException {
        client.ping();
        assertThat(root).hasSize(FileHandles.HANDLE_SIZE);
        assertThat(client.getattr(root).type).isEqualTo(NF3DIR);
        assertStatus(() -> client.mount("/elsewhere"), MNT3ERR_NOENT);
        assertThat(client.exports()).extracting(MountXdr.Export::dir).containsExactly("/export");
        client.umount("/export");
    }

    @Test
    void writeAndReadBackFilesOfSeveralSizes() throws Exception {
        byte[] dir = client.mkdir(root, "io");
        Random random = new Random(42);
        for (int size : new int[] {0, 1, 4096 + 1, MAX_IO + 3}) {
            byte[] data = new byte[size];
            random.nextBytes(data);
            String name = "f" + size;
            byte[] fh = client.create(dir, name);
            client.writeAll(fh, data, MAX_IO, UNSTABLE);
            client.commit(fh);
            assertThat(client.getattr(fh).size).isEqualTo(size);
            assertThat(sha256(client.readAll(fh, MAX_IO))).isEqualTo(sha256(data));
            assertThat(sha256(client.readAll(fh, 4000))).isEqualTo(sha256(data));
            assertThat(sha256(Files.readAllBytes(exportDir.resolve("io").resolve(name)))).isEqualTo(sha256(data));
        }
        // a READ beyond rtmax is capped, a READ past the end is empty with eof
        byte[] big = client.lookup(dir, "f" + (MAX_IO + 3));
        assertThat(client.read(big, 0, MAX_IO * 2).count).isEqualTo(MAX_IO);
        Nfs3Results.Read past = client.read(big, MAX_IO + 100, 10);
        assertThat(past.count).isZero();
        assertThat(past.eof).isTrue();
        assertStatus(() -> client.read(dir, 0, 10), NFS3ERR_ISDIR);
        assertStatus(() -> client.create(dir, "f1"), NFS3ERR_EXIST);
        assertThat(client.create(dir, "f1", UNCHECKED, new Sattr3())).isEqualTo(client.lookup(dir, "f1"));
    }

    @Test
    void mkdirSymlinkAndReadlink() throws IOException {
        byte[] dir = client.mkdir(root, "links");
        assertThat(client.getattr(dir).mode).isEqualTo(0755);
        byte[] link = client.symlink(dir, "escape", "../../../etc/passwd");
        assertThat(client.getattr(link).type).isEqualTo(NF3LNK);
        assertThat(client.readlink(link)).isEqualTo("../../../etc/passwd");
        assertThat(Files.readSymbolicLink(exportDir.resolve("links/escape")).toString())
                .isEqualTo("../../../etc/passwd");
        // the link is data: never followed
        assertStatus(() -> client.read(link, 0, 100), NFS3ERR_INVAL);
        assertStatus(() -> client.lookup(link, "x"), NFS3ERR_NOTDIR);
        assertStatus(() -> client.readlink(dir), NFS3ERR_INVAL);
        assertStatus(() -> client.mkdir(root, "links"), NFS3ERR_EXIST);
        assertThat(client.walk(root, "/links/escape")).isEqualTo(link);
    }

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** Runs {@code sh -c script} with {@code args} as $1..., failing on a non-zero exit; returns stdout's bytes. */
    private static byte[] sh(String script, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("sh", "-c", script, "sh"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor()).as(new String(out)).isZero();
        return out;
    }

    /** The target of a local link as readlink(1) prints it: bytes that java.nio did not touch. */
    private static byte[] readlinkOnDisk(Path link) throws Exception {
        return sh("readlink -n -- \"$1\"", link.toString());
    }

    private static String[] storeRecords() throws IOException {
        try (var files = Files.list(targetStore)) {
            return files.map(f -> f.getFileName().toString()).toArray(String[]::new);
        }
    }

    @Test
    void symlinkTargetsComeBackByteForByte() throws Exception {
        byte[] dir = client.mkdir(root, "exact");
        Path local = exportDir.resolve("exact");
        byte[] slashes = "../a//b/./c/".getBytes(StandardCharsets.US_ASCII);
        byte[] notUtf8 = bytes('.', '.', '/', 0xFF, 0xFE, '/', 'x', 0xC3, 0x28, 0xE9);
        byte[] long4000 = "d1//".repeat(999).concat("end/").getBytes(StandardCharsets.US_ASCII);
        byte[] plain4000 = "p".repeat(3999).concat("q").getBytes(StandardCharsets.US_ASCII);
        assertThat(long4000).hasSize(4000);

        byte[] l1 = client.symlink(dir, utf8("slashes"), slashes);
        byte[] l2 = client.symlink(dir, utf8("binary"), notUtf8);
        byte[] l3 = client.symlink(dir, utf8("long"), long4000);
        byte[] l4 = client.symlink(dir, utf8("plain"), plain4000);

        assertThat(client.readlinkBytes(l1)).isEqualTo(slashes);
        assertThat(client.readlinkBytes(l2)).isEqualTo(notUtf8);
        assertThat(client.readlinkBytes(l3)).isEqualTo(long4000);
        assertThat(client.readlinkBytes(l4)).isEqualTo(plain4000);
        // fattr3 size of a link is the length of its target (section 2.6), the exact one
        assertThat(client.getattr(l1).size).isEqualTo(slashes.length);
        assertThat(client.getattr(l3).size).isEqualTo(4000);
        // on disk, real links: exact where the bytes allow it, else the form that resolves the same way
        assertThat(readlinkOnDisk(local.resolve("binary"))).isEqualTo(notUtf8);
        assertThat(readlinkOnDisk(local.resolve("plain"))).isEqualTo(plain4000);
        assertThat(readlinkOnDisk(local.resolve("slashes"))).asString().isEqualTo("../a/b/./c");
        assertThat(readlinkOnDisk(local.resolve("long"))).asString().isEqualTo("d1/".repeat(999) + "end");
        assertThat(storeRecords()).hasSize(2);

        // the record follows a rename, and goes with the link's last name
        client.rename(dir, "slashes", root, "moved-link");
        assertThat(client.readlinkBytes(client.lookup(root, "moved-link"))).isEqualTo(slashes);
        client.remove(root, "moved-link");
        client.remove(dir, "long");
        assertThat(storeRecords()).isEmpty();
        assertStatus(() -> client.symlink(dir, utf8("empty"), new byte[0]), NFS3ERR_INVAL);
        assertStatus(() -> client.symlink(dir, utf8("nul"), bytes('a', 0, 'b')), NFS3ERR_INVAL);
    }

    @Test
    void linksMadeOutsideTheServerReadBackExactly() throws Exception {
        byte[] dir = client.mkdir(root, "outside");
        Path local = exportDir.resolve("outside");
        sh("ln -s -- \"$(printf '../a//b/./c/')\" \"$1\"", local.resolve("slashes").toString());
        sh("ln -s -- \"$(printf '\\377\\376x')\" \"$1\"", local.resolve("binary").toString());
        assertThat(client.readlinkBytes(client.lookup(dir, "slashes"))).asString().isEqualTo("../a//b/./c/");
        assertThat(client.readlinkBytes(client.lookup(dir, "binary"))).isEqualTo(bytes(0xFF, 0xFE, 'x'));
        assertThat(client.getattr(client.lookup(dir, "slashes")).size).isEqualTo(12);
    }

    @Test
    void aStoredTargetAndFileidsOutliveTheService() throws Exception {
        byte[] dir = client.mkdir(root, "restart");
        byte[] target = "x//y/".getBytes(StandardCharsets.US_ASCII);
        client.symlink(dir, utf8("kept"), target);
        long fileid = client.getattr(client.lookup(dir, "kept")).fileid;

        // a new service instance (new handles) over the same export and store
        FileHandles handles = new FileHandles(exportDir, 100);
        OncRpcSvc again = serve(handles, new Nfs3Service(handles, new SymlinkTargets(targetStore)));
        try (OncRpcClient rpc = connect(again)) {
            Nfs3Client other = new Nfs3Client(rpc.connect());
            byte[] dir2 = other.lookup(other.mount("/export"), "restart");
            byte[] kept = other.lookup(dir2, "kept");
            assertThat(other.readlinkBytes(kept)).isEqualTo(target);
            assertThat(other.getattr(kept).fileid).isEqualTo(fileid);
            assertThat(other.getattr(dir2).fileid).isEqualTo(client.getattr(dir).fileid);
        } finally {
            again.stop();
        }
        client.remove(dir, "kept");
        assertThat(storeRecords()).isEmpty();
    }

    @Test
    void namesRoundTripByteForByte() throws Exception {
        byte[] dir = client.mkdir(root, "names");
        Path local = exportDir.resolve("names");
        byte[] latin1 = bytes('c', 'a', 'f', 0xE9);                    // "café" in ISO 8859-1: not UTF-8
        byte[] broken = bytes('n', 0xFF, 0xFE, 0xC3);                  // invalid and truncated UTF-8
        byte[] utf8 = "caf\u00e9 % \\ ?#".getBytes(StandardCharsets.UTF_8);
        byte[] longest = concat("\u00e9".repeat(127).getBytes(StandardCharsets.UTF_8), bytes('x')); // 255 bytes
        assertThat(longest).hasSize(NAME_MAX);
        List<byte[]> names = List.of(latin1, broken, utf8, longest);
        for (byte[] name : names) {
            byte[] fh = client.create(dir, name, GUARDED, Sattr3.ofMode(0644));
            assertThat(client.lookup(dir, name)).isEqualTo(fh);
        }
        // on disk under exactly these bytes: ls(1) prints them unchanged
        byte[] listing = sh("cd \"$1\" && ls -1 -f --quoting-style=literal", local.toString());
        for (byte[] name : names) {
            assertThat(indexOf(listing, concat(bytes('\n'), name, bytes('\n')))).as(hex(name)).isNotNegative();
        }
        for (boolean plus : new boolean[] {false, true}) {
            assertThat(client.list(dir, plus, 4096)).extracting(e -> hex(e.rawName()))
                    .containsExactlyInAnyOrderElementsOf(names.stream().map(Nfs3ServiceTest::hex).toList());
        }
        // a name made locally, not UTF-8, is found by its bytes
        sh("cd \"$1\" && touch -- \"$(printf 'local\\377')\"", local.toString());
        byte[] localName = bytes('l', 'o', 'c', 'a', 'l', 0xFF);
        assertThat(client.getattr(client.lookup(dir, localName)).type).isEqualTo(NF3REG);
        client.rename(dir, latin1, dir, broken);
        assertStatus(() -> client.lookup(dir, latin1), NFS3ERR_NOENT);
        client.remove(dir, broken);
        client.remove(dir, localName);
        assertStatus(() -> client.create(dir, concat(longest, bytes('y')), GUARDED, new Sattr3()),
                NFS3ERR_NAMETOOLONG);
        assertStatus(() -> client.lookup(dir, bytes('a', '/', 'b')), NFS3ERR_INVAL);
        assertStatus(() -> client.lookup(dir, bytes('a', 0)), NFS3ERR_INVAL);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void readdirAndReaddirplusOfALargeDirectoryReturnEveryEntryOnce() throws IOException {
        Path big = Files.createDirectory(exportDir.resolve("big"));
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            String name = "entry-" + i;
            Files.createFile(big.resolve(name));
            expected.add(name);
        }
        byte[] dir = client.lookup(root, "big");
        for (boolean plus : new boolean[] {false, true}) {
            List<Entry> entries = client.list(dir, plus, plus ? 4096 : 1024);
            List<String> names = entries.stream().map(Entry::name).collect(Collectors.toList());
            assertThat(names).doesNotHaveDuplicates().hasSize(2000);
            assertThat(new HashSet<>(names)).isEqualTo(expected);
            assertThat(entries).extracting(Entry::cookie).doesNotHaveDuplicates();
            if (plus) {
                Entry e = entries.get(1234);
                assertThat(e.fh()).isNotNull();
                assertThat(e.attr().type).isEqualTo(NF3REG);
                assertThat(client.getattr(e.fh()).fileid).isEqualTo(e.fileid());
                assertThat(client.lookup(dir, e.name())).isEqualTo(e.fh());
            }
        }
        // a count that cannot hold one entry, and a cookie past the end
        assertStatus(() -> client.readdir(dir, false, 0, 0, 120, 0), NFS3ERR_TOOSMALL);
        assertStatus(() -> client.readdir(dir, false, 5000, 0, 4096, 0), NFS3ERR_BAD_COOKIE);
    }

    @Test
    void renameKeepsHandles() throws IOException {
        byte[] dir = client.mkdir(root, "ren");
        byte[] sub = client.mkdir(dir, "sub");
        byte[] f = client.create(sub, "a");
        client.write(f, 0, new byte[] {1, 2, 3}, FILE_SYNC);
        client.rename(dir, "sub", dir, "moved");
        assertThat(client.getattr(f).size).isEqualTo(3);
        assertThat(client.getattr(sub).type).isEqualTo(NF3DIR);
        assertThat(client.walk(dir, "moved/a")).isEqualTo(f);
        assertStatus(() -> client.lookup(dir, "sub"), NFS3ERR_NOENT);
        assertStatus(() -> client.rename(dir, "nothing", dir, "x"), NFS3ERR_NOENT);
        assertStatus(() -> client.rename(dir, "moved", sub, "inside"), NFS3ERR_INVAL);
        assertThat(Files.exists(exportDir.resolve("ren/moved/a"))).isTrue();
    }

    @Test
    void removeRmdirAndStaleHandles() throws IOException {
        byte[] dir = client.mkdir(root, "rm");
        byte[] f = client.create(dir, "file");
        assertStatus(() -> client.rmdir(root, "rm"), NFS3ERR_NOTEMPTY);
        assertStatus(() -> client.rmdir(dir, "file"), NFS3ERR_NOTDIR);
        assertStatus(() -> client.remove(root, "rm"), NFS3ERR_ISDIR);
        client.remove(dir, "file");
        assertStatus(() -> client.getattr(f), NFS3ERR_STALE);
        assertStatus(() -> client.remove(dir, "file"), NFS3ERR_NOENT);
        // a file recreated under the same name gets a new handle
        byte[] again = client.create(dir, "file");
        assertThat(again).isNotEqualTo(f);
        assertStatus(() -> client.getattr(f), NFS3ERR_STALE);
        // renamed outside the server: stale, and the new name gets a new handle, not the stale one back
        Files.move(exportDir.resolve("rm/file"), exportDir.resolve("rm/moved"));
        assertStatus(() -> client.getattr(again), NFS3ERR_STALE);
        assertThat(client.lookup(dir, "moved")).isNotEqualTo(again);
        assertStatus(() -> client.getattr(again), NFS3ERR_STALE);
        client.remove(dir, "moved");
        client.rmdir(root, "rm");
        assertStatus(() -> client.getattr(dir), NFS3ERR_STALE);
        assertThat(Files.exists(exportDir.resolve("rm"))).isFalse();
    }

    @Test
    void linkMakesASecondNameOfTheSameFile() throws Exception {
        byte[] dir = client.mkdir(root, "hard");
        byte[] f = client.create(dir, "first");
        byte[] data = utf8("one file, two names");
        client.write(f, 0, data, FILE_SYNC);
        // an old mtime on the directory, so that the link's change shows whatever the clock's granularity
        Sattr3 old = new Sattr3();
        old.mtimeHow = SET_TO_CLIENT_TIME;
        old.mtime = new Nfs3Types.NfsTime(1_000_000, 0);
        Fattr3 dirBefore = client.setattr(dir, old);

        Nfs3Results.Link r = client.link(f, dir, "second");

        assertThat(r.attr.nlink).isEqualTo(2);
        assertThat(r.attr.fileid).isEqualTo(client.getattr(f).fileid);
        assertThat(r.linkDirWcc.before()).isEqualTo(dirBefore.toWcc());
        assertThat(r.linkDirWcc.after().mtime).isNotEqualTo(old.mtime);
        assertThat(r.linkDirWcc.after().ctime).isEqualTo(client.getattr(dir).ctime);
        // the second name is the same file: the same handle, bytes and link count
        byte[] second = client.lookup(dir, "second");
        assertThat(second).isEqualTo(f);
        assertThat(client.readAll(second, 4096)).isEqualTo(data);
        assertThat(client.getattr(f).nlink).isEqualTo(2);
        assertThat(Files.getAttribute(exportDir.resolve("hard/second"), "unix:nlink")).isEqualTo(2);
        assertThat(Files.isSameFile(exportDir.resolve("hard/first"), exportDir.resolve("hard/second"))).isTrue();
        assertThat(client.list(dir, true, 4096)).extracting(Entry::name, e -> e.attr().nlink, Entry::fh)
                .containsExactlyInAnyOrder(tuple("first", 2, f), tuple("second", 2, f));

        // removing the name the handle was issued under leaves the file, its handle and its other name
        client.remove(dir, "first");
        assertStatus(() -> client.lookup(dir, "first"), NFS3ERR_NOENT);
        assertThat(client.getattr(f).nlink).isEqualTo(1);
        assertThat(client.getattr(client.lookup(dir, "second")).nlink).isEqualTo(1);
        assertThat(client.readAll(f, 4096)).isEqualTo(data);
        client.remove(dir, "second");
        assertStatus(() -> client.getattr(f), NFS3ERR_STALE);
    }

    @Test
    void linkOfASymbolicLinkLinksTheLinkItself() throws Exception {
        byte[] dir = client.mkdir(root, "hardsym");
        byte[] target = "x//y/".getBytes(StandardCharsets.US_ASCII); // kept in the store: no java.nio path has it
        byte[] link = client.symlink(dir, utf8("one"), target);

        assertThat(client.link(link, dir, "two").attr.type).isEqualTo(NF3LNK);

        assertThat(Files.isSymbolicLink(exportDir.resolve("hardsym/two"))).isTrue();
        assertThat(client.getattr(client.lookup(dir, "two")).nlink).isEqualTo(2);
        // the stored target belongs to the file: it goes with its last name, not its first
        client.remove(dir, "one");
        assertThat(client.readlinkBytes(client.lookup(dir, "two"))).isEqualTo(target);
        assertThat(storeRecords()).hasSize(1);
        client.remove(dir, "two");
        assertThat(storeRecords()).isEmpty();
    }

    @Test
    void linkIsRefusedAsNfsdRefusesIt() throws IOException {
        byte[] dir = client.mkdir(root, "nolink");
        byte[] f = client.create(dir, "file");
        client.create(dir, "taken");
        // onto an existing name: NFS3ERR_EXIST, with the file's attributes and the directory's wcc data
        Nfs3Results.Link exists = new Nfs3Results.Link();
        client.callNfs(NFSPROC3_LINK, new Nfs3Args.Link(f, dir, utf8("taken")), exists);
        assertThat(exists.status).isEqualTo(NFS3ERR_EXIST);
        assertThat(exists.attr.nlink).isEqualTo(1);
        assertThat(exists.linkDirWcc.before()).isNotNull();
        assertThat(exists.linkDirWcc.after().fileid).isEqualTo(client.getattr(dir).fileid);
        // a directory: Linux's nfsd answers NFS3ERR_ISDIR (link(2) itself says EPERM)
        assertStatus(() -> client.link(dir, root, "dirlink"), NFS3ERR_ISDIR);
        // names are checked as CREATE checks them
        for (String bad : new String[] {"", ".", "..", "a/b", "nul\0byte"}) {
            assertStatus(() -> client.link(f, dir, bad), NFS3ERR_INVAL);
        }
        assertStatus(() -> client.link(f, dir, "x".repeat(NAME_MAX + 1)), NFS3ERR_NAMETOOLONG);
        assertStatus(() -> client.link(f, f, "x"), NFS3ERR_NOTDIR);
        assertStatus(() -> client.link(new byte[FileHandles.HANDLE_SIZE], dir, "x"), NFS3ERR_STALE);
        assertStatus(() -> client.link(f, new byte[5], "x"), NFS3ERR_BADHANDLE);
        // link(2)'s errors a test here cannot provoke: a name in another file system mounted inside the export,
        // and a file at its file system's link limit
        assertThat(Nfs3Service.statusOf(new FileSystemException("a", "b", "Invalid cross-device link")))
                .isEqualTo(NFS3ERR_XDEV);
        assertThat(Nfs3Service.statusOf(new FileSystemException("a", "b", "Too many links")))
                .isEqualTo(NFS3ERR_MLINK);
        assertThat(client.list(dir, false, 4096)).extracting(Entry::name).containsExactlyInAnyOrder("file", "taken");
    }

    @Test
    void namesAndHandlesCannotEscapeTheRoot() throws IOException {
        assertThat(client.lookup(root, "..")).isEqualTo(root);
        assertThat(client.lookup(root, ".")).isEqualTo(root);
        assertStatus(() -> client.lookup(root, "a/b"), NFS3ERR_INVAL);
        assertStatus(() -> client.lookup(root, "../etc"), NFS3ERR_INVAL);
        assertStatus(() -> client.create(root, ".."), NFS3ERR_INVAL);
        assertStatus(() -> client.mkdir(root, "a/b"), NFS3ERR_INVAL);
        assertStatus(() -> client.remove(root, ".."), NFS3ERR_INVAL);
        assertStatus(() -> client.rename(root, "..", root, "x"), NFS3ERR_INVAL);
        assertStatus(() -> client.create(root, "nul\0byte"), NFS3ERR_INVAL);
        assertStatus(() -> client.create(root, ""), NFS3ERR_INVAL);
        assertStatus(() -> client.create(root, "x".repeat(NAME_MAX + 1)), NFS3ERR_NAMETOOLONG);
        assertStatus(() -> client.getattr(new byte[5]), NFS3ERR_BADHANDLE);
        assertStatus(() -> client.getattr(new byte[FileHandles.HANDLE_SIZE]), NFS3ERR_STALE);
        assertThat(Files.exists(exportDir.getParent().resolve("x"))).isFalse();
    }

    @Test
    void setattrTruncatesExtendsAndChangesMode() throws IOException {
        byte[] f = client.create(root, "attrs");
        client.write(f, 0, new byte[100], FILE_SYNC);
        Sattr3 truncate = new Sattr3();
        truncate.size = 10L;
        assertThat(client.setattr(f, truncate).size).isEqualTo(10);
        assertThat(Files.size(exportDir.resolve("attrs"))).isEqualTo(10);
        Sattr3 extend = new Sattr3();
        extend.size = 5000L;
        assertThat(client.setattr(f, extend).size).isEqualTo(5000);
        assertThat(client.setattr(f, Sattr3.ofMode(0600)).mode).isEqualTo(0600);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(exportDir.resolve("attrs"))))
                .isEqualTo("rw-------");
        Sattr3 times = new Sattr3();
        times.mtimeHow = SET_TO_CLIENT_TIME;
        times.mtime = new Nfs3Types.NfsTime(1_000_000, 5);
        assertThat(client.setattr(f, times).mtime).isEqualTo(new Nfs3Types.NfsTime(1_000_000, 5));
        assertStatus(() -> client.setattr(root, truncate), NFS3ERR_ISDIR);
        Fattr3 now = client.getattr(f);
        Nfs3Results.Wcc guarded = new Nfs3Results.Wcc();
        client.callNfs(NFSPROC3_SETATTR, new Nfs3Args.Setattr(f, Sattr3.ofMode(0644),
                new Nfs3Types.NfsTime(now.ctime.seconds() - 10, 0)), guarded);
        assertThat(guarded.status).isEqualTo(NFS3ERR_NOT_SYNC);
        assertThat(client.access(f, ACCESS3_READ | ACCESS3_MODIFY)).isEqualTo(ACCESS3_READ | ACCESS3_MODIFY);
    }

    @Test
    void fsstatFsinfoPathconfAreSane() throws IOException {
        Nfs3Results.Fsinfo info = client.fsinfo(root);
        assertThat(info.rtmax).isEqualTo(MAX_IO);
        assertThat(info.wtmax).isEqualTo(MAX_IO);
        assertThat(info.dtpref).isEqualTo(DTPREF);
        assertThat(info.properties & FSF3_SYMLINK).isNotZero();
        assertThat(info.properties & FSF3_LINK).isNotZero();
        assertThat(info.rtmult).isEqualTo(info.wtmult).isEqualTo(Files.getFileStore(exportDir).getBlockSize());
        assertThat(info.timeDelta).isEqualTo(new Nfs3Types.NfsTime(1, 0));
        assertThat(info.maxfilesize).isEqualTo(Long.MAX_VALUE);
        Nfs3Results.Fsstat stat = client.fsstat(root);
        assertThat(stat.tbytes).isPositive();
        assertThat(stat.abytes).isBetween(0L, stat.tbytes);
        assertThat(stat.fbytes).isBetween(stat.abytes, stat.tbytes);
        // file slots are not visible to java.nio: 0, "no figure", as Linux reports them for btrfs
        assertThat(List.of(stat.tfiles, stat.ffiles, stat.afiles)).containsOnly(0L);
        Nfs3Results.Pathconf pc = client.pathconf(root);
        assertThat(pc.nameMax).isEqualTo(NAME_MAX);
        assertThat(pc.noTrunc).isTrue();
        assertThat(pc.casePreserving).isTrue();
        assertThat(pc.attr.type).isEqualTo(NF3DIR);
        assertThat(pc.linkmax).isEqualTo(LINK_MAX).isEqualTo(65_000);
    }

    @Test
    void attributesAreTheFileSystemsOwn() throws Exception {
        byte[] dir = client.mkdir(root, "own");
        byte[] f = client.create(dir, "file");
        client.write(f, 0, new byte[5000], FILE_SYNC);
        Path local = exportDir.resolve("own/file");
        Files.createLink(exportDir.resolve("own/hardlink"), local);
        Map<String, Object> u = Files.readAttributes(local, "unix:*", LinkOption.NOFOLLOW_LINKS);

        Fattr3 a = client.getattr(f);

        assertThat(a.type).isEqualTo(NF3REG);
        assertThat(a.fileid).isEqualTo(u.get("ino"));
        assertThat(a.fsid).isEqualTo(u.get("dev"));
        assertThat(a.nlink).isEqualTo(2).isEqualTo(u.get("nlink"));
        assertThat(a.uid).isEqualTo(u.get("uid"));
        assertThat(a.gid).isEqualTo(u.get("gid"));
        assertThat(a.mode).isEqualTo((Integer) u.get("mode") & 07777);
        assertThat(a.size).isEqualTo(5000);
        assertThat(a.used).isEqualTo(5000);
        assertThat(a.mtime.toNanos()).isEqualTo(((FileTime) u.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS));
        assertThat(a.ctime.toNanos()).isEqualTo(((FileTime) u.get("ctime")).to(TimeUnit.NANOSECONDS));
        // a second name of the same file, made outside the server: the same handle, the same fileid
        byte[] hard = client.lookup(dir, "hardlink");
        assertThat(hard).isEqualTo(f);
        assertThat(client.getattr(hard).fileid).isEqualTo(a.fileid);
        // READDIR's fileids are inode numbers too, "." and ".." included
        Nfs3Results.Readdir listing = client.readdir(dir, false, 0, 0, 4096, 0);
        assertThat(listing.entries).extracting(Entry::name, Entry::fileid).containsExactlyInAnyOrder(
                tuple(".", Files.getAttribute(exportDir.resolve("own"), "unix:ino")),
                tuple("..", Files.getAttribute(exportDir, "unix:ino")),
                tuple("file", u.get("ino")),
                tuple("hardlink", u.get("ino")));
        assertThat(client.getattr(root).fileid).isEqualTo(Files.getAttribute(exportDir, "unix:ino"));
    }

    @Test
    void offsetsPastWhatJavaCanAddressAreFbig() throws IOException {
        byte[] f = client.create(root, "far");
        assertStatus(() -> client.write(f, Long.MIN_VALUE, new byte[1], FILE_SYNC), NFS3ERR_FBIG);
        assertStatus(() -> client.write(f, Long.MAX_VALUE, new byte[2], FILE_SYNC), NFS3ERR_FBIG);
        Sattr3 huge = new Sattr3();
        huge.size = Long.MIN_VALUE; // 2^63 as size3
        assertStatus(() -> client.setattr(f, huge), NFS3ERR_FBIG);
        Nfs3Results.Read r = client.read(f, Long.MIN_VALUE, 10);
        assertThat(r.count).isZero();
        assertThat(r.eof).isTrue();
        assertThat(client.getattr(f).size).isZero();
    }

    @Test
    void commitVerifierIsStable() throws IOException {
        byte[] f = client.create(root, "commit");
        Nfs3Results.Write w = client.write(f, 0, new byte[] {7}, UNSTABLE);
        assertThat(w.committed).isEqualTo(UNSTABLE);
        assertThat(client.commit(f)).isEqualTo(w.verf).isEqualTo(service.writeVerifier());
        assertThat(client.write(f, 1, new byte[] {8}, FILE_SYNC).verf).isEqualTo(w.verf);
        assertThat(client.commit(f)).isEqualTo(w.verf);
    }

    @Test
    void unknownProcedureAndGarbageArguments() {
        assertThatThrownBy(() -> client.callNfs(99, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID))
                .isInstanceOf(OncRpcAcceptedException.class).hasMessageContaining("PROC_UNAVAIL");
        assertThatThrownBy(() -> client.callNfs(NFSPROC3_GETATTR, new Nfs3Args.Fh(new byte[100]),
                new Nfs3Results.Getattr())).isInstanceOf(OncRpcAcceptedException.class)
                .hasMessageContaining("GARBAGE");
        assertThat(Nfs3.statusName(NFS3ERR_STALE)).isEqualTo("NFS3ERR_STALE");
    }
}
