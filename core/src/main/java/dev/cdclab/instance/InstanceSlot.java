package dev.cdclab.instance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * One running instance's slot under a base directory: the lowest {@code instance-N} no other
 * running instance holds, held by a file lock for as long as this instance runs. Instances started
 * on one machine from the same command line so never share a slot, and an instance restarted after
 * a crash (the operating system drops its lock) takes the slot back: its directory, with any local
 * state in it, and its {@link #memberId() consumer group identity}.
 */
public final class InstanceSlot implements AutoCloseable {
    private static final int MAX_INSTANCES = 1024;

    private final Path dir;
    private final String memberId;
    private final FileChannel channel;
    private final FileLock lock;

    private InstanceSlot(Path dir, String memberId, FileChannel channel, FileLock lock) {
        this.dir = dir;
        this.memberId = memberId;
        this.channel = channel;
        this.lock = lock;
    }

    /** Claims the lowest free {@code instance-N} under {@code base}, creating its directory. */
    public static InstanceSlot claim(Path base) {
        Path abs = base.toAbsolutePath().normalize();
        try {
            Files.createDirectories(abs);
            for (int n = 0; n < MAX_INSTANCES; n++) {
                Path lockFile = abs.resolve("instance-" + n + ".lock");
                FileChannel channel =
                        FileChannel.open(
                                lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    // held by another instance in this JVM
                    lock = null;
                }
                if (lock != null) {
                    Path dir = abs.resolve("instance-" + n);
                    Files.createDirectories(dir);
                    return new InstanceSlot(dir, memberId(abs, n), channel, lock);
                }
                channel.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot claim an instance slot under " + abs, e);
        }
        throw new IllegalStateException(
                base + " has " + MAX_INSTANCES + " running instances already");
    }

    /** This slot's directory, {@code <base>/instance-N}. */
    public Path path() {
        return dir;
    }

    /**
     * A consumer group member id ({@code group.instance.id}) that names this machine, base
     * directory and slot: unique among running instances, and the same for an instance restarted in
     * the slot, which so takes its partitions back without waiting for the group to drop the old
     * member.
     */
    public String memberId() {
        return memberId;
    }

    private static String memberId(Path base, int n) {
        CRC32 crc = new CRC32();
        crc.update(base.toString().getBytes(StandardCharsets.UTF_8));
        // group.instance.id admits [a-zA-Z0-9._-] only
        String host = hostName().replaceAll("[^a-zA-Z0-9._-]", "_");
        return String.format(Locale.ROOT, "%s-%08x-%d", host, crc.getValue(), n);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            // the lock goes with the process anyway
        }
    }
}
