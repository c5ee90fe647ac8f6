/* SPDX-License-Identifier: BSD-3-Clause */
/* Fortran bindings of MPE2's miscellaneous helpers (gfortran names:
   lower case, one trailing underscore; handles as MPI_Fint). */
#include "config.h"

#include <mpi.h>

#include "mpe_misc.h"

#define FAPI __attribute__ ((visibility ("default")))

FAPI void mpe_decomp1d_ (MPI_Fint *n, MPI_Fint *size, MPI_Fint *rank,
                         MPI_Fint *s, MPI_Fint *e);
FAPI void mpe_seq_begin_ (MPI_Fint *comm, MPI_Fint *ng);
FAPI void mpe_seq_end_ (MPI_Fint *comm, MPI_Fint *ng);
FAPI void mpe_comm_global_rank_ (MPI_Fint *comm, MPI_Fint *rank,
                                 MPI_Fint *world_rank);

/* CALL MPE_DECOMP1D(N, SIZE, RANK, S, E): this rank's 1-based S..E. */
FAPI void
mpe_decomp1d_ (MPI_Fint *n, MPI_Fint *size, MPI_Fint *rank, MPI_Fint *s,
               MPI_Fint *e)
{
  int cs, ce;
  MPE_Decomp1d (*n, *size, *rank, &cs, &ce);
  *s = cs;
  *e = ce;
}

FAPI void
mpe_seq_begin_ (MPI_Fint *comm, MPI_Fint *ng)
{
  MPE_Seq_begin (MPI_Comm_f2c (*comm), *ng);
}

FAPI void
mpe_seq_end_ (MPI_Fint *comm, MPI_Fint *ng)
{
  MPE_Seq_end (MPI_Comm_f2c (*comm), *ng);
}

FAPI void
mpe_comm_global_rank_ (MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *world_rank)
{
  int w = -1;
  MPE_Comm_global_rank (MPI_Comm_f2c (*comm), *rank, &w);
  *world_rank = w;
}
