package org.rpcrdma4j.testbed.nfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Map;

/**
 * Symbolic links made through SYMLINK, each read back by READLINK byte for byte (RFC 1813 section 3.3.10: the
 * server stores {@code nfspath3} without interpreting it).
 *
 * <p><b>Design.</b> Every link is a real symbolic link on disk, for local users as for NFS clients. java.nio writes
 * a target exactly whenever {@link PathBytes#pathOf} can make a path of it: any bytes, UTF-8 or not, without a
 * repeated {@code '/'} or a trailing {@code '/'}. A target with those is written in its {@linkplain
 * PathBytes#nearest nearest form} (slashes collapsed, trailing slash dropped), which a local path walk resolves to the
 * same file (POSIX reads consecutive slashes as one; only a trailing slash adds "must be a directory"), and its exact
 * bytes go to a side store: a directory holding one file per such link, named by the link's device and inode
 * numbers and holding the target. Keyed by inode, a record follows its link through renames, local ones included,
 * and outlives the service; it is kept off the export, so clients see no extra names. A record counts only while
 * the link on disk holds the nearest form of the recorded bytes; otherwise the link was replaced outside the server
 * and the record is deleted. Links made outside the server are read with readlink(2)'s bytes unchanged.
 *
 * <p><b>Limits.</b> Linking the bytes to the inode rather than to the link itself (Linux allows no user extended
 * attributes on symbolic links) means: a link deleted locally leaves its record until a link with the same inode
 * number is read; should that new link hold the same nearest form, the recorded bytes are read back for it; a copy
 * of the export (new inode numbers) keeps the nearest forms only.
 */
public final class SymlinkTargets {

    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

    private final Path store;

    /** @param store the directory of the records, created when the first record is written */
    public SymlinkTargets(Path store) {
        this.store = store;
    }

    /**
     * The store of this user, shared by every export on the machine (records are keyed by device and inode):
     * {@code $XDG_STATE_HOME/rpcrdma4j/symlink-targets}, by default under {@code ~/.local/state}.
     */
    public static SymlinkTargets ofUser() {
        String state = System.getenv("XDG_STATE_HOME");
        Path base = state != null && !state.isEmpty() ? Path.of(state)
                : Path.of(System.getProperty("user.home"), ".local", "state");
        return new SymlinkTargets(base.resolve("rpcrdma4j").resolve("symlink-targets"));
    }

    /**
     * Makes {@code link} a symbolic link to {@code target}.
     *
     * @param target non-empty, without NUL (the caller checks)
     */
    void create(Path link, byte[] target) throws IOException {
        Path exact = PathBytes.pathOf(target);
        if (exact != null) {
            Files.createSymbolicLink(link, exact);
            return;
        }
        Files.createSymbolicLink(link, PathBytes.pathOf(PathBytes.nearest(target)));
        try {
            Files.createDirectories(store);
            Path tmp = Files.createTempFile(store, "new-", "");
            Files.write(tmp, target);
            Files.move(tmp, record(link), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            Files.deleteIfExists(link);
            throw new Nfs3Exception(Nfs3.NFS3ERR_IO, "SYMLINK target store " + store + ": " + e);
        }
    }

    /** The target of the symbolic link {@code link}, byte for byte. */
    byte[] read(Path link) throws IOException {
        byte[] onDisk = PathBytes.bytesOf(Files.readSymbolicLink(link));
        Path record = record(link);
        byte[] recorded;
        try {
            recorded = Files.readAllBytes(record);
        } catch (NoSuchFileException e) {
            return onDisk;
        }
        if (Arrays.equals(PathBytes.nearest(recorded), onDisk)) {
            return recorded;
        }
        Files.deleteIfExists(record);
        return onDisk;
    }

    /** The length of {@code link}'s target, given its size on disk (the fattr3 size of a link, section 2.6). */
    long size(Path link, long sizeOnDisk) throws IOException {
        return Files.exists(record(link), NOFOLLOW) ? read(link).length : sizeOnDisk;
    }

    /**
     * Drops the record of the link with device {@code dev} and inode {@code ino}, which lost its last name. The
     * operation that removed the link has succeeded: a record that cannot be deleted now stays until it is found
     * stale.
     */
    void forget(long dev, long ino) {
        try {
            Files.deleteIfExists(record(dev, ino));
        } catch (IOException e) {
            // left for read() to drop: it no longer matches any link once its inode is reused
        }
    }

    private Path record(Path link) throws IOException {
        Map<String, Object> id = Files.readAttributes(link, "unix:dev,ino", NOFOLLOW);
        return record((Long) id.get("dev"), (Long) id.get("ino"));
    }

    private Path record(long dev, long ino) {
        return store.resolve(Long.toHexString(dev) + "-" + Long.toHexString(ino));
    }
}
