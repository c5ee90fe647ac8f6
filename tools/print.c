/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool print: every event, one per line, merged across streams in time
 * order (k-way merge of per-stream iterators on a binary heap). */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"

static void
print_help (void)
{
  fputs (
    "Usage: clogtool print [OPTIONS] FILE\n"
    "\n"
    "Prints one event per line in time order, merged over all processes\n"
    "and threads: time (s), rank, thread, kind, name, details.\n"
    "\n"
    "Options:\n"
    "  -r, --rank R[,R...]    only these world ranks\n"
    "  -t, --thread T[,T...]  only these threads\n"
    "  -f, --from T0          only events at or after T0\n"
    "  -T, --to T1            only events at or before T1\n"
    "  -k, --kind K[,K...]    only these kinds: begin, end, solo, send,\n"
    "                         recv, loss (also: state = begin,end;\n"
    "                         msg = send,recv)\n"
    "  -n, --limit N          stop after N events (instances)\n"
    "  -i, --intervals        state instances instead of events (below)\n"
    "      --tsv              tab-separated columns (for scripts)\n"
    "      --csv              CSV with a header line (name and details\n"
    "                         quoted when they need it)\n"
    "      --tolerant         read an unfinished file (crashed run) by\n"
    "                         scanning its blocks\n"
    "  -h, --help             show this help\n"
    "\n"
    "Times take a unit: 1.5s, 20ms, 300us, 100ns; a plain number is in\n"
    "seconds.  They count from the start of the run, as printed.\n"
    "\n"
    "Details: begin/end and solo events show their event id and their\n"
    "cargo decoded through the definition's format string; send shows\n"
    "to=RANK, recv from=RANK, both tag=, size= (bytes) and comm=; loss\n"
    "shows lost=N (events dropped by the logger).\n"
    "\n"
    "With --intervals, one line per state instance as every tool pairs\n"
    "them (FORMAT.md section 13), in the order they end: start and end\n"
    "(s), rank, thread, state, then dur= (inclusive s), excl= (s as the\n"
    "innermost state), depth= (instances open around it at its start),\n"
    "open (no end: cut at the thread's last event) and info from the\n"
    "end's cargo, else the start's.  --from/--to select the instances\n"
    "overlapping the window, unclipped; --kind does not apply.\n"
    "\n"
    "Exit status: 0 success, 1 error (or no stream matches the rank and\n"
    "thread filters), 2 bad usage.\n", stdout);
}

/* A parsed "1,2,5" list. */
typedef struct
{
  long long *v;
  size_t n;
} int_list_t;

static int
parse_list (const char *s, int_list_t *l)
{
  char *copy = strdup (s);
  if (copy == NULL)
    return -1;
  size_t cap = 1;
  for (const char *p = s; *p; p++)
    cap += *p == ',';
  long long *v = realloc (l->v, (l->n + cap) * sizeof *v);
  if (v == NULL)
    {
      free (copy);
      return -1;
    }
  l->v = v;
  char *save = NULL;
  int rc = 0;
  size_t got = 0;
  for (char *tok = strtok_r (copy, ",", &save); tok != NULL;
       tok = strtok_r (NULL, ",", &save))
    {
      if (clogtool__parse_int (tok, INT32_MIN, INT32_MAX, &l->v[l->n]) < 0)
        {
          rc = -1;
          break;
        }
      l->n++;
      got++;
    }
  free (copy);
  return rc == 0 && got > 0 ? 0 : -1;
}

static int
in_list (const int_list_t *l, long long x)
{
  if (l->n == 0)
    return 1;
  for (size_t i = 0; i < l->n; i++)
    if (l->v[i] == x)
      return 1;
  return 0;
}

static int
parse_kinds (const char *s, unsigned *mask)
{
  char *copy = strdup (s);
  if (copy == NULL)
    return -1;
  char *save = NULL;
  int rc = 0, got = 0;
  for (char *tok = strtok_r (copy, ",", &save); tok != NULL;
       tok = strtok_r (NULL, ",", &save))
    {
      got++;
      if (strcmp (tok, "state") == 0)
        *mask |= 1u << LOGFMT_KIND_BEGIN | 1u << LOGFMT_KIND_END;
      else if (strcmp (tok, "msg") == 0)
        *mask |= 1u << LOGFMT_KIND_SEND | 1u << LOGFMT_KIND_RECV;
      else
        {
          int k;
          for (k = LOGFMT_KIND_BEGIN; k <= LOGFMT_KIND_LOSS; k++)
            if (strcmp (tok, clogtool__kind_name (k)) == 0)
              break;
          if (k > LOGFMT_KIND_LOSS)
            {
              rc = -1;
              break;
            }
          *mask |= 1u << k;
        }
    }
  free (copy);
  return rc == 0 && got > 0 ? 0 : -1;
}

/* One stream being merged. */
typedef struct
{
  logfmt_iter_t *it;
  uint32_t stream;
  logfmt_event_t ev;
} cursor_t;

static int
cursor_less (const cursor_t *a, const cursor_t *b)
{
  if (a->ev.time != b->ev.time)
    return a->ev.time < b->ev.time;
  return a->stream < b->stream;
}

static void
heap_down (cursor_t *h, size_t n, size_t i)
{
  for (;;)
    {
      size_t l = 2 * i + 1, m = i;
      if (l < n && cursor_less (&h[l], &h[m]))
        m = l;
      if (l + 1 < n && cursor_less (&h[l + 1], &h[m]))
        m = l + 1;
      if (m == i)
        return;
      cursor_t t = h[i];
      h[i] = h[m];
      h[m] = t;
      i = m;
    }
}

/* One output line, built in memory and written with one fwrite: printf
 * per field costs more than the decoding.  Text beyond the buffer (only
 * possible with absurd names from a hostile file) is cut. */
typedef struct
{
  char buf[2048];
  size_t n;
} line_t;

static void
l_char (line_t *l, char c)
{
  if (l->n < sizeof l->buf - 1)
    l->buf[l->n++] = c;
}

static void
l_str (line_t *l, const char *s)
{
  for (; *s; s++)
    l_char (l, *s);
}

/* Text from a file may hold anything; keep each event on one line and the
 * TSV columns intact. */
static void
l_clean (line_t *l, const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    l_char (l, *p < 0x20 || *p == 0x7f ? '?' : (char) *p);
}

static void
l_u64w (line_t *l, uint64_t v, int width, int zero)
{
  char d[24];
  int k = 0;
  do
    {
      d[k++] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  for (int i = k; i < width; i++)
    l_char (l, zero ? '0' : ' ');
  while (k > 0)
    l_char (l, d[--k]);
}

static void
l_i64w (line_t *l, int64_t v, int width)
{
  uint64_t mag = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
  int digits = 1;
  for (uint64_t t = mag; t >= 10; t /= 10)
    digits++;
  for (int i = digits + (v < 0); i < width; i++)
    l_char (l, ' ');
  if (v < 0)
    l_char (l, '-');
  l_u64w (l, mag, 0, 0);
}

static void
l_time (line_t *l, uint64_t ns)
{
  l_u64w (l, ns / 1000000000u, 0, 0);
  l_char (l, '.');
  l_u64w (l, ns % 1000000000u, 9, 1);
}

typedef struct
{
  const logfmt_reader_t *r;
  int tsv;               /* columns split by tabs (--tsv, --csv) */
  int32_t last_def_id;   /* one-entry cache for event definitions */
  int last_def;
  int csv;
} printer_t;

/* Writes a finished line (ending in '\n'); for --csv its tab-separated
 * fields as CSV fields (every text in it went through l_clean, so a tab
 * is always a separator). */
static void
put_line (const printer_t *p, line_t *l)
{
  if (!p->csv)
    {
      fwrite (l->buf, 1, l->n, stdout);
      return;
    }
  l->buf[l->n - 1] = '\0';
  for (char *f = l->buf;;)
    {
      char *tab = strchr (f, '\t');
      if (tab)
        *tab = '\0';
      clogtool__csv_string (stdout, f);
      if (!tab)
        break;
      putchar (',');
      f = tab + 1;
    }
  putchar ('\n');
}

static void
put_cargo (line_t *l, const logfmt_event_t *ev, const char *format)
{
  static const char hex[] = "0123456789abcdef";
  if (!(ev->flags & LOGFMT_EVF_CARGO))
    return;
  if (format != NULL && format[0] != '\0')
    {
      char text[512];
      int n = logfmt_format_cargo (format, ev->cargo, sizeof ev->cargo,
                                   text, sizeof text);
      l_str (l, " info=\"");
      l_clean (l, text);
      l_str (l, n < 0 ? "...\"" : "\"");
      return;
    }
  /* No format: the bytes in hex, trailing zeros dropped. */
  size_t len = sizeof ev->cargo;
  while (len > 0 && ev->cargo[len - 1] == 0)
    len--;
  l_str (l, " cargo=");
  if (len == 0)
    l_char (l, '0');
  for (size_t i = 0; i < len; i++)
    {
      l_char (l, hex[ev->cargo[i] >> 4]);
      l_char (l, hex[ev->cargo[i] & 15]);
    }
}

static void
put_comm (line_t *l, printer_t *p, uint32_t comm)
{
  l_str (l, " comm=");
  l_u64w (l, comm, 0, 0);
  size_t n = logfmt_reader_n_comms (p->r);
  for (size_t i = 0; i < n; i++)
    {
      const logfmt_comm_def_t *c = logfmt_reader_comm (p->r, i);
      if (c != NULL && c->id == comm && c->name != NULL && c->name[0])
        {
          l_str (l, " (");
          l_clean (l, c->name);
          l_char (l, ')');
          break;
        }
    }
}

static void
print_event (printer_t *p, uint32_t stream, const logfmt_event_t *ev)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (p->r, stream);
  char nbuf[32];
  const char *name = "-";
  const char *format = NULL;
  line_t l;

  if ((ev->kind == LOGFMT_KIND_BEGIN || ev->kind == LOGFMT_KIND_END)
      && ev->state >= 0
      && (size_t) ev->state < logfmt_reader_n_states (p->r))
    {
      const logfmt_state_def_t *s = logfmt_reader_state (p->r,
                                                         (size_t) ev->state);
      name = s->name ? s->name : "-";
      format = s->format;
    }
  else if (ev->kind == LOGFMT_KIND_BEGIN || ev->kind == LOGFMT_KIND_END
           || ev->kind == LOGFMT_KIND_SOLO)
    {
      if (ev->id != p->last_def_id)
        {
          p->last_def_id = ev->id;
          p->last_def = logfmt_reader_find_event_def (p->r, ev->id);
        }
      const logfmt_event_def_t *d = p->last_def >= 0
        ? logfmt_reader_event_def (p->r, (size_t) p->last_def) : NULL;
      if (d != NULL && d->name != NULL)
        {
          name = d->name;
          format = d->format;
        }
      else
        {
          snprintf (nbuf, sizeof nbuf, "event%" PRId32, ev->id);
          name = nbuf;
        }
    }

  l.n = 0;
  l_time (&l, ev->time);
  const char *kind = clogtool__kind_name (ev->kind);
  if (p->tsv)
    {
      l_char (&l, '\t');
      l_i64w (&l, sd ? sd->rank : -1, 0);
      l_char (&l, '\t');
      l_i64w (&l, sd ? sd->thread : -1, 0);
      l_char (&l, '\t');
      l_str (&l, kind);
      l_char (&l, '\t');
      l_clean (&l, name);
      l_char (&l, '\t');
    }
  else
    {
      /* Columns padded for the eye: rank 4, thread 2, kind 5, name 20. */
      l_char (&l, ' ');
      l_i64w (&l, sd ? sd->rank : -1, 4);
      l_char (&l, ' ');
      l_i64w (&l, sd ? sd->thread : -1, 2);
      l_char (&l, ' ');
      size_t start = l.n;
      l_str (&l, kind);
      while (l.n < start + 6)
        l_char (&l, ' ');
      start = l.n;
      l_clean (&l, name);
      /* Pad by characters, not bytes: UTF-8 names stay aligned. */
      size_t width = 0;
      for (size_t i = start; i < l.n; i++)
        width += ((unsigned char) l.buf[i] & 0xc0) != 0x80;
      for (; width < 20; width++)
        l_char (&l, ' ');
      l_char (&l, ' ');
    }

  /* The details column starts without a blank; fields follow with one. */
  switch (ev->kind)
    {
    case LOGFMT_KIND_BEGIN:
    case LOGFMT_KIND_END:
    case LOGFMT_KIND_SOLO:
      l_str (&l, "id=");
      l_i64w (&l, ev->id, 0);
      put_cargo (&l, ev, format);
      break;
    case LOGFMT_KIND_SEND:
    case LOGFMT_KIND_RECV:
      l_str (&l, ev->kind == LOGFMT_KIND_SEND ? "to=" : "from=");
      l_i64w (&l, ev->partner, 0);
      l_str (&l, " tag=");
      l_i64w (&l, ev->tag, 0);
      l_str (&l, " size=");
      l_u64w (&l, ev->size, 0, 0);
      put_comm (&l, p, ev->comm);
      break;
    case LOGFMT_KIND_LOSS:
      l_str (&l, "lost=");
      l_u64w (&l, ev->size, 0, 0);
      break;
    default:
      l_str (&l, "type=");
      l_u64w (&l, ev->type, 0, 0);
      l_str (&l, " id=");
      l_i64w (&l, ev->id, 0);
      break;
    }
  l.buf[l.n++] = '\n';   /* l_char keeps one byte free for this */
  put_line (p, &l);
}

/* --intervals: state instances of each selected stream, merged in the
 * order they end. */
typedef struct
{
  logfmt_interval_iter_t *it;
  logfmt_interval_t iv;
} iv_cursor_t;

static int
iv_less (const iv_cursor_t *a, const iv_cursor_t *b)
{
  if (a->iv.end != b->iv.end)
    return a->iv.end < b->iv.end;
  return a->iv.stream < b->iv.stream;
}

static void
iv_heap_down (iv_cursor_t *h, size_t n, size_t i)
{
  for (;;)
    {
      size_t l = 2 * i + 1, m = i;
      if (l < n && iv_less (&h[l], &h[m]))
        m = l;
      if (l + 1 < n && iv_less (&h[l + 1], &h[m]))
        m = l + 1;
      if (m == i)
        return;
      iv_cursor_t t = h[i];
      h[i] = h[m];
      h[m] = t;
      i = m;
    }
}

static void
print_interval (printer_t *p, const logfmt_interval_t *iv)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (p->r, iv->stream);
  const logfmt_state_def_t *def = logfmt_reader_state (p->r,
                                                       (size_t) iv->state);
  const char *name = def && def->name ? def->name : "-";
  line_t l;
  char sep = p->tsv ? '\t' : ' ';
  l.n = 0;
  l_time (&l, iv->start);
  l_char (&l, sep);
  l_time (&l, iv->end);
  l_char (&l, sep);
  l_i64w (&l, sd ? sd->rank : -1, p->tsv ? 0 : 4);
  l_char (&l, sep);
  l_i64w (&l, sd ? sd->thread : -1, p->tsv ? 0 : 2);
  l_char (&l, sep);
  size_t start = l.n;
  l_clean (&l, name);
  if (!p->tsv)
    {
      size_t width = 0;
      for (size_t i = start; i < l.n; i++)
        width += ((unsigned char) l.buf[i] & 0xc0) != 0x80;
      for (; width < 20; width++)
        l_char (&l, ' ');
    }
  l_char (&l, sep);
  l_str (&l, "dur=");
  l_time (&l, iv->inclusive);
  l_str (&l, " excl=");
  l_time (&l, iv->exclusive);
  l_str (&l, " depth=");
  l_u64w (&l, iv->depth, 0, 0);
  if (iv->flags & LOGFMT_IV_OPEN)
    l_str (&l, " open");
  /* The instance's text: the END's cargo, else the BEGIN's (MPE2). */
  logfmt_event_t ev;
  ev.flags = 0;
  if (iv->flags & LOGFMT_IV_END_CARGO)
    {
      ev.flags = LOGFMT_EVF_CARGO;
      memcpy (ev.cargo, iv->end_cargo, sizeof ev.cargo);
    }
  else if (iv->flags & LOGFMT_IV_BEGIN_CARGO)
    {
      ev.flags = LOGFMT_EVF_CARGO;
      memcpy (ev.cargo, iv->begin_cargo, sizeof ev.cargo);
    }
  put_cargo (&l, &ev, def ? def->format : NULL);
  l.buf[l.n++] = '\n';
  put_line (p, &l);
}

static int
print_intervals (const char *path, logfmt_reader_t *r, const uint32_t *sel,
                 size_t nsel, uint64_t t0, uint64_t t1, long long limit,
                 int tsv)
{
  int status = CLOGTOOL_EXIT_OK;
  iv_cursor_t *heap = calloc (nsel ? nsel : 1, sizeof *heap);
  size_t nheap = 0;
  if (heap == NULL)
    {
      clogtool__error ("out of memory");
      return CLOGTOOL_EXIT_PROBLEM;
    }
  for (size_t i = 0; i < nsel; i++)
    {
      iv_cursor_t *cur = &heap[nheap];
      int rc = logfmt_interval_iter_new (r, sel[i], t0, t1, &cur->it);
      if (rc < 0)
        {
          clogtool__lib_error (path, rc, NULL);
          status = CLOGTOOL_EXIT_PROBLEM;
          continue;
        }
      rc = logfmt_interval_iter_next (cur->it, &cur->iv);
      if (rc == 1)
        {
          nheap++;
          continue;
        }
      if (rc < 0)
        {
          clogtool__lib_error (path, rc, logfmt_interval_iter_error (cur->it));
          status = CLOGTOOL_EXIT_PROBLEM;
        }
      logfmt_interval_iter_free (cur->it);
      cur->it = NULL;
    }
  printer_t pr = { r, tsv != 0, INT32_MIN, -1, tsv == 2 };
  if (pr.csv)
    puts ("start,end,rank,thread,state,details");
  for (size_t i = nheap / 2; i-- > 0;)
    iv_heap_down (heap, nheap, i);
  long long printed = 0;
  while (nheap > 0 && (limit < 0 || printed < limit))
    {
      iv_cursor_t *top = &heap[0];
      print_interval (&pr, &top->iv);
      printed++;
      if (ferror (stdout))
        break;
      int rc = logfmt_interval_iter_next (top->it, &top->iv);
      if (rc != 1)
        {
          if (rc < 0)
            {
              fflush (stdout);
              clogtool__lib_error (path, rc,
                                   logfmt_interval_iter_error (top->it));
              status = CLOGTOOL_EXIT_PROBLEM;
            }
          logfmt_interval_iter_free (top->it);
          heap[0] = heap[--nheap];
          heap[nheap].it = NULL;
        }
      iv_heap_down (heap, nheap, 0);
    }
  for (size_t i = 0; i < nheap; i++)
    logfmt_interval_iter_free (heap[i].it);
  free (heap);
  return status;
}

int
clogtool_print_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "rank", required_argument, NULL, 'r' },
    { "thread", required_argument, NULL, 't' },
    { "from", required_argument, NULL, 'f' },
    { "to", required_argument, NULL, 'T' },
    { "kind", required_argument, NULL, 'k' },
    { "limit", required_argument, NULL, 'n' },
    { "intervals", no_argument, NULL, 'i' },
    { "tsv", no_argument, NULL, 'S' },
    { "csv", no_argument, NULL, 'C' },
    { "tolerant", no_argument, NULL, 'P' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int_list_t ranks = { NULL, 0 }, threads = { NULL, 0 };
  uint64_t t0 = 0, t1 = UINT64_MAX;
  unsigned kinds = 0;
  long long limit = -1;
  int tsv = 0, intervals = 0, c, status = CLOGTOOL_EXIT_OK;
  unsigned open_flags = LOGFMT_OPEN_NOVERIFY;
  logfmt_reader_t *r = NULL;
  cursor_t *heap = NULL;
  size_t nheap = 0;

  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":r:t:f:T:k:n:ih", longopts, NULL))
         != -1)
    {
      switch (c)
        {
        case 'r':
          if (parse_list (optarg, &ranks) < 0)
            {
              status = clogtool__usage_error ("print", "bad --rank '%s'",
                                              optarg);
              goto out;
            }
          break;
        case 't':
          if (parse_list (optarg, &threads) < 0)
            {
              status = clogtool__usage_error ("print", "bad --thread '%s'",
                                              optarg);
              goto out;
            }
          break;
        case 'f':
        case 'T':
          if (clogtool__parse_time (optarg, c == 'f' ? &t0 : &t1) < 0)
            {
              status = clogtool__usage_error (
                "print", "bad time '%s' (e.g. 1.5s, 20ms, 300us, 100ns)",
                optarg);
              goto out;
            }
          break;
        case 'k':
          if (parse_kinds (optarg, &kinds) < 0)
            {
              status = clogtool__usage_error ("print", "bad --kind '%s'",
                                              optarg);
              goto out;
            }
          break;
        case 'n':
          if (clogtool__parse_int (optarg, 0, INT64_MAX, &limit) < 0)
            {
              status = clogtool__usage_error ("print", "bad --limit '%s'",
                                              optarg);
              goto out;
            }
          break;
        case 'S':
        case 'C':
          if (tsv != 0 && tsv != (c == 'C' ? 2 : 1))
            {
              status = clogtool__usage_error ("print", "--tsv and --csv "
                                              "exclude each other");
              goto out;
            }
          tsv = c == 'C' ? 2 : 1;   /* 1 tab-separated, 2 CSV */
          break;
        case 'i':
          intervals = 1;
          break;
        case 'P':
          open_flags |= LOGFMT_OPEN_TOLERANT;
          break;
        case 'h':
          print_help ();
          status = clogtool__exit_after_output ();
          goto out;
        default:
          status = clogtool__bad_option ("print", c, argv);
          goto out;
        }
    }
  if (clogtool__one_file ("print", argc) != 0)
    {
      status = CLOGTOOL_EXIT_USAGE;
      goto out;
    }
  if (t0 > t1)
    {
      status = clogtool__usage_error ("print", "--from is after --to");
      goto out;
    }
  if (kinds == 0)
    kinds = ~0u;

  r = clogtool__open_flags (argv[optind], open_flags);
  if (r == NULL)
    {
      status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }

  const logfmt_info_t *info = logfmt_reader_info (r);
  heap = calloc (info->nstreams ? info->nstreams : 1, sizeof *heap);
  if (heap == NULL)
    {
      clogtool__error ("out of memory");
      status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  if (intervals)
    {
      uint32_t *sel = malloc ((info->nstreams ? info->nstreams : 1)
                              * sizeof *sel);
      size_t nsel = 0;
      if (sel == NULL)
        {
          clogtool__error ("out of memory");
          status = CLOGTOOL_EXIT_PROBLEM;
          goto out;
        }
      for (uint32_t s = 0; s < info->nstreams; s++)
        {
          const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
          if (sd != NULL && in_list (&ranks, sd->rank)
              && in_list (&threads, sd->thread))
            sel[nsel++] = s;
        }
      if (nsel == 0)
        {
          clogtool__error ("%s: no stream matches the --rank/--thread "
                           "filters", argv[optind]);
          status = CLOGTOOL_EXIT_PROBLEM;
        }
      else
        status = print_intervals (argv[optind], r, sel, nsel, t0, t1, limit,
                                  tsv);
      free (sel);
      if (clogtool__flush_stdout () < 0)
        status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  size_t selected = 0;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      if (sd == NULL || !in_list (&ranks, sd->rank)
          || !in_list (&threads, sd->thread))
        continue;
      selected++;
      cursor_t *cur = &heap[nheap];
      int rc = logfmt_iter_new (r, s, t0, t1, &cur->it);
      if (rc < 0)
        {
          clogtool__lib_error (argv[optind], rc, NULL);
          status = CLOGTOOL_EXIT_PROBLEM;
          continue;
        }
      cur->stream = s;
      rc = logfmt_iter_next (cur->it, &cur->ev);
      if (rc == 1)
        nheap++;
      else
        {
          if (rc < 0)
            {
              clogtool__lib_error (argv[optind], rc,
                                   logfmt_iter_error (cur->it));
              status = CLOGTOOL_EXIT_PROBLEM;
            }
          logfmt_iter_free (cur->it);
          cur->it = NULL;
        }
    }
  if (selected == 0)
    {
      clogtool__error ("%s: no stream matches the --rank/--thread filters",
                       argv[optind]);
      status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }

  static char obuf[1 << 16];
  setvbuf (stdout, obuf, _IOFBF, sizeof obuf);
  printer_t pr = { r, tsv != 0, INT32_MIN, -1, tsv == 2 };
  if (pr.csv)
    puts ("time,rank,thread,kind,name,details");
  for (size_t i = nheap / 2; i-- > 0;)
    heap_down (heap, nheap, i);
  long long printed = 0;
  while (nheap > 0 && (limit < 0 || printed < limit))
    {
      cursor_t *top = &heap[0];
      if (kinds & (1u << top->ev.kind))
        {
          print_event (&pr, top->stream, &top->ev);
          printed++;
          if (ferror (stdout))
            break;
        }
      int rc = logfmt_iter_next (top->it, &top->ev);
      if (rc != 1)
        {
          if (rc < 0)
            {
              fflush (stdout);
              clogtool__lib_error (argv[optind], rc,
                                   logfmt_iter_error (top->it));
              status = CLOGTOOL_EXIT_PROBLEM;
            }
          logfmt_iter_free (top->it);
          heap[0] = heap[--nheap];
          heap[nheap].it = NULL;
        }
      heap_down (heap, nheap, 0);
    }
  if (clogtool__flush_stdout () < 0)
    status = CLOGTOOL_EXIT_PROBLEM;

out:
  for (size_t i = 0; i < nheap; i++)
    logfmt_iter_free (heap[i].it);
  free (heap);
  logfmt_reader_close (r);
  free (ranks.v);
  free (threads.v);
  return status;
}
