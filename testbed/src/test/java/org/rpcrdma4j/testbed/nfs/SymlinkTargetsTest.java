package org.rpcrdma4j.testbed.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The side store of link targets that java.nio cannot write exactly. */
class SymlinkTargetsTest {

    @TempDir
    Path dir;

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private Path recordOf(Path link) throws Exception {
        Map<String, Object> id = Files.readAttributes(link, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
        return dir.resolve("store")
                .resolve(Long.toHexString((Long) id.get("dev")) + "-" + Long.toHexString((Long) id.get("ino")));
    }

    @Test
    void aTargetWrittenExactlyNeedsNoRecord() throws Exception {
        SymlinkTargets targets = new SymlinkTargets(dir.resolve("store"));
        Path link = dir.resolve("link");
        targets.create(link, ascii("../x/./y"));
        assertThat(targets.read(link)).isEqualTo(ascii("../x/./y"));
        assertThat(targets.size(link, 8)).isEqualTo(8);
        assertThat(dir.resolve("store")).doesNotExist();
    }

    @Test
    void aTargetWithRepeatedSlashesIsRecordedAndReadBack() throws Exception {
        SymlinkTargets targets = new SymlinkTargets(dir.resolve("store"));
        Path link = dir.resolve("link");
        targets.create(link, ascii("../a//b/./c/"));
        assertThat(Files.readSymbolicLink(link).toString()).isEqualTo("../a/b/./c");
        assertThat(Files.readAllBytes(recordOf(link))).isEqualTo(ascii("../a//b/./c/"));
        assertThat(new SymlinkTargets(dir.resolve("store")).read(link)).isEqualTo(ascii("../a//b/./c/"));
        assertThat(targets.size(link, 10)).isEqualTo(12);
    }

    @Test
    void aRecordThatNoLongerDescribesItsLinkIsDropped() throws Exception {
        // as if the recorded link had been deleted locally and its inode reused by a link to "elsewhere"
        SymlinkTargets targets = new SymlinkTargets(dir.resolve("store"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), Path.of("elsewhere"));
        Files.createDirectories(dir.resolve("store"));
        Files.write(recordOf(link), ascii("x//y/"));
        assertThat(targets.read(link)).isEqualTo(ascii("elsewhere"));
        assertThat(recordOf(link)).doesNotExist();
    }

    @Test
    void aStoreThatCannotBeWrittenLeavesNoLinkBehind() throws Exception {
        Files.createFile(dir.resolve("store")); // a file where the directory should be
        SymlinkTargets targets = new SymlinkTargets(dir.resolve("store"));
        Path link = dir.resolve("link");
        assertThatThrownBy(() -> targets.create(link, ascii("a//b")))
                .isInstanceOfSatisfying(Nfs3Exception.class, e -> assertThat(e.status()).isEqualTo(Nfs3.NFS3ERR_IO));
        assertThat(Files.exists(link, LinkOption.NOFOLLOW_LINKS)).isFalse();
    }
}
