/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clogsql: a log as SQLite tables (virtual-table module "clog").
 *
 *   CREATE VIRTUAL TABLE states USING clog('run.clog');
 *   CREATE VIRTUAL TABLE s2 USING clog('run.clog', states);
 *
 * The table kind is the second argument, or else the table's own name:
 * processes, threads, states, events, messages, metrics (docs/SQL.md lists the
 * columns).  The file is anything otf2in_reader_open opens (.clog, MPE2
 * logs, OTF2 archives); tables of one file in one connection share one
 * reader.  Constraints on rank, thread, stream and time go to the index:
 * only the streams and blocks they need are decoded.
 *
 * Built twice: into the loadable extension (sql/clogsql.so, entry point
 * sqlite3_clogsql_init, for the sqlite3 shell's .load and Python's
 * load_extension) and, with SQLITE_CORE, into clogtool query.
 */
#ifndef CLOGSQL_H
#define CLOGSQL_H

#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the "clog" module and the clog_blocks(file) function on db. */
int clogsql_register (sqlite3 *db);

/* Creates temp.processes, temp.threads, temp.states, temp.events,
 * temp.messages and temp.metrics over path.  *errmsg (sqlite3_free) on failure. */
int clogsql_attach (sqlite3 *db, const char *path, char **errmsg);

#ifdef __cplusplus
}
#endif

#endif
