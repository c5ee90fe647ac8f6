/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the clogtool subcommands (not installed). */
#ifndef CLOGTOOL_INTERNAL_H
#define CLOGTOOL_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include <logfmt/logfmt.h>

/* Exit codes of every subcommand. */
enum
{
  CLOGTOOL_EXIT_OK = 0,       /* success, file sound */
  CLOGTOOL_EXIT_PROBLEM = 1,  /* error or problem found in the file */
  CLOGTOOL_EXIT_USAGE = 2     /* bad command line */
};

/* "clogtool: <fmt>\n" on stderr. */
void clogtool__error (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));
/* "clogtool SUB: <fmt>\nTry 'clogtool SUB --help'.\n"; returns
 * CLOGTOOL_EXIT_USAGE. */
int clogtool__usage_error (const char *sub, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
/* Prints a library error: its message if set, else the code's text. */
void clogtool__lib_error (const char *what, int code,
                          const logfmt_error_t *err);

/* Time with an optional unit (s, ms, us, ns; none = seconds), decimal,
 * non-negative; parsed exactly (no floating point) into nanoseconds,
 * digits below 1 ns truncated.  Returns 0, or -1 if malformed. */
int clogtool__parse_time (const char *s, uint64_t *ns);
/* Whole decimal number in [min, max].  Returns 0 or -1. */
int clogtool__parse_int (const char *s, long long min, long long max,
                         long long *out);

/* "S.NNNNNNNNN" for a time in ns; buf needs 32 bytes. */
const char *clogtool__fmt_time (uint64_t ns, char *buf);
/* Writes s as a JSON string literal (quotes included). */
void clogtool__json_string (FILE *f, const char *s);

/* Writes s as a CSV field (RFC 4180): quoted when it holds a comma, a
 * quote or a line break. */
void clogtool__csv_string (FILE *f, const char *s);

/* Writes text from a file for a terminal: control bytes (escape
 * sequences, newlines, tabs) become '?'; padded with blanks to `width`
 * characters (UTF-8 aware). */
void clogtool__put_text (FILE *f, const char *s, int width);

/* Lower-case name of a logfmt_kind_t ("begin", ...), "?" if unknown. */
const char *clogtool__kind_name (int kind);

/* Opens a log for reading; prints the error and returns NULL on failure.
 * _flags takes LOGFMT_OPEN_* flags. */
logfmt_reader_t *clogtool__open (const char *path);
/* --progress for every command that reads a log: clogtool__open shows
 * the conversion of an OTF2 archive or MPE2 log on a terminal. */
void clogtool__want_progress (int on);
logfmt_reader_t *clogtool__open_flags (const char *path, unsigned flags);
/* Highest world rank of a stream + 1: per-rank tables are sized by the
 * ranks present, never by the header's world size alone. */
uint32_t clogtool__ranks_present (const logfmt_reader_t *r);
/* clogtool__open for the scheduling reports (threads.c): also NULL, with
 * an error that says how to record them, when the log has no context
 * switches. */
logfmt_reader_t *clogtool__open_sched (const char *path);

/* Flushes stdout; prints an error (e.g. full disk) and returns -1 if any
 * output was lost. */
int clogtool__flush_stdout (void);
/* The exit status after writing output: CLOGTOOL_EXIT_OK, or
 * CLOGTOOL_EXIT_PROBLEM if clogtool__flush_stdout failed. */
int clogtool__exit_after_output (void);

/* The usage error for what getopt_long (with a leading ':' in its
 * option string) returned as C: a missing value or an unknown option. */
int clogtool__bad_option (const char *sub, int c, char **argv);

/* 0 if exactly one FILE operand is left after optind; otherwise prints
 * the usage error and returns CLOGTOOL_EXIT_USAGE. */
int clogtool__one_file (const char *sub, int argc);

/* Progress of long work on stderr, "\rWHAT: NN%", only when stderr is a
 * terminal (nothing in logs or pipes).  The line is redrawn when the
 * percentage changes, at most every 0.1 s. */
typedef struct
{
  int on;
  int last;               /* percentage shown, -1 before the first */
  double last_t;          /* when it was drawn */
  const char *what;
} clogtool_progress_t;
void clogtool__progress_init (clogtool_progress_t *p, int wanted,
                              const char *what);
/* Shows fraction in [0, 1]; matches logfmt_progress_cb (returns 0). */
int clogtool__progress (void *p, double fraction);
/* Ends the line if one was drawn. */
void clogtool__progress_done (clogtool_progress_t *p);

/* Output file names where "-" is standard output.  A writer that seeks
 * (.clog) cannot write a pipe: clogtool__out_begin returns the path to
 * write, for "-" a new temporary file (tmp needs PATH_MAX bytes), or
 * NULL after printing an error; clogtool__out_end copies that file to
 * stdout when ok, removes it, and returns 0 or -1 (error printed). */
const char *clogtool__out_begin (const char *out, char *tmp);
int clogtool__out_end (const char *out, const char *path, int ok);

#endif
