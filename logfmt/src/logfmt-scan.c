/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chunk scanning: the tolerant open of a file without a valid trailer
 * (crashed or damaged run), logfmt_verify and logfmt_repair.
 */
#include "config.h"
#include "logfmt-reader-internal.h"
#include "logfmt-track-internal.h"

#include <stdlib.h>

typedef struct
{
  uint32_t stream;
  logfmt__blockref_t ref;
  uint64_t lost;
} found_t;

static int
cmp_found (const void *a, const void *b)
{
  const found_t *x = a, *y = b;
  if (x->stream != y->stream)
    return x->stream < y->stream ? -1 : 1;
  return (x->ref.offset > y->ref.offset) - (x->ref.offset < y->ref.offset);
}

/* Walks chunks from start; keeps what checks out.  *bad counts chunks
 * dropped (checksum or framing). */
static int
scan (logfmt_reader_t *r, uint64_t start, uint64_t *bad,
      logfmt_error_t *err)
{
  found_t *f = NULL;
  size_t nf = 0, cf = 0;
  logfmt__msgref_t *m = NULL;
  size_t nm = 0, cm = 0;
  uint64_t defs = 0, off = start, nbad = 0;
  uint64_t *sums = NULL;
  size_t nsums = 0;
  uint32_t maxstream = 0;
  bool any = false;
  logfmt__trackref_t *tr = NULL;
  size_t nt = 0, ct = 0;
  while (off <= r->size
         && r->size - off >= LOGFMT__CHUNK_HDR + LOGFMT__CHUNK_CRC)
    {
      const uint8_t *h = r->data + off;
      uint32_t type = ld32 (h);
      uint64_t len = ld64 (h + 8);
      if (r->size - off == LOGFMT__TRAILER_SIZE
          && memcmp (h + 32, LOGFMT__TRAILER_MAGIC, 8) == 0)
        break;
      if (len > r->size - off - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC
          || type == 0 || type > 1000)
        {
          nbad++;  /* torn or garbage tail: nothing further is framed */
          break;
        }
      const uint8_t *p = h + LOGFMT__CHUNK_HDR;
      uint64_t next = off + LOGFMT__CHUNK_HDR + len + LOGFMT__CHUNK_CRC;
      if (logfmt__chunk_crc (h, p, len, logfmt__chunk_skip (type))
          != ld32 (p + len))
        {
          nbad++;
          off = next;
          continue;
        }
      logfmt__block_hdr_t bh;
      switch (type)
        {
        case LOGFMT__CHUNK_BLOCK:
          if (logfmt__block_parse (p, len, &bh, NULL, off, NULL)
              || bh.stream >= (1u << 20))
            {
              nbad++;
              break;
            }
          if (nf == cf)
            {
              cf = cf ? cf * 2 : 256;
              found_t *nfp = realloc (f, cf * sizeof *f);
              if (!nfp)
                goto oom;
              f = nfp;
            }
          f[nf++] = (found_t) {
            .stream = bh.stream, .lost = bh.lost,
            .ref = { .offset = off, .t_first = bh.t_first,
                     .t_last = bh.t_last, .count = bh.count },
          };
          if (bh.stream + 1 > maxstream)
            maxstream = bh.stream + 1;
          any = true;
          break;
        case LOGFMT__CHUNK_SUMMARY:
          if (len >= 8)
            {
              uint32_t sid = ld32 (p);
              if (sid < (1u << 20))
                {
                  if (sid >= nsums)
                    {
                      uint64_t *ns = realloc (sums, (sid + 1) * sizeof *ns);
                      if (!ns)
                        goto oom;
                      memset (ns + nsums, 0,
                              (sid + 1 - nsums) * sizeof *ns);
                      sums = ns;
                      nsums = sid + 1;
                    }
                  sums[sid] = off;
                }
            }
          break;
        case LOGFMT__CHUNK_MSGS:
          if (len >= 32)
            {
              if (nm == cm)
                {
                  cm = cm ? cm * 2 : 64;
                  logfmt__msgref_t *nmp = realloc (m, cm * sizeof *m);
                  if (!nmp)
                    goto oom;
                  m = nmp;
                }
              m[nm++] = (logfmt__msgref_t) {
                .offset = off, .count = ld32 (p), .t_min = ld64 (p + 8),
                .t_max = ld64 (p + 16),
              };
            }
          break;
        case LOGFMT__CHUNK_DEFS:
          defs = off;
          break;
        case LOGFMT__CHUNK_TRACK:
          {
            /* Self-describing: the directory is rebuilt from them. */
            logfmt__track_hdr_t th;
            if (logfmt__track_parse (p, len, &th, NULL, off, NULL))
              {
                nbad++;
                break;
              }
            if (nt == ct)
              {
                ct = ct ? ct * 2 : 64;
                logfmt__trackref_t *ntp = realloc (tr, ct * sizeof *tr);
                if (!ntp)
                  goto oom;
                tr = ntp;
              }
            th.ref.offset = off;
            tr[nt++] = th.ref;
            break;
          }
        default:
          break;  /* index and unknown kinds: rebuilt or skipped */
        }
      off = next;
    }
  (void) any;
  /* Per stream, blocks in file order; drop any that go back in time. */
  if (nf)
    qsort (f, nf, sizeof *f, cmp_found);
  r->nstreams = maxstream;
  r->streams = calloc (maxstream + 1, sizeof *r->streams);
  r->blocks_all = malloc ((nf + 1) * sizeof *r->blocks_all);
  if (!r->streams || !r->blocks_all)
    goto oom;
  size_t k = 0;
  uint64_t tmin = UINT64_MAX, tmax = 0;
  for (size_t i = 0; i < nf; i++)
    {
      logfmt__rstream_t *s = &r->streams[f[i].stream];
      if (!s->blocks)
        s->blocks = r->blocks_all + k;
      if (s->nblocks && f[i].ref.t_first < s->t_last)
        {
          nbad++;
          continue;
        }
      if (!s->nblocks)
        s->t_first = f[i].ref.t_first;
      s->t_last = f[i].ref.t_last;
      s->nevents += f[i].ref.count;
      s->lost += f[i].lost;
      r->blocks_all[k++] = f[i].ref;
      s->nblocks++;
      r->info.nevents += f[i].ref.count;
      r->info.lost_events += f[i].lost;
      if (f[i].ref.t_first < tmin)
        tmin = f[i].ref.t_first;
      if (f[i].ref.t_last > tmax)
        tmax = f[i].ref.t_last;
    }
  for (uint32_t i = 0; i < maxstream; i++)
    {
      /* Until a definition says otherwise (thread -1 marks "none"). */
      r->streams[i].def.rank = (int32_t) i;
      r->streams[i].def.thread = -1;
      if (i < nsums)
        r->streams[i].summary_off = sums[i];
    }
  r->mrefs = m ? m : malloc (sizeof *r->mrefs);
  m = NULL;
  r->nmrefs = nm;
  for (size_t i = 0; i < nm; i++)
    r->info.nmessages += r->mrefs[i].count;
  r->info.nstreams = (uint32_t) maxstream;
  r->info.t_first = tmin == UINT64_MAX ? 0 : tmin;
  r->info.t_last = tmax;
  free (f);
  free (sums);
  if (bad)
    *bad = nbad;
  if (defs)
    {
      int rc = logfmt__load_defs (r, defs, true, err);
      if (rc)
        {
          free (tr);
          return rc;
        }
    }
  /* A stream whose definition was lost is numbered as its own rank; if
   * that lies outside the stated world, the world size is unknown (0):
   * readers then take the highest rank + 1, and a repaired file stays
   * readable. */
  for (uint32_t i = 0; i < r->nstreams; i++)
    if (r->streams[i].def.thread < 0)
      {
        r->streams[i].def.thread = 0;
        if (r->info.world_size && i >= r->info.world_size)
          r->info.world_size = 0;
      }
  /* Tracks of known streams, each track's chunks in time order. */
  if (nt)
    qsort (tr, nt, sizeof *tr, logfmt__trackref_cmp);
  size_t kt = 0;
  for (size_t i = 0; i < nt; i++)
    {
      if (tr[i].stream >= r->nstreams
          || (kt > 0 && tr[kt - 1].stream == tr[i].stream
              && tr[kt - 1].kind == tr[i].kind
              && tr[kt - 1].level == tr[i].level
              && tr[kt - 1].t_last > tr[i].t_first))
        continue;
      tr[kt++] = tr[i];
    }
  r->tracks = tr;
  r->ntracks = kt;
  return 0;
oom:
  free (tr);
  free (f);
  free (m);
  free (sums);
  return logfmt__err (err, LOGFMT_ENOMEM, r->path, UINT64_MAX,
                      "no memory while scanning");
}

int logfmt__reader_scan (logfmt_reader_t *r, uint64_t start,
                         logfmt_error_t *err);

int
logfmt__reader_scan (logfmt_reader_t *r, uint64_t start, logfmt_error_t *err)
{
  return scan (r, start, NULL, err);
}

/* ---- Verify ---------------------------------------------------------- */

typedef struct
{
  logfmt_report_cb cb;
  void *user;
  int first;
} vctx_t;

static void
problem (vctx_t *v, const logfmt_error_t *e)
{
  if (!v->first)
    v->first = e->code ? e->code : LOGFMT_ECORRUPT;
  if (v->cb)
    v->cb (v->user, e);
}

static void
verify_problem (void *v, const logfmt_error_t *e)
{
  problem (v, e);
}

int
logfmt_verify (const char *path, logfmt_report_cb report, void *user)
{
  vctx_t v = { report, user, 0 };
  logfmt_reader_t *r;
  logfmt_error_t e = { 0 };
  int rc = logfmt_reader_open (path, 0, &r, &e);
  if (rc)
    {
      problem (&v, &e);
      return rc;
    }
  const logfmt_info_t *inf = logfmt_reader_info (r);
  size_t nst = logfmt_reader_n_states (r);
  /* Every chunk from the header to the trailer is framed and sound,
   * including ones the index does not reference. */
  {
    uint64_t off = ld32 (r->data + 12), end = r->size - LOGFMT__TRAILER_SIZE;
    while (off < end)
      {
        const uint8_t *p;
        uint64_t len;
        if (logfmt__chunk_at (r, off, 0, true, &p, &len, &e))
          {
            problem (&v, &e);
            break;
          }
        off += LOGFMT__CHUNK_HDR + len + LOGFMT__CHUNK_CRC;
      }
    if (off > end)
      {
        logfmt__err (&e, LOGFMT_ECORRUPT, path, end,
                     "last chunk overlaps the trailer");
        problem (&v, &e);
      }
  }
  for (uint32_t s = 0; s < inf->nstreams; s++)
    {
      /* Every block: checksum, header against index, columns. */
      logfmt_iter_t *it;
      if (logfmt_iter_new (r, s, 0, UINT64_MAX, &it))
        {
          logfmt__err (&e, LOGFMT_ENOMEM, path, UINT64_MAX, "no memory");
          problem (&v, &e);
          break;
        }
      logfmt_event_t ev;
      uint64_t n = 0;
      while ((rc = logfmt_iter_next (it, &ev)) == 1)
        n++;
      if (rc < 0)
        problem (&v, logfmt_iter_error (it));
      else if (n != logfmt_reader_stream_events (r, s))
        {
          logfmt__err (&e, LOGFMT_ECORRUPT, path, UINT64_MAX,
                       "stream %u: %llu records decoded, index says %llu",
                       s, (unsigned long long) n,
                       (unsigned long long) logfmt_reader_stream_events (r,
                                                                         s));
          problem (&v, &e);
        }
      logfmt_iter_free (it);
      /* Summary: every level parses and decodes. */
      const logfmt__rstream_t *rs = &r->streams[s];
      if (rs->summary_off)
        {
          const uint8_t *p;
          uint64_t len;
          if ((rc = logfmt__chunk_at (r, rs->summary_off,
                                      LOGFMT__CHUNK_SUMMARY, true, &p, &len,
                                      &e)))
            problem (&v, &e);
          else
            {
              logfmt__lvl_t lv[LOGFMT__SUM_MAX_LEVELS];
              uint32_t nlv, sid;
              uint64_t o, tl, total;
              if (logfmt__summary_parse (p, len, &sid, &o, &tl, &total, lv,
                                         &nlv) || sid != s
                  || total != rs->nevents)
                {
                  logfmt__err (&e, LOGFMT_ECORRUPT, path, rs->summary_off,
                               "summary of stream %u is malformed or "
                               "disagrees with the index", s);
                  problem (&v, &e);
                }
              else
                {
                  float *occ = malloc (64 * (nst + 1) * sizeof *occ);
                  if (occ)
                    for (uint32_t l = 0; l < nlv; l++)
                      {
                        /* A window of 64 output bins of this level's
                         * width selects exactly level l. */
                        uint64_t t1 = o + 64 * lv[l].bin_ns;
                        if (t1 <= o)
                          break;
                        if (logfmt_reader_summary (r, s, o, t1, 64, occ,
                                                   NULL, NULL, &e))
                          {
                            problem (&v, &e);
                            break;
                          }
                      }
                  free (occ);
                }
            }
        }
      else if (rs->nevents)
        {
          logfmt__err (&e, LOGFMT_ENOENT, path, UINT64_MAX,
                       "stream %u has events but no summary", s);
          problem (&v, &e);
        }
    }
  /* Message table. */
  logfmt_msg_iter_t *mi;
  if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi) == 0)
    {
      logfmt_message_t m;
      uint64_t n = 0;
      while ((rc = logfmt_msg_iter_next (mi, &m)) == 1)
        n++;
      if (rc < 0)
        problem (&v, logfmt_msg_iter_error (mi));
      else if (n != inf->nmessages)
        {
          logfmt__err (&e, LOGFMT_ECORRUPT, path, UINT64_MAX,
                       "message table holds %llu entries, index says %llu",
                       (unsigned long long) n,
                       (unsigned long long) inf->nmessages);
          problem (&v, &e);
        }
      logfmt_msg_iter_free (mi);
    }
  /* Extension tracks: every chunk the directory lists decodes. */
  for (size_t i = 0; i < r->ntracks; i++)
    if (logfmt__track_check (r, i, &e))
      problem (&v, &e);
  logfmt__verify_more (r, verify_problem, &v);
  logfmt_reader_close (r);
  return v.first;
}

/* ---- Repair ---------------------------------------------------------- */

/* Decodes block b of stream s into *ev, *n; nonzero if the block is
 * damaged (its framing is checked against the file first: a length read
 * from a damaged header must not send the decoder past the mapping). */
static int
repair_block (const logfmt_reader_t *r, const logfmt__blockref_t *ref,
              logfmt_event_t **ev, size_t *n)
{
  if (ref->offset > r->size
      || r->size - ref->offset < LOGFMT__CHUNK_HDR + LOGFMT__CHUNK_CRC)
    return -1;
  uint64_t plen = ld64 (r->data + ref->offset + 8);
  if (plen > r->size - ref->offset - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC)
    return -1;
  return logfmt_block_decode (r->data + ref->offset,
                              LOGFMT__CHUNK_HDR + plen + LOGFMT__CHUNK_CRC,
                              NULL, ev, n, NULL);
}

/* Whether the message table pairs exactly the sends and receives of the
 * blocks that decode: a cut file keeps only its first runs, a damaged
 * run loses its entries, a lost block leaves entries without records. */
static bool
table_complete (const logfmt_reader_t *r)
{
  if (r->nmrefs == 0)
    return false;
  uint64_t ends = 0, table = 0;
  for (size_t s = 0; s < r->nstreams; s++)
    for (size_t b = 0; b < r->streams[s].nblocks; b++)
      {
        logfmt_event_t *ev;
        size_t n;
        if (repair_block (r, &r->streams[s].blocks[b], &ev, &n))
          return false;
        for (size_t i = 0; i < n; i++)
          ends += ev[i].type == LOGFMT_REC_SEND
                  || ev[i].type == LOGFMT_REC_RECV;
        free (ev);
      }
  logfmt_msg_iter_t *mi;
  if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi))
    return false;
  logfmt_message_t m;
  int k;
  while ((k = logfmt_msg_iter_next (mi, &m)) == 1)
    table += (m.send_stream != LOGFMT_NO_STREAM)
             + (m.recv_stream != LOGFMT_NO_STREAM);
  logfmt_msg_iter_free (mi);
  return k == 0 && table == ends;
}

int
logfmt_repair (const char *in_path, const char *out_path, uint64_t *kept,
               uint64_t *lost, logfmt_error_t *err)
{
  logfmt_repair_report_t rep;
  int rc = logfmt_repair_report (in_path, out_path, &rep, err);
  if (kept)
    *kept = rep.blocks_kept;
  if (lost)
    *lost = rep.blocks_lost;
  return rc;
}

int
logfmt_repair_report (const char *in_path, const char *out_path,
                      logfmt_repair_report_t *rep, logfmt_error_t *err)
{
  logfmt_repair_report_t dummy;
  if (!rep)
    rep = &dummy;
  memset (rep, 0, sizeof *rep);
  if (!in_path || !out_path)
    return logfmt__err (err, LOGFMT_EINVAL, in_path, UINT64_MAX,
                        "logfmt_repair: NULL path");
  logfmt_reader_t *r;
  int rc = logfmt_reader_open (in_path, LOGFMT_OPEN_TOLERANT, &r, err);
  if (rc)
    return rc;
  /* Rescan to count what the scan dropped. */
  uint64_t nbad = 0;
  {
    logfmt_reader_t tmp = { .path = r->path, .data = r->data,
                            .size = r->size };
    uint64_t hl = ld32 (r->data + 12);
    logfmt_error_t e2;
    scan (&tmp, hl, &nbad, &e2);
    logfmt__reader_free_contents (&tmp);
  }
  const logfmt_info_t *inf = logfmt_reader_info (r);
  rep->partial = inf->partial;
  bool copy_table = table_complete (r);
  rep->rematched = !copy_table;
  logfmt_writer_opts_t wo = {
    .size = sizeof wo, .match_messages = !copy_table,
    .creator = inf->creator, .world_size = inf->world_size,
    .origin_unix_ns = inf->origin_unix_ns,
  };
  logfmt_writer_t *w;
  rc = logfmt_writer_open (out_path, &wo, &w, err);
  if (rc)
    {
      logfmt_reader_close (r);
      return rc;
    }
  logfmt__writer_set_match_by_time (w);
  for (size_t i = 0; i < r->nstates && !rc; i++)
    rc = logfmt_writer_add_state (w, &r->states[i]);
  for (size_t i = 0; i < r->nevents && !rc; i++)
    rc = logfmt_writer_add_event_def (w, &r->events[i]);
  for (size_t i = 0; i < r->nstreams && !rc; i++)
    rc = logfmt_writer_add_stream (w, &r->streams[i].def, NULL);
  for (size_t i = 0; i < r->ncomms && !rc; i++)
    rc = logfmt_writer_add_comm (w, &r->comms[i]);
  for (size_t i = 0; i < r->nconsts && !rc; i++)
    rc = logfmt_writer_add_const (w, &r->consts[i]);
  uint64_t nk = 0, nl = nbad;
  /* Blocks are decoded one by one so a bad one costs only itself; the
   * writer re-encodes and rebuilds summaries (and matching). */
  for (size_t s = 0; s < r->nstreams && !rc; s++)
    {
      const logfmt__rstream_t *rs = &r->streams[s];
      uint64_t last_t = 0;
      for (size_t b = 0; b < rs->nblocks && !rc; b++)
        {
          logfmt_event_t *ev;
          size_t n;
          if (repair_block (r, &rs->blocks[b], &ev, &n))
            {
              /* A LOSS record where the block was, so every reader
                 knows events are missing here (the index's count, or
                 at least one); at the last kept time, as the damaged
                 block's own times cannot be trusted. */
              logfmt_event_t loss = {
                .time = last_t, .type = LOGFMT_REC_LOSS, .state = -1,
                .size = rs->blocks[b].count ? rs->blocks[b].count : 1,
              };
              rc = logfmt_writer_event (w, (uint32_t) s, &loss, 1);
              nl++;
              continue;
            }
          if (n)
            last_t = ev[n - 1].time;
          rc = logfmt_writer_event (w, (uint32_t) s, ev, n);
          free (ev);
          nk++;
        }
    }
  uint64_t nmsg = 0;
  if (!rc && copy_table)
    {
      logfmt_msg_iter_t *mi;
      if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi) == 0)
        {
          logfmt_message_t m;
          int k;
          while (!rc && (k = logfmt_msg_iter_next (mi, &m)) == 1)
            {
              rc = logfmt_writer_put_messages (w, &m, 1);
              nmsg++;
            }
          logfmt_msg_iter_free (mi);
        }
    }
  logfmt_reader_close (r);
  if (rc)
    {
      logfmt_writer_abort (w);
      return logfmt__err (err, rc, out_path, UINT64_MAX,
                          "cannot write the repaired file: %s",
                          logfmt_strerror (rc));
    }
  rc = logfmt_writer_finish (w, err);
  rep->blocks_kept = nk;
  rep->blocks_lost = nl;
  rep->messages = nmsg;
  return rc;
}
