/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool query: SQL over a log, through the clog virtual tables
 * (sql/clogsql.h) in an in-memory SQLite database. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clogtool.h"
#include "clogtool-internal.h"

static void
query_help (void)
{
  fputs (
    "Usage: clogtool query [--csv|--json] FILE [SQL]\n"
    "\n"
    "Runs SQL over a log (.clog, MPE2 log or OTF2 archive) and prints\n"
    "each statement's rows as CSV with a header line, or with --json as\n"
    "one JSON array of objects per statement.  Without SQL, reads\n"
    "statements from standard input (an interactive shell on a\n"
    "terminal: end a statement with ';', .tables lists the tables,\n"
    ".quit leaves).\n"
    "\n"
    "Tables (times are ns from the start of the run):\n"
    "  processes(rank, host, threads, events)\n"
    "  threads(stream, rank, thread, host, events)\n"
    "  states(rank, thread, name, start, end, duration, exclusive, depth,\n"
    "         open, cargo, info, state, stream)   one row per instance\n"
    "  events(rank, thread, time, kind, name, id, partner, tag, size,\n"
    "         comm, cargo, info, stream)\n"
    "  messages(send_rank, send_thread, send_time, recv_rank, recv_thread,\n"
    "           recv_time, tag, bytes, comm, comm_name)\n"
    "  metrics(rank, thread, time, name, id, object, value, unit, stream)\n"
    "  state_totals(name, count, duration, exclusive)   per state name;\n"
    "    SELECT name, count(*), sum(duration) FROM states GROUP BY name\n"
    "    (also sum(exclusive), ORDER BY name, LIMIT) is answered from it\n"
    "  waits(...), critical_path(...)   where MPI calls waited and why,\n"
    "    and the run's critical path (clogtool waits, critical-path;\n"
    "    columns in docs/SQL.md)\n"
    "Conditions on rank, thread, stream and time (states: start, end;\n"
    "events, metrics: time; messages: send_time, recv_time) only read\n"
    "the streams and blocks they need.  clog_blocks('FILE') counts the\n"
    "blocks read.\n"
    "\n"
    "Options:\n"
    "      --csv    CSV (the default)\n"
    "  -j, --json   JSON instead of CSV\n"
    "  -h, --help   show this help\n"
    "\n"
    "Example:\n"
    "  clogtool query run.clog \\\n"
    "    \"SELECT name, count(*), sum(duration) FROM states GROUP BY name\"\n"
    "\n"
    "Exit status: 0 success, 1 error (file or SQL), 2 bad usage.\n",
    stdout);
}

#ifndef HAVE_SQLITE

int
clogtool_query_main (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0)
      {
        query_help ();
        return clogtool__exit_after_output ();
      }
  clogtool__error ("query: this clogtool was built without SQLite "
                   "(install libsqlite3-dev and reconfigure)");
  return CLOGTOOL_EXIT_PROBLEM;
}

#else

#include <sqlite3.h>
#include "clogsql.h"

static void
put_hex (const unsigned char *b, int n)
{
  for (int i = 0; i < n; i++)
    printf ("%02x", b[i]);
}

static void
put_value (sqlite3_stmt *st, int i, int json)
{
  switch (sqlite3_column_type (st, i))
    {
    case SQLITE_INTEGER:
      printf ("%lld", (long long) sqlite3_column_int64 (st, i));
      break;
    case SQLITE_FLOAT:
      {
        /* As the sqlite3 shell prints it: 15 significant digits, always
         * a decimal point or exponent, so 2.491761765 does not come out
         * as 2.4917617650000001. */
        double v = sqlite3_column_double (st, i);
        char buf[64];
        if (json && !isfinite (v))
          fputs ("null", stdout);
        else
          fputs (sqlite3_snprintf (sizeof buf, buf, "%!.15g", v), stdout);
      }
      break;
    case SQLITE_TEXT:
      if (json)
        clogtool__json_string (stdout,
                               (const char *) sqlite3_column_text (st, i));
      else
        clogtool__csv_string (stdout, (const char *) sqlite3_column_text (st, i));
      break;
    case SQLITE_BLOB:
      if (json)
        putchar ('"');
      put_hex (sqlite3_column_blob (st, i), sqlite3_column_bytes (st, i));
      if (json)
        putchar ('"');
      break;
    default:
      if (json)
        fputs ("null", stdout);
      break;
    }
}

/* The statement to run for st, its first step done (*rc): the same query
 * over state_totals when it has the answer (clogsql_totals_sql), else
 * st.  The other is finalized. */
static sqlite3_stmt *
first_step (sqlite3 *db, sqlite3_stmt *st, int *rc)
{
  char *sql = clogsql_totals_sql (db, st);
  sqlite3_stmt *fast = NULL;
  if (sql && sqlite3_prepare_v2 (db, sql, -1, &fast, NULL) == SQLITE_OK
      && fast)
    {
      int r = sqlite3_step (fast);
      if (r == SQLITE_ROW || r == SQLITE_DONE)
        {
          const char *e = getenv ("CLOGSQL_TOTALS");
          if (e && strcmp (e, "show") == 0)
            fprintf (stderr, "clogtool query: answered as: %s\n", sql);
          sqlite3_free (sql);
          sqlite3_finalize (st);
          *rc = r;
          return fast;
        }
    }
  /* (an error there: SQLite's own answer, or its own error, follows) */
  sqlite3_finalize (fast);
  sqlite3_free (sql);
  *rc = sqlite3_step (st);
  return st;
}

/* A query is a read: the authorizer refuses attaching, every change to
 * a table or a schema, and setting pragmas; what it cannot see (VACUUM
 * INTO) sqlite3_stmt_readonly catches in run_sql. */
static int
authorize (void *user, int action, const char *a1, const char *a2,
           const char *dbname, const char *trigger)
{
  (void) user;
  (void) dbname;
  (void) trigger;
  static const char *const read_pragmas[] = {
    "table_info", "table_xinfo", "table_list", "index_list", "index_info",
    "index_xinfo", "function_list", "module_list", "pragma_list",
    "collation_list", "database_list", "compile_options", NULL
  };
  switch (action)
    {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
    case SQLITE_TRANSACTION:     /* BEGIN ... COMMIT around reads */
    case SQLITE_SAVEPOINT:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      /* a2: the function's name. */
      return a2 && sqlite3_stricmp (a2, "load_extension") == 0
             ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_PRAGMA:
      for (int i = 0; a1 && read_pragmas[i]; i++)
        if (sqlite3_stricmp (a1, read_pragmas[i]) == 0)
          return SQLITE_OK;
      return SQLITE_DENY;
    default:
      /* ATTACH, DETACH, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER,
       * ANALYZE, REINDEX. */
      return SQLITE_DENY;
    }
}

/* Runs every statement of sql; prints their rows.  0 or -1. */
static int
run_sql (sqlite3 *db, const char *sql, int json)
{
  const char *tail = sql;
  while (tail && *tail)
    {
      sqlite3_stmt *st = NULL;
      if (sqlite3_prepare_v2 (db, tail, -1, &st, &tail) != SQLITE_OK)
        {
          clogtool__error ("query: %s%s", sqlite3_errmsg (db),
                           sqlite3_errcode (db) == SQLITE_AUTH
                           ? " (queries are reads: no ATTACH, no changes to "
                             "tables or schema, no pragmas that set)" : "");
          return -1;
        }
      if (!st)
        continue;   /* blank or comment */
      if (!sqlite3_stmt_readonly (st))
        {
          clogtool__error ("query: queries are reads; this one writes: %s",
                           sqlite3_sql (st));
          sqlite3_finalize (st);
          return -1;
        }
      int rc;
      st = first_step (db, st, &rc);
      int nc = sqlite3_column_count (st);
      long rows = 0;
      if (nc && !json)
        {
          for (int i = 0; i < nc; i++)
            {
              if (i)
                putchar (',');
              clogtool__csv_string (stdout, sqlite3_column_name (st, i));
            }
          putchar ('\n');
        }
      if (nc && json)
        putchar ('[');
      for (; rc == SQLITE_ROW; rc = sqlite3_step (st))
        {
          if (json)
            {
              fputs (rows ? ",\n {" : "{", stdout);
              for (int i = 0; i < nc; i++)
                {
                  if (i)
                    putchar (',');
                  clogtool__json_string (stdout, sqlite3_column_name (st, i));
                  putchar (':');
                  put_value (st, i, 1);
                }
              putchar ('}');
            }
          else
            {
              for (int i = 0; i < nc; i++)
                {
                  if (i)
                    putchar (',');
                  put_value (st, i, 0);
                }
              putchar ('\n');
            }
          rows++;
        }
      if (nc && json)
        fputs ("]\n", stdout);
      if (rc != SQLITE_DONE)
        {
          clogtool__error ("query: %s", sqlite3_errmsg (db));
          sqlite3_finalize (st);
          return -1;
        }
      sqlite3_finalize (st);
    }
  return 0;
}

static void
list_tables (sqlite3 *db)
{
  run_sql (db, "SELECT name, sql FROM sqlite_temp_master "
               "WHERE type = 'table' ORDER BY name", 0);
}

/* Statements from standard input, each run when complete. */
static int
shell (sqlite3 *db, int json)
{
  int tty = isatty (0);
  size_t cap = 4096, len = 0;
  char *buf = malloc (cap), line[4096];
  int status = CLOGTOOL_EXIT_OK;
  if (!buf)
    {
      clogtool__error ("out of memory");
      return CLOGTOOL_EXIT_PROBLEM;
    }
  buf[0] = '\0';
  if (tty)
    fputs ("SQL over the log; end statements with ';', .tables lists the "
           "tables, .quit leaves.\n", stderr);
  for (;;)
    {
      if (tty)
        {
          fputs (len ? "   ...> " : "clog> ", stderr);
          fflush (stderr);
        }
      if (!fgets (line, sizeof line, stdin))
        break;
      if (len == 0 && line[0] == '.')
        {
          if (strncmp (line, ".quit", 5) == 0 || strncmp (line, ".exit", 5) == 0)
            break;
          if (strncmp (line, ".tables", 7) == 0)
            list_tables (db);
          else
            fprintf (stderr, "clogtool query: unknown command %s"
                     "(.tables, .quit)\n", line);
          continue;
        }
      size_t n = strlen (line);
      if (len + n + 1 > cap)
        {
          char *p = realloc (buf, (cap = (len + n + 1) * 2));
          if (!p)
            {
              clogtool__error ("out of memory");
              free (buf);
              return CLOGTOOL_EXIT_PROBLEM;
            }
          buf = p;
        }
      memcpy (buf + len, line, n + 1);
      len += n;
      if (sqlite3_complete (buf))
        {
          if (run_sql (db, buf, json))
            status = CLOGTOOL_EXIT_PROBLEM;
          fflush (stdout);
          len = 0;
          buf[0] = '\0';
        }
    }
  if (len && strspn (buf, " \t\r\n") != len && run_sql (db, buf, json))
    status = CLOGTOOL_EXIT_PROBLEM;
  free (buf);
  return status;
}

int
clogtool_query_main (int argc, char **argv)
{
  static const struct option opts[] = {
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'C' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, csv = 0, c;
  optind = 1;
  while ((c = getopt_long (argc, argv, ":jh", opts, NULL)) != -1)
    switch (c)
      {
      case 'j': json = 1; break;
      case 'C': csv = 1; break;  /* the default, accepted as elsewhere */
      case 'h':
        query_help ();
        return clogtool__exit_after_output ();
      default:
        return clogtool__bad_option ("query", c, argv);
      }
  if (json && csv)
    return clogtool__usage_error ("query", "--json and --csv exclude each "
                                  "other");
  if (optind >= argc || argc - optind > 2)
    return clogtool__usage_error ("query", argc - optind > 2
                                  ? "too many arguments (quote the SQL)"
                                  : "needs FILE");
  const char *path = argv[optind];
  const char *sql = optind + 1 < argc ? argv[optind + 1] : NULL;

  sqlite3 *db = NULL;
  char *err = NULL;
  /* Read-only, no attached files, no extensions, a defensive schema. */
  if (sqlite3_open_v2 (":memory:", &db, SQLITE_OPEN_READONLY, NULL)
      != SQLITE_OK
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA              /* SQLite 3.31 */
      || sqlite3_db_config (db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL)
      != SQLITE_OK
#endif
      || sqlite3_db_config (db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL)
      != SQLITE_OK
      || sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0,
                            NULL) != SQLITE_OK
      || clogsql_register (db) != SQLITE_OK)
    {
      clogtool__error ("query: cannot set up SQLite: %s",
                       db ? sqlite3_errmsg (db) : "out of memory");
      sqlite3_close (db);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  if (clogsql_attach (db, path, &err) != SQLITE_OK)
    {
      clogtool__error ("%s", err ? err : sqlite3_errmsg (db));
      sqlite3_free (err);
      sqlite3_close (db);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  sqlite3_limit (db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_set_authorizer (db, authorize, NULL);
  int status = sql ? (run_sql (db, sql, json) ? CLOGTOOL_EXIT_PROBLEM
                                              : CLOGTOOL_EXIT_OK)
                   : shell (db, json);
  sqlite3_close (db);
  if (clogtool__flush_stdout ())
    status = CLOGTOOL_EXIT_PROBLEM;
  return status;
}

#endif /* HAVE_SQLITE */
