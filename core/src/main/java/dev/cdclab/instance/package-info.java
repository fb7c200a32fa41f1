/** A running instance's claim on a slot of its own: a directory and a consumer group identity. */
package dev.cdclab.instance;
