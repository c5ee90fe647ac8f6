#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Writes the seed corpus of tests/anim/fuzz-wire.c (docs/ANIM-PROTOCOL.md):
# byte 0 = chunk size << 1 | prepend-HELLO, byte 1 = job size, then frames.
import os, struct, sys
out = sys.argv[1] if len(sys.argv) > 1 else 'tests/anim/corpus-wire'
os.makedirs(out, exist_ok=True)
TOKEN = b'0123456789abcdef0123456789abcdef'
def fr(t, body): return struct.pack('<HBB', 4 + len(body), t, 0) + body
def hello(rank=0, size=2, token=TOKEN):
    return fr(1, b'MPEANIM1' + token + struct.pack('<iiiI', rank, size, 99, 0))
def state(s, e, name, color):
    return fr(2, struct.pack('<iiBB', s, e, len(name), len(color)) + name + color)
def event(t, th, i): return fr(3, struct.pack('<Qii', t, th, i))
def msg(k, t, th, p, tag, n): return fr(k, struct.pack('<QiiiIQ', t, th, p, tag, 0, n))
def drops(n): return fr(6, struct.pack('<Q', n))
def end(s, d): return fr(7, struct.pack('<QQ', s, d))
body = (state(600, 601, b'Work', b'red') + state(602, 603, 'Zeit\u00fc'.encode(), b'#00ff00')
        + event(10, 0, 600) + msg(4, 12, 0, 1, 7, 4096) + msg(5, 20, 1, 1, -1, 8)
        + event(30, 0, 601) + drops(3) + end(4, 3))
cases = {
    'full': b'\x00\x02' + hello() + body,
    'full-chunked': b'\x0e\x02' + hello() + body,
    'prepended': b'\x01\x04' + body,
    'prepended-bytewise': b'\x03\x04' + body,
    'wrong-token': b'\x00\x02' + hello(token=b'f' * 32) + body,
    'bad-magic': b'\x00\x02' + fr(1, b'MPEANIM2' + TOKEN + struct.pack('<iiiI', 0, 2, 1, 0)),
    'bad-rank': b'\x00\x02' + hello(rank=5, size=2),
    'huge-size': b'\x00\x02' + hello(rank=0, size=1 << 30),
    'no-hello': b'\x00\x02' + body,
    'after-end': b'\x01\x02' + end(0, 0) + event(1, 0, 1),
    'short-state': b'\x01\x02' + fr(2, b'\x00' * 6),
    'state-lengths': b'\x01\x02' + fr(2, struct.pack('<iiBB', 1, 2, 200, 64) + b'x' * 10),
    'state-not-utf8': b'\x01\x02' + state(1, 2, b'\xc3\x28\xed\xa0\x80', b'blue'),
    'state-overlong': b'\x01\x02' + state(1, 2, b'\xe0\x80\xaf', b'blue'),
    'event-length': b'\x01\x02' + fr(3, b'\x00' * 15),
    'msg-length': b'\x01\x02' + fr(4, b'\x00' * 31),
    'drops-length': b'\x01\x02' + fr(6, b'\x00' * 9),
    'end-length': b'\x01\x02' + fr(7, b'\x00' * 15),
    'unknown-type': b'\x01\x02' + fr(8, b''),
    'reserved-byte': b'\x01\x02' + struct.pack('<HBB', 20, 3, 1) + b'\x00' * 16,
    'frame-too-long': b'\x01\x02' + struct.pack('<HBB', 513, 3, 0),
    'frame-too-short': b'\x01\x02' + struct.pack('<HBB', 3, 3, 0),
    'partial-frame': b'\x01\x02' + event(5, 0, 1)[:10],
    'many-events': b'\x21\x02' + b''.join(event(i, i % 3, 600 + i % 2) for i in range(300)),
    'state-max': b'\x01\x02' + state(1, 2, b'n' * 200, b'c' * 64),
}
for k, v in cases.items():
    with open(os.path.join(out, k + '.bin'), 'wb') as f:
        f.write(v)
