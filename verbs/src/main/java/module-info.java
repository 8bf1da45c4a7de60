/**
 * libibverbs and librdmacm through the FFM API ({@code org.rpcrdma4j.verbs}), usable without the
 * transport. On the module path it needs {@code --enable-native-access=org.rpcrdma4j.verbs}; the check
 * tool ({@code org.rpcrdma4j.verbs.tools.RcLoopbackCheck}) runs with {@code java -m}.
 */
module org.rpcrdma4j.verbs {
    exports org.rpcrdma4j.verbs;
}
