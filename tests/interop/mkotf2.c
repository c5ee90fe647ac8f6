/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes a small OTF2 archive through the OTF2 writer API, with figures
 * otf2-read.sh knows: two processes on two nodes, two threads each, one
 * metric-only location; nested regions, MpiSend/MpiRecv, MpiIsend/
 * MpiIrecv, a collective inside MPI_Allreduce on both ranks, metric
 * samples; a microsecond clock with a global offset.  The MPI location
 * group lists process 20's location first, so process 20 is rank 0.
 *
 * Usage: mkotf2 DIR NAME   (writes DIR/NAME.otf2, DIR/NAME.def, DIR/NAME/)
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <otf2/otf2.h>

#define OFF 5000u   /* global offset, in ticks (us) */

static OTF2_FlushType
pre_flush (void *u, OTF2_FileType ft, OTF2_LocationRef l, void *cb, bool fin)
{
  (void) u; (void) ft; (void) l; (void) cb; (void) fin;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
  (void) u; (void) ft; (void) l;
  return 0;
}

static OTF2_FlushCallbacks flush_cbs = { pre_flush, post_flush };

static void
check (OTF2_ErrorCode e, const char *what)
{
  if (e != OTF2_SUCCESS)
    {
      fprintf (stderr, "mkotf2: %s: %s\n", what, OTF2_Error_GetDescription (e));
      exit (1);
    }
}

enum { R_MAIN, R_COMPUTE, R_SEND, R_RECV, R_ALLREDUCE, R_INNER, NREG };
static const char *const reg_name[NREG] = {
  "main", "compute", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "inner"
};

static void
enter (OTF2_EvtWriter *w, uint64_t t, uint32_t r)
{
  check (OTF2_EvtWriter_Enter (w, NULL, OFF + t, r), "enter");
}

static void
leave (OTF2_EvtWriter *w, uint64_t t, uint32_t r)
{
  check (OTF2_EvtWriter_Leave (w, NULL, OFF + t, r), "leave");
}

static void
allreduce (OTF2_EvtWriter *w)
{
  enter (w, 100, R_ALLREDUCE);
  check (OTF2_EvtWriter_MpiCollectiveBegin (w, NULL, OFF + 101), "cbegin");
  check (OTF2_EvtWriter_MpiCollectiveEnd (w, NULL, OFF + 110,
                                          OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                          OTF2_UNDEFINED_UINT32, 8, 16),
         "cend");
  leave (w, 120, R_ALLREDUCE);
}

static void
metric (OTF2_EvtWriter *w, uint64_t t, uint64_t v)
{
  OTF2_Type ty = OTF2_TYPE_UINT64;
  OTF2_MetricValue mv;
  mv.unsigned_int = v;
  check (OTF2_EvtWriter_Metric (w, NULL, OFF + t, 0, 1, &ty, &mv), "metric");
}

int
main (int argc, char **argv)
{
  /* "huge": one more region on rank 0's second thread, left at a
   * timestamp near 2^64 ticks. */
  if (argc != 3 && !(argc == 4 && strcmp (argv[3], "huge") == 0))
    {
      fprintf (stderr, "usage: mkotf2 DIR NAME [huge]\n");
      return 2;
    }
  int huge = argc == 4;
  OTF2_Archive *ar = OTF2_Archive_Open (argv[1], argv[2], OTF2_FILEMODE_WRITE,
                                        1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
  if (!ar)
    {
      fprintf (stderr, "mkotf2: cannot create %s/%s\n", argv[1], argv[2]);
      return 1;
    }
  check (OTF2_Archive_SetFlushCallbacks (ar, &flush_cbs, NULL), "flush");
  check (OTF2_Archive_SetSerialCollectiveCallbacks (ar), "collectives");
  check (OTF2_Archive_SetCreator (ar, "mkotf2 test"), "creator");
  check (OTF2_Archive_OpenEvtFiles (ar), "open events");

  /* Locations: 0, 1 in process 10 (rank 1); 2, 3 in process 20 (rank 0);
   * 4 records metrics only. */
  uint64_t nev[5];
  OTF2_EvtWriter *w;

  /* Rank 0, thread 0. */
  w = OTF2_Archive_GetEvtWriter (ar, 2);
  enter (w, 0, R_MAIN);
  enter (w, 10, R_COMPUTE);
  enter (w, 20, R_INNER);
  leave (w, 30, R_INNER);
  leave (w, 40, R_COMPUTE);
  enter (w, 50, R_SEND);
  check (OTF2_EvtWriter_MpiSend (w, NULL, OFF + 51, 1, 0, 7, 100), "send");
  leave (w, 60, R_SEND);
  allreduce (w);
  check (OTF2_EvtWriter_MpiIrecvRequest (w, NULL, OFF + 140, 99), "irecvreq");
  check (OTF2_EvtWriter_MpiIrecv (w, NULL, OFF + 160, 1, 0, 9, 64, 99),
         "irecv");
  leave (w, 200, R_MAIN);
  OTF2_EvtWriter_GetNumberOfEvents (w, &nev[2]);
  check (OTF2_Archive_CloseEvtWriter (ar, w), "close");

  /* Rank 0, thread 1. */
  w = OTF2_Archive_GetEvtWriter (ar, 3);
  enter (w, 10, R_COMPUTE);
  leave (w, 90, R_COMPUTE);
  if (huge)
    {
      enter (w, 95, R_COMPUTE);
      check (OTF2_EvtWriter_Leave (w, NULL, UINT64_MAX - 1, R_COMPUTE),
             "leave");
    }
  OTF2_EvtWriter_GetNumberOfEvents (w, &nev[3]);
  check (OTF2_Archive_CloseEvtWriter (ar, w), "close");

  /* Rank 1, thread 0. */
  w = OTF2_Archive_GetEvtWriter (ar, 0);
  enter (w, 0, R_MAIN);
  enter (w, 40, R_RECV);
  check (OTF2_EvtWriter_MpiRecv (w, NULL, OFF + 70, 0, 0, 7, 100), "recv");
  leave (w, 75, R_RECV);
  allreduce (w);
  metric (w, 130, 123456);
  check (OTF2_EvtWriter_MpiIsend (w, NULL, OFF + 150, 0, 0, 9, 64, 5),
         "isend");
  check (OTF2_EvtWriter_MpiIsendComplete (w, NULL, OFF + 155, 5), "icomp");
  leave (w, 200, R_MAIN);
  OTF2_EvtWriter_GetNumberOfEvents (w, &nev[0]);
  check (OTF2_Archive_CloseEvtWriter (ar, w), "close");

  /* Rank 1, thread 1. */
  w = OTF2_Archive_GetEvtWriter (ar, 1);
  enter (w, 20, R_COMPUTE);
  enter (w, 30, R_INNER);
  leave (w, 50, R_INNER);
  leave (w, 80, R_COMPUTE);
  OTF2_EvtWriter_GetNumberOfEvents (w, &nev[1]);
  check (OTF2_Archive_CloseEvtWriter (ar, w), "close");

  /* Metric location. */
  w = OTF2_Archive_GetEvtWriter (ar, 4);
  for (uint64_t t = 0; t <= 200; t += 50)
    metric (w, t, 1000 + t);
  OTF2_EvtWriter_GetNumberOfEvents (w, &nev[4]);
  check (OTF2_Archive_CloseEvtWriter (ar, w), "close");
  check (OTF2_Archive_CloseEvtFiles (ar), "close events");

  check (OTF2_Archive_OpenDefFiles (ar), "open defs");
  for (uint64_t l = 0; l < 5; l++)
    {
      OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter (ar, l);
      check (OTF2_Archive_CloseDefWriter (ar, dw), "local defs");
    }
  check (OTF2_Archive_CloseDefFiles (ar), "close defs");

  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter (ar);
  check (OTF2_GlobalDefWriter_WriteClockProperties (
           g, 1000000, OFF, 201, 1700000000000000000ull), "clock");
  const char *strings[] = {
    "", "machine", "nodeA", "nodeB", "node", "process 10", "process 20",
    "thread 0", "thread 1", "metrics", "MPI locations", "MPI_COMM_WORLD",
    "cycles", "PAPI_TOT_CYC", "#", "comm self"
  };
  uint32_t ns = sizeof strings / sizeof strings[0];
  for (uint32_t i = 0; i < ns; i++)
    check (OTF2_GlobalDefWriter_WriteString (g, i, strings[i]), "string");
  for (uint32_t r = 0; r < NREG; r++)
    {
      check (OTF2_GlobalDefWriter_WriteString (g, ns + r, reg_name[r]),
             "string");
      int mpi = reg_name[r][0] == 'M';
      check (OTF2_GlobalDefWriter_WriteRegion (
               g, r, ns + r, ns + r, 0,
               mpi ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_CODE,
               mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
               OTF2_REGION_FLAG_NONE, 0, 0, 0), "region");
    }
  check (OTF2_GlobalDefWriter_WriteSystemTreeNode (
           g, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "node");
  check (OTF2_GlobalDefWriter_WriteSystemTreeNode (g, 1, 2, 4, 0), "node");
  check (OTF2_GlobalDefWriter_WriteSystemTreeNode (g, 2, 3, 4, 0), "node");
  check (OTF2_GlobalDefWriter_WriteLocationGroup (
           g, 10, 5, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
           OTF2_UNDEFINED_LOCATION_GROUP), "lgroup");
  check (OTF2_GlobalDefWriter_WriteLocationGroup (
           g, 20, 6, OTF2_LOCATION_GROUP_TYPE_PROCESS, 2,
           OTF2_UNDEFINED_LOCATION_GROUP), "lgroup");
  static const uint64_t lg_of[5] = { 10, 10, 20, 20, 10 };
  for (uint64_t l = 0; l < 5; l++)
    check (OTF2_GlobalDefWriter_WriteLocation (
             g, l, l == 4 ? 9 : 7 + (uint32_t) (l % 2),
             l == 4 ? OTF2_LOCATION_TYPE_METRIC
                    : OTF2_LOCATION_TYPE_CPU_THREAD,
             nev[l], lg_of[l]), "location");
  const uint64_t locs[2] = { 2, 0 };
  check (OTF2_GlobalDefWriter_WriteGroup (
           g, 0, 10, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
           OTF2_GROUP_FLAG_NONE, 2, locs), "group");
  const uint64_t world[2] = { 0, 1 };
  check (OTF2_GlobalDefWriter_WriteGroup (
           g, 1, 11, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
           OTF2_GROUP_FLAG_NONE, 2, world), "group");
  check (OTF2_GlobalDefWriter_WriteGroup (
           g, 2, 15, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
           OTF2_GROUP_FLAG_NONE, 0, NULL), "group");
  check (OTF2_GlobalDefWriter_WriteComm (g, 0, 11, 1, OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE), "comm");
  check (OTF2_GlobalDefWriter_WriteComm (g, 1, 15, 2, OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE), "comm");
  OTF2_MetricMemberRef mm = 0;
  check (OTF2_GlobalDefWriter_WriteMetricMember (
           g, 0, 13, 12, OTF2_METRIC_TYPE_PAPI, OTF2_METRIC_ACCUMULATED_START,
           OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 14), "member");
  check (OTF2_GlobalDefWriter_WriteMetricClass (
           g, 0, 1, &mm, OTF2_METRIC_SYNCHRONOUS_STRICT,
           OTF2_RECORDER_KIND_CPU), "class");
  check (OTF2_Archive_CloseGlobalDefWriter (ar, g), "close global defs");
  check (OTF2_Archive_Close (ar), "close archive");
  return 0;
}
