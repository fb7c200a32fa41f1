package dev.cdclab.config;

/**
 * Marks an error whose message says all a user needs (what is wrong and what to do), so the command
 * line prints that one line and no pointer to the log.
 */
public interface OneLineError {}
