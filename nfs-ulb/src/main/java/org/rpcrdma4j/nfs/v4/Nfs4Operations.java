package org.rpcrdma4j.nfs.v4;

/** The names of the NFSv4 operations (RFC 7530 §16, RFC 8881 §18, RFC 7862 §15, RFC 8276 §8). */
final class Nfs4Operations {

    /** Indexed by operation number; 0 to 2 are not operations. */
    private static final String[] NAMES = {
        null, null, null, "ACCESS", "CLOSE", "COMMIT", "CREATE", "DELEGPURGE", "DELEGRETURN", "GETATTR",
        "GETFH", "LINK", "LOCK", "LOCKT", "LOCKU", "LOOKUP", "LOOKUPP", "NVERIFY", "OPEN", "OPENATTR",
        "OPEN_CONFIRM", "OPEN_DOWNGRADE", "PUTFH", "PUTPUBFH", "PUTROOTFH", "READ", "READDIR", "READLINK",
        "REMOVE", "RENAME", "RENEW", "RESTOREFH", "SAVEFH", "SECINFO", "SETATTR", "SETCLIENTID",
        "SETCLIENTID_CONFIRM", "VERIFY", "WRITE", "RELEASE_LOCKOWNER", "BACKCHANNEL_CTL",
        "BIND_CONN_TO_SESSION", "EXCHANGE_ID", "CREATE_SESSION", "DESTROY_SESSION", "FREE_STATEID",
        "GET_DIR_DELEGATION", "GETDEVICEINFO", "GETDEVICELIST", "LAYOUTCOMMIT", "LAYOUTGET", "LAYOUTRETURN",
        "SECINFO_NO_NAME", "SEQUENCE", "SET_SSV", "TEST_STATEID", "WANT_DELEGATION", "DESTROY_CLIENTID",
        "RECLAIM_COMPLETE", "ALLOCATE", "COPY", "COPY_NOTIFY", "DEALLOCATE", "IO_ADVISE", "LAYOUTERROR",
        "LAYOUTSTATS", "OFFLOAD_CANCEL", "OFFLOAD_STATUS", "READ_PLUS", "SEEK", "WRITE_SAME", "CLONE",
        "GETXATTR", "SETXATTR", "LISTXATTRS", "REMOVEXATTR",
    };

    private Nfs4Operations() {
    }

    /**
     * @param op an operation number
     * @return its name, or "OP" and the number for one that is not an operation
     */
    static String name(int op) {
        return op >= 0 && op < NAMES.length && NAMES[op] != null ? NAMES[op] : "OP" + Integer.toUnsignedString(op);
    }
}
