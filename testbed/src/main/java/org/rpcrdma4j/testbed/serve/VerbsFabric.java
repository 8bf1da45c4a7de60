package org.rpcrdma4j.testbed.serve;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.FabricAddress;

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
     * @param bind the address of an RDMA device and the port to listen on; a fabric that only connects
     *             may give the wildcard address
     * @return an open {@code RcFabric}, also {@link AutoCloseable}
     * @throws UnavailableException if this JVM is older than 22 or the verbs jar is not on the class path
     * @throws Exception            what {@code RcFabric.open} throws (no device, no librdmacm, ...)
     */
    public static Fabric open(InetSocketAddress bind) throws Exception {
        return (Fabric) invoke("open", bind);
    }

    /**
     * @param peer the IP address and port of an RC listener, such as an NFS/RDMA server on port 20049
     * @return its fabric address on the RC fabric, to connect to
     * @throws UnavailableException if this JVM is older than 22 or the verbs jar is not on the class path
     */
    public static FabricAddress addressOf(InetSocketAddress peer) throws Exception {
        return (FabricAddress) invoke("addressOf", peer);
    }

    /** Calls one of {@code RcFabric}'s static methods that take a socket address. */
    private static Object invoke(String name, InetSocketAddress address) throws Exception {
        int feature = Runtime.version().feature();
        if (feature < FFM_FEATURE) {
            throw new UnavailableException("--fabric verbs needs JDK 22 or newer (the FFM API) and the verbs "
                    + "module's jar on the class path; this is Java " + feature, null);
        }
        Method method;
        try {
            method = Class.forName(FABRIC_CLASS).getMethod(name, InetSocketAddress.class);
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            throw new UnavailableException("--fabric verbs needs the verbs module (" + FABRIC_CLASS + "): put "
                    + "verbs/target/verbs-*.jar on the class path next to testbed.jar and run java with "
                    + "--enable-native-access=ALL-UNNAMED", e);
        }
        try {
            return method.invoke(null, address);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}
