/** {@code testbed serve}: the NFSv3 and MOUNT test service for clients in other processes and hosts. */
package org.rpcrdma4j.testbed.serve;
