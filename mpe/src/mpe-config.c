/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPE_CONFIG=file: "key = value" lines ('#' starts a comment).  A key is
 * an environment variable's name (MPE_SAMPLE_HZ) or the same in lower
 * case without the prefix (sample_hz); each setting the environment does
 * not already have is put into it, so the environment wins and every part
 * of the logger reads one place.  "plugin = PATH" lines (any number) name
 * plugins to load (mpe_plugin.h), after MPE_PLUGINS=a.so:b.so's.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-plugin-internal.h"

static int loaded;
static char **plugins;
static size_t nplugins;

static void
add_plugin (const char *path)
{
  char **v = realloc (plugins, (nplugins + 1) * sizeof *v);
  if (!v)
    return;
  plugins = v;
  if ((plugins[nplugins] = strdup (path)) != NULL)
    nplugins++;
}

static char *
trim (char *s)
{
  while (isspace ((unsigned char) *s))
    s++;
  char *e = s + strlen (s);
  while (e > s && isspace ((unsigned char) e[-1]))
    *--e = '\0';
  return s;
}

/* "sample_hz" -> "MPE_SAMPLE_HZ"; names already in capitals stay. */
static void
env_name (const char *key, char *out, size_t n)
{
  int lower = 0;
  for (const char *p = key; *p; p++)
    lower |= islower ((unsigned char) *p);
  snprintf (out, n, "%s%s", lower ? "MPE_" : "", key);
  for (char *p = out; *p; p++)
    *p = (char) toupper ((unsigned char) *p);
}

static void
read_file (const char *path)
{
  FILE *f = fopen (path, "r");
  if (!f)
    {
      fprintf (stderr, "mpe: MPE_CONFIG=%s cannot be read; ignored\n", path);
      return;
    }
  char line[4096];
  int lineno = 0;
  while (fgets (line, sizeof line, f))
    {
      lineno++;
      char *hash = strchr (line, '#');
      if (hash)
        *hash = '\0';
      char *s = trim (line);
      if (!*s)
        continue;
      char *eq = strchr (s, '=');
      if (!eq)
        {
          fprintf (stderr, "mpe: %s:%d: not \"key = value\"; ignored\n",
                   path, lineno);
          continue;
        }
      *eq = '\0';
      char *key = trim (s), *val = trim (eq + 1);
      int ok = *key != '\0';
      for (char *p = key; *p; p++)
        ok &= isalnum ((unsigned char) *p) || *p == '_';
      if (!ok)
        {
          fprintf (stderr, "mpe: %s:%d: bad key \"%s\"; ignored\n", path,
                   lineno, key);
          continue;
        }
      if (!strcmp (key, "plugin") || !strcmp (key, "PLUGIN"))
        {
          add_plugin (val);
          continue;
        }
      char name[256];
      env_name (key, name, sizeof name);
      setenv (name, val, 0);
    }
  fclose (f);
}

void
mpe__config_load (void)
{
  if (loaded)
    return;
  loaded = 1;
  const char *list = getenv ("MPE_PLUGINS");
  if (list && *list)
    {
      char *copy = strdup (list);
      for (char *save = NULL, *p = copy ? strtok_r (copy, ":", &save) : NULL;
           p; p = strtok_r (NULL, ":", &save))
        add_plugin (p);
      free (copy);
    }
  const char *path = getenv ("MPE_CONFIG");
  if (path && *path)
    read_file (path);
}

/* Before main, so settings reach code that reads the environment before
 * MPE_Init_log (the wrappers at MPI_Init). */
__attribute__ ((constructor)) static void
config_at_load (void)
{
  mpe__config_load ();
}

const char *
mpe__setting (const char *key)
{
  char name[256];
  env_name (key, name, sizeof name);
  return getenv (name);
}

size_t
mpe__config_plugins (const char ***paths)
{
  *paths = (const char **) plugins;
  return nplugins;
}
