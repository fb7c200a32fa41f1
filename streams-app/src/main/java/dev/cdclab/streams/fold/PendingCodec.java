package dev.cdclab.streams.fold;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cdclab.change.MalformedRecordException;
import dev.cdclab.change.RowImage;
import dev.cdclab.change.Schemas;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Binary encodings of the fold state store. Keys sort by interval start, then discriminator, then
 * table and key, so closing intervals is one range scan. Values hold the schema by id; the column
 * lists live in a store of their own.
 */
public final class PendingCodec {
    private static final byte VERSION = 2;
    private static final ObjectMapper MAPPER = new ObjectMapper();

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
        byte[] first = p.firstPosition().getBytes(StandardCharsets.UTF_8);
        byte[] last = p.lastPosition().getBytes(StandardCharsets.UTF_8);
        byte[] tx = p.transaction().getBytes(StandardCharsets.UTF_8);
        byte[] table = p.table().getBytes(StandardCharsets.UTF_8);
        byte[] key = p.key().toString().getBytes(StandardCharsets.UTF_8);
        byte[] image = p.image() == null ? new byte[0] : p.image().json();
        List<byte[]> unchanged = new ArrayList<>(p.unchanged().size());
        int unchangedBytes = 0;
        for (String u : p.unchanged()) {
            byte[] b = u.getBytes(StandardCharsets.UTF_8);
            unchanged.add(b);
            unchangedBytes += 4 + b.length;
        }
        int flags =
                (p.existedBefore() ? 1 : 0)
                        | (p.existsAfter() ? 2 : 0)
                        | (p.snapshot() ? 4 : 0)
                        | (p.image() != null ? 8 : 0)
                        | (p.generatorCommitMicros() != null ? 16 : 0);
        ByteBuffer b =
                ByteBuffer.allocate(
                        2
                                + 8 * 9
                                + 4
                                + 4 * 3
                                + first.length
                                + last.length
                                + tx.length
                                + 4
                                + table.length
                                + 4
                                + key.length
                                + 4
                                + unchangedBytes
                                + 4
                                + image.length);
        b.put(VERSION).put((byte) flags);
        b.putLong(p.interval().startMs()).putLong(p.interval().endMs());
        b.putLong(p.interval().discriminator());
        b.putLong(p.commitMs());
        b.putLong(p.capturedMs()).putLong(p.kafkaAppendMs());
        b.putLong(p.generatorCommitMicros() == null ? 0 : p.generatorCommitMicros());
        b.putLong(p.schema().id());
        b.putLong(0);
        b.putInt(p.rawChanges());
        b.putInt(first.length).put(first);
        b.putInt(last.length).put(last);
        b.putInt(tx.length).put(tx);
        b.putInt(table.length).put(table);
        b.putInt(key.length).put(key);
        b.putInt(unchanged.size());
        for (byte[] u : unchanged) {
            b.putInt(u.length).put(u);
        }
        b.putInt(image.length).put(image);
        return b.array();
    }

    /** The interval start of a stored value, without decoding the rest. */
    public static long intervalStart(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getLong(2);
    }

    /** The interval end of a stored value, without decoding the rest. */
    public static long intervalEnd(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getLong(10);
    }

    /**
     * Decodes a stored value.
     *
     * @param schemas finds a column list by id
     */
    public static PendingChange decode(byte[] bytes, LongFunction<Schemas.Described> schemas) {
        if (bytes == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (b.get() != VERSION) {
            throw new MalformedRecordException("unknown fold-state version");
        }
        int flags = b.get();
        long start = b.getLong();
        long end = b.getLong();
        long discriminator = b.getLong();
        long commitMs = b.getLong();
        long capturedMs = b.getLong();
        long kafkaMs = b.getLong();
        long generator = b.getLong();
        long schemaId = b.getLong();
        b.getLong();
        int raw = b.getInt();
        String firstPosition = string(b);
        String lastPosition = string(b);
        String transaction = string(b);
        String table = string(b);
        String key = string(b);
        int n = b.getInt();
        List<String> unchanged = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            unchanged.add(string(b));
        }
        byte[] image = new byte[b.getInt()];
        b.get(image);
        Schemas.Described schema = schemas.apply(schemaId);
        if (schema == null) {
            throw new MalformedRecordException("fold state refers to unknown schema " + schemaId);
        }
        ObjectNode keyNode;
        try {
            keyNode = (ObjectNode) MAPPER.readTree(key);
        } catch (IOException e) {
            throw new MalformedRecordException("fold state key is not JSON");
        }
        return new PendingChange(
                table,
                keyNode,
                new Interval(start, end, discriminator),
                (flags & 1) != 0,
                (flags & 2) != 0,
                (flags & 8) != 0 ? RowImage.ofJson(image) : null,
                List.copyOf(unchanged),
                schema,
                firstPosition,
                lastPosition,
                transaction,
                commitMs,
                capturedMs,
                kafkaMs,
                raw,
                (flags & 4) != 0,
                (flags & 16) != 0 ? generator : null);
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.getInt()];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
