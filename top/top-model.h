/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What mpetop knows about the job it watches: built from the monitor's
 * text lines (protocol in mpe/src/mpe-monitor-live.c and mpetop(1)).
 * libc only, so the text mode, the window and the fuzz test share it.
 */
#ifndef TOP_MODEL_H
#define TOP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define TOP_TOKEN_LEN 32
#define TOP_RTT_KEEP  4096   /* round trips kept for the median */

enum
{
  TOP_LEVEL_THREAD = 0, TOP_LEVEL_PROCESS = 1, TOP_LEVEL_NODE = 2,
  TOP_LEVEL_JOB = 3, TOP_LEVEL_CHANNEL = 4
};

typedef struct
{
  int32_t  object;
  int64_t  sum, min, max;
  int32_t  min_obj, max_obj;
  uint32_t parts;
} top_slot_t;

typedef struct
{
  uint32_t    seq;
  int64_t     t_ns, rtt_ns;
  int         level, object;
  uint32_t    code, visited;
  uint32_t    nslots;
  top_slot_t *slots;
} top_sample_t;

typedef struct
{
  uint32_t code;
  char     name[64];
  char     unit[16];
} top_metric_t;

typedef struct
{
  int      hello;                  /* the job introduced itself */
  char     token[TOP_TOKEN_LEN + 1];
  int      ranks, nodes;
  double   hz;
  int     *node_of;                /* ranks entries */
  char   (*host)[64];
  top_metric_t *metrics;
  int      nmetrics;
  top_sample_t cur, prev;          /* the last two samples */
  uint64_t samples;                /* received */
  uint64_t missing;                /* sequence numbers never received */
  uint64_t incomplete;             /* came back without every rank */
  double   rtt[TOP_RTT_KEEP];      /* seconds, a ring */
  uint64_t nrtt;
  double   rtt_min, rtt_max;
  /* The job's accounting, sent when it ends. */
  int      ended;
  uint64_t sent, returned, late, skipped;
} top_model_t;

void top_model_init (top_model_t *m);
void top_model_free (top_model_t *m);
/* One line without its newline.  Returns 0, or -1 for a line that is not
 * understood (ignored; the model is unchanged) or -2 for a hello with the
 * wrong token (the caller hangs up). */
int  top_model_line (top_model_t *m, const char *line, size_t len,
                     const char *token);
/* Median of the kept round trips, seconds (0 when none). */
double top_model_rtt_median (const top_model_t *m);
/* Per-second change of slot i between the last two samples of the same
 * request shape; 0 when unknown. */
double top_model_rate (const top_model_t *m, uint32_t i);
const char *top_level_name (int level);
int  top_level_parse (const char *s);
const char *top_metric_name (const top_model_t *m, uint32_t code);

#endif
