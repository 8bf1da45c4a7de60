package org.rpcrdma4j.testbed.bench;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds a peer tool (fi_pingpong, ibv_rc_pingpong) as a shell would. */
final class Executables {

    private Executables() {
    }

    /**
     * @param command a path, or a name looked up on {@code PATH}
     * @return the executable, if it is there
     */
    static Optional<Path> find(String command) {
        if (command.contains(File.separator)) {
            Path path = Path.of(command);
            return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
        }
        String searched = System.getenv("PATH");
        if (searched == null) {
            return Optional.empty();
        }
        for (String dir : searched.split(File.pathSeparator)) {
            Path path = Path.of(dir.isEmpty() ? "." : dir, command);
            if (Files.isExecutable(path)) {
                return Optional.of(path);
            }
        }
        return Optional.empty();
    }
}
