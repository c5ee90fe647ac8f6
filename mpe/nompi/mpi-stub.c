/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI of libmpe_nompi: one process, rank 0 of 1, no MPI library.
 * Serial tools log with the ordinary MPE calls (MPE_Init_log ...
 * MPE_Finish_log) and get an ordinary .clog, as with MPE2's
 * libmpe_nompi (built -DCLOG_NOMPI with an MPI stub).  Only the calls the
 * logging core makes are here, compiled against the real mpi.h for its
 * types and constants, and hidden inside the library (-fvisibility=hidden)
 * so they never stand in for a real MPI.  Collectives copy the send
 * buffer to the receive buffer; nonblocking ones complete at once; a
 * message to or from another rank cannot happen with one process, so a
 * point-to-point call is a bug that is reported and aborts.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

/* Derived types made by the core (contiguous runs of a basic type). */
#define STUB_TYPE_BASE 0x7c000000
#define STUB_TYPES_MAX 64
static struct
{
  int    used;
  MPI_Aint size;
} types[STUB_TYPES_MAX];

static MPI_Aint
type_size (MPI_Datatype t)
{
  int h = (int) t;
  if (h >= STUB_TYPE_BASE && h < STUB_TYPE_BASE + STUB_TYPES_MAX)
    return types[h - STUB_TYPE_BASE].size;
  /* MPICH's predefined types carry their size in bits 8-15. */
  return (MPI_Aint) ((h & 0x0000ff00) >> 8);
}

static void
copy (const void *src, void *dst, int count, MPI_Datatype t)
{
  if (src == MPI_IN_PLACE || src == dst || count <= 0)
    return;
  memcpy (dst, src, (size_t) count * (size_t) type_size (t));
}

static int
no_peer (const char *call)
{
  fprintf (stderr, "libmpe_nompi: %s with another process, in a program "
           "of one process (a bug in libmpe)\n", call);
  abort ();
}

static void
done (MPI_Request *req)
{
  if (req)
    *req = MPI_REQUEST_NULL;
}

int PMPI_Init (int *argc, char ***argv) { (void) argc; (void) argv; return MPI_SUCCESS; }
int PMPI_Initialized (int *flag) { *flag = 1; return MPI_SUCCESS; }
int PMPI_Query_thread (int *p) { *p = MPI_THREAD_MULTIPLE; return MPI_SUCCESS; }
int PMPI_Comm_rank (MPI_Comm c, int *r) { (void) c; *r = 0; return MPI_SUCCESS; }
int PMPI_Comm_size (MPI_Comm c, int *s) { (void) c; *s = 1; return MPI_SUCCESS; }
int PMPI_Comm_dup (MPI_Comm c, MPI_Comm *n) { *n = c; return MPI_SUCCESS; }
int PMPI_Comm_free (MPI_Comm *c) { *c = MPI_COMM_NULL; return MPI_SUCCESS; }
int PMPI_Comm_test_inter (MPI_Comm c, int *f) { (void) c; *f = 0; return MPI_SUCCESS; }

int
PMPI_Comm_split_type (MPI_Comm c, int type, int key, MPI_Info info,
                      MPI_Comm *n)
{
  (void) type; (void) key; (void) info;
  *n = c;
  return MPI_SUCCESS;
}

int
PMPI_Comm_get_attr (MPI_Comm c, int key, void *val, int *flag)
{
  (void) c; (void) key; (void) val;
  *flag = 0;
  return MPI_SUCCESS;
}

int
PMPI_Comm_get_name (MPI_Comm c, char *name, int *len)
{
  (void) c;
  strcpy (name, "MPI_COMM_WORLD");
  *len = (int) strlen (name);
  return MPI_SUCCESS;
}

int PMPI_Comm_group (MPI_Comm c, MPI_Group *g) { (void) c; *g = MPI_GROUP_EMPTY; return MPI_SUCCESS; }
int PMPI_Comm_remote_group (MPI_Comm c, MPI_Group *g) { (void) c; *g = MPI_GROUP_EMPTY; return MPI_SUCCESS; }
int PMPI_Group_free (MPI_Group *g) { *g = MPI_GROUP_NULL; return MPI_SUCCESS; }
int PMPI_Group_size (MPI_Group g, int *s) { (void) g; *s = 1; return MPI_SUCCESS; }

int
PMPI_Group_translate_ranks (MPI_Group a, int n, const int r1[], MPI_Group b,
                            int r2[])
{
  (void) a; (void) b;
  for (int i = 0; i < n; i++)
    r2[i] = r1[i];
  return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler (MPI_Comm c, MPI_Errhandler *e) { (void) c; *e = MPI_ERRORS_ARE_FATAL; return MPI_SUCCESS; }
int PMPI_Comm_set_errhandler (MPI_Comm c, MPI_Errhandler e) { (void) c; (void) e; return MPI_SUCCESS; }
int PMPI_Errhandler_free (MPI_Errhandler *e) { *e = MPI_ERRHANDLER_NULL; return MPI_SUCCESS; }

int
PMPI_Get_library_version (char *v, int *len)
{
  snprintf (v, MPI_MAX_LIBRARY_VERSION_STRING, "none (libmpe_nompi)");
  *len = (int) strlen (v);
  return MPI_SUCCESS;
}

int
MPI_Get_processor_name (char *name, int *len)
{
  if (gethostname (name, MPI_MAX_PROCESSOR_NAME - 1) != 0)
    strcpy (name, "localhost");
  name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
  *len = (int) strlen (name);
  return MPI_SUCCESS;
}

double
PMPI_Wtime (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* Types and operators. */
int
PMPI_Type_contiguous (int count, MPI_Datatype old, MPI_Datatype *t)
{
  for (int i = 0; i < STUB_TYPES_MAX; i++)
    if (!types[i].used)
      {
        types[i].used = 1;
        types[i].size = (MPI_Aint) count * type_size (old);
        *t = (MPI_Datatype) (STUB_TYPE_BASE + i);
        return MPI_SUCCESS;
      }
  return MPI_ERR_INTERN;
}

int PMPI_Type_commit (MPI_Datatype *t) { (void) t; return MPI_SUCCESS; }

int
PMPI_Type_free (MPI_Datatype *t)
{
  int h = (int) *t;
  if (h >= STUB_TYPE_BASE && h < STUB_TYPE_BASE + STUB_TYPES_MAX)
    types[h - STUB_TYPE_BASE].used = 0;
  *t = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int
PMPI_Type_size (MPI_Datatype t, int *s)
{
  *s = (int) type_size (t);
  return MPI_SUCCESS;
}

int
PMPI_Type_get_extent (MPI_Datatype t, MPI_Aint *lb, MPI_Aint *ext)
{
  *lb = 0;
  *ext = type_size (t);
  return MPI_SUCCESS;
}

int
PMPI_Type_get_true_extent (MPI_Datatype t, MPI_Aint *lb, MPI_Aint *ext)
{
  return PMPI_Type_get_extent (t, lb, ext);
}

int
PMPI_Op_create (MPI_User_function *f, int commute, MPI_Op *op)
{
  (void) f; (void) commute;
  *op = MPI_SUM;               /* never applied: one process */
  return MPI_SUCCESS;
}

int PMPI_Op_free (MPI_Op *op) { *op = MPI_OP_NULL; return MPI_SUCCESS; }

/* Collectives of one process. */
int PMPI_Barrier (MPI_Comm c) { (void) c; return MPI_SUCCESS; }
int PMPI_Ibarrier (MPI_Comm c, MPI_Request *r) { (void) c; done (r); return MPI_SUCCESS; }

int
PMPI_Bcast (void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
  (void) b; (void) n; (void) t; (void) root; (void) c;
  return MPI_SUCCESS;
}

int
PMPI_Ibcast (void *b, int n, MPI_Datatype t, int root, MPI_Comm c,
             MPI_Request *r)
{
  done (r);
  return PMPI_Bcast (b, n, t, root, c);
}

int
PMPI_Allreduce (const void *s, void *d, int n, MPI_Datatype t, MPI_Op op,
                MPI_Comm c)
{
  (void) op; (void) c;
  copy (s, d, n, t);
  return MPI_SUCCESS;
}

int
PMPI_Iallreduce (const void *s, void *d, int n, MPI_Datatype t, MPI_Op op,
                 MPI_Comm c, MPI_Request *r)
{
  done (r);
  return PMPI_Allreduce (s, d, n, t, op, c);
}

int
PMPI_Ireduce (const void *s, void *d, int n, MPI_Datatype t, MPI_Op op,
              int root, MPI_Comm c, MPI_Request *r)
{
  (void) root;
  done (r);
  return PMPI_Allreduce (s, d, n, t, op, c);
}

int
PMPI_Allgather (const void *s, int sn, MPI_Datatype st, void *d, int dn,
                MPI_Datatype dt, MPI_Comm c)
{
  (void) dn; (void) dt; (void) c;
  copy (s, d, sn, st);
  return MPI_SUCCESS;
}

int
PMPI_Iallgather (const void *s, int sn, MPI_Datatype st, void *d, int dn,
                 MPI_Datatype dt, MPI_Comm c, MPI_Request *r)
{
  done (r);
  return PMPI_Allgather (s, sn, st, d, dn, dt, c);
}

int
PMPI_Gather (const void *s, int sn, MPI_Datatype st, void *d, int dn,
             MPI_Datatype dt, int root, MPI_Comm c)
{
  (void) root;
  return PMPI_Allgather (s, sn, st, d, dn, dt, c);
}

int
PMPI_Igather (const void *s, int sn, MPI_Datatype st, void *d, int dn,
              MPI_Datatype dt, int root, MPI_Comm c, MPI_Request *r)
{
  done (r);
  return PMPI_Gather (s, sn, st, d, dn, dt, root, c);
}

int
PMPI_Scatter (const void *s, int sn, MPI_Datatype st, void *d, int dn,
              MPI_Datatype dt, int root, MPI_Comm c)
{
  (void) sn; (void) st; (void) root; (void) c;
  if (d != MPI_IN_PLACE)
    copy (s, d, dn, dt);
  return MPI_SUCCESS;
}

static int
gatherv (const void *s, int sn, MPI_Datatype st, void *d,
         const int *displs, MPI_Datatype dt)
{
  MPI_Aint lb, ext;
  PMPI_Type_get_extent (dt, &lb, &ext);
  copy (s, (char *) d + (MPI_Aint) displs[0] * ext, sn, st);
  return MPI_SUCCESS;
}

int
PMPI_Iscatter (const void *s, int sn, MPI_Datatype st, void *d, int dn,
               MPI_Datatype dt, int root, MPI_Comm c, MPI_Request *r)
{
  done (r);
  return PMPI_Scatter (s, sn, st, d, dn, dt, root, c);
}

int
PMPI_Igatherv (const void *s, int sn, MPI_Datatype st, void *d,
               const int counts[], const int displs[], MPI_Datatype dt,
               int root, MPI_Comm c, MPI_Request *r)
{
  (void) counts; (void) root; (void) c;
  done (r);
  return gatherv (s, sn, st, d, displs, dt);
}

int
PMPI_Iallgatherv (const void *s, int sn, MPI_Datatype st, void *d,
                  const int counts[], const int displs[], MPI_Datatype dt,
                  MPI_Comm c, MPI_Request *r)
{
  (void) counts; (void) c;
  done (r);
  return gatherv (s, sn, st, d, displs, dt);
}

int
PMPI_Ialltoall (const void *s, int sn, MPI_Datatype st, void *d, int dn,
                MPI_Datatype dt, MPI_Comm c, MPI_Request *r)
{
  done (r);
  return PMPI_Allgather (s, sn, st, d, dn, dt, c);
}

int
PMPI_Ialltoallv (const void *s, const int sc[], const int sd[],
                 MPI_Datatype st, void *d, const int dc[], const int dd[],
                 MPI_Datatype dt, MPI_Comm c, MPI_Request *r)
{
  (void) dc; (void) c;
  MPI_Aint lb, ext;
  done (r);
  PMPI_Type_get_extent (st, &lb, &ext);
  if (s == MPI_IN_PLACE)
    return MPI_SUCCESS;
  return gatherv ((const char *) s + (MPI_Aint) sd[0] * ext, sc[0], st, d,
                  dd, dt);
}

/* Requests all complete at once; there are no messages. */
int
PMPI_Test (MPI_Request *r, int *flag, MPI_Status *st)
{
  (void) st;
  done (r);
  *flag = 1;
  return MPI_SUCCESS;
}

int
PMPI_Wait (MPI_Request *r, MPI_Status *st)
{
  (void) st;
  done (r);
  return MPI_SUCCESS;
}

int
PMPI_Iprobe (int src, int tag, MPI_Comm c, int *flag, MPI_Status *st)
{
  (void) src; (void) tag; (void) c; (void) st;
  *flag = 0;
  return MPI_SUCCESS;
}

int
PMPI_Improbe (int src, int tag, MPI_Comm c, int *flag, MPI_Message *m,
              MPI_Status *st)
{
  (void) m;
  return PMPI_Iprobe (src, tag, c, flag, st);
}

int
PMPI_Get_count (const MPI_Status *st, MPI_Datatype t, int *n)
{
  (void) st; (void) t;
  *n = 0;
  return MPI_SUCCESS;
}

int
PMPI_Send (const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c)
{
  (void) b; (void) n; (void) t; (void) dst; (void) tag; (void) c;
  return no_peer ("MPI_Send");
}

int
PMPI_Isend (const void *b, int n, MPI_Datatype t, int dst, int tag,
            MPI_Comm c, MPI_Request *r)
{
  (void) b; (void) n; (void) t; (void) dst; (void) tag; (void) c; (void) r;
  return no_peer ("MPI_Isend");
}

int
PMPI_Recv (void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
           MPI_Status *st)
{
  (void) b; (void) n; (void) t; (void) src; (void) tag; (void) c; (void) st;
  return no_peer ("MPI_Recv");
}

int
PMPI_Irecv (void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
            MPI_Request *r)
{
  (void) b; (void) n; (void) t; (void) src; (void) tag; (void) c; (void) r;
  return no_peer ("MPI_Irecv");
}

int
PMPI_Mprobe (int src, int tag, MPI_Comm c, MPI_Message *m, MPI_Status *st)
{
  (void) src; (void) tag; (void) c; (void) m; (void) st;
  return no_peer ("MPI_Mprobe");
}

int
PMPI_Mrecv (void *b, int n, MPI_Datatype t, MPI_Message *m, MPI_Status *st)
{
  (void) b; (void) n; (void) t; (void) m; (void) st;
  return no_peer ("MPI_Mrecv");
}

int
PMPI_Iexscan (const void *s, void *d, int n, MPI_Datatype t, MPI_Op op,
              MPI_Comm c, MPI_Request *r)
{
  /* Rank 0's result is undefined: nothing to do. */
  (void) s; (void) d; (void) n; (void) t; (void) op; (void) c;
  done (r);
  return MPI_SUCCESS;
}

/* The merge writes the other ranks' chunks with MPI-IO: never with one
 * process (rank 0 writes its own through its writer). */
int
PMPI_File_open (MPI_Comm c, const char *name, int mode, MPI_Info info,
                MPI_File *fh)
{
  (void) c; (void) name; (void) mode; (void) info; (void) fh;
  return no_peer ("MPI_File_open");
}

int
PMPI_File_write_at (MPI_File fh, MPI_Offset off, const void *b, int n,
                    MPI_Datatype t, MPI_Status *st)
{
  (void) fh; (void) off; (void) b; (void) n; (void) t; (void) st;
  return no_peer ("MPI_File_write_at");
}

int
PMPI_File_read_at (MPI_File fh, MPI_Offset off, void *b, int n,
                   MPI_Datatype t, MPI_Status *st)
{
  (void) fh; (void) off; (void) b; (void) n; (void) t; (void) st;
  return no_peer ("MPI_File_read_at");
}

int
PMPI_File_close (MPI_File *fh)
{
  (void) fh;
  return no_peer ("MPI_File_close");
}

int
PMPI_Error_string (int code, char *s, int *len)
{
  *len = snprintf (s, MPI_MAX_ERROR_STRING, "MPI error %d", code);
  return MPI_SUCCESS;
}
