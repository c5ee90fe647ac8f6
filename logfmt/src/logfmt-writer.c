/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Streaming writer: header, then chunks in the order they are produced
 * (blocks, summaries, message runs), then definitions, index and the
 * trailer.  Memory is bounded per open stream.
 */
#include "config.h"
#include "logfmt-writer-internal.h"
#include "logfmt-callpath-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

typedef struct
{
  logfmt_stream_def_t def;
  logfmt_encoder_t *enc;
  struct logfmt__enc_user *encu;
  logfmt_summary_builder_t *sb;
  logfmt__blockref_t *blocks;
  size_t nblocks, cap;
  uint64_t nevents, t_first, t_last, lost, summary_off;
  bool have_time;
  bool ended;              /* logfmt_writer_end_stream: summary written */
} wstream_t;

struct logfmt_writer
{
  logfmt_writer_opts_t opts;
  char *path, *creator;
  int fd;
  uint8_t *obuf;
  size_t olen;
  uint64_t off;            /* file offset of obuf[0] + olen */
  int err;                 /* sticky error */
  logfmt_error_t errinfo;

  logfmt_state_def_t *states;
  size_t nstates, cstates;
  logfmt_event_def_t *events;
  size_t nevents, cevents;
  logfmt_comm_def_t *comms;
  size_t ncomms, ccomms;
  logfmt_const_def_t *consts;
  size_t nconsts, cconsts;
  logfmt_resource_def_t *res;
  size_t nres, cres;
  wstream_t *streams;
  size_t nstreams, cstreams;
  bool started;            /* first event seen: state table frozen */
  bool match_by_time;      /* repair: ends may have lost their partners */

  /* Message table. */
  logfmt_message_t *mbuf;
  size_t mlen;
  logfmt__msgref_t *mrefs;
  size_t nmrefs, cmrefs;
  uint64_t nmessages;
  struct logfmt__matcher *matcher;

  ZSTD_CCtx *cctx;         /* shared by the streams' encoders, summaries */
  struct logfmt__wcallpaths *callpaths;  /* call-path table chunks */
  struct logfmt__wtracks *tracks;  /* extension tracks, if any */
  bool tracks_done;                /* directory written: DEFS point at it */
};

static int write_defs (logfmt_writer_t *w, uint64_t *at);
static int add_msgref (logfmt_writer_t *w, uint64_t at, uint64_t t_min,
                       uint64_t t_max, uint32_t count);

struct logfmt__enc_user
{
  logfmt_writer_t *w;
  uint32_t stream;
};

#define OBUF_SIZE (1u << 20)

static char *
xstrdup (const char *s)
{
  return s ? strdup (s) : NULL;
}

/* Records the first error; later calls return it. */
static int
set_err (logfmt_writer_t *w, int code, const char *what)
{
  if (w->err)
    return w->err;
  w->err = code;
  logfmt__err (&w->errinfo, code, w->path, UINT64_MAX, "%s", what);
  return code;
}

static int
io_err (logfmt_writer_t *w, int e)
{
  int code = (e == ENOSPC || e == EDQUOT) ? LOGFMT_ENOSPC : LOGFMT_EIO;
  char msg[300];
  snprintf (msg, sizeof msg, "write failed: %s%s", strerror (e),
            code == LOGFMT_ENOSPC ? " (disk full)" : "");
  return set_err (w, code, msg);
}

static int
flush_out (logfmt_writer_t *w)
{
  size_t done = 0;
  while (done < w->olen)
    {
      ssize_t k = write (w->fd, w->obuf + done, w->olen - done);
      if (k < 0)
        {
          if (errno == EINTR)
            continue;
          return io_err (w, errno);
        }
      if (k == 0)
        return io_err (w, ENOSPC);
      done += (size_t) k;
    }
  w->olen = 0;
  return 0;
}

static int
out (logfmt_writer_t *w, const void *data, size_t len)
{
  if (w->err)
    return w->err;
  const uint8_t *p = data;
  w->off += len;
  while (len > 0)
    {
      if (w->olen == OBUF_SIZE)
        {
          int rc = flush_out (w);
          if (rc)
            return rc;
        }
      size_t k = OBUF_SIZE - w->olen;
      if (k > len)
        k = len;
      memcpy (w->obuf + w->olen, p, k);
      w->olen += k;
      p += k;
      len -= k;
    }
  return 0;
}

/* Writes a whole chunk (header, payload, crc); *at gets its offset. */
static int
out_chunk (logfmt_writer_t *w, uint32_t type, const uint8_t *payload,
           uint64_t len, uint64_t *at)
{
  uint8_t hdr[LOGFMT__CHUNK_HDR], crc[4];
  st32 (hdr, type);
  st32 (hdr + 4, 0);
  st64 (hdr + 8, len);
  st32 (crc, logfmt__chunk_crc (hdr, payload, len,
                                logfmt__chunk_skip (type)));
  if (at)
    *at = w->off;
  int rc = out (w, hdr, sizeof hdr);
  if (!rc)
    rc = out (w, payload, (size_t) len);
  if (!rc)
    rc = out (w, crc, 4);
  return rc;
}

struct logfmt__wcallpaths **
logfmt__writer_callpaths (logfmt_writer_t *w)
{
  return &w->callpaths;
}

struct logfmt__wtracks **
logfmt__writer_tracks (logfmt_writer_t *w)
{
  return &w->tracks;
}

size_t
logfmt__writer_nstreams (const logfmt_writer_t *w)
{
  return w->nstreams;
}

int
logfmt__writer_raw (logfmt_writer_t *w, const void *bytes, size_t len,
                    uint64_t *at)
{
  if (at)
    *at = w->off;
  return out (w, bytes, len);
}

int
logfmt__writer_chunk (logfmt_writer_t *w, uint32_t type,
                      const uint8_t *payload, uint64_t len, uint64_t *at)
{
  return out_chunk (w, type, payload, len, at);
}

int
logfmt_writer_open (const char *path, const logfmt_writer_opts_t *opts,
                    logfmt_writer_t **outp, logfmt_error_t *err)
{
  if (outp)
    *outp = NULL;
  if (!path || !outp)
    return logfmt__err (err, LOGFMT_EINVAL, path, UINT64_MAX,
                        "logfmt_writer_open: NULL argument");
  logfmt_writer_t *w = calloc (1, sizeof *w);
  if (!w)
    return logfmt__err (err, LOGFMT_ENOMEM, path, UINT64_MAX, "no memory");
  if (opts)
    {
      size_t sz = opts->size && opts->size < sizeof w->opts ? opts->size
                                                            : sizeof w->opts;
      memcpy (&w->opts, opts, sz);
    }
  w->opts.size = sizeof w->opts;
  w->path = strdup (path);
  w->creator = xstrdup (w->opts.creator ? w->opts.creator : "logfmt");
  w->obuf = malloc (OBUF_SIZE);
  w->cctx = ZSTD_createCCtx ();
  w->fd = -1;
  if (!w->path || !w->creator || !w->obuf || !w->cctx)
    {
      logfmt_writer_abort (w);
      return logfmt__err (err, LOGFMT_ENOMEM, path, UINT64_MAX, "no memory");
    }
  w->fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (w->fd < 0)
    {
      int e = errno;
      logfmt__err (err, LOGFMT_EIO, path, UINT64_MAX, "cannot create: %s",
                   strerror (e));
      free (w->path);
      w->path = NULL;
      logfmt_writer_abort (w);
      return LOGFMT_EIO;
    }
  size_t clen = strlen (w->creator);
  if (clen > LOGFMT__MAX_CREATOR)
    clen = LOGFMT__MAX_CREATOR;
  size_t hlen = LOGFMT__HEADER_FIXED + ((clen + 7) & ~(size_t) 7);
  uint8_t h[LOGFMT__HEADER_FIXED + LOGFMT__MAX_CREATOR + 8];
  memset (h, 0, hlen);
  memcpy (h, LOGFMT__MAGIC, 8);
  st16 (h + 8, LOGFMT__MAJOR);
  st16 (h + 10, LOGFMT__MINOR);
  st32 (h + 12, (uint32_t) hlen);
  st32 (h + 16, LOGFMT__BOM);
  st32 (h + 20, 0);
  st64 (h + 24, 1000000000u);
  st64 (h + 32, (uint64_t) w->opts.origin_unix_ns);
  st32 (h + 40, w->opts.world_size);
  st32 (h + 44, (uint32_t) clen);
  memcpy (h + LOGFMT__HEADER_FIXED, w->creator, clen);
  st32 (h + 48, logfmt__crc32c (0, h, hlen));
  /* The header goes to disk at once, so even a run that dies early leaves
   * a file recognisable as a partial .clog. */
  int rc = out (w, h, hlen);
  if (!rc)
    rc = flush_out (w);
  if (rc)
    {
      if (err)
        *err = w->errinfo;
      logfmt_writer_abort (w);
      return rc;
    }
  *outp = w;
  return 0;
}

/* ---- Definitions ----------------------------------------------------- */

int
logfmt_writer_add_state (logfmt_writer_t *w, const logfmt_state_def_t *d)
{
  if (!w || !d)
    return LOGFMT_EINVAL;
  if (w->started)
    return LOGFMT_ESTATE;
  size_t i;
  for (i = 0; i < w->nstates; i++)
    if (w->states[i].start_id == d->start_id
        && w->states[i].end_id == d->end_id)
      break;
  if (i == w->nstates)
    {
      if (logfmt__grow ((void **) &w->states, &w->cstates, w->nstates,
                        sizeof *w->states))
        return LOGFMT_ENOMEM;
      w->nstates++;
    }
  else
    {
      free ((char *) w->states[i].name);
      free ((char *) w->states[i].color);
      free ((char *) w->states[i].format);
    }
  logfmt_state_def_t *s = &w->states[i];
  *s = *d;
  s->name = xstrdup (d->name ? d->name : "");
  s->color = xstrdup (d->color ? d->color : "");
  s->format = xstrdup (d->format);
  logfmt_color_lookup (s->color, &s->rgb);
  return s->name && s->color && (!d->format || s->format) ? 0
                                                          : LOGFMT_ENOMEM;
}

int
logfmt_writer_add_event_def (logfmt_writer_t *w, const logfmt_event_def_t *d)
{
  if (!w || !d)
    return LOGFMT_EINVAL;
  size_t i;
  for (i = 0; i < w->nevents; i++)
    if (w->events[i].id == d->id)
      break;
  if (i == w->nevents)
    {
      if (logfmt__grow ((void **) &w->events, &w->cevents, w->nevents,
                        sizeof *w->events))
        return LOGFMT_ENOMEM;
      w->nevents++;
    }
  else
    {
      free ((char *) w->events[i].name);
      free ((char *) w->events[i].color);
      free ((char *) w->events[i].format);
    }
  logfmt_event_def_t *e = &w->events[i];
  *e = *d;
  e->name = xstrdup (d->name ? d->name : "");
  e->color = xstrdup (d->color ? d->color : "");
  e->format = xstrdup (d->format);
  logfmt_color_lookup (e->color, &e->rgb);
  return e->name && e->color && (!d->format || e->format) ? 0
                                                          : LOGFMT_ENOMEM;
}

int
logfmt_writer_add_stream (logfmt_writer_t *w, const logfmt_stream_def_t *d,
                          uint32_t *stream_out)
{
  if (!w || !d)
    return LOGFMT_EINVAL;
  if (w->nstreams >= UINT32_MAX - 1)
    return LOGFMT_ERANGE;
  if (logfmt__grow ((void **) &w->streams, &w->cstreams, w->nstreams,
                    sizeof *w->streams))
    return LOGFMT_ENOMEM;
  wstream_t *s = &w->streams[w->nstreams];
  memset (s, 0, sizeof *s);
  s->def = *d;
  s->def.host = xstrdup (d->host);
  if (d->host && !s->def.host)
    return LOGFMT_ENOMEM;
  if (stream_out)
    *stream_out = (uint32_t) w->nstreams;
  w->nstreams++;
  return 0;
}

int
logfmt_writer_add_comm (logfmt_writer_t *w, const logfmt_comm_def_t *d)
{
  if (!w || !d)
    return LOGFMT_EINVAL;
  if (logfmt__grow ((void **) &w->comms, &w->ccomms, w->ncomms,
                    sizeof *w->comms))
    return LOGFMT_ENOMEM;
  logfmt_comm_def_t *c = &w->comms[w->ncomms];
  *c = *d;
  c->name = xstrdup (d->name);
  c->ranks = NULL;
  if (d->ranks && d->size)
    {
      int32_t *r = malloc (d->size * sizeof (int32_t));
      if (!r)
        return LOGFMT_ENOMEM;
      memcpy (r, d->ranks, d->size * sizeof (int32_t));
      c->ranks = r;
    }
  w->ncomms++;
  return 0;
}

int
logfmt_writer_add_const (logfmt_writer_t *w, const logfmt_const_def_t *d)
{
  if (!w || !d)
    return LOGFMT_EINVAL;
  if (logfmt__grow ((void **) &w->consts, &w->cconsts, w->nconsts,
                    sizeof *w->consts))
    return LOGFMT_ENOMEM;
  logfmt_const_def_t *c = &w->consts[w->nconsts];
  *c = *d;
  c->name = xstrdup (d->name ? d->name : "");
  w->nconsts++;
  return c->name ? 0 : LOGFMT_ENOMEM;
}

int
logfmt_writer_add_resource (logfmt_writer_t *w,
                            const logfmt_resource_def_t *d)
{
  if (!w || !d || d->kind < LOGFMT_RES_CPU || d->kind > LOGFMT_RES_NIC
      || d->nv > LOGFMT_RES_MAX_V || d->ns > LOGFMT_RES_MAX_S)
    return LOGFMT_EINVAL;
  if (logfmt__grow ((void **) &w->res, &w->cres, w->nres, sizeof *w->res))
    return LOGFMT_ENOMEM;
  logfmt_resource_def_t *c = &w->res[w->nres];
  *c = *d;
  int oom = 0;
  for (uint32_t i = 0; i < LOGFMT_RES_MAX_S; i++)
    {
      c->s[i] = i < d->ns && d->s[i] ? xstrdup (d->s[i]) : NULL;
      oom |= i < d->ns && d->s[i] && !c->s[i];
    }
  w->nres++;
  return oom ? LOGFMT_ENOMEM : 0;
}

/* ---- Events and blocks ----------------------------------------------- */

static int
add_blockref (logfmt_writer_t *w, uint32_t stream, uint64_t at,
              uint64_t t_first, uint64_t t_last, uint32_t count,
              uint64_t lost)
{
  wstream_t *s = &w->streams[stream];
  if (logfmt__grow ((void **) &s->blocks, &s->cap, s->nblocks,
                    sizeof *s->blocks))
    return set_err (w, LOGFMT_ENOMEM, "no memory for the index");
  s->blocks[s->nblocks++] = (logfmt__blockref_t) {
    .offset = at, .t_first = t_first, .t_last = t_last, .count = count,
  };
  if (!s->have_time)
    {
      s->t_first = t_first;
      s->have_time = true;
    }
  if (t_last > s->t_last)
    s->t_last = t_last;
  s->nevents += count;
  s->lost += lost;
  return 0;
}

static int
on_block_w (void *user, const void *block, size_t len,
            const logfmt_block_info_t *info)
{
  struct logfmt__enc_user *u = user;
  logfmt_writer_t *w = u->w;
  uint64_t at = w->off;
  int rc = out (w, block, len);
  if (rc)
    return rc;
  const uint8_t *p = block;
  return add_blockref (w, u->stream, at, info->t_first, info->t_last,
                       info->count, ld64 (p + LOGFMT__CHUNK_HDR + 40));
}

int
logfmt_writer_event (logfmt_writer_t *w, uint32_t stream,
                     const logfmt_event_t *ev, size_t n)
{
  if (!w || (!ev && n))
    return LOGFMT_EINVAL;
  if (w->err)
    return w->err;
  if (stream >= w->nstreams)
    return LOGFMT_ERANGE;
  if (w->streams[stream].ended)
    return LOGFMT_EINVAL;
  if (!w->started)
    {
      /* Definitions known so far go out early, so a crashed run can be
       * repaired with names and colours; finish writes the full set. */
      int rc = write_defs (w, NULL);
      if (rc)
        return rc;
    }
  w->started = true;
  wstream_t *s = &w->streams[stream];
  if (!s->enc)
    {
      struct logfmt__enc_user *u = malloc (sizeof *u);
      if (!u)
        return LOGFMT_ENOMEM;
      u->w = w;
      u->stream = stream;
      logfmt_encoder_opts_t eo = {
        .size = sizeof eo, .stream = stream,
        .block_events = w->opts.block_events,
        .zstd_level = w->opts.zstd_level,
      };
      int rc = logfmt__encoder_new_shared (&eo, on_block_w, u, w->cctx,
                                           &s->enc);
      if (rc)
        {
          free (u);
          return rc;
        }
      s->encu = u;
    }
  if (!s->sb)
    {
      int rc = logfmt_summary_builder_new (w->states, w->nstates, &s->sb);
      if (rc)
        return set_err (w, rc, "cannot start a summary");
    }
  int rc = logfmt_encoder_add (s->enc, ev, n);
  if (rc)
    return w->err ? w->err : set_err (w, rc, logfmt_strerror (rc));
  rc = logfmt_summary_builder_add (s->sb, ev, n);
  if (rc)
    return set_err (w, rc, "cannot extend a summary");
  if (w->opts.match_messages)
    for (size_t i = 0; i < n; i++)
      if (ev[i].type == LOGFMT_REC_SEND || ev[i].type == LOGFMT_REC_RECV)
        {
          rc = logfmt__match_add (w, &w->matcher, stream, s->def.rank,
                                  &ev[i]);
          if (rc)
            return set_err (w, rc, "cannot match messages");
        }
  return 0;
}

/* Writes stream i's summary chunk and frees its builder. */
static void
put_stream_summary (logfmt_writer_t *w, size_t i)
{
  void *bytes;
  size_t len;
  int rc = logfmt__summary_builder_finish_cctx (w->streams[i].sb,
                                                (uint32_t) i, w->cctx,
                                                &bytes, &len);
  if (rc)
    set_err (w, rc, "cannot build a summary");
  else
    {
      uint64_t at = w->off;
      if (out (w, bytes, len) == 0)
        w->streams[i].summary_off = at;
      free (bytes);
    }
  logfmt_summary_builder_free (w->streams[i].sb);
  w->streams[i].sb = NULL;
}

int
logfmt_writer_end_stream (logfmt_writer_t *w, uint32_t stream)
{
  if (!w)
    return LOGFMT_EINVAL;
  if (w->err)
    return w->err;
  if (stream >= w->nstreams)
    return LOGFMT_ERANGE;
  wstream_t *s = &w->streams[stream];
  if (s->enc)
    {
      int rc = logfmt_encoder_flush (s->enc);
      if (rc && !w->err)
        set_err (w, rc, logfmt_strerror (rc));
      logfmt_encoder_free (s->enc);
      free (s->encu);
      s->enc = NULL;
      s->encu = NULL;
    }
  if (s->sb && !w->err)
    put_stream_summary (w, stream);
  s->ended = true;
  return w->err;
}

int
logfmt_writer_put_block (logfmt_writer_t *w, uint32_t stream,
                         const void *block, size_t len)
{
  if (!w || !block)
    return LOGFMT_EINVAL;
  if (w->err)
    return w->err;
  if (stream >= w->nstreams)
    return LOGFMT_ERANGE;
  const uint8_t *p = block;
  if (len < LOGFMT__CHUNK_HDR + LOGFMT__BLOCK_HDR + LOGFMT__CHUNK_CRC
      || ld32 (p) != LOGFMT__CHUNK_BLOCK
      || ld64 (p + 8) != len - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC)
    return LOGFMT_EINVAL;
  uint64_t plen = ld64 (p + 8);
  const uint8_t *pay = p + LOGFMT__CHUNK_HDR;
  if (logfmt__chunk_crc (p, pay, plen, LOGFMT__BLOCK_CRC_SKIP)
      != ld32 (pay + plen))
    return LOGFMT_ECHECKSUM;
  logfmt__block_hdr_t h;
  if (logfmt__block_parse (pay, plen, &h, NULL, 0, NULL))
    return LOGFMT_ECORRUPT;
  wstream_t *s = &w->streams[stream];
  if (s->have_time && h.t_first < s->t_last)
    return LOGFMT_ERANGE;
  if (!w->started)
    {
      /* As for logfmt_writer_event: early definitions for repair. */
      int rc = write_defs (w, NULL);
      if (rc)
        return rc;
      w->started = true;
    }
  /* Only the stream id and its check word change; the CRC skips them. */
  uint8_t patch[8];
  st32 (patch, stream);
  st32 (patch + 4, ~stream);
  uint64_t at = w->off;
  int rc = out (w, p, LOGFMT__CHUNK_HDR);
  if (!rc)
    rc = out (w, patch, 8);
  if (!rc)
    rc = out (w, pay + 8, len - LOGFMT__CHUNK_HDR - 8);
  if (rc)
    return rc;
  return add_blockref (w, stream, at, h.t_first, h.t_last, h.count, h.lost);
}

int
logfmt_writer_put_summary (logfmt_writer_t *w, uint32_t stream,
                           const void *bytes, size_t len)
{
  if (!w || !bytes)
    return LOGFMT_EINVAL;
  if (w->err)
    return w->err;
  if (stream >= w->nstreams)
    return LOGFMT_ERANGE;
  const uint8_t *p = bytes;
  if (len < LOGFMT__CHUNK_HDR + 8 + LOGFMT__CHUNK_CRC
      || ld32 (p) != LOGFMT__CHUNK_SUMMARY
      || ld64 (p + 8) != len - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC)
    return LOGFMT_EINVAL;
  /* The summary payload starts with its stream id (covered by the CRC),
   * so the chunk is rewritten with the new id and a fresh CRC. */
  uint8_t *copy = malloc (len);
  if (!copy)
    return LOGFMT_ENOMEM;
  memcpy (copy, p, len);
  uint64_t plen = len - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC;
  st32 (copy + LOGFMT__CHUNK_HDR, stream);
  st32 (copy + LOGFMT__CHUNK_HDR + plen,
        logfmt__chunk_crc (copy, copy + LOGFMT__CHUNK_HDR, plen, 0));
  uint64_t at = w->off;
  int rc = out (w, copy, len);
  free (copy);
  if (!rc)
    w->streams[stream].summary_off = at;
  return rc;
}

/* ---- Chunks written in place by others ------------------------------ */

const logfmt_error_t *
logfmt_writer_error (const logfmt_writer_t *w)
{
  return w && w->err ? &w->errinfo : NULL;
}

int
logfmt_writer_reserve (logfmt_writer_t *w, uint64_t len, uint64_t *at)
{
  if (!w || !at)
    return LOGFMT_EINVAL;
  if (w->err)
    return w->err;
  if (!w->started)
    {
      /* As for logfmt_writer_event: definitions before the first block. */
      int rc = write_defs (w, NULL);
      if (rc)
        return rc;
      w->started = true;
    }
  int rc = flush_out (w);
  if (rc)
    return rc;
  if (len && lseek (w->fd, (off_t) len, SEEK_CUR) < 0)
    return io_err (w, errno);
  *at = w->off;
  w->off += len;
  return 0;
}

int
logfmt_writer_note_chunk (logfmt_writer_t *w, uint64_t at, const void *head,
                          size_t len)
{
  if (!w || !head)
    return LOGFMT_EINVAL;
  if (w->err)
    return w->err;
  const uint8_t *p = head;
  if (len < LOGFMT__CHUNK_HDR || at >= w->off)
    return LOGFMT_EINVAL;
  uint32_t type = ld32 (p);
  uint64_t plen = ld64 (p + 8);
  const uint8_t *pay = p + LOGFMT__CHUNK_HDR;
  len -= LOGFMT__CHUNK_HDR;
  if (plen > w->off - at)
    return LOGFMT_EINVAL;
  if (type == LOGFMT__CHUNK_BLOCK)
    {
      logfmt__block_hdr_t h;
      if (len < LOGFMT__BLOCK_HDR || logfmt__block_parse (pay, plen, &h,
                                                          NULL, 0, NULL))
        return LOGFMT_ECORRUPT;
      if (h.stream >= w->nstreams)
        return LOGFMT_ERANGE;
      wstream_t *s = &w->streams[h.stream];
      if (s->have_time && h.t_first < s->t_last)
        return LOGFMT_ERANGE;
      return add_blockref (w, h.stream, at, h.t_first, h.t_last, h.count,
                           h.lost);
    }
  if (type == LOGFMT__CHUNK_MSGS)
    {
      if (len < 24 || plen < 32)
        return LOGFMT_ECORRUPT;
      return add_msgref (w, at, ld64 (pay + 8), ld64 (pay + 16), ld32 (pay));
    }
  if (type == LOGFMT__CHUNK_TRACK)
    return logfmt__wtracks_note (w, at, pay, len, plen);
  return LOGFMT_EINVAL;
}

static int
cmp_msg (const void *a, const void *b)
{
  const logfmt_message_t *x = a, *y = b;
  uint64_t tx = x->send_stream != LOGFMT_NO_STREAM ? x->send_time
                                                   : x->recv_time;
  uint64_t ty = y->send_stream != LOGFMT_NO_STREAM ? y->send_time
                                                   : y->recv_time;
  return (tx > ty) - (tx < ty);
}

static int
add_msgref (logfmt_writer_t *w, uint64_t at, uint64_t t_min, uint64_t t_max,
            uint32_t count)
{
  if (logfmt__grow ((void **) &w->mrefs, &w->cmrefs, w->nmrefs,
                    sizeof *w->mrefs))
    return set_err (w, LOGFMT_ENOMEM, "no memory");
  w->mrefs[w->nmrefs++] = (logfmt__msgref_t) {
    .offset = at, .t_min = t_min, .t_max = t_max, .count = count,
  };
  w->nmessages += count;
  return 0;
}

/* One sorted run of at most LOGFMT_MESSAGES_PER_CHUNK as a MSGS chunk. */
static int
encode_run (const logfmt_message_t *m, size_t n,
            int (*cb) (void *user, const void *chunk, size_t len,
                       uint64_t t_min, uint64_t t_max),
            void *user)
{
  uint8_t *chunk;
  size_t clen;
  uint64_t t0, t1;
  int rc = logfmt__msgs_encode (m, n, &chunk, &clen, &t0, &t1);
  if (rc)
    return rc;
  rc = cb (user, chunk, clen, t0, t1);
  free (chunk);
  return rc;
}

static int
put_msgs_chunk (void *user, const void *chunk, size_t len, uint64_t t_min,
                uint64_t t_max)
{
  logfmt_writer_t *w = user;
  uint64_t at = w->off;
  int rc = out (w, chunk, len);
  if (!rc)
    rc = add_msgref (w, at, t_min, t_max, w->mlen);
  return rc;
}

static int
flush_msgs (logfmt_writer_t *w)
{
  if (w->mlen == 0)
    return 0;
  qsort (w->mbuf, w->mlen, sizeof *w->mbuf, cmp_msg);
  int rc = encode_run (w->mbuf, w->mlen, put_msgs_chunk, w);
  if (rc)
    return w->err ? w->err : set_err (w, rc, "cannot encode the message "
                                      "table");
  w->mlen = 0;
  return 0;
}

typedef struct
{
  int (*cb) (void *user, const void *chunk, size_t len);
  void *user;
} chunk_sink_t;

static int
to_sink (void *user, const void *chunk, size_t len, uint64_t t_min,
         uint64_t t_max)
{
  (void) t_min;
  (void) t_max;
  const chunk_sink_t *s = user;
  return s->cb (s->user, chunk, len);
}

int
logfmt_messages_encode (logfmt_message_t *m, size_t n,
                        int (*cb) (void *user, const void *chunk, size_t len),
                        void *user)
{
  if ((!m && n) || !cb)
    return LOGFMT_EINVAL;
  qsort (m, n, sizeof *m, cmp_msg);
  chunk_sink_t sink = { cb, user };
  for (size_t i = 0; i < n; i += LOGFMT_MESSAGES_PER_CHUNK)
    {
      size_t k = n - i < LOGFMT_MESSAGES_PER_CHUNK ? n - i
                                                    : LOGFMT_MESSAGES_PER_CHUNK;
      int rc = encode_run (m + i, k, to_sink, &sink);
      if (rc)
        return rc;
    }
  return 0;
}

int
logfmt__writer_add_message (logfmt_writer_t *w, const logfmt_message_t *m)
{
  if (!w->mbuf)
    {
      w->mbuf = malloc (LOGFMT_MESSAGES_PER_CHUNK * sizeof *w->mbuf);
      if (!w->mbuf)
        return set_err (w, LOGFMT_ENOMEM, "no memory");
    }
  w->mbuf[w->mlen++] = *m;
  if (w->mlen == LOGFMT_MESSAGES_PER_CHUNK)
    return flush_msgs (w);
  return 0;
}

int
logfmt_writer_put_messages (logfmt_writer_t *w, const logfmt_message_t *m,
                            size_t n)
{
  if (!w || (!m && n))
    return LOGFMT_EINVAL;
  if (w->err)
    return w->err;
  for (size_t i = 0; i < n; i++)
    {
      if ((m[i].send_stream != LOGFMT_NO_STREAM
           && m[i].send_stream >= w->nstreams)
          || (m[i].recv_stream != LOGFMT_NO_STREAM
              && m[i].recv_stream >= w->nstreams)
          || (m[i].send_stream == LOGFMT_NO_STREAM
              && m[i].recv_stream == LOGFMT_NO_STREAM))
        return LOGFMT_EINVAL;
      int rc = logfmt__writer_add_message (w, &m[i]);
      if (rc)
        return rc;
    }
  return 0;
}

/* ---- Finish ---------------------------------------------------------- */

static void
db_str (logfmt__bytes_t *d, const char *s)
{
  if (!s)
    {
      logfmt__bytes_u32 (d, UINT32_MAX);
      return;
    }
  size_t n = strlen (s);
  logfmt__bytes_u32 (d, (uint32_t) n);
  logfmt__bytes_put (d, s, n);
}

/* Starts a definition record; returns the offset of its length word. */
static size_t
db_rec (logfmt__bytes_t *d, uint32_t kind)
{
  logfmt__bytes_u32 (d, kind);
  size_t at = d->len;
  logfmt__bytes_u32 (d, 0);
  return at;
}

static void
db_end (logfmt__bytes_t *d, size_t at)
{
  if (!d->oom)
    st32 (d->p + at, (uint32_t) (d->len - at - 4));
}

static int
write_defs (logfmt_writer_t *w, uint64_t *at)
{
  logfmt__bytes_t d = { 0 };
  for (size_t i = 0; i < w->nstates; i++)
    {
      const logfmt_state_def_t *s = &w->states[i];
      size_t r = db_rec (&d, 1);
      logfmt__bytes_u32 (&d, (uint32_t) s->start_id);
      logfmt__bytes_u32 (&d, (uint32_t) s->end_id);
      db_str (&d, s->name);
      db_str (&d, s->color);
      db_str (&d, s->format);
      db_end (&d, r);
    }
  for (size_t i = 0; i < w->nevents; i++)
    {
      const logfmt_event_def_t *e = &w->events[i];
      size_t r = db_rec (&d, 2);
      logfmt__bytes_u32 (&d, (uint32_t) e->id);
      db_str (&d, e->name);
      db_str (&d, e->color);
      db_str (&d, e->format);
      db_end (&d, r);
    }
  for (size_t i = 0; i < w->nstreams; i++)
    {
      const logfmt_stream_def_t *s = &w->streams[i].def;
      size_t r = db_rec (&d, 3);
      logfmt__bytes_u32 (&d, (uint32_t) s->rank);
      logfmt__bytes_u32 (&d, (uint32_t) s->thread);
      db_str (&d, s->host);
      db_end (&d, r);
    }
  for (size_t i = 0; i < w->ncomms; i++)
    {
      const logfmt_comm_def_t *c = &w->comms[i];
      size_t r = db_rec (&d, 4);
      logfmt__bytes_u32 (&d, c->id);
      logfmt__bytes_u32 (&d, (uint32_t) c->kind);
      logfmt__bytes_u32 (&d, c->size);
      logfmt__bytes_u32 (&d, c->ranks ? 1 : 0);
      db_str (&d, c->name);
      if (c->ranks)
        for (uint32_t k = 0; k < c->size; k++)
          logfmt__bytes_u32 (&d, (uint32_t) c->ranks[k]);
      db_end (&d, r);
    }
  for (size_t i = 0; i < w->nconsts; i++)
    {
      size_t r = db_rec (&d, 5);
      logfmt__bytes_u64 (&d, (uint64_t) w->consts[i].value);
      db_str (&d, w->consts[i].name);
      db_end (&d, r);
    }
  uint8_t *cdefs;
  size_t clen;
  if (logfmt__wcallpaths_defs (w->callpaths, &cdefs, &clen))
    d.oom = true;
  else if (clen)
    {
      logfmt__bytes_put (&d, cdefs, clen);
      free (cdefs);
    }
  uint8_t *tdefs;
  size_t tlen;
  if (logfmt__wtracks_defs (w->tracks, w->tracks_done, &tdefs, &tlen))
    d.oom = true;
  else if (tlen)
    {
      logfmt__bytes_put (&d, tdefs, tlen);
      free (tdefs);
    }
  for (size_t i = 0; i < w->nres; i++)
    {
      const logfmt_resource_def_t *x = &w->res[i];
      size_t r = db_rec (&d, x->kind);
      logfmt__bytes_u32 (&d, x->stream);
      logfmt__bytes_u32 (&d, x->nv);
      for (uint32_t k = 0; k < x->nv; k++)
        logfmt__bytes_u64 (&d, (uint64_t) x->v[k]);
      logfmt__bytes_u32 (&d, x->ns);
      for (uint32_t k = 0; k < x->ns; k++)
        db_str (&d, x->s[k]);
      db_end (&d, r);
    }
  if (d.oom)
    {
      free (d.p);
      return set_err (w, LOGFMT_ENOMEM, "no memory for definitions");
    }
  int rc = out_chunk (w, LOGFMT__CHUNK_DEFS, d.p ? d.p : (uint8_t *) "",
                      d.len, at);
  free (d.p);
  return rc;
}

static int
write_index (logfmt_writer_t *w, uint64_t defs_at, uint64_t *at,
             uint64_t *len)
{
  logfmt__bytes_t d = { 0 };
  logfmt__bytes_u32 (&d, (uint32_t) w->nstreams);
  logfmt__bytes_u32 (&d, (uint32_t) w->nmrefs);
  logfmt__bytes_u64 (&d, defs_at);
  logfmt__bytes_u64 (&d, w->nmessages);
  logfmt__bytes_u64 (&d, 0);
  for (size_t i = 0; i < w->nstreams; i++)
    {
      const wstream_t *s = &w->streams[i];
      logfmt__bytes_u64 (&d, s->nevents);
      logfmt__bytes_u64 (&d, s->have_time ? s->t_first : 0);
      logfmt__bytes_u64 (&d, s->t_last);
      logfmt__bytes_u64 (&d, s->lost);
      logfmt__bytes_u64 (&d, s->summary_off);
      logfmt__bytes_u32 (&d, (uint32_t) s->nblocks);
      logfmt__bytes_u32 (&d, 0);
    }
  for (size_t i = 0; i < w->nstreams; i++)
    {
      const wstream_t *s = &w->streams[i];
      for (size_t k = 0; k < s->nblocks; k++)
        {
          logfmt__bytes_u64 (&d, s->blocks[k].offset);
          logfmt__bytes_u64 (&d, s->blocks[k].t_first);
          logfmt__bytes_u64 (&d, s->blocks[k].t_last);
          logfmt__bytes_u32 (&d, s->blocks[k].count);
          logfmt__bytes_u32 (&d, 0);
        }
    }
  for (size_t i = 0; i < w->nmrefs; i++)
    {
      logfmt__bytes_u64 (&d, w->mrefs[i].offset);
      logfmt__bytes_u64 (&d, w->mrefs[i].t_min);
      logfmt__bytes_u64 (&d, w->mrefs[i].t_max);
      logfmt__bytes_u32 (&d, w->mrefs[i].count);
      logfmt__bytes_u32 (&d, 0);
    }
  if (d.oom)
    {
      free (d.p);
      return set_err (w, LOGFMT_ENOMEM, "no memory for the index");
    }
  int rc = out_chunk (w, LOGFMT__CHUNK_INDEX, d.p, d.len, at);
  *len = LOGFMT__CHUNK_HDR + d.len + LOGFMT__CHUNK_CRC;
  free (d.p);
  return rc;
}


static void
writer_free (logfmt_writer_t *w)
{
  if (w->fd >= 0)
    close (w->fd);
  for (size_t i = 0; i < w->nstates; i++)
    {
      free ((char *) w->states[i].name);
      free ((char *) w->states[i].color);
      free ((char *) w->states[i].format);
    }
  for (size_t i = 0; i < w->nevents; i++)
    {
      free ((char *) w->events[i].name);
      free ((char *) w->events[i].color);
      free ((char *) w->events[i].format);
    }
  for (size_t i = 0; i < w->nstreams; i++)
    {
      wstream_t *s = &w->streams[i];
      free ((char *) s->def.host);
      logfmt_encoder_free (s->enc);
      free (s->encu);
      logfmt_summary_builder_free (s->sb);
      free (s->blocks);
    }
  for (size_t i = 0; i < w->ncomms; i++)
    {
      free ((char *) w->comms[i].name);
      free ((int32_t *) w->comms[i].ranks);
    }
  for (size_t i = 0; i < w->nconsts; i++)
    free ((char *) w->consts[i].name);
  for (size_t i = 0; i < w->nres; i++)
    for (uint32_t k = 0; k < LOGFMT_RES_MAX_S; k++)
      free ((char *) w->res[i].s[k]);
  free (w->res);
  logfmt__match_free (w->matcher);
  free (w->callpaths);
  logfmt__wtracks_free (w->tracks);
  free (w->states);
  free (w->events);
  free (w->streams);
  free (w->comms);
  free (w->consts);
  free (w->mbuf);
  free (w->mrefs);
  free (w->obuf);
  free (w->creator);
  free (w->path);
  ZSTD_freeCCtx (w->cctx);
  free (w);
}

int
logfmt_writer_finish (logfmt_writer_t *w, logfmt_error_t *err)
{
  if (!w)
    return logfmt__err (err, LOGFMT_EINVAL, NULL, UINT64_MAX,
                        "logfmt_writer_finish: NULL writer");
  for (size_t i = 0; i < w->nstreams && !w->err; i++)
    if (w->streams[i].enc)
      {
        int rc = logfmt_encoder_flush (w->streams[i].enc);
        if (rc && !w->err)
          set_err (w, rc, logfmt_strerror (rc));
      }
  for (size_t i = 0; i < w->nstreams && !w->err; i++)
    if (w->streams[i].sb)
      put_stream_summary (w, i);
  if (!w->err)
    {
      int rc = logfmt__match_finish (w, w->matcher);
      if (rc)
        set_err (w, rc, "cannot write the message table");
    }
  if (!w->err)
    flush_msgs (w);
  if (!w->err)
    {
      int rc = logfmt__wtracks_finish (w);
      if (rc)
        set_err (w, rc, "cannot write the extension tracks");
      w->tracks_done = true;
    }
  uint64_t defs_at = 0, idx_at = 0, idx_len = 0;
  if (!w->err)
    write_defs (w, &defs_at);
  if (!w->err)
    write_index (w, defs_at, &idx_at, &idx_len);
  if (!w->err)
    {
      uint8_t t[LOGFMT__TRAILER_SIZE];
      memset (t, 0, sizeof t);
      st64 (t, idx_at);
      st64 (t + 8, idx_len);
      st64 (t + 16, w->off + LOGFMT__TRAILER_SIZE);
      memcpy (t + 32, LOGFMT__TRAILER_MAGIC, 8);
      uint32_t crc = logfmt__crc32c (0, t, 28);
      crc = logfmt__crc32c (crc, t + 32, 8);
      st32 (t + 28, crc);
      out (w, t, sizeof t);
    }
  if (!w->err)
    flush_out (w);
  if (!w->err && fsync (w->fd) != 0 && errno != EINVAL && errno != EROFS)
    io_err (w, errno);
  if (!w->err && close (w->fd) != 0)
    {
      w->fd = -1;
      io_err (w, errno);
    }
  else if (!w->err)
    w->fd = -1;
  int rc = w->err;
  if (rc && err)
    *err = w->errinfo;
  writer_free (w);
  return rc;
}

void
logfmt_writer_abort (logfmt_writer_t *w)
{
  if (!w)
    return;
  if (w->fd >= 0 && w->path)
    unlink (w->path);
  writer_free (w);
}

void
logfmt__writer_set_match_by_time (logfmt_writer_t *w)
{
  w->match_by_time = true;
}

bool
logfmt__writer_match_by_time (const logfmt_writer_t *w)
{
  return w->match_by_time;
}
