package dev.cdclab.chaos.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Delta debugging finds the items a failure needs and drops the rest. */
class ShrinkerTest {
    @Test
    void keepsOnlyTheItemsTheFailureNeeds() {
        List<Integer> items = IntStream.range(0, 200).boxed().toList();
        List<Integer> tried = new ArrayList<>();
        List<Integer> min =
                Shrinker.minimize(
                        items,
                        l -> {
                            tried.add(l.size());
                            // fails when 17 comes before 150, both present
                            return l.contains(17) && l.contains(150);
                        },
                        500);
        assertThat(min).containsExactly(17, 150);
        assertThat(tried).hasSizeLessThan(200);
    }

    @Test
    void aBudgetSpentKeepsWhatWasFoundSoFar() {
        List<Integer> items = IntStream.range(0, 64).boxed().toList();
        List<Integer> min = Shrinker.minimize(items, l -> l.contains(5), 3);
        assertThat(min).contains(5).hasSizeLessThan(64);
    }
}
