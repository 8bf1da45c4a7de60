package org.rpcrdma4j.testbed.demo;

import java.io.IOException;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;

/** What the demo does on a mounted export: {@link NfsWorkload}, or the long run of {@link NfsSoak}. */
public interface MountedWorkload {

    /**
     * Runs under {@code root}.
     *
     * @param client the mounted client
     * @param root   the export's root handle
     * @return whether every check passed
     * @throws IOException          if a call fails
     * @throws InterruptedException if interrupted while calls are in flight
     */
    boolean run(Nfs3Client client, byte[] root) throws IOException, InterruptedException;
}
