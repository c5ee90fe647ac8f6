/* SPDX-License-Identifier: BSD-3-Clause */
/* MPE_Print_datatype_pack_action / _unpack_action (mpe_misc.h): the
   copies MPI makes to pack (unpack) count x type, as "Copy N bytes from
   offset A to offset B" lines, adjacent bytes merged into one copy.

   The layout is learnt from MPI_Pack itself, so it is exact for any
   datatype: a source buffer whose bytes spell their own offset in base
   256 is packed three times (one digit each), and each packed byte's
   source offset is read back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe_misc.h"

#define MISC __attribute__ ((visibility ("default")))

/* Source offset (relative to the buffer start) of every packed byte;
   returns the number of packed bytes, or -1. */
static long
packed_sources (int count, MPI_Datatype type, long **out)
{
  MPI_Aint lb, extent, tlb, textent;
  int size;
  if (count < 0 || PMPI_Type_size (type, &size) != MPI_SUCCESS
      || PMPI_Type_get_extent (type, &lb, &extent) != MPI_SUCCESS
      || PMPI_Type_get_true_extent (type, &tlb, &textent) != MPI_SUCCESS)
    return -1;
  long total = (long) size * count;
  /* Bytes touched: from the first element's true lb to the last one's
     true ub. */
  MPI_Aint span = count > 0 ? (count - 1) * extent + textent : 0;
  if (total == 0 || span <= 0 || span >= (1L << 24))
    {
      *out = NULL;
      return span >= (1L << 24) ? -1 : 0;
    }
  unsigned char *src = malloc ((size_t) span);
  unsigned char *packed = malloc ((size_t) total);
  long *off = calloc ((size_t) total, sizeof *off);
  if (!src || !packed || !off)
    {
      free (src);
      free (packed);
      free (off);
      return -1;
    }
  /* buf is where element 0 starts: its true lb lands on src[0]. */
  unsigned char *buf = src - tlb;
  for (int digit = 0; digit < 3; digit++)
    {
      for (MPI_Aint i = 0; i < span; i++)
        src[i] = (unsigned char) ((i >> (8 * digit)) & 0xff);
      int pos = 0;
      if (PMPI_Pack (buf, count, type, packed, (int) total, &pos,
                     MPI_COMM_SELF) != MPI_SUCCESS || pos != total)
        {
          free (src);
          free (packed);
          free (off);
          return -1;
        }
      for (long p = 0; p < total; p++)
        off[p] |= (long) packed[p] << (8 * digit);
    }
  /* As offsets from the buffer (not from the true lb). */
  for (long p = 0; p < total; p++)
    off[p] += tlb;
  free (src);
  free (packed);
  *out = off;
  return total;
}

static int
print_action (FILE *fp, int count, MPI_Datatype type, int in_offset,
              int out_offset, int unpack)
{
  long *off = NULL;
  long n = packed_sources (count, type, &off);
  if (n < 0)
    {
      fprintf (fp, "cannot examine this datatype\n");
      return MPI_ERR_TYPE;
    }
  for (long p = 0; p < n;)
    {
      long q = p + 1;
      while (q < n && off[q] == off[q - 1] + 1)
        q++;
      /* Pack: memory -> packed buffer; unpack: the other way. */
      long mem = off[p], pk = p;
      fprintf (fp, "Copy %ld bytes from offset %ld to offset %ld\n", q - p,
               (unpack ? pk : mem) + in_offset,
               (unpack ? mem : pk) + out_offset);
      p = q;
    }
  free (off);
  return MPI_SUCCESS;
}

MISC int
MPE_Print_datatype_pack_action (FILE *fp, int count, MPI_Datatype type,
                                int in_offset, int out_offset)
{
  return print_action (fp, count, type, in_offset, out_offset, 0);
}

MISC int
MPE_Print_datatype_unpack_action (FILE *fp, int count, MPI_Datatype type,
                                  int in_offset, int out_offset)
{
  return print_action (fp, count, type, in_offset, out_offset, 1);
}

/* Fortran (no FILE *: standard output). */
MISC void mpe_print_datatype_pack_action_ (MPI_Fint *count, MPI_Fint *type,
                                           MPI_Fint *in_offset,
                                           MPI_Fint *out_offset);
MISC void mpe_print_datatype_unpack_action_ (MPI_Fint *count,
                                             MPI_Fint *type,
                                             MPI_Fint *in_offset,
                                             MPI_Fint *out_offset);

MISC void
mpe_print_datatype_pack_action_ (MPI_Fint *count, MPI_Fint *type,
                                 MPI_Fint *in_offset, MPI_Fint *out_offset)
{
  print_action (stdout, *count, MPI_Type_f2c (*type), *in_offset,
                *out_offset, 0);
  fflush (stdout);
}

MISC void
mpe_print_datatype_unpack_action_ (MPI_Fint *count, MPI_Fint *type,
                                   MPI_Fint *in_offset, MPI_Fint *out_offset)
{
  print_action (stdout, *count, MPI_Type_f2c (*type), *in_offset,
                *out_offset, 1);
  fflush (stdout);
}
