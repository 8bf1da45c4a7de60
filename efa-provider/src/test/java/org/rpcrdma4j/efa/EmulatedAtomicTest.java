package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.efa.CompletionEntry.Kind;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * Emulated atomics (EFA RDM protocol v4 §3.3) end to end on the simulated device: every operation on every
 * datatype through every call that takes it, against a reference computed here from fi_atomic(3)'s definitions
 * in arbitrary-precision arithmetic; one element and as many as one packet holds; plain and under reordering, RNR
 * and a one-slot send queue; with a canary around the target's elements and the result buffer. Refused accesses
 * touch nothing and end as the protocol can report them; atomics from one peer apply in the order sent, and from
 * several peers on one word each exactly once.
 */
class EmulatedAtomicTest {

    private static final FaultPlan FAULTS = FaultPlan.NONE.withDelay(0, 4_000).withReorder(0.3, 4).withRnr(0.3);
    private static final SimDeviceConfig FAULTY = SimDeviceConfig.DEFAULT.withSendQueueDepth(1).withFaults(FAULTS);
    private static final Set<Access> READ_WRITE = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);
    private static final int CANARY = 32;
    private static final byte CANARY_BYTE = 0x5a;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    static Stream<Arguments> everyOperationOnEveryDatatype() {
        final List<Arguments> cases = new ArrayList<>();
        for (AtomicDatatype type : AtomicDatatype.values()) {
            for (AtomicOp op : AtomicOp.values()) {
                cases.add(Arguments.of(type, op));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyOperationOnEveryDatatype")
    void everyOperationOnEveryDatatypeMatchesTheReference(AtomicDatatype type, AtomicOp op) {
        final SimPair pair = pair(SimDeviceConfig.DEFAULT);
        final List<Kind> kinds = kindsOf(op);
        assertThat(kinds).as("a call takes %s", op).isNotEmpty();
        for (Kind kind : kinds) {
            assertAtomic(pair, kind, type, op, 1, seed.seed());
            assertAtomic(pair, kind, type, op, 9, ~seed.seed());
        }
    }

    static Stream<Arguments> everyKindOnEveryDatatype() {
        final List<Arguments> cases = new ArrayList<>();
        for (AtomicDatatype type : AtomicDatatype.values()) {
            for (boolean faults : new boolean[] {false, true}) {
                cases.add(Arguments.of(type, Kind.ATOMIC, AtomicOp.SUM, faults));
                cases.add(Arguments.of(type, Kind.FETCH_ATOMIC, AtomicOp.ATOMIC_WRITE, faults));
                cases.add(Arguments.of(type, Kind.COMPARE_ATOMIC, AtomicOp.CSWAP, faults));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{1} {2} on {0}, faults {3}")
    @MethodSource("everyKindOnEveryDatatype")
    void oneElementAndTheMostOnePacketHoldsArriveWhole(AtomicDatatype type, Kind kind, AtomicOp op, boolean faults) {
        final SimPair pair = pair(faults ? FAULTY : SimDeviceConfig.DEFAULT);
        final int max = pair.a.maxAtomicCount(type, op);
        assertAtomic(pair, kind, type, op, 1, seed.seed());
        assertAtomic(pair, kind, type, op, max, seed.seed() + 1);
        final ByteBuffer tooMany = ByteBuffer.allocate((max + 1) * type.size());
        assertThatThrownBy(() -> post(pair, kind, tooMany, tooMany, tooMany,
                new RmaIov(0, tooMany.capacity(), 1), type, op, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most " + max);
    }

    @Test
    void theLimitIsTheProvidersAndThePacketHasRoomForIt() {
        final SimPair pair = pair(SimDeviceConfig.DEFAULT);
        // efa_rdm_atomic_query: MTU - 24 (RTA header) - 32 (raw address) - 4 * 24 (fi_rma_iov), halved to compare.
        final int room = SimDeviceConfig.DEFAULT_MTU - 24 - 32 - 4 * 24;
        assertThat(pair.a.maxAtomicCount(AtomicDatatype.INT8, AtomicOp.SUM)).isEqualTo(room);
        assertThat(pair.a.maxAtomicCount(AtomicDatatype.UINT16, AtomicOp.ATOMIC_READ)).isEqualTo(room / 2);
        assertThat(pair.a.maxAtomicCount(AtomicDatatype.INT32, AtomicOp.MSWAP)).isEqualTo(room / 2 / 4);
        assertThat(pair.a.maxAtomicCount(AtomicDatatype.UINT64, AtomicOp.CSWAP)).isEqualTo(room / 2 / 8);
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"ATOMIC", "FETCH_ATOMIC", "COMPARE_ATOMIC"})
    void aBadKeyBoundsOrRightTouchesNothingAndEndsAsTheProtocolCanTell(Kind kind) {
        final SimPair pair = pair(SimDeviceConfig.DEFAULT);
        final int size = 16;
        final ByteBuffer target = canaried(size);
        final MemoryRegion both = pair.b.register(slice(target, size), READ_WRITE);
        final MemoryRegion readOnly = pair.b.register(slice(target, size), EnumSet.of(Access.REMOTE_READ));
        final MemoryRegion writeOnly = pair.b.register(slice(target, size), EnumSet.of(Access.REMOTE_WRITE));
        final List<RmaIov> refused = new ArrayList<>(List.of(new RmaIov(both.address(), size, both.key() + 1000),
                new RmaIov(both.address() + 8, size, both.key()), readOnly.iov(0, size)));
        if (kind != Kind.ATOMIC) {
            // A fetch or compare that may change the elements reads and writes them.
            refused.add(writeOnly.iov(0, size));
        }
        final AtomicOp op = kind == Kind.COMPARE_ATOMIC ? AtomicOp.CSWAP : AtomicOp.SUM;
        // Compare data equal to the target's zeros: a CSWAP that ran would change them.
        final ByteBuffer operand = SimPair.pattern(size, 3);
        final ByteBuffer compare = ByteBuffer.allocate(size);
        final ByteBuffer result = canaried(size);

        for (RmaIov remote : refused) {
            assertThat(post(pair, kind, operand, compare, slice(result, size), remote, AtomicDatatype.UINT64, op, 1))
                    .isTrue();
            pair.runUntil(() -> pair.doneA.size() == 1);
            // A WRITE_RTA names no operation for the target to report: it completed when it was delivered.
            assertThat(pair.doneA.remove(0).error()).isEqualTo(kind == Kind.ATOMIC ? EfaErrorCode.SUCCESS
                    : EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        }
        pair.runUntil(() -> pair.b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED) == refused.size());

        assertThat(target).isEqualTo(canaried(size));
        assertThat(result).isEqualTo(canaried(size));
        assertThat(pair.b.statistics().counter(EndpointCounter.EMULATED_ATOMICS_SERVED)).isZero();
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT))
                .isEqualTo(kind == Kind.ATOMIC ? 0 : refused.size());
        assertThat(pair.a.statistics().counter(EndpointCounter.PEER_ERRORS_RECEIVED))
                .isEqualTo(kind == Kind.ATOMIC ? 0 : refused.size());
        assertThat(pair.doneB).isEmpty();

        assertAtomic(pair, kind, AtomicDatatype.UINT64, op, 2, seed.seed());
        assertThat(pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
    }

    @Test
    void anAtomicReadNeedsOnlyTheRemoteReadRight() {
        final SimPair pair = pair(SimDeviceConfig.DEFAULT);
        final ByteBuffer target = SimPair.pattern(8, 4);
        final MemoryRegion readOnly = pair.b.register(target, EnumSet.of(Access.REMOTE_READ));
        final ByteBuffer result = ByteBuffer.allocate(8);

        pair.a.fetchAtomic(pair.aToB, null, result, readOnly.iov(0, 8), AtomicDatatype.INT64, AtomicOp.ATOMIC_READ, 1);
        pair.runUntil(() -> pair.doneA.size() == 1);
        pair.a.fetchAtomic(pair.aToB, ByteBuffer.allocate(8), ByteBuffer.allocate(8), readOnly.iov(0, 8),
                AtomicDatatype.INT64, AtomicOp.ATOMIC_WRITE, 2);
        pair.runUntil(() -> pair.doneA.size() == 2);

        assertThat(pair.doneA.get(0)).isEqualTo(new CompletionEntry(Kind.FETCH_ATOMIC, 1, 8, 0, 0, false, pair.aToB,
                EfaErrorCode.SUCCESS));
        assertThat(result).isEqualTo(SimPair.pattern(8, 4));
        assertThat(pair.doneA.get(1).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(target).isEqualTo(SimPair.pattern(8, 4));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void atomicsFromOnePeerApplyInTheOrderSent(boolean faults) {
        // Each swap writes its own number and fetches what the one before wrote; reordered packets wait their turn.
        final SimPair pair = pair(faults ? FAULTY : SimDeviceConfig.DEFAULT);
        final ByteBuffer target = canaried(4);
        final MemoryRegion remote = pair.b.register(slice(target, 4), READ_WRITE);
        final int swaps = 200;
        final ByteBuffer[] results = new ByteBuffer[swaps];
        for (int i = 0; i < swaps; i++) {
            results[i] = ByteBuffer.allocate(4);
            final ByteBuffer operand = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, i + 1);
            if (i % 2 == 0) {
                assertThat(pair.a.fetchAtomic(pair.aToB, operand, results[i], remote.iov(0, 4), AtomicDatatype.UINT32,
                        AtomicOp.ATOMIC_WRITE, i)).isTrue();
            } else {
                // A comparison that always holds (0 <= any UINT32): a swap too, by the other packet type.
                assertThat(pair.a.compareAtomic(pair.aToB, operand, ByteBuffer.allocate(4), results[i],
                        remote.iov(0, 4), AtomicDatatype.UINT32, AtomicOp.CSWAP_LE, i)).isTrue();
            }
        }
        pair.runUntil(() -> pair.doneA.size() == swaps);

        assertThat(pair.doneA).allMatch(CompletionEntry::ok);
        for (int i = 0; i < swaps; i++) {
            assertThat(results[i].order(ByteOrder.LITTLE_ENDIAN).getInt(0)).as("what swap %d found", i).isEqualTo(i);
        }
        assertThat(slice(target, 4).order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isEqualTo(swaps);
        assertCanary(target, 4);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void addsFromThreePeersOnOneWordAreEachAppliedOnce(boolean faults) {
        final SimNet net = new SimNet(seed.seed());
        final SimDeviceConfig device = faults ? FAULTY : SimDeviceConfig.DEFAULT;
        final EfaEndpoint target = net.add(1, device, EndpointConfig.DEFAULT);
        final ByteBuffer word = canaried(8);
        final RmaIov remote = target.register(slice(word, 8), READ_WRITE).iov(0, 8);
        final int peers = 3;
        final int each = 400;
        final List<EfaEndpoint> initiators = new ArrayList<>();
        final long[] handles = new long[peers];
        final int[] posted = new int[peers];
        final List<ByteBuffer> fetched = new ArrayList<>();
        for (int p = 0; p < peers; p++) {
            final EfaEndpoint initiator = net.add(2 + p, device, EndpointConfig.DEFAULT);
            handles[p] = initiator.insert(target.address());
            initiators.add(initiator);
        }
        final ByteBuffer one = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 1);
        net.everyStep(() -> {
            for (int p = 0; p < peers; p++) {
                // Half fetch and add, half add: the fetched values show each add applied alone. At most 64 in flight
                // per peer, well within what the target answers at once for one peer (EndpointLimits.sendsPerPeer).
                while (posted[p] < each && posted[p] - net.done(initiators.get(p)).size() < 64) {
                    final ByteBuffer result = ByteBuffer.allocate(8);
                    final boolean accepted = posted[p] % 2 == 0
                            ? initiators.get(p).fetchAtomic(handles[p], one, result, remote, AtomicDatatype.UINT64,
                                    AtomicOp.SUM, posted[p])
                            : initiators.get(p).atomic(handles[p], one, remote, AtomicDatatype.INT64, AtomicOp.SUM,
                                    posted[p]);
                    if (!accepted) {
                        break;
                    }
                    if (posted[p] % 2 == 0) {
                        fetched.add(result);
                    }
                    posted[p]++;
                }
            }
        });
        net.runUntil(() -> initiators.stream().allMatch(i -> net.done(i).size() == each));
        // A write atomic completes when delivered: give the last ones time to be applied.
        net.runUntil(() -> target.statistics().counter(EndpointCounter.EMULATED_ATOMICS_SERVED) == (long) peers * each);

        for (EfaEndpoint initiator : initiators) {
            assertThat(net.done(initiator)).allMatch(CompletionEntry::ok);
        }
        assertThat(slice(word, 8).order(ByteOrder.LITTLE_ENDIAN).getLong(0)).isEqualTo((long) peers * each);
        assertCanary(word, 8);
        final Set<Long> seen = new HashSet<>();
        for (ByteBuffer result : fetched) {
            final long before = result.order(ByteOrder.LITTLE_ENDIAN).getLong(0);
            assertThat(before).isBetween(0L, (long) peers * each - 1);
            assertThat(seen.add(before)).as("value %d fetched twice", before).isTrue();
        }
        assertThat(net.done(target)).isEmpty();
    }

    @Test
    void theApiRefusesWhatLibfabricRefuses() {
        final SimPair pair = pair(SimDeviceConfig.DEFAULT);
        final RmaIov eight = new RmaIov(0, 8, 1);
        final ByteBuffer b8 = ByteBuffer.allocate(8);
        final AtomicDatatype u64 = AtomicDatatype.UINT64;

        assertRefused(() -> pair.a.atomic(pair.aToB, b8, eight, u64, AtomicOp.ATOMIC_READ, 1), "no write atomic");
        assertRefused(() -> pair.a.atomic(pair.aToB, b8, eight, u64, AtomicOp.CSWAP, 1), "no write atomic");
        assertRefused(() -> pair.a.fetchAtomic(pair.aToB, b8, b8, eight, u64, AtomicOp.MSWAP, 1), "no fetch atomic");
        assertRefused(() -> pair.a.compareAtomic(pair.aToB, b8, b8, b8, eight, u64, AtomicOp.SUM, 1),
                "no compare atomic");
        assertRefused(() -> pair.a.atomic(pair.aToB, b8, new RmaIov(0, 0, 1), u64, AtomicOp.SUM, 1), "whole");
        assertRefused(() -> pair.a.atomic(pair.aToB, ByteBuffer.allocate(6), new RmaIov(0, 6, 1), AtomicDatatype.INT32,
                AtomicOp.SUM, 1), "whole");
        assertRefused(() -> pair.a.atomic(pair.aToB, ByteBuffer.allocate(4), eight, u64, AtomicOp.SUM, 1),
                "operand has 4 bytes");
        assertRefused(() -> pair.a.compareAtomic(pair.aToB, b8, ByteBuffer.allocate(16), b8, eight, u64,
                AtomicOp.CSWAP, 1), "compare has 16 bytes");
        assertRefused(() -> pair.a.fetchAtomic(pair.aToB, b8, ByteBuffer.allocate(9), eight, u64, AtomicOp.SUM, 1),
                "result has 9 bytes");
        assertRefused(() -> pair.a.fetchAtomic(pair.aToB, b8, b8.asReadOnlyBuffer(), eight, u64, AtomicOp.SUM, 1),
                "writable");
        assertRefused(() -> pair.a.atomic(12345, b8, eight, u64, AtomicOp.SUM, 1), "no peer");

        assertThat(pair.a.statistics().counter(EndpointCounter.WRITE_RTA_ATOMICS)
                + pair.a.statistics().counter(EndpointCounter.FETCH_RTA_ATOMICS)
                + pair.a.statistics().counter(EndpointCounter.COMPARE_RTA_ATOMICS)).isZero();
        assertThat(pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
    }

    private static void assertRefused(Runnable call, String message) {
        assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    private SimPair pair(SimDeviceConfig device) {
        final SimPair pair = new SimPair(seed.seed(), device, device, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        pair.handshake();
        return pair;
    }

    private static List<Kind> kindsOf(AtomicOp op) {
        final List<Kind> kinds = new ArrayList<>();
        if (op.isWrite()) {
            kinds.add(Kind.ATOMIC);
        }
        if (op.isFetch()) {
            kinds.add(Kind.FETCH_ATOMIC);
        }
        if (op.isCompare()) {
            kinds.add(Kind.COMPARE_ATOMIC);
        }
        return kinds;
    }

    private static boolean post(SimPair pair, Kind kind, ByteBuffer operand, ByteBuffer compare, ByteBuffer result,
                                RmaIov remote, AtomicDatatype type, AtomicOp op, long context) {
        return switch (kind) {
            case ATOMIC -> pair.a.atomic(pair.aToB, operand, remote, type, op, context);
            case FETCH_ATOMIC -> pair.a.fetchAtomic(pair.aToB, operand, result, remote, type, op, context);
            default -> pair.a.compareAtomic(pair.aToB, operand, compare, result, remote, type, op, context);
        };
    }

    /**
     * Runs one atomic of {@code count} elements A to B on a canaried registration of drawn elements, and checks the
     * target's elements, the result and the completions against {@link #reference}.
     */
    private static void assertAtomic(SimPair pair, Kind kind, AtomicDatatype type, AtomicOp op, int count, long draw) {
        final int size = count * type.size();
        final Random random = new Random(draw);
        final ByteBuffer target = canaried(size);
        elements(type, slice(target, size), random);
        final ByteBuffer before = copy(slice(target, size));
        final ByteBuffer operand = elements(type, ByteBuffer.allocate(size), random);
        // Compare data equal to the target on every other element, so that each comparison goes both ways.
        final ByteBuffer compare = elements(type, ByteBuffer.allocate(size), random);
        for (int i = 0; i < count; i += 2) {
            compare.put(i * type.size(), before, i * type.size(), type.size());
        }
        final ByteBuffer result = canaried(size);
        final MemoryRegion remote = pair.b.register(slice(target, size), READ_WRITE);
        final long sent = pair.a.statistics().counter(EndpointCounter.WRITE_RTA_ATOMICS)
                + pair.a.statistics().counter(EndpointCounter.FETCH_RTA_ATOMICS)
                + pair.a.statistics().counter(EndpointCounter.COMPARE_RTA_ATOMICS);
        final long served = pair.b.statistics().counter(EndpointCounter.EMULATED_ATOMICS_SERVED);

        assertThat(post(pair, kind, copy(operand), copy(compare), slice(result, size), remote.iov(0, size), type, op,
                7)).isTrue();
        pair.runUntil(() -> pair.doneA.size() == 1
                && pair.b.statistics().counter(EndpointCounter.EMULATED_ATOMICS_SERVED) == served + 1);

        final String what = kind + " " + op + " on " + count + " " + type;
        assertThat(pair.doneA).as(what).containsExactly(
                new CompletionEntry(kind, 7, size, 0, 0, false, pair.aToB, EfaErrorCode.SUCCESS));
        assertThat(pair.doneB).as("an atomic completes at its initiator only").isEmpty();
        assertThat(slice(target, size)).as(what).isEqualTo(reference(type, op, before, operand, compare));
        assertCanary(target, size);
        if (kind != Kind.ATOMIC) {
            assertThat(slice(result, size)).as("the elements before %s", what).isEqualTo(before);
            assertCanary(result, size);
        }
        assertThat(pair.a.statistics().counter(EndpointCounter.WRITE_RTA_ATOMICS)
                + pair.a.statistics().counter(EndpointCounter.FETCH_RTA_ATOMICS)
                + pair.a.statistics().counter(EndpointCounter.COMPARE_RTA_ATOMICS)).isEqualTo(sent + 1);
        pair.runUntil(() -> pair.b.statistics().gauge(EndpointGauge.TX_ENTRIES) == 0);
        assertThat(pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
        pair.b.deregister(remote);
        pair.doneA.clear();
    }

    /**
     * The target's elements after {@code op}, from fi_atomic(3)'s definitions on the elements' mathematical
     * values, wrapped to the type's width at the end.
     */
    private static ByteBuffer reference(AtomicDatatype type, AtomicOp op, ByteBuffer before, ByteBuffer operand,
                                        ByteBuffer compare) {
        final int count = before.capacity() / type.size();
        final ByteBuffer after = ByteBuffer.allocate(before.capacity());
        for (int i = 0; i < count; i++) {
            final BigInteger addr = value(type, before, i);
            final BigInteger buf = value(type, operand, i);
            final BigInteger cmp = value(type, compare, i);
            final BigInteger result = switch (op) {
                case MIN -> buf.compareTo(addr) < 0 ? buf : addr;
                case MAX -> buf.compareTo(addr) > 0 ? buf : addr;
                case SUM -> addr.add(buf);
                case PROD -> addr.multiply(buf);
                case LOR -> truth(isTrue(addr) || isTrue(buf));
                case LAND -> truth(isTrue(addr) && isTrue(buf));
                case BOR -> addr.or(buf);
                case BAND -> addr.and(buf);
                case LXOR -> truth(isTrue(addr) && !isTrue(buf) || !isTrue(addr) && isTrue(buf));
                case BXOR -> addr.xor(buf);
                case ATOMIC_READ -> addr;
                case ATOMIC_WRITE -> buf;
                case CSWAP -> cmp.equals(addr) ? buf : addr;
                case CSWAP_NE -> !cmp.equals(addr) ? buf : addr;
                case CSWAP_LE -> cmp.compareTo(addr) <= 0 ? buf : addr;
                case CSWAP_LT -> cmp.compareTo(addr) < 0 ? buf : addr;
                case CSWAP_GE -> cmp.compareTo(addr) >= 0 ? buf : addr;
                case CSWAP_GT -> cmp.compareTo(addr) > 0 ? buf : addr;
                case MSWAP -> buf.and(cmp).or(addr.and(cmp.not()));
            };
            store(type, after, i, result);
        }
        return after;
    }

    private static boolean isTrue(BigInteger value) {
        return value.signum() != 0;
    }

    private static BigInteger truth(boolean value) {
        return value ? BigInteger.ONE : BigInteger.ZERO;
    }

    /** Element {@code i}, little endian, as the number it is: negative only for a signed type. */
    private static BigInteger value(AtomicDatatype type, ByteBuffer buffer, int i) {
        final byte[] bigEndian = new byte[type.size()];
        for (int k = 0; k < type.size(); k++) {
            bigEndian[type.size() - 1 - k] = buffer.get(i * type.size() + k);
        }
        return type.signed() ? new BigInteger(bigEndian) : new BigInteger(1, bigEndian);
    }

    /** Stores {@code value} modulo 2^bits, little endian. */
    private static void store(AtomicDatatype type, ByteBuffer buffer, int i, BigInteger value) {
        final BigInteger wrapped = value.mod(BigInteger.ONE.shiftLeft(8 * type.size()));
        for (int k = 0; k < type.size(); k++) {
            buffer.put(i * type.size() + k, wrapped.shiftRight(8 * k).byteValue());
        }
    }

    /** Fills {@code buffer} with drawn elements, among them 0, 1, all ones and the signed extremes. */
    private static ByteBuffer elements(AtomicDatatype type, ByteBuffer buffer, Random random) {
        final int size = type.size();
        for (int i = 0; i < buffer.capacity() / size; i++) {
            final int kind = random.nextInt(6);
            for (int k = 0; k < size; k++) {
                final byte b = switch (kind) {
                    case 0 -> 0;
                    case 1 -> (byte) (k == 0 ? 1 : 0);
                    case 2 -> (byte) 0xff;
                    case 3 -> (byte) (k == size - 1 ? 0x80 : 0);
                    case 4 -> (byte) (k == size - 1 ? 0x7f : 0xff);
                    default -> (byte) random.nextInt();
                };
                buffer.put(i * size + k, b);
            }
        }
        return buffer;
    }

    private static ByteBuffer copy(ByteBuffer buffer) {
        return ByteBuffer.allocate(buffer.remaining()).put(0, buffer, buffer.position(), buffer.remaining());
    }

    /** {@code size} zero bytes between two runs of canary bytes. */
    private static ByteBuffer canaried(int size) {
        final ByteBuffer buffer = ByteBuffer.allocate(size + 2 * CANARY);
        for (int i = 0; i < CANARY; i++) {
            buffer.put(i, CANARY_BYTE).put(CANARY + size + i, CANARY_BYTE);
        }
        return buffer;
    }

    private static ByteBuffer slice(ByteBuffer canaried, int size) {
        return canaried.slice(CANARY, size);
    }

    private static void assertCanary(ByteBuffer canaried, int size) {
        for (int i = 0; i < CANARY; i++) {
            assertThat(canaried.get(i)).isEqualTo(CANARY_BYTE);
            assertThat(canaried.get(CANARY + size + i)).isEqualTo(CANARY_BYTE);
        }
    }
}
