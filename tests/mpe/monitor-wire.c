/* SPDX-License-Identifier: BSD-3-Clause */
/* The monitor's tree shape without MPI (mpe/src/mpe-monitor-wire.h):
 * every rank is reached exactly once, parents and children agree, depth
 * is log_k N, and answers folded up the tree equal the direct sums. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "mpe-monitor-wire.h"
#include "tests/common/tap.h"

/* Checks the tree of n ranks and fan-out k; returns its depth (hops from
 * the root to the deepest rank), -1 when it is not a tree of [0, n). */
static int
check_tree (int n, int k)
{
  int *parent = malloc ((size_t) n * sizeof *parent);
  int *depth = malloc ((size_t) n * sizeof *depth);
  int *kids = malloc ((size_t) k * sizeof *kids);
  int *seen = calloc ((size_t) n, sizeof *seen);
  int bad = !parent || !depth || !kids || !seen, maxd = 0;
  for (int r = 0; r < n && !bad; r++)
    bad = mpe_mon_tree_links (r, n, k, &parent[r], kids) < 0
          || (r == 0) != (parent[r] == -1);
  /* Children lists agree with parents, and each rank is some rank's
     child exactly once. */
  for (int r = 0; r < n && !bad; r++)
    {
      int p, nc = mpe_mon_tree_links (r, n, k, &p, kids);
      bad = nc > k;
      for (int c = 0; c < nc && !bad; c++)
        bad = kids[c] <= r || kids[c] >= n || parent[kids[c]] != r
              || seen[kids[c]]++;
    }
  /* Parents come before children, so depths fill in rank order. */
  for (int r = 0; r < n && !bad; r++)
    {
      depth[r] = r ? depth[parent[r]] + 1 : 0;
      bad = r && parent[r] >= r;
      if (depth[r] > maxd)
        maxd = depth[r];
    }
  free (parent);
  free (depth);
  free (kids);
  free (seen);
  return bad ? -1 : maxd;
}

/* The smallest d with 1 + k + ... + k^d >= n: the best depth a tree of
 * fan-out k can have. */
static int
best_depth (int n, int k)
{
  long reach = 1, level = 1;
  int d = 0;
  while (reach < n)
    level *= k, reach += level, d++;
  return d;
}

/* Folds the answers of the subtree of rank r, as the ranks do. */
static void
fold (int r, int n, int k, const int64_t *v, mpe_mon_slot_t *out)
{
  int p, kids[16];
  int nc = mpe_mon_tree_links (r, n, k, &p, kids);
  mpe_mon_slot_init (out, 0);
  mpe_mon_slot_add (out, v[r], r);
  for (int c = 0; c < nc; c++)
    {
      mpe_mon_slot_t sub;
      fold (kids[c], n, k, v, &sub);
      mpe_mon_slot_merge (out, &sub);
    }
}

int
main (void)
{
  plan (9);
  int p, kids[8];
  ok (mpe_mon_tree_links (0, 1, 8, &p, kids) == 0 && p == -1,
      "one rank: the manager alone");
  ok (mpe_mon_tree_links (5, 5, 2, &p, kids) == -1,
      "a rank outside the job is refused");
  /* 4 ranks, fan-out 2 (tests/mpe/monitor-tree.sh): 0 -> 1, 3; 1 -> 2. */
  int n0 = mpe_mon_tree_links (0, 4, 2, &p, kids);
  int a = kids[0], b = kids[1];
  int n1 = mpe_mon_tree_links (1, 4, 2, &p, kids);
  int c = kids[0], p1 = p;
  int n2 = mpe_mon_tree_links (2, 4, 2, &p, kids);
  ok (n0 == 2 && a == 1 && b == 3 && n1 == 1 && c == 2 && p1 == 0
      && n2 == 0 && p == 1, "4 ranks, fan-out 2: 0 -> 1, 3; 1 -> 2");

  int bad = 0, worst = 0;
  for (int k = 2; k <= 16; k++)
    for (int n = 1; n <= 700; n++)
      {
        int dep = check_tree (n, k);
        if (dep < 0 && bad++ < 3)
          diag ("  n %d k %d: not a tree", n, k);
        /* Contiguous ranges cost at most one level over the best. */
        if (dep > best_depth (n, k) + 1 && worst++ < 3)
          diag ("  n %d k %d: depth %d, best %d", n, k, dep,
                best_depth (n, k));
      }
  ok (bad == 0, "N 1..700, fan-out 2..16: each rank has one parent, "
      "children agree");
  ok (worst == 0, "... and the depth is within one of log_k N");
  ok (check_tree (10000, 8) == 5 && check_tree (10000, 2) <= 14,
      "10,000 ranks: depth %d at fan-out 8, %d at fan-out 2",
      check_tree (10000, 8), check_tree (10000, 2));

  /* Aggregates folded up the tree equal the direct ones. */
  enum { N = 1000 };
  int64_t v[N];
  uint64_t s = 0x9e3779b97f4a7c15ull;
  mpe_mon_slot_t direct;
  mpe_mon_slot_init (&direct, 0);
  for (int r = 0; r < N; r++)
    {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      v[r] = (int64_t) (s % 2000001) - 1000000;
      mpe_mon_slot_add (&direct, v[r], r);
    }
  int same = 1;
  for (int k = 2; k <= 16; k++)
    {
      mpe_mon_slot_t t;
      fold (0, N, k, v, &t);
      same &= t.sum == direct.sum && t.min == direct.min
              && t.max == direct.max && t.min_obj == direct.min_obj
              && t.max_obj == direct.max_obj && t.n == direct.n;
    }
  ok (same, "1000 values folded up trees of fan-out 2..16: sum, min, max, "
      "who, parts as added directly");
  mpe_mon_slot_t e, x;
  mpe_mon_slot_init (&e, 7);
  mpe_mon_slot_init (&x, 7);
  mpe_mon_slot_add (&x, -5, 3);
  mpe_mon_slot_merge (&x, &e);
  ok (x.n == 1 && x.sum == -5 && x.min_obj == 3, "an empty part adds nothing");
  mpe_mon_slot_merge (&e, &x);
  ok (e.n == 1 && e.min == -5 && e.max == -5 && e.max_obj == 3,
      "into an empty slot: the part itself");
  return exit_status ();
}
