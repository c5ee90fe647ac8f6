/* SPDX-License-Identifier: BSD-3-Clause */
/* The plugin host (mpe-plugin.c) and the configuration file
 * (mpe-config.c), shared with the sampler.  Not installed. */
#ifndef MPE_PLUGIN_INTERNAL_H
#define MPE_PLUGIN_INTERNAL_H

#include "mpe_plugin.h"
#include "mpe-internal.h"

/* MPE_CALLSITE: 0 off, 1 the caller's return address, 2 the whole stack. */
extern int mpe__callsite_mode MPE_HIDDEN;

/* mpe-config.c: MPE_CONFIG's settings become environment variables the
 * environment does not set (so every getenv honours them); plugin lines
 * are kept for the host.  Idempotent. */
MPE_HIDDEN void        mpe__config_load (void);
MPE_HIDDEN const char *mpe__setting (const char *key);
MPE_HIDDEN size_t      mpe__config_plugins (const char ***paths);

/* mpe-plugin.c */
MPE_HIDDEN void mpe__plugins_init (void);     /* MPE_Init_log */
MPE_HIDDEN void mpe__plugins_finalize (void); /* MPE_Finish_log */
MPE_HIDDEN void mpe__plugins_trigger (int reason, int thread,
                                      const void *pc);

#endif
