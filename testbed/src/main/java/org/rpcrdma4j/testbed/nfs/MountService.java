package org.rpcrdma4j.testbed.nfs;

import static org.rpcrdma4j.testbed.nfs.Nfs3.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/**
 * MOUNT version 3 (RFC 1813 Appendix I, program 100005 version 3) for a single export: a <em>test service</em>.
 * MNT of the export path (trailing slashes ignored) returns the root handle and AUTH_SYS; any other path is
 * {@code MNT3ERR_NOENT}. No mount list is kept: DUMP is empty and UMNT/UMNTALL do nothing.
 */
public final class MountService implements RpcDispatchable {

    /** AUTH_SYS (AUTH_UNIX) flavor number. */
    private static final int AUTH_SYS = 1;

    private final String exportPath;
    private final byte[] exportBytes;
    private final FileHandles handles;

    /**
     * @param exportPath the path clients mount, e.g. {@code "/export"}, matched as its UTF-8 bytes
     * @param handles the handles of the exported directory
     */
    public MountService(String exportPath, FileHandles handles) {
        this.exportBytes = withoutTrailingSlashes(exportPath.getBytes(StandardCharsets.UTF_8));
        this.exportPath = new String(exportBytes, StandardCharsets.UTF_8);
        this.handles = handles;
    }

    private static byte[] withoutTrailingSlashes(byte[] path) {
        int n = path.length;
        while (n > 1 && path[n - 1] == '/') {
            n--;
        }
        return Arrays.copyOf(path, n);
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case MOUNTPROC3_NULL, MOUNTPROC3_UMNTALL -> call.reply(XdrVoid.XDR_VOID);
            case MOUNTPROC3_MNT -> {
                MountXdr.Dirpath a = new MountXdr.Dirpath();
                call.retrieveCall(a);
                MountXdr.MountResult r = new MountXdr.MountResult();
                if (Arrays.equals(withoutTrailingSlashes(a.path), exportBytes)) {
                    r.status = MNT3_OK;
                    r.fh = handles.rootHandle();
                    r.authFlavors = new int[] {AUTH_SYS};
                } else {
                    r.status = MNT3ERR_NOENT;
                }
                call.reply(r);
            }
            case MOUNTPROC3_DUMP -> call.reply(new MountXdr.EmptyList());
            case MOUNTPROC3_UMNT -> {
                call.retrieveCall(new MountXdr.Dirpath());
                call.reply(XdrVoid.XDR_VOID);
            }
            case MOUNTPROC3_EXPORT -> {
                MountXdr.Exports r = new MountXdr.Exports();
                r.exports = List.of(new MountXdr.Export(exportPath, List.of("*")));
                call.reply(r);
            }
            default -> call.failProcedureUnavailable();
        }
    }
}
