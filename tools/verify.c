/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool verify: a full check through logfmt_verify. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"

static void
verify_help (void)
{
  fputs (
    "Usage: clogtool verify [-q] FILE\n"
    "\n"
    "Checks every block (checksum, decoding, time range, count), every\n"
    "index entry, every summary and the message table.  Prints each\n"
    "problem found on its own line, as \"FILE: offset N: what\", then a\n"
    "closing line \"FILE: OK\" or \"FILE: N problem(s)\".\n"
    "\n"
    "Options:\n"
    "  -q, --quiet  print nothing; only the exit status tells\n"
    "  -h, --help   show this help\n"
    "\n"
    "Exit status: 0 the file is sound, 1 a problem was found (or the file\n"
    "cannot be read), 2 bad usage.\n", stdout);
}

typedef struct
{
  uint64_t problems;
  int quiet;
  logfmt_error_t last;   /* the previous report, to drop repeats */
} verify_ctx_t;

static void
report_cb (void *user, const logfmt_error_t *problem)
{
  verify_ctx_t *v = user;
  /* Several checks can trip over the same damaged chunk (framing, then
   * decoding); one line per distinct problem. */
  if (v->problems > 0 && v->last.code == problem->code
      && v->last.offset == problem->offset
      && strcmp (v->last.message, problem->message) == 0)
    return;
  v->last = *problem;
  v->problems++;
  if (v->quiet)
    return;
  if (problem->code == LOGFMT_EIO || problem->code == LOGFMT_ENOMEM)
    {
      /* Not a finding about the contents: the file could not be read. */
      fflush (stdout);
      clogtool__lib_error (NULL, problem->code, problem);
      return;
    }
  if (problem->message[0] != '\0')
    printf ("%s\n", problem->message);
  else if (problem->offset != UINT64_MAX)
    printf ("offset %" PRIu64 ": %s\n", problem->offset,
            logfmt_strerror (problem->code));
  else
    printf ("%s\n", logfmt_strerror (problem->code));
}

/* ---- Message pairs that cannot be --------------------------------- */

/* A receive may seem to end before its send started by the clocks'
 * error; more than this is a wrong pair, not a clock. */
#define VERIFY_PAIR_SLACK_NS 1000000ull

typedef struct
{
  int32_t  src, dst, tag;
  uint32_t comm, stream;
  uint8_t  recv, paired;
  uint64_t time;
} vend_t;

static int
vend_cmp (const void *a, const void *b)
{
  const vend_t *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
  CMP (recv); CMP (src); CMP (dst); CMP (comm); CMP (tag); CMP (stream);
  CMP (time);
#undef CMP
  return 0;
}

static void
pair_report (verify_ctx_t *v, const char *path, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));
static void
pair_report (verify_ctx_t *v, const char *path, const char *fmt, ...)
{
  logfmt_error_t e;
  memset (&e, 0, sizeof e);
  e.code = LOGFMT_ECORRUPT;
  e.offset = UINT64_MAX;
  int n = snprintf (e.message, sizeof e.message, "%s: ", path);
  va_list ap;
  va_start (ap, fmt);
  if (n > 0 && (size_t) n < sizeof e.message)
    vsnprintf (e.message + n, sizeof e.message - (size_t) n, fmt, ap);
  va_end (ap);
  report_cb (v, &e);
}

/* Checks the message table against MPI's rules: a matched receive does
 * not end before its send starts (beyond VERIFY_PAIR_SLACK_NS), and
 * messages of one (sender, receiver, communicator, tag) are received in
 * the order they were sent, so a FIFO matching pairs each stream's
 * earliest ends: a lone end earlier than a paired end of the same key
 * and stream means the pairs are wrong. */
static void
verify_message_pairs (const char *path, verify_ctx_t *v)
{
  logfmt_reader_t *r = NULL;
  logfmt_msg_iter_t *it = NULL;
  logfmt_error_t err;
  if (logfmt_reader_open (path, 0, &r, &err) != 0)
    return;  /* logfmt_verify said why */
  vend_t *e = NULL;
  size_t n = 0, cap = 0;
  uint64_t backwards = 0, worst = 0, order = 0;
  logfmt_message_t m, wm = { 0 };
  int rc = logfmt_msg_iter_new (r, 0, UINT64_MAX, &it);
  while (rc == 0 && (rc = logfmt_msg_iter_next (it, &m)) == 1)
    {
      rc = 0;
      int ps = m.send_stream != LOGFMT_NO_STREAM;
      int pr = m.recv_stream != LOGFMT_NO_STREAM;
      if (ps && pr && m.recv_time + VERIFY_PAIR_SLACK_NS < m.send_time)
        {
          if (m.send_time - m.recv_time > worst)
            worst = m.send_time - m.recv_time, wm = m;
          backwards++;
        }
      if (n + 2 > cap)
        {
          size_t nc = cap ? 2 * cap : 4096;
          vend_t *ne = realloc (e, nc * sizeof *ne);
          if (!ne)
            {
              rc = LOGFMT_ENOMEM;
              break;
            }
          e = ne;
          cap = nc;
        }
      for (int side = 0; side < 2; side++)
        if (side ? pr : ps)
          e[n++] = (vend_t) { m.send_rank, m.recv_rank, m.tag, m.comm,
                              side ? m.recv_stream : m.send_stream,
                              (uint8_t) side, (uint8_t) (ps && pr),
                              side ? m.recv_time : m.send_time };
    }
  if (rc < 0)
    pair_report (v, path, "cannot read the message table: %s",
                 logfmt_strerror (rc));
  /* Where events were lost, a send or receive without its partner may
     come before a matched one of its stream: its partner is among the
     lost (the LOSS records say so). */
  int lossy = logfmt_reader_info (r)->lost_events > 0;
  logfmt_msg_iter_free (it);
  logfmt_reader_close (r);
  if (backwards)
    pair_report (v, path, "%" PRIu64 " matched message(s) received more "
                 "than %llu ns before they were sent (worst: rank %d -> "
                 "%d tag %d, sent at %" PRIu64 " ns, received at %" PRIu64
                 " ns): wrong pairs, or clocks that far apart", backwards,
                 (unsigned long long) VERIFY_PAIR_SLACK_NS, wm.send_rank,
                 wm.recv_rank, wm.tag, wm.send_time, wm.recv_time);
  if (rc == 0 && n > 1)
    qsort (e, n, sizeof *e, vend_cmp);
  const vend_t *first = NULL;
  for (size_t i = 0, j; rc == 0 && i < n; i = j)
    {
      /* One group: same side, key and stream, by time. */
      uint64_t lone_min = UINT64_MAX, paired_max = 0;
      int any_paired = 0;
      for (j = i; j < n && e[j].recv == e[i].recv && e[j].src == e[i].src
                  && e[j].dst == e[i].dst && e[j].comm == e[i].comm
                  && e[j].tag == e[i].tag && e[j].stream == e[i].stream;
           j++)
        if (e[j].paired)
          any_paired = 1, paired_max = e[j].time;
        else if (e[j].time < lone_min)
          lone_min = e[j].time;
      if (!lossy && any_paired && lone_min < paired_max)
        {
          if (!order)
            first = &e[i];
          order++;
        }
    }
  if (order)
    pair_report (v, path, "%" PRIu64 " message stream(s) out of MPI's "
                 "order: an unmatched %s earlier than a matched one "
                 "(first: rank %d -> %d tag %d comm %u): wrongly paired",
                 order, first->recv ? "receive" : "send", first->src,
                 first->dst, first->tag, first->comm);
  free (e);
}

int
clogtool_verify_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  verify_ctx_t v;

  memset (&v, 0, sizeof v);
  int c;

  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":qh", longopts, NULL)) != -1)
    {
      switch (c)
        {
        case 'q':
          v.quiet = 1;
          break;
        case 'h':
          verify_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("verify", c, argv);
        }
    }
  if (clogtool__one_file ("verify", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;

  const char *path = argv[optind];
  int rc = logfmt_verify (path, report_cb, &v);
  if (rc == 0)
    verify_message_pairs (path, &v);
  if (rc < 0 && v.problems == 0)
    {
      /* Failed before any check could report (e.g. no such file). */
      if (!v.quiet)
        clogtool__error ("%s: %s", path, logfmt_strerror (rc));
      return CLOGTOOL_EXIT_PROBLEM;
    }
  if (!v.quiet)
    {
      if (rc == 0 && v.problems == 0)
        printf ("%s: OK\n", path);
      else
        printf ("%s: %" PRIu64 " problem%s\n", path, v.problems,
                v.problems == 1 ? "" : "s");
    }
  if (clogtool__flush_stdout () < 0)
    return CLOGTOOL_EXIT_PROBLEM;
  return rc == 0 && v.problems == 0 ? CLOGTOOL_EXIT_OK
                                    : CLOGTOOL_EXIT_PROBLEM;
}
