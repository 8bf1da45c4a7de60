/**
 * libibverbs and librdmacm (rdma-core) bound through the Foreign Function and Memory API: what
 * an RPC-over-RDMA transport needs to run one RC queue pair per connection, set up by RDMA-CM.
 *
 * <p>Start with {@link org.rpcrdma4j.verbs.Verbs#load()} (both libraries, every downcall handle,
 * once; a missing library is a {@link org.rpcrdma4j.verbs.LibraryUnavailableException}) and a
 * {@link org.rpcrdma4j.verbs.CmEventChannel}. A listener's CONNECT_REQUEST brings a
 * {@link org.rpcrdma4j.verbs.CmId} whose {@link org.rpcrdma4j.verbs.VerbsContext device} gives a
 * {@link org.rpcrdma4j.verbs.ProtectionDomain}, {@link org.rpcrdma4j.verbs.MemoryRegion memory
 * registrations}, a {@link org.rpcrdma4j.verbs.CompletionChannel} and
 * {@link org.rpcrdma4j.verbs.CompletionQueue completion queues}; the id then gets its
 * {@link org.rpcrdma4j.verbs.QueuePair} and is accepted with private data. Work is posted with
 * reusable {@link org.rpcrdma4j.verbs.SendWorkRequest} and
 * {@link org.rpcrdma4j.verbs.ReceiveWorkRequest} and completes into a reusable
 * {@link org.rpcrdma4j.verbs.WorkCompletions}: the data path allocates nothing and calls the
 * provider's functions directly ({@code ibv_post_send} and friends are static inline in verbs.h,
 * so they are reached through {@code ibv_context.ops}). A progress thread sleeps in an
 * {@link org.rpcrdma4j.verbs.FdPoller} on the channels' descriptors and the device's
 * {@link org.rpcrdma4j.verbs.VerbsContext#asyncEventFd() asynchronous events}, with a timeout and
 * a wake-up.
 *
 * <p>Errors: a failed call throws {@link org.rpcrdma4j.verbs.VerbsException} with the call's name
 * and errno; a failed work request is a completion with a {@link org.rpcrdma4j.verbs.WcStatus};
 * misuse (a heap segment to register, too much private data) throws
 * {@link java.lang.IllegalArgumentException}. Objects are not thread-safe unless they say so: one
 * progress thread owns a channel and everything made on it.
 *
 * <p>EFA's direct verbs (libefa): {@link org.rpcrdma4j.verbs.EfaDirectVerbs} queries an EFA device
 * and creates {@link org.rpcrdma4j.verbs.SrdQueuePair SRD queue pairs}, posted to through the
 * extended work-request verbs, to peers named by {@link org.rpcrdma4j.verbs.AddressHandle address
 * handles}. Checked against rdma-core 44's headers and in-JVM fakes only: never run on EFA hardware.
 *
 * <p>Structs are hand-written layouts of rdma-core 44 on x86_64 ({@code Structs}), checked by
 * tests against offsets taken from the real headers ({@code src/test/layouts}). Needs JDK 22+
 * and {@code --enable-native-access=ALL-UNNAMED} (or the module's name).
 */
package org.rpcrdma4j.verbs;
