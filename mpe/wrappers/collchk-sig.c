/* SPDX-License-Identifier: BSD-3-Clause */
/* libmpe_collchk: datatype signatures and the hashes the records carry.

   A type signature is the sequence of basic datatypes a (count, type)
   pair transfers (the MPI standard's type-matching rule): derived types
   of every combiner expand to the signature of what they are made of,
   the predefined pair types (MPI_FLOAT_INT, MPI_2INT, ...) to their two
   members, and the MPI_LB / MPI_UB markers contribute nothing, nor do
   displacements, extents and resizing.  Each side is kept as a
   polynomial hash of that sequence and its length, so that 2 x MPI_INT,
   MPI_2INT and a contiguous type of 2 ints agree while MPI_INT and
   4 x MPI_BYTE do not.  MPI_PACKED matches any signature. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpe/wrappers/collchk-internal.h"

/* Polynomial hash of the sequence of basic types, mod 2^64: the hash of
   A followed by B is H(A) * P^|B| + H(B), so counts and nesting compose. */
typedef struct
{
  uint64_t h, n;
  unsigned kinds;   /* which basic types occur */
} sig_t;
/* SIG_UNKNOWN: a type the checker cannot take apart (it matches anything
   rather than report a mistake that may not be one). */
enum { SIG_PACKED = 1, SIG_TYPED = 2, SIG_UNKNOWN = 4 };

static uint64_t
pow_p (uint64_t n)
{
  uint64_t r = 1, b = MPE__CC_HASH_P;
  for (; n; n >>= 1, b *= b)
    if (n & 1)
      r *= b;
  return r;
}

static sig_t
sig_cat (sig_t a, sig_t b)
{
  return (sig_t) { a.h * pow_p (b.n) + b.h, a.n + b.n, a.kinds | b.kinds };
}

static sig_t
sig_rep (sig_t a, uint64_t k)
{
  sig_t r = { 0, 0, 0 };
  for (; k; k >>= 1, a = sig_cat (a, a))
    if (k & 1)
      r = sig_cat (r, a);
  return r;
}

uint64_t
mpe__cc_mix64 (uint64_t x)
{
  x += UINT64_C (0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C (0x94d049bb133111eb);
  return x ^ (x >> 31);
}

/* One basic type: its Fortran handle names it the same in every process
   (and the same for aliases such as MPI_LONG_LONG_INT). */
static sig_t
sig_basic (MPI_Datatype t)
{
  return (sig_t) { mpe__cc_mix64 ((uint64_t) (uint32_t) PMPI_Type_c2f (t)),
                   1, t == MPI_PACKED ? SIG_PACKED : SIG_TYPED };
}

/* The predefined types that are not basic: the pairs of MINLOC/MAXLOC
   (value, index) and the markers.  1 when t is one of them. */
static int
sig_predefined (MPI_Datatype t, sig_t *out)
{
  struct { MPI_Datatype t, a, b; } const p[] = {
    { MPI_FLOAT_INT, MPI_FLOAT, MPI_INT },
    { MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT },
    { MPI_LONG_INT, MPI_LONG, MPI_INT },
    { MPI_SHORT_INT, MPI_SHORT, MPI_INT },
    { MPI_2INT, MPI_INT, MPI_INT },
    { MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT },
    { MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER },
    { MPI_2REAL, MPI_REAL, MPI_REAL },
    { MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION },
  };
  int marker = t == MPI_DATATYPE_NULL;
#ifdef MPI_UB
  marker |= t == MPI_UB;
#endif
#ifdef MPI_LB
  marker |= t == MPI_LB;
#endif
  if (marker)
    {
      *out = (sig_t) { 0, 0, 0 };
      return 1;
    }
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
    if (t == p[i].t && p[i].t != MPI_DATATYPE_NULL)
      {
        *out = sig_cat (sig_basic (p[i].a), sig_basic (p[i].b));
        return 1;
      }
  return 0;
}

static int type_kv = MPI_KEYVAL_INVALID;
static pthread_once_t kv_once = PTHREAD_ONCE_INIT;

static int
type_attr_delete (MPI_Datatype t, int kv, void *val, void *extra)
{
  (void) t; (void) kv; (void) extra;
  free (val);
  return MPI_SUCCESS;
}

static void
make_keyval (void)
{
  PMPI_Type_create_keyval (MPI_TYPE_NULL_COPY_FN, type_attr_delete, &type_kv,
                           NULL);
}

static sig_t type_sig (MPI_Datatype t, int depth);

/* A derived type from its constructor's arguments. */
static sig_t
derived_sig (MPI_Datatype t, int comb, int ni, const int *ints,
             const MPI_Datatype *types, int nd, int depth)
{
  sig_t r = { 0, 0, 0 };
  switch (comb)
    {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
      return type_sig (types[0], depth + 1);
    case MPI_COMBINER_STRUCT:
#ifdef MPI_COMBINER_STRUCT_INTEGER
    case MPI_COMBINER_STRUCT_INTEGER:
#endif
      for (int i = 0; ni > 0 && i < ints[0] && i < nd && 1 + i < ni; i++)
        if (ints[1 + i] > 0)
          r = sig_cat (r, sig_rep (type_sig (types[i], depth + 1),
                                   (uint64_t) ints[1 + i]));
      return r;
    default:
      {
        /* One old type repeated (contiguous, vector, hvector, indexed,
           hindexed, indexed and hindexed blocks, subarray, darray): the
           sizes say how often, whatever the layout (markers and
           extents have no size). */
        MPI_Count so = 0, st = 0;
        if (nd != 1 || PMPI_Type_size_x (types[0], &so) != MPI_SUCCESS
            || PMPI_Type_size_x (t, &st) != MPI_SUCCESS || so < 0 || st < 0
            || (so > 0 && st % so))
          return (sig_t) { 0, 0, SIG_UNKNOWN };
        if (so > 0 && st > 0)
          r = sig_rep (type_sig (types[0], depth + 1), (uint64_t) (st / so));
        return r;
      }
    }
}

static sig_t
type_sig (MPI_Datatype t, int depth)
{
  int ni, na, nd, comb;
  sig_t r;
  if (sig_predefined (t, &r))
    return r;
  if (PMPI_Type_get_envelope (t, &ni, &na, &nd, &comb) != MPI_SUCCESS
      || depth > 4096)
    return (sig_t) { 0, 0, SIG_UNKNOWN };
  if (comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL
      || comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER)
    return sig_basic (t);
  if (nd < 1)
    return (sig_t) { 0, 0, SIG_UNKNOWN };

  pthread_once (&kv_once, make_keyval);
  sig_t *cached;
  int found = 0;
  if (type_kv != MPI_KEYVAL_INVALID
      && PMPI_Type_get_attr (t, type_kv, &cached, &found) == MPI_SUCCESS
      && found)
    return *cached;

  int *ints = malloc (sizeof (int) * (ni + 1));
  MPI_Aint *aints = malloc (sizeof (MPI_Aint) * (na + 1));
  MPI_Datatype *types = malloc (sizeof (MPI_Datatype) * (nd + 1));
  r = (sig_t) { 0, 0, SIG_UNKNOWN };
  if (ints && aints && types
      && PMPI_Type_get_contents (t, ni, na, nd, ints, aints, types)
         == MPI_SUCCESS)
    {
      r = derived_sig (t, comb, ni, ints, types, nd, depth);
      for (int i = 0; i < nd; i++)
        {
          int i2, a2, d2, c2;
          if (PMPI_Type_get_envelope (types[i], &i2, &a2, &d2, &c2)
              == MPI_SUCCESS && c2 != MPI_COMBINER_NAMED)
            PMPI_Type_free (&types[i]);
        }
    }
  free (ints);
  free (aints);
  free (types);
  if (type_kv != MPI_KEYVAL_INVALID && (cached = malloc (sizeof *cached)))
    {
      *cached = r;
      if (PMPI_Type_set_attr (t, type_kv, cached) != MPI_SUCCESS)
        free (cached);
    }
  return r;
}

void
mpe__cc_side (mpe__cc_side_t *s, int64_t count, MPI_Datatype type)
{
  sig_t g = count > 0 ? sig_rep (type_sig (type, 0), (uint64_t) count)
                      : (sig_t) { 0, 0, 0 };
  s->h = g.h;
  s->n = g.n;
  s->count = count;
  /* Nothing but MPI_PACKED (or what cannot be known) matches anything. */
  s->packed = (g.kinds & SIG_UNKNOWN)
              || (g.kinds & (SIG_PACKED | SIG_TYPED)) == SIG_PACKED;
  s->set = 1;
  int len = 0;
  s->type[0] = '\0';
  if (type == MPI_DATATYPE_NULL)
    snprintf (s->type, sizeof s->type, "MPI_DATATYPE_NULL");
  else
    {
      char name[MPI_MAX_OBJECT_NAME];
      if (PMPI_Type_get_name (type, name, &len) == MPI_SUCCESS && len > 0)
        snprintf (s->type, sizeof s->type, "%.39s", name);
      else
        snprintf (s->type, sizeof s->type, "a derived datatype");
    }
}

int
mpe__cc_sig_match (const mpe__cc_side_t *a, const mpe__cc_side_t *b)
{
  if (a->packed || b->packed)
    return 1;
  return a->h == b->h && a->n == b->n;
}

uint64_t
mpe__cc_hash_ints (const int *a, int n)
{
  uint64_t h = mpe__cc_mix64 ((uint64_t) n);
  for (int i = 0; a && i < n; i++)
    h = h * MPE__CC_HASH_P + mpe__cc_mix64 ((uint64_t) (int64_t) a[i]);
  return h;
}

uint64_t
mpe__cc_hash_counts (const MPI_Count *a, int n)
{
  uint64_t h = mpe__cc_mix64 ((uint64_t) n);
  for (int i = 0; a && i < n; i++)
    h = h * MPE__CC_HASH_P + mpe__cc_mix64 ((uint64_t) a[i]);
  return h;
}

uint64_t
mpe__cc_hash_str (const char *s)
{
  uint64_t h = UINT64_C (1469598103934665603);
  for (; s && *s; s++)
    h = (h ^ (unsigned char) *s) * UINT64_C (1099511628211);
  return h;
}
