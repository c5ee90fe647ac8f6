/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clogtool-internal.h"
#include "otf2in.h"

void
clogtool__error (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("clogtool: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
}

int
clogtool__usage_error (const char *sub, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fprintf (stderr, "clogtool %s: ", sub);
  vfprintf (stderr, fmt, ap);
  fprintf (stderr, "\nTry 'clogtool %s --help'.\n", sub);
  va_end (ap);
  return CLOGTOOL_EXIT_USAGE;
}

void
clogtool__lib_error (const char *what, int code, const logfmt_error_t *err)
{
  if (err != NULL && err->code != 0 && err->message[0] != '\0')
    clogtool__error ("%s", err->message);
  else if (what != NULL)
    clogtool__error ("%s: %s", what, logfmt_strerror (code));
  else
    clogtool__error ("%s", logfmt_strerror (code));
}

int
clogtool__parse_time (const char *s, uint64_t *ns)
{
  /* Integer and fraction digits are kept apart so "0.1" is exactly
   * 100000000 ns, which a double would not give. */
  uint64_t ipart = 0, fpart = 0;
  int fdigits = 0, ndigits = 0;
  const char *p = s;

  if (s == NULL)
    return -1;
  while (*p >= '0' && *p <= '9')
    {
      if (ipart > (UINT64_MAX - 9) / 10)
        return -1;
      ipart = ipart * 10 + (uint64_t) (*p - '0');
      p++;
      ndigits++;
    }
  if (*p == '.')
    {
      p++;
      while (*p >= '0' && *p <= '9')
        {
          if (fdigits < 9)
            {
              fpart = fpart * 10 + (uint64_t) (*p - '0');
              fdigits++;
            }
          p++;
          ndigits++;
        }
    }
  if (ndigits == 0)
    return -1;

  int exp10;                    /* ns per unit = 10^exp10 */
  if (*p == '\0' || strcmp (p, "s") == 0)
    exp10 = 9;
  else if (strcmp (p, "ms") == 0)
    exp10 = 6;
  else if (strcmp (p, "us") == 0)
    exp10 = 3;
  else if (strcmp (p, "ns") == 0)
    exp10 = 0;
  else
    return -1;

  uint64_t scale = 1;
  for (int i = 0; i < exp10; i++)
    scale *= 10;
  if (ipart > UINT64_MAX / scale)
    return -1;
  uint64_t v = ipart * scale;

  /* fpart has fdigits digits: value fpart * 10^(exp10 - fdigits). */
  uint64_t frac;
  if (fdigits <= exp10)
    {
      frac = fpart;
      for (int i = fdigits; i < exp10; i++)
        frac *= 10;
    }
  else
    {
      frac = fpart;
      for (int i = exp10; i < fdigits; i++)
        frac /= 10;
    }
  if (v > UINT64_MAX - frac)
    return -1;
  *ns = v + frac;
  return 0;
}

int
clogtool__parse_int (const char *s, long long min, long long max,
                     long long *out)
{
  char *end;
  long long v;

  if (s == NULL || *s == '\0')
    return -1;
  errno = 0;
  v = strtoll (s, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

const char *
clogtool__fmt_time (uint64_t ns, char *buf)
{
  snprintf (buf, 32, "%" PRIu64 ".%09" PRIu64,
            ns / 1000000000u, ns % 1000000000u);
  return buf;
}

void
clogtool__json_string (FILE *f, const char *s)
{
  putc ('"', f);
  for (const unsigned char *p = (const unsigned char *) (s ? s : "");
       *p != '\0'; p++)
    {
      switch (*p)
        {
        case '"': fputs ("\\\"", f); break;
        case '\\': fputs ("\\\\", f); break;
        case '\b': fputs ("\\b", f); break;
        case '\f': fputs ("\\f", f); break;
        case '\n': fputs ("\\n", f); break;
        case '\r': fputs ("\\r", f); break;
        case '\t': fputs ("\\t", f); break;
        default:
          /* Control bytes and bytes that are not UTF-8 (names come from
           * untrusted files) become escapes, so the output always
           * parses. */
          if (*p < 0x20 || *p == 0x7f)
            fprintf (f, "\\u%04x", *p);
          else if (*p < 0x80)
            putc (*p, f);
          else
            {
              int len = (*p & 0xe0) == 0xc0 ? 2
                        : (*p & 0xf0) == 0xe0 ? 3
                        : (*p & 0xf8) == 0xf0 ? 4 : 0;
              int valid = len > 0;
              for (int i = 1; valid && i < len; i++)
                valid = (p[i] & 0xc0) == 0x80;
              if (valid)
                {
                  fwrite (p, 1, (size_t) len, f);
                  p += len - 1;
                }
              else
                fprintf (f, "\\u%04x", *p);  /* Latin-1 reading */
            }
        }
    }
  putc ('"', f);
}

void
clogtool__csv_string (FILE *f, const char *s)
{
  if (s == NULL)
    s = "";
  if (!strpbrk (s, ",\"\r\n"))
    {
      fputs (s, f);
      return;
    }
  putc ('"', f);
  for (; *s; s++)
    {
      if (*s == '"')
        putc ('"', f);
      putc (*s, f);
    }
  putc ('"', f);
}

void
clogtool__put_text (FILE *f, const char *s, int width)
{
  int w = 0;
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    {
      putc (*p < 0x20 || *p == 0x7f ? '?' : *p, f);
      w += (*p & 0xc0) != 0x80;
    }
  for (; w < width; w++)
    putc (' ', f);
}

const char *
clogtool__kind_name (int kind)
{
  switch (kind)
    {
    case LOGFMT_KIND_BEGIN: return "begin";
    case LOGFMT_KIND_END: return "end";
    case LOGFMT_KIND_SOLO: return "solo";
    case LOGFMT_KIND_SEND: return "send";
    case LOGFMT_KIND_RECV: return "recv";
    case LOGFMT_KIND_LOSS: return "loss";
    default: return "?";
    }
}

static int progress_wanted;

void
clogtool__want_progress (int on)
{
  progress_wanted = on;
}

logfmt_reader_t *
clogtool__open (const char *path)
{
  return clogtool__open_flags (path, LOGFMT_OPEN_NOVERIFY);
}

logfmt_reader_t *
clogtool__open_flags (const char *path, unsigned flags)
{
  logfmt_reader_t *r = NULL;
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  /* OTF2 archives are converted to a temporary .clog first, MPE2 logs
   * imported: the slow part, shown with --progress. */
  clogtool_progress_t prog;
  clogtool__progress_init (&prog, progress_wanted, "reading");
  int rc = otf2in_reader_open (path, flags, clogtool__progress, &prog, &r,
                               &err);
  clogtool__progress_done (&prog);
  if (rc < 0 || r == NULL)
    {
      clogtool__lib_error (path, rc < 0 ? rc : LOGFMT_EIO, &err);
      if (rc == LOGFMT_EPARTIAL)
        clogtool__error ("hint: --tolerant reads what the unfinished file "
                         "holds; 'clogtool repair %s -o NEW.clog' rebuilds "
                         "it", path);
      return NULL;
    }
  return r;
}

uint32_t
clogtool__ranks_present (const logfmt_reader_t *r)
{
  uint32_t n = 0;
  for (uint32_t s = 0; s < logfmt_reader_info (r)->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      if (sd && sd->rank >= 0 && (uint32_t) sd->rank >= n)
        n = (uint32_t) sd->rank + 1;
    }
  return n;
}

int
clogtool__flush_stdout (void)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      clogtool__error ("error writing output: %s", strerror (errno));
      return -1;
    }
  return 0;
}

int
clogtool__exit_after_output (void)
{
  return clogtool__flush_stdout () == 0 ? CLOGTOOL_EXIT_OK
                                        : CLOGTOOL_EXIT_PROBLEM;
}

int
clogtool__bad_option (const char *sub, int c, char **argv)
{
  if (c == ':')
    return clogtool__usage_error (sub, "option '%s' needs a value",
                                  argv[optind - 1]);
  return clogtool__usage_error (sub, "unknown option '%s'",
                                argv[optind - 1]);
}

int
clogtool__one_file (const char *sub, int argc)
{
  if (optind == argc - 1)
    return 0;
  return clogtool__usage_error (sub, optind == argc
                                ? "no FILE given" : "too many FILEs");
}

static double
mono_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

void
clogtool__progress_init (clogtool_progress_t *p, int wanted,
                         const char *what)
{
  p->on = wanted && isatty (STDERR_FILENO);
  p->last = -1;
  p->last_t = 0;
  p->what = what;
}

int
clogtool__progress (void *user, double fraction)
{
  clogtool_progress_t *p = user;
  if (!p->on)
    return 0;
  int pct = fraction <= 0 ? 0 : fraction >= 1 ? 100 : (int) (fraction * 100);
  if (pct == p->last)
    return 0;
  double t = mono_s ();
  /* The first and the last are always drawn. */
  if (p->last >= 0 && pct < 100 && t - p->last_t < 0.1)
    return 0;
  p->last = pct;
  p->last_t = t;
  fprintf (stderr, "\r%s: %3d%%", p->what, pct);
  fflush (stderr);
  return 0;
}

void
clogtool__progress_done (clogtool_progress_t *p)
{
  if (p->on && p->last >= 0)
    {
      fputc ('\n', stderr);
      p->last = -1;
    }
}

const char *
clogtool__out_begin (const char *out, char *tmp)
{
  if (strcmp (out, "-") != 0)
    return out;
  const char *dir = getenv ("TMPDIR");
  if (dir == NULL || dir[0] == '\0')
    dir = "/tmp";
  snprintf (tmp, PATH_MAX, "%s/clogtool-XXXXXX", dir);
  int fd = mkstemp (tmp);
  if (fd < 0)
    {
      clogtool__error ("cannot create a temporary file in %s: %s", dir,
                       strerror (errno));
      return NULL;
    }
  close (fd);
  return tmp;
}

int
clogtool__out_end (const char *out, const char *path, int ok)
{
  if (path == out)
    return 0;
  int rc = 0;
  if (ok)
    {
      FILE *f = fopen (path, "rb");
      char buf[65536];
      size_t n;
      if (f == NULL)
        {
          clogtool__error ("%s: %s", path, strerror (errno));
          rc = -1;
        }
      else
        {
          while ((n = fread (buf, 1, sizeof buf, f)) > 0)
            if (fwrite (buf, 1, n, stdout) != n)
              break;
          if (ferror (f))
            {
              clogtool__error ("%s: %s", path, strerror (errno));
              rc = -1;
            }
          fclose (f);
          if (clogtool__flush_stdout ())
            rc = -1;
        }
    }
  unlink (path);
  return rc;
}
