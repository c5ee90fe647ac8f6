/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe_callstack.h: a stack captured three static functions deep prints
   them, innermost first, with this file's name and the calling lines;
   fancyprint's prefix, index and frame limit; the iterator gives the same
   lines; an empty stack says so.  TAP output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpe_callstack.h"

static int n_test, n_failed;

static void
ok (int cond, const char *what)
{
  n_test++;
  if (!cond)
    n_failed++;
  printf ("%sok %d - %s\n", cond ? "" : "not ", n_test, what);
}

static MPE_CallStack_t cs;
static int line_inner, line_middle;

/* Prints into a temporary file and returns its text (malloc'd). */
static char *
printed (void (*print) (int fd))
{
  FILE *f = tmpfile ();
  print (fileno (f));
  long n = ftell (f);
  if (n < 0)
    n = lseek (fileno (f), 0, SEEK_END);
  char *s = calloc (1, (size_t) n + 1);
  lseek (fileno (f), 0, SEEK_SET);
  if (read (fileno (f), s, (size_t) n) != n)
    s[0] = '\0';
  fclose (f);
  return s;
}

static void print_plain (int fd) { MPE_CallStack_print (&cs, fd); }
static void
print_fancy (int fd)
{
  MPE_CallStack_fancyprint (&cs, fd, "PFX: ", 1, 2);
}

__attribute__ ((noinline)) static void
inner_frame (void)
{
  line_inner = __LINE__ + 1;
  MPE_CallStack_init (&cs);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) static void
middle_frame (void)
{
  line_middle = __LINE__ + 1;
  inner_frame ();
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) static void
outer_frame (void)
{
  middle_frame ();
  __asm__ volatile ("" ::: "memory");
}

/* Line k of s (0-based) into buf. */
static const char *
nth_line (const char *s, int k, char *buf, size_t n)
{
  for (; k > 0 && s; k--)
    {
      s = strchr (s, '\n');
      if (s)
        s++;
    }
  if (!s)
    return "";
  size_t len = strcspn (s, "\n");
  if (len >= n)
    len = n - 1;
  memcpy (buf, s, len);
  buf[len] = '\0';
  return buf;
}

int
main (void)
{
  char want[64], l0[1024], l1[1024], l2[1024];

  outer_frame ();
  ok (cs.depth >= 4, "at least 4 frames captured (3 functions and main)");

  char *all = printed (print_plain);
  nth_line (all, 0, l0, sizeof l0);
  nth_line (all, 1, l1, sizeof l1);
  nth_line (all, 2, l2, sizeof l2);
  ok (strncmp (l0, "inner_frame+", 12) == 0, "frame 0 is inner_frame");
  ok (strncmp (l1, "middle_frame+", 13) == 0, "frame 1 is middle_frame");
  ok (strncmp (l2, "outer_frame+", 12) == 0, "frame 2 is outer_frame");
  snprintf (want, sizeof want, "(callstack.c:%d)", line_inner);
  ok (strstr (l0, want) != NULL, "frame 0 names the line that captured");
  snprintf (want, sizeof want, "(callstack.c:%d)", line_middle);
  ok (strstr (l1, want) != NULL, "frame 1 names the calling line");
  ok (strstr (all, "\nmain+") != NULL, "main is on the stack");
  if (n_failed)
    printf ("# printed:\n# %s\n", all);

  char *fancy = printed (print_fancy);
  ok (strncmp (fancy, "PFX: [0] inner_frame+", 21) == 0,
      "fancyprint: prefix and index");
  ok (strstr (fancy, "\nPFX: [1] middle_frame+") != NULL,
      "fancyprint: second line");
  nth_line (fancy, 2, l2, sizeof l2);
  ok (l2[0] == '\0', "fancyprint stops at max_frames");

  MPE_CallStack_iteratorInit (&cs);
  int lines = 0, same = 1;
  while (MPE_CallStack_iteratorHasMore (&cs))
    {
      const char *l = MPE_CallStack_iteratorFetchNext (&cs);
      char expect[1024];
      nth_line (all, lines, expect, sizeof expect);
      same = same && l && strcmp (l, expect) == 0;
      lines++;
    }
  ok (lines == cs.depth, "the iterator gives one line per frame");
  ok (same, "iterator lines equal the printed lines");
  ok (MPE_CallStack_iteratorFetchNext (&cs) == NULL,
      "FetchNext past the end is NULL");

  cs.depth = 0;
  char *none = printed (print_plain);
  ok (strcmp (none, "No callstack trace available.\n") == 0,
      "an empty stack says so");
  free (all);
  free (fancy);
  free (none);
  printf ("1..%d\n", n_test);
  return n_failed ? 1 : 0;
}
