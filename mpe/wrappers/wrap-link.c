/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Making sure a wrapper library is linked and in front (every PMPI
 * wrapper library has this file).
 *
 * Fortran: an object compiled by mpif77/mpif90 refers to mpi_init_, not
 * to MPI_Init, so a linker with --as-needed (Debian's default) drops a
 * wrapper library named on the command line (`mpif77 prog.f -llmpe
 * -lmpe`) and nothing is logged.  Defining the Fortran entry points of
 * MPI_Init and MPI_Init_thread here gives the program a reason to keep
 * the library; they hand over to MPI's own Fortran binding (the next
 * definition), which calls the C MPI_Init these libraries wrap.
 *
 * Order: when the MPI library comes first (`-lmpich -llmpe`), MPI_Init
 * resolves to MPI's and none of these wrappers is ever called; a
 * constructor notices and says so once (on rank 0), before MPI_Init.
 */
#define _GNU_SOURCE 1
#include "config.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MPE_WRAP_LIBNAME
# define MPE_WRAP_LIBNAME "the MPE wrapper library"
#endif

typedef void (*finit_t) (MPI_Fint *);
typedef void (*finit_thread_t) (MPI_Fint *, MPI_Fint *, MPI_Fint *);

static void *
next_symbol (const char *name)
{
  void *f = dlsym (RTLD_NEXT, name);
  if (!f)
    {
      fprintf (stderr, "%s: %s: MPI's Fortran binding not found (%s)\n",
               MPE_WRAP_LIBNAME, name, dlerror ());
      abort ();
    }
  return f;
}

#define FORTRAN_INIT(sym)                                               \
  void sym (MPI_Fint *ierr);                                            \
  void                                                                  \
  sym (MPI_Fint *ierr)                                                  \
  {                                                                     \
    static finit_t next;                                                \
    if (!next)                                                          \
      next = (finit_t) next_symbol (#sym);                              \
    next (ierr);                                                        \
  }
#define FORTRAN_INIT_THREAD(sym)                                        \
  void sym (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);    \
  void                                                                  \
  sym (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)          \
  {                                                                     \
    static finit_thread_t next;                                         \
    if (!next)                                                          \
      next = (finit_thread_t) next_symbol (#sym);                       \
    next (required, provided, ierr);                                    \
  }

/* gfortran's names (mpif.h and `use mpi`; `use mpi_f08`). */
FORTRAN_INIT (mpi_init_)
FORTRAN_INIT_THREAD (mpi_init_thread_)
FORTRAN_INIT (mpi_init_f08_)
FORTRAN_INIT_THREAD (mpi_init_thread_f08_)

/* Runs when the library is loaded: does the program reach our wrappers
   (MPI_Barrier: every wrapper library has one)? */
__attribute__ ((constructor)) static void
check_order (void)
{
  Dl_info self, info;
  void *used = dlsym (RTLD_DEFAULT, "MPI_Barrier");
  if (!used || !dladdr ((void *) check_order, &self)
      || !dladdr (used, &info) || info.dli_fbase == self.dli_fbase)
    return;
  const char *rank = getenv ("PMI_RANK");
  if (!rank)
    rank = getenv ("OMPI_COMM_WORLD_RANK");
  if (rank && strcmp (rank, "0") != 0)
    return;
  fprintf (stderr, "%s: warning: the program's MPI calls resolve to %s, "
           "which comes before %s in the link: they will not be seen "
           "(link the MPE libraries before the MPI library, e.g. with "
           "mpecc)\n", MPE_WRAP_LIBNAME,
           info.dli_fname ? info.dli_fname : "another library",
           self.dli_fname ? self.dli_fname : MPE_WRAP_LIBNAME);
}
