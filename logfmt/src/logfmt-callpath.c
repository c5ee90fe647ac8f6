/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Call-path tables (FORMAT.md section 15): per rank, a MODULES chunk
 * (type 8: the binaries loaded, with build-id and load address) and a
 * CALLPATHS chunk (type 9: the interned call-path tree, node by node,
 * addresses relative to their module).  Samples and call sites (track
 * kinds 2 and 3) name a node of their rank's tree.  The final DEFS lists
 * the chunks (kind 10: rank, chunk type, offset), so readers that predate
 * them never see them.
 */
#include "config.h"
#include "logfmt-reader-internal.h"
#include "logfmt-callpath-internal.h"

#include <stdlib.h>
#include <string.h>

/* A string: u32 length (0 for none), its bytes. */
static void
b_str (logfmt__bytes_t *b, const char *s)
{
  size_t n = s ? strlen (s) : 0;
  logfmt__bytes_u32 (b, (uint32_t) n);
  logfmt__bytes_put (b, s, n);
}

/* Blob: u64 L8 | MODULES payload | u64 L9 | CALLPATHS payload. */
int
logfmt_callpaths_encode (int32_t rank, const logfmt_module_t *mods,
                         size_t nmods, const logfmt_cpnode_t *nodes,
                         size_t nnodes, void **out, size_t *len)
{
  logfmt__bytes_t b = { 0 };
  *out = NULL;
  *len = 0;
  if (nmods > UINT32_MAX || nnodes > UINT32_MAX)
    return LOGFMT_EINVAL;
  for (size_t i = 1; i < nnodes; i++)
    if (nodes[i].parent >= i
        || (nodes[i].module != LOGFMT_NO_MODULE && nodes[i].module >= nmods))
      return LOGFMT_EINVAL;
  logfmt__bytes_u64 (&b, 0);
  size_t at8 = b.len;
  logfmt__bytes_u32 (&b, (uint32_t) rank);
  logfmt__bytes_u32 (&b, (uint32_t) nmods);
  for (size_t i = 0; i < nmods; i++)
    {
      logfmt__bytes_u64 (&b, mods[i].base);
      logfmt__bytes_u64 (&b, mods[i].lo);
      logfmt__bytes_u64 (&b, mods[i].hi);
      b_str (&b, mods[i].path);
      b_str (&b, mods[i].build_id);
    }
  size_t l8 = b.len - at8;
  logfmt__bytes_u64 (&b, 0);
  size_t at9 = b.len;
  logfmt__bytes_u32 (&b, (uint32_t) rank);
  logfmt__bytes_u32 (&b, 0);
  logfmt__bytes_u64 (&b, nnodes);
  /* Node 0 (the root) is implied; each other node: distance to its
   * parent, module + 1 (0: none), address. */
  for (size_t i = 1; i < nnodes; i++)
    {
      logfmt__bytes_uv (&b, i - nodes[i].parent);
      logfmt__bytes_uv (&b, nodes[i].module == LOGFMT_NO_MODULE
                            ? 0 : (uint64_t) nodes[i].module + 1);
      logfmt__bytes_uv (&b, nodes[i].addr);
    }
  size_t l9 = b.len - at9;
  if (b.oom)
    {
      free (b.p);
      return LOGFMT_ENOMEM;
    }
  st64 (b.p, l8);
  st64 (b.p + at8 + l8, l9);
  *out = b.p;
  *len = b.len;
  return 0;
}

static int
decode_modules (const uint8_t *p, uint64_t len, logfmt_callpaths_t *cp)
{
  logfmt__cur_t c = { p, p + len, false };
  cp->rank = (int32_t) cur_u32 (&c);
  uint32_t n = cur_u32 (&c);
  if (c.bad || n > len / 32)
    return LOGFMT_ECORRUPT;
  cp->modules = calloc (n + 1, sizeof *cp->modules);
  if (!cp->modules)
    return LOGFMT_ENOMEM;
  for (uint32_t i = 0; i < n; i++)
    {
      logfmt_module_t *m = &cp->modules[i];
      /* Counted before its strings: a module cut short still frees them. */
      cp->nmodules = i + 1;
      m->base = cur_u64 (&c);
      m->lo = cur_u64 (&c);
      m->hi = cur_u64 (&c);
      for (int k = 0; k < 2; k++)
        {
          uint32_t sl = cur_u32 (&c);
          if (!cur_need (&c, sl))
            return LOGFMT_ECORRUPT;
          char *s = malloc ((size_t) sl + 1);
          if (!s)
            return LOGFMT_ENOMEM;
          memcpy (s, c.p, sl);
          s[sl] = '\0';
          c.p += sl;
          if (k == 0)
            m->path = s;
          else
            m->build_id = s;
        }
    }
  return c.bad ? LOGFMT_ECORRUPT : 0;
}

static int
decode_nodes (const uint8_t *p, uint64_t len, logfmt_callpaths_t *cp)
{
  logfmt__cur_t c = { p, p + len, false };
  int32_t rank = (int32_t) cur_u32 (&c);
  cur_u32 (&c);
  uint64_t n = cur_u64 (&c);
  if (c.bad || rank != cp->rank || n == 0 || n - 1 > len * 1)
    return LOGFMT_ECORRUPT;
  cp->nodes = calloc ((size_t) n, sizeof *cp->nodes);
  if (!cp->nodes)
    return LOGFMT_ENOMEM;
  cp->nodes[0].module = LOGFMT_NO_MODULE;
  const uint8_t *q = c.p;
  for (uint64_t i = 1; i < n; i++)
    {
      uint64_t d, m, a;
      if (!get_uv (&q, c.end, &d) || !get_uv (&q, c.end, &m)
          || !get_uv (&q, c.end, &a) || d == 0 || d > i
          || m > cp->nmodules)
        return LOGFMT_ECORRUPT;
      cp->nodes[i].parent = (uint32_t) (i - d);
      cp->nodes[i].module = m ? (uint32_t) (m - 1) : LOGFMT_NO_MODULE;
      cp->nodes[i].addr = a;
    }
  cp->nnodes = (size_t) n;
  return 0;
}

void
logfmt_callpaths_free (logfmt_callpaths_t *cp)
{
  if (!cp)
    return;
  for (size_t i = 0; i < cp->nmodules; i++)
    {
      free ((char *) cp->modules[i].path);
      free ((char *) cp->modules[i].build_id);
    }
  free (cp->modules);
  free (cp->nodes);
  free (cp);
}

/* ---- Writer side ----------------------------------------------------- */

int
logfmt_writer_put_callpaths (logfmt_writer_t *w, const void *blob,
                             size_t len)
{
  const uint8_t *p = blob;
  if (len < 16)
    return LOGFMT_EINVAL;
  uint64_t l8 = ld64 (p);
  if (l8 > len - 16 || ld64 (p + 8 + l8) > len - 16 - l8)
    return LOGFMT_EINVAL;
  uint64_t l9 = ld64 (p + 8 + l8);
  /* Check it decodes before it goes into the file. */
  logfmt_callpaths_t cp;
  memset (&cp, 0, sizeof cp);
  int rc = decode_modules (p + 8, l8, &cp);
  if (!rc)
    rc = decode_nodes (p + 16 + l8, l9, &cp);
  for (size_t i = 0; i < cp.nmodules; i++)
    {
      free ((char *) cp.modules[i].path);
      free ((char *) cp.modules[i].build_id);
    }
  free (cp.modules);
  free (cp.nodes);
  if (rc)
    return rc == LOGFMT_ENOMEM ? rc : LOGFMT_EINVAL;
  struct logfmt__wcallpaths **wc = logfmt__writer_callpaths (w);
  struct logfmt__wcallpaths *v = *wc;
  size_t n = v ? v->n : 0;
  v = realloc (v, sizeof *v + (n + 2) * sizeof v->ref[0]);
  if (!v)
    return LOGFMT_ENOMEM;
  v->n = n;
  *wc = v;
  uint64_t at8, at9;
  rc = logfmt__writer_chunk (w, LOGFMT__CHUNK_MODULES, p + 8, l8, &at8);
  if (!rc)
    rc = logfmt__writer_chunk (w, LOGFMT__CHUNK_CALLPATHS, p + 16 + l8, l9,
                               &at9);
  if (rc)
    return rc;
  v->ref[v->n].rank = (int32_t) ld32 (p + 8);
  v->ref[v->n].type = LOGFMT__CHUNK_MODULES;
  v->ref[v->n++].offset = at8;
  v->ref[v->n].rank = (int32_t) ld32 (p + 8);
  v->ref[v->n].type = LOGFMT__CHUNK_CALLPATHS;
  v->ref[v->n++].offset = at9;
  return 0;
}

/* DEFS records (kind 10) for the final DEFS chunk. */
int
logfmt__wcallpaths_defs (const struct logfmt__wcallpaths *v, uint8_t **out,
                         size_t *len)
{
  *out = NULL;
  *len = 0;
  if (!v || !v->n)
    return 0;
  size_t rl = 4 + 4 + 4 + 4 + 8;
  uint8_t *p = malloc (v->n * rl);
  if (!p)
    return LOGFMT_ENOMEM;
  for (size_t i = 0; i < v->n; i++)
    {
      uint8_t *q = p + i * rl;
      st32 (q, LOGFMT__DEFS_CALLPATHS);
      st32 (q + 4, 16);
      st32 (q + 8, (uint32_t) v->ref[i].rank);
      st32 (q + 12, v->ref[i].type);
      st64 (q + 16, v->ref[i].offset);
    }
  *out = p;
  *len = v->n * rl;
  return 0;
}

/* ---- Reader side ----------------------------------------------------- */

int
logfmt__rcallpaths_add (logfmt_reader_t *r, int32_t rank, uint32_t type,
                        uint64_t offset)
{
  if (type != LOGFMT__CHUNK_MODULES && type != LOGFMT__CHUNK_CALLPATHS)
    return 0;
  logfmt__cpref_t *v = realloc (r->cprefs, (r->ncprefs + 1) * sizeof *v);
  if (!v)
    return LOGFMT_ENOMEM;
  r->cprefs = v;
  v[r->ncprefs].rank = rank;
  v[r->ncprefs].type = type;
  v[r->ncprefs++].offset = offset;
  return 0;
}

size_t
logfmt_reader_callpath_ranks (const logfmt_reader_t *r, int32_t *ranks,
                              size_t max)
{
  size_t n = 0;
  for (size_t i = 0; i < r->ncprefs; i++)
    if (r->cprefs[i].type == LOGFMT__CHUNK_CALLPATHS)
      {
        if (ranks && n < max)
          ranks[n] = r->cprefs[i].rank;
        n++;
      }
  return n;
}

int
logfmt_reader_callpaths (const logfmt_reader_t *r, int32_t rank,
                         logfmt_callpaths_t **out, logfmt_error_t *err)
{
  *out = NULL;
  uint64_t at8 = 0, at9 = 0;
  for (size_t i = 0; i < r->ncprefs; i++)
    if (r->cprefs[i].rank == rank)
      {
        if (r->cprefs[i].type == LOGFMT__CHUNK_MODULES)
          at8 = r->cprefs[i].offset;
        else
          at9 = r->cprefs[i].offset;
      }
  if (!at8 || !at9)
    return logfmt__err (err, LOGFMT_ENOENT, r->path, UINT64_MAX,
                        "rank %d has no call paths", (int) rank);
  const uint8_t *p8, *p9;
  uint64_t l8, l9;
  int rc = logfmt__chunk_at (r, at8, LOGFMT__CHUNK_MODULES, true, &p8, &l8,
                             err);
  if (!rc)
    rc = logfmt__chunk_at (r, at9, LOGFMT__CHUNK_CALLPATHS, true, &p9, &l9,
                           err);
  if (rc)
    return rc;
  logfmt_callpaths_t *cp = calloc (1, sizeof *cp);
  if (!cp)
    return logfmt__err (err, LOGFMT_ENOMEM, r->path, at8, "no memory");
  rc = decode_modules (p8, l8, cp);
  if (!rc)
    rc = decode_nodes (p9, l9, cp);
  if (!rc && cp->rank != rank)
    rc = LOGFMT_ECORRUPT;
  if (rc)
    {
      logfmt_callpaths_free (cp);
      return logfmt__err (err, rc, r->path, rc == LOGFMT_ECORRUPT ? at9 : at8,
                          "rank %d's call-path tables are %s", (int) rank,
                          rc == LOGFMT_ENOMEM ? "too big for memory"
                          : "damaged");
    }
  *out = cp;
  return 0;
}
