/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpe_plugin.h: the collection-plugin ABI of libmpe.
 *
 * A plugin is a shared object named in the configuration
 * (MPE_CONFIG=file with "plugin = /path/to/x.so" lines, or
 * MPE_PLUGINS=a.so:b.so).  libmpe loads it at MPE_Init_log and calls its
 * one exported entry point
 *
 *     const mpe_plugin_t *mpe_plugin_entry (void);
 *
 * which returns a static description.  Two kinds of hooks:
 *
 *  - instrumentation (init / pre / post / finalize): pre and post run
 *    around every wrapped MPI call of a logged thread (liblmpe), in the
 *    calling thread, with the call's description;
 *  - sampling (init / trigger / finalize): trigger runs at every timer
 *    sample (INSIDE A SIGNAL HANDLER: only async-signal-safe work, no
 *    malloc, no locks, no stdio) and also at every instrumentation point
 *    (reason MPE_TRIGGER_CALL, normal context), so counters read there
 *    bound the samples between them.
 *
 *  - counters (MPE_PLUGIN_COUNTERS): a source of per-thread counts of
 *    named events (mpe_counter_source_t below).  libmpe asks each source
 *    for the events of MPE_COUNTERS it knows, counts them in every logged
 *    thread, reads them at timer samples and at MPE_Counters_read, and
 *    when a source counts fewer events at once than asked, rotates sets
 *    of events at random (the next set drawn at random when a period of
 *    MPE_COUNTERS_ROTATE ends: at the first instrumentation point, or
 *    timer sample when the source says MPE_COUNTER_SIGNAL_SAFE, after
 *    it) and scales each count by the time its set was active
 *    (mpe/src/mpe-counters.c).
 *
 * The built-in timer sampler is a sampling plugin of this ABI itself
 * ("sampler", mpe/src/mpe-sample.c), and the built-in counter sources
 * (perf software events, PAPI) are counter sources of it.  Every hook
 * may be NULL.  init
 * returning nonzero disables the plugin (with a message).  The ABI is
 * versioned by MPE_PLUGIN_ABI; a plugin built for another version is
 * refused.  Example: examples/plugin-count.c.
 */
#ifndef MPE_PLUGIN_H
#define MPE_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPE_PLUGIN_ABI 1

/* Why trigger was called. */
enum
{
  MPE_TRIGGER_TIMER = 1,   /* a timer sample (signal context) */
  MPE_TRIGGER_CALL = 2     /* an instrumentation point (normal context) */
};

/* Plugin kinds (bits of mpe_plugin_t.kinds). */
enum
{
  MPE_PLUGIN_INSTRUMENT = 1,
  MPE_PLUGIN_SAMPLE = 2,
  MPE_PLUGIN_COUNTERS = 4    /* mpe_plugin_t.counters is set */
};

/* What the host offers a plugin (valid from init to finalize). */
typedef struct mpe_plugin_host
{
  uint32_t    size;          /* sizeof (mpe_plugin_host_t) */
  uint32_t    abi;           /* MPE_PLUGIN_ABI */
  int         rank, nranks;  /* in MPI_COMM_WORLD */
  /* A setting: the environment first, then MPE_CONFIG's file; NULL when
   * neither has it.  Plugins read their own keys through it. */
  const char *(*setting) (const char *key);
  /* Nanoseconds on the log's clock (uncorrected, as the records). */
  uint64_t    (*now_ns) (void);
} mpe_plugin_host_t;

/* One wrapped MPI call, as pre and post see it. */
typedef struct mpe_plugin_call
{
  const char *name;          /* "MPI_Send" */
  int         state;         /* the wrapper's state number */
  int         thread;        /* the logger's thread index */
  uint64_t    t_ns;          /* when the hook runs (now_ns) */
  uint64_t    bytes;         /* post: bytes the call moved, when known */
  const void *call_site;     /* return address into the caller */
} mpe_plugin_call_t;

/* One trigger. */
typedef struct mpe_plugin_trigger
{
  int         reason;        /* MPE_TRIGGER_* */
  int         thread;
  uint64_t    t_ns;
  const void *pc;            /* interrupted instruction (timer), or the
                                call site (instrumentation point) */
} mpe_plugin_trigger_t;

/* Bits of mpe_counter_source_t.flags. */
enum
{
  /* start and stop are async-signal-safe too: a rotating source's sets
   * also change at timer samples, so a thread that reaches no
   * instrumentation point for a long time still rotates. */
  MPE_COUNTER_SIGNAL_SAFE = 1,
  /* read may be called from any thread of the process, for a set of
   * another thread (its counts so far): the finish then reads threads
   * that still run, besides the one finishing. */
  MPE_COUNTER_ANY_THREAD = 2
};

/* A counter source.  Counts are per thread (virtualised: only while the
 * thread runs) and cumulative since the set was opened, over the time it
 * was started.  `state` is what the plugin's init returned. */
typedef struct mpe_counter_source
{
  uint32_t size;             /* sizeof (mpe_counter_source_t) */
  /* Events counted at once on one thread (0: no limit). */
  int  (*slots) (void *state);
  /* 0 when the source counts `event` (*unit gets its unit: "1", "ns"),
   * < 0 when not, > 0 when not and the source said why on stderr. */
  int  (*known) (void *state, const char *event, const char **unit);
  /* In the thread to count: a stopped set of n known events; 0, or
   * nonzero (the source is not used on this thread). */
  int  (*open) (void *state, const char *const *events, int n, void **set);
  /* Normal context, in the set's thread; 0 or nonzero. */
  int  (*start) (void *set);
  int  (*stop) (void *set);
  /* The n counts so far.  ASYNC-SIGNAL-SAFE: timer samples read. */
  int  (*read) (void *set, int64_t *values);
  void (*close) (void *set);
  /* MPE_COUNTER_* bits.  Added after the first release: a source whose
   * size ends before it has none. */
  uint32_t flags;
} mpe_counter_source_t;

typedef struct mpe_plugin
{
  uint32_t    abi;           /* MPE_PLUGIN_ABI */
  uint32_t    kinds;         /* MPE_PLUGIN_INSTRUMENT | MPE_PLUGIN_SAMPLE */
  const char *name;
  int  (*init) (const mpe_plugin_host_t *host, void **state);
  void (*pre) (void *state, const mpe_plugin_call_t *call);
  void (*post) (void *state, const mpe_plugin_call_t *call);
  void (*trigger) (void *state, const mpe_plugin_trigger_t *t);
  void (*finalize) (void *state);
  /* Read only when kinds has MPE_PLUGIN_COUNTERS (older plugins end
   * before it). */
  const mpe_counter_source_t *counters;
} mpe_plugin_t;

/* The entry point a plugin exports. */
typedef const mpe_plugin_t *(*mpe_plugin_entry_fn) (void);
#define MPE_PLUGIN_ENTRY "mpe_plugin_entry"

#ifdef __cplusplus
}
#endif

#endif /* MPE_PLUGIN_H */
