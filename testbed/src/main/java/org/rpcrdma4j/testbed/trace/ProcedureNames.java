package org.rpcrdma4j.testbed.trace;

import java.util.List;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.nfs.acl.NfsAcl3DdpPolicy;
import org.rpcrdma4j.nfs.v4.Nfs4DdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.marshal.RpcHeaders;

/**
 * Names a call for the replay's per-procedure summary: NFSv3 (RFC 1813) and NFSACL v3 procedures by
 * name, an NFSv4 COMPOUND by the Linux client procedure that sends it (as its reply is sized), the
 * NFSv4.1 backchannel's (RFC 8881 §20) by name; any other as program/version/procedure.
 */
final class ProcedureNames {

    private static final List<String> NFS3 = List.of("NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK",
            "READ", "WRITE", "CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR",
            "READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT");
    private static final List<String> NFSACL3 = List.of("NULL", "GETACL", "SETACL");
    /** The callback program number the Linux client gives the server (CREATE_SESSION's csa_cb_program). */
    private static final int LINUX_CALLBACK_PROGRAM = 0x40000000;

    private ProcedureNames() {
    }

    /**
     * @param call an RPC call
     * @return its name
     */
    static String of(byte[] call) {
        DdpPolicy.RpcProcedure p = RpcHeaders.procedure(call);
        String numbers = Integer.toUnsignedString(p.program()) + "/" + p.version() + "/" + p.procedure();
        if (p.program() == NfsDdpPolicy.PROGRAM && p.version() == 3 && p.procedure() < NFS3.size()) {
            return "NFSv3 " + NFS3.get(p.procedure());
        }
        if (p.program() == NfsAcl3DdpPolicy.PROGRAM && p.version() == 3 && p.procedure() < NFSACL3.size()) {
            return "NFSACL v3 " + NFSACL3.get(p.procedure());
        }
        if (p.program() == NfsDdpPolicy.PROGRAM && p.version() == 4) {
            if (p.procedure() == 0) {
                return "NFSv4 NULL";
            }
            try {
                return "NFSv4 " + Nfs4DdpPolicy.linuxProcedure(RpcHeaders.call(call))
                        .orElse("COMPOUND (no Linux procedure)");
            } catch (IllegalArgumentException e) {
                return "NFSv4 COMPOUND (malformed)";
            }
        }
        if (p.program() == LINUX_CALLBACK_PROGRAM && p.version() == 1 && p.procedure() <= 1) {
            return p.procedure() == 0 ? "NFSv4 CB_NULL" : "NFSv4 CB_COMPOUND";
        }
        return numbers;
    }
}
