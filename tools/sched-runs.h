/* SPDX-License-Identifier: BSD-3-Clause */
/* One thread's time on and off CPUs, from its context-switch track
 * (track kind 4, FORMAT.md section 14), for clogtool threads and cpus. */
#ifndef CLOGTOOL_SCHED_RUNS_H
#define CLOGTOOL_SCHED_RUNS_H

#include <stdint.h>

#include <logfmt/logfmt.h>

/* What a switch record says (column 1 of track kind 4). */
enum
{
  SCHED_IN = 1, SCHED_OUT_BLOCKED = 2, SCHED_OUT_PREEMPTED = 3
};

/* A stretch of the thread's time: on a CPU, or off it. */
typedef struct
{
  uint64_t t0, t1;
  int32_t  cpu;    /* on: the CPU; off: the CPU it left (-1 unknown) */
  uint8_t  on;     /* 1 running */
  uint8_t  why;    /* off: SCHED_OUT_BLOCKED or SCHED_OUT_PREEMPTED */
} sched_run_t;

typedef struct
{
  uint32_t     stream;
  int          has;          /* listed: the stream has records */
  uint64_t     t0, t1;       /* the thread's window */
  sched_run_t *runs;
  size_t       nruns;
  uint64_t     on_ns, blocked_ns, preempted_ns;
  uint64_t     switches;     /* switch-outs */
  uint64_t     migrations;   /* switch-ins on another CPU than the last */
  int32_t     *cpus;         /* CPUs it ran on, ascending */
  size_t       ncpus;
} sched_thread_t;

/* Reads stream's switch track and builds its runs over the window from
 * the stream's first to its last record (events or switches).  0, or a
 * negative logfmt code (message printed). */
int  sched_thread_load (const logfmt_reader_t *r, uint32_t stream,
                        sched_thread_t *th);
void sched_thread_free (sched_thread_t *th);

/* th's time within [a, b): on a CPU, off it blocked or preempted (ns),
 * and the switch-outs of each kind that began an off run there. */
#define SCHED_MAX_CPUS 1024
typedef struct
{
  uint64_t on, blocked, preempted;
  uint64_t blocks, preemptions;
  uint64_t migrations;       /* switch-ins there on another CPU */
  uint64_t cpus[SCHED_MAX_CPUS / 64];  /* bit c: ran on CPU c there */
} sched_split_t;
/* Adds b's counts to a. */
void sched_split_add (sched_split_t *a, const sched_split_t *b);
void sched_thread_split (const sched_thread_t *th, uint64_t a, uint64_t b,
                         sched_split_t *out);

/* Whether any stream of the file has a switch track. */
int  sched_file_has_switches (const logfmt_reader_t *r);

#endif
