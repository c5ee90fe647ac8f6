/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes a small log whose state names group awkwardly: two states share
 * the name "b", one has no name (NULL: the NULL group), "B" and "a"
 * differ from "b" only in byte order, and the first instance met is not
 * the first name in byte order.  mklog-names FILE. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <logfmt/logfmt.h>

static logfmt_event_t
ev (uint64_t t, int32_t id)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.time = t;
  e.type = LOGFMT_REC_EVENT;
  e.id = id;
  e.state = -1;
  return e;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: mklog-names FILE\n");
      return 2;
    }
  logfmt_error_t err = { 0 };
  logfmt_writer_opts_t o;
  memset (&o, 0, sizeof o);
  o.size = sizeof o;
  o.world_size = 2;
  logfmt_writer_t *w = NULL;
  if (logfmt_writer_open (argv[1], &o, &w, &err) < 0)
    {
      fprintf (stderr, "mklog-names: %s\n", err.message);
      return 1;
    }
  const logfmt_state_def_t defs[] = {
    { 10, 11, "b", "red", NULL, 0 },
    { 20, 21, "a", "blue", NULL, 0 },
    { 30, 31, "b", "green", NULL, 0 },
    { 40, 41, NULL, "gray", NULL, 0 },
    { 50, 51, "B", "yellow", NULL, 0 },
  };
  int rc = 0;
  for (size_t i = 0; i < sizeof defs / sizeof defs[0] && rc >= 0; i++)
    rc = logfmt_writer_add_state (w, &defs[i]);
  uint32_t st[3];
  const logfmt_stream_def_t sd[3] = { { 0, 0, "n" }, { 1, 0, "n" },
                                      { 1, 1, "n" } };
  for (int i = 0; i < 3 && rc >= 0; i++)
    rc = logfmt_writer_add_stream (w, &sd[i], &st[i]);
  /* Stream 0 starts with "b" (second definition), nested states, one
   * left open; the others repeat a pattern with every name. */
  for (uint32_t s = 0; s < 3 && rc >= 0; s++)
    {
      uint64_t t = 1000 * (s + 1);
      static const int32_t first[] = { 30, 40, 20, 10, 50 };
      for (int rep = 0; rep < 50 && rc >= 0; rep++)
        for (int k = 0; k < 5 && rc >= 0; k++)
          {
            int32_t id = first[(k + s + (uint32_t) rep) % 5];
            logfmt_event_t e[4] = { ev (t, id), ev (t + 7 + k, 20),
                                    ev (t + 20 + 3 * rep, 21),
                                    ev (t + 40 + k + s, id + 1) };
            rc = logfmt_writer_event (w, st[s], e, 4);
            t += 100;
          }
      if (rc >= 0 && s == 2)
        {
          logfmt_event_t e = ev (t, 50);   /* left open */
          rc = logfmt_writer_event (w, st[s], &e, 1);
        }
    }
  if (rc < 0 || logfmt_writer_finish (w, &err) < 0)
    {
      fprintf (stderr, "mklog-names: %s\n",
               err.message[0] ? err.message : logfmt_strerror (rc));
      if (rc < 0)
        logfmt_writer_abort (w);
      return 1;
    }
  return 0;
}
