/* SPDX-License-Identifier: BSD-3-Clause */
/* A program with a known profile for the sampling tests: hot_loop gets
 * 4/5 of the compute (always called through via_helper), warm_loop 1/5;
 * between rounds every rank calls MPI_Barrier (ROUNDS times).
 * Usage: hot [UNITS_PER_ROUND [ROUNDS [zero-fp]]]; with "zero-fp" (x86-64)
 * both loops spin in fp_leaf, a function with a frame pointer called
 * with rbp zero (as code built without frame pointers often leaves it):
 * a frame-pointer walk from it ends "validly" after two frames. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int zero_fp;

#if defined __x86_64__
/* zero_fp_call (n): calls fp_leaf (n) with rbp zero; fp_leaf spins n
 * times.  Both have call-frame information, so libunwind goes through. */
__asm__ (".text\n"
         ".type zero_fp_call, @function\n"
         "zero_fp_call:\n"
         ".cfi_startproc\n"
         "  push %rbp\n"
         "  .cfi_adjust_cfa_offset 8\n"
         "  .cfi_offset %rbp, -16\n"
         "  xor %ebp, %ebp\n"
         "  call fp_leaf\n"
         "  pop %rbp\n"
         "  .cfi_adjust_cfa_offset -8\n"
         "  .cfi_restore %rbp\n"
         "  ret\n"
         ".cfi_endproc\n"
         ".size zero_fp_call, .-zero_fp_call\n"
         ".type fp_leaf, @function\n"
         "fp_leaf:\n"
         ".cfi_startproc\n"
         "  push %rbp\n"
         "  .cfi_def_cfa_offset 16\n"
         "  .cfi_offset %rbp, -16\n"
         "  mov %rsp, %rbp\n"
         "  .cfi_def_cfa_register %rbp\n"
         "1:\n"
         "  sub $1, %rdi\n"
         "  jnz 1b\n"
         "  pop %rbp\n"
         "  .cfi_def_cfa %rsp, 8\n"
         "  ret\n"
         ".cfi_endproc\n"
         ".size fp_leaf, .-fp_leaf\n");
void zero_fp_call (long n);
#else
static void
zero_fp_call (long n)
{
  for (volatile long i = 0; i < n; i++)
    ;
}
#endif

/* The same work per unit in both loops, so the shares are the units'.
 * A zero-fp unit takes about as long as a multiply-add one (four of its
 * one-cycle iterations to one dependent multiply-add), so both modes get
 * as many samples. */
#define WORK(n, acc)                                                    \
  if (zero_fp)                                                          \
    zero_fp_call ((n) * 1600000L);                                      \
  else                                                                  \
    for (long i_ = 0; i_ < (n) * 200000L; i_++)                         \
      acc = acc * 1.0000001 + (double) (i_ & 7)

__attribute__ ((noinline)) static double
hot_loop (long units)
{
  double acc = 1.0;
  WORK (units, acc);          /* hot line */
  return acc;
}

__attribute__ ((noinline)) static double
via_helper (long units)
{
  double r = hot_loop (units);
  __asm__ volatile ("" : : : "memory");
  return r;
}

__attribute__ ((noinline)) static double
warm_loop (long units)
{
  double acc = 2.0;
  WORK (units, acc);
  return acc;
}

int
main (int argc, char **argv)
{
  long units = argc > 1 ? atol (argv[1]) : 20;
  int rounds = argc > 2 ? atoi (argv[2]) : 20;
  zero_fp = argc > 3 && !strcmp (argv[3], "zero-fp");
  MPI_Init (&argc, &argv);
  double sink = 0;
  for (int r = 0; r < rounds; r++)
    {
      sink += via_helper (4 * units);
      sink += warm_loop (units);
      MPI_Barrier (MPI_COMM_WORLD);
    }
  if (sink == 42.0)
    printf ("unlikely\n");
  MPI_Finalize ();
  return 0;
}
