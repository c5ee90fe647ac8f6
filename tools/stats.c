/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool stats: one pass over every stream with the reader's iterators;
 * memory depends on the definitions and nesting depth, never on the
 * number of events. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"

static void
stats_help (void)
{
  fputs (
    "Usage: clogtool stats [--json|--csv] [--tolerant] FILE\n"
    "\n"
    "Prints statistics of a log: processes, threads, events by kind,\n"
    "time range, per-rank event counts, lost events, and per state the\n"
    "number of completed instances (summed over all ranks and threads;\n"
    "an end closes the innermost open instance of its own state, see\n"
    "FORMAT.md section 13) with their total inclusive and exclusive time,\n"
    "and the starts and ends without a partner; solo event counts;\n"
    "messages (table entries, bytes, unmatched ends).\n"
    "\n"
    "Options:\n"
    "  -j, --json   one JSON object instead of the table\n"
    "      --csv    the state and solo event tables as CSV: kind (state or\n"
    "               solo), name, id (a state's start id), count, total_s,\n"
    "               exclusive_s, unmatched_begins, unmatched_ends (the\n"
    "               last four empty for solo events)\n"
    "  --tolerant   read an unfinished file (crashed run) by scanning its\n"
    "               blocks\n"
    "  -h, --help   show this help\n"
    "\n"
    "JSON keys: file, format, version, partial, creator, world_size, ranks,\n"
    "threads (timelines over all ranks), streams, events, lost_events,\n"
    "t_first, t_last, duration (seconds), kinds {begin, end, solo, send,\n"
    "recv, loss}, states [{name, color, rgb, start_id, end_id, count,\n"
    "total_s, exclusive_s, unmatched_begins, unmatched_ends, too_deep}],\n"
    "solo_events [{name, id,\n"
    "count}], messages {count, bytes, unmatched, sends, recvs},\n"
    "per_rank [{rank, threads, events, lost}].\n"
    "\n"
    "Exit status: 0 success, 1 error, 2 bad usage.\n", stdout);
}

/* Counts per solo event id: open addressing, grown by doubling. */
typedef struct
{
  int32_t id;
  int used;
  uint64_t count;
} solo_slot_t;

typedef struct
{
  solo_slot_t *slots;
  size_t cap, n;
} solo_map_t;

static size_t
solo_hash (int32_t id, size_t cap)
{
  return (size_t) (((uint32_t) id * 2654435761u) & (cap - 1));
}

static int
solo_map_grow (solo_map_t *m)
{
  size_t ncap = m->cap ? m->cap * 2 : 64;
  solo_slot_t *ns = calloc (ncap, sizeof *ns);
  if (ns == NULL)
    return -1;
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i].used)
      {
        size_t j = solo_hash (m->slots[i].id, ncap);
        while (ns[j].used)
          j = (j + 1) & (ncap - 1);
        ns[j] = m->slots[i];
      }
  free (m->slots);
  m->slots = ns;
  m->cap = ncap;
  return 0;
}

static solo_slot_t *
solo_map_get (solo_map_t *m, int32_t id)
{
  if ((m->n + 1) * 2 > m->cap && solo_map_grow (m) < 0)
    return NULL;
  size_t j = solo_hash (id, m->cap);
  while (m->slots[j].used && m->slots[j].id != id)
    j = (j + 1) & (m->cap - 1);
  if (!m->slots[j].used)
    {
      m->slots[j].used = 1;
      m->slots[j].id = id;
      m->n++;
    }
  return &m->slots[j];
}

typedef struct
{
  uint64_t count, total_ns, excl_ns, unmatched_begins, unmatched_ends;
  uint64_t too_deep;
} state_acc_t;

typedef struct
{
  int32_t rank;
  uint32_t threads;
  uint64_t events, lost;
} rank_acc_t;

typedef struct
{
  const char *path;
  logfmt_reader_t *r;
  size_t nstates;
  state_acc_t *states;
  solo_map_t solo;
  uint64_t kinds[LOGFMT_KIND_LOSS + 1];
  uint64_t events, lost, other;
  uint64_t t_first, t_last;
  rank_acc_t *ranks;
  size_t nranks;
  uint32_t *stream_rank;     /* stream -> index in ranks */
  logfmt_state_tracker_t *tracker;
  uint64_t msg_count, msg_bytes, msg_unmatched;
} stats_t;

static int
cmp_rank (const void *a, const void *b)
{
  int32_t x = ((const rank_acc_t *) a)->rank;
  int32_t y = ((const rank_acc_t *) b)->rank;
  return (x > y) - (x < y);
}

/* The distinct ranks of the stream table, sorted, and each stream's. */
static int
build_ranks (stats_t *st, uint32_t nstreams)
{
  st->ranks = calloc (nstreams ? nstreams : 1, sizeof *st->ranks);
  st->stream_rank = calloc (nstreams ? nstreams : 1,
                            sizeof *st->stream_rank);
  if (st->ranks == NULL || st->stream_rank == NULL)
    return -1;
  for (uint32_t s = 0; s < nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (st->r, s);
      st->ranks[s].rank = sd ? sd->rank : -1;
    }
  qsort (st->ranks, nstreams, sizeof *st->ranks, cmp_rank);
  size_t n = 0;
  for (uint32_t s = 0; s < nstreams; s++)
    if (n == 0 || st->ranks[n - 1].rank != st->ranks[s].rank)
      st->ranks[n++].rank = st->ranks[s].rank;
  st->nranks = n;
  for (uint32_t s = 0; s < nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (st->r, s);
      rank_acc_t key = { .rank = sd ? sd->rank : -1 };
      rank_acc_t *hit = bsearch (&key, st->ranks, n, sizeof *st->ranks,
                                 cmp_rank);
      st->stream_rank[s] = (uint32_t) (hit - st->ranks);
      hit->threads++;
    }
  return 0;
}

/* Scans one stream.  Returns 0 or a negative code (message printed). */
static int
scan_stream (stats_t *st, uint32_t s)
{
  logfmt_iter_t *it = NULL;
  logfmt_event_t ev;
  logfmt_interval_t iv;
  uint64_t events = 0, lost = 0, last = 0;
  int rc = logfmt_iter_new (st->r, s, 0, UINT64_MAX, &it);

  if (rc < 0)
    {
      clogtool__lib_error (st->path, rc, NULL);
      return rc;
    }
  logfmt_state_tracker_reset (st->tracker, s);
  while ((rc = logfmt_iter_next (it, &ev)) == 1)
    {
      last = ev.time;
      if (events == 0 && ev.time < st->t_first)
        st->t_first = ev.time;
      if (ev.time > st->t_last)
        st->t_last = ev.time;
      events++;
      if (ev.kind <= LOGFMT_KIND_LOSS)
        st->kinds[ev.kind]++;
      else
        st->other++;
      switch (ev.kind)
        {
        case LOGFMT_KIND_BEGIN:
        case LOGFMT_KIND_END:
          switch (logfmt_state_tracker_apply (st->tracker, &ev, &iv, NULL))
            {
            case LOGFMT_STEP_CLOSED:
              st->states[iv.state].count++;
              st->states[iv.state].total_ns += iv.inclusive;
              st->states[iv.state].excl_ns += iv.exclusive;
              break;
            case LOGFMT_STEP_UNMATCHED_END:
              st->states[ev.state].unmatched_ends++;
              break;
            case LOGFMT_STEP_TOO_DEEP:
              if (ev.kind == LOGFMT_KIND_BEGIN)
                st->states[ev.state].too_deep++;
              break;
            case LOGFMT_ENOMEM:
              clogtool__error ("out of memory");
              logfmt_iter_free (it);
              return LOGFMT_ENOMEM;
            default:
              break;
            }
          break;
        case LOGFMT_KIND_SOLO:
          {
            solo_slot_t *slot = solo_map_get (&st->solo, ev.id);
            if (slot == NULL)
              {
                clogtool__error ("out of memory");
                logfmt_iter_free (it);
                return LOGFMT_ENOMEM;
              }
            slot->count++;
            break;
          }
        case LOGFMT_KIND_LOSS:
          lost += ev.size;
          break;
        default:
          break;
        }
    }
  if (rc < 0)
    clogtool__lib_error (st->path, rc, logfmt_iter_error (it));
  /* Instances left open at the end of the stream. */
  while (logfmt_state_tracker_cut (st->tracker, last, &iv) == 1)
    st->states[iv.state].unmatched_begins++;
  st->events += events;
  st->lost += lost;
  st->ranks[st->stream_rank[s]].events += events;
  st->ranks[st->stream_rank[s]].lost += lost;
  logfmt_iter_free (it);
  return rc < 0 ? rc : 0;
}

static int
scan_messages (stats_t *st)
{
  logfmt_msg_iter_t *it = NULL;
  logfmt_message_t m;
  int rc = logfmt_msg_iter_new (st->r, 0, UINT64_MAX, &it);
  if (rc < 0)
    {
      clogtool__lib_error (st->path, rc, NULL);
      return rc;
    }
  while ((rc = logfmt_msg_iter_next (it, &m)) == 1)
    {
      st->msg_count++;
      st->msg_bytes += m.size;
      if (m.send_stream == LOGFMT_NO_STREAM
          || m.recv_stream == LOGFMT_NO_STREAM)
        st->msg_unmatched++;
    }
  if (rc < 0)
    clogtool__lib_error (st->path, rc, logfmt_msg_iter_error (it));
  logfmt_msg_iter_free (it);
  return rc < 0 ? rc : 0;
}

/* Sorted output: solo events by id. */
static int
cmp_solo (const void *a, const void *b)
{
  int32_t x = ((const solo_slot_t *) a)->id;
  int32_t y = ((const solo_slot_t *) b)->id;
  return (x > y) - (x < y);
}

static const char *
solo_name (const stats_t *st, int32_t id, char *buf, size_t len)
{
  int d = logfmt_reader_find_event_def (st->r, id);
  const logfmt_event_def_t *def = d >= 0
    ? logfmt_reader_event_def (st->r, (size_t) d) : NULL;
  if (def != NULL && def->name != NULL)
    return def->name;
  snprintf (buf, len, "event%" PRId32, id);
  return buf;
}

static void
print_json (const stats_t *st, const solo_slot_t *solos, size_t nsolo)
{
  const logfmt_info_t *info = logfmt_reader_info (st->r);
  char t[32];
  FILE *f = stdout;

  fputs ("{\n  \"file\": ", f);
  clogtool__json_string (f, st->path);
  fputs (",\n  \"format\": ", f);
  clogtool__json_string (f, info->format_name);
  fprintf (f, ",\n  \"version\": \"%u.%u\"", info->major, info->minor);
  fprintf (f, ",\n  \"partial\": %s", info->partial ? "true" : "false");
  fputs (",\n  \"creator\": ", f);
  clogtool__json_string (f, info->creator);
  fprintf (f, ",\n  \"world_size\": %" PRIu32, info->world_size);
  fprintf (f, ",\n  \"ranks\": %zu", st->nranks);
  fprintf (f, ",\n  \"threads\": %" PRIu32, info->nstreams);
  fprintf (f, ",\n  \"streams\": %" PRIu32, info->nstreams);
  fprintf (f, ",\n  \"events\": %" PRIu64, st->events);
  fprintf (f, ",\n  \"lost_events\": %" PRIu64, st->lost);
  fprintf (f, ",\n  \"t_first\": %s", clogtool__fmt_time (st->t_first, t));
  fprintf (f, ",\n  \"t_last\": %s", clogtool__fmt_time (st->t_last, t));
  fprintf (f, ",\n  \"duration\": %s",
           clogtool__fmt_time (st->t_last - st->t_first, t));
  fputs (",\n  \"kinds\": {", f);
  for (int k = LOGFMT_KIND_BEGIN; k <= LOGFMT_KIND_LOSS; k++)
    fprintf (f, "%s\"%s\": %" PRIu64, k > LOGFMT_KIND_BEGIN ? ", " : "",
             clogtool__kind_name (k), st->kinds[k]);
  fputs ("}", f);

  fputs (",\n  \"states\": [", f);
  for (size_t i = 0; i < st->nstates; i++)
    {
      const logfmt_state_def_t *d = logfmt_reader_state (st->r, i);
      const state_acc_t *a = &st->states[i];
      fputs (i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
      clogtool__json_string (f, d->name);
      fputs (", \"color\": ", f);
      clogtool__json_string (f, d->color);
      fprintf (f, ", \"rgb\": \"#%06" PRIx32 "\"", d->rgb & 0xffffffu);
      fprintf (f, ", \"start_id\": %" PRId32 ", \"end_id\": %" PRId32,
               d->start_id, d->end_id);
      fprintf (f, ", \"count\": %" PRIu64 ", \"total_s\": %s",
               a->count, clogtool__fmt_time (a->total_ns, t));
      fprintf (f, ", \"exclusive_s\": %s",
               clogtool__fmt_time (a->excl_ns, t));
      fprintf (f, ", \"unmatched_begins\": %" PRIu64
               ", \"unmatched_ends\": %" PRIu64 ", \"too_deep\": %" PRIu64
               "}", a->unmatched_begins, a->unmatched_ends, a->too_deep);
    }
  fputs (st->nstates ? "\n  ]" : "]", f);

  fputs (",\n  \"solo_events\": [", f);
  for (size_t i = 0; i < nsolo; i++)
    {
      char nb[32];
      fputs (i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
      clogtool__json_string (f, solo_name (st, solos[i].id, nb, sizeof nb));
      fprintf (f, ", \"id\": %" PRId32 ", \"count\": %" PRIu64 "}",
               solos[i].id, solos[i].count);
    }
  fputs (nsolo ? "\n  ]" : "]", f);

  fprintf (f, ",\n  \"messages\": {\"count\": %" PRIu64
           ", \"bytes\": %" PRIu64 ", \"unmatched\": %" PRIu64
           ", \"sends\": %" PRIu64 ", \"recvs\": %" PRIu64 "}",
           st->msg_count, st->msg_bytes, st->msg_unmatched,
           st->kinds[LOGFMT_KIND_SEND], st->kinds[LOGFMT_KIND_RECV]);

  fputs (",\n  \"per_rank\": [", f);
  for (size_t i = 0; i < st->nranks; i++)
    fprintf (f, "%s{\"rank\": %" PRId32 ", \"threads\": %" PRIu32
             ", \"events\": %" PRIu64 ", \"lost\": %" PRIu64 "}",
             i ? ",\n    " : "\n    ", st->ranks[i].rank,
             st->ranks[i].threads, st->ranks[i].events, st->ranks[i].lost);
  fputs (st->nranks ? "\n  ]\n}\n" : "]\n}\n", f);
}

static void
print_table (const stats_t *st, const solo_slot_t *solos, size_t nsolo)
{
  const logfmt_info_t *info = logfmt_reader_info (st->r);
  char t[32], t2[32];

  fputs ("file        ", stdout);
  clogtool__put_text (stdout, st->path, 0);
  fputs ("\nformat      ", stdout);
  clogtool__put_text (stdout, info->format_name ? info->format_name : "?",
                      0);
  printf (" %u.%u, %" PRIu64 " bytes\n", info->major, info->minor,
          info->file_size);
  if (info->partial)
    puts ("partial     yes: no valid trailer (an unfinished or cut file), "
          "read by scanning its chunks;\n            what followed the last "
          "whole chunk is missing ('clogtool repair' rebuilds the rest)");
  if (info->creator != NULL && info->creator[0])
    {
      fputs ("creator     ", stdout);
      clogtool__put_text (stdout, info->creator, 0);
      putchar ('\n');
    }
  printf ("processes   %zu (world size %" PRIu32 "), threads %" PRIu32 "\n",
          st->nranks, info->world_size, info->nstreams);
  printf ("events      %" PRIu64 " (begin %" PRIu64 ", end %" PRIu64
          ", solo %" PRIu64 ", send %" PRIu64 ", recv %" PRIu64
          ", loss %" PRIu64 ")\n", st->events,
          st->kinds[LOGFMT_KIND_BEGIN], st->kinds[LOGFMT_KIND_END],
          st->kinds[LOGFMT_KIND_SOLO], st->kinds[LOGFMT_KIND_SEND],
          st->kinds[LOGFMT_KIND_RECV], st->kinds[LOGFMT_KIND_LOSS]);
  printf ("lost events %" PRIu64 "\n", st->lost);
  printf ("time        %s .. %s s (%s s)\n",
          clogtool__fmt_time (st->t_first, t),
          clogtool__fmt_time (st->t_last, t2),
          clogtool__fmt_time (st->t_last - st->t_first, t2 + 0));
  printf ("messages    %" PRIu64 " (%" PRIu64 " bytes, %" PRIu64
          " unmatched)\n", st->msg_count, st->msg_bytes, st->msg_unmatched);
  /* A partial file read tolerantly may have lost its message table (it
   * is written at the end): say so rather than report no messages. */
  uint64_t ends = st->kinds[LOGFMT_KIND_SEND] + st->kinds[LOGFMT_KIND_RECV];
  uint64_t paired = 2 * st->msg_count - st->msg_unmatched;
  if (ends && st->msg_count == 0)
    printf ("            (the message table is missing: %" PRIu64 " sends "
            "and %" PRIu64 " receives are not paired; 'clogtool repair' "
            "rebuilds it)\n", st->kinds[LOGFMT_KIND_SEND],
            st->kinds[LOGFMT_KIND_RECV]);
  else if (info->partial && paired < ends)
    printf ("            (the message table is partial: it holds %" PRIu64
            " of the %" PRIu64 " sends and receives; 'clogtool repair' "
            "rebuilds it)\n", paired, ends);

  printf ("\n%-24s %-18s %10s %18s %18s %14s\n", "state", "color", "count",
          "total_s", "exclusive_s", "mean_us");
  for (size_t i = 0; i < st->nstates; i++)
    {
      const logfmt_state_def_t *d = logfmt_reader_state (st->r, i);
      const state_acc_t *a = &st->states[i];
      double mean_us = a->count ? (double) a->total_ns / a->count / 1e3 : 0;
      clogtool__put_text (stdout, d->name ? d->name : "-", 24);
      putchar (' ');
      clogtool__put_text (stdout, d->color ? d->color : "-", 18);
      printf (" %10" PRIu64 " %18s %18s %14.3f\n", a->count,
              clogtool__fmt_time (a->total_ns, t),
              clogtool__fmt_time (a->excl_ns, t2), mean_us);
      if (a->unmatched_begins || a->unmatched_ends)
        printf ("%-24s (%" PRIu64 " starts and %" PRIu64
                " ends without a partner)\n", "", a->unmatched_begins,
                a->unmatched_ends);
      if (a->too_deep)
        printf ("%-24s (%" PRIu64 " starts nested deeper than %d, not "
                "counted)\n", "", a->too_deep, LOGFMT_STATE_MAX_DEPTH);
    }

  printf ("\n%-24s %12s %12s\n", "solo event", "id", "count");
  for (size_t i = 0; i < nsolo; i++)
    {
      char nb[32];
      clogtool__put_text (stdout, solo_name (st, solos[i].id, nb, sizeof nb),
                          24);
      printf (" %12" PRId32 " %12" PRIu64 "\n", solos[i].id,
              solos[i].count);
    }

  printf ("\n%12s %8s %14s %10s\n", "rank", "threads", "events", "lost");
  for (size_t i = 0; i < st->nranks; i++)
    printf ("%12" PRId32 " %8" PRIu32 " %14" PRIu64 " %10" PRIu64 "\n",
            st->ranks[i].rank, st->ranks[i].threads, st->ranks[i].events,
            st->ranks[i].lost);
}

static void
print_csv (const stats_t *st, const solo_slot_t *solos, size_t nsolo)
{
  char t[32], t2[32];
  puts ("kind,name,id,count,total_s,exclusive_s,unmatched_begins,"
        "unmatched_ends");
  for (size_t i = 0; i < st->nstates; i++)
    {
      const logfmt_state_def_t *d = logfmt_reader_state (st->r, i);
      const state_acc_t *a = &st->states[i];
      fputs ("state,", stdout);
      clogtool__csv_string (stdout, d->name);
      printf (",%" PRId32 ",%" PRIu64 ",%s,%s,%" PRIu64 ",%" PRIu64 "\n",
              d->start_id, a->count, clogtool__fmt_time (a->total_ns, t),
              clogtool__fmt_time (a->excl_ns, t2), a->unmatched_begins,
              a->unmatched_ends);
    }
  for (size_t i = 0; i < nsolo; i++)
    {
      char nb[32];
      fputs ("solo,", stdout);
      clogtool__csv_string (stdout, solo_name (st, solos[i].id, nb,
                                               sizeof nb));
      printf (",%" PRId32 ",%" PRIu64 ",,,,\n", solos[i].id,
              solos[i].count);
    }
}

int
clogtool_stats_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'C' },
    { "tolerant", no_argument, NULL, 'P' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, csv = 0, c, status = CLOGTOOL_EXIT_OK;
  unsigned open_flags = LOGFMT_OPEN_NOVERIFY;
  stats_t st;
  solo_slot_t *solos = NULL;

  memset (&st, 0, sizeof st);
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jh", longopts, NULL)) != -1)
    {
      switch (c)
        {
        case 'j':
          json = 1;
          break;
        case 'C':
          csv = 1;
          break;
        case 'P':
          open_flags |= LOGFMT_OPEN_TOLERANT;
          break;
        case 'h':
          stats_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("stats", c, argv);
        }
    }
  if (json && csv)
    return clogtool__usage_error ("stats", "--json and --csv exclude each "
                                  "other");
  if (clogtool__one_file ("stats", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;

  st.path = argv[optind];
  st.r = clogtool__open_flags (st.path, open_flags);
  if (st.r == NULL)
    return CLOGTOOL_EXIT_PROBLEM;

  const logfmt_info_t *info = logfmt_reader_info (st.r);
  st.nstates = logfmt_reader_n_states (st.r);
  st.states = calloc (st.nstates ? st.nstates : 1, sizeof *st.states);
  st.t_first = UINT64_MAX;
  if (st.states == NULL || build_ranks (&st, info->nstreams) < 0
      || logfmt_state_tracker_new (st.nstates, 0, &st.tracker) < 0)
    {
      clogtool__error ("out of memory");
      status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  for (uint32_t s = 0; s < info->nstreams; s++)
    if (scan_stream (&st, s) < 0)
      {
        status = CLOGTOOL_EXIT_PROBLEM;
        goto out;
      }
  if (scan_messages (&st) < 0)
    {
      status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  if (st.events == 0)
    st.t_first = st.t_last = 0;

  /* Defined solo events are listed even when they never occurred. */
  size_t ndefs = logfmt_reader_n_event_defs (st.r);
  for (size_t i = 0; i < ndefs; i++)
    {
      const logfmt_event_def_t *d = logfmt_reader_event_def (st.r, i);
      if (d != NULL && solo_map_get (&st.solo, d->id) == NULL)
        {
          clogtool__error ("out of memory");
          status = CLOGTOOL_EXIT_PROBLEM;
          goto out;
        }
    }
  solos = malloc ((st.solo.n ? st.solo.n : 1) * sizeof *solos);
  if (solos == NULL)
    {
      clogtool__error ("out of memory");
      status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  size_t nsolo = 0;
  for (size_t i = 0; i < st.solo.cap; i++)
    if (st.solo.slots[i].used)
      solos[nsolo++] = st.solo.slots[i];
  qsort (solos, nsolo, sizeof *solos, cmp_solo);

  if (json)
    print_json (&st, solos, nsolo);
  else if (csv)
    print_csv (&st, solos, nsolo);
  else
    print_table (&st, solos, nsolo);
  if (clogtool__flush_stdout () < 0)
    status = CLOGTOOL_EXIT_PROBLEM;

out:
  free (solos);
  free (st.solo.slots);
  free (st.states);
  free (st.ranks);
  free (st.stream_rank);
  logfmt_state_tracker_free (st.tracker);
  logfmt_reader_close (st.r);
  return status;
}
