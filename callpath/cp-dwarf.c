/* SPDX-License-Identifier: BSD-3-Clause */
/* The one address -> function/file/line lookup over libdw (see the
 * header). */
#include "config.h"

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
#include <stddef.h>

#include "cp-dwarf.h"

/* dwfl_module_getsrc finds the compile unit through .debug_aranges,
 * which clang does not emit unless asked (-gdwarf-aranges): look for the
 * unit that covers pc among all of the module's units instead. */
static const char *
line_by_cu_scan (Dwfl_Module *mod, Dwarf_Addr pc, int *lineno)
{
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu = NULL;
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

void
cp_dwfl_lookup (Dwfl_Module *mod, Dwarf_Addr pc, const char **func,
                    GElf_Off *off, const char **file, int *line)
{
  GElf_Sym sym;
  *off = 0;
  *func = dwfl_module_addrinfo (mod, pc, off, &sym, NULL, NULL, NULL);
  cp_dwfl_line (mod, pc, file, line);
}

void
cp_dwfl_line (Dwfl_Module *mod, Dwarf_Addr pc, const char **file, int *line)
{
  *line = 0;
  Dwfl_Line *l = dwfl_module_getsrc (mod, pc);
  if (l)
    *file = dwfl_lineinfo (l, NULL, line, NULL, NULL, NULL);
  else
    *file = line_by_cu_scan (mod, pc, line);
}
#endif
