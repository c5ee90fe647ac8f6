/* SPDX-License-Identifier: BSD-3-Clause */
/* One address's function, source file and line from a libdw module: the
 * lookup shared by libmpe's live call stacks (mpe-callstack.c) and the
 * read-side resolver (callpath/cp-symbols.c).  Include after <elfutils/libdwfl.h>. */
#ifndef CP_DWARF_H
#define CP_DWARF_H

/* pc is in the Dwfl's address space.  *func (may be NULL: no symbol) and
 * *off its offset; *file (NULL: no line information) and *line.  The
 * strings belong to libdw. */
__attribute__ ((visibility ("hidden")))
void cp_dwfl_lookup (Dwfl_Module *mod, Dwarf_Addr pc, const char **func,
                         GElf_Off *off, const char **file, int *line);

/* The file and line part alone (*file NULL: none). */
__attribute__ ((visibility ("hidden")))
void cp_dwfl_line (Dwfl_Module *mod, Dwarf_Addr pc, const char **file,
                   int *line);

#endif
