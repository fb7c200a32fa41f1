package dev.cdclab.lab.report;

import dev.cdclab.format.Numbers;
import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongConsumer;

/** A progress bar for prefill: rewritten in place on a terminal, a few lines otherwise. */
public final class PrefillProgress implements LongConsumer {
    private static final int WIDTH = 30;

    private final PrintStream out;
    private final long total;
    private final boolean terminal = System.console() != null;
    private final long started = System.nanoTime();
    private int lastShown = -1;

    public PrefillProgress(PrintStream out, long total) {
        this.out = out;
        this.total = Math.max(1, total);
    }

    @Override
    public synchronized void accept(long done) {
        int percent = (int) Math.min(100, done * 100 / total);
        if (terminal) {
            int filled = percent * WIDTH / 100;
            out.printf(
                    Locale.ROOT,
                    "\rprefill [%s%s] %s / %s rows",
                    "#".repeat(filled),
                    ".".repeat(WIDTH - filled),
                    Numbers.count(done),
                    Numbers.count(total));
            out.flush();
        } else if (percent / 25 > lastShown / 25 && percent < 100) {
            out.printf(Locale.ROOT, "prefill %d%% (%s rows)%n", percent, Numbers.count(done));
        }
        lastShown = percent;
    }

    /** Prints the final line. */
    public void done(long rows) {
        if (terminal) {
            out.print("\r" + " ".repeat(WIDTH + 40) + "\r");
        }
        out.printf(
                Locale.ROOT,
                "prefill: %s rows in %.1f s (COPY)%n",
                Numbers.count(rows),
                (System.nanoTime() - started) / 1e9);
    }
}
