/* SPDX-License-Identifier: BSD-3-Clause */
/* The states' rows grouped by name in one pass (grouped.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "grouped.h"

#define GROUP_CHUNK 65536u
#define GROUP_MEM   (64u << 20)   /* CLOGSQL_GROUP_MEM (bytes) overrides */

void
grouped_free (grouped_t *gp)
{
  if (!gp)
    return;
  for (uint32_t g = 0; gp->b && g < gp->ngroups; g++)
    for (gchunk_t *ch = gp->b[g].head, *nx; ch; ch = nx)
      {
        nx = ch->next;
        free (ch->mem);
        free (ch);
      }
  if (gp->spill)
    fclose (gp->spill);
  free (gp->b);
  free (gp->group_of);
  free (gp->buf);
  free (gp);
}

typedef struct
{
  const char *name;
  uint32_t state;
} name_slot_t;

static int
name_cmp (const void *a, const void *b)
{
  const char *x = ((const name_slot_t *) a)->name;
  const char *y = ((const name_slot_t *) b)->name;
  size_t nx = strlen (x), ny = strlen (y);
  int d = memcmp (x, y, nx < ny ? nx : ny);
  return d ? d : nx < ny ? -1 : nx > ny;
}

/* The groups: one per distinct state name, in byte order after the
 * group of states without a definition. */
grouped_t *
grouped_new (const logfmt_reader_t *r, unsigned fields)
{
  size_t n = logfmt_reader_n_states (r);
  grouped_t *gp = malloc (sizeof *gp);
  name_slot_t *slots = malloc ((n + 1) * sizeof *slots);
  if (!gp || !slots)
    goto fail;
  memset (gp, 0, sizeof *gp);
  gp->fields = fields;
  gp->nstates = n;
  const char *env = getenv ("CLOGSQL_GROUP_MEM");
  gp->mem_max = env && *env ? strtoull (env, NULL, 10) : GROUP_MEM;
  gp->group_of = malloc ((n + 1) * sizeof *gp->group_of);
  gp->b = malloc ((n + 1) * sizeof *gp->b);
  if (!gp->group_of || !gp->b)
    goto fail;
  memset (gp->b, 0, (n + 1) * sizeof *gp->b);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    {
      const logfmt_state_def_t *st = logfmt_reader_state (r, i);
      gp->group_of[i] = 0;
      if (st && st->name)
        slots[k++] = (name_slot_t) { st->name, (uint32_t) i };
    }
  qsort (slots, k, sizeof *slots, name_cmp);
  gp->b[0].state = -1;
  gp->ngroups = 1;
  for (size_t i = 0; i < k; i++)
    {
      if (i == 0 || name_cmp (&slots[i - 1], &slots[i]) != 0)
        {
          gbucket_t *b = &gp->b[gp->ngroups++];
          b->state = (int32_t) slots[i].state;
          b->name = slots[i].name;
          b->name_len = (int) strlen (b->name);
        }
      gp->group_of[slots[i].state] = gp->ngroups - 1;
    }
  free (slots);
  gp->passing = 1;
  return gp;
fail:
  free (slots);
  grouped_free (gp);
  return NULL;
}

static uint8_t *
put_varint (uint8_t *p, uint64_t v)
{
  while (v >= 0x80)
    {
      *p++ = (uint8_t) (v | 0x80);
      v >>= 7;
    }
  *p++ = (uint8_t) v;
  return p;
}

static const uint8_t *
get_varint (const uint8_t *p, const uint8_t *end, uint64_t *v)
{
  uint64_t x = 0;
  for (unsigned sh = 0; p < end && sh < 64; sh += 7)
    {
      uint8_t b = *p++;
      x |= (uint64_t) (b & 0x7f) << sh;
      if (!(b & 0x80))
        break;
    }
  *v = x;
  return p;
}

/* Writes the chunks in memory to the spill file (made on first use). */
static int
grouped_spill (grouped_t *gp)
{
  if (!gp->spill && !(gp->spill = tmpfile ()))
    return LOGFMT_EIO;
  for (uint32_t g = 0; g < gp->ngroups; g++)
    for (gchunk_t *ch = gp->b[g].head; ch; ch = ch->next)
      {
        if (!ch->mem || ch == gp->b[g].tail)
          continue;   /* spilled already, or still filling */
        if (fwrite (ch->mem, 1, ch->len, gp->spill) != ch->len)
          return LOGFMT_EIO;
        ch->off = gp->spill_end;
        gp->spill_end += ch->len;
        free (ch->mem);
        ch->mem = NULL;
        gp->mem -= GROUP_CHUNK;
      }
  return fflush (gp->spill) == 0 ? 0 : LOGFMT_EIO;
}

#define GROUP_ROW_MAX (8 * 10 + 1 + LOGFMT_CARGO_SIZE)

/* Appends one instance to bucket g, encoded in place. */
static int
grouped_add (grouped_t *gp, uint32_t g, const logfmt_interval_t *iv)
{
  gbucket_t *b = &gp->b[g];
  if (!b->tail || b->tail->len + GROUP_ROW_MAX > GROUP_CHUNK)
    {
      if (gp->mem + GROUP_CHUNK > gp->mem_max)
        {
          int rc = grouped_spill (gp);
          if (rc != 0)
            return rc;
        }
      gchunk_t *ch = malloc (sizeof *ch);
      uint8_t *mem = malloc (GROUP_CHUNK);
      if (!ch || !mem)
        {
          free (ch);
          free (mem);
          return LOGFMT_ENOMEM;
        }
      *ch = (gchunk_t) { NULL, mem, 0, 0 };
      if (b->tail)
        b->tail->next = ch;
      else
        b->head = ch;
      b->tail = ch;
      gp->mem += GROUP_CHUNK;
    }
  uint8_t *const row = b->tail->mem + b->tail->len;
  uint8_t *p = row;
  unsigned f = gp->fields;
  if (f & G_STREAM)
    p = put_varint (p, iv->stream);
  if (f & G_STATE)
    p = put_varint (p, (uint32_t) iv->state);
  if (f & G_START)
    {
      /* zigzag difference to the bucket's previous start */
      int64_t d = (int64_t) (iv->start - b->last_start);
      p = put_varint (p, ((uint64_t) d << 1) ^ (uint64_t) (d >> 63));
      b->last_start = iv->start;
    }
  if (f & G_INCL)
    p = put_varint (p, iv->inclusive);
  if (f & G_EXCL)
    p = put_varint (p, iv->exclusive);
  if (f & G_DEPTH)
    p = put_varint (p, iv->depth);
  if (f & G_FLAGS)
    *p++ = (uint8_t) iv->flags;
  if ((f & G_CARGO)
      && (iv->flags & (LOGFMT_IV_END_CARGO | LOGFMT_IV_BEGIN_CARGO)))
    {
      memcpy (p, iv->flags & LOGFMT_IV_END_CARGO ? iv->end_cargo
                                                 : iv->begin_cargo,
              LOGFMT_CARGO_SIZE);
      p += LOGFMT_CARGO_SIZE;
    }
  if (p == row)
    *p++ = 0;   /* no column kept: one byte per row to count */
  b->tail->len += (uint32_t) (p - row);
  return 0;
}

int
grouped_take (grouped_t *gp, const logfmt_interval_t *iv)
{
  uint32_t g = grouped_group (gp, iv);
  return g == 0 ? 1 : grouped_add (gp, g, iv);
}

int
grouped_next (grouped_t *gp, logfmt_interval_t *iv)
{
  if (gp->passing)
    {
      /* The pass is over: the replay starts at bucket 0. */
      gp->passing = 0;
      gp->g = 0;
      gp->ch = NULL;
      gp->p = gp->end = NULL;
      gp->last_start = 0;
    }
  while (gp->p >= gp->end)
    {
      /* p == NULL: at the start of bucket g */
      gp->ch = gp->p ? gp->ch->next : gp->b[gp->g].head;
      while (!gp->ch)
        {
          if (gp->g + 1 >= gp->ngroups)
            return 0;
          gp->g++;
          gp->ch = gp->b[gp->g].head;
          gp->last_start = 0;
        }
      if (gp->ch->mem)
        gp->p = gp->ch->mem;
      else
        {
          if (!gp->buf && !(gp->buf = malloc (GROUP_CHUNK)))
            return LOGFMT_ENOMEM;
          if (fseeko (gp->spill, gp->ch->off, SEEK_SET) != 0
              || fread (gp->buf, 1, gp->ch->len, gp->spill) != gp->ch->len)
            return LOGFMT_EIO;
          gp->p = gp->buf;
        }
      gp->end = gp->p + gp->ch->len;
    }
  unsigned f = gp->fields;
  const uint8_t *p = gp->p, *end = gp->end;
  uint64_t v = 0;
  iv->state = gp->b[gp->g].state;
  iv->flags = 0;
  if (f & G_STREAM)
    {
      p = get_varint (p, end, &v);
      iv->stream = (uint32_t) v;
    }
  if (f & G_STATE)
    {
      p = get_varint (p, end, &v);
      iv->state = (int32_t) (uint32_t) v;
    }
  if (f & G_START)
    {
      p = get_varint (p, end, &v);
      gp->last_start += (uint64_t) ((int64_t) (v >> 1) ^ -(int64_t) (v & 1));
      iv->start = gp->last_start;
    }
  if (f & G_INCL)
    {
      p = get_varint (p, end, &v);
      iv->inclusive = v;
      iv->end = iv->start + v;
    }
  if (f & G_EXCL)
    p = get_varint (p, end, &iv->exclusive);
  if (f & G_DEPTH)
    {
      p = get_varint (p, end, &v);
      iv->depth = (uint32_t) v;
    }
  if ((f & G_FLAGS) && p < end)
    iv->flags = *p++;
  if ((f & G_CARGO)
      && (iv->flags & (LOGFMT_IV_END_CARGO | LOGFMT_IV_BEGIN_CARGO))
      && end - p >= LOGFMT_CARGO_SIZE)
    {
      memcpy (iv->flags & LOGFMT_IV_END_CARGO ? iv->end_cargo
                                              : iv->begin_cargo,
              p, LOGFMT_CARGO_SIZE);
      p += LOGFMT_CARGO_SIZE;
    }
  if (p == gp->p)
    p++;   /* the one byte of a row without columns */
  gp->p = p;
  return 1;
}
