#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""make_repros.py - write the hand-made reproducers of the bugs fuzzing found.

usage: make_repros.py [FIXTURES_DIR]     (default: ../fixtures/perf)

Each reproducer is a pipe-mode file (16-byte header, the HEADER_ATTR of
y_pipe.data) followed by the few records that matter, so the bug is plain:

corpus/perf/ (replayed by CTest; fail under ASan/UBSan until fixed):
  crash-qsort-null-no-threads        no record at all: finish_model() calls
                                     qsort(NULL, 0, ...) (UBSan: nonnull)
  crash-cc-insert-empty-callchain    y_pipe's first SAMPLE with callchain nr = 0: cc_insert()
                                     does memcpy(NULL + 0, ips, 0) (UBSan)
  crash-time-overflow-finish-model   two SAMPLEs, times 1000 and 0x8000000000000001:
                                     last - first overflows int64 (UBSan)

corpus/perf/slow-* (once slow, now refused at once; replayed):
  slow-zstd-bomb-finished-rounds.data    one SAMPLE and one 63 KB COMPRESSED record
                                     that inflates to 720 MiB of FINISHED_ROUND
                                     records (needs the zstd command)
  slow-attr-ids-pread-per-id.data    file mode: 400 attrs whose ids sections all
                                     cover the whole 65,000-byte file; the
                                     reader does one pread() per 8-byte id
"""

import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def pipe_parts(fixtures):
    with open(os.path.join(fixtures, 'y_pipe.data'), 'rb') as f:
        b = f.read()
    p, attr, first = 16, None, None
    while p < len(b):
        t, m, s = struct.unpack_from('<IHH', b, p)
        if t == 64:
            attr = b[p:p + s]
        if t == 9:
            first = b[p:p + s]
            break
        p += s
    # the attr's sample_type is IP|TID|TIME|ID|PERIOD|CALLCHAIN
    assert struct.unpack_from('<Q', attr, 8 + 24)[0] == 0x167
    return b[:16], attr, first


def main():
    fixtures = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', 'fixtures', 'perf')
    head, attr, first = pipe_parts(fixtures)
    sid = struct.unpack_from('<Q', first, 8 + 24)[0]          # IP TID TIME ID ...

    def sample(time, ips=(0x401000,), pid=100, tid=100):
        body = struct.pack('<QIIQQQQ', ips[0], pid, tid, time, sid, 1, len(ips))
        body += b''.join(struct.pack('<Q', i) for i in ips)
        return struct.pack('<IHH', 9, 2, 8 + len(body)) + body

    def pipe(*recs):
        return head + attr + b''.join(recs)

    outs = {}
    outs['corpus/perf/crash-qsort-null-no-threads'] = pipe()
    # y_pipe's first sample with its callchain cut to nr = 0
    empty = first[8:8 + 5 * 8] + struct.pack('<Q', 0)
    outs['corpus/perf/crash-cc-insert-empty-callchain'] = pipe(
        struct.pack('<IHH', 9, 2, 8 + len(empty)) + empty)
    outs['corpus/perf/crash-time-overflow-finish-model'] = pipe(sample(1000),
                                                                sample(0x8000000000000001))

    rounds = struct.pack('<IHH', 68, 0, 8) * (720 << 17)
    z = subprocess.run(['zstd', '-q', '-c', '-19', '--no-check'], input=rounds,
                       stdout=subprocess.PIPE, check=True).stdout
    assert len(z) + 8 <= 0xffff, len(z)
    outs['corpus/perf/slow-zstd-bomb-finished-rounds.data'] = pipe(
        sample(1000), struct.pack('<IHH', 81, 0, 8 + len(z)) + z)

    # file mode: header | 400 attrs (144 bytes: attr + ids section) | data | zero padding
    with open(os.path.join(HERE, 'corpus', 'perf', 'fp_tiny.data'), 'rb') as f:
        src = f.read()
    f = struct.unpack_from('<8sQQ QQ QQ QQ 4Q', src, 0)
    attr_size, aoff, doff, dsize = f[2], f[3], f[5], f[6]
    n, total = 400, 65000
    fattr = bytearray(src[aoff:aoff + attr_size])
    struct.pack_into('<QQ', fattr, attr_size - 16, 0, total // 8 * 8)   # ids: the whole file
    data = src[doff:doff + dsize]
    hdr = bytearray(src[:104])
    data_off = 104 + n * attr_size
    struct.pack_into('<QQQQQ', hdr, 16, attr_size, 104, n * attr_size, data_off, len(data))
    struct.pack_into('<4Q', hdr, 72, 0, 0, 0, 0)
    out = bytes(hdr) + bytes(fattr) * n + data
    outs['corpus/perf/slow-attr-ids-pread-per-id.data'] = out + b'\0' * (total - len(out))

    for name, data in sorted(outs.items()):
        path = os.path.join(HERE, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as fh:
            fh.write(data)
        print('%-46s %6d bytes' % (name, len(data)))


if __name__ == '__main__':
    main()
