/* SPDX-License-Identifier: BSD-3-Clause */
/* MPE2's miscellaneous helpers (sequential sections, tags, decomposition). */
#ifndef MPE_MISC_H
#define MPE_MISC_H

/* Serial programs with libmpe_nompi (-DCLOG_NOMPI) have no mpi.h and no
 * use for these MPI helpers. */
#if !defined(CLOG_NOMPI)
#include <mpi.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
# define MPE_MISC_API __attribute__ ((visibility ("default")))
#else
# define MPE_MISC_API
#endif

MPE_MISC_API void MPE_Seq_begin (MPI_Comm comm, int ng);
MPE_MISC_API void MPE_Seq_end (MPI_Comm comm, int ng);
MPE_MISC_API int  MPE_DelTag (MPI_Comm comm, int keyval, void *attr_val,
                              void *extra_state);
MPE_MISC_API int  MPE_GetTags (MPI_Comm comm_in, int ntags,
                               MPI_Comm *comm_out, int *first_tag);
MPE_MISC_API int  MPE_ReturnTags (MPI_Comm comm, int first_tag, int ntags);
MPE_MISC_API int  MPE_TagsEnd (void);
MPE_MISC_API void MPE_IO_Stdout_to_file (char *name, int mode);
MPE_MISC_API void MPE_GetHostName (char *name, int len);
MPE_MISC_API void MPE_Start_debugger (void);
MPE_MISC_API void MPE_Errors_call_debugger (char *pgm, char *dbg,
                                            char **args);
MPE_MISC_API void MPE_Errors_call_xdbx (char *pgm, char *dbg);
MPE_MISC_API void MPE_Errors_call_dbx_in_xterm (char *pgm, char *dbg);
MPE_MISC_API void MPE_Signals_call_debugger (void);
/* Splits 1..n over size ranks: this rank gets s..e (1-based). */
MPE_MISC_API int  MPE_Decomp1d (int n, int size, int rank, int *s, int *e);
MPE_MISC_API void MPE_Comm_global_rank (MPI_Comm comm, int rank,
                                        int *world_rank);
MPE_MISC_API void MPE_Errors_to_dbx (MPI_Comm *comm, int *code, ...);
/* Print the copies MPI makes to pack (unpack) count x type, one line per
   contiguous run: "Copy N bytes from offset A to offset B" (offsets
   shifted by in_offset / out_offset; 0 for most uses). */
MPE_MISC_API int  MPE_Print_datatype_pack_action (FILE *fp, int count,
                                                  MPI_Datatype type,
                                                  int in_offset,
                                                  int out_offset);
MPE_MISC_API int  MPE_Print_datatype_unpack_action (FILE *fp, int count,
                                                    MPI_Datatype type,
                                                    int in_offset,
                                                    int out_offset);

#ifdef __cplusplus
}
#endif

#endif /* !CLOG_NOMPI */
#endif
