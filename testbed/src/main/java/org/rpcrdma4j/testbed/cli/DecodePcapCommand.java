package org.rpcrdma4j.testbed.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.rpcrdma4j.testbed.trace.RdmaSend;
import org.rpcrdma4j.testbed.trace.RoceSends;
import org.rpcrdma4j.testbed.trace.TruncatedCaptureException;
import org.rpcrdma4j.xdr.HeaderDecoder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code testbed decode pcap}: the RPC-over-RDMA messages of a RoCEv2 capture, one JSON object each. */
@Command(
        name = "pcap",
        mixinStandardHelpOptions = true,
        description = {
            "Decode the RPC-over-RDMA messages of RoCEv2 captures (pcap or pcapng, Ethernet or Linux cooked; what "
                    + "tcpdump, dumpcap and Wireshark write): every RDMA Send is put "
                    + "together from its packets and decoded with the strict decoder. Prints one JSON object per "
                    + "Send: {\"trace\":FILE,\"frame\":N,\"direction\":\"client->server|server->client\",\"message\":"
                    + "{...as decode rpcrdma prints it...}}. The client is the side that sent the RDMA-CM "
                    + "ConnectRequest.",
            "A file that cannot be read is reported and skipped; a capture cut short has its Sends before the cut "
                    + "printed and a warning naming the frame, as tshark does. Exits 0 when every capture was read "
                    + "whole, 2 otherwise."
        })
public final class DecodePcapCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "CAPTURE", description = "pcap or pcapng files to decode")
    private List<Path> captures;

    @Override
    public Integer call() {
        HeaderDecoder decoder = new HeaderDecoder();
        PrintWriter out = spec.commandLine().getOut();
        CaptureFiles files = new CaptureFiles(spec.commandLine().getErr());
        for (Path capture : captures) {
            List<RdmaSend> sends;
            List<TruncatedCaptureException> cut = new ArrayList<>(1);
            try (InputStream in = Files.newInputStream(capture)) {
                sends = RoceSends.read(in, cut::add);
            } catch (IOException e) {
                files.cannotRead(capture, e);
                continue;
            }
            for (RdmaSend send : sends) {
                out.println(new Json().beginObject().name("trace").value(capture.getFileName().toString())
                        .name("frame").value(send.frame()).name("direction").value(send.direction())
                        .name("message").raw(DecodeRpcRdmaCommand.describe(decoder, send.bytes())).endObject());
            }
            out.flush();
            cut.forEach(e -> files.cutShort(capture, e));
        }
        return files.troubled() ? 2 : 0;
    }
}
