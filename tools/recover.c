/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clogtool recover: rebuilds a .clog file from the spill files that the
 * processes of a crashed MPE run left behind (format: mpe/src/mpe-spill.h).
 *
 *   clogtool recover [-o OUT.clog] [--run ID] DIR | PREFIX
 *
 * DIR: the newest run among DIR/mpe-<run>-<rank>-<pid>.spill (or --run).
 * PREFIX: every spill file whose path starts with PREFIX.
 * Times are corrected with the clock sync points each rank recorded; the
 * writer matches messages.  Prints what was recovered and what is missing.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <logfmt/logfmt.h>
#include "clogtool.h"
#include "mpe/src/mpe-spill.h"

typedef struct
{
  uint16_t type, thread;
  uint32_t len;
  uint64_t off;
} frame_t;

typedef struct
{
  char     *path;
  FILE     *f;
  int       rank, size, ended;
  long      pid;
  char      host[256];
  uint64_t  tick0, mult_fp;
  int64_t   mono0, real0;
  int       have_meta;
  frame_t  *frames;
  size_t    nframes;
  int64_t  *sync_l, *sync_off;
  int       nsync;
  int       nthreads;
  uint32_t  first_stream;
  uint64_t  events, raw_events, ring_events, bad_frames;
  char      ring[4096];   /* ring file prefix, "" when none */
} spill_t;

static void
usage (FILE *out)
{
  fprintf (out,
           "usage: clogtool recover [-o OUT.clog] [--run ID] [--clean] "
           "DIR|PREFIX\n"
           "Rebuilds a .clog from the local spill files of a crashed MPE run.\n"
           "  DIR     directory holding mpe-<run>-<rank>-<pid>.spill files\n"
           "          (the newest run, or the one given with --run)\n"
           "  PREFIX  every spill file whose path starts with PREFIX\n"
           "  -o FILE output (default: recovered.clog)\n"
           "  --clean once OUT is written, remove the spill files and the\n"
           "          ring files (in /dev/shm by default) they point to\n");
}

static int
read_at (FILE *f, uint64_t off, void *buf, size_t len)
{
  if (fseeko (f, (off_t) off, SEEK_SET) != 0)
    return -1;
  return fread (buf, 1, len, f) == len ? 0 : -1;
}

static void
parse_meta (spill_t *s, char *text)
{
  for (char *line = strtok (text, "\n"); line; line = strtok (NULL, "\n"))
    {
      char *sp = strchr (line, ' ');
      if (!sp)
        continue;
      *sp = '\0';
      const char *v = sp + 1;
      if (!strcmp (line, "rank")) s->rank = atoi (v);
      else if (!strcmp (line, "size")) s->size = atoi (v);
      else if (!strcmp (line, "pid")) s->pid = atol (v);
      else if (!strcmp (line, "host"))
        snprintf (s->host, sizeof s->host, "%s", v);
      else if (!strcmp (line, "tick0")) s->tick0 = strtoull (v, NULL, 10);
      else if (!strcmp (line, "mult_fp")) s->mult_fp = strtoull (v, NULL, 10);
      else if (!strcmp (line, "mono0")) s->mono0 = strtoll (v, NULL, 10);
      else if (!strcmp (line, "real0")) s->real0 = strtoll (v, NULL, 10);
      else if (!strcmp (line, "ring") && strcmp (v, "none") != 0)
        snprintf (s->ring, sizeof s->ring, "%s", v);
    }
  s->have_meta = 1;
}

/* Reads the frame list; skips damaged stretches to the next good frame. */
static int
scan_file (spill_t *s)
{
  s->f = fopen (s->path, "rb");
  if (!s->f)
    {
      fprintf (stderr, "clogtool recover: %s: %s\n", s->path, strerror (errno));
      return -1;
    }
  char hdr[MPE_SPILL_HEADER_SIZE];
  if (read_at (s->f, 0, hdr, sizeof hdr) != 0
      || memcmp (hdr, MPE_SPILL_MAGIC, 8) != 0)
    {
      fprintf (stderr, "clogtool recover: %s: not an MPE spill file\n",
               s->path);
      return -1;
    }
  struct stat st;
  fstat (fileno (s->f), &st);
  uint64_t end = (uint64_t) st.st_size, off = MPE_SPILL_HEADER_SIZE;
  size_t cap = 0;
  void *buf = NULL;
  size_t bufcap = 0;
  while (off + sizeof (mpe_spill_frame_t) <= end)
    {
      mpe_spill_frame_t h;
      int good = read_at (s->f, off, &h, sizeof h) == 0
                 && h.magic == MPE_SPILL_FRAME_MAGIC
                 && h.len <= end - off - sizeof h;
      if (good)
        {
          if (h.len > bufcap)
            {
              void *nb = realloc (buf, h.len);
              if (!nb)
                break;
              buf = nb;
              bufcap = h.len;
            }
          good = read_at (s->f, off + sizeof h, buf, h.len) == 0
                 && mpe_spill_sum (buf, h.len) == h.sum;
        }
      if (!good)
        {
          s->bad_frames++;
          off += 8;
          /* Find the next aligned frame magic. */
          while (off + sizeof h <= end)
            {
              uint32_t m;
              if (read_at (s->f, off, &m, 4) != 0)
                break;
              if (m == MPE_SPILL_FRAME_MAGIC)
                break;
              off += 8;
            }
          continue;
        }
      if (h.type == MPE_SPILL_META)
        {
          char *t = malloc (h.len + 1);
          if (t)
            {
              memcpy (t, buf, h.len);
              t[h.len] = '\0';
              parse_meta (s, t);
              free (t);
            }
        }
      else if (h.type == MPE_SPILL_SYNC && h.len == 16)
        {
          int64_t v[2];
          memcpy (v, buf, 16);
          s->sync_l = realloc (s->sync_l, (size_t) (s->nsync + 1) * 8);
          s->sync_off = realloc (s->sync_off, (size_t) (s->nsync + 1) * 8);
          s->sync_l[s->nsync] = v[0];
          s->sync_off[s->nsync] = v[1];
          s->nsync++;
        }
      else if (h.type == MPE_SPILL_END)
        s->ended = 1;
      if (h.type == MPE_SPILL_BLOCK || h.type == MPE_SPILL_RAW
          || h.type == MPE_SPILL_PACKED)
        if (h.thread + 1 > s->nthreads)
          s->nthreads = h.thread + 1;
      if (s->nframes == cap)
        {
          cap = cap ? 2 * cap : 256;
          s->frames = realloc (s->frames, cap * sizeof *s->frames);
        }
      s->frames[s->nframes++] = (frame_t) { h.type, h.thread, h.len,
                                            off + sizeof h };
      off += sizeof h + mpe_spill_pad8 (h.len);
    }
  free (buf);
  if (!s->have_meta)
    {
      fprintf (stderr, "clogtool recover: %s: no metadata frame\n", s->path);
      return -1;
    }
  /* Threads that never spilled have only a ring file. */
  if (!s->ended && s->ring[0])
    for (int t = 0; t < s->nthreads + 64; t++)
      {
        char rp[8192];
        snprintf (rp, sizeof rp, "%s.t%d%s", s->ring, t, MPE_RING_SUFFIX);
        if (access (rp, R_OK) == 0 && t + 1 > s->nthreads)
          s->nthreads = t + 1;
      }
  if (s->nthreads == 0)
    s->nthreads = 1;
  return 0;
}

static int64_t
corrected (const spill_t *s, uint64_t l)
{
  int64_t off = 0;
  int n = s->nsync;
  if (n == 1 || (n > 1 && (int64_t) l <= s->sync_l[0]))
    off = s->sync_off[0];
  else if (n > 1 && (int64_t) l >= s->sync_l[n - 1])
    off = s->sync_off[n - 1];
  else if (n > 1)
    for (int i = 0; i + 1 < n; i++)
      if ((int64_t) l >= s->sync_l[i] && (int64_t) l <= s->sync_l[i + 1])
        {
          int64_t span = s->sync_l[i + 1] - s->sync_l[i];
          off = span <= 0 ? s->sync_off[i + 1]
                : s->sync_off[i]
                  + (int64_t) ((long double) (s->sync_off[i + 1]
                                              - s->sync_off[i])
                               * ((int64_t) l - s->sync_l[i]) / span);
          break;
        }
  return s->mono0 + (int64_t) l + off;
}

static int
add_defs (logfmt_writer_t *w, spill_t *s)
{
  for (size_t i = 0; i < s->nframes; i++)
    {
      frame_t *fr = &s->frames[i];
      if (fr->type != MPE_SPILL_STATE && fr->type != MPE_SPILL_EVENT
          && fr->type != MPE_SPILL_COMM)
        continue;
      char *t = malloc (fr->len + 1);
      if (!t || read_at (s->f, fr->off, t, fr->len) != 0)
        {
          free (t);
          continue;
        }
      t[fr->len] = '\0';
      if (fr->type == MPE_SPILL_COMM && fr->len >= 12)
        {
          logfmt_comm_def_t d;
          memcpy (&d.id, t, 4);
          memcpy (&d.kind, t + 4, 4);
          memcpy (&d.size, t + 8, 4);
          if ((uint64_t) d.size * 4 + 12 < fr->len)
            {
              d.ranks = (const int32_t *) (void *) (t + 12);
              d.name = t + 12 + (size_t) d.size * 4;
              if (!*d.name)
                d.name = NULL;
              logfmt_writer_add_comm (w, &d);
            }
          free (t);
          continue;
        }
      char *f[4] = { NULL, NULL, NULL, NULL };
      int nf = 0;
      for (char *p = t; nf < 4; nf++)
        {
          f[nf] = p;
          char *tab = strchr (p, '\t');
          if (!tab)
            {
              nf++;
              break;
            }
          *tab = '\0';
          p = tab + 1;
        }
      if (nf == 4)
        {
          if (fr->type == MPE_SPILL_STATE)
            {
              logfmt_state_def_t d = { 0 };
              if (sscanf (f[0], "%d %d", &d.start_id, &d.end_id) == 2)
                {
                  d.name = f[1];
                  d.color = f[2];
                  d.format = *f[3] ? f[3] : NULL;
                  logfmt_color_lookup (d.color, &d.rgb);
                  logfmt_writer_add_state (w, &d);
                }
            }
          else
            {
              logfmt_event_def_t d = { 0 };
              d.id = atoi (f[0]);
              d.name = f[1];
              d.color = f[2];
              d.format = *f[3] ? f[3] : NULL;
              logfmt_color_lookup (d.color, &d.rgb);
              logfmt_writer_add_event_def (w, &d);
            }
        }
      free (t);
    }
  return 0;
}

static int
emit (logfmt_writer_t *w, spill_t *s, uint32_t stream, logfmt_event_t *ev,
      size_t n, int64_t G)
{
  for (size_t i = 0; i < n; i++)
    {
      int64_t t = corrected (s, ev[i].time) - G;
      ev[i].time = t < 0 ? 0 : (uint64_t) t;
    }
  s->events += n;
  return logfmt_writer_event (w, stream, ev, n);
}

/* What a thread's spilled events end with: the ring's copies of them are
 * skipped (a spill cut short, or the crash handler's RAW frames). */
typedef struct
{
  int      any;
  uint64_t last;      /* local ns of the last event */
  uint64_t at_last;   /* events with that time */
} spilled_t;

static void
note_spilled (spilled_t *sp, const logfmt_event_t *ev, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!sp->any || ev[i].time > sp->last)
      {
        sp->any = 1;
        sp->last = ev[i].time;
        sp->at_last = 1;
      }
    else if (ev[i].time == sp->last)
      sp->at_last++;
}

/* The records of one part of a ring that belong to its current round. */
static size_t
ring_part_valid (const mpe_spill_rec_t *r, size_t n, uint32_t tag)
{
  size_t i = 0;
  uint64_t prev = 0;
  while (i < n)
    {
      uint32_t kind = r[i].aux & 0xffu;
      if ((r[i].aux & ~0xffu) != tag || kind > MPE_REC_LOSS || r[i].t < prev)
        break;
      size_t next = i + 1 + mpe_spill_rec_ext (r[i].aux);
      if (next > n)
        break;
      prev = r[i].t;
      i = next;
    }
  return i;
}

/* Adds what thread's ring file holds beyond the spilled events. */
static int
emit_ring (logfmt_writer_t *w, spill_t *s, int thread, uint32_t stream,
           int64_t G, spilled_t *sp, logfmt_event_t *batch)
{
  if (s->ended || !s->ring[0])
    return 0;
  char path[8192];
  snprintf (path, sizeof path, "%s.t%d%s", s->ring, thread, MPE_RING_SUFFIX);
  FILE *f = fopen (path, "rb");
  if (!f)
    return 0;
  mpe_ring_header_t h;
  struct stat st;
  if (fstat (fileno (f), &st) != 0 || read_at (f, 0, &h, sizeof h) != 0
      || memcmp (h.magic, MPE_RING_MAGIC, 8) != 0
      || h.version != MPE_RING_VERSION || h.split > h.cap
      || h.cap > ((uint64_t) st.st_size - MPE_RING_HEADER_SIZE)
                 / sizeof (mpe_spill_rec_t)
      || (uint64_t) st.st_size < MPE_RING_HEADER_SIZE)
    {
      fprintf (stderr, "clogtool recover: %s: not a usable ring file\n", path);
      s->bad_frames++;
      fclose (f);
      return 0;
    }
  /* Live parts, oldest first (by their first record). */
  mpe_spill_rec_t *part[2] = { NULL, NULL };
  size_t len[2] = { 0, 0 };
  for (int p = 0; p < 2; p++)
    {
      uint64_t from = p ? h.split : 0, to = p ? h.cap : h.split;
      if (!h.live[p] || to <= from)
        continue;
      part[p] = malloc ((size_t) (to - from) * sizeof (mpe_spill_rec_t));
      if (!part[p] || read_at (f, MPE_RING_HEADER_SIZE + from
                                    * sizeof (mpe_spill_rec_t),
                               part[p], (size_t) (to - from)
                                        * sizeof (mpe_spill_rec_t)) != 0)
        continue;
      len[p] = ring_part_valid (part[p], (size_t) (to - from), h.tag[p]);
    }
  fclose (f);
  int first = len[1] && (!len[0] || part[1][0].t < part[0][0].t);
  int rc = 0;
  uint64_t skipped_at_last = 0;
  for (int k = 0; k < 2 && rc == 0; k++)
    {
      int p = k ? !first : first;
      const mpe_spill_rec_t *r = part[p], *end = part[p] + len[p];
      while (r && r < end && rc == 0)
        {
          size_t n = mpe_spill_recs_decode (&r, end, s->tick0, s->mult_fp,
                                            batch, 4096);
          size_t keep = 0;
          for (size_t i = 0; i < n; i++)
            {
              if (sp->any && (batch[i].time < sp->last
                              || (batch[i].time == sp->last
                                  && skipped_at_last++ < sp->at_last)))
                continue;
              batch[keep++] = batch[i];
            }
          s->ring_events += keep;
          rc = emit (w, s, stream, batch, keep, G);
        }
    }
  free (part[0]);
  free (part[1]);
  return rc;
}

static int
emit_thread (logfmt_writer_t *w, spill_t *s, int thread, int64_t G)
{
  spilled_t sp = { 0, 0, 0 };
  uint32_t stream = s->first_stream + (uint32_t) thread;
  logfmt_event_t *batch = malloc (4096 * sizeof *batch);
  if (!batch)
    return LOGFMT_ENOMEM;
  int rc = 0;
  for (size_t i = 0; i < s->nframes && rc == 0; i++)
    {
      frame_t *fr = &s->frames[i];
      if (fr->thread != thread
          || (fr->type != MPE_SPILL_BLOCK && fr->type != MPE_SPILL_RAW
              && fr->type != MPE_SPILL_PACKED))
        continue;
      void *buf = malloc (fr->len ? fr->len : 1);
      if (!buf || read_at (s->f, fr->off, buf, fr->len) != 0)
        {
          free (buf);
          continue;
        }
      if (fr->type == MPE_SPILL_BLOCK)
        {
          logfmt_block_info_t info;
          logfmt_event_t *ev = NULL;
          size_t n = 0;
          logfmt_error_t err;
          if (logfmt_block_decode (buf, fr->len, &info, &ev, &n, &err) == 0)
            {
              note_spilled (&sp, ev, n);
              rc = emit (w, s, stream, ev, n, G);
            }
          else
            {
              fprintf (stderr, "clogtool recover: %s: block skipped: %s\n",
                       s->path, err.message);
              s->bad_frames++;
            }
          free (ev);
        }
      else if (fr->type == MPE_SPILL_PACKED)
        {
          mpe_spill_unpack_t u;
          size_t n;
          if (mpe_spill_unpack_init (&u, buf, fr->len) == 0)
            while (rc == 0 && (n = mpe_spill_unpack (&u, s->tick0, s->mult_fp,
                                                     batch, 4096)) > 0)
              {
                note_spilled (&sp, batch, n);
                rc = emit (w, s, stream, batch, n, G);
              }
          if (u.left)
            {
              fprintf (stderr, "clogtool recover: %s: %u packed events "
                       "unreadable\n", s->path, u.left);
              s->bad_frames++;
            }
        }
      else
        {
          const mpe_spill_rec_t *p = buf;
          const mpe_spill_rec_t *end = p + fr->len / sizeof *p;
          while (p < end && rc == 0)
            {
              size_t n = mpe_spill_recs_decode (&p, end, s->tick0, s->mult_fp,
                                                batch, 4096);
              s->raw_events += n;
              note_spilled (&sp, batch, n);
              rc = emit (w, s, stream, batch, n, G);
            }
        }
      free (buf);
    }
  if (rc == 0)
    rc = emit_ring (w, s, thread, stream, G, &sp, batch);
  free (batch);
  return rc;
}

static int
cmp_rank (const void *a, const void *b)
{
  const spill_t *x = a, *y = b;
  return x->rank != y->rank ? (x->rank < y->rank ? -1 : 1)
         : (x->pid < y->pid ? -1 : x->pid > y->pid);
}

/* Extracts the run id from ".../mpe-<run>-<rank>-<pid>.spill". */
static int
run_of (const char *name, char *run, size_t len)
{
  size_t pl = strlen (MPE_SPILL_NAME_PREFIX), sl = strlen (MPE_SPILL_NAME_SUFFIX);
  size_t nl = strlen (name);
  if (nl <= pl + sl || strncmp (name, MPE_SPILL_NAME_PREFIX, pl) != 0
      || strcmp (name + nl - sl, MPE_SPILL_NAME_SUFFIX) != 0)
    return -1;
  const char *dash = strchr (name + pl, '-');
  if (!dash || (size_t) (dash - name - pl) >= len)
    return -1;
  memcpy (run, name + pl, (size_t) (dash - name - pl));
  run[dash - name - pl] = '\0';
  return 0;
}

int
clogtool_recover_main (int argc, char **argv)
{
  const char *out = "recovered.clog", *src = NULL, *want_run = NULL;
  int clean = 0;
  for (int i = 1; i < argc; i++)
    {
      if (!strcmp (argv[i], "-h") || !strcmp (argv[i], "--help"))
        {
          usage (stdout);
          return 0;
        }
      else if (!strcmp (argv[i], "-o") && i + 1 < argc)
        out = argv[++i];
      else if (!strcmp (argv[i], "--run") && i + 1 < argc)
        want_run = argv[++i];
      else if (!strcmp (argv[i], "--clean"))
        clean = 1;
      else if (argv[i][0] == '-' && argv[i][1])
        {
          fprintf (stderr, "clogtool recover: unknown option %s\n", argv[i]);
          usage (stderr);
          return 2;
        }
      else if (!src)
        src = argv[i];
      else
        {
          usage (stderr);
          return 2;
        }
    }
  if (!src)
    {
      usage (stderr);
      return 2;
    }

  /* Collect the files. */
  struct stat st;
  int is_dir = stat (src, &st) == 0 && S_ISDIR (st.st_mode);
  char *dcopy = strdup (src), *bcopy = strdup (src);
  const char *dir = is_dir ? src : dirname (dcopy);
  const char *base = is_dir ? "" : basename (bcopy);
  DIR *d = opendir (dir);
  if (!d)
    {
      fprintf (stderr, "clogtool recover: %s: %s\n", dir, strerror (errno));
      return 1;
    }
  char best_run[64] = "";
  time_t best_time = 0;
  struct dirent *de;
  if (is_dir && !want_run)
    {
      while ((de = readdir (d)))
        {
          char run[64], path[8192];
          if (run_of (de->d_name, run, sizeof run) != 0)
            continue;
          snprintf (path, sizeof path, "%s/%s", dir, de->d_name);
          if (stat (path, &st) == 0 && st.st_mtime >= best_time)
            {
              best_time = st.st_mtime;
              snprintf (best_run, sizeof best_run, "%s", run);
            }
        }
      rewinddir (d);
    }
  else if (want_run)
    snprintf (best_run, sizeof best_run, "%s", want_run);
  spill_t *files = NULL;
  size_t nfiles = 0;
  while ((de = readdir (d)))
    {
      char run[64];
      if (run_of (de->d_name, run, sizeof run) != 0)
        continue;
      if (is_dir || want_run ? strcmp (run, best_run) != 0
                             : strncmp (de->d_name, base, strlen (base)) != 0)
        continue;
      spill_t *nf = realloc (files, (nfiles + 1) * sizeof *files);
      if (!nf)
        break;
      files = nf;
      memset (&files[nfiles], 0, sizeof files[nfiles]);
      size_t pl = strlen (dir) + strlen (de->d_name) + 2;
      files[nfiles].path = malloc (pl);
      snprintf (files[nfiles].path, pl, "%s/%s", dir, de->d_name);
      nfiles++;
    }
  closedir (d);
  free (dcopy);
  free (bcopy);
  if (nfiles == 0)
    {
      fprintf (stderr, "clogtool recover: no MPE spill files (%s*%s) found "
               "for %s\n", MPE_SPILL_NAME_PREFIX, MPE_SPILL_NAME_SUFFIX, src);
      return 1;
    }

  size_t good = 0;
  for (size_t i = 0; i < nfiles; i++)
    if (scan_file (&files[i]) == 0)
      files[good++] = files[i];
    else if (files[i].f)
      fclose (files[i].f);
  nfiles = good;
  if (nfiles == 0)
    return 1;
  qsort (files, nfiles, sizeof *files, cmp_rank);

  int world = 0;
  int64_t G = INT64_MAX;
  uint32_t next_stream = 0;
  for (size_t i = 0; i < nfiles; i++)
    {
      if (files[i].size > world)
        world = files[i].size;
      if (files[i].nsync == 0)
        {
          files[i].sync_l = calloc (1, 8);
          files[i].sync_off = calloc (1, 8);
          files[i].nsync = 1;
        }
      int64_t c = corrected (&files[i], 0);
      if (c < G)
        G = c;
      files[i].first_stream = next_stream;
      next_stream += (uint32_t) files[i].nthreads;
    }

  logfmt_writer_opts_t wo;
  memset (&wo, 0, sizeof wo);
  wo.size = sizeof wo;
  wo.match_messages = 1;
  wo.creator = "clogtool recover";
  wo.world_size = (uint32_t) world;
  wo.origin_unix_ns = files[0].real0 - files[0].mono0 + G;
  logfmt_writer_t *w;
  logfmt_error_t err;
  if (logfmt_writer_open (out, &wo, &w, &err) != 0)
    {
      fprintf (stderr, "clogtool recover: %s\n", err.message);
      return 1;
    }
  for (size_t i = 0; i < nfiles; i++)
    add_defs (w, &files[i]);
  for (size_t i = 0; i < nfiles; i++)
    for (int t = 0; t < files[i].nthreads; t++)
      {
        logfmt_stream_def_t sd = { files[i].rank, t, files[i].host };
        uint32_t got;
        logfmt_writer_add_stream (w, &sd, &got);
      }
  int rc = 0;
  for (size_t i = 0; i < nfiles && rc == 0; i++)
    for (int t = 0; t < files[i].nthreads && rc == 0; t++)
      rc = emit_thread (w, &files[i], t, G);
  if (rc != 0)
    {
      fprintf (stderr, "clogtool recover: writing %s: %s\n", out,
               logfmt_strerror (rc));
      logfmt_writer_abort (w);
      return 1;
    }
  if (logfmt_writer_finish (w, &err) != 0)
    {
      fprintf (stderr, "clogtool recover: %s\n", err.message);
      return 1;
    }

  /* Report. */
  uint64_t total = 0;
  for (size_t i = 0; i < nfiles; i++)
    {
      spill_t *s = &files[i];
      printf ("rank %d (pid %ld on %s): %" PRIu64 " events, %d thread(s)%s%s",
              s->rank, s->pid, s->host, s->events, s->nthreads,
              s->ended ? ", finished normally"
                       : ", did not finish (crashed or killed)",
              s->raw_events ? " - in-memory events saved at exit" : "");
      if (s->ring_events)
        printf (", %" PRIu64 " taken from its ring file(s)", s->ring_events);
      if (s->bad_frames)
        printf (", %" PRIu64 " damaged frame(s) skipped", s->bad_frames);
      printf ("\n");
      total += s->events;
      fclose (s->f);
    }
  for (int r = 0; r < world; r++)
    {
      int found = 0;
      for (size_t i = 0; i < nfiles; i++)
        found |= files[i].rank == r;
      if (!found)
        printf ("rank %d: missing (no spill file)\n", r);
    }
  printf ("wrote %s: %" PRIu64 " events from %zu of %d ranks\n", out, total,
          nfiles, world);
  if (clean)
    for (size_t i = 0; i < nfiles; i++)
      {
        unlink (files[i].path);
        for (int t = 0; files[i].ring[0] && t < files[i].nthreads + 64; t++)
          {
            char rp[8192];
            snprintf (rp, sizeof rp, "%s.t%d%s", files[i].ring, t,
                      MPE_RING_SUFFIX);
            unlink (rp);
          }
      }
  for (size_t i = 0; i < nfiles; i++)
    {
      free (files[i].path);
      free (files[i].frames);
      free (files[i].sync_l);
      free (files[i].sync_off);
    }
  free (files);
  return 0;
}
