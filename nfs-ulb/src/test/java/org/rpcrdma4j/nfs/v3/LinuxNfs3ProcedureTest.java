package org.rpcrdma4j.nfs.v3;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.marshal.CallPlan;

/**
 * Every NFSv3 and NFSACL v3 procedure of the Linux 6.1 client gets the chunks Linux provides at inline
 * thresholds of 1024 and 4096 bytes, and a reply size that is Linux's receive buffer to the byte: the RPC
 * reply header of an AUTH_SYS call (6 words), the procedure's {@code p_replen} (fs/nfs/nfs3xdr.c:
 * {@code NFS3_*res_sz}, {@code ACL3_*res_sz}; NULL's two-word floor) and the pages its encoder adds.
 * xprtrdma provides a chunk when that buffer exceeds the threshold less its 212-byte reply header reserve.
 */
class LinuxNfs3ProcedureTest {

    private static final int RESERVE = 28 + 4 + 11 * 16 + 4;
    private static final int NFS = 100003;
    private static final int NFSACL = 100227;

    private final DdpPolicy policy = new NfsDdpPolicy();

    /**
     * @param name    the procedure
     * @param program NFS or NFSACL
     * @param proc    its number
     * @param args    its arguments, as Linux encodes them
     * @param words   Linux's p_replen
     * @param pages   the page bytes Linux's encoder adds
     * @param write   whether Linux moves the result by a Write chunk (READ, XDRBUF_READ)
     */
    record Case(String name, int program, int proc, int[] args, int words, long pages, boolean write) {

        long linuxBuffer() {
            return (6 + words) * 4L + pages;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> procedures() {
        int[] fh = {8, 1, 2};
        return Stream.of(
                c("NULL", 0, new int[0], 2, 0),
                c("GETATTR", 1, fh, 22, 0),
                c("SETATTR", 2, fh, 30, 0),
                c("LOOKUP", 3, fh, 62, 0),
                c("ACCESS", 4, fh, 24, 0),
                c("READLINK", 5, fh, 25, 4096),
                new Case("READ (inline at both)", NFS, 6, new int[] {8, 1, 2, 0, 0, 600}, 27, 600, false),
                new Case("READ (a Write chunk at 1024)", NFS, 6, new int[] {8, 1, 2, 0, 0, 1000}, 27, 1000, true),
                new Case("READ (a Write chunk at both)", NFS, 6, new int[] {8, 1, 2, 0, 0, 32768}, 27, 32768, true),
                c("WRITE", 7, new int[] {8, 1, 2, 0, 0, 4, 0, 4, 0x61626364}, 34, 0),
                c("CREATE", 8, fh, 70, 0),
                c("MKDIR", 9, fh, 70, 0),
                // where (fh, "a"), no attributes set, target "b"
                c("SYMLINK", 10, new int[] {8, 1, 2, 1, 0x61000000, 0, 0, 0, 0, 0, 0, 1, 0x62000000}, 70, 0),
                c("MKNOD", 11, fh, 70, 0),
                c("REMOVE", 12, fh, 30, 0),
                c("RMDIR", 13, fh, 30, 0),
                c("RENAME", 14, fh, 59, 0),
                c("LINK", 15, fh, 52, 0),
                new Case("READDIR", NFS, 16, new int[] {8, 1, 2, 0, 0, 0, 0, 512}, 26, 512, false),
                new Case("READDIRPLUS", NFS, 17, new int[] {8, 1, 2, 0, 0, 0, 0, 4096, 8192}, 26, 8192, false),
                c("FSSTAT", 18, fh, 36, 0),
                c("FSINFO", 19, fh, 35, 0),
                c("PATHCONF", 20, fh, 29, 0),
                c("COMMIT", 21, fh, 32, 0),
                new Case("NFSACL NULL", NFSACL, 0, new int[0], 2, 0, false),
                // GETACL of NFS_ACL | NFS_ACLCNT | NFS_DFACL | NFS_DFACLCNT: seven pages for the ACLs.
                new Case("NFSACL GETACL", NFSACL, 1, new int[] {8, 1, 2, 15}, 59, 7 * 4096, false),
                new Case("NFSACL GETACL of counts", NFSACL, 1, new int[] {8, 1, 2, 2 | 8}, 59, 0, false),
                new Case("NFSACL SETACL", NFSACL, 2, new int[] {8, 1, 2, 15}, 23, 0, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("procedures")
    void chunksAreLinuxsAtThresholdsOf1024And4096(Case linux) throws RdmaTransportException {
        for (int threshold : List.of(1024, 4096)) {
            CallPlan ours = CallPlan.of(1, call(linux), policy, 4096, threshold, 131072);
            boolean chunk = linux.linuxBuffer() > threshold - RESERVE;

            assertThat(ours.replyChunk() || ours.writeChunks() > 0).as("chunk at %d", threshold).isEqualTo(chunk);
            assertThat(ours.writeChunks() > 0).as("Write chunk at %d", threshold).isEqualTo(chunk && linux.write());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("procedures")
    void replySizeIsLinuxsReceiveBuffer(Case linux) {
        byte[] rpc = call(linux);
        DdpPolicy.RpcMessage call = new DdpPolicy.RpcMessage(rpc, rpc.length - 4 * linux.args().length);

        assertThat(policy.replySize(new DdpPolicy.RpcProcedure(linux.program(), 3, linux.proc()), call).maxLength())
                .isEqualTo(linux.linuxBuffer());
    }

    private static Case c(String name, int proc, int[] args, int words, long pages) {
        return new Case(name, NFS, proc, args, words, pages, false);
    }

    /** The call with an AUTH_SYS credential (stamp, "c", uid, gid, no gids) and an AUTH_NONE verifier. */
    private static byte[] call(Case linux) {
        ByteBuffer rpc = ByteBuffer.allocate(6 * 4 + 32 + 8 + 4 * linux.args().length);
        rpc.putInt(1).putInt(0).putInt(2).putInt(linux.program()).putInt(3).putInt(linux.proc());
        rpc.putInt(1).putInt(24).putInt(0).putInt(1).putInt(0x63000000).putInt(0).putInt(0).putInt(0);
        rpc.putInt(0).putInt(0);
        for (int word : linux.args()) {
            rpc.putInt(word);
        }
        return rpc.array();
    }
}
