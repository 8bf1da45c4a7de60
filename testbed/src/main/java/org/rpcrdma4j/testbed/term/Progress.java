package org.rpcrdma4j.testbed.term;

import java.io.Console;
import java.io.PrintWriter;

/**
 * A progress bar on one terminal line, redrawn in place, for commands that run for seconds or more.
 * Off a terminal (a pipe, a file, a test) it prints nothing, so that output stays one result per line.
 */
public final class Progress {

    private static final int BAR_WIDTH = 30;
    private static final int LINE_WIDTH = 80;

    private final PrintWriter out;
    private final boolean interactive;

    /**
     * @param out         where the bar is drawn
     * @param interactive whether {@code out} is a terminal
     */
    public Progress(PrintWriter out, boolean interactive) {
        this.out = out;
        this.interactive = interactive;
    }

    /**
     * @return whether stdout is a terminal: {@link System#console()} tells on Java 17; from Java 22 on it
     *         has a console for redirected streams too, and {@code Console.isTerminal()} tells
     */
    public static boolean onTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (NoSuchMethodException e) {
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    /**
     * Draws {@code label} and how much of the work is done.
     *
     * @param label what is running
     * @param done  units done
     * @param total units in all
     */
    public void show(String label, long done, long total) {
        if (!interactive) {
            return;
        }
        int filled = (int) (BAR_WIDTH * Math.min(done, total) / Math.max(1, total));
        out.printf("\r%-24s [%s%s] %3d%%", label, "#".repeat(filled), " ".repeat(BAR_WIDTH - filled),
                100 * Math.min(done, total) / Math.max(1, total));
        out.flush();
    }

    /**
     * Draws {@code label} alone, for a step whose length is not known.
     *
     * @param label what is running
     */
    public void show(String label) {
        if (!interactive) {
            return;
        }
        String line = label.length() > LINE_WIDTH - 1 ? label.substring(0, LINE_WIDTH - 1) : label;
        out.print("\r" + " ".repeat(LINE_WIDTH - 1) + "\r" + line);
        out.flush();
    }

    /** Wipes the bar, so that the next line prints where it was. */
    public void clear() {
        if (interactive) {
            out.print("\r" + " ".repeat(LINE_WIDTH - 1) + "\r");
            out.flush();
        }
    }
}
