/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A tiny TAP producer for C tests.  Checks stay active under NDEBUG.
 *
 *   plan (3);                      or plan_no_plan () + done_testing ()
 *   ok (x == 1, "x is one");
 *   ASSERT_EQ (a, b, "counts");    prints both values when they differ
 *   return exit_status ();
 */
#ifndef TESTS_TAP_H
#define TESTS_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n_ = 0, tap_failed_ = 0, tap_planned_ = -1;

static inline void
plan (int n)
{
  tap_planned_ = n;
  printf ("1..%d\n", n);
  fflush (stdout);
}

static inline void
skip_all (const char *why)
{
  printf ("1..0 # SKIP %s\n", why);
  fflush (stdout);
  exit (0);
}

static inline void diag (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));

static inline void
diag (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  printf ("# ");
  vprintf (fmt, ap);
  printf ("\n");
  va_end (ap);
  fflush (stdout);
}

__attribute__ ((format (printf, 2, 3))) static inline int
ok (int cond, const char *fmt, ...)
{
  va_list ap;
  tap_n_++;
  if (!cond)
    tap_failed_++;
  printf ("%s %d - ", cond ? "ok" : "not ok", tap_n_);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
  return cond;
}

static inline int
done_testing (void)
{
  if (tap_planned_ < 0)
    printf ("1..%d\n", tap_n_);
  fflush (stdout);
  return tap_failed_ ? 1 : 0;
}

static inline int
exit_status (void)
{
  return done_testing ();
}

#define ASSERT_EQ(a, b, what)                                              \
  do {                                                                     \
    long long a_ = (long long) (a), b_ = (long long) (b);                  \
    if (!ok (a_ == b_, "%s", what))                                        \
      diag ("  %s = %lld, %s = %lld (%s:%d)", #a, a_, #b, b_, __FILE__,    \
            __LINE__);                                                     \
  } while (0)

#define ASSERT_OK(expr, what)                                              \
  do {                                                                     \
    long long r_ = (long long) (expr);                                     \
    if (!ok (r_ == 0, "%s", what))                                         \
      diag ("  %s returned %lld (%s:%d)", #expr, r_, __FILE__, __LINE__);  \
  } while (0)

#define ASSERT_STREQ(a, b, what)                                           \
  do {                                                                     \
    const char *a_ = (a), *b_ = (b);                                       \
    if (!ok (a_ && b_ && strcmp (a_, b_) == 0, "%s", what))                \
      diag ("  %s = \"%s\", %s = \"%s\"", #a, a_ ? a_ : "(null)", #b,      \
            b_ ? b_ : "(null)");                                           \
  } while (0)

#endif
