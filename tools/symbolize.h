/* SPDX-License-Identifier: BSD-3-Clause */
/* Offline symbols for clogtool: (module file, offset) -> function, source
 * file and line, through libdw when the build has it (tools/symbolize.c). */
#ifndef CLOGTOOL_SYMBOLIZE_H
#define CLOGTOOL_SYMBOLIZE_H

#include <stdint.h>

typedef struct clogtool_symbols clogtool_symbols_t;

typedef struct
{
  char function[256];  /* "?" when unknown ("module+0xoff" without libdw) */
  char file[512];      /* "" when unknown */
  int  line;           /* 0 when unknown */
} clogtool_symbol_t;

clogtool_symbols_t *clogtool__symbols_new (void);
/* pc: an address inside the instruction (a return address minus 1),
 * as an offset from the module's load base. */
void clogtool__symbolize (clogtool_symbols_t *s, const char *module,
                          uint64_t offset, clogtool_symbol_t *out);
void clogtool__symbols_free (clogtool_symbols_t *s);

#endif
