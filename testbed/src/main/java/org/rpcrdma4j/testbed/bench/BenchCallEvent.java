package org.rpcrdma4j.testbed.bench;

import jdk.jfr.Category;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A JFR event spanning one blocking call of {@code bench rpc}, from before oncrpc4j encodes it to after the
 * caller has the decoded result: the frame the transport's {@code CallStepEvent}s of that call fall in.
 */
@Name("org.rpcrdma4j.testbed.BenchCall")
@Label("bench rpc call")
@Category({"rpcrdma4j", "testbed"})
@StackTrace(false)
@Enabled(false)
final class BenchCallEvent extends Event {
}
