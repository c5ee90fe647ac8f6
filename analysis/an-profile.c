/* SPDX-License-Identifier: BSD-3-Clause */
/* The profile: one pass over each stream's records, states paired by
 * logfmt's state tracker (the one interval rule), message records
 * charged to the calls open around them.  Each worker tallies a stream
 * in its own arrays, then adds them to the totals under one lock. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "an-internal.h"

void
an_profile_opts_init (an_profile_opts_t *o)
{
  memset (o, 0, sizeof *o);
  o->t1 = UINT64_MAX;
  o->rank = -1;
}

uint64_t
an_hist_lo (int bin)
{
  return bin <= 0 ? 0 : (uint64_t) 1 << (bin - 1);
}

uint64_t
an_hist_hi (int bin)
{
  return bin <= 0 ? 1 : bin >= 64 ? UINT64_MAX : (uint64_t) 1 << bin;
}

static inline int
hist_bin (uint64_t v)
{
  return v == 0 ? 0 : 64 - __builtin_clzll (v);
}

/* One state's tallies for one stream (worker) or the whole run. */
typedef struct
{
  uint64_t calls, time_ns, excl_ns, min_ns, max_ns, sent, recv;
  uint64_t hist[AN_HIST_BINS];
} tally_t;

typedef struct
{
  const logfmt_reader_t *r;
  const an_profile_opts_t *o;
  const uint8_t *cls;           /* an_state_class_t per state */
  const uint8_t *data;          /* AN__DATA_* per state */
  size_t nstates;
  const uint32_t *stream_rank;  /* stream -> index in ranks */
  /* The totals, under lock. */
  pthread_mutex_t lock;
  tally_t *tally;               /* per state */
  an_rank_use_t **per_rank;     /* per state, allocated when used */
  size_t nranks;
  uint64_t *first, *last;       /* per rank */
  uint64_t left_open, msg_outside;
  const an_counter_t *ctr;      /* counters: increases per state */
  size_t nctr;
  double *ctr_tot;              /* per state x counter */
  uint64_t *ctr_known;          /* per state x counter: instances read */
} shared_t;

typedef struct
{
  shared_t *sh;
  logfmt_iter_t *it;
  logfmt_state_tracker_t *tr;
  logfmt_event_t *batch;
  tally_t *tally;               /* per state, only `touched` ones valid */
  uint32_t *touched;
  size_t ntouched;
  uint8_t *is_touched;
  uint64_t left_open, msg_outside;
  an_series_t *series;          /* the stream's counter readings */
  double *ctr;                  /* per state x counter (touched ones) */
  uint64_t *ctr_known;          /* same shape: instances with readings */
  logfmt_error_t err;
} worker_t;

#define BATCH 1024

static tally_t *
touch (worker_t *w, int32_t state)
{
  tally_t *t = &w->tally[state];
  if (!w->is_touched[state])
    {
      w->is_touched[state] = 1;
      w->touched[w->ntouched++] = (uint32_t) state;
      memset (t, 0, sizeof *t);
      t->min_ns = UINT64_MAX;
      for (size_t c = 0; c < w->sh->nctr; c++)
        {
          w->ctr[(size_t) state * w->sh->nctr + c] = 0;
          w->ctr_known[(size_t) state * w->sh->nctr + c] = 0;
        }
    }
  return t;
}

/* A send or receive of `size` bytes: charged to the innermost open MPI
 * function and the innermost open user state. */
static void
charge_message (worker_t *w, const logfmt_event_t *ev)
{
  uint32_t depth = logfmt_state_tracker_depth (w->tr);
  int mpi_done = 0, user_done = 0;

  for (uint32_t i = depth; i-- > 0 && !(mpi_done && user_done);)
    {
      int32_t s = logfmt_state_tracker_open (w->tr, i)->state;
      int is_mpi = w->sh->cls[s] != AN_STATE_USER;
      if (is_mpi ? mpi_done : user_done)
        continue;
      tally_t *t = touch (w, s);
      if (ev->kind == LOGFMT_KIND_SEND)
        t->sent += ev->size;
      else
        t->recv += ev->size;
      t->hist[hist_bin (ev->size)]++;
      if (is_mpi)
        mpi_done = 1;
      else
        user_done = 1;
    }
  if (!mpi_done)
    w->msg_outside++;
}

static void
count_instance (worker_t *w, const logfmt_interval_t *iv)
{
  tally_t *t = touch (w, iv->state);
  t->calls++;
  t->time_ns += iv->inclusive;
  t->excl_ns += iv->exclusive;
  if (iv->inclusive < t->min_ns)
    t->min_ns = iv->inclusive;
  if (iv->inclusive > t->max_ns)
    t->max_ns = iv->inclusive;
  /* Counters: their increase from the instance's start to its end,
   * where readings enclose it (outside them nothing is known: no
   * data, not 0). */
  for (size_t c = 0; c < w->sh->nctr; c++)
    {
      const an_series_t *se = &w->series[c];
      if (se->n < 2 || iv->start < se->t[0] || iv->end > se->t[se->n - 1])
        continue;
      size_t k = (size_t) iv->state * w->sh->nctr + c;
      w->ctr[k] += an_series_at (se, iv->end) - an_series_at (se, iv->start);
      w->ctr_known[k]++;
    }
  if (w->sh->cls[iv->state] == AN_STATE_COLL
      && (iv->flags & LOGFMT_IV_END_CARGO))
    {
      an_coll_cargo_t c;
      an_coll_cargo_decode (iv->end_cargo, &c);
      t->sent += c.sent;
      t->recv += c.recv;
      t->hist[hist_bin (c.sent + c.recv)]++;
    }
  else if (w->sh->data[iv->state] && (iv->flags & LOGFMT_IV_END_CARGO))
    {
      uint64_t sent = 0, recv = 0;
      an__data_cargo (w->sh->data[iv->state], iv->end_cargo, &sent, &recv);
      t->sent += sent;
      t->recv += recv;
      t->hist[hist_bin (sent + recv)]++;
    }
}

/* Adds a stream's tallies to the totals. */
static int
merge_stream (worker_t *w, uint32_t stream, uint64_t first, uint64_t last,
              int any)
{
  shared_t *sh = w->sh;
  size_t ri = sh->stream_rank[stream];
  int rc = 0;

  pthread_mutex_lock (&sh->lock);
  if (any)
    {
      if (first < sh->first[ri])
        sh->first[ri] = first;
      if (last > sh->last[ri])
        sh->last[ri] = last;
    }
  sh->left_open += w->left_open;
  sh->msg_outside += w->msg_outside;
  for (size_t k = 0; k < w->ntouched; k++)
    {
      uint32_t s = w->touched[k];
      const tally_t *t = &w->tally[s];
      tally_t *g = &sh->tally[s];
      w->is_touched[s] = 0;
      if (sh->per_rank[s] == NULL)
        {
          sh->per_rank[s] = calloc (sh->nranks, sizeof **sh->per_rank);
          if (sh->per_rank[s] == NULL)
            {
              rc = LOGFMT_ENOMEM;
              continue;
            }
        }
      an_rank_use_t *u = &sh->per_rank[s][ri];
      u->calls += t->calls;
      u->time_ns += t->time_ns;
      u->excl_ns += t->excl_ns;
      u->bytes_sent += t->sent;
      u->bytes_recv += t->recv;
      g->calls += t->calls;
      g->time_ns += t->time_ns;
      g->excl_ns += t->excl_ns;
      g->sent += t->sent;
      g->recv += t->recv;
      if (t->calls && t->min_ns < g->min_ns)
        g->min_ns = t->min_ns;
      if (t->max_ns > g->max_ns)
        g->max_ns = t->max_ns;
      for (int b = 0; b < AN_HIST_BINS; b++)
        g->hist[b] += t->hist[b];
      for (size_t c = 0; c < sh->nctr; c++)
        {
          sh->ctr_tot[(size_t) s * sh->nctr + c]
            += w->ctr[(size_t) s * sh->nctr + c];
          sh->ctr_known[(size_t) s * sh->nctr + c]
            += w->ctr_known[(size_t) s * sh->nctr + c];
        }
    }
  pthread_mutex_unlock (&sh->lock);
  w->ntouched = 0;
  w->left_open = w->msg_outside = 0;
  return rc;
}

static int
profile_stream (void *arg, uint32_t stream)
{
  worker_t *w = arg;
  shared_t *sh = w->sh;
  const an_profile_opts_t *o = sh->o;
  uint64_t first = 0, last = 0;
  int any = 0;
  long n;
  int rc = 0;

  if (w->it == NULL)
    rc = logfmt_iter_new (sh->r, stream, 0, UINT64_MAX, &w->it);
  else
    rc = logfmt_iter_reset (w->it, stream, 0, UINT64_MAX);
  if (rc < 0)
    {
      an__error (&w->err, rc, "events");
      return rc;
    }
  logfmt_state_tracker_reset (w->tr, stream);
  rc = an_counters_load (sh->r, stream, sh->ctr, sh->nctr, w->series,
                         &w->err);
  if (rc < 0)
    return rc;
  while ((n = logfmt_iter_next_batch (w->it, w->batch, BATCH)) > 0)
    {
      if (!any)
        first = w->batch[0].time, any = 1;
      last = w->batch[n - 1].time;
      for (long i = 0; i < n; i++)
        {
          const logfmt_event_t *ev = &w->batch[i];
          logfmt_interval_t iv;
          switch (ev->kind)
            {
            case LOGFMT_KIND_BEGIN:
            case LOGFMT_KIND_END:
              rc = logfmt_state_tracker_apply (w->tr, ev, &iv, NULL);
              if (rc == LOGFMT_STEP_CLOSED && iv.start >= o->t0
                  && iv.start <= o->t1)
                count_instance (w, &iv);
              else if (rc < 0)
                {
                  an__error (&w->err, rc, "state pairing");
                  return rc;
                }
              break;
            case LOGFMT_KIND_SEND:
            case LOGFMT_KIND_RECV:
              if (ev->time >= o->t0 && ev->time <= o->t1)
                charge_message (w, ev);
              break;
            default:
              break;
            }
        }
    }
  if (n < 0)
    {
      const logfmt_error_t *e = logfmt_iter_error (w->it);
      if (e && e->code && w->err.code == 0)
        w->err = *e;
      an__error (&w->err, (int) n, "events");
      return (int) n;
    }
  logfmt_interval_t iv;
  while (logfmt_state_tracker_cut (w->tr, last, &iv) == 1)
    w->left_open += iv.start >= o->t0 && iv.start <= o->t1;
  /* The stream's span, clipped to the window. */
  if (any)
    {
      first = first < o->t0 ? o->t0 : first;
      last = last > o->t1 ? o->t1 : last;
      any = first <= last;
    }
  rc = merge_stream (w, stream, first, last, any);
  if (rc < 0)
    an__error (&w->err, rc, "profile");
  return rc;
}

/* ------------------------------------------------------------------ */

static int
cmp_i32 (const void *a, const void *b)
{
  int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
  return (x > y) - (x < y);
}

static int
cmp_entry (const void *a, const void *b)
{
  const an_prof_entry_t *x = a, *y = b;
  int xu = x->cls == AN_STATE_USER, yu = y->cls == AN_STATE_USER;
  if (xu != yu)
    return xu - yu;
  if (x->time_ns != y->time_ns)
    return x->time_ns < y->time_ns ? 1 : -1;
  return strcmp (x->name, y->name);
}

/* Entries for every state used, with their spread over the ranks. */
static int
build_entries (shared_t *sh, an_profile_t *p)
{
  size_t n = 0;
  for (size_t s = 0; s < sh->nstates; s++)
    n += sh->per_rank[s] != NULL;
  p->entries = calloc (n ? n : 1, sizeof *p->entries);
  if (p->entries == NULL)
    return LOGFMT_ENOMEM;
  for (size_t s = 0; s < sh->nstates; s++)
    {
      if (sh->per_rank[s] == NULL)
        continue;
      const tally_t *t = &sh->tally[s];
      an_prof_entry_t *e = &p->entries[p->nentries++];
      e->state = (int32_t) s;
      e->name = logfmt_reader_state (sh->r, s)->name;
      e->cls = (an_state_class_t) sh->cls[s];
      e->calls = t->calls;
      e->time_ns = t->time_ns;
      e->excl_ns = t->excl_ns;
      e->min_ns = t->calls ? t->min_ns : 0;
      e->max_ns = t->max_ns;
      e->bytes_sent = t->sent;
      e->bytes_recv = t->recv;
      memcpy (e->hist, t->hist, sizeof e->hist);
      e->per_rank = sh->per_rank[s];
      sh->per_rank[s] = NULL;
      if (sh->nctr)
        {
          e->counter = malloc (sh->nctr * sizeof *e->counter);
          if (e->counter == NULL)
            return LOGFMT_ENOMEM;
          memcpy (e->counter, &sh->ctr_tot[s * sh->nctr],
                  sh->nctr * sizeof *e->counter);
          e->counter_known = malloc (sh->nctr * sizeof *e->counter_known);
          if (e->counter_known == NULL)
            return LOGFMT_ENOMEM;
          memcpy (e->counter_known, &sh->ctr_known[s * sh->nctr],
                  sh->nctr * sizeof *e->counter_known);
        }
      e->rank_min_ns = UINT64_MAX;
      double sum = 0;
      for (size_t i = 0; i < p->nranks; i++)
        {
          uint64_t v = e->per_rank[i].time_ns;
          sum += (double) v;
          if (v < e->rank_min_ns)
            e->rank_min_ns = v, e->rank_min = p->ranks[i];
          if (i == 0 || v > e->rank_max_ns)
            e->rank_max_ns = v, e->rank_max = p->ranks[i];
          if (e->cls != AN_STATE_USER)
            p->mpi_ns[i] += v;
        }
      e->rank_mean_ns = p->nranks ? sum / (double) p->nranks : 0;
      p->nfunctions += e->cls != AN_STATE_USER;
    }
  if (p->nentries)
    qsort (p->entries, p->nentries, sizeof *p->entries, cmp_entry);
  for (size_t i = 0; i < p->nranks; i++)
    p->mpi_total_ns += p->mpi_ns[i];
  return 0;
}

int
an_profile_compute (const logfmt_reader_t *r, const an_profile_opts_t *o,
                    an_profile_t **out, logfmt_error_t *err)
{
  const logfmt_info_t *info = logfmt_reader_info (r);
  uint32_t ns = info->nstreams;
  size_t nstates = logfmt_reader_n_states (r);
  an_profile_t *p = calloc (1, sizeof *p);
  shared_t sh = { .r = r, .o = o, .nstates = nstates };
  uint32_t *streams = calloc (ns ? ns : 1, sizeof *streams);
  uint32_t *stream_rank = calloc (ns ? ns : 1, sizeof *stream_rank);
  uint8_t *cls = calloc (nstates ? nstates : 1, 1);
  uint8_t *data = calloc (nstates ? nstates : 1, 1);
  worker_t *w = NULL;
  void **wp = NULL;
  unsigned nw = 0;
  uint32_t nsel = 0;
  int rc = 0;

  *out = NULL;
  pthread_mutex_init (&sh.lock, NULL);
  if (p == NULL || streams == NULL || stream_rank == NULL || cls == NULL
      || data == NULL)
    {
      rc = LOGFMT_ENOMEM;
      goto done;
    }
  for (size_t s = 0; s < nstates; s++)
    {
      cls[s] = (uint8_t) an_state_class (logfmt_reader_state (r, s));
      data[s] = (uint8_t) an__state_data (logfmt_reader_state (r, s));
    }
  sh.cls = cls;
  sh.data = data;
  sh.stream_rank = stream_rank;

  /* The streams and ranks asked for. */
  p->ranks = calloc (ns ? ns : 1, sizeof *p->ranks);
  if (p->ranks == NULL)
    {
      rc = LOGFMT_ENOMEM;
      goto done;
    }
  for (uint32_t s = 0; s < ns; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      int32_t rank = sd ? sd->rank : -1;
      if (o->rank >= 0 && rank != o->rank)
        continue;
      streams[nsel++] = s;
      p->ranks[p->nranks++] = rank;
    }
  if (p->nranks)
    qsort (p->ranks, p->nranks, sizeof *p->ranks, cmp_i32);
  size_t nr = 0;
  for (size_t i = 0; i < p->nranks; i++)
    if (nr == 0 || p->ranks[nr - 1] != p->ranks[i])
      p->ranks[nr++] = p->ranks[i];
  p->nranks = nr;
  for (uint32_t k = 0; k < nsel; k++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, streams[k]);
      int32_t key = sd ? sd->rank : -1;
      int32_t *hit = bsearch (&key, p->ranks, nr, sizeof *p->ranks, cmp_i32);
      stream_rank[streams[k]] = (uint32_t) (hit - p->ranks);
    }
  sh.nranks = nr;
  p->ncounters = an_counters_list (r, &p->counters);
  sh.ctr = p->counters;
  sh.nctr = p->ncounters;
  sh.ctr_tot = calloc ((nstates ? nstates : 1) * (sh.nctr ? sh.nctr : 1),
                       sizeof *sh.ctr_tot);
  sh.ctr_known = calloc ((nstates ? nstates : 1) * (sh.nctr ? sh.nctr : 1),
                         sizeof *sh.ctr_known);
  if (p->counters == NULL || sh.ctr_tot == NULL || sh.ctr_known == NULL)
    {
      rc = LOGFMT_ENOMEM;
      goto done;
    }
  sh.tally = calloc (nstates ? nstates : 1, sizeof *sh.tally);
  sh.per_rank = calloc (nstates ? nstates : 1, sizeof *sh.per_rank);
  sh.first = malloc ((nr ? nr : 1) * sizeof *sh.first);
  sh.last = calloc (nr ? nr : 1, sizeof *sh.last);
  p->app_ns = calloc (nr ? nr : 1, sizeof *p->app_ns);
  p->mpi_ns = calloc (nr ? nr : 1, sizeof *p->mpi_ns);
  if (sh.tally == NULL || sh.per_rank == NULL || sh.first == NULL
      || sh.last == NULL || p->app_ns == NULL || p->mpi_ns == NULL)
    {
      rc = LOGFMT_ENOMEM;
      goto done;
    }
  for (size_t s = 0; s < nstates; s++)
    sh.tally[s].min_ns = UINT64_MAX;
  for (size_t i = 0; i < nr; i++)
    sh.first[i] = UINT64_MAX;

  nw = an__workers (o->threads, nsel);
  w = calloc (nw, sizeof *w);
  wp = calloc (nw, sizeof *wp);
  if (w == NULL || wp == NULL)
    {
      rc = LOGFMT_ENOMEM;
      goto done;
    }
  for (unsigned i = 0; i < nw; i++)
    {
      w[i].sh = &sh;
      wp[i] = &w[i];
      w[i].batch = malloc (BATCH * sizeof *w[i].batch);
      w[i].tally = malloc ((nstates ? nstates : 1) * sizeof *w[i].tally);
      w[i].touched = malloc ((nstates ? nstates : 1) * sizeof *w[i].touched);
      w[i].is_touched = calloc (nstates ? nstates : 1, 1);
      w[i].series = calloc (sh.nctr ? sh.nctr : 1, sizeof *w[i].series);
      w[i].ctr = calloc ((nstates ? nstates : 1) * (sh.nctr ? sh.nctr : 1),
                         sizeof *w[i].ctr);
      w[i].ctr_known = calloc ((nstates ? nstates : 1)
                               * (sh.nctr ? sh.nctr : 1),
                               sizeof *w[i].ctr_known);
      if (w[i].batch == NULL || w[i].tally == NULL || w[i].touched == NULL
          || w[i].is_touched == NULL || w[i].series == NULL
          || w[i].ctr == NULL || w[i].ctr_known == NULL)
        rc = LOGFMT_ENOMEM;
      else if ((rc = logfmt_state_tracker_new (nstates ? nstates : 1, 0,
                                                   &w[i].tr)) < 0)
        break;
    }
  if (rc == 0)
    rc = an__for_streams (streams, nsel, wp, nw, profile_stream);
  for (unsigned i = 0; i < nw && rc < 0; i++)
    if (w[i].err.code && err && err->code == 0)
      *err = w[i].err;
  if (rc < 0)
    goto done;

  p->left_open = sh.left_open;
  p->msg_outside = sh.msg_outside;
  p->t_first = UINT64_MAX;
  for (size_t i = 0; i < nr; i++)
    if (sh.first[i] <= sh.last[i])
      {
        p->app_ns[i] = sh.last[i] - sh.first[i];
        p->app_total_ns += p->app_ns[i];
        if (sh.first[i] < p->t_first)
          p->t_first = sh.first[i];
        if (sh.last[i] > p->t_last)
          p->t_last = sh.last[i];
      }
  if (p->t_first == UINT64_MAX)
    p->t_first = 0;
  rc = build_entries (&sh, p);

done:
  if (rc < 0)
    an__error (err, rc, "profile");
  for (unsigned i = 0; w && i < nw; i++)
    {
      logfmt_iter_free (w[i].it);
      logfmt_state_tracker_free (w[i].tr);
      free (w[i].batch);
      free (w[i].tally);
      free (w[i].touched);
      free (w[i].is_touched);
      an_series_free (w[i].series, sh.nctr);
      free (w[i].series);
      free (w[i].ctr);
      free (w[i].ctr_known);
    }
  free (w);
  free (wp);
  if (sh.per_rank)
    for (size_t s = 0; s < nstates; s++)
      free (sh.per_rank[s]);
  free (sh.per_rank);
  free (sh.tally);
  free (sh.ctr_tot);
  free (sh.ctr_known);
  free (sh.first);
  free (sh.last);
  free (streams);
  free (stream_rank);
  free (cls);
  free (data);
  pthread_mutex_destroy (&sh.lock);
  if (rc < 0)
    {
      an_profile_free (p);
      return rc;
    }
  *out = p;
  return 0;
}

void
an_profile_free (an_profile_t *p)
{
  if (p == NULL)
    return;
  for (size_t i = 0; i < p->nentries; i++)
    {
      free (p->entries[i].per_rank);
      {
        free (p->entries[i].counter);
        free (p->entries[i].counter_known);
      }
    }
  free (p->counters);
  free (p->entries);
  free (p->ranks);
  free (p->app_ns);
  free (p->mpi_ns);
  free (p);
}
