/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small hand-built log with known geometry, for viewer tests.
 *   states: A (ids 1/2, #ff0000, format "x=%d"), B (3/4, #00ff00)
 *   event:  E (id 10, #0000ff)
 *   rank 0: A [100,600] (cargo x=42) containing B [200,300];
 *           send to 1 at 400 (tag 5, 64 bytes); E at 700; A [800,1000]
 *   rank 1: B [150,350]; recv from 0 at 500; A [520,900]
 * Times are multiplied by `scale` (1: nanoseconds as above).
 * mv_testlog_write_n writes `nranks` (even) ranks: each pair 2k, 2k+1
 * repeats ranks 0 and 1, rank 2k sending to 2k+1.
 *
 * mv_testlog_write_msgs writes 2 ranks and 650 messages from 0 to 1,
 * no states: received when sent (vertical arrows) 3 per ns in
 * [100, 250) and 1 per ns in [500, 650); sent 1 per ns in [800, 850)
 * and received 100 ns later (slanted); none elsewhere.
 *
 * mv_testlog_write_overlap writes 1 rank, states A and B that overlap
 * without nesting (FORMAT.md section 13), no messages:
 *   BEGIN A 100, BEGIN B 200, END A 300 (B stays open), END B 600,
 *   END A 700 (closes nothing), E at 1000 .. 10999 (one per ns),
 *   BEGIN A 20000, BEGIN B 21000, END A 22000, END B 23000,
 *   BEGIN B 24000 (never ended), E at 25000 (the last record).
 *
 * mv_testlog_write_steps writes `nranks` ranks, no messages: rank r is
 * in A over [0, 500000 + r) and in B over [500000 + r, 1000000) ns.
 */
#ifndef MV_TESTLOG_H
#define MV_TESTLOG_H

int mv_testlog_write (const char *path, unsigned long long scale);
int mv_testlog_write_n (const char *path, unsigned long long scale,
                        int nranks);
int mv_testlog_write_msgs (const char *path);
int mv_testlog_write_steps (const char *path, int nranks);
int mv_testlog_write_overlap (const char *path);
/* mv_testlog_write_nodes writes 8 ranks placed round-robin on two
 * nodes, no messages: "nodeE" holds ranks 0, 2, 4, 6 and "nodeO" ranks
 * 1, 3, 5, 7.  Rank 0 and every odd rank are in A over [0, 1000000)
 * ns; ranks 2, 4, 6 are in B over [0, 500000) and in no state after.
 * So nodeO is
 * all A; nodeE is 3/4 B and 1/4 A over the first half, 1/4 A (and 3/4
 * nothing) over the second. */
int mv_testlog_write_nodes (const char *path);
/* mv_testlog_write_busy writes `nranks` ranks (at most 64) placed in
 * blocks of `per_node` on nodes "n0", "n1" ..., no messages, over 10 ms:
 * every 1000 ns each rank enters A, and B inside it for some ranks,
 * leaving both at times that differ from rank to rank (states change
 * several times per pixel of a window of a few microseconds). */
int mv_testlog_write_busy (const char *path, int nranks, int per_node);
/* mv_testlog_write_exchange writes `nranks` ranks (at most 64) placed in
 * order on nodes of `per_node` ("n0", "n1", ...), and `steps` rounds in
 * which every rank r sends one message at 1000 + 100 i ns to rank
 * r + d (mod nranks), d = 1 + 7i mod (nranks - 1), received 50 ns later. */
int mv_testlog_write_exchange (const char *path, int nranks, int per_node,
                               int steps);
/* mv_testlog_write_metric writes 2 ranks, each in A over [0, 1000000)
 * ns, and metric id 7 "queue" (unit "1"): rank 0 is 0 from 0, 40 from
 * 250000, 10 from 500000, 30 from 750000; rank 1 is 20 throughout. */
int mv_testlog_write_metric (const char *path);
/* mv_testlog_write_samples (mv-testlog-samples.c) writes 2 ranks, each
 * in A over [0, 1 s), sampled at 1000 Hz (MPE_SAMPLE_HZ), one sample
 * per ms from 0, in a binary that is not there (frames "prog+0x...")
 * whose call-path tree is main (0x1000) -> via (0x2000) -> hot (0x3000)
 * and main -> warm (0x4000): rank 0 is in hot over [0, 800) ms, in
 * warm over [800, 1000); rank 1 in warm over [0, 500), hot after. */
int mv_testlog_write_samples (const char *path);
/* mv_testlog_write_info writes 1 rank: MPE_Comm_init (id -10) at 0,
 * "Compute" (ids 1/2, #ff0000, info "intervals=%d sum=%E") over
 * [100000, 400000] and [500000, 900000] ns, its end events carrying
 * intervals=100 sum=3.25 and intervals=200 sum=6.5; 17 events lost at
 * 950000; MPE_Comm_finalize (id -9) at 1000000. */
int mv_testlog_write_info (const char *path);

#endif
