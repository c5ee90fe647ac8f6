/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin host (mpe_plugin.h) and the wrappers' instrumentation points:
 * mpe__instr_pre/post run around each wrapped MPI call when call sites
 * (MPE_CALLSITE) or a plugin want them; they record the call site and the
 * call's time and bytes in the thread's store (mpe-sample.c) and run the
 * plugins' pre/post hooks and, at each point, their triggers.
 */
#include "config.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-plugin-internal.h"
#include "mpe-sample.h"
#include "mpe-counters.h"

int mpe__callsite_mode;
int mpe__instr_on;
static int test_reenter;

#define MAX_PLUGINS 16

typedef struct
{
  const mpe_plugin_t *p;
  void *state;
  void *dl;
} loaded_t;

static loaded_t plugs[MAX_PLUGINS];
static int nplugs;
static int have_pre, have_trigger;

static uint64_t
host_now (void)
{
  return mpe__ticks_to_local (mpe__ticks ());
}

static mpe_plugin_host_t host = {
  sizeof (mpe_plugin_host_t), MPE_PLUGIN_ABI, 0, 1, mpe__setting, host_now
};

static void
add_plugin (const mpe_plugin_t *p, void *dl, const char *from)
{
  if (!p || p->abi != MPE_PLUGIN_ABI)
    {
      fprintf (stderr, "mpe: plugin %s: ABI %u, this libmpe has %d; not "
               "loaded\n", from, p ? p->abi : 0u, MPE_PLUGIN_ABI);
      return;
    }
  if (nplugs == MAX_PLUGINS)
    {
      fprintf (stderr, "mpe: more than %d plugins; %s not loaded\n",
               MAX_PLUGINS, from);
      return;
    }
  loaded_t *l = &plugs[nplugs];
  l->p = p;
  l->dl = dl;
  l->state = NULL;
  if (p->init && p->init (&host, &l->state) != 0)
    {
      fprintf (stderr, "mpe: plugin %s (%s) declined to start\n",
               p->name ? p->name : "?", from);
      return;
    }
  nplugs++;
  if ((p->kinds & MPE_PLUGIN_COUNTERS) && p->counters)
    mpe__counters_add_source (p->counters, l->state, p->name);
  have_pre |= p->pre || p->post;
  have_trigger |= p->trigger != NULL;
}

static void
load_shared (const char *path)
{
  void *dl = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (!dl)
    {
      fprintf (stderr, "mpe: cannot load plugin %s: %s\n", path, dlerror ());
      return;
    }
  mpe_plugin_entry_fn entry;
  *(void **) &entry = dlsym (dl, MPE_PLUGIN_ENTRY);
  if (!entry)
    {
      fprintf (stderr, "mpe: plugin %s has no %s()\n", path,
               MPE_PLUGIN_ENTRY);
      dlclose (dl);
      return;
    }
  add_plugin (entry (), dl, path);
}

void
mpe__plugins_init (void)
{
  host.rank = mpe__g.rank;
  host.nranks = mpe__g.size;
  const char *cs = getenv ("MPE_CALLSITE");
  mpe__callsite_mode = 0;
  if (cs && (!strcmp (cs, "stack")))
    mpe__callsite_mode = 2;
  else if (cs && *cs && strcmp (cs, "off") && strcmp (cs, "no")
           && strcmp (cs, "0"))
    mpe__callsite_mode = 1;
  /* With sampling on, call sites by default: communication time then
   * lands on the calling context that caused it. */
  else if (!cs && getenv ("MPE_SAMPLE_HZ") && mpe__sample_active ())
    mpe__callsite_mode = 1;
  test_reenter = mpe__env_bool ("MPE_TEST_SAMPLE_REENTER", 0)
                 && mpe__sample_active ();
  const char **paths;
  size_t n = mpe__config_plugins (&paths);
  for (size_t i = 0; i < n; i++)
    load_shared (paths[i]);
  mpe__counters_init ();
  /* Rotated counter sets change at instrumentation points. */
  __atomic_store_n (&mpe__instr_on,
                    mpe__callsite_mode || have_pre || have_trigger
                    || mpe__ctr_rotating,
                    __ATOMIC_RELEASE);
}

void
mpe__plugins_finalize (void)
{
  __atomic_store_n (&mpe__instr_on, 0, __ATOMIC_RELEASE);
  mpe__counters_finalize ();
  for (int i = nplugs - 1; i >= 0; i--)
    {
      if (plugs[i].p->finalize)
        plugs[i].p->finalize (plugs[i].state);
      /* The object stays mapped: a timer sample may still be in flight
       * on another thread, and its addresses are in the log. */
    }
  nplugs = 0;
  have_pre = have_trigger = 0;
}

void
mpe__plugins_trigger (int reason, int thread, const void *pc)
{
  if (!have_trigger)
    return;
  mpe_plugin_trigger_t t = { reason, thread, host_now (), pc };
  for (int i = 0; i < nplugs; i++)
    if (plugs[i].p->trigger)
      plugs[i].p->trigger (plugs[i].state, &t);
}

/* ------------------------------------------------------------------ */
/* Instrumentation points                                              */
/* ------------------------------------------------------------------ */

/* The path from the wrapper's caller to main: unwound here (not in a
 * handler) and cut where the caller's return address starts it. */
static int
stack_from (const void *site, uint64_t *pcs, int max)
{
  void *buf[80];
  int got = mpe__backtrace (buf, 80);
  int k = 0;
  while (k < got && buf[k] != site)
    k++;
  if (k >= got)
    {
      pcs[0] = (uint64_t) (uintptr_t) site - 1;
      return 1;
    }
  int n = 0;
  for (; k < got && n < max && buf[k]; k++)
    pcs[n++] = (uint64_t) (uintptr_t) buf[k] - 1;
  return n;
}

void
mpe__instr_pre (int state, const char *name, const void *site,
                uint64_t bytes)
{
  mpe_sthread_t *s = mpe__sthread_get ();
  if (s)
    {
      s->cur_state = state;
      s->cur_name = name;
      s->cur_bytes = bytes;
    }
  /* Caller mode (the default): the whole path to the call site, as in
   * stack mode, so that a call's data land on the context its samples
   * have; unwound once per site and stack depth.  A site reached at the
   * same depth through another caller whose frames have the very same
   * sizes is taken for the first one met. */
  uintptr_t frame = (uintptr_t) __builtin_frame_address (0);
  unsigned slot = (unsigned) ((((uintptr_t) site >> 2) ^ (frame >> 4))
                              % MPE_SITE_CACHE);
  if (s && mpe__callsite_mode == 1 && s->site_cache[slot].site == site
      && s->site_cache[slot].frame == frame && MPE_LIKELY (!test_reenter))
    {
      s->cur_node = s->site_cache[slot].node;
      s->cur_t0 = mpe__ticks ();
    }
  else if (s && mpe__callsite_mode)
    {
      uint64_t pcs[64];
      int n = stack_from (site, pcs, 64);
      s->cur_node = 0;
      s->busy = 1;
      atomic_signal_fence (memory_order_seq_cst);
      /* MPE_TEST_SAMPLE_REENTER: a sample lands in the middle of the
       * change, every time (tests/sampling/reenter.sh). */
      if (MPE_UNLIKELY (test_reenter))
        raise (SIGPROF);
      uint32_t node = mpe__cp_intern (s, pcs, n);
      atomic_signal_fence (memory_order_seq_cst);
      s->busy = 0;
      s->cur_node = node;
      /* Only a whole path is cached (a full tree cuts it short). */
      if (mpe__callsite_mode == 1 && node)
        {
          s->site_cache[slot].site = site;
          s->site_cache[slot].frame = frame;
          s->site_cache[slot].node = node;
        }
      s->cur_t0 = mpe__ticks ();
    }
  if (have_pre)
    {
      mpe_plugin_call_t c = { name, state, s ? s->thread : -1, host_now (),
                              bytes, site };
      for (int i = 0; i < nplugs; i++)
        if (plugs[i].p->pre)
          plugs[i].p->pre (plugs[i].state, &c);
    }
  if (have_trigger)
    mpe__plugins_trigger (MPE_TRIGGER_CALL, s ? s->thread : -1, site);
  if (mpe__ctr_rotating)
    mpe__counters_point ();
}

void
mpe__instr_post (uint64_t bytes)
{
  mpe_sthread_t *s = mpe__sthread ();
  if (!s)
    return;
  int32_t state = s->cur_state;
  if (state < 0)
    return;
  if (mpe__callsite_mode)
    {
      uint64_t t1 = mpe__ticks ();
      if (s->nsites < s->maxsites)
        {
          mpe_callsite_t *c = &s->sites[s->nsites++];
          c->t0 = s->cur_t0;
          c->t1 = t1;
          c->bytes = s->cur_bytes + bytes;
          c->node = s->cur_node;
          c->state = state;
        }
      else
        s->lost++;
    }
  if (have_pre)
    {
      mpe_plugin_call_t c = { s->cur_name, state, s->thread, host_now (),
                              s->cur_bytes + bytes, NULL };
      for (int i = 0; i < nplugs; i++)
        if (plugs[i].p->post)
          plugs[i].p->post (plugs[i].state, &c);
    }
  s->cur_state = -1;
  s->cur_node = 0;
}
