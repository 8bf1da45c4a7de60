package org.rpcrdma4j.testbed.nfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Opaque, stable NFSv3 file handles (RFC 1813 section 2.4 {@code nfs_fh3}) for the files under one export root.
 *
 * <p>A handle is 16 bytes: an 8-byte generation drawn at random per instance (handles of another instance are
 * {@code NFS3ERR_STALE}) and an 8-byte id, which is not the {@code fileid3} (that is the inode number). Ids are kept
 * in a bounded, least recently used map from id to a {@link BasicFileAttributes#fileKey() file key} and the paths
 * the file has been seen under; a handle whose id was evicted or forgotten, or none of whose paths still holds that
 * file, is {@code NFS3ERR_STALE}; a handle of the wrong size is {@code NFS3ERR_BADHANDLE}. Renames done through the
 * service keep handles valid. Every path in the map was built from the root by appending checked names, so a handle
 * never resolves outside the export root.
 *
 * <p><b>Hard links.</b> Handles resolve to paths, but a handle names a file, as Linux's nfsd's handles name inodes:
 * every name of a file (same file key) gets the file's one id. A client that binds a new link to the handle it
 * linked (Linux's does) and one that looks the new name up hold the same handle, and removing one name leaves the
 * handle valid through the others; were ids per path, the handle a client holds for the file would go stale with the
 * name it was issued under. Only the names the service has seen count: those made or looked up through it.
 */
public final class FileHandles {

    /** Size of the handles this class issues. */
    public static final int HANDLE_SIZE = 16;

    private static final long ROOT_ID = 1;
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

    /** A file and the paths it has been seen under, oldest first (several when it has hard links). */
    private record Node(Object fileKey, Set<Path> paths) {
    }

    private final Path root;
    private final Object rootKey;
    private final long generation = new SecureRandom().nextLong();
    private final int maxEntries;
    private final LinkedHashMap<Long, Node> byId;
    private final Map<Path, Long> byPath = new HashMap<>();
    private final Map<Object, Long> byKey = new HashMap<>();
    private long nextId = ROOT_ID + 1;

    /**
     * @param root the export root, an existing directory (its real path is used)
     * @param maxEntries how many handles to remember besides the root before the least recently used go stale
     */
    public FileHandles(Path root, int maxEntries) throws IOException {
        this.root = root.toRealPath();
        if (!Files.isDirectory(this.root)) {
            throw new IOException("not a directory: " + root);
        }
        this.rootKey = fileKey(this.root);
        this.maxEntries = maxEntries;
        this.byId = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Node> eldest) {
                if (size() > FileHandles.this.maxEntries) {
                    unindex(eldest.getKey(), eldest.getValue());
                    return true;
                }
                return false;
            }
        };
    }

    /** The export root (a real path). */
    public Path root() {
        return root;
    }

    /** The handle of the export root. */
    public byte[] rootHandle() {
        return encode(ROOT_ID);
    }

    /** The handle id of a path under the root: the id of its file if known under another name, else a new one. */
    public synchronized long idOf(Path path) throws IOException {
        if (path.equals(root)) {
            return ROOT_ID;
        }
        Object key = fileKey(path);
        Long id = byPath.get(path);
        if (id != null) {
            if (Objects.equals(byId.get(id).fileKey(), key)) {
                return id;
            }
            forget(path); // the path now holds another file
        }
        id = key == null ? null : byKey.get(key);
        Node node = id == null ? null : byId.get(id);
        if (node == null || node.paths().stream().noneMatch(p -> holds(p, key))) {
            if (node != null) {
                // none of its names holds the file: it was renamed or removed outside the service (its inode number
                // perhaps reused by another file), and its handle is stale; reviving it could hand out another file
                byId.remove(id);
                unindex(id, node);
            }
            id = nextId++;
            node = new Node(key, new LinkedHashSet<>());
            byId.put(id, node);
            if (key != null) {
                byKey.put(key, id);
            }
        }
        node.paths().add(path);
        byPath.put(path, id);
        return id;
    }

    /** The handle of a path under the root, allocating one if needed. */
    public byte[] handleOf(Path path) throws IOException {
        return encode(idOf(path));
    }

    /**
     * Resolves a handle to a path of its file.
     *
     * @throws Nfs3Exception {@code NFS3ERR_BADHANDLE} for a malformed handle, {@code NFS3ERR_STALE} for one that no
     *     longer designates the file it was issued for
     */
    public Path resolve(byte[] fh) throws Nfs3Exception {
        if (fh == null || fh.length != HANDLE_SIZE) {
            throw new Nfs3Exception(Nfs3.NFS3ERR_BADHANDLE, "file handle");
        }
        ByteBuffer b = ByteBuffer.wrap(fh);
        if (b.getLong() != generation) {
            throw new Nfs3Exception(Nfs3.NFS3ERR_STALE, "file handle");
        }
        long id = b.getLong();
        Object key;
        List<Path> paths;
        if (id == ROOT_ID) {
            key = rootKey;
            paths = List.of(root);
        } else {
            synchronized (this) {
                Node node = byId.get(id);
                if (node == null) {
                    throw new Nfs3Exception(Nfs3.NFS3ERR_STALE, "file handle");
                }
                key = node.fileKey();
                paths = List.copyOf(node.paths());
            }
        }
        for (Path p : paths) {
            if (holds(p, key)) {
                return p;
            }
        }
        throw new Nfs3Exception(Nfs3.NFS3ERR_STALE, "file handle");
    }

    private static Object fileKey(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class, NOFOLLOW).fileKey();
    }

    private static boolean holds(Path path, Object key) {
        try {
            return Objects.equals(fileKey(path), key);
        } catch (IOException e) {
            return false;
        }
    }

    /** Forgets a removed path: its file's handle stays valid through its other names and goes stale with the last. */
    public synchronized void forget(Path path) {
        Long id = byPath.remove(path);
        if (id != null) {
            Node node = byId.get(id);
            node.paths().remove(path);
            if (node.paths().isEmpty()) {
                byId.remove(id);
                unindex(id, node);
            }
        }
    }

    /** Drops the path and key entries of a node taken out of {@link #byId}. */
    private void unindex(long id, Node node) {
        for (Path p : node.paths()) {
            byPath.remove(p, id);
        }
        byKey.remove(node.fileKey(), id);
    }

    /** Moves the handles of {@code from} and everything below it to {@code to} after a rename. */
    public synchronized void renamed(Path from, Path to) {
        forget(to);
        List<Path> moved = new ArrayList<>();
        for (Path p : byPath.keySet()) {
            if (p.startsWith(from)) {
                moved.add(p);
            }
        }
        for (Path p : moved) {
            long id = byPath.remove(p);
            Set<Path> paths = byId.get(id).paths();
            Path q = to.resolve(from.relativize(p));
            paths.remove(p);
            paths.add(q);
            byPath.put(q, id);
        }
    }

    private byte[] encode(long id) {
        return ByteBuffer.allocate(HANDLE_SIZE).putLong(generation).putLong(id).array();
    }
}
