/* SPDX-License-Identifier: BSD-3-Clause */
/* Threads and CPUs from the context-switch tracks (track kind 4,
 * FORMAT.md section 14) and the topology (DEFS kinds 14, 17): one
 * thread's time on and off CPUs, per state of a thread, and per CPU of
 * each host which threads ran there.  Written once for clogtool threads
 * and cpus and the viewer (threads and CPU tables, on/off-CPU shading,
 * the CPU view). */
#ifndef MPE_AN_SCHED_H
#define MPE_AN_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include <logfmt/logfmt.h>

/* What a switch record says (column 1 of track kind 4). */
enum
{
  AN_SCHED_IN = 1, AN_SCHED_OUT_BLOCKED = 2, AN_SCHED_OUT_PREEMPTED = 3
};

/* A stretch of the thread's time: on a CPU, or off it. */
typedef struct
{
  uint64_t t0, t1;
  int32_t  cpu;    /* on: the CPU; off: the CPU it left (-1 unknown) */
  uint8_t  on;     /* 1 running */
  uint8_t  why;    /* off: AN_SCHED_OUT_BLOCKED or AN_SCHED_OUT_PREEMPTED */
} an_sched_run_t;

typedef struct
{
  uint32_t        stream;
  int             has;          /* listed: the stream has records */
  uint64_t        t0, t1;       /* the thread's window */
  an_sched_run_t *runs;
  size_t          nruns;
  uint64_t        on_ns, blocked_ns, preempted_ns;
  uint64_t        switches;     /* switch-outs */
  uint64_t        migrations;   /* switch-ins on another CPU than the
                                   last */
  int32_t        *cpus;         /* CPUs it ran on, ascending */
  size_t          ncpus;
} an_sched_thread_t;

/* Reads stream's switch track and builds its runs over the window from
 * the stream's first to its last record (events or switches).  0, or a
 * negative logfmt code (and *err, which may be NULL, says why). */
int  an_sched_thread_load (const logfmt_reader_t *r, uint32_t stream,
                           an_sched_thread_t *th, logfmt_error_t *err);
void an_sched_thread_free (an_sched_thread_t *th);

/* th's time within [a, b): on a CPU, off it blocked or preempted (ns),
 * and the switch-outs of each kind that began an off run there. */
#define AN_SCHED_MAX_CPUS 1024
typedef struct
{
  uint64_t on, blocked, preempted;
  uint64_t blocks, preemptions;
  uint64_t migrations;       /* switch-ins there on another CPU */
  uint64_t cpus[AN_SCHED_MAX_CPUS / 64];  /* bit c: ran on CPU c there */
} an_sched_split_t;
/* Adds b's counts to a. */
void an_sched_split_add (an_sched_split_t *a, const an_sched_split_t *b);
void an_sched_thread_split (const an_sched_thread_t *th, uint64_t a, uint64_t b,
                         an_sched_split_t *out);

/* Whether any stream of the file has a switch track. */
int  an_sched_file_has_switches (const logfmt_reader_t *r);

/* Per state of one thread: its instances, their inclusive time and its
 * split (acc: logfmt_reader_n_states entries, zeroed here). */
typedef struct
{
  uint64_t count;
  uint64_t time;
  an_sched_split_t sp;
} an_sched_state_t;
int  an_sched_states (const logfmt_reader_t *r, const an_sched_thread_t *th,
                      an_sched_state_t *acc, size_t nstates,
                      logfmt_error_t *err);

/* ---- per CPU (an-cpus.c) ---- */

typedef struct
{
  uint32_t stream;
  uint64_t on;         /* ns on this CPU */
  uint64_t runs;
} an_cpu_user_t;

typedef struct
{
  int32_t cpu, core, socket, numa, smt;   /* -1: not in the topology */
  uint64_t on;
  an_cpu_user_t *users;   /* in the order they first ran there */
  size_t nusers;
} an_cpu_t;

typedef struct
{
  const char *name;
  int64_t id;
  int64_t first[4], last[4];   /* rx/tx bytes, rx/tx packets */
  int seen;
} an_nic_t;

typedef struct
{
  const char *name;    /* "" when the log names no host */
  an_cpu_t *cpus;      /* by CPU number */
  size_t ncpus;
  an_nic_t *nics;
  size_t nnics;
} an_host_t;

/* Called for every run on a CPU, thread by thread (may be NULL). */
typedef void (*an_cpus_run_fn) (void *user, uint32_t stream,
                                const an_sched_run_t *run);

typedef struct
{
  an_host_t *hosts;    /* in the order the log names them */
  size_t nhosts;
} an_cpus_t;

/* Every host's CPUs (the topology's, idle ones too, and any a thread
 * ran on) with their users, and its NICs' first and last counters. */
int  an_cpus_load (const logfmt_reader_t *r, an_cpus_run_fn run_cb,
                   void *user, an_cpus_t **out, logfmt_error_t *err);
/* Threads (streams) that ran on any CPU of core `core` of h. */
size_t an_cpus_core_users (const an_host_t *h, int32_t core, uint32_t *out,
                           size_t max);
void an_cpus_free (an_cpus_t *c);

#endif
