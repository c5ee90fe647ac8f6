/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rank side of live animation.  The logging core hands every record to
 * anim_client_record() on the logging thread, which copies it into a
 * bounded lock-free
 * MPSC ring (Vyukov's bounded queue) or counts a drop.  One sender thread
 * drains the ring into frames (anim-proto.h) on a non-blocking socket.
 * Nothing here ever blocks a logging thread.
 *
 * The sender wakes once per frame period of the window (16 ms) and writes
 * everything queued since in as few sends as fit: a rank that logs a few
 * records every half millisecond then wakes itself and the window 60
 * times a second, not 500, and the cores the ranks poll on stay theirs
 * (issue 17: a window attached costs the job under 10%).  The ring holds
 * RING_SLOTS records, enough for 4 million records/s between two wake-ups;
 * a pass that finds the ring a quarter full shortens the next sleep.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "anim/client/anim-addr.h"
#include "anim/client/anim-client.h"
#include "anim/client/anim-proto.h"

#define RING_SLOTS    65536u        /* power of two */
#define OUT_CAP       262144u       /* bytes staged for one send */
#define PERIOD_MS     16            /* sender wake-up: a 60 Hz frame */
#define BUSY_MS       2             /* wake-up after a pass that found
                                       the ring a quarter full */
#define DEF_RESCAN_NS 250000000ull  /* look for new state definitions */
#define CONNECT_MS    3000
#define STOP_DRAIN_MS 1000
#define MAX_DEFS      4096

typedef struct
{
  _Atomic uint32_t seq;
  uint8_t  type;
  uint8_t  pad;
  uint16_t thread;
  uint64_t time;
  int32_t  a;        /* event id, or partner */
  int32_t  tag;
  uint64_t bytes;
} slot_t;

_Static_assert (sizeof (slot_t) == 32, "ring slot is 32 bytes");

enum { ST_OFF, ST_CONNECTING, ST_UP, ST_GONE };

static struct
{
  /* Producer side (hot). */
  _Alignas (64) _Atomic uint32_t enq;
  _Alignas (64) _Atomic uint64_t dropped;
  _Alignas (64) _Atomic int state;
  _Atomic int stopping;

  /* Consumer side (sender thread only). */
  _Alignas (64) uint32_t deq;
  const anim_client_core_t *core;
  slot_t  *ring;
  pthread_t thread;
  pthread_mutex_t wake_lock;     /* the sender's sleep, cut short by stop */
  pthread_cond_t  wake;
  int      started;
  int      fd;
  int      rank, size;
  anim_addr_list_t addrs;
  uint8_t  out[OUT_CAP];
  size_t   out_len;
  uint64_t sent;                 /* records put in out[] */
  uint64_t drops_reported;
  int32_t  def_ids[MAX_DEFS];
  int      ndefs;
  uint64_t last_rescan;
  int      want_rescan;
} C = { .fd = -1, .wake_lock = PTHREAD_MUTEX_INITIALIZER,
        .wake = PTHREAD_COND_INITIALIZER };

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Producer: called from any logging thread.                           */
/* ------------------------------------------------------------------ */

void
anim_client_record (const anim_client_record_t *rec)
{
  if (atomic_load_explicit (&C.state, memory_order_relaxed) == ST_GONE)
    {
      atomic_fetch_add_explicit (&C.dropped, 1, memory_order_relaxed);
      return;
    }
  uint32_t pos = atomic_load_explicit (&C.enq, memory_order_relaxed);
  slot_t *s;
  for (;;)
    {
      s = &C.ring[pos & (RING_SLOTS - 1)];
      uint32_t seq = atomic_load_explicit (&s->seq, memory_order_acquire);
      int32_t dif = (int32_t) (seq - pos);
      if (dif == 0)
        {
          if (atomic_compare_exchange_weak_explicit (&C.enq, &pos, pos + 1,
                                                     memory_order_relaxed,
                                                     memory_order_relaxed))
            break;
        }
      else if (dif < 0)
        {
          /* Full: the sender is slow or the window is. */
          atomic_fetch_add_explicit (&C.dropped, 1, memory_order_relaxed);
          return;
        }
      else
        pos = atomic_load_explicit (&C.enq, memory_order_relaxed);
    }
  s->type = (uint8_t) rec->type;
  s->thread = (uint16_t) rec->thread;
  s->time = rec->time_ns;
  s->a = rec->type == 1 ? rec->event_id : rec->partner;
  s->tag = rec->tag;
  s->bytes = rec->bytes;
  atomic_store_explicit (&s->seq, pos + 1, memory_order_release);
}

/* ------------------------------------------------------------------ */
/* Sender thread                                                       */
/* ------------------------------------------------------------------ */

/* Sleeps ms milliseconds, or until anim_client_stop. */
static void
sender_sleep (int ms)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  ts.tv_nsec += ms * 1000000L;
  ts.tv_sec += ts.tv_nsec / 1000000000L;
  ts.tv_nsec %= 1000000000L;
  pthread_mutex_lock (&C.wake_lock);
  if (!atomic_load (&C.stopping))
    pthread_cond_timedwait (&C.wake, &C.wake_lock, &ts);
  pthread_mutex_unlock (&C.wake_lock);
}

static int
wait_fd (int fd, short ev, int ms)
{
  struct pollfd pfd = { .fd = fd, .events = ev };
  int r;
  do
    r = poll (&pfd, 1, ms);
  while (r < 0 && errno == EINTR);
  return r;
}

/* Writes out[] as far as the socket takes it.  -1 when the window is
 * gone. */
static int
flush_out (void)
{
  size_t off = 0;
  while (off < C.out_len)
    {
      ssize_t w = send (C.fd, C.out + off, C.out_len - off, MSG_NOSIGNAL);
      if (w > 0)
        off += (size_t) w;
      else if (w < 0 && errno == EINTR)
        continue;
      else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        break;
      else
        return -1;
    }
  memmove (C.out, C.out + off, C.out_len - off);
  C.out_len -= off;
  return 0;
}

static void
def_cb (void *user, int start_id, int end_id, const char *name,
        const char *color)
{
  (void) user;
  for (int i = 0; i < C.ndefs; i++)
    if (C.def_ids[i] == start_id)
      return;
  size_t nl = name ? strlen (name) : 0, cl = color ? strlen (color) : 0;
  if (nl > ANIM_NAME_MAX)
    nl = ANIM_NAME_MAX;
  if (cl > 64)
    cl = 64;
  size_t len = ANIM_STATE_MIN + nl + cl;
  if (C.ndefs == MAX_DEFS || C.out_len + len > OUT_CAP)
    {
      /* No room now: the next rescan retries. */
      C.want_rescan = 1;
      return;
    }
  uint8_t *p = C.out + C.out_len;
  anim_put_hdr (p, (uint16_t) len, ANIM_F_STATE);
  anim_put32 (p + 4, (uint32_t) start_id);
  anim_put32 (p + 8, (uint32_t) end_id);
  p[12] = (uint8_t) nl;
  p[13] = (uint8_t) cl;
  if (nl)
    memcpy (p + 14, name, nl);
  if (cl)
    memcpy (p + 14 + nl, color, cl);
  C.out_len += len;
  C.def_ids[C.ndefs++] = start_id;
}

static void
rescan_defs (void)
{
  C.want_rescan = 0;
  C.last_rescan = now_ns ();
  C.core->foreach_state_def (def_cb, NULL);
}

static int
known_event (int32_t id)
{
  for (int i = 0; i < C.ndefs; i++)
    if (C.def_ids[i] == id || C.def_ids[i] + 1 == id)
      return 1;
  return 0;
}

/* Moves ring records into out[] while there is room.  Returns the
 * number moved. */
static size_t
drain_ring (void)
{
  size_t n = 0;
  while (C.out_len + ANIM_MSG_LEN <= OUT_CAP)
    {
      slot_t *s = &C.ring[C.deq & (RING_SLOTS - 1)];
      uint32_t seq = atomic_load_explicit (&s->seq, memory_order_acquire);
      if ((int32_t) (seq - (C.deq + 1)) < 0)
        break;
      uint8_t *p = C.out + C.out_len;
      if (s->type == 2 || s->type == 3)
        {
          anim_put_hdr (p, ANIM_MSG_LEN, s->type == 2 ? ANIM_F_SEND
                                                      : ANIM_F_RECV);
          anim_put64 (p + 4, s->time);
          anim_put32 (p + 12, s->thread);
          anim_put32 (p + 16, (uint32_t) s->a);
          anim_put32 (p + 20, (uint32_t) s->tag);
          anim_put32 (p + 24, 0);
          anim_put64 (p + 28, s->bytes);
          C.out_len += ANIM_MSG_LEN;
        }
      else
        {
          anim_put_hdr (p, ANIM_EVENT_LEN, ANIM_F_EVENT);
          anim_put64 (p + 4, s->time);
          anim_put32 (p + 12, s->thread);
          anim_put32 (p + 16, (uint32_t) s->a);
          C.out_len += ANIM_EVENT_LEN;
          /* An event id with no definition sent yet: a state may have
           * been defined since the last scan. */
          if (s->a >= 0 && !known_event (s->a))
            C.want_rescan = 1;
        }
      C.sent++;
      n++;
      atomic_store_explicit (&s->seq, C.deq + RING_SLOTS,
                             memory_order_release);
      C.deq++;
    }
  return n;
}

static void
put_u64_frame (uint8_t type, uint64_t a, uint64_t b, int two)
{
  size_t len = two ? ANIM_END_LEN : ANIM_DROPS_LEN;
  if (C.out_len + len > OUT_CAP)
    return;
  uint8_t *p = C.out + C.out_len;
  anim_put_hdr (p, (uint16_t) len, type);
  anim_put64 (p + 4, a);
  if (two)
    anim_put64 (p + 12, b);
  C.out_len += len;
}

/* Counts whatever is still queued as dropped (window gone). */
static void
discard_ring (void)
{
  for (;;)
    {
      slot_t *s = &C.ring[C.deq & (RING_SLOTS - 1)];
      uint32_t seq = atomic_load_explicit (&s->seq, memory_order_acquire);
      if ((int32_t) (seq - (C.deq + 1)) < 0)
        break;
      atomic_store_explicit (&s->seq, C.deq + RING_SLOTS,
                             memory_order_release);
      C.deq++;
      atomic_fetch_add_explicit (&C.dropped, 1, memory_order_relaxed);
    }
}

static void
go_gone (const char *why)
{
  atomic_store (&C.state, ST_GONE);
  if (C.fd >= 0)
    close (C.fd);
  C.fd = -1;
  /* Records written to out[] but not to the socket are lost too. */
  discard_ring ();
  if (C.rank == 0 && why)
    fprintf (stderr, "mpeanim client: %s; live updates off, "
             "the job continues\n", why);
}

static void *
sender_main (void *arg)
{
  (void) arg;
  C.fd = anim_addr_connect (&C.addrs, CONNECT_MS);
  if (C.fd < 0)
    {
      go_gone ("cannot connect to the mpeanim window");
      return NULL;
    }
  uint8_t *p = C.out;
  anim_put_hdr (p, ANIM_HELLO_LEN, ANIM_F_HELLO);
  memcpy (p + 4, ANIM_PROTO_MAGIC, 8);
  memcpy (p + 12, C.addrs.token, ANIM_TOKEN_LEN);
  anim_put32 (p + 44, (uint32_t) C.rank);
  anim_put32 (p + 48, (uint32_t) C.size);
  anim_put32 (p + 52, (uint32_t) getpid ());
  anim_put32 (p + 56, 0);
  C.out_len = ANIM_HELLO_LEN;
  atomic_store (&C.state, ST_UP);
  rescan_defs ();

  uint64_t stop_deadline = 0;
  for (;;)
    {
      int stopping = atomic_load (&C.stopping);
      if (stopping && !stop_deadline)
        stop_deadline = now_ns () + STOP_DRAIN_MS * 1000000ull;
      /* An unknown id asks for a rescan, at most every 10 ms: solo
       * events have no state definition and must not cause one each. */
      uint64_t since = now_ns () - C.last_rescan;
      if ((C.want_rescan && since > 10000000ull) || since > DEF_RESCAN_NS)
        rescan_defs ();
      /* Everything queued since the last pass, in sends of up to
       * OUT_CAP bytes, until the ring is empty or the socket full. */
      size_t moved = 0, m;
      do
        {
          m = drain_ring ();
          moved += m;
          uint64_t d = atomic_load_explicit (&C.dropped,
                                             memory_order_relaxed);
          if (d != C.drops_reported
              && C.out_len + ANIM_DROPS_LEN <= OUT_CAP)
            {
              put_u64_frame (ANIM_F_DROPS, d, 0, 0);
              C.drops_reported = d;
            }
          if (flush_out () < 0)
            {
              go_gone ("the mpeanim window closed the connection");
              return NULL;
            }
        }
      while (m && C.out_len == 0);
      if (stopping)
        {
          /* Everything queued before stop is in out[] once the ring is
           * empty; then the end marker goes last. */
          slot_t *s = &C.ring[C.deq & (RING_SLOTS - 1)];
          int empty = (int32_t) (atomic_load (&s->seq) - (C.deq + 1)) < 0;
          if (empty && C.out_len + ANIM_END_LEN <= OUT_CAP)
            {
              uint64_t dr = atomic_load (&C.dropped);
              put_u64_frame (ANIM_F_END, C.sent, dr, 1);
              while (C.out_len && now_ns () < stop_deadline)
                {
                  if (flush_out () < 0)
                    break;
                  if (C.out_len)
                    wait_fd (C.fd, POLLOUT, 10);
                }
              if (C.out_len)
                atomic_fetch_add (&C.dropped, 1);
              shutdown (C.fd, SHUT_WR);
              /* Let the window read everything before the close. */
              while (now_ns () < stop_deadline
                     && wait_fd (C.fd, POLLIN, 10) >= 0)
                {
                  char buf[64];
                  ssize_t r = recv (C.fd, buf, sizeof buf, 0);
                  if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
                    break;
                }
              close (C.fd);
              C.fd = -1;
              return NULL;
            }
          if (now_ns () > stop_deadline)
            {
              discard_ring ();
              close (C.fd);
              C.fd = -1;
              return NULL;
            }
        }
      if (stopping && moved)
        continue;
      int ms = moved >= RING_SLOTS / 4 ? BUSY_MS : PERIOD_MS;
      if (stopping)
        ms = 1;
      if (C.out_len)
        wait_fd (C.fd, POLLOUT, ms);
      else
        sender_sleep (ms);
    }
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                 */
/* ------------------------------------------------------------------ */

int
anim_client_start (const anim_client_core_t *core, const char *addr,
                   int world_rank, int world_size)
{
  if (C.started)
    return 0;
  if (!addr)
    addr = getenv ("MPEANIM_ADDR");
  if (!addr || !*addr)
    return 1;
  C.core = core;
  C.rank = world_rank;
  C.size = world_size;
  if (anim_addr_parse (addr, &C.addrs) < 0)
    {
      if (world_rank == 0)
        fprintf (stderr, "mpeanim client: bad address '%s' (expected "
                 "tcp://HOST:PORT/TOKEN or unix:/PATH#TOKEN); live "
                 "updates off\n", addr);
      return -1;
    }
  if (!C.ring)
    C.ring = calloc (RING_SLOTS, sizeof *C.ring);
  if (!C.ring)
    return -1;
  for (uint32_t i = 0; i < RING_SLOTS; i++)
    atomic_init (&C.ring[i].seq, i);
  atomic_store (&C.enq, 0);
  C.deq = 0;
  C.out_len = 0;
  C.sent = 0;
  C.ndefs = 0;
  C.drops_reported = 0;
  atomic_store (&C.dropped, 0);
  atomic_store (&C.stopping, 0);
  atomic_store (&C.state, ST_CONNECTING);
  if (pthread_create (&C.thread, NULL, sender_main, NULL) != 0)
    {
      atomic_store (&C.state, ST_OFF);
      return -1;
    }
  C.started = 1;
  C.core->set_tap (1);
  return 0;
}

void
anim_client_stop (void)
{
  if (!C.started)
    return;
  C.core->set_tap (0);
  pthread_mutex_lock (&C.wake_lock);
  atomic_store (&C.stopping, 1);
  pthread_cond_signal (&C.wake);
  pthread_mutex_unlock (&C.wake_lock);
  pthread_join (C.thread, NULL);
  C.started = 0;
  uint64_t dropped = atomic_load (&C.dropped);
  int was_up = atomic_load (&C.state) == ST_UP;
  /* A tap call racing with set_tap (0) only counts a drop from
   * here on; the ring stays allocated for it. */
  atomic_store (&C.state, ST_GONE);
  if (dropped && was_up)
    fprintf (stderr, "mpeanim client: rank %d: %llu of %llu live updates "
             "dropped (window slow)\n", C.rank, (unsigned long long) dropped,
             (unsigned long long) (dropped + C.sent));
}
