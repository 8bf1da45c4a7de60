package org.rpcrdma4j.testbed.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Byte-exact local names and link targets on Java 17 (checked against readlink(1) and the shell, not java.nio). */
class PathBytesTest {

    @TempDir
    Path dir;

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Runs {@code sh -c script} with {@code args} as $1...; returns stdout's bytes. */
    private static byte[] sh(String script, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("sh", "-c", script, "sh"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor()).as(new String(out)).isZero();
        return out;
    }

    @Test
    void everyByteButSlashAndNulRoundTripsInANameOnDisk() throws Exception {
        Set<String> expected = new HashSet<>();
        for (int b = 1; b < 256; b++) {
            if (b != '/') {
                byte[] name = {'n', (byte) b, (byte) b};
                Files.createFile(PathBytes.child(dir, name));
                expected.add(HexFormat.of().formatHex(name));
            }
        }
        Set<String> listed = new HashSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                listed.add(HexFormat.of().formatHex(PathBytes.nameOf(p)));
            }
        }
        assertThat(listed).isEqualTo(expected);
        // the shell's glob hands each name over as the kernel holds it
        String hex = new String(sh("cd \"$1\" && printf '%s\\0' n* | od -An -v -tx1 | tr -d ' \\n'",
                dir.toString()), StandardCharsets.US_ASCII);
        Set<String> globbed = new HashSet<>();
        for (int from = 0, to; from < hex.length(); from = to + 2) {
            to = from;
            while (!hex.startsWith("00", to)) {
                to += 2;
            }
            globbed.add(hex.substring(from, to));
        }
        assertThat(globbed).isEqualTo(expected);
    }

    @Test
    void targetsWithoutRepeatedOrTrailingSlashesAreWrittenExactly() throws Exception {
        byte[][] targets = {
            ascii("/"), ascii("/abs/./x"), ascii("../../etc/passwd"), ascii("."), ascii("a b%20c?#"),
            {'.', '.', '/', (byte) 0xFF, (byte) 0xFE, '/', (byte) 0xC3, (byte) 0x28}, ascii("p".repeat(4000)),
        };
        for (byte[] target : targets) {
            Path link = dir.resolve("link");
            Files.createSymbolicLink(link, PathBytes.pathOf(target));
            assertThat(sh("readlink -n -- \"$1\"", link.toString())).isEqualTo(target);
            assertThat(PathBytes.bytesOf(Files.readSymbolicLink(link))).isEqualTo(target);
            Files.delete(link);
        }
    }

    @Test
    void targetsJavaNioCannotWriteHaveNoPathAndANearestForm() {
        assertThat(PathBytes.pathOf(ascii("a//b"))).isNull();
        assertThat(PathBytes.pathOf(ascii("a/"))).isNull();
        assertThat(PathBytes.pathOf(ascii("//"))).isNull();
        assertThat(PathBytes.pathOf(new byte[0])).isNull();
        assertThat(PathBytes.pathOf(new byte[] {'a', 0})).isNull();
        assertThat(PathBytes.nearest(ascii("../a//b/./c/"))).isEqualTo(ascii("../a/b/./c"));
        assertThat(PathBytes.nearest(ascii("///"))).isEqualTo(ascii("/"));
        assertThat(PathBytes.nearest(ascii("//x//"))).isEqualTo(ascii("/x"));
    }

    @Test
    void bytesOfReadsRawTargetsMadeOutsideJava() throws Exception {
        Path link = dir.resolve("raw");
        sh("ln -s -- \"$(printf '../d//\\377/')\" \"$1\"", link.toString());
        assertThat(PathBytes.bytesOf(Files.readSymbolicLink(link)))
                .isEqualTo(new byte[] {'.', '.', '/', 'd', '/', '/', (byte) 0xFF, '/'});
        // a target naming an existing directory: toUri's added '/' is taken off again
        Files.createDirectory(dir.resolve("sub"));
        Path toDir = dir.resolve("todir");
        sh("ln -s sub \"$1\"", toDir.toString());
        assertThat(PathBytes.bytesOf(Files.readSymbolicLink(toDir))).isEqualTo(ascii("sub"));
        assertThat(PathBytes.bytesOf(dir.getFileSystem().getPath("/"))).isEqualTo(ascii("/"));
    }
}
