/* SPDX-License-Identifier: BSD-3-Clause */
/* Call stacks (mpe_callstack.h): glibc's backtrace captures the return
   addresses; elfutils' libdw names them (function+offset, source file and
   line from the debug information, even for static functions), dladdr
   when libdw is absent (exported symbols only). */
#include "config.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBDW
# include <elfutils/libdwfl.h>
# include "cp-dwarf.h"
#endif

#include "mpe_callstack.h"

/* One frame as text (no newline): "func+0x1f (file.c:42) [module]". */
#ifdef HAVE_LIBDW
/* One Dwfl for the process, built on first use and rebuilt when an
   address falls outside every known module (a library loaded later). */
static pthread_mutex_t dwfl_lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *proc_dwfl;

static Dwfl *
dwfl_for_process (int refresh)
{
  static char *debuginfo_path;
  static const Dwfl_Callbacks cb = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
  };
  if (proc_dwfl && !refresh)
    return proc_dwfl;
  if (proc_dwfl)
    dwfl_end (proc_dwfl);
  proc_dwfl = dwfl_begin (&cb);
  if (!proc_dwfl)
    return NULL;
  dwfl_report_begin (proc_dwfl);
  if (dwfl_linux_proc_report (proc_dwfl, getpid ()) != 0
      || dwfl_report_end (proc_dwfl, NULL, NULL) != 0)
    {
      dwfl_end (proc_dwfl);
      proc_dwfl = NULL;
    }
  return proc_dwfl;
}

static int
format_dwfl (void *addr, int caller, char *out, size_t n)
{
  /* A return address points after the call: look up the call itself. */
  Dwarf_Addr pc = (Dwarf_Addr) (uintptr_t) addr - (caller ? 1 : 0);
  Dwfl *d = dwfl_for_process (0);
  Dwfl_Module *mod = d ? dwfl_addrmodule (d, pc) : NULL;
  if (d && !mod)
    {
      d = dwfl_for_process (1);
      mod = d ? dwfl_addrmodule (d, pc) : NULL;
    }
  if (!mod)
    return -1;
  const char *modname = dwfl_module_info (mod, NULL, NULL, NULL, NULL,
                                          NULL, NULL, NULL);
  GElf_Off off = 0;
  const char *fn, *src;
  int lineno = 0;
  cp_dwfl_lookup (mod, pc, &fn, &off, &src, &lineno);
  int len;
  if (fn)
    len = snprintf (out, n, "%s+0x%lx", fn,
                    (unsigned long) off + (caller ? 1 : 0));
  else
    len = snprintf (out, n, "%p", addr);
  if (src && len >= 0 && (size_t) len < n)
    {
      const char *base = strrchr (src, '/');
      len += snprintf (out + len, n - len, " (%s:%d)", base ? base + 1 : src,
                       lineno);
    }
  if (modname && len >= 0 && (size_t) len < n)
    snprintf (out + len, n - len, " [%s]", modname);
  return 0;
}
#endif

static void
format_frame (void *addr, int caller, char *out, size_t n)
{
#ifdef HAVE_LIBDW
  pthread_mutex_lock (&dwfl_lock);
  int r = format_dwfl (addr, caller, out, n);
  pthread_mutex_unlock (&dwfl_lock);
  if (r == 0)
    return;
#endif
  Dl_info info;
  if (dladdr (addr, &info) && info.dli_fname)
    {
      if (info.dli_sname)
        snprintf (out, n, "%s+0x%lx [%s]", info.dli_sname,
                  (unsigned long) ((char *) addr - (char *) info.dli_saddr),
                  info.dli_fname);
      else
        snprintf (out, n, "%p [%s+0x%lx]", addr, info.dli_fname,
                  (unsigned long) ((char *) addr - (char *) info.dli_fbase));
    }
  else
    snprintf (out, n, "%p", addr);
}

static const char no_trace[] = "No callstack trace available.";

/* noinline: the capture starts inside this function (and, under a
   sanitizer, inside its backtrace interceptor); the caller's frame is the
   one whose return address is ours. */
__attribute__ ((noinline)) void
MPE_CallStack_init (MPE_CallStack_t *cstk)
{
  void *frames[MPE_CALLSTACK_MAXDEPTH + 4];
  void *ret = __builtin_return_address (0);
  int n = backtrace (frames, MPE_CALLSTACK_MAXDEPTH + 4);
  int first = n > 1 ? 1 : n;
  for (int i = 0; i < n && i < 4; i++)
    if (frames[i] == ret)
      {
        first = i;
        break;
      }
  cstk->depth = n - first;
  if (cstk->depth > MPE_CALLSTACK_MAXDEPTH)
    cstk->depth = MPE_CALLSTACK_MAXDEPTH;
  if (cstk->depth > 0)
    memcpy (cstk->buffer, frames + first, cstk->depth * sizeof (void *));
  cstk->iter_idx = 0;
  cstk->line[0] = '\0';
}

static void
write_all (int fd, const char *s, size_t n)
{
  while (n > 0)
    {
      ssize_t w = write (fd, s, n);
      if (w <= 0)
        return;
      s += w;
      n -= (size_t) w;
    }
}

void
MPE_CallStack_fancyprint (MPE_CallStack_t *cstk, int fd, const char *prefix,
                          int print_idx, int max_frames)
{
  char frame[MPE_CALLSTACK_MAXLINE], line[MPE_CALLSTACK_MAXLINE + 64];
  if (cstk->depth <= 0)
    {
      int len = snprintf (line, sizeof line, "%s%s\n", prefix ? prefix : "",
                          no_trace);
      write_all (fd, line, (size_t) len < sizeof line ? (size_t) len
                                                      : sizeof line - 1);
      return;
    }
  for (int i = 0; i < cstk->depth && i < max_frames; i++)
    {
      format_frame (cstk->buffer[i], 1, frame, sizeof frame);
      int len;
      if (print_idx)
        len = snprintf (line, sizeof line, "%s[%d] %s\n",
                        prefix ? prefix : "", i, frame);
      else
        len = snprintf (line, sizeof line, "%s%s\n", prefix ? prefix : "",
                        frame);
      if (len < 0)
        continue;
      if ((size_t) len >= sizeof line)
        {
          len = sizeof line - 1;
          line[len - 1] = '\n';
        }
      write_all (fd, line, (size_t) len);
    }
}

void
MPE_CallStack_print (MPE_CallStack_t *cstk, int fd)
{
  MPE_CallStack_fancyprint (cstk, fd, NULL, 0, MPE_CALLSTACK_UNLIMITED);
}

void
MPE_CallStack_iteratorInit (MPE_CallStack_t *cstk)
{
  cstk->iter_idx = 0;
}

int
MPE_CallStack_iteratorHasMore (MPE_CallStack_t *cstk)
{
  /* An empty stack still has its one "No callstack" line. */
  int lines = cstk->depth > 0 ? cstk->depth : 1;
  return cstk->iter_idx < lines;
}

const char *
MPE_CallStack_iteratorFetchNext (MPE_CallStack_t *cstk)
{
  if (!MPE_CallStack_iteratorHasMore (cstk))
    return NULL;
  if (cstk->depth <= 0)
    snprintf (cstk->line, sizeof cstk->line, "%s", no_trace);
  else
    format_frame (cstk->buffer[cstk->iter_idx], 1, cstk->line,
                  sizeof cstk->line);
  cstk->iter_idx++;
  return cstk->line;
}
