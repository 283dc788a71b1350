/*
 * common/numfmt.h — number formatting as the rperf gem prints it.
 *
 * Owns: thousands separators ("1,234,567") and milliseconds from
 * nanoseconds with one decimal ("2,034.2"), used by every text output.
 */
#ifndef RPERF_COMMON_NUMFMT_H
#define RPERF_COMMON_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

#define RP_NUMFMT_MAX 40

/* "1234567" → "1,234,567"; negative numbers keep their sign. */
const char *rp_fmt_int(int64_t value, char buf[RP_NUMFMT_MAX]);

/* Nanoseconds as milliseconds, one decimal, grouped: 5609200000 → "5,609.2". */
const char *rp_fmt_ms(int64_t ns, char buf[RP_NUMFMT_MAX]);

/* Rounds a double to the nearest integer and groups it. */
const char *rp_fmt_round(double value, char buf[RP_NUMFMT_MAX]);

/* x rounded to `digits` decimals (0..6) as Ruby's Float#round rounds:
 * half away from zero on the scaled value, corrected where the product
 * fell just short of the half (Ruby's float.c, round_half_up). */
double rp_ruby_round(double x, int digits);
/* x so rounded and written as Ruby writes the Float: the decimals it
 * needs and at least one ("100.0", "12.5", "0.05"), as the gem's tables
 * and summaries show numbers. */
const char *rp_fmt_ruby_float(double x, int digits, char buf[RP_NUMFMT_MAX]);

#endif
