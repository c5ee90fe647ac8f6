/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * logcheck FILE: prints facts about a .clog file as "key value" lines for
 * the shell tests to compare with exact expectations:
 *   streams N | events N | lost N | messages N | matched N | unmatched N
 *   violations N          (matched messages received before sent)
 *   nonmonotonic N        (events earlier than their predecessor)
 *   badnest N             (END without a matching BEGIN on the stream)
 *   stream S rank R thread T events N
 *   count R T ID N        (records with event id ID on rank R thread T)
 *   state NAME COLOR      (each defined state)
 *   cargo ID TEXT         (first event with id ID and cargo, formatted
 *                          through its state's or event's info format)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logfmt/logfmt.h>

typedef struct { int32_t rank, thread, id; uint64_t n; } cnt_t;

static cnt_t *cnts;
static size_t ncnts, capcnts;

static void
count (int32_t rank, int32_t thread, int32_t id)
{
  for (size_t i = 0; i < ncnts; i++)
    if (cnts[i].rank == rank && cnts[i].thread == thread && cnts[i].id == id)
      {
        cnts[i].n++;
        return;
      }
  if (ncnts == capcnts)
    {
      capcnts = capcnts ? 2 * capcnts : 256;
      cnts = realloc (cnts, capcnts * sizeof *cnts);
    }
  cnts[ncnts++] = (cnt_t) { rank, thread, id, 1 };
}

static const char *
format_for (const logfmt_reader_t *r, int32_t id)
{
  for (size_t i = 0; i < logfmt_reader_n_states (r); i++)
    {
      const logfmt_state_def_t *s = logfmt_reader_state (r, i);
      if ((s->start_id == id || s->end_id == id) && s->format)
        return s->format;
    }
  int k = logfmt_reader_find_event_def (r, id);
  if (k >= 0)
    return logfmt_reader_event_def (r, (size_t) k)->format;
  return NULL;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: logcheck FILE\n");
      return 2;
    }
  logfmt_reader_t *r;
  logfmt_error_t err;
  if (logfmt_reader_open (argv[1], 0, &r, &err) != 0)
    {
      fprintf (stderr, "logcheck: %s\n", err.message);
      return 1;
    }
  const logfmt_info_t *info = logfmt_reader_info (r);
  printf ("streams %u\nevents %" PRIu64 "\nlost %" PRIu64 "\nworld %u\n",
          info->nstreams, info->nevents, info->lost_events, info->world_size);
  uint64_t nonmono = 0, badnest = 0, lossrecs = 0;
  int32_t *cargo_done = calloc (1, sizeof *cargo_done);
  size_t ncargo = 0;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      logfmt_iter_t *it;
      if (logfmt_iter_new (r, s, 0, UINT64_MAX, &it) != 0)
        return 1;
      logfmt_event_t ev;
      uint64_t n = 0, prev = 0;
      int depth = 0, rc;
      while ((rc = logfmt_iter_next (it, &ev)) == 1)
        {
          n++;
          if (ev.time < prev)
            nonmono++;
          prev = ev.time;
          if (ev.type == LOGFMT_REC_EVENT)
            count (sd->rank, sd->thread, ev.id);
          lossrecs += ev.type == LOGFMT_REC_LOSS;
          if (ev.kind == LOGFMT_KIND_BEGIN)
            depth++;
          else if (ev.kind == LOGFMT_KIND_END && --depth < 0)
            {
              badnest++;
              depth = 0;
            }
          if (ev.type == LOGFMT_REC_EVENT && (ev.flags & LOGFMT_EVF_CARGO))
            {
              int seen = 0;
              for (size_t i = 0; i < ncargo; i++)
                seen |= cargo_done[i] == ev.id;
              const char *fmt = format_for (r, ev.id);
              if (!seen && fmt)
                {
                  char out[256];
                  logfmt_format_cargo (fmt, ev.cargo, sizeof ev.cargo, out,
                                       sizeof out);
                  printf ("cargo %d %s\n", ev.id, out);
                  cargo_done = realloc (cargo_done,
                                        (ncargo + 1) * sizeof *cargo_done);
                  cargo_done[ncargo++] = ev.id;
                }
            }
        }
      if (rc < 0)
        {
          fprintf (stderr, "logcheck: %s\n", logfmt_iter_error (it)->message);
          return 1;
        }
      logfmt_iter_free (it);
      printf ("stream %u rank %d thread %d events %" PRIu64 "\n", s, sd->rank,
              sd->thread, n);
    }
  for (size_t i = 0; i < ncnts; i++)
    printf ("count %d %d %d %" PRIu64 "\n", cnts[i].rank, cnts[i].thread,
            cnts[i].id, cnts[i].n);
  for (size_t i = 0; i < logfmt_reader_n_states (r); i++)
    {
      const logfmt_state_def_t *s = logfmt_reader_state (r, i);
      printf ("state %s %s\n", s->name, s->color ? s->color : "");
    }
  for (size_t i = 0; i < logfmt_reader_n_consts (r); i++)
    {
      const logfmt_const_def_t *c = logfmt_reader_const (r, i);
      printf ("const %s %" PRId64 "\n", c->name, c->value);
    }
  logfmt_msg_iter_t *mi;
  uint64_t nm = 0, matched = 0, unmatched = 0, viol = 0;
  if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi) == 0)
    {
      logfmt_message_t m;
      while (logfmt_msg_iter_next (mi, &m) == 1)
        {
          nm++;
          if (m.send_stream != LOGFMT_NO_STREAM
              && m.recv_stream != LOGFMT_NO_STREAM)
            {
              matched++;
              if (m.recv_time < m.send_time)
                viol++;
            }
          else
            unmatched++;
        }
      logfmt_msg_iter_free (mi);
    }
  printf ("messages %" PRIu64 "\nmatched %" PRIu64 "\nunmatched %" PRIu64
          "\nviolations %" PRIu64 "\nnonmonotonic %" PRIu64
          "\nbadnest %" PRIu64 "\nlossrecs %" PRIu64 "\n", nm, matched,
          unmatched, viol, nonmono, badnest, lossrecs);
  logfmt_reader_close (r);
  return 0;
}
