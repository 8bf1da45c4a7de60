package org.rpcrdma4j.fabric.efa.stack;

import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;

/** A test of a service and a client on a {@link SimHarness}: whichever of them a test started ends after it. */
abstract class SimTest {

    final SimHarness sim;
    RdmaRpcSvc svc;
    RdmaRpcClient client;

    /** @param seed the seed of the simulated network */
    SimTest(long seed) {
        sim = new SimHarness(seed);
    }

    /** Lets go of whatever the test's program holds back, before the client and the service end. */
    void release() {
    }

    @AfterEach
    final void closeAll() throws IOException {
        release();
        sim.close(client, svc);
    }
}
