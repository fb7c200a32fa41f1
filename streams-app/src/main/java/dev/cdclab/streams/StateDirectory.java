package dev.cdclab.streams;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One Streams instance's own directory under {@code state.dir}: the lowest {@code instance-N} no
 * other running instance holds, held by a file lock for as long as this instance runs. Instances
 * started on one machine from the same command line so never share a state directory, and an
 * instance restarted after a crash (the operating system drops its lock) takes the directory back
 * with the local state in it.
 */
final class StateDirectory implements AutoCloseable {
    private static final int MAX_INSTANCES = 1024;

    private final Path dir;
    private final FileChannel channel;
    private final FileLock lock;

    private StateDirectory(Path dir, FileChannel channel, FileLock lock) {
        this.dir = dir;
        this.channel = channel;
        this.lock = lock;
    }

    /** Claims the lowest free {@code instance-N} under {@code base}. */
    static StateDirectory claim(Path base) {
        try {
            Files.createDirectories(base);
            for (int n = 0; n < MAX_INSTANCES; n++) {
                Path lockFile = base.resolve("instance-" + n + ".lock");
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
                    Path dir = base.resolve("instance-" + n);
                    Files.createDirectories(dir);
                    return new StateDirectory(dir, channel, lock);
                }
                channel.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot claim a state directory under " + base, e);
        }
        throw new IllegalStateException(
                "state.dir " + base + " has " + MAX_INSTANCES + " running instances already");
    }

    Path path() {
        return dir;
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
