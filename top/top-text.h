/* SPDX-License-Identifier: BSD-3-Clause */
/* mpetop's text mode: one table, redrawn on every sample. */
#ifndef TOP_TEXT_H
#define TOP_TEXT_H

#include <stdint.h>
#include <stdio.h>

#include "top-model.h"

typedef struct
{
  int      level;      /* asked for; -1: whatever the job sends */
  int      object;
  uint32_t code;
  double   hz;         /* 0: the job's rate */
  int      batch;      /* > 0: plain output, that many tables */
} top_text_opts_t;

void top_text_draw (FILE *f, const top_model_t *m, const top_text_opts_t *o);
/* A key typed in text mode; returns 1 when the request changed (or q). */
int  top_text_key (top_text_opts_t *o, const top_model_t *m, char key);

#endif
