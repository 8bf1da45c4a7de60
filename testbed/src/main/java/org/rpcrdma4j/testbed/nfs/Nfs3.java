package org.rpcrdma4j.testbed.nfs;

/** Protocol constants of NFSv3 and MOUNT v3 (RFC 1813 sections 2.5, 2.6, 3 and Appendix I), and the service limits. */
public final class Nfs3 {

    private Nfs3() {
    }

    /** NFS program number. */
    public static final int NFS_PROGRAM = 100003;
    /** NFS version implemented. */
    public static final int NFS_V3 = 3;
    /** MOUNT program number (Appendix I). */
    public static final int MOUNT_PROGRAM = 100005;
    /** MOUNT version implemented. */
    public static final int MOUNT_V3 = 3;

    // Procedures, RFC 1813 section 3.3.
    public static final int NFSPROC3_NULL = 0;
    public static final int NFSPROC3_GETATTR = 1;
    public static final int NFSPROC3_SETATTR = 2;
    public static final int NFSPROC3_LOOKUP = 3;
    public static final int NFSPROC3_ACCESS = 4;
    public static final int NFSPROC3_READLINK = 5;
    public static final int NFSPROC3_READ = 6;
    public static final int NFSPROC3_WRITE = 7;
    public static final int NFSPROC3_CREATE = 8;
    public static final int NFSPROC3_MKDIR = 9;
    public static final int NFSPROC3_SYMLINK = 10;
    public static final int NFSPROC3_MKNOD = 11;
    public static final int NFSPROC3_REMOVE = 12;
    public static final int NFSPROC3_RMDIR = 13;
    public static final int NFSPROC3_RENAME = 14;
    public static final int NFSPROC3_LINK = 15;
    public static final int NFSPROC3_READDIR = 16;
    public static final int NFSPROC3_READDIRPLUS = 17;
    public static final int NFSPROC3_FSSTAT = 18;
    public static final int NFSPROC3_FSINFO = 19;
    public static final int NFSPROC3_PATHCONF = 20;
    public static final int NFSPROC3_COMMIT = 21;

    // MOUNT procedures, Appendix I section 5.2.
    public static final int MOUNTPROC3_NULL = 0;
    public static final int MOUNTPROC3_MNT = 1;
    public static final int MOUNTPROC3_DUMP = 2;
    public static final int MOUNTPROC3_UMNT = 3;
    public static final int MOUNTPROC3_UMNTALL = 4;
    public static final int MOUNTPROC3_EXPORT = 5;

    // nfsstat3, section 2.6.
    public static final int NFS3_OK = 0;
    public static final int NFS3ERR_PERM = 1;
    public static final int NFS3ERR_NOENT = 2;
    public static final int NFS3ERR_IO = 5;
    public static final int NFS3ERR_NXIO = 6;
    public static final int NFS3ERR_ACCES = 13;
    public static final int NFS3ERR_EXIST = 17;
    public static final int NFS3ERR_XDEV = 18;
    public static final int NFS3ERR_NODEV = 19;
    public static final int NFS3ERR_NOTDIR = 20;
    public static final int NFS3ERR_ISDIR = 21;
    public static final int NFS3ERR_INVAL = 22;
    public static final int NFS3ERR_FBIG = 27;
    public static final int NFS3ERR_NOSPC = 28;
    public static final int NFS3ERR_ROFS = 30;
    public static final int NFS3ERR_MLINK = 31;
    public static final int NFS3ERR_NAMETOOLONG = 63;
    public static final int NFS3ERR_NOTEMPTY = 66;
    public static final int NFS3ERR_DQUOT = 69;
    public static final int NFS3ERR_STALE = 70;
    public static final int NFS3ERR_REMOTE = 71;
    public static final int NFS3ERR_BADHANDLE = 10001;
    public static final int NFS3ERR_NOT_SYNC = 10002;
    public static final int NFS3ERR_BAD_COOKIE = 10003;
    public static final int NFS3ERR_NOTSUPP = 10004;
    public static final int NFS3ERR_TOOSMALL = 10005;
    public static final int NFS3ERR_SERVERFAULT = 10006;
    public static final int NFS3ERR_BADTYPE = 10007;
    public static final int NFS3ERR_JUKEBOX = 10008;

    // mountstat3, Appendix I section 5.1.5.
    public static final int MNT3_OK = 0;
    public static final int MNT3ERR_NOENT = 2;
    public static final int MNT3ERR_ACCES = 13;
    public static final int MNT3ERR_NAMETOOLONG = 63;

    // ftype3, section 2.6.
    public static final int NF3REG = 1;
    public static final int NF3DIR = 2;
    public static final int NF3BLK = 3;
    public static final int NF3CHR = 4;
    public static final int NF3LNK = 5;
    public static final int NF3SOCK = 6;
    public static final int NF3FIFO = 7;

    // stable_how, section 3.3.7.
    public static final int UNSTABLE = 0;
    public static final int DATA_SYNC = 1;
    public static final int FILE_SYNC = 2;

    // createmode3, section 3.3.8.
    public static final int UNCHECKED = 0;
    public static final int GUARDED = 1;
    public static final int EXCLUSIVE = 2;

    // time_how, section 2.6 (sattr3).
    public static final int DONT_CHANGE = 0;
    public static final int SET_TO_SERVER_TIME = 1;
    public static final int SET_TO_CLIENT_TIME = 2;

    // ACCESS bits, section 3.3.4.
    public static final int ACCESS3_READ = 0x0001;
    public static final int ACCESS3_LOOKUP = 0x0002;
    public static final int ACCESS3_MODIFY = 0x0004;
    public static final int ACCESS3_EXTEND = 0x0008;
    public static final int ACCESS3_DELETE = 0x0010;
    public static final int ACCESS3_EXECUTE = 0x0020;

    // FSINFO properties, section 3.3.19.
    public static final int FSF3_LINK = 0x0001;
    public static final int FSF3_SYMLINK = 0x0002;
    public static final int FSF3_HOMOGENEOUS = 0x0008;
    public static final int FSF3_CANSETTIME = 0x0010;

    /** NFS3_FHSIZE: the largest file handle (section 2.4). */
    public static final int NFS3_FHSIZE = 64;
    /** Size of cookieverf3, createverf3 and writeverf3 (section 2.4). */
    public static final int NFS3_VERFSIZE = 8;
    /** MNTPATHLEN (Appendix I section 5.1.2). */
    public static final int MNTPATHLEN = 1024;
    /**
     * The longest symbolic link target accepted: nfspath3 has no XDR bound (RFC 1813 §2.5); Linux
     * sends up to its PATH_MAX, 4096 bytes.
     */
    public static final int MAXPATHLEN = 4096;
    /** Longest file name this service accepts (reported by PATHCONF). */
    public static final int NAME_MAX = 255;
    /**
     * PATHCONF linkmax: ext4's limit (EXT4_LINK_MAX), as the file system's own (pathconf _PC_LINK_MAX) is not
     * visible to java.nio. A file system with a lower limit (ext2's 32000) answers a LINK past it with
     * NFS3ERR_MLINK; tmpfs and xfs allow more.
     */
    public static final int LINK_MAX = 65_000;

    /** FSINFO rtmax/wtmax advertised by this service: READ and WRITE counts are capped to it. */
    public static final int MAX_IO = 1 << 20;
    /** FSINFO dtpref advertised by this service: READDIR/READDIRPLUS counts are capped to it. */
    public static final int DTPREF = 64 * 1024;

    /** Symbolic name of an nfsstat3 value, for messages. */
    public static String statusName(int status) {
        return switch (status) {
            case NFS3_OK -> "NFS3_OK";
            case NFS3ERR_PERM -> "NFS3ERR_PERM";
            case NFS3ERR_NOENT -> "NFS3ERR_NOENT";
            case NFS3ERR_IO -> "NFS3ERR_IO";
            case NFS3ERR_ACCES -> "NFS3ERR_ACCES";
            case NFS3ERR_EXIST -> "NFS3ERR_EXIST";
            case NFS3ERR_XDEV -> "NFS3ERR_XDEV";
            case NFS3ERR_NOTDIR -> "NFS3ERR_NOTDIR";
            case NFS3ERR_ISDIR -> "NFS3ERR_ISDIR";
            case NFS3ERR_INVAL -> "NFS3ERR_INVAL";
            case NFS3ERR_NOSPC -> "NFS3ERR_NOSPC";
            case NFS3ERR_MLINK -> "NFS3ERR_MLINK";
            case NFS3ERR_NAMETOOLONG -> "NFS3ERR_NAMETOOLONG";
            case NFS3ERR_NOTEMPTY -> "NFS3ERR_NOTEMPTY";
            case NFS3ERR_STALE -> "NFS3ERR_STALE";
            case NFS3ERR_BADHANDLE -> "NFS3ERR_BADHANDLE";
            case NFS3ERR_NOT_SYNC -> "NFS3ERR_NOT_SYNC";
            case NFS3ERR_BAD_COOKIE -> "NFS3ERR_BAD_COOKIE";
            case NFS3ERR_NOTSUPP -> "NFS3ERR_NOTSUPP";
            case NFS3ERR_TOOSMALL -> "NFS3ERR_TOOSMALL";
            case NFS3ERR_SERVERFAULT -> "NFS3ERR_SERVERFAULT";
            default -> "nfsstat3(" + status + ")";
        };
    }
}
