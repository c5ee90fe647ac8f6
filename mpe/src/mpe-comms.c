/* SPDX-License-Identifier: BSD-3-Clause */
/* The registry of communicators: ids every process derives alike, and
 * their definitions for the merge and the spill file. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-internal.h"

/* Ids are derived from the members (world ranks, in comm order), so every
 * process computes the same id without communicating, even for a comm it
 * first sees in a send.  Communicators with identical membership share an
 * id; world is 0. */
typedef struct
{
  MPI_Comm  h;
  int       used;       /* 0 free, 1 used, 2 deleted */
  uint32_t  id;
  int       inter;
  int       lsize, rsize;
  int32_t  *lworld, *rworld;
} centry_t;

/* The registry: a hash table of handles, and the definitions (one per
 * id) the merge and the spill file get.  All under lock. */
static struct
{
  centry_t       *tab;        /* open addressing on the handle */
  size_t          cap, used;
  mpe_commdef_t  *defs;
  size_t          ndefs, capdefs;
  pthread_mutex_t lock;
  MPI_Group       world_group;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .world_group = MPI_GROUP_NULL };

static size_t
handle_hash (MPI_Comm c)
{
  uint64_t v = 0;
  memcpy (&v, &c, sizeof c < sizeof v ? sizeof c : sizeof v);
  v ^= v >> 29;
  v *= 0xbf58476d1ce4e5b9ull;
  v ^= v >> 32;
  return (size_t) v;
}

static uint32_t
ranks_hash (uint32_t h, const int32_t *r, int n)
{
  for (int i = 0; i < n; i++)
    {
      uint32_t v = (uint32_t) r[i];
      for (int k = 0; k < 4; k++)
        {
          h ^= (v >> (8 * k)) & 0xffu;
          h *= 16777619u;
        }
    }
  h ^= (uint32_t) n;
  h *= 16777619u;
  return h;
}

static int32_t *
group_world_ranks (MPI_Group g, int *size)
{
  PMPI_Group_size (g, size);
  int *in = malloc ((size_t) (*size ? *size : 1) * sizeof (int));
  int32_t *out = malloc ((size_t) (*size ? *size : 1) * sizeof (int32_t));
  int *tmp = malloc ((size_t) (*size ? *size : 1) * sizeof (int));
  if (!in || !out || !tmp)
    {
      free (in);
      free (out);
      free (tmp);
      *size = 0;
      return NULL;
    }
  for (int i = 0; i < *size; i++)
    in[i] = i;
  PMPI_Group_translate_ranks (g, *size, in, reg.world_group, tmp);
  for (int i = 0; i < *size; i++)
    out[i] = tmp[i] == MPI_UNDEFINED ? -1 : tmp[i];
  free (in);
  free (tmp);
  return out;
}

static void
cdef_add (uint32_t id, int inter, const int32_t *l, int ln, const int32_t *r,
          int rn, const char *name, int eager)
{
  for (size_t i = 0; i < reg.ndefs; i++)
    if (reg.defs[i].id == id)
      {
        reg.defs[i].eager |= eager;
        return;
      }
  if (reg.ndefs == reg.capdefs)
    {
      size_t nc = reg.capdefs ? 2 * reg.capdefs : 16;
      mpe_commdef_t *nd = realloc (reg.defs, nc * sizeof *nd);
      if (!nd)
        return;
      reg.defs = nd;
      reg.capdefs = nc;
    }
  mpe_commdef_t *d = &reg.defs[reg.ndefs];
  d->id = id;
  d->kind = inter ? 0 : 1;
  d->size = (uint32_t) (ln + rn);
  d->ranks = malloc ((size_t) (ln + rn + 1) * sizeof (int32_t));
  if (!d->ranks)
    return;
  memcpy (d->ranks, l, (size_t) ln * sizeof (int32_t));
  if (rn)
    memcpy (d->ranks + ln, r, (size_t) rn * sizeof (int32_t));
  d->name = name && *name ? strdup (name) : NULL;
  d->eager = eager;
  reg.ndefs++;
  /* Spill: u32 id, i32 kind, u32 size, ranks, name. */
  size_t len = 12 + (size_t) (ln + rn) * 4 + (d->name ? strlen (d->name) : 0)
               + 1;
  unsigned char *p = malloc (len);
  if (p)
    {
      memcpy (p, &d->id, 4);
      memcpy (p + 4, &d->kind, 4);
      memcpy (p + 8, &d->size, 4);
      memcpy (p + 12, d->ranks, (size_t) (ln + rn) * 4);
      strcpy ((char *) p + 12 + (size_t) (ln + rn) * 4, d->name ? d->name : "");
      mpe__spill_frame (MPE_SPILL_COMM, 0, p, len);
      free (p);
    }
}

static centry_t *
ctab_find (MPI_Comm c)
{
  if (!reg.cap)
    return NULL;
  for (size_t i = handle_hash (c) & (reg.cap - 1), k = 0; k < reg.cap;
       k++, i = (i + 1) & (reg.cap - 1))
    {
      if (reg.tab[i].used == 0)
        return NULL;
      if (reg.tab[i].used == 1 && reg.tab[i].h == c)
        return &reg.tab[i];
    }
  return NULL;
}

static centry_t *
ctab_insert (MPI_Comm c)
{
  if ((reg.used + 1) * 2 > reg.cap)
    {
      size_t nc = reg.cap ? reg.cap * 2 : 64;
      centry_t *nt = calloc (nc, sizeof *nt);
      if (!nt)
        return NULL;
      centry_t *old = reg.tab;
      size_t oc = reg.cap;
      reg.tab = nt;
      reg.cap = nc;
      reg.used = 0;
      for (size_t i = 0; i < oc; i++)
        if (old[i].used == 1)
          {
            size_t j = handle_hash (old[i].h) & (reg.cap - 1);
            while (reg.tab[j].used)
              j = (j + 1) & (reg.cap - 1);
            reg.tab[j] = old[i];
            reg.used++;
          }
      free (old);
    }
  size_t j = handle_hash (c) & (reg.cap - 1);
  while (reg.tab[j].used == 1)
    j = (j + 1) & (reg.cap - 1);
  if (reg.tab[j].used == 0)
    reg.used++;
  memset (&reg.tab[j], 0, sizeof reg.tab[j]);
  reg.tab[j].h = c;
  reg.tab[j].used = 1;
  return &reg.tab[j];
}

/* Registers comm (lock held); eager: every member does so as the
 * communicator is made. */
static centry_t *
comm_register (MPI_Comm comm, int eager)
{
  if (reg.world_group == MPI_GROUP_NULL)
    PMPI_Comm_group (MPI_COMM_WORLD, &reg.world_group);
  int inter = 0;
  PMPI_Comm_test_inter (comm, &inter);
  MPI_Group g;
  PMPI_Comm_group (comm, &g);
  int ln = 0, rn = 0;
  int32_t *l = group_world_ranks (g, &ln), *r = NULL;
  PMPI_Group_free (&g);
  if (inter)
    {
      PMPI_Comm_remote_group (comm, &g);
      r = group_world_ranks (g, &rn);
      PMPI_Group_free (&g);
    }
  uint32_t id;
  if (!inter)
    id = ranks_hash (2166136261u, l, ln);
  else
    {
      uint32_t a = ranks_hash (2166136261u, l, ln);
      uint32_t b = ranks_hash (2166136261u, r, rn);
      uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
      id = (lo * 16777619u) ^ hi ^ 0x9e3779b9u;
    }
  if (id == 0)
    id = 1;
  char name[MPI_MAX_OBJECT_NAME] = "";
  int nl = 0;
  if (comm == MPI_COMM_SELF)
    strcpy (name, "MPI_COMM_SELF");
  else
    PMPI_Comm_get_name (comm, name, &nl);
  centry_t *e = ctab_insert (comm);
  if (!e)
    {
      free (l);
      free (r);
      return NULL;
    }
  e->id = id;
  e->inter = inter;
  e->lsize = ln;
  e->rsize = rn;
  e->lworld = l;
  e->rworld = r;
  cdef_add (id, inter, l, ln, r, rn, name, eager);
  return e;
}

/* MPI_COMM_SELF's id, once known: it never changes (the id comes from
 * the members) and the handle is never freed, so no lock is needed. */
static _Atomic uint32_t self_id;

uint32_t
mpe__comm_id (MPI_Comm comm, int partner, int *world_partner)
{
  if (comm == MPI_COMM_WORLD)
    {
      *world_partner = partner;
      return 0;
    }
  if (comm == MPI_COMM_SELF)
    {
      uint32_t id = atomic_load_explicit (&self_id, memory_order_relaxed);
      if (id != 0)
        {
          *world_partner = partner == 0 ? mpe__g.rank : -1;
          return id;
        }
    }
  pthread_mutex_lock (&reg.lock);
  centry_t *e = ctab_find (comm);
  if (!e)
    e = comm_register (comm, 0);
  uint32_t id = 0;
  *world_partner = -1;
  if (e)
    {
      id = e->id;
      if (e->inter)
        {
          if (partner >= 0 && partner < e->rsize)
            *world_partner = e->rworld[partner];
        }
      else if (partner >= 0 && partner < e->lsize)
        *world_partner = e->lworld[partner];
      if (comm == MPI_COMM_SELF)
        atomic_store_explicit (&self_id, id, memory_order_relaxed);
    }
  pthread_mutex_unlock (&reg.lock);
  return id;
}

/* A copy of every communicator definition (free with mpe__comms_free);
 * -1 when memory runs out (*out NULL then). */
int
mpe__comms_snapshot (mpe_commdef_t **out, size_t *n)
{
  pthread_mutex_lock (&reg.lock);
  mpe_commdef_t *c = calloc (reg.ndefs ? reg.ndefs : 1, sizeof *c);
  size_t k = 0;
  int rc = c ? 0 : -1;
  for (; c && k < reg.ndefs && rc == 0; k++)
    {
      c[k] = reg.defs[k];
      c[k].ranks = malloc ((reg.defs[k].size + 1) * sizeof (int32_t));
      c[k].name = reg.defs[k].name ? strdup (reg.defs[k].name) : NULL;
      if (!c[k].ranks || (reg.defs[k].name && !c[k].name))
        rc = -1;
      else
        memcpy (c[k].ranks, reg.defs[k].ranks, reg.defs[k].size * sizeof (int32_t));
    }
  pthread_mutex_unlock (&reg.lock);
  if (rc)
    {
      mpe__comms_free (c, k);
      c = NULL;
      k = 0;
    }
  *out = c;
  *n = k;
  return rc;
}

void
mpe__comms_free (mpe_commdef_t *c, size_t n)
{
  for (size_t i = 0; c && i < n; i++)
    {
      free (c[i].ranks);
      free (c[i].name);
    }
  free (c);
}

/* MPI_COMM_WORLD (id 0) is always defined. */
void
mpe__comms_add_world (void)
{
  pthread_mutex_lock (&reg.lock);
  if (reg.ndefs == 0 || reg.defs[0].id != 0)
    {
      int32_t *all = malloc ((size_t) mpe__g.size * sizeof (int32_t));
      if (all)
        {
          for (int i = 0; i < mpe__g.size; i++)
            all[i] = i;
          cdef_add (0, 0, all, mpe__g.size, NULL, 0, "MPI_COMM_WORLD", 1);
          free (all);
        }
    }
  pthread_mutex_unlock (&reg.lock);
}

void
mpe__comms_reset (void)
{
  /* A fresh log re-announces the comms it knows to the new spill file. */
  pthread_mutex_lock (&reg.lock);
  mpe_commdef_t *old = reg.defs;
  size_t n = reg.ndefs;
  reg.defs = NULL;
  reg.ndefs = reg.capdefs = 0;
  for (size_t i = 0; i < n; i++)
    {
      cdef_add (old[i].id, old[i].kind == 0, old[i].ranks, (int) old[i].size,
                NULL, 0, old[i].name, old[i].eager);
      free (old[i].ranks);
      free (old[i].name);
    }
  free (old);
  pthread_mutex_unlock (&reg.lock);
}

void
mpe__comm_created (MPI_Comm newcomm)
{
  if (newcomm == MPI_COMM_NULL || mpe__g.state != 1)
    return;
  pthread_mutex_lock (&reg.lock);
  centry_t *e = ctab_find (newcomm);
  if (e)
    {
      /* A reused handle we did not hear freed: forget the old one. */
      free (e->lworld);
      free (e->rworld);
      e->used = 2;
    }
  comm_register (newcomm, 1);
  pthread_mutex_unlock (&reg.lock);
}

void
mpe__comm_freed (MPI_Comm comm)
{
  if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD)
    return;
  pthread_mutex_lock (&reg.lock);
  centry_t *e = ctab_find (comm);
  if (e)
    {
      free (e->lworld);
      free (e->rworld);
      e->lworld = e->rworld = NULL;
      e->used = 2;
    }
  pthread_mutex_unlock (&reg.lock);
}
