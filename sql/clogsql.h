/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clogsql: a log as SQLite tables (virtual-table module "clog").
 *
 *   CREATE VIRTUAL TABLE states USING clog('run.clog');
 *   CREATE VIRTUAL TABLE s2 USING clog('run.clog', states);
 *
 * The table kind is the second argument, or else the table's own name:
 * processes, threads, states, events, messages, metrics, state_totals
 * (docs/SQL.md lists the columns).  The file is anything otf2in_reader_open opens (.clog, MPE2
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
 * temp.messages, temp.metrics and temp.state_totals over path.  *errmsg (sqlite3_free) on failure. */
int clogsql_attach (sqlite3 *db, const char *path, char **errmsg);

/* When st (prepared on db, not yet stepped) is a GROUP BY name over the
 * states table that asks only for name, count(*), sum(duration) or
 * sum(exclusive) (sql/shape.c has the exact shape), the same query over
 * state_totals, which gives the same rows, column names and order from
 * one pass without a row per instance (docs/SQL.md); else NULL.  Should
 * that query fail (state_totals refuses sums that sum() would not give
 * as exact integers), run st.  sqlite3_free the result.  Not in the
 * loadable extension; CLOGSQL_TOTALS=0 turns it off. */
char *clogsql_totals_sql (sqlite3 *db, sqlite3_stmt *st);

#ifdef __cplusplus
}
#endif

#endif
