/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clogtool convert IN OUT [--format clog|clog2|otf2|json] [--progress]
 *
 * IN is anything the reader opens (.clog, MPE2's CLOG2, CLOG v1).  An MPE2
 * file going to .clog is imported straight into the output writer, one
 * conversion instead of two (the reader would import it to a temporary
 * .clog first).  Other targets stream the reader's iterators, so memory
 * stays bounded whatever the input size.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clogtool.h"
#include "clogtool-internal.h"
#include "convert-internal.h"
#include "otf2in.h"

#define BATCH 4096

static void
usage (FILE *f)
{
  fputs ("Usage: clogtool convert IN OUT [--format clog|clog2|otf2|json] "
         "[--progress] [-q]\n"
         "\n"
         "Converts IN (.clog, MPE2 .clog2 or old CLOG v1, or an OTF2 archive\n"
         "named by its anchor file; recognised by content) to OUT.  The\n"
         "format comes from OUT's extension unless --format is given:\n"
         "  .clog   our indexed format (opens instantly afterwards)\n"
         "  .clog2  MPE2's CLOG2 (clog2_print, clog2TOslog2, Jumpshot);\n"
         "          what CLOG2 cannot hold is reported on stderr\n"
         "  .otf2   OTF2 archive: OUT is the anchor file, the archive's\n"
         "          directory and .def file are written beside it\n"
         "  .json   Chrome trace event format (Perfetto UI, chrome://tracing)\n"
         "OUT \"-\" is standard output (with --format; not otf2); the\n"
         "report then goes to stderr.\n"
         "\n"
         "Options:\n"
         "  --format F   clog, clog2, otf2 or json\n"
         "  --progress   show progress on stderr\n"
         "  -q, --quiet  do not print the speed report\n"
         "  -h, --help   show this help\n", f);
}

int
convert__progress_cb (void *user, double f)
{
  convert_ctx_t *c = user;
  return clogtool__progress (&c->prog,
                             c->prog_lo + (c->prog_hi - c->prog_lo) * f);
}

void
convert__progress_done (convert_ctx_t *c)
{
  clogtool__progress_done (&c->prog);
}

void
convert__count_event (convert_ctx_t *c)
{
  /* The last 5% are the messages and the closing of the file. */
  if ((++c->events & 4095) == 0 && c->total)
    convert__progress_cb (c, 0.95 * (double) c->events / (double) c->total);
}

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static const char *
ext_of (const char *path)
{
  const char *slash = strrchr (path, '/');
  const char *dot = strrchr (slash ? slash : path, '.');
  return dot ? dot + 1 : "";
}

/* --------------------------------------------------------------- */
/* .clog output                                                     */
/* --------------------------------------------------------------- */

/* Copies a reader's whole content through a writer (an upgrade or
 * re-compression of a .clog, or an import the reader already did). */
int
convert__to_clog (convert_ctx_t *c, const logfmt_reader_t *r)
{
  const logfmt_info_t *info = logfmt_reader_info (r);
  logfmt_writer_opts_t o = { 0 };
  o.size = sizeof o;
  o.match_messages = 0;             /* the reader's table is copied */
  o.creator = info->creator ? info->creator : "clogtool convert";
  o.world_size = info->world_size;
  o.origin_unix_ns = info->origin_unix_ns;
  logfmt_writer_t *w = NULL;
  logfmt_error_t err = { 0 };
  logfmt_event_t *buf = NULL;
  logfmt_message_t *mbuf = NULL;
  logfmt_iter_t *it = NULL;
  logfmt_msg_iter_t *mi = NULL;
  const char *what = "writing";
  int rc = logfmt_writer_open (c->out, &o, &w, &err);
  if (rc)
    {
      clogtool__lib_error (c->out, rc, &err);
      return -1;
    }

  for (size_t i = 0; rc == 0 && i < logfmt_reader_n_states (r); i++)
    rc = logfmt_writer_add_state (w, logfmt_reader_state (r, i));
  for (size_t i = 0; rc == 0 && i < logfmt_reader_n_event_defs (r); i++)
    rc = logfmt_writer_add_event_def (w, logfmt_reader_event_def (r, i));
  for (size_t i = 0; rc == 0 && i < logfmt_reader_n_comms (r); i++)
    rc = logfmt_writer_add_comm (w, logfmt_reader_comm (r, i));
  for (size_t i = 0; rc == 0 && i < logfmt_reader_n_consts (r); i++)
    rc = logfmt_writer_add_const (w, logfmt_reader_const (r, i));
  for (uint32_t i = 0; rc == 0 && i < info->nstreams; i++)
    {
      uint32_t s;
      rc = logfmt_writer_add_stream (w, logfmt_reader_stream (r, i), &s);
      if (rc == 0 && s != i)
        rc = LOGFMT_ESTATE;
    }
  if (rc)
    goto fail;

  buf = malloc (BATCH * sizeof *buf);
  mbuf = malloc (BATCH * sizeof *mbuf);
  if (!buf || !mbuf)
    {
      rc = LOGFMT_ENOMEM;
      goto fail;
    }
  uint64_t done = 0, total = info->nevents ? info->nevents : 1;
  for (uint32_t s = 0; rc == 0 && s < info->nstreams; s++)
    {
      what = "reading";
      if ((rc = logfmt_iter_new (r, s, 0, UINT64_MAX, &it)))
        break;
      size_t n = 0;
      int got;
      while ((got = logfmt_iter_next (it, &buf[n])) == 1)
        if (++n == BATCH)
          {
            if ((rc = logfmt_writer_event (w, s, buf, n)))
              break;
            done += n;
            n = 0;
            convert__progress_cb (c, (double) done / (double) total);
          }
      if (got < 0)
        {
          clogtool__lib_error (c->in, got, logfmt_iter_error (it));
          rc = got;
          what = NULL;
        }
      else if (rc == 0 && n)
        rc = logfmt_writer_event (w, s, buf, n);
      done += n;
      logfmt_iter_free (it);
      it = NULL;
    }
  c->events = done;
  if (rc)
    goto fail;

  what = "reading messages of";
  if ((rc = logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi)))
    goto fail;
  for (;;)
    {
      size_t n = 0;
      int got = 0;
      while (n < BATCH && (got = logfmt_msg_iter_next (mi, &mbuf[n])) == 1)
        n++;
      if (got < 0)
        {
          clogtool__lib_error (c->in, got, logfmt_msg_iter_error (mi));
          rc = got;
          what = NULL;
          goto fail;
        }
      if (n && (rc = logfmt_writer_put_messages (w, mbuf, n)))
        goto fail;
      c->messages += n;
      if (got == 0)
        break;
    }
  logfmt_msg_iter_free (mi);
  free (buf);
  free (mbuf);
  rc = logfmt_writer_finish (w, &err);
  if (rc)
    {
      clogtool__lib_error (c->out, rc, &err);
      return -1;
    }
  return 0;

fail:
  if (what)
    clogtool__error ("%s %s: %s", what, what[0] == 'w' ? c->out : c->in,
                     logfmt_strerror (rc));
  logfmt_iter_free (it);
  logfmt_msg_iter_free (mi);
  free (buf);
  free (mbuf);
  logfmt_writer_abort (w);
  return -1;
}

/* --------------------------------------------------------------- */
/* MPE2 and OTF2 input straight to .clog                            */
/* --------------------------------------------------------------- */

/* Returns 1 if IN was an MPE2 file or OTF2 archive and has been handled (*status set),
 * 0 if the reader should take it. */
static int
direct_import (convert_ctx_t *c, int *status)
{
  logfmt_file_kind_t kind;
  logfmt_error_t err = { 0 };
  int otf2 = otf2in_is_archive (c->in);
  if (!otf2
      && (logfmt_file_kind (c->in, &kind, &err) != 0
          || (kind != LOGFMT_FILE_CLOG2 && kind != LOGFMT_FILE_CLOG1)))
    return 0;                   /* the reader reports it */
  c->prog_lo = 0.0;
  c->prog_hi = 0.95;
  int rc = otf2 ? otf2in_convert (c->in, c->out, "via clogtool", 0,
                                  convert__progress_cb, c, NULL, &err)
           : logfmt_import_mpe2 (c->in, c->out,
                                 kind == LOGFMT_FILE_CLOG2
                                   ? "MPE2 (CLOG-02.44), via clogtool"
                                   : "MPE (CLOG v1), via clogtool",
                                 convert__progress_cb, c, &err);
  c->prog_lo = 0.0;
  c->prog_hi = 1.0;
  convert__progress_cb (c, 1.0);
  convert__progress_done (c);
  if (rc)
    {
      clogtool__lib_error (c->in, rc, &err);
      *status = CLOGTOOL_EXIT_PROBLEM;
      return 1;
    }

  /* Counts for the report come from the finished file. */
  logfmt_reader_t *r = clogtool__open (c->out);
  if (!r)
    {
      *status = CLOGTOOL_EXIT_PROBLEM;
      return 1;
    }
  c->events = logfmt_reader_info (r)->nevents;
  c->messages = logfmt_reader_info (r)->nmessages;
  logfmt_reader_close (r);
  *status = CLOGTOOL_EXIT_OK;
  return 1;
}

int
clogtool_convert_main (int argc, char **argv)
{
  convert_ctx_t c = { 0 };
  const char *format = NULL;
  int quiet = 0;
  c.prog_hi = 1.0;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "-h") == 0 || strcmp (a, "--help") == 0)
        {
          usage (stdout);
          return clogtool__flush_stdout () ? CLOGTOOL_EXIT_PROBLEM
                                           : CLOGTOOL_EXIT_OK;
        }
      else if (strcmp (a, "--progress") == 0)
        c.progress = 1;
      else if (strcmp (a, "-q") == 0 || strcmp (a, "--quiet") == 0)
        quiet = 1;
      else if (strcmp (a, "--format") == 0 || strncmp (a, "--format=", 9) == 0)
        {
          if (a[8] == '=')
            format = a + 9;
          else if (++i < argc)
            format = argv[i];
          else
            return clogtool__usage_error ("convert", "--format needs a value");
        }
      else if (a[0] == '-' && a[1] != '\0')
        return clogtool__usage_error ("convert", "unknown option '%s'", a);
      else if (!c.in)
        c.in = a;
      else if (!c.out)
        c.out = a;
      else
        return clogtool__usage_error ("convert", "too many arguments");
    }
  if (!c.in || !c.out)
    return clogtool__usage_error ("convert", "needs IN and OUT");
  /* "-" is standard output: there is no extension to go by. */
  int to_stdout = strcmp (c.out, "-") == 0;
  if (!format && to_stdout)
    return clogtool__usage_error ("convert", "OUT '-' (standard output) "
                                  "needs --format");
  if (!format)
    {
      format = ext_of (c.out);
      if (strcmp (format, "clog") && strcmp (format, "clog2")
          && strcmp (format, "otf2") && strcmp (format, "json"))
        return clogtool__usage_error ("convert",
                                      "cannot tell the format of '%s' from "
                                      "its extension; use --format", c.out);
    }
  if (strcmp (format, "clog") && strcmp (format, "clog2")
      && strcmp (format, "otf2") && strcmp (format, "json"))
    return clogtool__usage_error ("convert", "unknown format '%s'", format);
  if (to_stdout && strcmp (format, "otf2") == 0)
    return clogtool__usage_error ("convert", "an OTF2 archive is several "
                                  "files: name its OUT anchor file");
#ifndef HAVE_OTF2
  if (strcmp (format, "otf2") == 0)
    {
      clogtool__error ("convert: this clogtool was built without OTF2");
      return CLOGTOOL_EXIT_PROBLEM;
    }
#endif

  struct stat st, ost;
  uint64_t in_bytes = stat (c.in, &st) == 0 ? (uint64_t) st.st_size : 0;
  /* Writing over the input would truncate what is being read. */
  if (in_bytes && stat (c.out, &ost) == 0 && ost.st_dev == st.st_dev
      && ost.st_ino == st.st_ino)
    return clogtool__usage_error ("convert", "OUT is the same file as IN");
  /* The writers seek or write beside OUT: "-" goes through a temporary
   * file, copied to standard output at the end. */
  const char *out_arg = c.out;
  char tmp[PATH_MAX];
  if (!(c.out = clogtool__out_begin (out_arg, tmp)))
    return CLOGTOOL_EXIT_PROBLEM;
  clogtool__progress_init (&c.prog, c.progress, "converting");
  double t0 = now_s ();
  int status = CLOGTOOL_EXIT_OK;

  if (strcmp (format, "clog") != 0 || !direct_import (&c, &status))
    {
      logfmt_reader_t *r = NULL;
      logfmt_error_t err = { 0 };
      /* Phases weigh what they go through: importing an OTF2 archive or
       * an MPE2 log reads every event once more than writing does, a
       * .clog opens at once. */
      logfmt_file_kind_t kind = LOGFMT_FILE_CLOG;
      logfmt_error_t kerr = { 0 };
      int imports = otf2in_is_archive (c.in)
                    || (logfmt_file_kind (c.in, &kind, &kerr) == 0
                        && (kind == LOGFMT_FILE_CLOG2
                            || kind == LOGFMT_FILE_CLOG1));
      double split = imports ? 0.5 : 0.0;
      c.prog_lo = 0.0;
      c.prog_hi = split;
      int rc = otf2in_reader_open (c.in, LOGFMT_OPEN_NOVERIFY,
                                   convert__progress_cb, &c, &r, &err);
      if (rc || !r)
        {
          convert__progress_done (&c);
          clogtool__lib_error (c.in, rc ? rc : LOGFMT_EIO, &err);
          clogtool__out_end (out_arg, c.out, 0);
          return CLOGTOOL_EXIT_PROBLEM;
        }
      c.prog_lo = split;
      c.prog_hi = 1.0;
      c.total = logfmt_reader_info (r)->nevents;
      if (strcmp (format, "clog") == 0)
        rc = convert__to_clog (&c, r);
      else if (strcmp (format, "clog2") == 0)
        rc = convert__to_clog2 (&c, r);
      else if (strcmp (format, "json") == 0)
        rc = convert__to_json (&c, r);
      else
        rc = convert__to_otf2 (&c, r);
      convert__progress_cb (&c, 1.0);
      convert__progress_done (&c);
      logfmt_reader_close (r);
      status = rc ? CLOGTOOL_EXIT_PROBLEM : CLOGTOOL_EXIT_OK;
    }

  double dt = now_s () - t0;
  if (clogtool__out_end (out_arg, c.out, status == CLOGTOOL_EXIT_OK) < 0)
    status = CLOGTOOL_EXIT_PROBLEM;
  /* With the log on standard output the report goes to stderr. */
  FILE *f = to_stdout ? stderr : stdout;
  if (status == CLOGTOOL_EXIT_OK && !quiet)
    {
      if (dt <= 0)
        dt = 1e-9;
      fprintf (f, "%s -> %s (%s): %" PRIu64 " events, %" PRIu64 " messages",
               c.in, out_arg, format, c.events, c.messages);
      if (c.dropped)
        fprintf (f, ", %" PRIu64 " records not representable", c.dropped);
      /* An OTF2 anchor is not the archive's size: events/s only. */
      if (otf2in_is_archive (c.in))
        fprintf (f, " in %.3f s: %.0f events/s\n", dt,
                 (double) c.events / dt);
      else
        fprintf (f, " in %.3f s: %.1f MB/s, %.0f events/s\n", dt,
                 (double) in_bytes / 1e6 / dt, (double) c.events / dt);
      if (clogtool__flush_stdout ())
        status = CLOGTOOL_EXIT_PROBLEM;
    }
  return status;
}
