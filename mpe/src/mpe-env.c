/* SPDX-License-Identifier: BSD-3-Clause */
/* Environment variables read by the logger: every MPE_* number, duration,
 * boolean and choice is parsed here, and every value refused or adjusted
 * is said in one form:
 *   mpe: NAME=VALUE refused: WHY (accepted: WHAT); using X
 *   mpe: NAME=VALUE adjusted: WHY; using X
 * once per process and variable. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-internal.h"

/* Variables already reported (a process may start logging twice). */
static pthread_mutex_t said_lock = PTHREAD_MUTEX_INITIALIZER;
static char said[64][48];
static int nsaid;

static int
first_time (const char *name)
{
  int first = 1;
  pthread_mutex_lock (&said_lock);
  for (int i = 0; i < nsaid && first; i++)
    first = strcmp (said[i], name) != 0;
  if (first && nsaid < 64)
    snprintf (said[nsaid++], sizeof said[0], "%s", name);
  pthread_mutex_unlock (&said_lock);
  return first;
}

static void say (const char *name, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

static void
say (const char *name, const char *fmt, ...)
{
  if (!first_time (name))
    return;
  va_list ap;
  va_start (ap, fmt);
  char msg[1024];
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  fprintf (stderr, "mpe: %s\n", msg);
}

void
mpe__env_say (const char *name, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char msg[1024];
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  say (name, "%s", msg);
}

/* The shortest decimal form that reads back as v (not 0.10000000000000001). */
static void
shortest (char *out, size_t n, double v)
{
  if (v == (double) (long long) v && v > -1e15 && v < 1e15)
    {
      snprintf (out, n, "%lld", (long long) v);
      return;
    }
  for (int prec = 1; prec <= 17; prec++)
    {
      snprintf (out, n, "%.*g", prec, v);
      if (strtod (out, NULL) == v)
        return;
    }
}

/* A value with its unit, as messages show it ("64 MiB", "10 ms"). */
static void
show (char *out, size_t n, double v, unsigned flags, const char *unit)
{
  char num[32];
  if (flags & MPE_ENV_DURATION)
    {
      static const struct { double ns; const char *u; } d[] =
        { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };
      size_t i = 0;
      while (i < 3 && v < d[i].ns)
        i++;
      shortest (num, sizeof num, v / d[i].ns);
      snprintf (out, n, "%s %s", num, d[i].u);
      return;
    }
  shortest (num, sizeof num, v);
  snprintf (out, n, "%s%s%s", num, unit && *unit ? " " : "",
            unit ? unit : "");
}

static void
show_range (char *out, size_t n, double lo, double hi, unsigned flags,
            const char *unit)
{
  char a[128], b[128];
  show (a, sizeof a, lo, flags, unit);
  show (b, sizeof b, hi, flags, unit);
  const char *what = flags & MPE_ENV_INT ? "a whole number"
                     : flags & MPE_ENV_DURATION ? "a duration" : "a number";
  if (flags & MPE_ENV_DURATION)
    snprintf (out, n, "%s from %s to %s, in s, ms, us or ns (no unit: ns)",
              what, a, b);
  else
    snprintf (out, n, "%s from %s to %s", what, a, b);
}

double
mpe__env_number (const char *name, double dflt, double lo, double hi,
                 const char *unit, unsigned flags)
{
  const char *v = getenv (name);
  if (!v || !*v)
    return dflt;
  char range[384], def[128];
  show_range (range, sizeof range, lo, hi, flags, unit);
  show (def, sizeof def, dflt, flags, unit);
  char *end;
  errno = 0;
  double x = strtod (v, &end);
  double mul = 1;
  if (end != v && (flags & MPE_ENV_DURATION))
    {
      mul = !strcmp (end, "s") ? 1e9 : !strcmp (end, "ms") ? 1e6
            : !strcmp (end, "us") ? 1e3 : !strcmp (end, "ns") || !*end ? 1
            : -1;
      if (mul > 0)
        end += strlen (end);
    }
  else if (end != v && unit && *unit && !strcmp (end, unit))
    end += strlen (end);   /* "64MiB", "200Hz" */
  if (end == v || *end || mul < 0 || isnan (x))
    {
      say (name, "%s=%s refused: not %s (accepted: %s); using %s", name, v,
           flags & MPE_ENV_DURATION ? "a duration" : "a number", range, def);
      return dflt;
    }
  x *= mul;
  if ((flags & MPE_ENV_INT) && x > -9e15 && x < 9e15
      && x != (double) (long long) x)
    {
      say (name, "%s=%s refused: not a whole number (accepted: %s); "
           "using %s", name, v, range, def);
      return dflt;
    }
  if (x > hi && (flags & MPE_ENV_CLAMP))
    {
      char h[128];
      show (h, sizeof h, hi, flags, unit);
      say (name, "%s=%s adjusted: above the largest accepted, %s; using %s",
           name, v, h, h);
      return hi;
    }
  if (x < lo && (flags & MPE_ENV_CLAMP_LOW))
    {
      char l[128];
      show (l, sizeof l, lo, flags, unit);
      say (name, "%s=%s adjusted: below the smallest accepted, %s; using %s",
           name, v, l, l);
      return lo;
    }
  if (x < lo || x > hi)
    {
      say (name, "%s=%s refused: out of range (accepted: %s); using %s",
           name, v, range, def);
      return dflt;
    }
  return x;
}

/* One of NULL-terminated choices[] (its index), else dflt. */
int
mpe__env_choice (const char *name, const char *const *choices, int dflt)
{
  const char *v = getenv (name);
  if (!v || !*v)
    return dflt;
  char list[512] = "";
  size_t len = 0;
  for (int i = 0; choices[i]; i++)
    {
      if (!strcmp (v, choices[i]))
        return i;
      len += (size_t) snprintf (list + len, sizeof list - len, "%s%s",
                                i ? ", " : "", choices[i]);
      if (len >= sizeof list)
        len = sizeof list - 1;
    }
  say (name, "%s=%s refused: not a known choice (accepted: %s); using %s",
       name, v, list, choices[dflt]);
  return dflt;
}

int
mpe__env_bool (const char *name, int dflt)
{
  static const char *const yes[] = { "1", "yes", "YES", "true", "TRUE", "on",
                                     NULL };
  static const char *const no[] = { "0", "no", "NO", "false", "FALSE", "off",
                                    NULL };
  const char *v = getenv (name);
  if (!v)
    return dflt;
  for (int i = 0; yes[i]; i++)
    if (!strcmp (v, yes[i]))
      return 1;
  for (int i = 0; no[i]; i++)
    if (!strcmp (v, no[i]))
      return 0;
  say (name, "%s=%s refused: not a boolean (accepted: yes/no, true/false, "
       "1/0, on/off); using %s", name, v, dflt ? "yes" : "no");
  return dflt;
}
