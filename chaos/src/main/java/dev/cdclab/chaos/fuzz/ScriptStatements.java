package dev.cdclab.chaos.fuzz;

import java.util.ArrayList;
import java.util.List;

/** Splits a PostgreSQL script into statements at semicolons outside quotes and comments. */
final class ScriptStatements {
    private ScriptStatements() {}

    /** The script's statements, trimmed, empty ones and {@code --} comments left out. */
    static List<String> split(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int i = 0;
        int n = script.length();
        while (i < n) {
            char c = script.charAt(i);
            if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
                int nl = script.indexOf('\n', i);
                i = nl < 0 ? n : nl + 1;
                continue;
            }
            if (c == '\'' || c == '"') {
                int end = i + 1;
                while (end < n) {
                    if (script.charAt(end) == c) {
                        if (end + 1 < n && script.charAt(end + 1) == c) {
                            end += 2;
                            continue;
                        }
                        break;
                    }
                    end++;
                }
                end = Math.min(end + 1, n);
                cur.append(script, i, end);
                i = end;
                continue;
            }
            if (c == '$') {
                int tagEnd = script.indexOf('$', i + 1);
                if (tagEnd > 0 && script.substring(i + 1, tagEnd).matches("[A-Za-z_0-9]*")) {
                    String tag = script.substring(i, tagEnd + 1);
                    int close = script.indexOf(tag, tagEnd + 1);
                    int end = close < 0 ? n : close + tag.length();
                    cur.append(script, i, end);
                    i = end;
                    continue;
                }
            }
            if (c == ';') {
                add(out, cur);
                i++;
                continue;
            }
            cur.append(c);
            i++;
        }
        add(out, cur);
        return out;
    }

    private static void add(List<String> out, StringBuilder cur) {
        String s = cur.toString().trim();
        if (!s.isEmpty()) {
            out.add(s);
        }
        cur.setLength(0);
    }
}
