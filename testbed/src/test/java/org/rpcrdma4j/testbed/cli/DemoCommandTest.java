package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rpcrdma4j.testbed.Main;

/**
 * The README's demo runs to the end with every check passing, says that it is simulated, reports large files in
 * MiB/s and small ones as time per call, and what moved how, on each device profile; off a terminal it draws no
 * progress.
 */
class DemoCommandTest {

    /** {@code seq -f 'entry_with_a_longish_name_%04g' 0 1999 | LC_ALL=C sort | sha256sum}, what the rig checks. */
    private static final String NAMES_SHA256 = "dc9621c57758f13213cd89e8fd3428920eaf870afb91f5dd970b798abf5f594e";

    /**
     * On each device profile every file comes back byte for byte (its SHA-256), and the subprotocols line names
     * what carried the server's RDMA Reads and Writes: direct RDMA, or the emulation of what the device lacks.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "read-write | RDMA Reads direct [1-9]\\d*; RDMA Writes direct [1-9]\\d*",
        "read       | RDMA Reads direct [1-9]\\d*; RDMA Writes emulated .*LONGREAD_RTW [1-9]\\d*",
        "none       | RDMA Reads emulated .*LONGCTS_RTR [1-9]\\d*; RDMA Writes emulated .*LONGCTS_RTW [1-9]\\d*"
    })
    void everyCheckPassesAndTheChunksAreReported(String profile, String subprotocols) {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out))
                .execute("demo", "--seed", "3", "--device-profile", profile);

        assertThat(exit).isZero();
        assertThat(out.toString().lines().findFirst()).hasValueSatisfying(first -> assertThat(first)
                .contains("on the sim fabric (EFA RDM endpoints on the simulated EFA device"));
        assertThat(out.toString())
                .containsPattern("server fe80::\\p{XDigit}+ #7, client fe80::\\p{XDigit}+ #7")
                .contains("large files, 16 calls of 1 MiB in flight")
                .containsPattern("  64 MiB +WRITE +\\d+\\.\\d MiB/s +COMMIT +\\d+\\.\\d ms +READ +\\d+\\.\\d MiB/s +"
                        + "sha256 \\p{XDigit}{16} ok")
                .containsPattern("  20 x 1 KiB +WRITE +\\d+\\.\\d us +COMMIT +\\d+\\.\\d us +READ +\\d+\\.\\d us +"
                        + "sha256 20 of 20 ok")
                .doesNotContain("MISMATCH")
                .doesNotContain("\r")
                .containsPattern("bigdir: 2000 entries created in \\d+\\.\\d s, READDIRPLUS listed 2000 ok in "
                        + "\\d+\\.\\d s, names sha256 " + NAMES_SHA256)
                .containsPattern("link: a 4000-byte symbolic link target, 4000 bytes read back, sha256 \\p{XDigit}{64} ok")
                .containsPattern("removed: 2065 entries and rpcrdma4j-demo in \\d+\\.\\d s; the export's root holds 0 "
                        + "entries")
                .containsPattern("calls: +inline \\d+, Read chunks [1-9]\\d*, Position-zero \\d+; provided Write chunks [1-9]")
                .containsPattern("replies: inline \\d+, data in Write chunks [1-9]\\d*, whole in Reply chunks [1-9]")
                .containsPattern("  server: fabric: \\d+ connections, .*EAGER_MESSAGES_SENT=[1-9].*BYTES_COPIED=[1-9]")
                .containsPattern("(?m)^  EFA subprotocols at the server: " + subprotocols + "$")
                .endsWith("all checks passed" + System.lineSeparator());
        if (profile.equals("read-write")) {
            assertThat(out.toString()).doesNotContain("emulated");
        }
    }


    @Test
    void givenFilesAndLinkTargetComeBackWithTheirWholeSha256(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("file-3KiB"), new byte[3072]);
        Path target = Files.writeString(dir.resolve("target"), "x/".repeat(50));
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out))
                .execute("demo", "--files", file.toString(), "--link-target", target.toString());

        assertThat(exit).isZero();
        // sha256sum of 3,072 zero bytes and of the 100-byte target
        assertThat(out.toString())
                .containsPattern("  file-3KiB +3 KiB WRITE .* sha256 "
                        + "e80232b4d18d0bb7e794be263ba937626f383f9917d4b8a737ba893a8f752293 ok")
                .contains("link: a 100-byte symbolic link target, 100 bytes read back, sha256 ")
                .containsPattern("removed: 2003 entries and rpcrdma4j-demo in \\d+\\.\\d s; the export's root holds 0 "
                        + "entries")
                .doesNotContain("large files");
    }

    @Test
    void theSoakMovesWhatItIsAskedAndChecksEveryByte() {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("demo", "--soak", "256M");

        assertThat(exit).isZero();
        assertThat(out.toString())
                .contains("soak: 256 MiB through NFS WRITE and READ of a 64 MiB file, 16 calls of 1 MiB in flight")
                .containsPattern("  pass 2: 256 MiB moved in \\d+\\.\\d s, \\d+\\.\\d MiB/s, 0 bytes corrupted, 0 lost")
                .containsPattern("soak: 256 MiB moved in .*, 0 bytes corrupted, 0 lost; heap used after GC .* ok")
                .doesNotContain("pass 3")
                .endsWith("all checks passed" + System.lineSeparator());
    }

    @Test
    void aSoakSizeMustBeAPositiveSizeAndTheSoakMovesNoGivenFiles(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("file"), new byte[16]);
        StringWriter err = new StringWriter();

        int zero = Main.commandLine().setErr(new PrintWriter(err)).execute("demo", "--soak", "0");
        int words = Main.commandLine().setErr(new PrintWriter(err)).execute("demo", "--soak", "much");
        int withFiles = Main.commandLine().setErr(new PrintWriter(err))
                .execute("demo", "--soak", "1G", "--files", file.toString());

        assertThat(List.of(zero, words, withFiles)).containsOnly(2);
        assertThat(err.toString()).contains("--soak 0: not a positive size such as 10G")
                .contains("--soak much: not a positive size such as 10G")
                .contains("--soak moves a file of its own: no --files or --link-target");
    }

    @Test
    void aFabricIsFoundByNameAndTheSimulatedOneCannotBeReachedFromOutside() {
        StringWriter err = new StringWriter();

        // the verbs fabric's module is not on the testbed's test class path
        int noModule = Main.commandLine().setErr(new PrintWriter(err))
                .execute("demo", "--fabric", "verbs", "--server", "127.0.0.1");
        int serverOnSim = Main.commandLine().setErr(new PrintWriter(err)).execute("demo", "--server", "10.0.0.1");

        assertThat(noModule).isEqualTo(1);
        assertThat(serverOnSim).isEqualTo(2);
        assertThat(err.toString()).contains("testbed demo: no fabric named verbs is here; found: sim, udp")
                .contains("--server with --fabric sim: a simulated fabric's listener is reached from this JVM only");
    }

    @Test
    void fabricsListsTheFabricsFound() {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("fabrics");

        assertThat(exit).isZero();
        assertThat(out.toString()).isEqualTo(String.format("sim      EFA RDM endpoints on the simulated EFA device, "
                + "reachable from this JVM only%nudp      EFA RDM endpoints on the UDP device, between processes and "
                + "hosts over UDP%n"));
    }
}
