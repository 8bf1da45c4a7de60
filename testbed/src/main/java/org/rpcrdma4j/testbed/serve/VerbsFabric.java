package org.rpcrdma4j.testbed.serve;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import org.rpcrdma4j.transport.Fabric;

/**
 * Opens the RC fabric of the {@code verbs} module, found at run time: the testbed is built for Java 17
 * and the verbs module needs JDK 22 or newer (the FFM API), so the testbed does not link to it.
 */
public final class VerbsFabric {

    static final String FABRIC_CLASS = "org.rpcrdma4j.verbs.rc.RcFabric";
    private static final int FFM_FEATURE = 22;

    private VerbsFabric() {
    }

    /** Why the verbs fabric cannot be opened in this JVM; the message says what to do. */
    public static final class UnavailableException extends Exception {
        private static final long serialVersionUID = 1L;

        UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * @param bind the address of an RDMA device and the port to listen on
     * @return an open {@code RcFabric}, also {@link AutoCloseable}
     * @throws UnavailableException if this JVM is older than 22 or the verbs jar is not on the class path
     * @throws Exception            what {@code RcFabric.open} throws (no device, no librdmacm, ...)
     */
    public static Fabric open(InetSocketAddress bind) throws Exception {
        int feature = Runtime.version().feature();
        if (feature < FFM_FEATURE) {
            throw new UnavailableException("--fabric verbs needs JDK 22 or newer (the FFM API) and the verbs "
                    + "module's jar on the class path; this is Java " + feature, null);
        }
        Method open;
        try {
            open = Class.forName(FABRIC_CLASS).getMethod("open", InetSocketAddress.class);
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            throw new UnavailableException("--fabric verbs needs the verbs module (" + FABRIC_CLASS + "): put "
                    + "verbs/target/verbs-*.jar on the class path next to testbed.jar and run java with "
                    + "--enable-native-access=ALL-UNNAMED", e);
        }
        try {
            return (Fabric) open.invoke(null, bind);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}
