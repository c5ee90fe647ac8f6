/* SPDX-License-Identifier: BSD-3-Clause */
/* Offline symbols: each module file is opened once with libdwfl's offline
 * reporting; a stored offset from the module's load base becomes an
 * address in that report. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_LIBDW
# include <elfutils/libdwfl.h>
#endif

#include "symbolize.h"

typedef struct
{
  char *path;
#ifdef HAVE_LIBDW
  Dwfl *dwfl;
  Dwfl_Module *mod;
  Dwarf_Addr start;
#endif
} module_t;

struct clogtool_symbols
{
  module_t *mods;
  size_t    n;
};

clogtool_symbols_t *
clogtool__symbols_new (void)
{
  return calloc (1, sizeof (clogtool_symbols_t));
}

static module_t *
module_get (clogtool_symbols_t *s, const char *path)
{
  for (size_t i = 0; i < s->n; i++)
    if (strcmp (s->mods[i].path, path) == 0)
      return &s->mods[i];
  module_t *v = realloc (s->mods, (s->n + 1) * sizeof *v);
  if (!v)
    return NULL;
  s->mods = v;
  module_t *m = &v[s->n];
  memset (m, 0, sizeof *m);
  m->path = strdup (path);
  if (!m->path)
    return NULL;
  s->n++;
#ifdef HAVE_LIBDW
  static const Dwfl_Callbacks cb = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
  };
  m->dwfl = dwfl_begin (&cb);
  if (m->dwfl)
    {
      dwfl_report_begin (m->dwfl);
      m->mod = dwfl_report_offline (m->dwfl, path, path, -1);
      dwfl_report_end (m->dwfl, NULL, NULL);
      if (m->mod)
        dwfl_module_info (m->mod, NULL, &m->start, NULL, NULL, NULL, NULL,
                          NULL);
    }
#endif
  return m;
}

/* dwfl_module_getsrc needs .debug_aranges (clang omits them): scan the
 * module's units for the one covering pc, as mpe-callstack.c does. */
#ifdef HAVE_LIBDW
static const char *
line_by_cu_scan (Dwfl_Module *mod, Dwarf_Addr pc, int *lineno)
{
  Dwarf_Die *cu = NULL;
  Dwarf_Addr bias;
  while ((cu = dwfl_module_nextcu (mod, cu, &bias)) != NULL)
    {
      if (dwarf_haspc (cu, pc - bias) != 1)
        continue;
      Dwarf_Line *l = dwarf_getsrc_die (cu, pc - bias);
      if (!l || dwarf_lineno (l, lineno) != 0)
        return NULL;
      return dwarf_linesrc (l, NULL, NULL);
    }
  return NULL;
}
#endif

void
clogtool__symbolize (clogtool_symbols_t *s, const char *module,
                     uint64_t offset, clogtool_symbol_t *out)
{
  const char *base = module ? strrchr (module, '/') : NULL;
  base = base ? base + 1 : module ? module : "?";
  snprintf (out->function, sizeof out->function, "%s+0x%llx", base,
            (unsigned long long) offset);
  out->file[0] = '\0';
  out->line = 0;
  module_t *m = s && module && *module ? module_get (s, module) : NULL;
  if (!m)
    return;
#ifdef HAVE_LIBDW
  if (!m->mod)
    return;
  Dwarf_Addr pc = m->start + offset;
  const char *fn = dwfl_module_addrname (m->mod, pc);
  if (fn)
    snprintf (out->function, sizeof out->function, "%s", fn);
  int lineno = 0;
  const char *src = NULL;
  Dwfl_Line *line = dwfl_module_getsrc (m->mod, pc);
  if (line)
    src = dwfl_lineinfo (line, NULL, &lineno, NULL, NULL, NULL);
  else
    src = line_by_cu_scan (m->mod, pc, &lineno);
  if (src)
    {
      snprintf (out->file, sizeof out->file, "%s", src);
      out->line = lineno;
    }
#endif
}

void
clogtool__symbols_free (clogtool_symbols_t *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->n; i++)
    {
      free (s->mods[i].path);
#ifdef HAVE_LIBDW
      if (s->mods[i].dwfl)
        dwfl_end (s->mods[i].dwfl);
#endif
    }
  free (s->mods);
  free (s);
}
