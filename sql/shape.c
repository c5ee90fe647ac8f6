/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The statements state_totals answers (clogsql_totals_sql, clogsql.h):
 *
 *   SELECT item [, item]... FROM [temp.]states GROUP BY name
 *     [ORDER BY name-term [ASC | DESC]] [LIMIT n [OFFSET m]] [;]
 *
 * item: name, count(*), sum(duration) or sum(exclusive), each with an
 * optional [AS] alias; name-term: name, the position of a name item or
 * its alias.  Anything else (WHERE, HAVING, other functions or columns,
 * DISTINCT, joins, ORDER BY on a total, ...) is left to SQLite.  The
 * same query over state_totals gives the same rows in the same order:
 * the groups come in name order (NULL first), as the states table
 * delivers GROUP BY name; ORDER BY only ever sorts distinct names;
 * count and the sums are exact integers (state_totals refuses a sum that
 * sum() would not give as one).
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "clogsql.h"

#define MAX_ITEMS 16

typedef enum { T_END, T_WORD, T_NUM, T_PUNCT, T_OTHER } tok_kind_t;

typedef struct
{
  const char *s;       /* the statement */
  size_t pos;
  tok_kind_t kind;
  char word[64];       /* T_WORD: unquoted, lower case; T_PUNCT: the char */
  long long num;
} lexer_t;

/* Skips blanks and comments. */
static void
skip_space (lexer_t *lx)
{
  const char *s = lx->s;
  for (;;)
    {
      while (isspace ((unsigned char) s[lx->pos]))
        lx->pos++;
      if (s[lx->pos] == '-' && s[lx->pos + 1] == '-')
        {
          while (s[lx->pos] && s[lx->pos] != '\n')
            lx->pos++;
        }
      else if (s[lx->pos] == '/' && s[lx->pos + 1] == '*')
        {
          const char *e = strstr (s + lx->pos + 2, "*/");
          lx->pos = e ? (size_t) (e - s) + 2 : strlen (s);
        }
      else
        return;
    }
}

/* The next token: a word (bare or "quoted" identifier; words longer than
 * the buffer are T_OTHER), a decimal number, one of ( ) , * ; . or
 * anything else (T_OTHER, which no rule accepts). */
static void
next (lexer_t *lx)
{
  skip_space (lx);
  const char *s = lx->s + lx->pos;
  size_t n = 0;
  lx->word[0] = '\0';
  if (!*s)
    {
      lx->kind = T_END;
      return;
    }
  if (isalpha ((unsigned char) *s) || *s == '_')
    {
      while (isalnum ((unsigned char) s[n]) || s[n] == '_')
        n++;
      lx->pos += n;
      lx->kind = n < sizeof lx->word ? T_WORD : T_OTHER;
      for (size_t i = 0; lx->kind == T_WORD && i < n; i++)
        lx->word[i] = (char) tolower ((unsigned char) s[i]);
      lx->word[lx->kind == T_WORD ? n : 0] = '\0';
      return;
    }
  if (*s == '"')
    {
      /* A quoted identifier: "" is a quote; compared without case as
       * SQLite compares names. */
      size_t k = 0;
      lx->kind = T_WORD;
      for (n = 1; s[n] && !(s[n] == '"' && s[n + 1] != '"'); n++)
        {
          if (s[n] == '"')
            n++;
          if (k + 1 >= sizeof lx->word)
            lx->kind = T_OTHER;
          else
            lx->word[k++] = (char) tolower ((unsigned char) s[n]);
        }
      if (!s[n] || k == 0)
        lx->kind = T_OTHER;
      lx->word[lx->kind == T_WORD ? k : 0] = '\0';
      lx->pos += s[n] ? n + 1 : n;
      return;
    }
  if (isdigit ((unsigned char) *s))
    {
      long long v = 0;
      while (isdigit ((unsigned char) s[n]) && v < 1000000000000LL)
        v = v * 10 + (s[n++] - '0');
      lx->pos += n;
      /* 1e3, 0x10, 1.5 and huge numbers are not plain integers here */
      lx->kind = isalnum ((unsigned char) s[n]) || s[n] == '.'
                 || isdigit ((unsigned char) s[n]) ? T_OTHER : T_NUM;
      lx->num = v;
      return;
    }
  lx->pos++;
  lx->kind = strchr ("(),*;.", *s) ? T_PUNCT : T_OTHER;
  lx->word[0] = *s;
  lx->word[1] = '\0';
}

static int
is_word (const lexer_t *lx, const char *w)
{
  return lx->kind == T_WORD && strcmp (lx->word, w) == 0;
}

static int
is_punct (const lexer_t *lx, char c)
{
  return lx->kind == T_PUNCT && lx->word[0] == c;
}

/* Takes the word w (or punctuation) if it is next. */
static int
take_word (lexer_t *lx, const char *w)
{
  if (!is_word (lx, w))
    return 0;
  next (lx);
  return 1;
}

static int
take_punct (lexer_t *lx, char c)
{
  if (!is_punct (lx, c))
    return 0;
  next (lx);
  return 1;
}

/* Words that end an item where an alias without AS could stand. */
static int
is_keyword (const char *w)
{
  static const char *const kw[] = {
    "from", "where", "group", "order", "limit", "having", "window",
    "union", "except", "intersect", "as", "by", "join", "on", "using",
    "select", "asc", "desc", "collate", "offset", "nulls", "natural",
    "left", "inner", "cross", "outer", "right", "full", "values", NULL
  };
  for (int i = 0; kw[i]; i++)
    if (strcmp (w, kw[i]) == 0)
      return 1;
  return 0;
}

typedef enum { I_NAME, I_COUNT, I_DURATION, I_EXCLUSIVE } item_t;

static const char *const item_column[] = {
  [I_NAME] = "name", [I_COUNT] = "count", [I_DURATION] = "duration",
  [I_EXCLUSIVE] = "exclusive"
};

typedef struct
{
  item_t item[MAX_ITEMS];
  char alias[MAX_ITEMS][64];   /* "" without one */
  int nitems;
  int order;                   /* 0 none, 1 ASC, -1 DESC */
  long long limit, offset;     /* -1: none */
} shape_t;

/* Parses the statement; 1 if it has the shape above. */
static int
parse (const char *sql, shape_t *sh)
{
  lexer_t lx = { sql, 0, T_END, { 0 }, 0 };
  memset (sh, 0, sizeof *sh);
  sh->limit = sh->offset = -1;
  next (&lx);
  if (!take_word (&lx, "select"))
    return 0;
  do
    {
      if (sh->nitems == MAX_ITEMS)
        return 0;
      item_t it;
      if (take_word (&lx, "name"))
        it = I_NAME;
      else if (take_word (&lx, "count"))
        {
          if (!take_punct (&lx, '(') || !take_punct (&lx, '*')
              || !take_punct (&lx, ')'))
            return 0;
          it = I_COUNT;
        }
      else if (take_word (&lx, "sum"))
        {
          if (!take_punct (&lx, '('))
            return 0;
          if (take_word (&lx, "duration"))
            it = I_DURATION;
          else if (take_word (&lx, "exclusive"))
            it = I_EXCLUSIVE;
          else
            return 0;
          if (!take_punct (&lx, ')'))
            return 0;
        }
      else
        return 0;
      int as = take_word (&lx, "as");
      if (lx.kind == T_WORD && (as || !is_keyword (lx.word)))
        {
          /* An alias may name only the item it is: ORDER BY name must
           * mean the names in both queries. */
          if (strcmp (lx.word, "name") == 0 && it != I_NAME)
            return 0;
          strcpy (sh->alias[sh->nitems], lx.word);
          next (&lx);
        }
      else if (as)
        return 0;
      sh->item[sh->nitems++] = it;
    }
  while (take_punct (&lx, ','));
  if (!take_word (&lx, "from"))
    return 0;
  if (take_word (&lx, "temp") && !take_punct (&lx, '.'))
    return 0;
  if (!take_word (&lx, "states") || !take_word (&lx, "group")
      || !take_word (&lx, "by") || !take_word (&lx, "name"))
    return 0;
  if (take_word (&lx, "order"))
    {
      if (!take_word (&lx, "by"))
        return 0;
      int ok = 0;
      if (lx.kind == T_NUM)
        ok = lx.num >= 1 && lx.num <= sh->nitems
             && sh->item[lx.num - 1] == I_NAME;
      else if (lx.kind == T_WORD)
        {
          ok = strcmp (lx.word, "name") == 0;
          for (int i = 0; i < sh->nitems; i++)
            if (strcmp (sh->alias[i], lx.word) == 0)
              ok = sh->item[i] == I_NAME;
        }
      if (!ok)
        return 0;
      next (&lx);
      sh->order = take_word (&lx, "desc") ? -1 : 1;
      if (sh->order == 1)
        take_word (&lx, "asc");
    }
  if (take_word (&lx, "limit"))
    {
      if (lx.kind != T_NUM)
        return 0;
      sh->limit = lx.num;
      next (&lx);
      if (take_word (&lx, "offset"))
        {
          if (lx.kind != T_NUM)
            return 0;
          sh->offset = lx.num;
          next (&lx);
        }
    }
  take_punct (&lx, ';');
  return lx.kind == T_END;
}

/* Whether unqualified states and state_totals are the clog tables
 * clogsql_attach made over one file (a user may have dropped or
 * replaced either). */
static int
tables_paired (sqlite3 *db)
{
  sqlite3_stmt *q = NULL;
  int ok = sqlite3_prepare_v2 (
             db,
             "SELECT (SELECT sql FROM temp.sqlite_master WHERE type = 'table'"
             "        AND name = 'states')"
             " = (SELECT replace(sql, 'state_totals', 'states')"
             "    FROM temp.sqlite_master WHERE type = 'table'"
             "    AND name = 'state_totals')"
             " AND (SELECT sql FROM temp.sqlite_master WHERE type = 'table'"
             "      AND name = 'state_totals')"
             "     GLOB 'CREATE VIRTUAL TABLE state_totals USING clog(*,"
             " state_totals)'",
             -1, &q, NULL) == SQLITE_OK
           && sqlite3_step (q) == SQLITE_ROW
           && sqlite3_column_int (q, 0) == 1;
  sqlite3_finalize (q);
  return ok;
}

char *
clogsql_totals_sql (sqlite3 *db, sqlite3_stmt *st)
{
  const char *env = getenv ("CLOGSQL_TOTALS");
  shape_t sh;
  if ((env && strcmp (env, "0") == 0) || !st || !sqlite3_sql (st)
      || !parse (sqlite3_sql (st), &sh)
      || sqlite3_column_count (st) != sh.nitems || !tables_paired (db))
    return NULL;
  sqlite3_str *o = sqlite3_str_new (db);
  sqlite3_str_appendall (o, "SELECT ");
  for (int i = 0; i < sh.nitems; i++)
    {
      /* The output names are the statement's own. */
      const char *name = sqlite3_column_name (st, i);
      if (!name)
        {
          sqlite3_free (sqlite3_str_finish (o));
          return NULL;
        }
      sqlite3_str_appendf (o, "%sstate_totals.%s AS \"%w\"", i ? ", " : "",
                           item_column[sh.item[i]], name);
    }
  sqlite3_str_appendall (o, " FROM temp.state_totals");
  if (sh.order)
    sqlite3_str_appendf (o, " ORDER BY state_totals.name %s",
                         sh.order < 0 ? "DESC" : "ASC");
  if (sh.limit >= 0)
    sqlite3_str_appendf (o, " LIMIT %lld", sh.limit);
  if (sh.offset >= 0)
    sqlite3_str_appendf (o, " OFFSET %lld", sh.offset);
  return sqlite3_str_finish (o);
}
