/** Waiting for a condition with a deadline and backoff, in one place. */
package dev.cdclab.wait;
