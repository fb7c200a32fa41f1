package dev.cdclab.lab.report;

import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * One status line refreshed every second: rewritten in place on a terminal, printed every five
 * seconds otherwise (logs, CI). The supplier is called only when the line is shown; use {@link
 * RateMeter} for per-second figures.
 */
public final class ProgressLine implements AutoCloseable {
    private final PrintStream out;
    private final Supplier<String> line;
    private final boolean terminal;
    private final Thread thread;
    private volatile boolean running = true;
    private int lastLength;

    public ProgressLine(PrintStream out, Supplier<String> line) {
        this.out = out;
        this.line = line;
        this.terminal = System.console() != null;
        this.thread = new Thread(this::loop, "progress");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        long tick = 0;
        while (running) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            if (!running) {
                return;
            }
            tick++;
            // ask only when the line is shown, so "since last call" figures cover what it shows
            if (!terminal && tick % 5 != 0) {
                continue;
            }
            String s;
            try {
                s = line.get();
            } catch (RuntimeException e) {
                s = "(status unavailable: " + e.getMessage() + ")";
            }
            synchronized (out) {
                if (terminal) {
                    String padded = s + " ".repeat(Math.max(0, lastLength - s.length()));
                    out.print("\r" + padded);
                    lastLength = s.length();
                } else {
                    out.println(s);
                }
                out.flush();
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (out) {
            if (terminal && lastLength > 0) {
                out.println();
            }
            out.flush();
        }
    }
}
