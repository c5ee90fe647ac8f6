/* SPDX-License-Identifier: BSD-3-Clause */
/* The collective checker's datatype signatures against the MPI
   standard's type-matching rules: every predefined type, the pair types,
   the markers, every derived-type combiner, MPI_BYTE and MPI_PACKED.
   Prints TAP; one process is enough (no message is sent). */
#include "config.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpe/wrappers/collchk-internal.h"

static int n_test, n_failed;

/* want: 1 the two sides match, 0 they must not. */
static void
check (int want, long long c1, MPI_Datatype t1, long long c2,
       MPI_Datatype t2, const char *what)
{
  mpe__cc_side_t a, b;
  mpe__cc_side (&a, c1, t1);
  mpe__cc_side (&b, c2, t2);
  int got = mpe__cc_sig_match (&a, &b) && mpe__cc_sig_match (&b, &a);
  n_test++;
  if (got != want)
    n_failed++;
  printf ("%sok %d - %s %s (%llu and %llu basic elements)\n",
          got == want ? "" : "not ", n_test, what,
          want ? "match" : "differ", (unsigned long long) a.n,
          (unsigned long long) b.n);
}

static void
elements (long long c, MPI_Datatype t, unsigned long long want,
          const char *what)
{
  mpe__cc_side_t a;
  mpe__cc_side (&a, c, t);
  n_test++;
  if (a.n != want)
    n_failed++;
  printf ("%sok %d - %s: %llu basic elements (want %llu)\n",
          a.n == want ? "" : "not ", n_test, what,
          (unsigned long long) a.n, want);
}

static MPI_Datatype
committed (MPI_Datatype t)
{
  MPI_Type_commit (&t);
  return t;
}

static MPI_Datatype
pair_struct (MPI_Datatype a, MPI_Datatype b, MPI_Aint off)
{
  int bl[2] = { 1, 1 };
  MPI_Aint d[2] = { 0, off };
  MPI_Datatype ts[2] = { a, b }, t;
  MPI_Type_create_struct (2, bl, d, ts, &t);
  return committed (t);
}

#define T(x) { x, #x }
int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);

  /* Every predefined basic type matches itself and no other (aliases
     that are one handle, such as MPI_LONG_LONG_INT, are one type). */
  static const struct { MPI_Datatype t; const char *name; } basic[] = {
    T (MPI_CHAR), T (MPI_SIGNED_CHAR), T (MPI_UNSIGNED_CHAR), T (MPI_BYTE),
    T (MPI_WCHAR), T (MPI_SHORT), T (MPI_UNSIGNED_SHORT), T (MPI_INT),
    T (MPI_UNSIGNED), T (MPI_LONG), T (MPI_UNSIGNED_LONG), T (MPI_FLOAT),
    T (MPI_DOUBLE), T (MPI_LONG_DOUBLE), T (MPI_LONG_LONG),
    T (MPI_UNSIGNED_LONG_LONG), T (MPI_INT8_T), T (MPI_INT16_T),
    T (MPI_INT32_T), T (MPI_INT64_T), T (MPI_UINT8_T), T (MPI_UINT16_T),
    T (MPI_UINT32_T), T (MPI_UINT64_T), T (MPI_C_BOOL),
    T (MPI_C_FLOAT_COMPLEX), T (MPI_C_DOUBLE_COMPLEX),
    T (MPI_C_LONG_DOUBLE_COMPLEX), T (MPI_AINT), T (MPI_OFFSET),
    T (MPI_COUNT), T (MPI_INTEGER), T (MPI_REAL), T (MPI_DOUBLE_PRECISION),
    T (MPI_COMPLEX), T (MPI_DOUBLE_COMPLEX), T (MPI_LOGICAL),
    T (MPI_CHARACTER), T (MPI_INTEGER4), T (MPI_REAL8),
  };
  size_t nb = sizeof basic / sizeof basic[0];
  int all_self = 1, all_distinct = 1;
  for (size_t i = 0; i < nb; i++)
    for (size_t j = 0; j < nb; j++)
      {
        mpe__cc_side_t a, b;
        if (basic[i].t == MPI_DATATYPE_NULL || basic[j].t == MPI_DATATYPE_NULL)
          continue;
        mpe__cc_side (&a, 3, basic[i].t);
        mpe__cc_side (&b, 3, basic[j].t);
        int m = mpe__cc_sig_match (&a, &b);
        if (i == j && (!m || a.n != 3))
          {
            all_self = 0;
            printf ("# %s does not match itself\n", basic[i].name);
          }
        if (i != j && m && basic[i].t != basic[j].t)
          {
            all_distinct = 0;
            printf ("# %s matches %s\n", basic[i].name, basic[j].name);
          }
      }
  n_test++;
  n_failed += !all_self;
  printf ("%sok %d - every predefined basic type matches itself, one "
          "element each\n", all_self ? "" : "not ", n_test);
  n_test++;
  n_failed += !all_distinct;
  printf ("%sok %d - no two distinct predefined basic types match\n",
          all_distinct ? "" : "not ", n_test);

  /* The pair types are two elements: their value type, then an int. */
  MPI_Datatype fi = pair_struct (MPI_FLOAT, MPI_INT, sizeof (float));
  MPI_Datatype iff = pair_struct (MPI_INT, MPI_FLOAT, sizeof (float));
  MPI_Datatype di = pair_struct (MPI_DOUBLE, MPI_INT, sizeof (double));
  MPI_Datatype li = pair_struct (MPI_LONG, MPI_INT, sizeof (long));
  MPI_Datatype si = pair_struct (MPI_SHORT, MPI_INT, sizeof (int));
  MPI_Datatype ldi = pair_struct (MPI_LONG_DOUBLE, MPI_INT,
                                  sizeof (long double));
  elements (1, MPI_FLOAT_INT, 2, "MPI_FLOAT_INT");
  elements (1, MPI_DOUBLE_INT, 2, "MPI_DOUBLE_INT");
  elements (1, MPI_LONG_INT, 2, "MPI_LONG_INT");
  elements (1, MPI_SHORT_INT, 2, "MPI_SHORT_INT");
  elements (1, MPI_2INT, 2, "MPI_2INT");
  elements (1, MPI_LONG_DOUBLE_INT, 2, "MPI_LONG_DOUBLE_INT");
  elements (5, MPI_2INT, 10, "5 x MPI_2INT");
  check (1, 1, MPI_FLOAT_INT, 1, fi, "MPI_FLOAT_INT and struct {float, int}");
  check (0, 1, MPI_FLOAT_INT, 1, iff,
         "MPI_FLOAT_INT and struct {int, float}");
  check (1, 1, MPI_DOUBLE_INT, 1, di, "MPI_DOUBLE_INT and struct {double, int}");
  check (1, 1, MPI_LONG_INT, 1, li, "MPI_LONG_INT and struct {long, int}");
  check (1, 1, MPI_SHORT_INT, 1, si, "MPI_SHORT_INT and struct {short, int}");
  check (1, 1, MPI_LONG_DOUBLE_INT, 1, ldi,
         "MPI_LONG_DOUBLE_INT and struct {long double, int}");
  check (1, 3, MPI_2INT, 6, MPI_INT, "3 x MPI_2INT and 6 x MPI_INT");
  check (0, 1, MPI_2INT, 1, MPI_INT, "MPI_2INT and 1 x MPI_INT");
  check (0, 1, MPI_FLOAT_INT, 1, MPI_DOUBLE_INT,
         "MPI_FLOAT_INT and MPI_DOUBLE_INT");
  check (0, 1, MPI_FLOAT_INT, 1, MPI_FLOAT, "MPI_FLOAT_INT and MPI_FLOAT");
  check (0, 40, MPI_2INT, 40, MPI_DOUBLE, "40 x MPI_2INT and 40 x MPI_DOUBLE");
  if (MPI_2INTEGER != MPI_DATATYPE_NULL)
    {
      check (1, 1, MPI_2INTEGER, 2, MPI_INTEGER,
             "MPI_2INTEGER and 2 x MPI_INTEGER");
      check (1, 1, MPI_2REAL, 2, MPI_REAL, "MPI_2REAL and 2 x MPI_REAL");
      check (1, 1, MPI_2DOUBLE_PRECISION, 2, MPI_DOUBLE_PRECISION,
             "MPI_2DOUBLE_PRECISION and 2 x MPI_DOUBLE_PRECISION");
      check (0, 1, MPI_2INTEGER, 1, MPI_2INT, "MPI_2INTEGER and MPI_2INT");
    }

  /* Markers and extents are not data. */
  MPI_Datatype vec, blk, lbub, res, res3, ubv;
  MPI_Type_vector (8, 10, 20, MPI_DOUBLE, &vec);
  {
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { 0, 10 * sizeof (double) };
    MPI_Datatype ts[2] = { vec, MPI_UB };
    MPI_Type_create_struct (2, bl, d, ts, &blk);
    MPI_Type_commit (&blk);
  }
  {
    int bl[3] = { 1, 1, 1 };
    MPI_Aint d[3] = { -8, 0, 64 };
    MPI_Datatype ts[3] = { MPI_LB, MPI_INT, MPI_UB };
    MPI_Type_create_struct (3, bl, d, ts, &lbub);
    MPI_Type_commit (&lbub);
  }
  {
    int bl[2] = { 3, 2 };
    MPI_Aint d[2] = { 0, 100 };
    MPI_Datatype ts[2] = { MPI_INT, MPI_UB };
    MPI_Type_create_struct (2, bl, d, ts, &ubv);
    MPI_Type_commit (&ubv);
  }
  MPI_Type_create_resized (MPI_INT, -4, 64, &res);
  MPI_Type_commit (&res);
  MPI_Type_contiguous (3, res, &res3);
  MPI_Type_commit (&res3);
  elements (1, blk, 80, "struct {vector of 80 doubles, MPI_UB}");
  check (1, 1, blk, 80, MPI_DOUBLE,
         "struct {vector of 80 doubles, MPI_UB} and 80 x MPI_DOUBLE");
  check (0, 1, blk, 81, MPI_DOUBLE,
         "struct {vector of 80 doubles, MPI_UB} and 81 x MPI_DOUBLE");
  check (0, 1, blk, 80, MPI_2INT,
         "struct {vector of 80 doubles, MPI_UB} and 80 x MPI_2INT");
  check (1, 2, lbub, 2, MPI_INT, "2 x struct {MPI_LB, int, MPI_UB} and 2 ints");
  check (1, 1, ubv, 3, MPI_INT, "struct {3 ints, 2 x MPI_UB} and 3 ints");
  elements (1, MPI_UB, 0, "MPI_UB");
  elements (4, MPI_LB, 0, "4 x MPI_LB");
  check (1, 1, res, 1, MPI_INT, "MPI_INT resized and MPI_INT");
  check (1, 2, res3, 6, MPI_INT, "2 x contiguous of 3 resized ints and 6 ints");
  check (0, 1, res3, 4, MPI_INT, "contiguous of 3 resized ints and 4 ints");

  /* Every combiner expands to what it is made of. */
  MPI_Datatype t;
  MPI_Type_dup (MPI_FLOAT_INT, &t);
  check (1, 1, committed (t), 1, MPI_FLOAT_INT, "dup of MPI_FLOAT_INT");
  MPI_Type_contiguous (4, MPI_DOUBLE_INT, &t);
  check (1, 1, committed (t), 4, di, "contiguous of 4 MPI_DOUBLE_INT");
  MPI_Type_vector (3, 2, 5, MPI_INT, &t);
  t = committed (t);
  check (1, 1, t, 6, MPI_INT, "vector 3 x 2 ints and 6 ints");
  check (0, 1, t, 15, MPI_INT, "vector 3 x 2 ints stride 5 and 15 ints");
  MPI_Type_create_hvector (3, 2, 40, MPI_FLOAT_INT, &t);
  t = committed (t);
  check (1, 1, t, 6, fi, "hvector 3 x 2 MPI_FLOAT_INT and 6 struct "
         "{float, int}");
  check (0, 1, t, 12, MPI_FLOAT, "hvector of MPI_FLOAT_INT and 12 floats");
  {
    int bl[3] = { 2, 0, 3 }, di3[3] = { 0, 10, 20 };
    MPI_Aint da[3] = { 0, 80, 160 };
    MPI_Type_indexed (3, bl, di3, MPI_SHORT, &t);
    check (1, 1, committed (t), 5, MPI_SHORT, "indexed {2, 0, 3} shorts");
    MPI_Type_create_hindexed (3, bl, da, MPI_2INT, &t);
    check (1, 1, committed (t), 10, MPI_INT, "hindexed {2, 0, 3} MPI_2INT");
    MPI_Type_create_indexed_block (3, 2, di3, MPI_CHAR, &t);
    check (1, 1, committed (t), 6, MPI_CHAR, "indexed block 3 x 2 chars");
    check (0, 1, t, 6, MPI_SIGNED_CHAR, "indexed block of chars and signed chars");
    MPI_Type_create_hindexed_block (3, 2, da, MPI_LONG_INT, &t);
    check (1, 1, committed (t), 6, li, "hindexed block 3 x 2 MPI_LONG_INT");
  }
  {
    int sizes[2] = { 4, 5 }, sub[2] = { 2, 3 }, start[2] = { 1, 1 };
    MPI_Type_create_subarray (2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE,
                              &t);
    check (1, 1, committed (t), 6, MPI_DOUBLE, "subarray 2 x 3 of 4 x 5 doubles");
    check (0, 1, t, 20, MPI_DOUBLE, "subarray 2 x 3 and 20 doubles");
    int gs[2] = { 6, 4 }, distr[2] = { MPI_DISTRIBUTE_BLOCK,
                                       MPI_DISTRIBUTE_CYCLIC };
    int dargs[2] = { MPI_DISTRIBUTE_DFLT_DARG, 1 }, ps[2] = { 1, 1 };
    MPI_Type_create_darray (1, 0, 2, gs, distr, dargs, ps, MPI_ORDER_FORTRAN,
                            MPI_FLOAT_INT, &t);
    check (1, 1, committed (t), 24, fi, "darray 6 x 4 MPI_FLOAT_INT on one "
           "process and 24 struct {float, int}");
  }
  {
    /* Nesting: struct {2 x MPI_DOUBLE_INT, vector of 2 x MPI_2INT}. */
    MPI_Datatype inner, outer;
    MPI_Type_vector (2, 1, 3, MPI_2INT, &inner);
    int bl[2] = { 2, 1 };
    MPI_Aint d[2] = { 0, 64 };
    MPI_Datatype ts[2] = { MPI_DOUBLE_INT, inner };
    MPI_Type_create_struct (2, bl, d, ts, &outer);
    MPI_Type_commit (&outer);
    int bl2[5] = { 1, 1, 1, 1, 4 };
    MPI_Aint d2[5] = { 0, 8, 16, 24, 32 };
    MPI_Datatype ts2[5] = { MPI_DOUBLE, MPI_INT, MPI_DOUBLE, MPI_INT,
                            MPI_INT };
    MPI_Type_create_struct (5, bl2, d2, ts2, &t);
    check (1, 3, outer, 3, committed (t), "nested struct and its flat "
           "signature");
    MPI_Type_create_struct (4, bl2, d2, ts2, &t);
    check (0, 1, outer, 1, committed (t), "nested struct and a prefix of "
           "its signature");
    MPI_Type_free (&inner);
    MPI_Type_free (&outer);
  }

  /* MPI_BYTE matches only bytes; MPI_PACKED matches anything. */
  MPI_Type_contiguous (4, MPI_BYTE, &t);
  t = committed (t);
  check (1, 1, t, 4, MPI_BYTE, "contiguous of 4 bytes and 4 x MPI_BYTE");
  check (0, 1, MPI_INT, 4, MPI_BYTE, "MPI_INT and 4 x MPI_BYTE");
  check (0, 1, t, 1, MPI_INT, "contiguous of 4 bytes and MPI_INT");
  check (0, 4, MPI_CHAR, 4, MPI_BYTE, "4 x MPI_CHAR and 4 x MPI_BYTE");
  check (1, 16, MPI_PACKED, 4, MPI_INT, "16 x MPI_PACKED and 4 x MPI_INT");
  check (1, 1, MPI_DOUBLE_INT, 100, MPI_PACKED,
         "MPI_DOUBLE_INT and 100 x MPI_PACKED");
  MPI_Type_contiguous (8, MPI_PACKED, &t);
  check (1, 1, committed (t), 3, MPI_FLOAT, "contiguous of 8 MPI_PACKED and "
         "3 floats");
  {
    int bl[2] = { 4, 1 };
    MPI_Aint d[2] = { 0, 8 };
    MPI_Datatype ts[2] = { MPI_PACKED, MPI_INT };
    MPI_Type_create_struct (2, bl, d, ts, &t);
    t = committed (t);
    check (1, 1, t, 1, t, "struct {4 x MPI_PACKED, int} and itself");
    check (0, 1, t, 5, MPI_INT, "struct {4 x MPI_PACKED, int} and 5 ints");
  }

  /* Empty signatures match; large counts do not wrap. */
  check (1, 0, MPI_INT, 0, MPI_DOUBLE, "0 x MPI_INT and 0 x MPI_DOUBLE");
  MPI_Type_contiguous (0, MPI_INT, &t);
  check (1, 5, committed (t), 0, MPI_CHAR, "5 x an empty type and nothing");
  check (1, 1LL << 40, MPI_2INT, 1LL << 41, MPI_INT,
         "2^40 x MPI_2INT and 2^41 x MPI_INT");
  check (0, 1LL << 40, MPI_INT, (1LL << 40) + 1, MPI_INT,
         "2^40 and 2^40 + 1 ints");

  printf ("1..%d\n", n_test);
  MPI_Finalize ();
  return n_failed != 0;
}
