package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A protection domain ({@code struct ibv_pd}): registrations, windows and queue pairs made in it
 * may be used together. Close it after everything made in it.
 */
public final class ProtectionDomain implements AutoCloseable {
    private final VerbsContext context;
    private final MemorySegment pd;
    private boolean closed;

    ProtectionDomain(VerbsContext context, MemorySegment pd) {
        this.context = context;
        this.pd = pd.reinterpret(Structs.IBV_PD.byteSize());
    }

    MemorySegment pointer() {
        if (closed) {
            throw new IllegalStateException("the protection domain was deallocated");
        }
        return pd;
    }

    /** @return the device it belongs to */
    public VerbsContext context() {
        return context;
    }

    /**
     * Registers native memory ({@code ibv_reg_mr}): pins it and gives it keys. Costs a system call
     * and page pinning (about a millisecond for 64 KiB in an emulated guest): register long-lived
     * buffers once, not per message.
     *
     * @param memory native memory that stays alive until the registration is closed
     * @param rights what the device and peers may do with it
     * @return the registration
     * @throws IllegalArgumentException for heap memory, which the device cannot address
     */
    public MemoryRegion register(MemorySegment memory, Access... rights) throws VerbsException {
        if (!memory.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment mr = Native.checkPointer("ibv_reg_mr", (MemorySegment) Ibv.REG_MR.invokeExact(
                    capture, pointer(), memory, memory.byteSize(), Access.bits(rights)), capture);
            return new MemoryRegion(mr, memory);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Allocates a type 2 memory window ({@code ibv_alloc_mw}): a remote key over part of a
     * registration, bound and invalidated by work requests on a queue pair, so that a peer's
     * access can be granted per operation and revoked by a Send with Invalidate.
     *
     * @return the unbound window
     * @throws VerbsException EOPNOTSUPP if the provider has no memory windows
     */
    public MemoryWindow allocateWindow() throws VerbsException {
        if (context.allocMw.equals(MemorySegment.NULL)) {
            throw new VerbsException("ibv_alloc_mw", Constants.EOPNOTSUPP);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment mw = Native.checkPointer("ibv_alloc_mw", (MemorySegment) ProviderOps.ALLOC_MW.invokeExact(
                    context.allocMw, capture, pointer(), Constants.IBV_MW_TYPE_2), capture);
            return new MemoryWindow(context, mw);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Creates a shared receive queue ({@code ibv_create_srq}) for queue pairs of this domain.
     *
     * @param maxReceives receives posted at once, at least
     * @param maxSge scatter/gather entries per receive, at least
     * @return the queue, to be closed after the queue pairs that use it and before this domain
     */
    public SharedReceiveQueue createSharedReceiveQueue(int maxReceives, int maxSge) throws VerbsException {
        return SharedReceiveQueue.create(this, maxReceives, maxSge);
    }

    /**
     * Creates an address handle to a peer's GID through a local port ({@code ibv_create_ah}, with a
     * global route: EFA routes by GID alone).
     *
     * @param gid the peer's GID
     * @param port the local port, from 1
     * @return the handle, to be closed before this domain
     */
    public AddressHandle createAddressHandle(Gid gid, int port) throws VerbsException {
        var l = Structs.IBV_AH_ATTR;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(l);
            MemorySegment.copy(gid.raw(), 0, attr, JAVA_BYTE, Structs.offset(l, "grh.dgid"), 16);
            attr.set(JAVA_BYTE, Structs.offset(l, "is_global"), (byte) 1);
            attr.set(JAVA_BYTE, Structs.offset(l, "port_num"), (byte) port);
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment ah = Native.checkPointer("ibv_create_ah",
                    (MemorySegment) Ibv.CREATE_AH.invokeExact(capture, pointer(), attr), capture);
            return new AddressHandle(ah, gid);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** Deallocates the domain ({@code ibv_dealloc_pd}); EBUSY while anything made in it lives. */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        try {
            Native.checkReturnedErrno("ibv_dealloc_pd", (int) Ibv.DEALLOC_PD.invokeExact(pd));
            closed = true;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
