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
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Opaque, stable NFSv3 file handles (RFC 1813 section 2.4 {@code nfs_fh3}) for the files under one export root.
 *
 * <p>A handle is 16 bytes: an 8-byte generation drawn at random per instance (handles of another instance are
 * {@code NFS3ERR_STALE}) and an 8-byte id, which is not the {@code fileid3} (that is the inode number). Ids are kept
 * in a bounded, least recently used map from id to (path, {@link BasicFileAttributes#fileKey() file key}); a handle
 * whose id was evicted or forgotten, or whose path now holds a different file, is {@code NFS3ERR_STALE}; a handle
 * of the wrong size is {@code NFS3ERR_BADHANDLE}. Renames done through the service keep handles valid. Every path
 * in the map was built from the root by appending checked names, so a handle never resolves outside the export root.
 */
public final class FileHandles {

    /** Size of the handles this class issues. */
    public static final int HANDLE_SIZE = 16;

    private static final long ROOT_ID = 1;
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

    private record Node(Path path, Object fileKey) {
    }

    private final Path root;
    private final Object rootKey;
    private final long generation = new SecureRandom().nextLong();
    private final int maxEntries;
    private final LinkedHashMap<Long, Node> byId;
    private final Map<Path, Long> byPath = new HashMap<>();
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
        this.rootKey = Files.readAttributes(this.root, BasicFileAttributes.class).fileKey();
        this.maxEntries = maxEntries;
        this.byId = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Node> eldest) {
                if (size() > FileHandles.this.maxEntries) {
                    byPath.remove(eldest.getValue().path());
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

    /** The handle id of a path under the root, allocating one if needed. */
    public synchronized long idOf(Path path) throws IOException {
        if (path.equals(root)) {
            return ROOT_ID;
        }
        Long id = byPath.get(path);
        Object key = Files.readAttributes(path, BasicFileAttributes.class, NOFOLLOW).fileKey();
        if (id != null) {
            Node node = byId.get(id);
            if (node != null && Objects.equals(node.fileKey(), key)) {
                return id;
            }
            byId.remove(id);
        }
        long fresh = nextId++;
        byId.put(fresh, new Node(path, key));
        byPath.put(path, fresh);
        return fresh;
    }

    /** The handle of a path under the root, allocating one if needed. */
    public byte[] handleOf(Path path) throws IOException {
        return encode(idOf(path));
    }

    /**
     * Resolves a handle to its path.
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
        Node node;
        if (id == ROOT_ID) {
            node = new Node(root, rootKey);
        } else {
            synchronized (this) {
                node = byId.get(id);
            }
        }
        if (node == null || !sameFile(node)) {
            throw new Nfs3Exception(Nfs3.NFS3ERR_STALE, "file handle");
        }
        return node.path();
    }

    private static boolean sameFile(Node node) {
        try {
            Object key = Files.readAttributes(node.path(), BasicFileAttributes.class, NOFOLLOW).fileKey();
            return Objects.equals(key, node.fileKey());
        } catch (IOException e) {
            return false;
        }
    }

    /** Forgets a removed path: its handle becomes stale. */
    public synchronized void forget(Path path) {
        Long id = byPath.remove(path);
        if (id != null) {
            byId.remove(id);
        }
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
            Path q = to.resolve(from.relativize(p));
            Node old = byId.get(id);
            byId.put(id, new Node(q, old == null ? null : old.fileKey()));
            byPath.put(q, id);
        }
    }

    private byte[] encode(long id) {
        return ByteBuffer.allocate(HANDLE_SIZE).putLong(generation).putLong(id).array();
    }
}
