package dev.cdclab.streams.topology;

/**
 * Every case of {@link NetChangeTopologyTest} on flat rows, as Debezium's ExtractNewRecordState
 * makes them from the same envelopes: the net changes must be the same.
 */
class FlatNetChangeTopologyTest extends NetChangeTopologyTest {
    @Override
    boolean flat() {
        return true;
    }
}
