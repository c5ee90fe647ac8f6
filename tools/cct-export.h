/* SPDX-License-Identifier: BSD-3-Clause */
/* Exports of clogtool cct (tools/cct-export.c); each returns 0 or -1
 * (message printed).  OUT "-" is standard output. */
#ifndef CCT_EXPORT_H
#define CCT_EXPORT_H

#include "callpath/callpath.h"

/* binary: the one binary gmon.out describes (a path or base name as the
 * log lists it); NULL for the program. */
int cct_export_gmon (const logfmt_reader_t *r, const cp_tree_opts_t *o,
                     const char *binary, const char *out);
int cct_export_collapsed (const cp_tree_t *t, const char *out);
/* r and o: the log and the options the tree t was built with (the
 * samples are read again per thread, for the labels). */
int cct_export_pprof (const logfmt_reader_t *r, const cp_tree_opts_t *o,
                      const cp_tree_t *t, const char *out);

#endif
