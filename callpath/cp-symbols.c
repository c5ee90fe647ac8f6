/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Read-time symbols: each binary named in a log's MODULES table is opened
 * once with libdw (reported at address 0, so a node's module-relative
 * address is its ELF address), checked against the recorded build-id, and
 * every (binary, address) is looked up once.  A binary that is missing,
 * stripped or rebuilt since the run gives "module+0xoffset" frames and one
 * note.  Without libdw everything is module+offset.
 */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBDW
# include <elfutils/libdwfl.h>
# include <gelf.h>
# include "cp-dwarf.h"
#endif

#include "callpath.h"

typedef struct
{
  char    *key;          /* path '\n' build-id */
  char    *base;         /* base name */
  int      usable;       /* symbols can be trusted */
  int      has_lines;
  int      stripped;     /* only sized dynamic symbols are trusted */
  uint64_t start;        /* the lowest address loaded (0 in a PIE) */
#ifdef HAVE_LIBDW
  Dwfl    *dwfl;
  Dwfl_Module *mod;
#endif
  /* Function symbols sorted by address, read once: libdw's own lookup
   * scans the whole table for every address. */
  struct sym { uint64_t lo, size; const char *name; } *syms;
  size_t nsyms;
} binary_t;

typedef struct
{
  uint32_t bin;
  uint64_t addr;
  cp_frame_t f;
  int used;
} entry_t;

struct cp_symbols
{
  binary_t *bins;
  size_t nbins;
  entry_t *tab;          /* open addressing */
  size_t ntab, cap;
  char **notes;
  size_t nnotes;
  char **strs;           /* strings the frames point to */
  size_t nstrs, cstrs;
};

static const char *
keep (cp_symbols_t *sy, char *s)
{
  if (!s)
    return NULL;
  if (sy->nstrs == sy->cstrs)
    {
      size_t c = sy->cstrs ? sy->cstrs * 2 : 256;
      char **v = realloc (sy->strs, c * sizeof *v);
      if (!v)
        {
          free (s);
          return "?";
        }
      sy->strs = v;
      sy->cstrs = c;
    }
  sy->strs[sy->nstrs++] = s;
  return s;
}

static void __attribute__ ((format (printf, 2, 3)))
note (cp_symbols_t *sy, const char *fmt, ...)
{
  char buf[1024];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  char **v = realloc (sy->notes, (sy->nnotes + 1) * sizeof *v);
  if (!v)
    return;
  sy->notes = v;
  if ((v[sy->nnotes] = strdup (buf)) != NULL)
    sy->nnotes++;
}

cp_symbols_t *
cp_symbols_new (void)
{
  return calloc (1, sizeof (cp_symbols_t));
}

#ifdef HAVE_LIBDW
static int
sym_cmp (const void *a, const void *b)
{
  const struct sym *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void
load_syms (binary_t *b)
{
  int n = dwfl_module_getsymtab (b->mod);
  if (n <= 0)
    return;
  b->syms = calloc ((size_t) n, sizeof *b->syms);
  if (!b->syms)
    return;
  for (int i = 0; i < n; i++)
    {
      GElf_Sym sym;
      GElf_Addr addr;
      const char *name = dwfl_module_getsym_info (b->mod, i, &sym, &addr,
                                                  NULL, NULL, NULL);
      if (!name || !*name || GELF_ST_TYPE (sym.st_info) != STT_FUNC
          || sym.st_shndx == SHN_UNDEF)
        continue;
      b->syms[b->nsyms++] = (struct sym) { addr, sym.st_size, name };
    }
  qsort (b->syms, b->nsyms, sizeof *b->syms, sym_cmp);
}

/* The function containing a (a sized symbol covering it, else the
 * nearest one below unless the binary is stripped). */
static const char *
find_sym (const binary_t *b, uint64_t a)
{
  size_t lo = 0, hi = b->nsyms;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (b->syms[mid].lo <= a)
        lo = mid + 1;
      else
        hi = mid;
    }
  /* lo - 1 is the last symbol starting at or below a; aliases share it. */
  for (size_t k = lo; k > 0 && b->syms[k - 1].lo == b->syms[lo - 1].lo; k--)
    if (a < b->syms[k - 1].lo + b->syms[k - 1].size)
      return b->syms[k - 1].name;
  if (lo > 0 && !b->stripped && b->syms[lo - 1].size == 0)
    return b->syms[lo - 1].name;
  return NULL;
}

static int
has_symtab (Elf *elf)
{
  Elf_Scn *scn = NULL;
  while (elf && (scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr sh;
      if (gelf_getshdr (scn, &sh) && sh.sh_type == SHT_SYMTAB)
        return 1;
    }
  return 0;
}

static void
open_binary (cp_symbols_t *sy, binary_t *b, const logfmt_module_t *m)
{
  static char *debuginfo_path;
  static const Dwfl_Callbacks cb = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
  };
  if (access (m->path, R_OK) != 0)
    {
      note (sy, "%s: not found; its frames are shown as module+offset",
            m->path);
      return;
    }
  b->dwfl = dwfl_begin (&cb);
  if (!b->dwfl)
    return;
  dwfl_report_begin (b->dwfl);
  b->mod = dwfl_report_elf (b->dwfl, b->base, m->path, -1, 0, false);
  dwfl_report_end (b->dwfl, NULL, NULL);
  if (!b->mod)
    {
      note (sy, "%s: not an ELF file libdw can read (%s); module+offset",
            m->path, dwfl_errmsg (-1));
      return;
    }
  const unsigned char *bits;
  GElf_Addr vaddr;
  int nb = dwfl_module_build_id (b->mod, &bits, &vaddr);
  char hex[2 * 64 + 1] = "";
  for (int i = 0; i < nb && i < 64; i++)
    sprintf (hex + 2 * i, "%02x", bits[i]);
  if (m->build_id && *m->build_id && strcmp (hex, m->build_id) != 0)
    {
      note (sy, "%s: build-id differs from the run's (%s); the binary was "
            "rebuilt: module+offset", m->path, m->build_id);
      return;
    }
  Dwarf_Addr bias;
  int dwarf = dwfl_module_getdwarf (b->mod, &bias) != NULL;
  GElf_Addr ebias;
  int symtab = has_symtab (dwfl_module_getelf (b->mod, &ebias));
  b->usable = 1;
  b->has_lines = dwarf;
  if (!dwarf && !symtab)
    {
      /* Only exported functions are left (.dynsym): trust one only when
       * its size covers the address. */
      b->stripped = 1;
      note (sy, "%s: stripped (no symbol table, no debug information): "
            "exported functions only, else module+offset", m->path);
    }
  Dwarf_Addr start;
  if (dwfl_module_info (b->mod, NULL, &start, NULL, NULL, NULL, NULL, NULL))
    b->start = start;
  load_syms (b);
}
#endif

static uint32_t
binary_of (cp_symbols_t *sy, const logfmt_module_t *m)
{
  size_t kl = strlen (m->path) + strlen (m->build_id ? m->build_id : "") + 2;
  char *key = malloc (kl);
  if (!key)
    return UINT32_MAX;
  snprintf (key, kl, "%s\n%s", m->path, m->build_id ? m->build_id : "");
  for (size_t i = 0; i < sy->nbins; i++)
    if (!strcmp (sy->bins[i].key, key))
      {
        free (key);
        return (uint32_t) i;
      }
  binary_t *v = realloc (sy->bins, (sy->nbins + 1) * sizeof *v);
  if (!v)
    {
      free (key);
      return UINT32_MAX;
    }
  sy->bins = v;
  binary_t *b = &v[sy->nbins];
  memset (b, 0, sizeof *b);
  b->key = key;
  const char *slash = strrchr (m->path, '/');
  b->base = strdup (slash ? slash + 1 : m->path);
#ifdef HAVE_LIBDW
  open_binary (sy, b, m);
#else
  note (sy, "%s: built without libdw: module+offset", m->path);
#endif
  return (uint32_t) sy->nbins++;
}

static size_t
slot (const cp_symbols_t *sy, uint32_t bin, uint64_t addr)
{
  uint64_t h = (addr ^ ((uint64_t) bin << 48)) * 0x9e3779b97f4a7c15ull;
  return (size_t) (h >> 20) & (sy->cap - 1);
}

static int
grow (cp_symbols_t *sy)
{
  size_t cap = sy->cap ? sy->cap * 2 : 4096;
  entry_t *t = calloc (cap, sizeof *t);
  if (!t)
    return -1;
  entry_t *old = sy->tab;
  size_t oc = sy->cap;
  sy->tab = t;
  sy->cap = cap;
  for (size_t i = 0; i < oc; i++)
    if (old[i].used)
      {
        size_t k = slot (sy, old[i].bin, old[i].addr);
        while (t[k].used)
          k = (k + 1) & (cap - 1);
        t[k] = old[i];
      }
  free (old);
  return 0;
}

static void
pseudo_frame (cp_symbols_t *sy, uint64_t a, cp_frame_t *f)
{
  char buf[64];
  if ((a & ~0xffffull) == (LOGFMT_PSEUDO_BASE | 0x10000u))
    snprintf (buf, sizeof buf, "[in MPI state %u]", (unsigned) (a & 0xffff));
  else if (a >= LOGFMT_PSEUDO_BASE)
    snprintf (buf, sizeof buf, "[unknown]");
  else
    snprintf (buf, sizeof buf, "0x%" PRIx64, a);
  f->func = keep (sy, strdup (buf));
  f->module = "?";
  f->offset = a;
}

/* The frame of address addr of binary bin (its ELF address). */
static void
lookup (cp_symbols_t *sy, uint32_t bin, uint64_t addr, cp_frame_t *out)
{
  if ((sy->ntab + 1) * 2 > sy->cap && grow (sy))
    {
      pseudo_frame (sy, addr, out);
      return;
    }
  size_t k = slot (sy, bin, addr);
  for (; sy->tab[k].used; k = (k + 1) & (sy->cap - 1))
    if (sy->tab[k].bin == bin && sy->tab[k].addr == addr)
      {
        *out = sy->tab[k].f;
        return;
      }
  binary_t *b = &sy->bins[bin];
  cp_frame_t f = { NULL, NULL, 0, b->base, addr, 0 };
#ifdef HAVE_LIBDW
  if (b->usable)
    {
      const char *file;
      int line;
      const char *fn = find_sym (b, addr);
      cp_dwfl_line (b->mod, addr, &file, &line);
      if (fn)
        {
          f.func = keep (sy, strdup (fn));
          f.resolved = 1;
        }
      if (file)
        {
          f.file = keep (sy, strdup (file));
          f.line = line;
        }
    }
#endif
  if (!f.func)
    {
      char buf[512];
      snprintf (buf, sizeof buf, "%s+0x%" PRIx64, b->base, addr);
      f.func = keep (sy, strdup (buf));
    }
  sy->tab[k].used = 1;
  sy->tab[k].bin = bin;
  sy->tab[k].addr = addr;
  sy->tab[k].f = f;
  sy->ntab++;
  *out = f;
}

void
cp_symbols_frame (cp_symbols_t *sy, const logfmt_callpaths_t *cp,
                  uint32_t node, cp_frame_t *out)
{
  memset (out, 0, sizeof *out);
  if (node == 0 || node >= cp->nnodes)
    {
      out->func = "[root]";
      out->module = "";
      return;
    }
  const logfmt_cpnode_t *n = &cp->nodes[node];
  if (n->module == LOGFMT_NO_MODULE || n->module >= cp->nmodules)
    {
      pseudo_frame (sy, n->addr, out);
      return;
    }
  uint32_t bin = binary_of (sy, &cp->modules[n->module]);
  if (bin == UINT32_MAX)
    pseudo_frame (sy, n->addr, out);
  else
    lookup (sy, bin, n->addr, out);
}

void
cp_symbols_address (cp_symbols_t *sy, const char *path, uint64_t offset,
                    cp_frame_t *out)
{
  memset (out, 0, sizeof *out);
  logfmt_module_t m = { 0 };
  m.path = path ? path : "";
  uint32_t bin = *m.path ? binary_of (sy, &m) : UINT32_MAX;
  if (bin == UINT32_MAX)
    pseudo_frame (sy, offset, out);
  else
    lookup (sy, bin, sy->bins[bin].start + offset, out);
}

void
cp_symbols_site_name (void *user, const char *path, uint64_t offset,
                      const char **function, const char **file, int *line)
{
  cp_frame_t f;
  cp_symbols_address (user, path, offset, &f);
  *function = f.func;
  *file = f.file ? f.file : "";
  *line = f.file ? f.line : 0;
}

size_t
cp_symbols_notes (const cp_symbols_t *sy, const char *const **notes)
{
  *notes = (const char *const *) sy->notes;
  return sy->nnotes;
}

size_t
cp_symbols_binaries (const cp_symbols_t *sy)
{
  size_t n = 0;
  for (size_t i = 0; i < sy->nbins; i++)
    n += sy->bins[i].usable;
  return n;
}

void
cp_symbols_free (cp_symbols_t *sy)
{
  if (!sy)
    return;
  for (size_t i = 0; i < sy->nbins; i++)
    {
#ifdef HAVE_LIBDW
      if (sy->bins[i].dwfl)
        dwfl_end (sy->bins[i].dwfl);
#endif
      free (sy->bins[i].key);
      free (sy->bins[i].base);
      free (sy->bins[i].syms);
    }
  for (size_t i = 0; i < sy->nnotes; i++)
    free (sy->notes[i]);
  for (size_t i = 0; i < sy->nstrs; i++)
    free (sy->strs[i]);
  free (sy->bins);
  free (sy->tab);
  free (sy->notes);
  free (sy->strs);
  free (sy);
}
