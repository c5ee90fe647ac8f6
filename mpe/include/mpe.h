/* SPDX-License-Identifier: BSD-3-Clause */
/* Umbrella header of the MPE-compatible library. */
#ifndef MPE_INCLUDE
#define MPE_INCLUDE

#include "mpe_misc.h"
#include "mpe_log.h"

#if defined(MPE_GRAPHICS) && defined(__has_include)
# if __has_include("mpe_graphics.h")
#  include "mpe_graphics.h"
# endif
#endif

#endif
