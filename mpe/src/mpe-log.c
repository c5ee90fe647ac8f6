/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPE2 API: lifecycle, event numbers, events, messages and the wrapper
 * contract.  The definitions and communicators it records are kept by
 * mpe-defs.c and mpe-comms.c. */
#include "config.h"

#include <sched.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mpe-internal.h"
#include "mpe-monitor.h"
#include "mpe-plugin-internal.h"
#include "mpe-sample.h"
#include "mpe-sched.h"
#include "mpe-counters.h"
#include "mpe_log_thread.h"

CLOG_CommSet_t *CLOG_CommSet;

static atomic_int user_event_next = 600;
static atomic_int user_solo_next = 5000;
static atomic_int known_event_next = 0;
static atomic_int known_state_next = 0;
static atomic_int known_solo_next = -10;

static _Atomic (mpe_tap_cb) tap_fn;
static void *_Atomic tap_user;

static void default_prefix (const char *argv0);

/* ------------------------------------------------------------------ */
/* Slow path and tap                                                   */
/* ------------------------------------------------------------------ */

static int
slow_rc (int kind, int32_t id, const void *ext)
{
  int mode = atomic_load_explicit (&mpe__mode, memory_order_acquire);
  if (mode == 0)
    return mpe__g.state == 1 ? MPE_LOG_OK : MPE_LOG_NOT_INITIALIZED;
  uint64_t t = mpe__put_nocheck (kind, id, ext);
  mpe_tap_cb cb = atomic_load (&tap_fn);
  if (cb && mpe__tls)
    {
      mpe_tap_record_t rec;
      memset (&rec, 0, sizeof rec);
      rec.time_ns = (uint64_t) mpe__g.mono0 + mpe__ticks_to_local (t);
      rec.world_rank = mpe__g.rank;
      rec.thread = mpe__tls->thread;
      if (kind == MPE_REC_SEND || kind == MPE_REC_RECV)
        {
          mpe_spill_msg_t m;
          memcpy (&m, ext, sizeof m);
          rec.type = kind == MPE_REC_SEND ? 2 : 3;
          rec.partner = id;
          rec.tag = m.tag;
          rec.bytes = m.size;
        }
      else
        {
          rec.type = 1;
          rec.event_id = id;
        }
      cb (atomic_load (&tap_user), &rec);
    }
  return MPE_LOG_OK;
}

void
mpe__log_slow (int kind, int32_t id, const void *ext)
{
  slow_rc (kind, id, ext);
}

static inline int
log_rc (int kind, int32_t id, const void *ext)
{
  int mode = atomic_load_explicit (&mpe__mode, memory_order_relaxed);
  if (MPE_LIKELY (mode == 1))
    {
      mpe__put_nocheck (kind, id, ext);
      return MPE_LOG_OK;
    }
  /* Stopped: answer without a call (the < 2 ns path). */
  if (mode == 0)
    return mpe__g.state == 1 ? MPE_LOG_OK : MPE_LOG_NOT_INITIALIZED;
  return slow_rc (kind, id, ext);
}

int mpe__log_active;
int mpe__log_off_rc = MPE_LOG_NOT_INITIALIZED;

void
mpe__mode_store (int mode)
{
  atomic_store (&mpe__mode, mode);
  /* mpe__use_counter only where the build has a counter: on x86-64,
   * where mpe_log.h writes a bare event at the call site, the TSC
   * (mpe-counter.h). */
  int fast = mode == 1 && mpe__use_counter
             && __atomic_load_n (&mpe__mon_n, __ATOMIC_ACQUIRE) == 0;
  __atomic_store_n (&mpe__bare_fast, fast, __ATOMIC_SEQ_CST);
  /* The call sites' gates (mpe__gate): closed now, each reopened by its
   * thread's next record while the flag is set.  No lock: the crash
   * path stops logging here too, and the list only grows at its head. */
  if (!fast)
    for (mpe_tbuf_t *b = __atomic_load_n (&mpe__g.tbufs, __ATOMIC_ACQUIRE);
         b; b = b->next)
      __atomic_store_n (&b->end, b->base, __ATOMIC_SEQ_CST);
}

static void
set_mode (void)
{
  int on = mpe__g.state == 1 && !mpe__g.stopped;
  mpe__mode_store (on ? (atomic_load (&tap_fn) ? 2 : 1) : 0);
  /* For the inline check in mpe_log.h. */
  __atomic_store_n (&mpe__log_off_rc, mpe__g.state == 1 ? MPE_LOG_OK
                    : MPE_LOG_NOT_INITIALIZED, __ATOMIC_RELAXED);
  __atomic_store_n (&mpe__log_active, on, __ATOMIC_RELAXED);
}

void
mpe__set_tap (mpe_tap_cb tap, void *user)
{
  atomic_store (&tap_user, user);
  atomic_store (&tap_fn, tap);
  pthread_mutex_lock (&mpe__g.lock);
  set_mode ();
  pthread_mutex_unlock (&mpe__g.lock);
}

void
mpe__foreach_state_def (mpe_state_def_cb cb, void *user)
{
  mpe_def_t *d;
  size_t n;
  mpe__defs_snapshot (&d, &n);
  for (size_t i = 0; i < n; i++)
    if (d[i].is_state)
      cb (user, d[i].a, d[i].b, d[i].name, d[i].color);
    else  /* a solo event: start == end (docs/ANIM-PROTOCOL.md) */
      cb (user, d[i].a, d[i].a, d[i].name, d[i].color);
  mpe__defs_free (d, n);
}

/* ------------------------------------------------------------------ */
/* Lifecycle                                                           */
/* ------------------------------------------------------------------ */

enum { BUFFER_MB_DEFAULT = 64 };

/* The smallest limit in FILE of the cgroup at PATH under ROOT and its
 * ancestors ("max" and huge values are no limit). */
static uint64_t
cgroup_limit (const char *root, const char *path, const char *file)
{
  char cg[4096], f[4400];
  uint64_t lim = UINT64_MAX;
  snprintf (cg, sizeof cg, "%s", path);
  for (;;)
    {
      snprintf (f, sizeof f, "%s%s/%s", root, strcmp (cg, "/") ? cg : "",
                file);
      FILE *fp = fopen (f, "r");
      unsigned long long v;
      if (fp && fscanf (fp, "%llu", &v) == 1 && v < lim)
        lim = v;
      if (fp)
        fclose (fp);
      char *slash = strrchr (cg, '/');
      if (!slash || slash == cg)
        {
          if (strcmp (cg, "/") && cg[0])
            {
              snprintf (cg, sizeof cg, "/");
              continue;
            }
          break;
        }
      *slash = '\0';
    }
  return lim;
}

/* The memory this process's node may use: physical memory (what is
 * available now), the cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes, up the
 * process's cgroup path), and, where the buffers are files there, what
 * /dev/shm can hold.  *what says which one it is. */
static uint64_t
memory_limit (const char **what)
{
  uint64_t lim = (uint64_t) sysconf (_SC_PHYS_PAGES)
                 * (uint64_t) sysconf (_SC_PAGESIZE);
  *what = "physical memory";
  /* What the kernel could give now without swapping: the buffers are
   * faulted in at the start, and other processes need theirs. */
  char line[4096];
  FILE *f = fopen ("/proc/meminfo", "r");
  unsigned long long kb;
  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "MemAvailable: %llu kB", &kb) == 1 && kb * 1024 < lim)
      {
        lim = kb * 1024;
        *what = "the memory available now (MemAvailable)";
      }
  if (f)
    fclose (f);
  f = fopen ("/proc/self/cgroup", "r");
  while (f && fgets (line, sizeof line, f))
    {
      line[strcspn (line, "\n")] = '\0';
      char *c1 = strchr (line, ':'), *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
      if (!c2)
        continue;
      *c2 = '\0';
      uint64_t v = UINT64_MAX;
      const char *which = NULL;
      if (!strcmp (c1 + 1, ""))
        {
          v = cgroup_limit ("/sys/fs/cgroup", c2 + 1, "memory.max");
          which = "the cgroup's memory.max";
        }
      else
        for (char *save = NULL, *k = strtok_r (c1 + 1, ",", &save); k;
             k = strtok_r (NULL, ",", &save))
          if (!strcmp (k, "memory"))
            {
              v = cgroup_limit ("/sys/fs/cgroup/memory", c2 + 1,
                                "memory.limit_in_bytes");
              which = "the cgroup's memory.limit_in_bytes";
            }
      if (which && v < lim)
        {
          lim = v;
          *what = which;
        }
    }
  if (f)
    fclose (f);
  const char *rd = getenv ("MPE_RING_DIR");
  struct statvfs sv;
  if ((!rd || !*rd) && statvfs ("/dev/shm", &sv) == 0
      && access ("/dev/shm", W_OK | X_OK) == 0)
    {
      uint64_t shm = (uint64_t) sv.f_bavail * sv.f_frsize;
      if (shm < lim)
        {
          lim = shm;
          *what = "/dev/shm's free space (the buffers are files there)";
        }
    }
  return lim;
}

enum { MIB = 1048576 };

/* This process's buffer bytes: MPE_BUFFER_MB, else MPE2's CLOG_BLOCK_SIZE
 * x CLOG_BUFFERED_BLOCKS, else the default; the LOCAL ranks of this node
 * together at most half of the memory they may use.  local_rank 0 says
 * so when it cuts. */
static size_t
buffer_budget (int local, int local_rank)
{
  const char *src = "MPE_BUFFER_MB";
  const char *mb = getenv ("MPE_BUFFER_MB");
  double bytes = 0;
  if (mb && *mb)
    bytes = mpe__env_number ("MPE_BUFFER_MB", BUFFER_MB_DEFAULT, 1, 1048576,
                             "MiB", MPE_ENV_CLAMP) * MIB;
  else if (getenv ("CLOG_BLOCK_SIZE") || getenv ("CLOG_BUFFERED_BLOCKS"))
    {
      double b = mpe__env_number ("CLOG_BLOCK_SIZE", 65536, 1024,
                                  1073741824, "bytes", MPE_ENV_INT);
      double n = mpe__env_number ("CLOG_BUFFERED_BLOCKS", 128, 1, 1 << 24,
                                  "", MPE_ENV_INT);
      bytes = b * n;
      src = "CLOG_BLOCK_SIZE x CLOG_BUFFERED_BLOCKS";
    }
  if (bytes == 0)
    {
      bytes = (double) BUFFER_MB_DEFAULT * MIB;
      src = "the default buffer";
    }
  const char *what;
  double lim = (double) memory_limit (&what);
  double most = lim / 2 / (local > 0 ? local : 1);
  if (most < MIB)
    most = MIB;
  if (bytes > most)
    {
      if (local_rank == 0)
        mpe__env_say ("MPE_BUFFER_MB", "%s (%.0f MiB a process) adjusted: "
                      "%d process(es) on this node would hold %.0f MiB, "
                      "above half of %.0f MiB, %s; using %.0f MiB a "
                      "process", src, bytes / MIB, local,
                      bytes * local / MIB, lim / MIB, what, most / MIB);
      bytes = most;
    }
  return (size_t) bytes;
}

/* Ranks on this node and CPUs this process may run on.  Collective. */
static void
node_load (int *local, int *local_rank, int *ncpu)
{
  MPI_Comm node;
  *local = 1;
  *local_rank = 0;
  if (PMPI_Comm_split_type (mpe__comm, MPI_COMM_TYPE_SHARED, 0,
                            MPI_INFO_NULL, &node) == MPI_SUCCESS)
    {
      PMPI_Comm_size (node, local);
      PMPI_Comm_rank (node, local_rank);
      PMPI_Comm_free (&node);
    }
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0)
    *ncpu = CPU_COUNT (&set);
  else
    *ncpu = (int) sysconf (_SC_NPROCESSORS_ONLN);
}

/* 0 if a file can be made in DIR (a real try: root passes access()
 * on a directory without write permission, not on a read-only mount),
 * else an errno. */
static int
dir_takes_files (const char *dir)
{
  /* An unnamed file where the file system makes one: nothing to leave
   * behind. */
  int fd = open (dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0)
    {
      close (fd);
      return 0;
    }
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
    return errno;
  char probe[4200];
  snprintf (probe, sizeof probe, "%s/.mpe-probe-%ld", dir, (long) getpid ());
  fd = open (probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return errno == EEXIST ? 0 : errno;
  close (fd);
  unlink (probe);
  return 0;
}

/* DIR (MPE_TMPDIR and the like, for the spill file) if it takes files;
 * else, said once, the first of TMPDIR, /tmp, /var/tmp and the current
 * directory that does.  None: DIR stays, and the rank says what that
 * costs (no spill file: events past the buffer are lost, and a crash
 * loses them all). */
static void
usable_tmp_dir (char *dir, size_t n)
{
  int why = dir_takes_files (dir);
  if (!why)
    return;
  const char *tmp = getenv ("TMPDIR");
  const char *cand[] = { tmp && *tmp ? tmp : "/tmp", "/tmp", "/var/tmp",
                         "." };
  const char *var = getenv ("MPE_TMPDIR") && *getenv ("MPE_TMPDIR")
                    ? "MPE_TMPDIR" : "the spill directory";
  for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
    if (strcmp (cand[i], dir) != 0 && dir_takes_files (cand[i]) == 0)
      {
        char cwd[4096];
        const char *use = strcmp (cand[i], ".") ? cand[i]
                          : getcwd (cwd, sizeof cwd) ? cwd : ".";
        mpe__env_say ("MPE_TMPDIR", "rank %d: %s %s refused: %s (accepted: "
                      "a directory that takes new files); using %s",
                      mpe__g.rank, var, dir, strerror (why), use);
        size_t l = strlen (use) < n ? strlen (use) : n - 1;
        memmove (dir, use, l);
        dir[l] = '\0';
        return;
      }
  mpe__env_say ("MPE_TMPDIR", "rank %d: %s %s refused: %s, and no other "
                "temporary directory takes files: no spill file; events "
                "past the buffer will be lost, and a crash loses the log",
                mpe__g.rank, var, dir, strerror (why));
}

/* Rank 0, at the start: the log's name as far as it is known now
 * (MPE_LOGFILE_PREFIX, else the wrappers' default) in a directory that
 * takes no file would fail at the finish: said now, while there is time
 * to act. */
static void
warn_unwritable_log (void)
{
  const char *env = getenv ("MPE_LOGFILE_PREFIX");
  const char *prefix = env && *env ? env : mpe__g.default_prefix;
  if (!*prefix)
    return;
  char dir[4096];
  snprintf (dir, sizeof dir, "%s", prefix);
  char *slash = strrchr (dir, '/');
  if (slash)
    *slash = '\0';
  const char *d = slash ? (dir[0] ? dir : "/") : ".";
  int why = dir_takes_files (d);
  if (why)
    fprintf (stderr, "mpe: the log %s.clog cannot be written in %s (%s): "
             "the finish will fail unless that changes; set "
             "MPE_LOGFILE_PREFIX to a writable place\n", prefix,
             slash ? d : "the current directory", strerror (why));
}

/* Whether the environment sets name, to anything but auto. */
static int
env_chosen (const char *name)
{
  const char *v = getenv (name);
  return v && *v && strcmp (v, "auto") != 0;
}

/* yes/no from the environment, else the automatic choice. */
static int
env_auto (const char *name, int automatic)
{
  return env_chosen (name) ? mpe__env_bool (name, automatic) : automatic;
}

int
MPE_Init_log (void)
{
  if (mpe__g.state == 1)
    {
      mpe__g.stopped = 0;
      set_mode ();
      return MPE_LOG_OK;
    }
  mpe__config_load ();
  int inited = 0;
  PMPI_Initialized (&inited);
  if (!inited)
    {
      fprintf (stderr, "mpe: MPE_Init_log called before MPI_Init; "
               "calling MPI_Init\n");
      PMPI_Init (NULL, NULL);
    }
  PMPI_Comm_rank (MPI_COMM_WORLD, &mpe__g.rank);
  PMPI_Comm_size (MPI_COMM_WORLD, &mpe__g.size);
  if (mpe__comm == MPI_COMM_NULL)
    PMPI_Comm_dup (MPI_COMM_WORLD, &mpe__comm);
  mpe__clock_init ();
  /* Ranks of a host share one conversion and are measured as one, unless
   * the test skew hook or MPE_SYNC_SAME_HOST makes each its own host. */
  const char *skew = getenv ("MPE_TEST_CLOCK_SKEW_NS");
  mpe__clock_share ((skew && atoll (skew))
                    || mpe__env_bool ("MPE_SYNC_SAME_HOST", 0));
  mpe__metrics_init ();
  if (skew)
    mpe__g.mono0 += atoll (skew) * (int64_t) (mpe__g.host_leader
                                              ? mpe__g.host_leader[mpe__g.rank]
                                              : mpe__g.rank);
  gethostname (mpe__g.host, sizeof mpe__g.host - 1);

  /* Settings decided by rank 0. */
  int root[5];
  char dir0[sizeof mpe__g.tmp_dir];
  if (mpe__g.rank == 0)
    {
      root[0] = mpe__env_bool ("MPE_LOG_OVERHEAD", 1);
      root[1] = (int) mpe__env_number ("MPE_SYNC_FREQUENCY", 3, 1, 1000000,
                                       "", MPE_ENV_INT);
      root[2] = mpe__env_bool ("MPE_DELETE_LOCALFILE", 1);
      root[3] = mpe__sync_algorithm (getenv ("MPE_SYNC_ALGORITHM"),
                                     mpe__g.size);
      root[4] = mpe__env_bool ("MPE_SAME_TMPDIR", 1);
      snprintf (dir0, sizeof dir0, "%s", mpe__env_tmp_dir ());
      usable_tmp_dir (dir0, sizeof dir0);
    }
  PMPI_Bcast (root, 5, MPI_INT, 0, mpe__comm);
  PMPI_Bcast (dir0, sizeof dir0, MPI_CHAR, 0, mpe__comm);
  mpe__g.log_overhead = root[0];
  mpe__g.sync_freq = root[1];
  mpe__g.delete_local = root[2];
  mpe__g.sync_algo = root[3];
  /* MPE_SAME_TMPDIR (default yes, as MPE2): every rank spills into rank
   * 0's directory; where that directory is not usable (another node),
   * the rank says so and uses its own. */
  char own[sizeof mpe__g.tmp_dir];
  snprintf (own, sizeof own, "%s", mpe__env_tmp_dir ());
  if (root[4] && mpe__g.rank != 0 && dir_takes_files (dir0) != 0)
    {
      usable_tmp_dir (own, sizeof own);
      if (strcmp (dir0, own) != 0)
        fprintf (stderr, "mpe: rank %d: MPE_SAME_TMPDIR: rank 0's directory "
                 "%s is not writable here; using %s\n", mpe__g.rank, dir0,
                 own);
      root[4] = 0;
    }
  if (!root[4])
    usable_tmp_dir (own, sizeof own);
  snprintf (mpe__g.tmp_dir, sizeof mpe__g.tmp_dir, "%s", root[4] ? dir0 : own);
  int *wg = NULL, flag = 0;
  PMPI_Comm_get_attr (MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wg, &flag);
  int sync = mpe__env_bool ("MPE_CLOCKS_SYNC", !(flag && wg && *wg));
  PMPI_Allreduce (&sync, &mpe__g.sync_enabled, 1, MPI_INT, MPI_MAX, mpe__comm);
  mpe__g.spill_fail_hook = mpe__env_bool ("MPE_TEST_SPILL_FAIL", 0);
  mpe__g.region_fail_hook = mpe__env_bool ("MPE_TEST_REGION_FAIL", 0);
  const char *gf = getenv ("MPE_TEST_GATHER_FRAMES");
  mpe__g.gather_frames = gf ? atoi (gf) : 0;
  const char *kis = getenv ("MPE_TEST_KILL_IN_SPILL");
  mpe__g.kill_in_spill = kis ? atol (kis) : 0;
  mpe__spill_drain ();
  int local, local_rank, ncpu;
  node_load (&local, &local_rank, &ncpu);
  /* MPE_SPILL_THREAD, by default write-behind: the logger packs each
   * window while it is in its cache, into frame areas of its ring file,
   * and the spill thread only writes full areas, with direct I/O (next
   * to no CPU).  A buffer sized above the default is there to hold a
   * whole run: the logger spills itself (`no`), and packs none of its
   * first half unless it spills (2 ranks filling 80% of 400 MB: 1.03-1.12x
   * the floor loop paired, against 1.09-1.16x with write-behind).  `yes`,
   * the spill thread packing halves of records, only on request: on a
   * node with a core to spare its loop ran 1.05x the floor against
   * write-behind's 1.10x, but spread over 4.86 ns in 12 runs against
   * 0.21 (the floor's 2.92; bench/mpe-user, 1 rank, 2026-11-28). */
  mpe__g.budget = buffer_budget (local, local_rank);
  const char *st = getenv ("MPE_SPILL_THREAD");
  int wb = st && strcmp (st, "write") == 0;
  int chosen = env_chosen ("MPE_SPILL_THREAD");
  mpe__g.spill_async = !wb && env_auto ("MPE_SPILL_THREAD", 0);
  mpe__g.spill_wb = wb || (!chosen && mpe__g.budget
                                      <= (size_t) BUFFER_MB_DEFAULT * 1048576);
  /* MPE_SAVE_ON_WAIT (see arrival_guard in mpe-merge.c): by default not on
   * an oversubscribed node, where every rank waits at the finish only
   * because it is not scheduled, and saving would cost them all; nor when
   * the buffer is a ring file (decided below). */
  mpe__g.save_on_wait = local <= ncpu;

  if (mpe__g.rank == 0)
    snprintf (mpe__g.runid, sizeof mpe__g.runid, "%llx%05lx",
              (unsigned long long) (mpe__real_ns () / 1000000),
              (long) (getpid () & 0xfffff));
  PMPI_Bcast (mpe__g.runid, sizeof mpe__g.runid, MPI_CHAR, 0, mpe__comm);

  if (mpe__g.rank == 0)
    warn_unwritable_log ();
  mpe__g.merged_name[0] = '\0';
  mpe__g.nsync = 0;
  mpe__g.sync_err_ns = 0;
  atomic_store (&mpe__g.flush_defined, 0);
  mpe__tbuf_reset_all ();
  if (mpe__spill_open () == 0)
    {
      mpe__ring_attach_all ();
      mpe__spill_meta ();
      mpe__defs_respill ();
      mpe__metrics_respill ();
      mpe__comms_reset ();
    }
  mpe__comms_add_world ();
  mpe__crash_install ();
  mpe__sample_init ();
  mpe__plugins_init ();
  mpe__sched_init ();
  mpe_tbuf_t *b0 = mpe__tbuf_create (1);
  if (b0)
    {
      mpe__sample_thread_start (b0->thread);
      mpe__counters_thread (b0->thread);
    }
  /* With a ring file the buffer survives a kill anyway. */
  if (b0 && b0->ring && b0->ring_linked)
    mpe__g.save_on_wait = 0;
  mpe__g.save_on_wait = env_auto ("MPE_SAVE_ON_WAIT", mpe__g.save_on_wait);
  mpe__g.stopped = 0;
  mpe__g.state = 1;
  mpe__sync_run ();
  if (mpe__mon_start (MPI_COMM_WORLD) < 0 && mpe__g.rank == 0)
    fprintf (stderr, "MPE: the live monitor could not start; the job runs "
             "without it\n");
  pthread_mutex_lock (&mpe__g.lock);
  set_mode ();
  pthread_mutex_unlock (&mpe__g.lock);
  return MPE_LOG_OK;
}

int
MPE_Initialized_logging (void)
{
  return mpe__g.state;
}

int
MPE_Start_log (void)
{
  if (mpe__g.state != 1)
    return MPE_LOG_NOT_INITIALIZED;
  pthread_mutex_lock (&mpe__g.lock);
  mpe__g.stopped = 0;
  set_mode ();
  pthread_mutex_unlock (&mpe__g.lock);
  return MPE_LOG_OK;
}

int
MPE_Stop_log (void)
{
  if (mpe__g.state != 1)
    return MPE_LOG_NOT_INITIALIZED;
  pthread_mutex_lock (&mpe__g.lock);
  mpe__g.stopped = 1;
  set_mode ();
  pthread_mutex_unlock (&mpe__g.lock);
  return MPE_LOG_OK;
}

int
MPE_Log_sync_clocks (void)
{
  if (mpe__g.state != 1)
    return MPE_LOG_NOT_INITIALIZED;
  mpe__sync_run ();
  return MPE_LOG_OK;
}

static _Atomic (mpe_finish_hook) finish_hook;

void
mpe__set_finish_hook (mpe_finish_hook hook)
{
  atomic_store (&finish_hook, hook);
}

int
MPE_Finish_log (const char *filename)
{
  if (mpe__g.state != 1)
    return MPE_LOG_OK;
  mpe__mon_finish ();
  mpe_finish_hook hook = atomic_load (&finish_hook);
  if (hook)
    hook ();
  mpe__counters_final ();
  mpe__metrics_final ();
  if (!(filename && *filename) && !mpe__g.default_prefix[0])
    default_prefix (NULL);
  const char *prefix = filename && *filename ? filename
                       : mpe__g.default_prefix;
  mpe__sample_stop ();
  mpe__sched_stop ();
  int rc = mpe__merge (prefix);
  mpe__plugins_finalize ();
  mpe__sched_reset ();
  pthread_mutex_lock (&mpe__g.lock);
  mpe__g.state = 2;
  set_mode ();
  pthread_mutex_unlock (&mpe__g.lock);
  return rc;
}

const char *
MPE_Log_merged_logfilename (void)
{
  return mpe__g.merged_name;
}

/* ------------------------------------------------------------------ */
/* Event numbers                                                       */
/* ------------------------------------------------------------------ */

int
MPE_Log_get_event_number (void)
{
  return atomic_fetch_add (&user_event_next, 1);
}

int
MPE_Log_get_state_eventIDs (int *start_id, int *final_id)
{
  int a = atomic_fetch_add (&user_event_next, 2);
  if (start_id)
    *start_id = a;
  if (final_id)
    *final_id = a + 1;
  return MPE_LOG_OK;
}

int
MPE_Log_get_solo_eventID (int *event_id)
{
  int a = atomic_fetch_add (&user_solo_next, 1);
  if (event_id)
    *event_id = a;
  return MPE_LOG_OK;
}

int
MPE_Log_get_known_eventID (void)
{
  return atomic_fetch_add (&known_event_next, 1);
}

int
MPE_Log_get_known_stateID (void)
{
  return atomic_fetch_add (&known_state_next, 1);
}

int
MPE_Log_get_known_solo_eventID (void)
{
  return atomic_fetch_add (&known_solo_next, 1);
}

/* ------------------------------------------------------------------ */
/* Definitions API                                                     */
/* ------------------------------------------------------------------ */

int
MPE_Describe_comm_state (MPI_Comm comm, int start_id, int final_id,
                         const char *name, const char *color,
                         const char *format)
{
  (void) comm;  /* definitions are global */
  if (mpe__g.state == 0)
    return MPE_LOG_NOT_INITIALIZED;
  mpe__add_def (1, start_id, final_id, name, color, format, 0);
  return MPE_LOG_OK;
}

int
MPE_Describe_state (int start_id, int final_id, const char *name,
                    const char *color)
{
  return MPE_Describe_comm_state (MPI_COMM_WORLD, start_id, final_id, name,
                                  color, NULL);
}

int
MPE_Describe_info_state (int start_id, int final_id, const char *name,
                         const char *color, const char *format)
{
  return MPE_Describe_comm_state (MPI_COMM_WORLD, start_id, final_id, name,
                                  color, format);
}

int
MPE_Describe_comm_event (MPI_Comm comm, int event_id, const char *name,
                         const char *color, const char *format)
{
  (void) comm;
  if (mpe__g.state == 0)
    return MPE_LOG_NOT_INITIALIZED;
  mpe__add_def (0, event_id, 0, name, color, format, 0);
  return MPE_LOG_OK;
}

int
MPE_Describe_event (int event_id, const char *name, const char *color)
{
  return MPE_Describe_comm_event (MPI_COMM_WORLD, event_id, name, color, NULL);
}

int
MPE_Describe_info_event (int event_id, const char *name, const char *color,
                         const char *format)
{
  return MPE_Describe_comm_event (MPI_COMM_WORLD, event_id, name, color,
                                  format);
}

int
mpe__describe_known_state (int start_id, int end_id, const char *name,
                           const char *color, const char *format)
{
  mpe__add_def (1, start_id, end_id, name, color, format, 1);
  int end, fn = mpe__known_fn (start_id, &end);
  if (fn >= 0 && !end && name)
    mpe__metric_describe_fn (fn, name);
  return MPE_LOG_OK;
}

int
mpe__describe_known_event (int event_id, const char *name, const char *color,
                           const char *format)
{
  mpe__add_def (0, event_id, 0, name, color, format, 1);
  return MPE_LOG_OK;
}

int
MPE_Describe_known_state (const CLOG_CommIDs_t *commIDs, int thread,
                          int state_id, int start_id, int final_id,
                          const char *name, const char *color,
                          const char *format)
{
  (void) commIDs; (void) thread; (void) state_id;
  return mpe__describe_known_state (start_id, final_id, name, color, format);
}

int
MPE_Describe_known_event (const CLOG_CommIDs_t *commIDs, int thread,
                          int event_id, const char *name, const char *color,
                          const char *format)
{
  (void) commIDs; (void) thread;
  return mpe__describe_known_event (event_id, name, color, format);
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/* The record writers, out of line so that the API entry points test the
 * mode before any register is saved (a stopped log costs a load and a
 * branch) and reach these by a tail jump. */
static __attribute__ ((noinline)) int
put_bare_any (int32_t id)
{
  mpe__put_nocheck (MPE_REC_BARE, id, NULL);
  return MPE_LOG_OK;
}

/* A bare event in the common case: the thread's gate is open (logging
 * is on with the counter as the clock and no event chosen for metric
 * samples: mpe__gate) with room before it, and no metric sample is
 * due.  Returns
 * 0 when it wrote the record.  The same test as mpe__put_bare_inline in
 * mpe_log.h, which has it for x86-64's TSC only; this one reads any
 * counter, and serves callers built without the header's.  Inlined into
 * the API entry points, which stay frameless: anything else is a tail
 * call.  A stack frame (three saved registers, for the calls of the rare
 * paths) took most of what a record cost above the clock read on an AMD
 * EPYC guest (1 rank
 * unspilled, 13.60 -> 12.41 ns against a floor loop of 12.07); on an
 * Intel Xeon guest the three flags tested apart, and a jump to a
 * separate function, cost about 1.5 ns more (the loop against its floor
 * in the same process, by turns: bench/mpe-user --pair). */
static inline __attribute__ ((always_inline)) int
put_bare_fast (int32_t id)
{
#if MPE_HAVE_COUNTER
  mpe_tbuf_t *b = mpe__tls;
  if (MPE_LIKELY (b != NULL))
    {
      /* The gate: open only while mpe__bare_fast is set (mpe__gate). */
      mpe_rec_t *r = b->pos;
      if (MPE_LIKELY (r < __atomic_load_n (&b->end, __ATOMIC_RELAXED)))
        {
          uint64_t t = mpe_counter_read ();
          if (MPE_LIKELY (t < mpe__mdue))
            {
              r->t = t;
              r->id = id;
              r->aux = MPE_REC_BARE | b->tag;
              MPE_PUBLISH (b->pos, r + 1);
              return 0;
            }
        }
    }
#endif
  (void) id;
  return -1;
}

static __attribute__ ((noinline)) int
put_cargo (int32_t id, const char *bytebuf)
{
  mpe__put_nocheck (MPE_REC_CARGO, id, bytebuf);
  return MPE_LOG_OK;
}

static __attribute__ ((noinline)) int
log_not_on (int kind, int32_t id, const void *ext)
{
  return slow_rc (kind, id, ext);
}

int
MPE_Log_event (int event_id, int data, const char *bytebuf)
{
  (void) data;
  if (MPE_LIKELY (bytebuf == NULL) && put_bare_fast (event_id) == 0)
    return MPE_LOG_OK;
  int mode = atomic_load_explicit (&mpe__mode, memory_order_relaxed);
  if (MPE_LIKELY (mode == 1))
    return bytebuf ? put_cargo (event_id, bytebuf) : put_bare_any (event_id);
  if (mode == 0)
    return mpe__g.state == 1 ? MPE_LOG_OK : MPE_LOG_NOT_INITIALIZED;
  return log_not_on (bytebuf ? MPE_REC_CARGO : MPE_REC_BARE, event_id,
                     bytebuf);
}

int
MPE_Log_bare_event (int event_id)
{
  if (put_bare_fast (event_id) == 0)
    return MPE_LOG_OK;
  int mode = atomic_load_explicit (&mpe__mode, memory_order_relaxed);
  if (MPE_LIKELY (mode == 1))
    return put_bare_any (event_id);
  if (mode == 0)
    return mpe__g.state == 1 ? MPE_LOG_OK : MPE_LOG_NOT_INITIALIZED;
  return log_not_on (MPE_REC_BARE, event_id, NULL);
}

int
MPE_Log_info_event (int event_id, const char *bytebuf)
{
  static const char zero[32];
  return log_rc (MPE_REC_CARGO, event_id, bytebuf ? bytebuf : zero);
}

int
MPE_Log_comm_event (MPI_Comm comm, int event_id, const char *bytebuf)
{
  (void) comm;  /* one timeline per thread, whatever the comm */
  return MPE_Log_event (event_id, 0, bytebuf);
}

/* The wrappers' records also keep the standard metric cells. */
static inline __attribute__ ((always_inline)) void
log_known (int kind, int32_t event_id, const void *ext)
{
  int mode = atomic_load_explicit (&mpe__mode, memory_order_relaxed);
  if (MPE_LIKELY (mode == 1))
    mpe__metric_call (event_id, mpe__put_nocheck (kind, event_id, ext));
  else
    {
      mpe__log_slow (kind, event_id, ext);
      if (mode != 0)
        mpe__metric_call (event_id, mpe__ticks ());
    }
}

void
mpe__log_id (int32_t event_id)
{
  log_known (MPE_REC_BARE, event_id, NULL);
}

/* Only collectives end with cargo (mpe/wrappers/wrap-core.c,
 * wrap_end_coll): its bytes at 12 and 20, big-endian, are coll.bytes. */
static uint64_t
be64 (const unsigned char *p)
{
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | p[i];
  return v;
}

void
mpe__log_id_cargo (int32_t event_id, const void *cargo32)
{
  log_known (MPE_REC_CARGO, event_id, cargo32);
  mpe_mcells_t *c = mpe__mtls;
  if (c && atomic_load_explicit (&mpe__mode, memory_order_relaxed) != 0)
    {
      const unsigned char *b = cargo32;
      if (mpe__mstd_open (c, MPE_MSTD_COLL_CALLS))
        c->std[MPE_MSTD_COLL_CALLS]++;
      if (mpe__mstd_open (c, MPE_MSTD_COLL_BYTES))
        c->std[MPE_MSTD_COLL_BYTES] += (int64_t) (be64 (b + 12)
                                                  + be64 (b + 20));
    }
}

int
MPE_Log_pack (MPE_LOG_BYTES bytebuf, int *position, char tokentype,
              int count, const void *data)
{
  size_t sz;
  switch (tokentype)
    {
    case 'h': sz = 2; break;
    case 'd': case 'x': case 'e': sz = 4; break;
    case 'l': case 'X': case 'E': sz = 8; break;
    case 's': sz = 1; break;
    default:
      fprintf (stderr, "MPE_Log_pack: unknown token type '%c'\n", tokentype);
      return MPE_LOG_PACK_FAIL;
    }
  if (!position || count < 0 || *position < 0 || (count > 0 && !data))
    return MPE_LOG_PACK_FAIL;
  size_t need = tokentype == 's' ? 2 + (size_t) count : sz * (size_t) count;
  if ((size_t) *position + need > MPE_LOG_BYTESIZE)
    return MPE_LOG_PACK_FAIL;
  unsigned char *out = (unsigned char *) bytebuf + *position;
  const unsigned char *in = data;
  if (tokentype == 's')
    {
      out[0] = (unsigned char) ((count >> 8) & 0xff);
      out[1] = (unsigned char) (count & 0xff);
      memcpy (out + 2, in, (size_t) count);
    }
  else
    for (int i = 0; i < count; i++)
      for (size_t k = 0; k < sz; k++)
        {
          /* Big-endian, whatever the host. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
          out[i * sz + k] = in[i * sz + (sz - 1 - k)];
#else
          out[i * sz + k] = in[i * sz + k];
#endif
        }
  *position += (int) need;
  return MPE_LOG_OK;
}

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

static void
log_msg (int kind, MPI_Comm comm, int partner, int tag, uint64_t bytes)
{
  if (atomic_load_explicit (&mpe__mode, memory_order_relaxed) == 0
      || partner == MPI_PROC_NULL)
    return;
  int wp;
  mpe_spill_msg_t m;
  m.comm = mpe__comm_id (comm, partner, &wp);
  m.tag = tag;
  m.size = bytes;
  if (wp < 0)
    return;
  mpe__metric_msg (kind == MPE_REC_SEND, wp, bytes);
  if (kind == MPE_REC_SEND)
    mpe__put (MPE_REC_SEND, wp, &m);
  else
    mpe__put (MPE_REC_RECV, wp, &m);
}

void
mpe__log_send (MPI_Comm comm, int partner, int tag, uint64_t bytes)
{
  log_msg (MPE_REC_SEND, comm, partner, tag, bytes);
}

void
mpe__log_recv (MPI_Comm comm, int partner, int tag, uint64_t bytes)
{
  log_msg (MPE_REC_RECV, comm, partner, tag, bytes);
}

/* Two records, one clock read: ev_id before (ev_first) or after the
 * message record.  Falls back to two ordinary records when logging is not
 * plainly on (off, or the live tap wants each record). */
static inline __attribute__ ((always_inline)) void
log_pair (int kind, int ev_first, int32_t ev_id, MPI_Comm comm, int partner,
          int tag, uint64_t bytes)
{
  if (MPE_UNLIKELY (atomic_load_explicit (&mpe__mode,
                                          memory_order_relaxed) != 1))
    {
      if (ev_first)
        log_known (MPE_REC_BARE, ev_id, NULL);
      log_msg (kind, comm, partner, tag, bytes);
      if (!ev_first)
        log_known (MPE_REC_BARE, ev_id, NULL);
      return;
    }
  int wp = -1;
  mpe_spill_msg_t m;
  if (MPE_LIKELY (comm == MPI_COMM_WORLD))
    {
      wp = partner;
      m.comm = 0;
    }
  else if (partner != MPI_PROC_NULL)
    m.comm = mpe__comm_id (comm, partner, &wp);
  if (MPE_UNLIKELY (wp < 0))
    {
      mpe__metric_call (ev_id, mpe__put_nocheck (MPE_REC_BARE, ev_id, NULL));
      return;
    }
  m.tag = tag;
  m.size = bytes;
  mpe_tbuf_t *b = mpe__tls;
  if (MPE_UNLIKELY (b == NULL))
    b = mpe__tbuf_create (0);
  if (MPE_UNLIKELY (b == NULL))
    return;
  /* b->wend leaves 8 slots after the last start: room for these 3. */
  mpe_rec_t *r = b->pos;
  if (MPE_UNLIKELY (r >= b->wend))
    r = mpe__tbuf_full (b);
  uint64_t t = mpe__ticks ();
  mpe_rec_t *e = ev_first ? r : r + 2, *msg = ev_first ? r + 1 : r;
  e->t = t;
  e->id = ev_id;
  e->aux = MPE_REC_BARE | b->tag;
  msg->t = t;
  msg->id = wp;
  msg->aux = (uint32_t) kind | b->tag;
  memcpy (msg + 1, &m, 16);
  MPE_PUBLISH (b->pos, r + 3);
  mpe__metric_call (ev_id, t);
  mpe__metric_msg (kind == MPE_REC_SEND, wp, bytes);
  if (MPE_UNLIKELY (t >= mpe__mdue))
    mpe__metric_due (t);
  if (MPE_UNLIKELY (mpe__mon_n != 0))
    mpe__metric_on (ev_id);
}

void
mpe__log_begin_send (int32_t begin_id, MPI_Comm comm, int partner, int tag,
                     uint64_t bytes)
{
  log_pair (MPE_REC_SEND, 1, begin_id, comm, partner, tag, bytes);
}

void
mpe__log_recv_end (MPI_Comm comm, int partner, int tag, uint64_t bytes,
                   int32_t end_id)
{
  log_pair (MPE_REC_RECV, 0, end_id, comm, partner, tag, bytes);
}

static int
msg_rc (int kind, MPI_Comm comm, int partner, int tag, int size)
{
  if (mpe__g.state != 1)
    return MPE_LOG_NOT_INITIALIZED;
  log_msg (kind, comm, partner, tag, size < 0 ? 0 : (uint64_t) size);
  return MPE_LOG_OK;
}

int
MPE_Log_send (int receiver, int tag, int size)
{
  return msg_rc (MPE_REC_SEND, MPI_COMM_WORLD, receiver, tag, size);
}

int
MPE_Log_receive (int sender, int tag, int size)
{
  return msg_rc (MPE_REC_RECV, MPI_COMM_WORLD, sender, tag, size);
}

int
MPE_Log_comm_send (MPI_Comm comm, int receiver, int tag, int size)
{
  return msg_rc (MPE_REC_SEND, comm, receiver, tag, size);
}

int
MPE_Log_comm_receive (MPI_Comm comm, int sender, int tag, int size)
{
  return msg_rc (MPE_REC_RECV, comm, sender, tag, size);
}

/* MPE2's commIDs entry points: the comm handle is in the struct. */
int
MPE_Log_commIDs_intracomm (const CLOG_CommIDs_t *commIDs, int thread,
                           int comm_etype, const CLOG_CommIDs_t *intracommIDs)
{
  (void) commIDs; (void) thread; (void) comm_etype;
  if (intracommIDs)
    mpe__comm_created (intracommIDs->comm);
  return MPE_LOG_OK;
}

int
MPE_Log_commIDs_nullcomm (const CLOG_CommIDs_t *commIDs, int thread,
                          int comm_etype)
{
  (void) commIDs; (void) thread; (void) comm_etype;
  return MPE_LOG_OK;
}

int
MPE_Log_commIDs_intercomm (const CLOG_CommIDs_t *commIDs, int thread,
                           int comm_etype, const CLOG_CommIDs_t *intercommIDs)
{
  (void) commIDs; (void) thread; (void) comm_etype;
  if (intercommIDs)
    mpe__comm_created (intercommIDs->comm);
  return MPE_LOG_OK;
}

int
MPE_Log_commIDs_send (const CLOG_CommIDs_t *commIDs, int thread,
                      int receiver, int tag, int size)
{
  (void) thread;
  return msg_rc (MPE_REC_SEND, commIDs ? commIDs->comm : MPI_COMM_WORLD,
                 receiver, tag, size);
}

int
MPE_Log_commIDs_receive (const CLOG_CommIDs_t *commIDs, int thread,
                         int sender, int tag, int size)
{
  (void) thread;
  return msg_rc (MPE_REC_RECV, commIDs ? commIDs->comm : MPI_COMM_WORLD,
                 sender, tag, size);
}

int
MPE_Log_commIDs_event (const CLOG_CommIDs_t *commIDs, int thread,
                       int event_id, const char *bytebuf)
{
  (void) commIDs; (void) thread;
  return MPE_Log_event (event_id, 0, bytebuf);
}

/* ------------------------------------------------------------------ */
/* Threads and the wrapper contract                                    */
/* ------------------------------------------------------------------ */

void
MPE_Log_thread_sync (int local_thread_count)
{
  (void) local_thread_count;  /* the merge counts threads itself */
}

int
MPE_Log_thread_id (void)
{
  mpe_tbuf_t *b = mpe__tls ? mpe__tls : mpe__tbuf_create (0);
  return b ? b->thread : -1;
}

/* The log's default name: the program's base name, in the current
 * directory (argv[0]'s, else the executable's: Fortran passes no argv).
 * Not argv[0] itself, whose directory may be anywhere (../../prog,
 * /usr/bin/prog). */
static void
default_prefix (const char *argv0)
{
  char exe[4096];
  const char *p = argv0;
  if (!p || !*p)
    {
      ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
      exe[n > 0 ? n : 0] = '\0';
      p = exe;
    }
  const char *slash = strrchr (p, '/');
  if (slash)
    p = slash + 1;
  snprintf (mpe__g.default_prefix, sizeof mpe__g.default_prefix, "%s",
            *p && strcmp (p, ".") && strcmp (p, "..") ? p : "Unknown");
}

int
mpe__wrap_init (int *argc, char ***argv)
{
  (void) argc;
  default_prefix (argv && *argv ? (*argv)[0] : NULL);
  return MPE_Init_log ();
}

int
mpe__wrap_finalize (void)
{
  if (mpe__g.state != 1)
    return MPE_LOG_OK;
  return MPE_Finish_log (NULL);
}
