/* SPDX-License-Identifier: BSD-3-Clause */
/* MPE2's call stacks: capture the current stack, print it symbolised
   (function, source file and line where debug information exists, the
   module otherwise), or iterate over the printed lines.  No MPI needed. */
#ifndef MPE_CALLSTACK_H
#define MPE_CALLSTACK_H

#ifdef __cplusplus
extern "C" {
#endif

/* MPE_CALLSTACK_LOCAL: a library that embeds its own private copy. */
#if defined(__GNUC__) && defined(MPE_CALLSTACK_LOCAL)
# define MPE_CALLSTACK_API __attribute__ ((visibility ("hidden")))
#elif defined(__GNUC__)
# define MPE_CALLSTACK_API __attribute__ ((visibility ("default")))
#else
# define MPE_CALLSTACK_API
#endif

#define MPE_CALLSTACK_MAXLINE   1024
#define MPE_CALLSTACK_MAXDEPTH  128
#define MPE_CALLSTACK_UNLIMITED 9999

typedef struct
{
  void *buffer[MPE_CALLSTACK_MAXDEPTH];  /* return addresses, caller first */
  int   depth;                           /* frames in buffer */
  int   iter_idx;                        /* next frame the iterator prints */
  char  line[MPE_CALLSTACK_MAXLINE];     /* the iterator's current line */
} MPE_CallStack_t;

/* Captures the stack of the caller (frame 0 is the function that calls
   MPE_CallStack_init), at most MPE_CALLSTACK_MAXDEPTH frames. */
MPE_CALLSTACK_API void MPE_CallStack_init (MPE_CallStack_t *cstk);

/* Writes one symbolised frame per line to file descriptor fd, or
   "No callstack trace available." when nothing could be captured. */
MPE_CALLSTACK_API void MPE_CallStack_print (MPE_CallStack_t *cstk, int fd);

/* As MPE_CallStack_print, each line starting with prefix (may be NULL),
   then "[i] " when print_idx is non-zero; at most max_frames lines
   (MPE_CALLSTACK_UNLIMITED for all). */
MPE_CALLSTACK_API void MPE_CallStack_fancyprint (MPE_CallStack_t *cstk,
                                                 int fd, const char *prefix,
                                                 int print_idx,
                                                 int max_frames);

/* Iterates over the lines MPE_CallStack_print would write (without the
   newline).  The string FetchNext returns lives in cstk until the next
   FetchNext. */
MPE_CALLSTACK_API void MPE_CallStack_iteratorInit (MPE_CallStack_t *cstk);
MPE_CALLSTACK_API int  MPE_CallStack_iteratorHasMore (MPE_CallStack_t *cstk);
MPE_CALLSTACK_API const char *
MPE_CallStack_iteratorFetchNext (MPE_CallStack_t *cstk);

#ifdef __cplusplus
}
#endif

#endif
