package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where an IP address sits in this host's RDMA GID tables, as rdma-core's tools name it ({@code -d DEVICE -i PORT
 * -g INDEX}), read from Linux's sysfs ({@code /sys/class/infiniband/DEVICE/ports/PORT/gids/INDEX}). A RoCE device
 * lists each address once per RoCE version; the RoCE v2 entry is taken, the one RDMA-CM uses.
 *
 * @param device the RDMA device, e.g. {@code rxe0}
 * @param port   its port, from 1
 * @param index  the GID's index in the port's table
 */
record RdmaGid(String device, int port, int index) {

    private static final Path CLASS = Path.of("/sys/class/infiniband");

    /**
     * @param address an address of this host (IPv4 is looked for as {@code ::ffff:a.b.c.d})
     * @return where it sits, if an RDMA device has it
     * @throws IOException if sysfs cannot be read
     */
    static Optional<RdmaGid> of(InetAddress address) throws IOException {
        String wanted = gidText(address);
        if (!Files.isDirectory(CLASS)) {
            return Optional.empty();
        }
        Optional<RdmaGid> any = Optional.empty();
        for (Path device : list(CLASS, false)) {
            for (Path port : list(device.resolve("ports"), true)) {
                for (Path gid : list(port.resolve("gids"), true)) {
                    if (!read(gid).equals(wanted)) {
                        continue;
                    }
                    RdmaGid found = new RdmaGid(device.getFileName().toString(),
                            Integer.parseInt(port.getFileName().toString()),
                            Integer.parseInt(gid.getFileName().toString()));
                    Path type = port.resolve("gid_attrs").resolve("types").resolve(gid.getFileName());
                    if (!Files.isReadable(type) || read(type).equals("RoCE v2")) {
                        return Optional.of(found);
                    }
                    any = any.or(() -> Optional.of(found));
                }
            }
        }
        return any;
    }

    /** @return the GID as sysfs writes it: eight groups of four hex digits */
    static String gidText(InetAddress address) {
        byte[] ip = address.getAddress();
        byte[] gid = new byte[16];
        if (address instanceof Inet4Address) {
            gid[10] = (byte) 0xff;
            gid[11] = (byte) 0xff;
            System.arraycopy(ip, 0, gid, 12, 4);
        } else {
            gid = ip;
        }
        StringBuilder text = new StringBuilder(39);
        for (int i = 0; i < 16; i += 2) {
            text.append(i == 0 ? "" : ":").append(String.format("%02x%02x", gid[i], gid[i + 1]));
        }
        return text.toString();
    }

    /** @return the entries of {@code dir}, sorted; only those named by a number if {@code numbered} */
    private static List<Path> list(Path dir, boolean numbered) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(entry -> !numbered || entry.getFileName().toString().matches("[0-9]+")).sorted()
                    .toList();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            // an entry sysfs cannot give (a GID slot of a port that is down): not the one looked for
            return "";
        }
    }
}
