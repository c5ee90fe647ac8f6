/* SPDX-License-Identifier: BSD-3-Clause */
/* This node's CPU topology: hwloc where the build has it, else sysfs.
 * No MPI: the merge gathers it, one copy per host. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if HAVE_HWLOC
#include <hwloc.h>
#endif

#include "mpe-topo.h"

static int
cpu_cmp (const void *a, const void *b)
{
  const mpe_topo_cpu_t *x = a, *y = b;
  return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

#if HAVE_HWLOC
static int
from_hwloc (mpe_topo_cpu_t **out, size_t *n)
{
  hwloc_topology_t t;
  if (hwloc_topology_init (&t) != 0)
    return -1;
  if (hwloc_topology_load (t) != 0)
    {
      hwloc_topology_destroy (t);
      return -1;
    }
  int npu = hwloc_get_nbobjs_by_type (t, HWLOC_OBJ_PU);
  int nnuma = hwloc_get_nbobjs_by_type (t, HWLOC_OBJ_NUMANODE);
  mpe_topo_cpu_t *v = npu > 0 ? calloc ((size_t) npu, sizeof *v) : NULL;
  if (!v)
    {
      hwloc_topology_destroy (t);
      return -1;
    }
  for (int i = 0; i < npu; i++)
    {
      hwloc_obj_t pu = hwloc_get_obj_by_type (t, HWLOC_OBJ_PU, (unsigned) i);
      hwloc_obj_t core = hwloc_get_ancestor_obj_by_type (t, HWLOC_OBJ_CORE,
                                                         pu);
      hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type (t,
                                                        HWLOC_OBJ_PACKAGE,
                                                        pu);
      v[i].cpu = (int32_t) pu->os_index;
      v[i].core = core ? (int32_t) core->logical_index : (int32_t) i;
      v[i].smt = core ? (int32_t) pu->sibling_rank : 0;
      v[i].socket = pkg ? (int32_t) pkg->logical_index : 0;
      v[i].numa = 0;
      for (int k = 0; k < nnuma; k++)
        {
          hwloc_obj_t nd = hwloc_get_obj_by_type (t, HWLOC_OBJ_NUMANODE,
                                                  (unsigned) k);
          if (nd->cpuset && hwloc_bitmap_isset (nd->cpuset, pu->os_index))
            {
              v[i].numa = (int32_t) nd->os_index;
              break;
            }
        }
    }
  hwloc_topology_destroy (t);
  *out = v;
  *n = (size_t) npu;
  return 0;
}
#endif

static int
read_int (const char *path, int *v)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return -1;
  int ok = fscanf (f, "%d", v) == 1;
  fclose (f);
  return ok ? 0 : -1;
}

/* /sys/devices/system/cpu/cpuN/topology: cores numbered by first sight of
 * (package, core_id); SMT rank = order within the core. */
static int
from_sysfs (mpe_topo_cpu_t **out, size_t *n)
{
  long ncpu = sysconf (_SC_NPROCESSORS_CONF);
  if (ncpu <= 0 || ncpu > 1 << 20)
    return -1;
  mpe_topo_cpu_t *v = calloc ((size_t) ncpu, sizeof *v);
  int *pkg_core = calloc ((size_t) ncpu * 2, sizeof *pkg_core);
  if (!v || !pkg_core)
    {
      free (v);
      free (pkg_core);
      return -1;
    }
  size_t k = 0, ncores = 0;
  for (long c = 0; c < ncpu; c++)
    {
      char p[256];
      int core = (int) c, pkg = 0;
      snprintf (p, sizeof p, "/sys/devices/system/cpu/cpu%ld/topology/"
                "core_id", c);
      if (read_int (p, &core) != 0 && access (p, F_OK) != 0 && c > 0)
        {
          snprintf (p, sizeof p, "/sys/devices/system/cpu/cpu%ld", c);
          if (access (p, F_OK) != 0)
            continue;  /* a hole in the numbering */
        }
      snprintf (p, sizeof p, "/sys/devices/system/cpu/cpu%ld/topology/"
                "physical_package_id", c);
      read_int (p, &pkg);
      size_t ci;
      for (ci = 0; ci < ncores; ci++)
        if (pkg_core[2 * ci] == pkg && pkg_core[2 * ci + 1] == core)
          break;
      if (ci == ncores)
        {
          pkg_core[2 * ncores] = pkg;
          pkg_core[2 * ncores + 1] = core;
          ncores++;
        }
      int smt = 0;
      for (size_t j = 0; j < k; j++)
        smt += v[j].core == (int32_t) ci;
      int numa = 0;
      for (int nd = 0; nd < 1024; nd++)
        {
          snprintf (p, sizeof p, "/sys/devices/system/cpu/cpu%ld/node%d", c,
                    nd);
          if (access (p, F_OK) == 0)
            {
              numa = nd;
              break;
            }
        }
      v[k++] = (mpe_topo_cpu_t) { (int32_t) c, (int32_t) ci, (int32_t) pkg,
                                  numa, smt };
    }
  free (pkg_core);
  *out = v;
  *n = k;
  return k ? 0 : -1;
}

int
mpe__topo_read (mpe_topo_cpu_t **out, size_t *n, const char **source)
{
  *out = NULL;
  *n = 0;
  int rc = -1;
#if HAVE_HWLOC
  rc = from_hwloc (out, n);
  if (source)
    *source = "hwloc";
#endif
  if (rc != 0)
    {
      rc = from_sysfs (out, n);
      if (source)
        *source = "sysfs";
    }
  if (rc == 0)
    qsort (*out, *n, sizeof **out, cpu_cmp);
  return rc;
}
