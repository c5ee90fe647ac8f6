/* SPDX-License-Identifier: BSD-3-Clause */
/* This node's CPU topology (mpe-topo.c).  Not installed. */
#ifndef MPE_TOPO_H
#define MPE_TOPO_H

#include <stddef.h>
#include <stdint.h>

/* One logical CPU (hwloc's PU). */
typedef struct
{
  int32_t cpu;     /* OS number, as sched_getcpu and perf report it */
  int32_t core;    /* core index on the node: SMT siblings share it */
  int32_t socket;  /* package index */
  int32_t numa;    /* NUMA node (OS number) */
  int32_t smt;     /* rank among its core's logical CPUs */
} mpe_topo_cpu_t;

/* 0 and a malloc'd array sorted by cpu, or -1.  *source: "hwloc" or
 * "sysfs" (may be NULL). */
int mpe__topo_read (mpe_topo_cpu_t **out, size_t *n, const char **source);

#endif
