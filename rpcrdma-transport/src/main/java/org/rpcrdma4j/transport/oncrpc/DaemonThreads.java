package org.rpcrdma4j.transport.oncrpc;

import java.util.concurrent.ThreadFactory;

/** The threads of the service's and the client's own executors: named, and daemons, so that they never keep a JVM alive. */
final class DaemonThreads {

    private DaemonThreads() {
    }

    /**
     * @param name every thread's name
     * @return a factory of daemon threads of that name
     */
    static ThreadFactory named(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
