/* SPDX-License-Identifier: BSD-3-Clause */
/* Colour names and MPE info-format cargo rendering. */
#include "config.h"
#include "logfmt-internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "logfmt-colors.h"

static int
hexval (int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  c = tolower (c);
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* A stable, reasonably saturated colour for an unknown name. */
static uint32_t
hash_color (const char *s)
{
  uint32_t h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (uint8_t) *s) * 16777619u;
  uint32_t r = 64 + (h & 0xbf), g = 64 + ((h >> 8) & 0xbf),
           b = 64 + ((h >> 16) & 0xbf);
  return r << 16 | g << 8 | b;
}

int
logfmt_color_lookup (const char *name, uint32_t *rgb)
{
  uint32_t dummy;
  if (!rgb)
    rgb = &dummy;
  if (!name)
    {
      *rgb = 0x808080;
      return LOGFMT_ENOENT;
    }
  char key[64];
  size_t n = 0;
  for (const char *p = name; *p && *p != ':'; p++)
    {
      if (isspace ((unsigned char) *p))
        continue;
      if (n + 1 >= sizeof key)
        break;
      key[n++] = (char) tolower ((unsigned char) *p);
    }
  key[n] = 0;
  if (key[0] == '#')
    {
      size_t digits = n - 1;
      uint32_t v[12];
      bool okhex = digits == 3 || digits == 6 || digits == 12;
      for (size_t i = 0; okhex && i < digits; i++)
        {
          int h = hexval (key[1 + i]);
          if (h < 0)
            okhex = false;
          else
            v[i] = (uint32_t) h;
        }
      if (okhex)
        {
          if (digits == 3)
            *rgb = (v[0] * 17) << 16 | (v[1] * 17) << 8 | v[2] * 17;
          else if (digits == 6)
            *rgb = (v[0] << 20) | (v[1] << 16) | (v[2] << 12) | (v[3] << 8)
                   | (v[4] << 4) | v[5];
          else
            *rgb = (v[0] << 20) | (v[1] << 16) | (v[4] << 12) | (v[5] << 8)
                   | (v[8] << 4) | v[9];
          return 0;
        }
    }
  size_t a = 0, b = sizeof logfmt_colors / sizeof logfmt_colors[0];
  while (a < b)
    {
      size_t m = (a + b) / 2;
      int c = strcmp (logfmt_colors[m].name, key);
      if (c == 0)
        {
          *rgb = logfmt_colors[m].rgb;
          return 0;
        }
      if (c < 0)
        a = m + 1;
      else
        b = m;
    }
  *rgb = hash_color (key);
  return LOGFMT_ENOENT;
}

/* The X11 name of the colour nearest to rgb (an exact match if there is
 * one), for formats that take names only. */
const char *
logfmt__color_nearest (uint32_t rgb)
{
  size_t best = 0;
  uint32_t best_d = UINT32_MAX;
  for (size_t i = 0; i < sizeof logfmt_colors / sizeof logfmt_colors[0]; i++)
    {
      uint32_t c = logfmt_colors[i].rgb, d = 0;
      for (int k = 0; k < 24; k += 8)
        {
          int32_t x = (int32_t) ((c >> k) & 0xff)
                      - (int32_t) ((rgb >> k) & 0xff);
          d += (uint32_t) (x * x);
        }
      if (d < best_d)
        best = i, best_d = d;
    }
  return logfmt_colors[best].name;
}

/* ---- Cargo ----------------------------------------------------------- */

typedef struct
{
  char *out;
  size_t cap, len;
} sbuf_t;

static void
sb_put (sbuf_t *s, const char *p, size_t n)
{
  for (size_t i = 0; i < n && s->len + 1 < s->cap; i++)
    s->out[s->len++] = p[i];
  s->out[s->len] = 0;
}

static uint64_t
be_n (const uint8_t *p, size_t n)
{
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++)
    v = v << 8 | p[i];
  return v;
}

int
logfmt_format_cargo (const char *format, const uint8_t *cargo,
                     size_t cargo_len, char *out, size_t out_len)
{
  if (!out || out_len == 0)
    return LOGFMT_EINVAL;
  sbuf_t s = { out, out_len, 0 };
  out[0] = 0;
  if (!format)
    return 0;
  if (!cargo)
    cargo_len = 0;
  size_t pos = 0;
  char tmp[64];
  for (const char *f = format; *f; f++)
    {
      if (*f != '%' || !f[1])
        {
          sb_put (&s, f, 1);
          continue;
        }
      char c = *++f;
      size_t need;
      switch (c)
        {
        case 's': need = 2; break;
        case 'h': need = 2; break;
        case 'd': case 'x': case 'e': need = 4; break;
        case 'l': case 'X': case 'E': need = 8; break;
        case '%':
          sb_put (&s, "%", 1);
          continue;
        default:
          sb_put (&s, f - 1, 2);
          continue;
        }
      if (cargo_len - pos < need || pos > cargo_len)
        return LOGFMT_ETRUNCATED;
      const uint8_t *p = cargo + pos;
      pos += need;
      int k = 0;
      switch (c)
        {
        case 's':
          {
            size_t n = (size_t) be_n (p, 2);
            if (cargo_len - pos < n)
              return LOGFMT_ETRUNCATED;
            sb_put (&s, (const char *) cargo + pos, n);
            pos += n;
            break;
          }
        case 'h':
          k = snprintf (tmp, sizeof tmp, "%d", (int16_t) be_n (p, 2));
          break;
        case 'd':
          k = snprintf (tmp, sizeof tmp, "%d", (int32_t) be_n (p, 4));
          break;
        case 'l':
          k = snprintf (tmp, sizeof tmp, "%lld",
                        (long long) (int64_t) be_n (p, 8));
          break;
        case 'x':
          k = snprintf (tmp, sizeof tmp, "%x", (unsigned) be_n (p, 4));
          break;
        case 'X':
          k = snprintf (tmp, sizeof tmp, "%llx",
                        (unsigned long long) be_n (p, 8));
          break;
        case 'e':
          {
            uint32_t u = (uint32_t) be_n (p, 4);
            float fv;
            memcpy (&fv, &u, 4);
            k = snprintf (tmp, sizeof tmp, "%g", (double) fv);
            break;
          }
        case 'E':
          {
            uint64_t u = be_n (p, 8);
            double dv;
            memcpy (&dv, &u, 8);
            k = snprintf (tmp, sizeof tmp, "%g", dv);
            break;
          }
        }
      if (k > 0)
        sb_put (&s, tmp, (size_t) k < sizeof tmp ? (size_t) k
                                                 : sizeof tmp - 1);
    }
  return (int) s.len;
}
