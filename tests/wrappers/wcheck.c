/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prints what a log holds, in sorted lines that the wrapper tests grep
 * for exact values:
 *   streams N
 *   state NAME RANK COUNT       begin events of a state, per world rank
 *   total NAME COUNT            the same over all ranks
 *   solo NAME RANK COUNT        solo events (by definition name or id)
 *   send RANK PARTNER TAG BYTES COUNT
 *   recv RANK PARTNER TAG BYTES COUNT
 *   cargo NAME RANK TEXT        formatted info of end events with cargo
 *   messages MATCHED UNMATCHED
 *   nesting RANK.THREAD OK/BAD  begins and ends pair up per stream
 *   sametime send|recv RANK COUNT  sends with the same time as the begin
 *                               before them, receives with the same time
 *                               as the end after them (one clock read)
 * usage: wcheck FILE
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logfmt/logfmt.h>

static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

typedef struct
{
  char **v;
  size_t n, cap;
} lines_t;

static void
add_line (lines_t *l, const char *s)
{
  if (l->n == l->cap)
    {
      l->cap = l->cap ? 2 * l->cap : 256;
      l->v = realloc (l->v, l->cap * sizeof *l->v);
      if (!l->v)
        exit (2);
    }
  l->v[l->n++] = strdup (s);
}

/* Counts identical lines: "key" -> "key COUNT". */
static void
print_counted (lines_t *l)
{
  qsort (l->v, l->n, sizeof *l->v, cmp_str);
  for (size_t i = 0; i < l->n;)
    {
      size_t j = i;
      while (j < l->n && strcmp (l->v[i], l->v[j]) == 0)
        j++;
      printf ("%s %zu\n", l->v[i], j - i);
      i = j;
    }
}

int
main (int argc, char **argv)
{
  logfmt_reader_t *r = NULL;
  logfmt_error_t err;
  lines_t counted = { 0 }, plain = { 0 };
  char buf[512];

  if (argc != 2)
    {
      fprintf (stderr, "usage: wcheck FILE\n");
      return 2;
    }
  if (logfmt_reader_open (argv[1], 0, &r, &err) != 0)
    {
      fprintf (stderr, "wcheck: %s\n", err.message);
      return 1;
    }
  const logfmt_info_t *info = logfmt_reader_info (r);
  printf ("streams %u\n", info->nstreams);
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      logfmt_iter_t *it = NULL;
      logfmt_event_t ev;
      int depth = 0, bad = 0, rc, have_prev = 0, prev_kind = 0;
      uint64_t prev_time = 0;
      if (logfmt_iter_new (r, s, 0, UINT64_MAX, &it) != 0)
        {
          fprintf (stderr, "wcheck: cannot iterate stream %u\n", s);
          return 1;
        }
      while ((rc = logfmt_iter_next (it, &ev)) == 1)
        {
          const logfmt_state_def_t *st = NULL;
          if (ev.state >= 0)
            st = logfmt_reader_state (r, (size_t) ev.state);
          switch (ev.kind)
            {
            case LOGFMT_KIND_BEGIN:
              depth++;
              snprintf (buf, sizeof buf, "state %s %d",
                        st ? st->name : "?", sd->rank);
              add_line (&counted, buf);
              snprintf (buf, sizeof buf, "total %s", st ? st->name : "?");
              add_line (&counted, buf);
              break;
            case LOGFMT_KIND_END:
              if (--depth < 0)
                bad = 1;
              /* A receive stamped with its state's end. */
              if (have_prev && prev_kind == LOGFMT_KIND_RECV
                  && prev_time == ev.time)
                {
                  snprintf (buf, sizeof buf, "sametime recv %d", sd->rank);
                  add_line (&counted, buf);
                }
              if ((ev.flags & LOGFMT_EVF_CARGO) && st && st->format)
                {
                  char txt[256];
                  logfmt_format_cargo (st->format, ev.cargo,
                                       LOGFMT_CARGO_SIZE, txt, sizeof txt);
                  snprintf (buf, sizeof buf, "cargo %s %d %s", st->name,
                            sd->rank, txt);
                  add_line (&plain, buf);
                }
              break;
            case LOGFMT_KIND_SOLO:
              {
                int d = logfmt_reader_find_event_def (r, ev.id);
                if (d >= 0)
                  snprintf (buf, sizeof buf, "solo %s %d",
                            logfmt_reader_event_def (r, (size_t) d)->name,
                            sd->rank);
                else
                  snprintf (buf, sizeof buf, "solo %d %d", ev.id, sd->rank);
                add_line (&counted, buf);
              }
              break;
            case LOGFMT_KIND_SEND:
            case LOGFMT_KIND_RECV:
              /* A send stamped with its state's begin (one clock read). */
              if (ev.kind == LOGFMT_KIND_SEND && have_prev
                  && prev_kind == LOGFMT_KIND_BEGIN && prev_time == ev.time)
                {
                  snprintf (buf, sizeof buf, "sametime send %d", sd->rank);
                  add_line (&counted, buf);
                }
              snprintf (buf, sizeof buf, "%s %d %d %d %" PRIu64,
                        ev.kind == LOGFMT_KIND_SEND ? "send" : "recv",
                        sd->rank, ev.partner, ev.tag, ev.size);
              add_line (&counted, buf);
              break;
            default:
              break;
            }
          have_prev = 1;
          prev_kind = ev.kind;
          prev_time = ev.time;
        }
      if (rc < 0)
        {
          fprintf (stderr, "wcheck: %s\n", logfmt_iter_error (it)->message);
          return 1;
        }
      logfmt_iter_free (it);
      snprintf (buf, sizeof buf, "nesting %d.%d %s", sd->rank, sd->thread,
                bad || depth != 0 ? "BAD" : "OK");
      add_line (&plain, buf);
    }
  print_counted (&counted);
  qsort (plain.v, plain.n, sizeof *plain.v, cmp_str);
  for (size_t i = 0; i < plain.n; i++)
    printf ("%s\n", plain.v[i]);

  logfmt_msg_iter_t *mi = NULL;
  logfmt_message_t m;
  uint64_t matched = 0, unmatched = 0;
  if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi) != 0)
    return 1;
  while (logfmt_msg_iter_next (mi, &m) == 1)
    {
      if (m.send_stream != LOGFMT_NO_STREAM
          && m.recv_stream != LOGFMT_NO_STREAM)
        matched++;
      else
        unmatched++;
    }
  logfmt_msg_iter_free (mi);
  printf ("messages %" PRIu64 " %" PRIu64 "\n", matched, unmatched);
  /* Each communicator definition: "commdef KIND SIZE RANK..." with its
     world ranks in local-rank order (the ids are hashes). */
  for (size_t i = 0; i < logfmt_reader_n_comms (r); i++)
    {
      const logfmt_comm_def_t *c = logfmt_reader_comm (r, i);
      printf ("commdef %d %u", c->kind, c->size);
      for (uint32_t k = 0; c->ranks && k < c->size; k++)
        printf (" %d", c->ranks[k]);
      printf ("\n");
    }
  logfmt_reader_close (r);
  return 0;
}
