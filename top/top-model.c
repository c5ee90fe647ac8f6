/* SPDX-License-Identifier: BSD-3-Clause */
/* mpetop's model of the watched job, from the monitor's lines. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top-model.h"

#define MAX_RANKS  (1 << 22)
#define MAX_SLOTS  (1 << 24)

void
top_model_init (top_model_t *m)
{
  memset (m, 0, sizeof *m);
}

void
top_model_free (top_model_t *m)
{
  free (m->node_of);
  free (m->host);
  free (m->metrics);
  free (m->cur.slots);
  free (m->prev.slots);
  memset (m, 0, sizeof *m);
}

/* Strict number parsing: the peer may be anything. */
static int
next_i64 (const char **p, const char *end, int64_t *v)
{
  const char *s = *p;
  while (s < end && *s == ' ')
    s++;
  if (s == end)
    return -1;
  char buf[32];
  size_t n = 0;
  while (s < end && *s != ' ' && *s != ':' && n < sizeof buf - 1)
    buf[n++] = *s++;
  buf[n] = '\0';
  if (n == 0 || (s < end && *s != ' ' && *s != ':'))
    return -1;
  char *e;
  errno = 0;
  long long x = strtoll (buf, &e, 10);
  if (errno || *e)
    return -1;
  *v = x;
  *p = s;
  return 0;
}

static int
next_word (const char **p, const char *end, char *out, size_t cap)
{
  const char *s = *p;
  while (s < end && *s == ' ')
    s++;
  size_t n = 0;
  while (s < end && *s != ' ')
    {
      if (n + 1 >= cap || (unsigned char) *s < 0x21 || *s == 0x7f)
        return -1;
      out[n++] = *s++;
    }
  out[n] = '\0';
  *p = s;
  return n ? 0 : -1;
}

static int
in_range (int64_t v, int64_t lo, int64_t hi)
{
  return v >= lo && v <= hi;
}

static int
parse_hello (top_model_t *m, const char *p, const char *end,
             const char *token)
{
  int64_t ver, ranks, nodes;
  char tok[TOP_TOKEN_LEN + 2], hz[32];
  if (next_i64 (&p, end, &ver) || ver != 1
      || next_word (&p, end, tok, sizeof tok)
      || next_i64 (&p, end, &ranks) || !in_range (ranks, 1, MAX_RANKS)
      || next_i64 (&p, end, &nodes) || !in_range (nodes, 1, ranks)
      || next_word (&p, end, hz, sizeof hz) || p != end || m->hello)
    return -1;
  if (token && strcmp (tok, token) != 0)
    return -2;
  char *e;
  double h = strtod (hz, &e);
  if (*e || !(h > 0 && h <= 1e6))
    return -1;
  m->node_of = calloc ((size_t) ranks, sizeof *m->node_of);
  m->host = calloc ((size_t) ranks, sizeof *m->host);
  if (!m->node_of || !m->host)
    {
      free (m->node_of);
      free (m->host);
      m->node_of = NULL;
      m->host = NULL;
      return -1;
    }
  memcpy (m->token, tok, sizeof m->token - 1);
  m->ranks = (int) ranks;
  m->nodes = (int) nodes;
  m->hz = h;
  m->hello = 1;
  return 0;
}

static int
parse_node (top_model_t *m, const char *p, const char *end)
{
  int64_t r, k;
  char host[64];
  if (!m->hello || next_i64 (&p, end, &r) || !in_range (r, 0, m->ranks - 1)
      || next_i64 (&p, end, &k) || !in_range (k, 0, m->nodes - 1)
      || next_word (&p, end, host, sizeof host) || p != end)
    return -1;
  m->node_of[r] = (int) k;
  memcpy (m->host[r], host, sizeof host);
  return 0;
}

static int
parse_metric (top_model_t *m, const char *p, const char *end)
{
  int64_t code;
  top_metric_t x;
  if (next_i64 (&p, end, &code) || !in_range (code, 0, UINT32_MAX)
      || next_word (&p, end, x.name, sizeof x.name)
      || next_word (&p, end, x.unit, sizeof x.unit) || p != end
      || m->nmetrics >= 4096)
    return -1;
  x.code = (uint32_t) code;
  for (int i = 0; i < m->nmetrics; i++)
    if (m->metrics[i].code == x.code)
      {
        m->metrics[i] = x;      /* a new definition of the same code */
        return 0;
      }
  top_metric_t *g = realloc (m->metrics,
                             (size_t) (m->nmetrics + 1) * sizeof *g);
  if (!g)
    return -1;
  m->metrics = g;
  m->metrics[m->nmetrics++] = x;
  return 0;
}

static int
parse_sample (top_model_t *m, const char *p, const char *end)
{
  int64_t seq, t, rtt, level, object, code, visited, n;
  if (!m->hello || next_i64 (&p, end, &seq) || !in_range (seq, 0, UINT32_MAX)
      || next_i64 (&p, end, &t) || next_i64 (&p, end, &rtt) || rtt < 0
      || next_i64 (&p, end, &level) || !in_range (level, 0, 4)
      || next_i64 (&p, end, &object) || !in_range (object, -1, INT32_MAX)
      || next_i64 (&p, end, &code) || !in_range (code, 0, UINT32_MAX)
      || next_i64 (&p, end, &visited) || !in_range (visited, 0, m->ranks)
      || next_i64 (&p, end, &n) || !in_range (n, 0, MAX_SLOTS))
    return -1;
  /* Every slot takes at least 14 characters: do not trust n further. */
  if ((uint64_t) n > (uint64_t) (end - p) / 14)
    return -1;
  top_slot_t *s = malloc ((size_t) (n ? n : 1) * sizeof *s);
  if (!s)
    return -1;
  for (int64_t i = 0; i < n; i++)
    {
      int64_t f[7];
      for (int j = 0; j < 7; j++)
        {
          if (j > 0)
            {
              if (p >= end || *p != ':')
                goto bad;
              p++;
            }
          else if (p >= end || *p != ' ')
            goto bad;
          if (next_i64 (&p, end, &f[j]))
            goto bad;
        }
      if (!in_range (f[0], INT32_MIN, INT32_MAX)
          || !in_range (f[4], INT32_MIN, INT32_MAX)
          || !in_range (f[5], INT32_MIN, INT32_MAX)
          || !in_range (f[6], 0, UINT32_MAX))
        goto bad;
      s[i] = (top_slot_t) { (int32_t) f[0], f[1], f[2], f[3], (int32_t) f[4],
                            (int32_t) f[5], (uint32_t) f[6] };
    }
  if (p != end)
    goto bad;
  if (m->samples && (uint32_t) seq > m->cur.seq + 1)
    m->missing += (uint32_t) seq - m->cur.seq - 1;
  free (m->prev.slots);
  m->prev = m->cur;
  m->cur = (top_sample_t) { (uint32_t) seq, t, rtt, (int) level, (int) object,
                            (uint32_t) code, (uint32_t) visited,
                            (uint32_t) n, s };
  m->samples++;
  if (visited != m->ranks)
    m->incomplete++;
  double r = (double) rtt * 1e-9;
  m->rtt[m->nrtt++ % TOP_RTT_KEEP] = r;
  if (m->nrtt == 1 || r < m->rtt_min)
    m->rtt_min = r;
  if (m->nrtt == 1 || r > m->rtt_max)
    m->rtt_max = r;
  return 0;
bad:
  free (s);
  return -1;
}

static int
parse_stats (top_model_t *m, const char *p, const char *end)
{
  int64_t f[4];
  for (int j = 0; j < 4; j++)
    if (next_i64 (&p, end, &f[j]) || f[j] < 0)
      return -1;
  if (p != end)
    return -1;
  m->sent = (uint64_t) f[0];
  m->returned = (uint64_t) f[1];
  m->late = (uint64_t) f[2];
  m->skipped = (uint64_t) f[3];
  return 0;
}

int
top_model_line (top_model_t *m, const char *line, size_t len,
                const char *token)
{
  const char *end = line + len, *p = line;
  char word[16];
  if (len && end[-1] == '\r')
    end--;
  if (next_word (&p, end, word, sizeof word))
    return -1;
  if (!strcmp (word, "hello"))
    return parse_hello (m, p, end, token);
  if (!m->hello)
    return -1;
  if (!strcmp (word, "node"))
    return parse_node (m, p, end);
  if (!strcmp (word, "metric"))
    return parse_metric (m, p, end);
  if (!strcmp (word, "sample"))
    return parse_sample (m, p, end);
  if (!strcmp (word, "stats"))
    return parse_stats (m, p, end);
  if (!strcmp (word, "bye") && p == end)
    {
      m->ended = 1;
      return 0;
    }
  return -1;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
top_model_rtt_median (const top_model_t *m)
{
  size_t n = m->nrtt < TOP_RTT_KEEP ? (size_t) m->nrtt : TOP_RTT_KEEP;
  if (!n)
    return 0;
  double tmp[TOP_RTT_KEEP];
  memcpy (tmp, m->rtt, n * sizeof *tmp);
  qsort (tmp, n, sizeof *tmp, cmp_double);
  return tmp[n / 2];
}

double
top_model_rate (const top_model_t *m, uint32_t i)
{
  const top_sample_t *a = &m->prev, *b = &m->cur;
  if (!a->slots || a->level != b->level || a->code != b->code
      || a->object != b->object || i >= a->nslots || i >= b->nslots
      || a->slots[i].object != b->slots[i].object || b->t_ns <= a->t_ns)
    return 0;
  return (double) (b->slots[i].sum - a->slots[i].sum)
         / ((double) (b->t_ns - a->t_ns) * 1e-9);
}

static const char *const level_names[] =
  { "thread", "process", "node", "job", "channel" };

const char *
top_level_name (int level)
{
  return level >= 0 && level <= 4 ? level_names[level] : "?";
}

int
top_level_parse (const char *s)
{
  for (int i = 0; i <= 4; i++)
    if (!strcmp (s, level_names[i]))
      return i;
  return -1;
}

const char *
top_metric_name (const top_model_t *m, uint32_t code)
{
  for (int i = 0; i < m->nmetrics; i++)
    if (m->metrics[i].code == code)
      return m->metrics[i].name;
  return NULL;
}
