/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fortran bindings (gfortran convention: lowercase name + '_', arguments by
 * reference, hidden string lengths appended last as size_t).  Strings are
 * copied, trailing blanks removed, and NUL-terminated.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#define MPE_NO_INLINE_CHECK 1
#include "mpe_log.h"

#define FAPI __attribute__ ((visibility ("default")))

static char *
fstr (const char *s, size_t len)
{
  while (len > 0 && s[len - 1] == ' ')
    len--;
  char *c = malloc (len + 1);
  if (c)
    {
      memcpy (c, s, len);
      c[len] = '\0';
    }
  return c;
}

FAPI int mpe_init_log_ (void) { return MPE_Init_log (); }
FAPI int mpe_initialized_logging_ (void) { return MPE_Initialized_logging (); }
FAPI int mpe_start_log_ (void) { return MPE_Start_log (); }
FAPI int mpe_stop_log_ (void) { return MPE_Stop_log (); }
FAPI int mpe_log_sync_clocks_ (void) { return MPE_Log_sync_clocks (); }
FAPI int mpe_log_get_event_number_ (void)
{ return MPE_Log_get_event_number (); }

FAPI int
mpe_log_get_state_eventids_ (int *a, int *b)
{
  return MPE_Log_get_state_eventIDs (a, b);
}

FAPI int
mpe_log_get_solo_eventid_ (int *e)
{
  return MPE_Log_get_solo_eventID (e);
}

FAPI int
mpe_describe_info_state_ (int *a, int *b, const char *name,
                          const char *color, const char *format,
                          size_t lname, size_t lcolor, size_t lformat)
{
  char *n = fstr (name, lname), *c = fstr (color, lcolor);
  char *f = format ? fstr (format, lformat) : NULL;
  int rc = MPE_Describe_info_state (*a, *b, n, c, f);
  free (n);
  free (c);
  free (f);
  return rc;
}

FAPI int
mpe_describe_state_ (int *a, int *b, const char *name, const char *color,
                     size_t lname, size_t lcolor)
{
  char *n = fstr (name, lname), *c = fstr (color, lcolor);
  int rc = MPE_Describe_state (*a, *b, n, c);
  free (n);
  free (c);
  return rc;
}

FAPI int
mpe_describe_info_event_ (int *e, const char *name, const char *color,
                          const char *format, size_t lname, size_t lcolor,
                          size_t lformat)
{
  char *n = fstr (name, lname), *c = fstr (color, lcolor);
  char *f = fstr (format, lformat);
  int rc = MPE_Describe_info_event (*e, n, c, f);
  free (n);
  free (c);
  free (f);
  return rc;
}

FAPI int
mpe_describe_event_ (int *e, const char *name, const char *color,
                     size_t lname, size_t lcolor)
{
  char *n = fstr (name, lname), *c = fstr (color, lcolor);
  int rc = MPE_Describe_event (*e, n, c);
  free (n);
  free (c);
  return rc;
}

FAPI int
mpe_log_send_ (int *p, int *tag, int *size)
{
  return MPE_Log_send (*p, *tag, *size);
}

FAPI int
mpe_log_receive_ (int *p, int *tag, int *size)
{
  return MPE_Log_receive (*p, *tag, *size);
}

FAPI int
mpe_log_pack_ (char *buf, int *pos, const char *token, int *count,
               const void *data, size_t lbuf, size_t ltoken)
{
  (void) lbuf;
  return MPE_Log_pack (buf, pos, ltoken ? token[0] : ' ', *count, data);
}

/* A zero-length or blank buffer means "no cargo". */
static const char *
fbuf (const char *buf, size_t lbuf)
{
  if (lbuf == 0 || (lbuf == 1 && buf[0] == ' '))
    return NULL;
  return buf;
}

FAPI int
mpe_log_event_ (int *e, int *data, const char *buf, size_t lbuf)
{
  const char *b = fbuf (buf, lbuf);
  char cargo[MPE_LOG_BYTESIZE];
  if (b && lbuf < MPE_LOG_BYTESIZE)
    {
      memset (cargo, 0, sizeof cargo);
      memcpy (cargo, b, lbuf);
      b = cargo;
    }
  return MPE_Log_event (*e, *data, b);
}

FAPI int
mpe_log_bare_event_ (int *e)
{
  return MPE_Log_bare_event (*e);
}

FAPI int
mpe_log_info_event_ (int *e, const char *buf, size_t lbuf)
{
  char cargo[MPE_LOG_BYTESIZE];
  memset (cargo, 0, sizeof cargo);
  memcpy (cargo, buf, lbuf < sizeof cargo ? lbuf : sizeof cargo);
  return MPE_Log_info_event (*e, cargo);
}

FAPI int
mpe_finish_log_ (const char *prefix, size_t lprefix)
{
  char *p = fstr (prefix, lprefix);
  int rc = MPE_Finish_log (p);
  free (p);
  return rc;
}

/* Metrics (mpe_metrics.h); values are INTEGER*8, cells INTEGER. */
#include "mpe_metrics.h"

FAPI int
mpe_metric_define_ (const char *name, const char *unit, int *cell,
                    size_t lname, size_t lunit)
{
  char *n = fstr (name, lname), *u = fstr (unit, lunit);
  int rc = n && u ? MPE_Metric_define (n, u, cell) : MPE_LOG_NO_MEMORY;
  free (n);
  free (u);
  return rc;
}

FAPI int mpe_metric_set_ (int *c, long long *v)
{ return MPE_Metric_set (*c, *v); }
FAPI int mpe_metric_add_ (int *c, long long *v)
{ return MPE_Metric_add (*c, *v); }
FAPI int mpe_metric_sub_ (int *c, long long *v)
{ return MPE_Metric_sub (*c, *v); }
FAPI int mpe_metric_timer_start_ (int *c)
{ return MPE_Metric_timer_start (*c); }
FAPI int mpe_metric_timer_stop_ (int *c)
{ return MPE_Metric_timer_stop (*c); }
FAPI int mpe_metric_guard_ (int *c, int *flag)
{ return MPE_Metric_guard (*c, *flag); }
FAPI long long mpe_metric_read_ (int *c) { return MPE_Metric_read (*c); }
FAPI long long mpe_metric_read_channel_ (int *c, int *p)
{ return MPE_Metric_read_channel (*c, *p); }
FAPI int mpe_metric_sample_ (void) { return MPE_Metric_sample (); }
FAPI int mpe_metric_sample_on_ (int *e) { return MPE_Metric_sample_on (*e); }

FAPI int
mpe_metric_find_ (const char *name, int *cell, size_t lname)
{
  char *n = fstr (name, lname);
  int rc = n ? MPE_Metric_find (n, cell) : MPE_LOG_NO_MEMORY;
  free (n);
  return rc;
}
