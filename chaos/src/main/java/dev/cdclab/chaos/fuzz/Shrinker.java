package dev.cdclab.chaos.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Delta debugging (Zeller's ddmin): the smallest list of items, found by removing chunks, for which
 * a test still fails. A test that cannot tell (the budget ran out) keeps what it has.
 */
final class Shrinker {
    private Shrinker() {}

    /**
     * A smaller list of {@code items} for which {@code fails} still holds, trying at most {@code
     * budget} candidates; {@code items} itself when none is smaller.
     */
    static <T> List<T> minimize(List<T> items, Predicate<List<T>> fails, int budget) {
        List<T> current = new ArrayList<>(items);
        int n = 2;
        int tried = 0;
        while (current.size() >= 2 && tried < budget) {
            int chunk = (int) Math.ceil(current.size() / (double) n);
            boolean reduced = false;
            for (int start = 0; start < current.size() && tried < budget; start += chunk) {
                List<T> complement = new ArrayList<>(current.subList(0, start));
                complement.addAll(
                        current.subList(Math.min(current.size(), start + chunk), current.size()));
                if (complement.isEmpty()) {
                    continue;
                }
                tried++;
                if (fails.test(complement)) {
                    current = complement;
                    n = Math.max(n - 1, 2);
                    reduced = true;
                    break;
                }
            }
            if (!reduced) {
                if (n >= current.size()) {
                    break;
                }
                n = Math.min(current.size(), n * 2);
            }
        }
        return current;
    }
}
