/* SPDX-License-Identifier: BSD-3-Clause */
/* Message matching shared by the merge (mpe-merge.c) and `clogtool
 * recover`, so a recovered log pairs the messages the finished log
 * pairs, at any size. */
#include "config.h"

#include <stdlib.h>

#include "spillfmt.h"

int
mpe_spill_mend_cmp (const void *a, const void *b)
{
  const mpe_spill_mend_t *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
  CMP (dst); CMP (src); CMP (comm); CMP (tag); CMP (t); CMP (stream);
  CMP (seq);
#undef CMP
  return 0;
}

static int
same_key (const mpe_spill_mend_t *x, const mpe_spill_mend_t *y)
{
  return x->dst == y->dst && x->src == y->src && x->comm == y->comm
         && x->tag == y->tag;
}

mpe_spill_match_t *
mpe_spill_match (mpe_spill_mend_t *s, size_t ns, mpe_spill_mend_t *r,
                 size_t nr, size_t *nout)
{
  if (ns > 1)  /* qsort must not see NULL, even with a count of 0 */
    qsort (s, ns, sizeof *s, mpe_spill_mend_cmp);
  if (nr > 1)
    qsort (r, nr, sizeof *r, mpe_spill_mend_cmp);
  mpe_spill_match_t *out = malloc ((ns + nr + 1) * sizeof *out);
  size_t n = 0, i = 0, j = 0;
  if (!out)
    return NULL;
  while (i < ns || j < nr)
    {
      mpe_spill_match_t *o = &out[n++];
      memset (o, 0, sizeof *o);
      int c = i >= ns ? 1 : j >= nr ? -1 : same_key (&s[i], &r[j]) ? 0
              : mpe_spill_mend_cmp (&s[i], &r[j]);
      if (c <= 0)
        {
          o->m.send_stream = s[i].stream;
          o->m.send_rank = s[i].src;
          o->m.recv_rank = s[i].dst;
          o->m.tag = s[i].tag;
          o->m.comm = s[i].comm;
          o->m.size = s[i].size;
          o->ts = s[i].t;
          o->m.recv_stream = LOGFMT_NO_STREAM;
        }
      else
        o->m.send_stream = LOGFMT_NO_STREAM;
      if (c >= 0)
        {
          o->m.recv_stream = r[j].stream;
          o->m.send_rank = r[j].src;
          o->m.recv_rank = r[j].dst;
          o->m.tag = r[j].tag;
          o->m.comm = r[j].comm;
          if (c > 0)
            o->m.size = r[j].size;
          o->tr = r[j].t;
        }
      if (c <= 0)
        i++;
      if (c >= 0)
        j++;
    }
  *nout = n;
  return out;
}
