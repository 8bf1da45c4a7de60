package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy.ReplySize;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.marshal.CallPlan;

/**
 * Every NFSv4 client procedure of Linux 6.1 gets the reply chunks Linux provides, at inline thresholds
 * of 1024 and 4096 bytes. Each case is a COMPOUND as Linux's encoder (fs/nfs/nfs4xdr.c, nfs42xdr.c)
 * lays it out, and the receive buffer Linux sets up for it: the RPC reply header of an AUTH_SYS call
 * (6 words), the procedure's {@code NFS4_dec_*_sz} (the preprocessor's value for Debian's 6.1 build,
 * security labels on) and the pages its encoder adds. xprtrdma provides a chunk when that buffer
 * exceeds the threshold less its 212-byte reply header reserve ({@code rpcrdma_results_inline}).
 */
class LinuxNfs4ProcedureTest {

    private static final int PAGE = 4096;
    private static final int RESERVE = 28 + 4 + 11 * 16 + 4;
    private static final int NF4DIR = 2;
    private static final int NF4LNK = 5;

    private final DdpPolicy policy = new NfsDdpPolicy();

    /**
     * @param name     the Linux procedure (NFSPROC4_CLNT_*)
     * @param compound the encoded call
     * @param decWords Linux's NFS4_dec_*_sz
     * @param pages    the page bytes Linux's encoder adds
     * @param exact    whether ours is Linux's buffer to the byte (false: the pages depend on the caller's
     *                 buffer, which the wire does not show, and ours is the largest; or, for PATHCONF,
     *                 STATFS and SERVER_CAPS, the compound is GETATTR's, whose 653 words are taken)
     */
    record Case(String name, byte[] compound, int decWords, long pages, boolean exact) {

        long linuxBuffer() {
            return (6 + decWords) * 4L + pages;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> procedures() {
        int[] getattr = {0x0010011a, 0x00b0a23a, 0x00000800};     // type, change, size, fsid, fileid, ...
        int[] fsinfo = {1 << 27 | 1 << 30 | 1 << 31 | 1 << 10, 1 << 19 | 1 << 30, 1 << 1 | 1 << 13};
        int[] pathconf = {1 << 28 | 1 << 29};                      // MAXLINK, MAXNAME
        int[] fsLocations = {1 << 24 | 1 << 8 | 1 << 20, 1 << 4 | 1 << 5};
        int[] acl = {1 << 12};
        int[] dacl = {0, 1 << 26};
        return Stream.of(
                c("READ", 1, 21, 600, true, b -> b.putfh().read(600)),
                c("READ (to a Write chunk)", 1, 21, 65536, true, b -> b.putfh().read(65536)),
                c("WRITE", 2, 657, 0, true, b -> b.putfh().write().getattr(getattr)),
                c("COMMIT", 1, 20, 0, true, b -> b.putfh().op("COMMIT", 0, 0, 0)),
                c("OPEN", 1, 1790, 0, false, b -> b.putfh().op("OPEN", 0, 0, 0).op("GETFH").access()
                        .getattr(getattr)),
                c("OPEN_CONFIRM", 0, 11, 0, true, b -> b.putfh().op("OPEN_CONFIRM", 0, 0, 0, 0, 1)),
                c("OPEN_NOATTR", 1, 1755, 0, false, b -> b.putfh().op("OPEN", 0, 0, 0).getattr(getattr)),
                c("OPEN_DOWNGRADE", 1, 29, 0, true, b -> b.putfh().op("OPEN_DOWNGRADE", 0, 0, 0, 0, 1, 1, 0)),
                c("CLOSE", 2, 664, 0, true, b -> b.putfh().getattr(getattr).op("CLOSE", 1, 0, 0, 0, 0)),
                c("CLOSE with LAYOUTRETURN", 2, 664, 0, true, b -> b.putfh().layoutreturn().getattr(getattr)
                        .op("CLOSE", 1, 0, 0, 0, 0)),
                c("SETATTR", 1, 657, 0, true, b -> b.putfh().setattr().getattr(getattr)),
                c("FSINFO", 1, 42, 0, true, b -> b.putfh().getattr(fsinfo)),
                c("RENEW", 0, 5, 0, true, b -> b.op("RENEW", 0, 1)),
                c("SETCLIENTID", 0, 27, 0, true, b -> b.op("SETCLIENTID", 0, 0, 0)),
                c("SETCLIENTID_CONFIRM", 0, 5, 0, true, b -> b.op("SETCLIENTID_CONFIRM", 0, 1, 0, 0)),
                c("LOCK", 1, 59, 0, true, b -> b.putfh().op("LOCK", 2, 0)),
                c("LOCKT", 1, 59, 0, true, b -> b.putfh().op("LOCKT", 2, 0)),
                c("LOCKU", 1, 22, 0, true, b -> b.putfh().op("LOCKU", 2, 0)),
                c("ACCESS", 2, 655, 0, true, b -> b.putfh().access().getattr(getattr)),
                c("GETATTR", 2, 653, 0, true, b -> b.putfh().getattr(getattr)),
                c("LOOKUP", 2, 688, 0, true, b -> b.putfh().name("LOOKUP").op("GETFH").getattr(getattr)),
                c("LOOKUP_ROOT", 2, 686, 0, true, b -> b.op("PUTROOTFH").op("GETFH").getattr(getattr)),
                c("REMOVE", 2, 23, 0, true, b -> b.putfh().name("REMOVE")),
                c("RENAME", 2, 32, 0, true, b -> b.putfh().op("SAVEFH").putfh().name("RENAME", 2)),
                c("LINK", 2, 664, 0, true, b -> b.putfh().op("SAVEFH").putfh().name("LINK").op("RESTOREFH")
                        .getattr(getattr)),
                c("SYMLINK", 2, 696, 0, true, b -> b.putfh().create(NF4LNK).op("GETFH").getattr(getattr)),
                c("CREATE", 2, 697, 0, true, b -> b.putfh().create(NF4DIR).op("GETFH").getattr(getattr)),
                c("PATHCONF", 2, 651, 0, false, b -> b.putfh().getattr(pathconf)),
                c("STATFS", 2, 651, 0, false, b -> b.putfh().getattr(new int[] {1 << 21 | 1 << 22 | 1 << 23,
                    1 << 10 | 1 << 11 | 1 << 12})),
                c("READLINK", 2, 20, PAGE, true, b -> b.putfh().op("READLINK")),
                c("READDIR", 2, 21, 8192, true, b -> b.putfh().readdir(8192)),
                c("SERVER_CAPS", 2, 651, 0, false, b -> b.putfh().getattr(new int[] {1 | 1 << 2 | 1 << 13,
                    0, 0})),
                c("DELEGRETURN", 2, 660, 0, true, b -> b.putfh().getattr(getattr).op("DELEGRETURN", 0, 0, 0, 0)),
                c("GETACL", 2, 24, 2 * PAGE, false, b -> b.putfh().getattr(acl)),
                c("GETACL of a DACL", 2, 24, 2 * PAGE, false, b -> b.putfh().getattr(dacl)),
                c("SETACL", 2, 22, 0, true, b -> b.putfh().setattr()),
                c("FS_LOCATIONS", 2, 21, PAGE, true, b -> b.putfh().name("LOOKUP").getattr(fsLocations)),
                c("FS_LOCATIONS (migration)", 0, 21, PAGE, true, b -> b.putfh().getattr(fsLocations)
                        .op("RENEW", 0, 1)),
                c("RELEASE_LOCKOWNER", 0, 36, 0, true, b -> b.op("RELEASE_LOCKOWNER", 0, 1, 0)),
                c("SECINFO", 2, 163, 0, true, b -> b.putfh().name("SECINFO")),
                c("FSID_PRESENT", 2, 53, 0, true, b -> b.putfh().op("GETFH")),
                c("EXCHANGE_ID", 1, 1054, 0, true, b -> b.op("EXCHANGE_ID", 0, 0, 0)),
                c("CREATE_SESSION", 1, 27, 0, true, b -> b.op("CREATE_SESSION", 0, 0, 0)),
                c("DESTROY_SESSION", 1, 5, 0, true, b -> b.op("DESTROY_SESSION", 0, 0, 0, 0)),
                c("SEQUENCE", 2, 14, 0, true, b -> b),
                c("GET_LEASE_TIME", 2, 42, 0, true, b -> b.op("PUTROOTFH").getattr(fsinfo)),
                c("RECLAIM_COMPLETE", 2, 20, 0, true, b -> b.op("RECLAIM_COMPLETE", 1)),
                c("GETDEVICEINFO", 1, 21, 2048, true, b -> b.op("GETDEVICEINFO", 0, 0, 0, 0, 1, 2048, 0)),
                c("LAYOUTGET", 1, 1055, 4096, true, b -> b.putfh().op("LAYOUTGET", 0, 1, 1, 0, 0, -1, -1, 0, 0,
                        0, 0, 0, 0, 4096)),
                c("LAYOUTCOMMIT", 1, 656, 0, true, b -> b.putfh().op("LAYOUTCOMMIT", 0, 0, 0, 0, 0)
                        .getattr(getattr)),
                c("LAYOUTRETURN", 1, 23, 0, true, b -> b.putfh().layoutreturn()),
                c("SECINFO_NO_NAME", 2, 163, 0, true, b -> b.op("PUTROOTFH").op("SECINFO_NO_NAME", 0)),
                c("TEST_STATEID", 1, 19, 0, true, b -> b.op("TEST_STATEID", 1, 0, 0, 0, 0)),
                c("FREE_STATEID", 1, 16, 0, true, b -> b.op("FREE_STATEID", 0, 0, 0, 0)),
                c("BIND_CONN_TO_SESSION", 1, 11, 0, true, b -> b.op("BIND_CONN_TO_SESSION", 0, 0, 0, 0, 3, 0)),
                c("DESTROY_CLIENTID", 1, 5, 0, true, b -> b.op("DESTROY_CLIENTID", 0, 1)),
                c("SEEK", 2, 24, 0, true, b -> b.putfh().op("SEEK", 0, 0, 0, 0, 0, 0, 0)),
                c("ALLOCATE", 2, 653, 0, true, b -> b.putfh().op("ALLOCATE", 0, 0, 0, 0, 0, 0, 0, 1)
                        .getattr(getattr)),
                c("DEALLOCATE", 2, 653, 0, true, b -> b.putfh().op("DEALLOCATE", 0, 0, 0, 0, 0, 0, 0, 1)
                        .getattr(getattr)),
                c("LAYOUTSTATS", 2, 24, 0, true, b -> b.putfh().op("LAYOUTSTATS", 0, 0, 0, 0)
                        .op("LAYOUTSTATS", 0, 0, 0, 0)),
                c("CLONE", 2, 657, 0, true, b -> b.putfh().op("SAVEFH").putfh().op("CLONE", 0, 0, 0, 0)
                        .getattr(getattr)),
                c("COPY", 2, 38, 0, true, b -> b.putfh().op("SAVEFH").putfh().op("COPY", 0, 0, 0, 0)
                        .op("COMMIT", 0, 0, 0)),
                c("OFFLOAD_CANCEL", 2, 18, 0, true, b -> b.putfh().op("OFFLOAD_CANCEL", 0, 0, 0, 0)),
                c("COPY_NOTIFY", 2, 273, 0, true, b -> b.putfh().op("COPY_NOTIFY", 0, 0, 0, 0)),
                c("LOOKUPP", 2, 688, 0, true, b -> b.putfh().op("LOOKUPP").op("GETFH").getattr(getattr)),
                c("LAYOUTERROR", 2, 26, 0, true, b -> b.putfh().op("LAYOUTERROR", 0, 0, 0, 0)),
                c("GETXATTR", 2, 20, 65536, false, b -> b.putfh().name("GETXATTR")),
                c("SETXATTR", 2, 23, 0, true, b -> b.putfh().op("SETXATTR", 0, 1, 0x61000000, 0)),
                c("LISTXATTRS", 2, 23, 1024, true, b -> b.putfh().op("LISTXATTRS", 0, 0, 1024)),
                c("REMOVEXATTR", 2, 23, 0, true, b -> b.putfh().name("REMOVEXATTR")),
                c("READ_PLUS", 2, 30, 900, true, b -> b.putfh().op("READ_PLUS", 0, 0, 0, 0, 0, 0, 900)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("procedures")
    void replyChunksAreLinuxsAtThresholdsOf1024And4096(Case linux) throws RdmaTransportException {
        for (int threshold : List.of(1024, 4096)) {
            CallPlan ours = CallPlan.of(1, linux.compound(), policy, 4096, threshold, 131072);
            boolean linuxChunk = linux.linuxBuffer() > threshold - RESERVE;
            boolean linuxWrite = linuxChunk && linux.name().startsWith("READ (");

            assertThat(ours.replyChunk() || ours.writeChunks() > 0).as("chunk at %d", threshold).isEqualTo(linuxChunk);
            assertThat(ours.writeChunks() > 0).as("Write chunk at %d", threshold).isEqualTo(linuxWrite);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("procedures")
    void replySizeIsLinuxsReceiveBuffer(Case linux) {
        ReplySize ours = policy.replySize(new DdpPolicy.RpcProcedure(100003, 4, 1), call(linux.compound()));

        if (linux.exact()) {
            assertThat(ours.maxLength()).isEqualTo(linux.linuxBuffer());
        } else {
            assertThat(ours.maxLength()).isGreaterThanOrEqualTo(linux.linuxBuffer());
        }
    }

    private static Case c(String name, int minor, int decWords, long pages, boolean exact,
                          java.util.function.UnaryOperator<Args> ops) {
        Args args = new Args(minor);
        if (minor > 0 && !List.of("EXCHANGE_ID", "CREATE_SESSION", "DESTROY_SESSION", "BIND_CONN_TO_SESSION",
                "DESTROY_CLIENTID").contains(name)) {
            args.op("SEQUENCE", 0, 0, 0, 0, 1, 0, 0, 0);
        }
        return new Case(name, args.rpc(ops.apply(args)), decWords, pages, exact);
    }

    /** The call's body starts after an AUTH_SYS credential and an AUTH_NONE verifier. */
    private static DdpPolicy.RpcMessage call(byte[] rpc) {
        return new DdpPolicy.RpcMessage(rpc, Args.HEADER);
    }

    /** A COMPOUND call, encoded as Linux lays out each operation's arguments. */
    static final class Args {

        /** XID, CALL, RPC 2, NFS 4 COMPOUND, AUTH_SYS (stamp, "c", uid, gid, no gids), AUTH_NONE. */
        static final int HEADER = 6 * 4 + 8 + 24 + 8;
        private static final List<String> NAMES = List.of("ACCESS", "CLOSE", "COMMIT", "CREATE", "DELEGPURGE",
                "DELEGRETURN", "GETATTR", "GETFH", "LINK", "LOCK", "LOCKT", "LOCKU", "LOOKUP", "LOOKUPP", "NVERIFY",
                "OPEN", "OPENATTR", "OPEN_CONFIRM", "OPEN_DOWNGRADE", "PUTFH", "PUTPUBFH", "PUTROOTFH", "READ",
                "READDIR", "READLINK", "REMOVE", "RENAME", "RENEW", "RESTOREFH", "SAVEFH", "SECINFO", "SETATTR",
                "SETCLIENTID", "SETCLIENTID_CONFIRM", "VERIFY", "WRITE", "RELEASE_LOCKOWNER", "BACKCHANNEL_CTL",
                "BIND_CONN_TO_SESSION", "EXCHANGE_ID", "CREATE_SESSION", "DESTROY_SESSION", "FREE_STATEID",
                "GET_DIR_DELEGATION", "GETDEVICEINFO", "GETDEVICELIST", "LAYOUTCOMMIT", "LAYOUTGET", "LAYOUTRETURN",
                "SECINFO_NO_NAME", "SEQUENCE", "SET_SSV", "TEST_STATEID", "WANT_DELEGATION", "DESTROY_CLIENTID",
                "RECLAIM_COMPLETE", "ALLOCATE", "COPY", "COPY_NOTIFY", "DEALLOCATE", "IO_ADVISE", "LAYOUTERROR",
                "LAYOUTSTATS", "OFFLOAD_CANCEL", "OFFLOAD_STATUS", "READ_PLUS", "SEEK", "WRITE_SAME", "CLONE",
                "GETXATTR", "SETXATTR", "LISTXATTRS", "REMOVEXATTR");

        private final ByteBuffer ops = ByteBuffer.allocate(4096);
        private final int minor;
        private int count;

        Args(int minor) {
            this.minor = minor;
        }

        Args op(String name, int... words) {
            ops.putInt(NAMES.indexOf(name) + 3);
            for (int word : words) {
                ops.putInt(word);
            }
            count++;
            return this;
        }

        Args putfh() {
            return op("PUTFH", 8, 0x01020304, 0x05060708);
        }

        Args getattr(int[] bitmap) {
            int[] words = new int[bitmap.length + 1];
            words[0] = bitmap.length;
            System.arraycopy(bitmap, 0, words, 1, bitmap.length);
            return op("GETATTR", words);
        }

        Args access() {
            return op("ACCESS", 0x3f);
        }

        /** An operation whose arguments are component names of one letter. */
        Args name(String name, int... names) {
            int n = names.length == 0 ? 1 : names[0];
            int[] words = new int[2 * n];
            for (int i = 0; i < n; i++) {
                words[2 * i] = 1;
                words[2 * i + 1] = 0x61000000;
            }
            return op(name, words);
        }

        Args read(int count) {
            return op("READ", 0, 0, 0, 0, 0, 0, count);                  // stateid, offset, count
        }

        Args write() {
            return op("WRITE", 0, 0, 0, 0, 0, 0, 2, 4, 0x61626364);
        }

        Args setattr() {
            return op("SETATTR", 0, 0, 0, 0, 1, 1 << 1, 4, 0x000001ed);  // stateid, {MODE}, mode
        }

        Args create(int type) {
            int[] head = type == NF4LNK ? new int[] {type, 4, 0x61626364} : new int[] {type};
            int[] tail = {1, 0x61000000, 1, 1 << 1, 4, 0x000001ed};        // name, {MODE}, mode
            int[] words = Arrays.copyOf(head, head.length + tail.length);
            System.arraycopy(tail, 0, words, head.length, tail.length);
            return op("CREATE", words);
        }

        Args layoutreturn() {
            return op("LAYOUTRETURN", 0, 1, 3, 1, 0, 0, -1, -1, 0, 0, 0, 0, 0);
        }

        Args readdir(int maxcount) {
            return op("READDIR", 0, 0, 0, 0, maxcount / 2, maxcount, 2, 0x0010011a, 0x00b0a23a);
        }

        byte[] rpc(Args body) {
            ByteBuffer rpc = ByteBuffer.allocate(HEADER + 12 + body.ops.position());
            rpc.putInt(1).putInt(0).putInt(2).putInt(100003).putInt(4).putInt(1);
            rpc.putInt(1).putInt(24).putInt(0).putInt(1).putInt(0x63000000).putInt(0).putInt(0).putInt(0);
            rpc.putInt(0).putInt(0);
            rpc.putInt(0).putInt(minor).putInt(count);
            rpc.put(body.ops.array(), 0, body.ops.position());
            return rpc.array();
        }
    }
}
