/* SPDX-License-Identifier: BSD-3-Clause */
/* The local spill file (mpe-<run>-<rank>-<pid>.spill): its name and
 * directory, the ring files' names, frames written into it. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpe-internal.h"

const char *
mpe__env_tmp_dir (void)
{
  return mpe_spill_default_dir ();
}

/* What earlier runs left in this run's directories: files of processes
 * that died without finishing their log (at the next start, rank 0 says
 * so; the ring files alone hold 32 MB and more each, in memory). */
typedef struct
{
  unsigned spills, rings;
  uint64_t spill_bytes, ring_bytes;
} leftover_t;

static int
pid_dead (long pid)
{
  return pid > 0 && kill ((pid_t) pid, 0) != 0 && errno == ESRCH;
}

/* Whether path's directory is dir. */
static int
in_dir (const char *path, const char *dir)
{
  size_t dl = strlen (dir);
  while (dl > 1 && dir[dl - 1] == '/')
    dl--;
  const char *slash = strrchr (path, '/');
  return slash && (size_t) (slash - path) == dl && !strncmp (path, dir, dl);
}

/* Ring files of processes that died and whose spill file is gone can
 * never be recovered: they would only hold memory in /dev/shm.  Removes
 * them (the header names the spill file; a ring we cannot read as one is
 * left alone), and counts in *left those whose spill file is in this
 * run's spill directory. */
static void
ring_sweep (const char *ring_dir, leftover_t *left)
{
  DIR *d = opendir (ring_dir);
  if (!d)
    return;
  struct dirent *de;
  size_t pl = strlen (MPE_SPILL_NAME_PREFIX), sl = strlen (MPE_RING_SUFFIX);
  while ((de = readdir (d)))
    {
      /* mpe-<run>-<rank>-<pid>.t<thread>.ring */
      const char *n = de->d_name;
      size_t len = strlen (n);
      if (strncmp (n, MPE_SPILL_NAME_PREFIX, pl) != 0 || len <= pl + sl
          || strcmp (n + len - sl, MPE_RING_SUFFIX) != 0)
        continue;
      const char *dot = strstr (n, ".t");
      const char *dash = dot ? memrchr (n, '-', (size_t) (dot - n)) : NULL;
      if (!dash)
        continue;
      long pid = strtol (dash + 1, NULL, 10);
      if (!pid_dead (pid))
        continue;
      char ring[8192];
      snprintf (ring, sizeof ring, "%s/%s", ring_dir, n);
      int fd = open (ring, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      mpe_ring_header_t h;
      struct stat st;
      ssize_t got = pread (fd, &h, sizeof h, 0);
      int have_st = fstat (fd, &st) == 0;
      close (fd);
      if (got != (ssize_t) sizeof h || memcmp (h.magic, MPE_RING_MAGIC, 8)
          || !h.spill[0] || memchr (h.spill, 0, sizeof h.spill) == NULL)
        continue;
      if (access (h.spill, F_OK) != 0 && errno == ENOENT)
        unlink (ring);
      else if (have_st && in_dir (h.spill, mpe__g.tmp_dir))
        {
          left->rings++;
          left->ring_bytes += (uint64_t) st.st_blocks * 512;
        }
    }
  closedir (d);
}

/* Whether the spill file at fd ends with an END frame: a run that
 * finished and kept its files on purpose (MPE_DELETE_LOCALFILE=no). */
static int
spill_ended (int fd, off_t size)
{
  mpe_spill_frame_t h;
  return size >= (off_t) (MPE_SPILL_HEADER_SIZE + sizeof h)
         && pread (fd, &h, sizeof h, size - (off_t) sizeof h)
            == (ssize_t) sizeof h
         && h.magic == MPE_SPILL_FRAME_MAGIC && h.type == MPE_SPILL_END
         && h.len == 0;
}

static void
spill_leftovers (leftover_t *left)
{
  DIR *d = opendir (mpe__g.tmp_dir);
  if (!d)
    return;
  struct dirent *de;
  size_t pl = strlen (MPE_SPILL_NAME_PREFIX);
  size_t sl = strlen (MPE_SPILL_NAME_SUFFIX);
  while ((de = readdir (d)))
    {
      /* mpe-<run>-<rank>-<pid>.spill */
      const char *n = de->d_name;
      size_t len = strlen (n);
      if (strncmp (n, MPE_SPILL_NAME_PREFIX, pl) != 0 || len <= pl + sl
          || strcmp (n + len - sl, MPE_SPILL_NAME_SUFFIX) != 0)
        continue;
      const char *dash = memrchr (n, '-', len - sl);
      if (!dash || !pid_dead (strtol (dash + 1, NULL, 10)))
        continue;
      char path[8192];
      snprintf (path, sizeof path, "%s/%s", mpe__g.tmp_dir, n);
      int fd = open (path, O_RDONLY | O_CLOEXEC);
      struct stat st;
      if (fd < 0)
        continue;
      if (fstat (fd, &st) == 0 && !spill_ended (fd, st.st_size))
        {
          left->spills++;
          left->spill_bytes += (uint64_t) st.st_size;
        }
      close (fd);
    }
  closedir (d);
}

static void
leftover_notice (const leftover_t *left, const char *ring_dir)
{
  if (mpe__g.rank != 0 || !left->spills)
    return;
  char rings[4096 + 64] = "";
  if (left->rings)
    snprintf (rings, sizeof rings, " and %u ring file(s) in %s (%.1f MB "
              "of memory)", left->rings, ring_dir,
              (double) left->ring_bytes / 1048576.0);
  fprintf (stderr, "mpe: %s holds the local files of %u process(es) of "
           "earlier runs that did not finish their log (%.1f MB)%s: "
           "`clogtool recover --list %s` shows them, `clogtool recover "
           "--run ID %s` rebuilds a log and with --clean removes its "
           "files\n", mpe__g.tmp_dir, left->spills,
           (double) left->spill_bytes / 1048576.0, rings, mpe__g.tmp_dir,
           mpe__g.tmp_dir);
}

/* MPE_RING_DIR: where the ring files go; "none" keeps the buffers in
 * anonymous memory.  Default /dev/shm (memory: nothing is written to a
 * disk during the run), else the spill directory. */
static void
ring_setup (void)
{
  const char *d = getenv ("MPE_RING_DIR");
  mpe__g.ring_off = d && (!strcmp (d, "none") || !strcmp (d, "no")
                          || !strcmp (d, "off"));
  if (!d || !*d)
    d = access ("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : mpe__g.tmp_dir;
  leftover_t left = { 0 };
  if (mpe__g.rank == 0)
    spill_leftovers (&left);
  if (mpe__g.ring_off)
    mpe__g.ring_prefix[0] = '\0';
  else
    {
      ring_sweep (d, &left);
      snprintf (mpe__g.ring_prefix, sizeof mpe__g.ring_prefix,
              "%s/" MPE_SPILL_NAME_PREFIX "%s-%06d-%ld", d, mpe__g.runid,
              mpe__g.rank, (long) getpid ());
    }
  leftover_notice (&left, d);
}

int
mpe__spill_open (void)
{
  snprintf (mpe__g.spill_path, sizeof mpe__g.spill_path,
            "%s/" MPE_SPILL_NAME_PREFIX "%s-%06d-%ld" MPE_SPILL_NAME_SUFFIX,
            mpe__g.tmp_dir, mpe__g.runid, mpe__g.rank, (long) getpid ());
  ring_setup ();
  int fd = open (mpe__g.spill_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
                 0600);
  if (fd < 0)
    {
      fprintf (stderr, "mpe: rank %d: cannot create %s: %s\n", mpe__g.rank,
               mpe__g.spill_path, strerror (errno));
      mpe__g.ring_prefix[0] = '\0';  /* nothing could tell where it is */
      return -1;
    }
  unsigned char hdr[MPE_SPILL_HEADER_SIZE] = { 0 };
  memcpy (hdr, MPE_SPILL_MAGIC, 8);
  uint32_t v = MPE_SPILL_VERSION, hs = MPE_SPILL_HEADER_SIZE;
  memcpy (hdr + 8, &v, 4);
  memcpy (hdr + 12, &hs, 4);
  if (pwrite (fd, hdr, sizeof hdr, 0) != (ssize_t) sizeof hdr)
    {
      close (fd);
      unlink (mpe__g.spill_path);
      mpe__g.ring_prefix[0] = '\0';
      return -1;
    }
  atomic_store (&mpe__g.spill_off, MPE_SPILL_HEADER_SIZE);
  mpe__g.memory_saved_at = 0;
  mpe__g.spill_fd = fd;
  /* Write-behind writes with direct I/O where the file system takes it
   * (MPE_SPILL_DIRECT, default yes): the spill thread then costs the
   * node's busy cores next to nothing, where a write through the page
   * cache copies every byte (0.3 ns a byte here). */
  mpe__g.spill_dfd = -1;
  if (mpe__g.spill_wb && mpe__env_bool ("MPE_SPILL_DIRECT", 1))
    mpe__g.spill_dfd = open (mpe__g.spill_path,
                             O_WRONLY | O_DIRECT | O_CLOEXEC);
  return 0;
}

void
mpe__spill_close (int remove_file)
{
  mpe__ring_detach_all ();
  if (mpe__g.spill_dfd >= 0)
    close (mpe__g.spill_dfd);
  mpe__g.spill_dfd = -1;
  if (mpe__g.spill_fd < 0)
    return;
  close (mpe__g.spill_fd);
  mpe__g.spill_fd = -1;
  if (remove_file)
    unlink (mpe__g.spill_path);
}

/* A failed finish: the spill file and the ring files stay where
 * `clogtool recover` finds them. */
void
mpe__spill_keep (void)
{
  mpe__ring_keep_all ();
  if (mpe__g.spill_dfd >= 0)
    close (mpe__g.spill_dfd);
  mpe__g.spill_dfd = -1;
  if (mpe__g.spill_fd < 0)
    return;
  /* The run finished but its log could not be written: recover says so
   * rather than "crashed". */
  mpe__spill_frame (MPE_SPILL_FAILED, 0, NULL, 0);
  fsync (mpe__g.spill_fd);
  close (mpe__g.spill_fd);
  mpe__g.spill_fd = -1;
}

static int
pwrite_some (int fd, const void *p, size_t len, uint64_t off, size_t *done)
{
  const char *c = p;
  *done = 0;
  while (len)
    {
      ssize_t w = pwrite (fd, c, len, (off_t) off);
      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          return -errno;
        }
      if (w == 0)
        return -ENOSPC;
      c += w;
      len -= (size_t) w;
      off += (uint64_t) w;
      *done += (size_t) w;
    }
  return 0;
}

static int
pwrite_all (int fd, const void *p, size_t len, uint64_t off)
{
  size_t done;
  return pwrite_some (fd, p, len, off, &done);
}

/* Async-signal-safe: an atomic offset reservation and pwrite. */
int
mpe__spill_frame (int type, int thread, const void *p, size_t len)
{
  int fd = mpe__g.spill_fd;
  if (fd < 0)
    return -EBADF;
  if (type == MPE_SPILL_PACKED && mpe__g.spill_fail_hook)
    return -ENOSPC;
  uint64_t padded = mpe_spill_pad8 (len);
  uint64_t off = atomic_fetch_add (&mpe__g.spill_off,
                                   sizeof (mpe_spill_frame_t) + padded);
  mpe_spill_frame_t h = { MPE_SPILL_FRAME_MAGIC, (uint16_t) type,
                          (uint16_t) thread, (uint32_t) len,
                          mpe_spill_sum (p, len) };
  int rc = pwrite_all (fd, &h, sizeof h, off);
  if (rc == 0)
    rc = pwrite_all (fd, p, len, off + sizeof h);
  if (rc == 0 && padded > len)
    {
      static const char zeros[8];
      rc = pwrite_all (fd, zeros, padded - len, off + sizeof h + len);
    }
  return rc;
}

/* Frames built in memory (header, payload, padding each), in one write
 * at a reserved offset. */
int
mpe__spill_frames (const void *frames, size_t len, size_t *done)
{
  int fd = mpe__g.spill_fd;
  *done = 0;
  if (fd < 0)
    return -EBADF;
  if (mpe__g.spill_fail_hook)
    return -ENOSPC;
  uint64_t off = atomic_fetch_add (&mpe__g.spill_off, len);
  return pwrite_some (fd, frames, len, off, done);
}

size_t
mpe__frame_seal (unsigned char *p, int type, int thread, size_t len)
{
  unsigned char *pay = p + sizeof (mpe_spill_frame_t);
  mpe_spill_frame_t h = { MPE_SPILL_FRAME_MAGIC, (uint16_t) type,
                          (uint16_t) thread, (uint32_t) len,
                          mpe_spill_sum (pay, len) };
  memcpy (p, &h, sizeof h);
  memset (pay + len, 0, mpe_spill_pad8 (len) - len);
  return sizeof h + mpe_spill_pad8 (len);
}

/* A PAD frame of `len` bytes (a multiple of 8, at least a header's) at p:
 * a header and zeros. */
static void
pad_frame (unsigned char *p, size_t len)
{
  size_t pay = len - sizeof (mpe_spill_frame_t);
  memset (p + sizeof (mpe_spill_frame_t), 0, pay);
  mpe__frame_seal (p, MPE_SPILL_PAD, 0, pay);
}

int
mpe__spill_frames_direct (unsigned char *frames, size_t len, size_t cap,
                          size_t *done)
{
  int dfd = mpe__g.spill_dfd;
  *done = 0;
  if (dfd < 0 || mpe__g.spill_fail_hook)
    return mpe__spill_frames (frames, len, done);
  /* The frames, then a PAD frame to the block's end (a whole block more
   * where less than a header is left). */
  size_t total = mpe__dio_up (len);
  if (total != len && total - len < sizeof (mpe_spill_frame_t))
    total += MPE_DIO_ALIGN;
  if (total > cap)
    return mpe__spill_frames (frames, len, done);
  if (total > len)
    pad_frame (frames + len, total - len);
  /* A block-aligned place after the frames before it, the gap between
   * them a PAD frame written through the page cache (its page is the
   * last frame's, there already). */
  uint64_t old = atomic_load (&mpe__g.spill_off), at;
  do
    {
      at = mpe__dio_up (old);
      if (at != old && at - old < sizeof (mpe_spill_frame_t))
        at += MPE_DIO_ALIGN;
    }
  while (!atomic_compare_exchange_weak (&mpe__g.spill_off, &old, at + total));
  if (at > old)
    {
      unsigned char gap[MPE_DIO_ALIGN + 16];
      pad_frame (gap, at - old);
      int rc = pwrite_all (mpe__g.spill_fd, gap, at - old, old);
      if (rc != 0)
        return rc;
    }
  size_t wrote;
  int rc = pwrite_some (dfd, frames, total, at, &wrote);
  if (rc == -EINVAL && wrote == 0)
    {
      /* The file system takes no direct I/O after all: through the page
       * cache, here and from now on. */
      mpe__g.spill_dfd = -1;
      close (dfd);
      rc = pwrite_some (mpe__g.spill_fd, frames, total, at, &wrote);
    }
  *done = wrote < len ? wrote : len;
  return rc;
}

/* The record families asked for that stay in process memory until the
 * merge (a recovered log cannot have them): recover names them. */
static void
memonly_list (char *out, size_t len)
{
  const char *hz = getenv ("MPE_SAMPLE_HZ");
  struct { int on; const char *name; } f[] = {
    { hz && atol (hz) > 0, "samples" },
    { mpe__env_bool ("MPE_SCHED", 0), "sched" },
    { mpe__env_bool ("MPE_MEMORY", 0), "memory" },
    { mpe__env_bool ("MPE_NETWORK", 0), "network" },
  };
  size_t n = 0;
  out[0] = '\0';
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (f[i].on && n + strlen (f[i].name) + 2 < len)
      n += (size_t) snprintf (out + n, len - n, "%s%s", n ? "," : "",
                              f[i].name);
}

void
mpe__spill_meta (void)
{
  char buf[2048], memonly[128];
  memonly_list (memonly, sizeof memonly);
  int n = snprintf (buf, sizeof buf,
                    "rank %d\nsize %d\npid %ld\nhost %s\nrunid %s\n"
                    "clock %s\ntick0 %llu\nmult %.17g\nmult_fp %llu\n"
                    "mono0 %lld\nreal0 %lld\nring %s\nmemonly %s\n"
                    "creator mpe " PACKAGE_VERSION "\n",
                    mpe__g.rank, mpe__g.size, (long) getpid (), mpe__g.host,
                    mpe__g.runid, mpe__use_counter ? MPE_COUNTER_NAME : "mono",
                    (unsigned long long) mpe__g.tick0, mpe__g.mult,
                    (unsigned long long) mpe__g.mult_fp,
                    (long long) mpe__g.mono0, (long long) mpe__g.real0,
                    mpe__g.ring_prefix[0] ? mpe__g.ring_prefix : "none",
                    memonly[0] ? memonly : "none");
  if (n > 0)
    mpe__spill_frame (MPE_SPILL_META, 0, buf, (size_t) n);
}
