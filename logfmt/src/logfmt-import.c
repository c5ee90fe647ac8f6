/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPE2's files (CLOG2, CLOG v1) into .clog: what a file is, and the
 * conversion that the reader (to a temporary file), `clogtool convert` and
 * mpeview (next to the input) share.
 */
#include "config.h"
#include "logfmt-internal.h"
#include "logfmt-import-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* max_comm_world_size from a CLOG2 preamble, 0 if absent. */
static uint32_t
clog2_world_size (const uint8_t *d, size_t len)
{
  static const char key[] = "max_comm_world_size=";
  size_t n = len < 1024 ? len : 1024;
  for (size_t i = 0; i + sizeof key < n; i++)
    if (memcmp (d + i, key, sizeof key - 1) == 0)
      {
        size_t j = i + sizeof key;     /* past the key's NUL */
        unsigned long v = 0;
        while (j < n && d[j] == ' ')
          j++;
        while (j < n && d[j] >= '0' && d[j] <= '9' && v < (1ul << 30))
          v = v * 10 + (unsigned long) (d[j++] - '0');
        return (uint32_t) v;
      }
  return 0;
}

int
logfmt__import_mem (const uint8_t *data, size_t len, const char *name,
                    logfmt__file_format_t fmt, const char *out_path,
                    int unlink_out, const char *creator,
                    logfmt_progress_cb cb, void *user, logfmt_error_t *err)
{
  logfmt_writer_opts_t wo = { 0 };
  wo.size = sizeof wo;
  wo.match_messages = 1;
  wo.creator = creator ? creator
               : fmt == LOGFMT__FMT_CLOG2 ? "imported CLOG2"
                                          : "imported CLOG v1";
  wo.world_size = fmt == LOGFMT__FMT_CLOG2 ? clog2_world_size (data, len) : 0;
  logfmt_writer_t *w = NULL;
  int rc = logfmt_writer_open (out_path, &wo, &w, err);
  if (unlink_out)
    unlink (out_path);  /* the caller's descriptor keeps the data alive */
  if (rc)
    return rc;
  rc = (fmt == LOGFMT__FMT_CLOG2 ? logfmt__import_clog2
                                 : logfmt__import_clog1)
         (data, len, name, w, cb, user, err);
  if (rc)
    {
      logfmt_writer_abort (w);
      return rc;
    }
  return logfmt_writer_finish (w, err);
}

/* Maps path read-only; *len 0 means an empty file (nothing mapped). */
static int
map_file (const char *path, uint8_t **data, size_t *len, logfmt_error_t *err)
{
  *data = NULL;
  *len = 0;
  /* Non-blocking, so that a FIFO is refused rather than waited on. */
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return logfmt__err (err, LOGFMT_EIO, path, UINT64_MAX, "cannot open: %s",
                        strerror (errno));
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return logfmt__err (err, LOGFMT_EINVAL, path, UINT64_MAX,
                          "not a regular file");
    }
  if (st.st_size > 0)
    {
      void *m = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd,
                      0);
      if (m == MAP_FAILED)
        {
          int e = errno;
          close (fd);
          return logfmt__err (err, LOGFMT_EIO, path, UINT64_MAX, "mmap: %s",
                              strerror (e));
        }
      *data = m;
      *len = (size_t) st.st_size;
    }
  close (fd);
  return 0;
}

static logfmt_file_kind_t
kind_of (logfmt__file_format_t f)
{
  switch (f)
    {
    case LOGFMT__FMT_CLOG3: return LOGFMT_FILE_CLOG;
    case LOGFMT__FMT_CLOG2: return LOGFMT_FILE_CLOG2;
    case LOGFMT__FMT_CLOG1: return LOGFMT_FILE_CLOG1;
    default:                return LOGFMT_FILE_UNKNOWN;
    }
}

int
logfmt_file_kind (const char *path, logfmt_file_kind_t *kind,
                  logfmt_error_t *err)
{
  uint8_t *d;
  size_t len;
  if (!path || !kind)
    return logfmt__err (err, LOGFMT_EINVAL, path, UINT64_MAX,
                        "logfmt_file_kind: NULL argument");
  *kind = LOGFMT_FILE_UNKNOWN;
  int rc = map_file (path, &d, &len, err);
  if (rc)
    return rc;
  *kind = kind_of (logfmt__sniff (d, len, len));
  if (d)
    munmap (d, len);
  return 0;
}

int
logfmt_import_mpe2 (const char *in_path, const char *out_path,
                    const char *creator, logfmt_progress_cb cb, void *user,
                    logfmt_error_t *err)
{
  uint8_t *d;
  size_t len;
  if (!in_path || !out_path)
    return logfmt__err (err, LOGFMT_EINVAL, in_path, UINT64_MAX,
                        "logfmt_import_mpe2: NULL argument");
  int rc = map_file (in_path, &d, &len, err);
  if (rc)
    return rc;
  logfmt__file_format_t fmt = logfmt__sniff (d, len, len);
  if (fmt != LOGFMT__FMT_CLOG2 && fmt != LOGFMT__FMT_CLOG1)
    rc = logfmt__err (err, LOGFMT_EBADMAGIC, in_path, 0,
                      "not an MPE2 log (CLOG2 or CLOG v1)");
  else
    {
      madvise (d, len, MADV_SEQUENTIAL);
      rc = logfmt__import_mem (d, len, in_path, fmt, out_path, 0, creator,
                               cb, user, err);
    }
  if (d)
    munmap (d, len);
  return rc;
}
