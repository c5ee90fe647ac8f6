/* SPDX-License-Identifier: BSD-3-Clause */
/* Subcommands of clogtool: each is a main() of its own, given argv from
 * the subcommand's name on, and prints its own --help. */
#ifndef CLOGTOOL_H
#define CLOGTOOL_H

int clogtool_print_main (int argc, char **argv);
int clogtool_stats_main (int argc, char **argv);
int clogtool_verify_main (int argc, char **argv);
int clogtool_repair_main (int argc, char **argv);
int clogtool_gen_main (int argc, char **argv);
int clogtool_convert_main (int argc, char **argv);  /* tools/convert*.c */
int clogtool_recover_main (int argc, char **argv);  /* tools/recover.c */
int clogtool_query_main (int argc, char **argv);    /* tools/query.c */
int clogtool_matrix_main (int argc, char **argv);   /* tools/matrix.c */
int clogtool_profile_main (int argc, char **argv);  /* tools/profile.c */
int clogtool_waits_main (int argc, char **argv);    /* tools/waits.c */
int clogtool_critpath_main (int argc, char **argv); /* tools/critpath.c */
int clogtool_cct_main (int argc, char **argv);      /* tools/cct*.c */
int clogtool_threads_main (int argc, char **argv);  /* tools/threads.c */
int clogtool_cpus_main (int argc, char **argv);     /* tools/cpus.c */
int clogtool_memory_main (int argc, char **argv);   /* tools/memory.c */
int clogtool_metrics_main (int argc, char **argv);  /* tools/metrics.c */

#endif
