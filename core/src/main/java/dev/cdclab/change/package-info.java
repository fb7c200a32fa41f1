/** The net-change record format shared by the Streams app and the warehouse sink. */
package dev.cdclab.change;
