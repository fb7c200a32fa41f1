package dev.cdclab.streams.fold;

import dev.cdclab.change.NetChange;
import dev.cdclab.change.NetChangeCodec;
import dev.cdclab.change.NetChangeMode;
import dev.cdclab.change.NetChangeRecord;
import dev.cdclab.change.NetOperation;
import dev.cdclab.change.StageTimes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Byte encodings of the fold state store: keys sort by interval start, then discriminator, then
 * table and key, so closing intervals is one range scan.
 */
public final class PendingCodec {
    private static final int HEADER = 1 + 8;

    private PendingCodec() {}

    /** Store key: 8-byte interval start, 8-byte discriminator, UTF-8 table/key. */
    public static byte[] key(Interval interval, String tableKey) {
        byte[] tk = tableKey.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(16 + tk.length)
                .putLong(interval.startMs())
                .putLong(interval.discriminator())
                .put(tk)
                .array();
    }

    /**
     * Smallest key with an interval start of at least {@code startMs} (starts are non-negative).
     */
    public static byte[] lowerBound(long startMs) {
        return ByteBuffer.allocate(8).putLong(Math.max(0, startMs)).array();
    }

    public static byte[] encode(PendingChange p) {
        int flags = (p.existedBefore() ? 1 : 0) | (p.existsAfter() ? 2 : 0);
        NetChange asChange =
                new NetChange(
                        p.table(),
                        p.existsAfter() ? NetOperation.INSERT : NetOperation.DELETE,
                        p.key(),
                        p.image(),
                        p.unchanged(),
                        p.columns(),
                        p.interval().startMs(),
                        p.interval().endMs(),
                        p.firstLsn(),
                        p.lastLsn(),
                        p.txId(),
                        p.commitMs(),
                        p.rawChanges(),
                        p.snapshot(),
                        NetChangeMode.ALL,
                        new StageTimes(p.commitMs(), p.capturedMs(), p.kafkaAppendMs(), 0),
                        p.generatorCommitMicros());
        byte[] body = NetChangeCodec.encode(asChange);
        return ByteBuffer.allocate(HEADER + body.length)
                .put((byte) flags)
                .putLong(p.interval().discriminator())
                .put(body)
                .array();
    }

    public static PendingChange decode(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        int flags = buf.get();
        long discriminator = buf.getLong();
        byte[] body = new byte[bytes.length - HEADER];
        buf.get(body);
        NetChangeRecord r = NetChangeCodec.decode(body);
        NetChange c = (NetChange) r;
        return new PendingChange(
                c.table(),
                c.key(),
                new Interval(c.intervalStartMs(), c.intervalEndMs(), discriminator),
                (flags & 1) != 0,
                (flags & 2) != 0,
                c.after(),
                c.unchanged(),
                c.columns(),
                c.firstLsn(),
                c.lastLsn(),
                c.txId(),
                c.commitMs(),
                c.stages().capturedMs(),
                c.stages().kafkaAppendMs(),
                c.rawChanges(),
                c.snapshot(),
                c.generatorCommitMicros());
    }
}
