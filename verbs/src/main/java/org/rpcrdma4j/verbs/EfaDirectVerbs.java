package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * EFA's direct verbs (libefa, efadv.h): what an EFA device can do, SRD queue pairs, and address
 * handle numbers. Every call loads libefa first ({@link LibraryUnavailableException} if it is missing)
 * and works only on an EFA device: libefa answers EOPNOTSUPP for any other.
 *
 * <p>None of this has run on EFA hardware: the layouts and constants are checked against rdma-core 44's
 * headers and the calls' plumbing against fakes in the JVM, nothing more.
 */
public final class EfaDirectVerbs {
    private EfaDirectVerbs() {
    }

    /**
     * Loads libefa (and libibverbs) and creates every downcall handle now.
     *
     * @throws LibraryUnavailableException if either library, or a function in it, is missing
     */
    public static void load() throws LibraryUnavailableException {
        Verbs.requireEfa();
    }

    /** @return the device's SRD limits and capabilities ({@code efadv_query_device}) */
    public static EfaDeviceAttributes queryDevice(VerbsContext device) throws VerbsException {
        Verbs.requireEfa();
        var l = Structs.EFADV_DEVICE_ATTR;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(l);
            Native.checkReturnedErrno("efadv_query_device",
                    (int) EfaDv.QUERY_DEVICE.invokeExact(device.pointer(), attr, (int) l.byteSize()));
            return EfaDeviceAttributes.decode(attr);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Creates an SRD queue pair ({@code efadv_create_qp_ex} with {@code IBV_QPT_DRIVER} and
     * {@code EFADV_QP_DRIVER_TYPE_SRD}), posted to through the extended work-request verbs. It starts in
     * RESET: {@link SrdQueuePair#activate} takes it to RTS.
     *
     * @param pd a protection domain of the device whose completion queues the config names
     * @return the queue pair, with the sizes the device granted
     */
    public static SrdQueuePair createSrdQueuePair(ProtectionDomain pd, SrdQueuePairConfig config)
            throws VerbsException {
        Verbs.requireEfa();
        var l = Structs.IBV_QP_INIT_ATTR_EX;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment init = arena.allocate(l);
            config.queues().writeTo(init, l);
            init.set(JAVA_INT, Structs.offset(l, "qp_type"), Constants.IBV_QPT_DRIVER);
            init.set(JAVA_INT, Structs.offset(l, "comp_mask"),
                    Constants.IBV_QP_INIT_ATTR_PD | Constants.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
            init.set(ADDRESS, Structs.offset(l, "pd"), pd.pointer());
            init.set(JAVA_LONG, Structs.offset(l, "send_ops_flags"), config.sendOpsFlags());
            MemorySegment efa = arena.allocate(Structs.EFADV_QP_INIT_ATTR);
            efa.set(JAVA_INT, Structs.offset(Structs.EFADV_QP_INIT_ATTR, "driver_qp_type"),
                    Constants.EFADV_QP_DRIVER_TYPE_SRD);
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment qp = Native.checkPointer("efadv_create_qp_ex", (MemorySegment) EfaDv.CREATE_QP_EX.invokeExact(
                    capture, pd.context().pointer(), init, efa, (int) Structs.EFADV_QP_INIT_ATTR.byteSize()), capture);
            MemorySegment qpEx = (MemorySegment) Ibv.QP_TO_QP_EX.invokeExact(qp);
            if (qpEx.equals(MemorySegment.NULL)) {
                int rc = (int) Ibv.DESTROY_QP.invokeExact(qp);
                throw new IllegalStateException("efadv_create_qp_ex made a queue pair without the extended verbs"
                        + (rc == 0 ? "" : "; ibv_destroy_qp then failed with " + rc));
            }
            SrdQueuePairConfig granted = new SrdQueuePairConfig(config.queues().granted(init, l),
                    config.rdmaRead(), config.rdmaWrite());
            return new SrdQueuePair(pd.context(), qpEx, granted);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * @return the device's number for an address handle ({@code efadv_query_ah}): what a receive
     *     completion from that peer carries in {@code slid}
     */
    public static int addressHandleNumber(AddressHandle handle) throws VerbsException {
        Verbs.requireEfa();
        var l = Structs.EFADV_AH_ATTR;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(l);
            Native.checkReturnedErrno("efadv_query_ah",
                    (int) EfaDv.QUERY_AH.invokeExact(handle.pointer(), attr, (int) l.byteSize()));
            return Short.toUnsignedInt(attr.get(JAVA_SHORT, Structs.offset(l, "ahn")));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
