package org.rpcrdma4j.nfs.v4;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The NFSv4 client procedures of Linux 6.1 (fs/nfs/nfs4xdr.c, nfs42xdr.c; minor versions 0, 1 and 2),
 * each with the operations its COMPOUND carries and the largest reply Linux sizes its receive buffer
 * for: {@code NFS4_dec_*_sz} in XDR words, and the page bytes its encoder adds for a bulk result.
 *
 * <p>The words are those of the kernel as Debian builds it (CONFIG_NFS_V4_SECURITY_LABEL=y, so every
 * GETATTR result allows for a 2048-byte security label, which puts most compounds over a 1024-byte
 * threshold). A COMPOUND is matched by its operations without the leading SEQUENCE of minor versions
 * 1 and 2; procedures whose operations are the same are told apart by what their GETATTR asks for or
 * the type their CREATE makes, and where that still leaves several, the largest reply is taken.
 */
enum LinuxNfs4Procedure {

    READ(21, "PUTFH READ", Attributes.ANY, Nfs4Compound::count),
    WRITE(657, "PUTFH WRITE (GETATTR)?"),
    COMMIT(20, "PUTFH COMMIT"),
    OPEN(1790, "PUTFH OPEN GETFH (ACCESS)?GETATTR (LAYOUTGET)?", Attributes.ANY, c -> Pages.LAYOUT_MAXSIZE),
    OPEN_CONFIRM(11, "PUTFH OPEN_CONFIRM"),
    OPEN_NOATTR(1755, "PUTFH OPEN (ACCESS)?GETATTR (LAYOUTGET)?", Attributes.ANY, c -> Pages.LAYOUT_MAXSIZE),
    OPEN_DOWNGRADE(29, "PUTFH (LAYOUTRETURN)?OPEN_DOWNGRADE"),
    CLOSE(664, "PUTFH (LAYOUTRETURN)?(GETATTR)?CLOSE"),
    SETATTR(657, "PUTFH SETATTR GETATTR"),
    FSINFO(42, "PUTFH GETATTR", Attributes.FSINFO),
    RENEW(5, "RENEW"),
    SETCLIENTID(27, "SETCLIENTID"),
    SETCLIENTID_CONFIRM(5, "SETCLIENTID_CONFIRM"),
    LOCK(59, "PUTFH LOCK"),
    LOCKT(59, "PUTFH LOCKT"),
    LOCKU(22, "PUTFH LOCKU"),
    ACCESS(655, "PUTFH ACCESS (GETATTR)?"),
    GETATTR(653, "PUTFH GETATTR", Attributes.OTHER),
    LOOKUP(688, "PUTFH LOOKUP GETFH GETATTR"),
    LOOKUP_ROOT(686, "PUTROOTFH GETFH GETATTR"),
    REMOVE(23, "PUTFH REMOVE"),
    RENAME(32, "PUTFH SAVEFH PUTFH RENAME"),
    LINK(664, "PUTFH SAVEFH PUTFH LINK RESTOREFH GETATTR"),
    SYMLINK(696, "PUTFH CREATE GETFH GETATTR", Attributes.SYMLINK),
    CREATE(697, "PUTFH CREATE GETFH GETATTR", Attributes.NOT_SYMLINK),
    PATHCONF(651, "PUTFH GETATTR", Attributes.OTHER),
    STATFS(651, "PUTFH GETATTR", Attributes.OTHER),
    READLINK(20, "PUTFH READLINK", Attributes.ANY, c -> Pages.PAGE_SIZE),
    READDIR(21, "PUTFH READDIR", Attributes.ANY, Nfs4Compound::count),
    SERVER_CAPS(651, "PUTFH GETATTR", Attributes.OTHER),
    DELEGRETURN(660, "PUTFH (LAYOUTRETURN)?(GETATTR)?DELEGRETURN"),
    /** Pages for the caller's buffer, at least two: the bound is that of a 64 KiB getxattr buffer. */
    GETACL(24, "PUTFH GETATTR", Attributes.ACL, c -> Pages.XATTR_SIZE_MAX + Pages.PAGE_SIZE),
    SETACL(22, "PUTFH SETATTR"),
    FS_LOCATIONS(21, "PUTFH (LOOKUP)?GETATTR (RENEW)?", Attributes.FS_LOCATIONS, c -> Pages.PAGE_SIZE),
    RELEASE_LOCKOWNER(36, "RELEASE_LOCKOWNER"),
    SECINFO(163, "PUTFH SECINFO"),
    FSID_PRESENT(53, "PUTFH GETFH (RENEW)?"),
    EXCHANGE_ID(1054, "EXCHANGE_ID"),
    CREATE_SESSION(27, "CREATE_SESSION"),
    DESTROY_SESSION(5, "DESTROY_SESSION"),
    SEQUENCE(14, ""),
    GET_LEASE_TIME(42, "PUTROOTFH GETATTR", Attributes.FSINFO),
    RECLAIM_COMPLETE(20, "RECLAIM_COMPLETE"),
    GETDEVICEINFO(21, "GETDEVICEINFO", Attributes.ANY, Nfs4Compound::count),
    LAYOUTGET(1055, "PUTFH LAYOUTGET", Attributes.ANY, Nfs4Compound::count),
    LAYOUTCOMMIT(656, "PUTFH LAYOUTCOMMIT GETATTR"),
    LAYOUTRETURN(23, "PUTFH LAYOUTRETURN"),
    SECINFO_NO_NAME(163, "PUTROOTFH SECINFO_NO_NAME"),
    TEST_STATEID(19, "TEST_STATEID"),
    FREE_STATEID(16, "FREE_STATEID"),
    BIND_CONN_TO_SESSION(11, "BIND_CONN_TO_SESSION"),
    DESTROY_CLIENTID(5, "DESTROY_CLIENTID"),
    SEEK(24, "PUTFH SEEK"),
    ALLOCATE(653, "PUTFH ALLOCATE GETATTR"),
    DEALLOCATE(653, "PUTFH DEALLOCATE GETATTR"),
    LAYOUTSTATS(24, "PUTFH (LAYOUTSTATS)+"),
    CLONE(657, "PUTFH SAVEFH PUTFH CLONE GETATTR"),
    COPY(38, "PUTFH SAVEFH PUTFH COPY (COMMIT)?"),
    OFFLOAD_CANCEL(18, "PUTFH OFFLOAD_CANCEL"),
    COPY_NOTIFY(273, "PUTFH COPY_NOTIFY"),
    LOOKUPP(688, "PUTFH LOOKUPP GETFH GETATTR"),
    LAYOUTERROR(26, "PUTFH (LAYOUTERROR)+"),
    /** Pages for the caller's buffer, at most an xattr's largest value. */
    GETXATTR(20, "PUTFH GETXATTR", Attributes.ANY, c -> Pages.XATTR_SIZE_MAX),
    SETXATTR(23, "PUTFH SETXATTR"),
    LISTXATTRS(23, "PUTFH LISTXATTRS", Attributes.ANY, Nfs4Compound::count),
    REMOVEXATTR(23, "PUTFH REMOVEXATTR"),
    READ_PLUS(30, "PUTFH READ_PLUS", Attributes.ANY, Nfs4Compound::count);

    /** Page bytes of Linux's receive buffers that the call does not state. */
    private static final class Pages {
        static final int PAGE_SIZE = 4096;
        /** XATTR_SIZE_MAX: the largest extended attribute value, hence the largest getxattr buffer. */
        static final int XATTR_SIZE_MAX = 65536;
        /** PNFS_LAYOUT_MAXSIZE: the loga_maxcount of the LAYOUTGET Linux adds to an OPEN. */
        static final int LAYOUT_MAXSIZE = 4096;
    }


    private static final int FATTR4_WORD0_ACL = 1 << 12;
    private static final int FATTR4_WORD0_FS_LOCATIONS = 1 << 24;
    private static final int FATTR4_WORD1_DACL = 1 << 26;
    private static final int FATTR4_WORD1_SACL = 1 << 27;
    /** nfs4_fsinfo_bitmap: MAXFILESIZE, MAXREAD, MAXWRITE, LEASE_TIME; TIME_DELTA, FS_LAYOUT_TYPES; ... */
    private static final int[] FSINFO_ATTRIBUTES = {
        1 << 27 | 1 << 30 | 1 << 31 | 1 << 10,
        1 << 19 | 1 << 30,
        1 << 1 | 1 << 13 | 1 << 15 | 1 << 18,
    };
    private static final int NF4LNK = 5;
    /**
     * The procedures COMPOUNDs were found to come from, by what decides it: matching the operations
     * against every procedure costs microseconds, and a client sends few kinds of COMPOUND. Bounded in
     * entries and in their length (Linux's longest COMPOUND has 8 operations), so that no stream of odd
     * COMPOUNDs makes it grow.
     */
    private static final Map<String, Optional<LinuxNfs4Procedure>> IDENTIFIED = new ConcurrentHashMap<>();
    private static final int IDENTIFIED_MAX = 1024;
    private static final int IDENTIFIED_OPS_MAX = 16;

    /** What a procedure's GETATTR asks for, or the type its CREATE makes, where operations alike differ. */
    enum Attributes {
        ANY, ACL, FS_LOCATIONS, FSINFO, OTHER, SYMLINK, NOT_SYMLINK;

        boolean admits(Nfs4Compound compound) {
            int[] bitmap = compound.attributes();
            return switch (this) {
                case ANY -> true;
                case ACL -> acl(bitmap);
                case FS_LOCATIONS -> word(bitmap, 0, FATTR4_WORD0_FS_LOCATIONS);
                case FSINFO -> !acl(bitmap) && fsinfo(bitmap);
                case OTHER -> !acl(bitmap) && !word(bitmap, 0, FATTR4_WORD0_FS_LOCATIONS) && !fsinfo(bitmap);
                case SYMLINK -> compound.createType() == NF4LNK;
                case NOT_SYMLINK -> compound.createType() != NF4LNK;
            };
        }

        private static boolean acl(int[] bitmap) {
            return word(bitmap, 0, FATTR4_WORD0_ACL) || word(bitmap, 1, FATTR4_WORD1_DACL | FATTR4_WORD1_SACL);
        }

        /** A non-empty request of FSINFO's attributes only: its reply is no larger than FSINFO's. */
        private static boolean fsinfo(int[] bitmap) {
            boolean any = false;
            for (int i = 0; i < bitmap.length; i++) {
                int allowed = i < FSINFO_ATTRIBUTES.length ? FSINFO_ATTRIBUTES[i] : 0;
                if ((bitmap[i] & ~allowed) != 0) {
                    return false;
                }
                any |= bitmap[i] != 0;
            }
            return any;
        }

        private static boolean word(int[] bitmap, int index, int bits) {
            return index < bitmap.length && (bitmap[index] & bits) != 0;
        }
    }

    private final int replyWords;
    private final Pattern operations;
    private final Attributes attributes;
    private final ToLongFunction<Nfs4Compound> pages;

    LinuxNfs4Procedure(int replyWords, String operations) {
        this(replyWords, operations, Attributes.ANY, c -> 0);
    }

    LinuxNfs4Procedure(int replyWords, String operations, Attributes attributes) {
        this(replyWords, operations, attributes, c -> 0);
    }

    /**
     * @param replyWords {@code NFS4_dec_*_sz}: the largest reply in XDR words, without the RPC header
     * @param operations the operations after the leading SEQUENCE, as a regular expression of their names
     *                   ({@code ?} for an operation Linux adds only sometimes)
     * @param attributes what tells it from procedures of the same operations
     * @param pages      the page bytes Linux adds to the receive buffer for its bulk result
     */
    LinuxNfs4Procedure(int replyWords, String operations, Attributes attributes,
                       ToLongFunction<Nfs4Compound> pages) {
        this.replyWords = replyWords;
        // Each operation name is followed by one space, in the pattern as in the COMPOUND matched.
        this.operations = Pattern.compile(operations.replaceAll("([A-Z_]+)\\s*", "$1 "));
        this.attributes = attributes;
        this.pages = pages;
    }

    /** @return {@code NFS4_dec_*_sz}: the largest reply in XDR words, without the RPC header */
    int replyWords() {
        return replyWords;
    }

    /**
     * @param compound what a COMPOUND shows
     * @return the page bytes Linux adds to the receive buffer of this procedure's call
     */
    long pageBytes(Nfs4Compound compound) {
        return Math.max(0, pages.applyAsLong(compound));
    }

    private long bytes(Nfs4Compound compound) {
        return 4L * replyWords + pageBytes(compound);
    }

    /**
     * @param compound what a COMPOUND shows
     * @return the procedure it comes from, the one with the largest reply among those it could come from
     *     when the walk did not see all its operations; empty when no Linux procedure sends it
     */
    static Optional<LinuxNfs4Procedure> of(Nfs4Compound compound) {
        String ops = compound.ops().stream()
                .skip(!compound.ops().isEmpty() && compound.ops().get(0) == Nfs4DdpPolicy.OP_SEQUENCE ? 1 : 0)
                .map(Nfs4Operations::name)
                .map(name -> name + " ")
                .collect(Collectors.joining());
        // What decides the procedure, the operations and what tells alike ones apart, is all in the key.
        StringBuilder key = new StringBuilder(ops).append(compound.complete() ? '|' : '+');
        for (Attributes kind : Attributes.values()) {
            key.append(kind.admits(compound) ? '1' : '0');
        }
        Optional<LinuxNfs4Procedure> known = IDENTIFIED.get(key.toString());
        if (known == null) {
            known = identify(ops, compound);
            if (compound.ops().size() <= IDENTIFIED_OPS_MAX && IDENTIFIED.size() < IDENTIFIED_MAX) {
                IDENTIFIED.put(key.toString(), known);
            }
        }
        return known;
    }

    private static Optional<LinuxNfs4Procedure> identify(String ops, Nfs4Compound compound) {
        LinuxNfs4Procedure found = null;
        for (LinuxNfs4Procedure procedure : values()) {
            Matcher m = procedure.operations.matcher(ops);
            // A walk that stopped early saw a prefix: every procedure the rest could complete is a candidate.
            boolean candidate = m.matches() || !compound.complete() && m.hitEnd();
            if (candidate && procedure.attributes.admits(compound)
                    && (found == null || procedure.bytes(compound) > found.bytes(compound))) {
                found = procedure;
            }
        }
        return Optional.ofNullable(found);
    }
}
