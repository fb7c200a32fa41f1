/** Typed, documented, validated configuration: options are declared once and unknown keys fail. */
package dev.cdclab.config;
