package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.rpcrdma4j.testbed.nfs.FileHandles;

/**
 * The files {@code bench rpc}'s NFS service serves: a new temporary directory holding the file READs read,
 * {@value #FILE_SIZE} bytes of {@link #content()}, and a directory of {@value #DIR_ENTRIES} empty files; deleted
 * with all that was created in it on {@link #close}. The peer process of a bench between two processes makes the
 * same export, so that the client checks its replies the same way.
 */
final class BenchExport implements AutoCloseable {

    /** Bytes in the file READs read. */
    static final int FILE_SIZE = 1 << 20;
    /** Files in the directory READDIRPLUS lists. */
    static final int DIR_ENTRIES = 20;
    /** Room for every handle the workloads hold at once: the files, the directory and its entries, the new names. */
    private static final int MAX_HANDLES = 4096;

    private final Path root;
    private final FileHandles handles;

    private BenchExport(Path root, FileHandles handles) {
        this.root = root;
        this.handles = handles;
    }

    /**
     * @return a new export, its files written
     * @throws IOException if they cannot be
     */
    static BenchExport create() throws IOException {
        Path root = Files.createTempDirectory("rpcrdma4j-bench");
        try {
            Files.write(root.resolve("read"), content());
            Path dir = Files.createDirectory(root.resolve("dir"));
            for (int i = 0; i < DIR_ENTRIES; i++) {
                Files.createFile(dir.resolve("f" + i));
            }
            return new BenchExport(root, new FileHandles(root, MAX_HANDLES));
        } catch (IOException | RuntimeException e) {
            deleteTree(root);
            throw e;
        }
    }

    /** @return the bytes of the file READs read, the same in every process */
    static byte[] content() {
        byte[] content = new byte[FILE_SIZE];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 131 + (i >>> 8));
        }
        return content;
    }

    /** @return the handles of the export's files, for the services */
    FileHandles handles() {
        return handles;
    }

    @Override
    public void close() throws IOException {
        deleteTree(root);
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
