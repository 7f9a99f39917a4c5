#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""make_seeds.py - derive the small seed inputs of corpus/perf/ from tests/fixtures/perf.

usage: make_seeds.py [FIXTURES_DIR [OUTDIR]]
       (defaults: ../fixtures/perf and corpus/perf next to this script)

Deterministic: the same fixtures (and the same zstd CLI) give the same bytes.
Every seed is a valid perf.data input that profconv converts, small (< 16 KB) so
the fuzzer mutates it quickly:

  <fixture>_mix.data     header + attrs, at most a few records of every type
                         (samples: the first 24) in file order, + the fixture's
                         complete feature section (offsets moved)
  fp_head.data           the first ~4 KB of y_fp's data section + features
  fp_tiny.data           y_fp's data records up to the 6th SAMPLE, no features
  fp_rounds.data         fp_mix sorted by time, a FINISHED_ROUND after every 4th
                         record
  fp_rounds_unordered.data  the same unsorted: rounds break perf's ordering
                         promise, so records arrive late (warned)
  fp_synth.data          fp_tiny + synthetic LOST, LOST_SAMPLES, THROTTLE,
                         UNTHROTTLE, an unknown type, HEADER_TRACING_DATA and
                         AUXTRACE (with payloads)
  fp_compressed.data     fp_tiny's records as one zstd stream cut into 3
                         COMPRESSED records at arbitrary points (records carry
                         over between them)
  fp_compressed2.data    the same in COMPRESSED2 records (u64 data size first)
  fp_bigendian.data      fp_tiny written as a big-endian machine would
                         ("2ELIFREP", every field swapped, attr flags bitfield
                         bit-reversed per byte)
  pipe_mix.data          y_pipe: header, HEADER_ATTR, HEADER_FEATUREs, a few of
                         every other record
  pipe_tiny.data         y_pipe: HEADER_ATTR + kernel records up to the 6th SAMPLE
  pipe_synth.data        pipe_tiny + HEADER_TRACING_DATA and AUXTRACE payloads
  zstd.data, pipe_zstd.data   copies of y_zstd.data and y_pipe_zstd.data
"""

import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = struct.Struct('<8sQQ QQ QQ QQ 4Q')   # perf_file_header, 104 bytes
REC = struct.Struct('<IHH')                   # perf_event_header

SAMPLE, MMAP, LOST, COMM, EXIT, THROTTLE, UNTHROTTLE, FORK = 9, 1, 2, 3, 4, 5, 6, 7
MMAP2, LOST_SAMPLES, SWITCH = 10, 13, 14
HEADER_ATTR, TRACING_DATA, FINISHED_ROUND, AUXTRACE = 64, 66, 68, 71
COMPRESSED, COMPRESSED2 = 81, 83


def records(b, start, end):
    p = start
    out = []
    while p + REC.size <= end:
        typ, misc, size = REC.unpack_from(b, p)
        if size < REC.size or p + size > end:
            raise ValueError('bad record at %d' % p)
        out.append((typ, b[p:p + size]))
        p += size
    return out


class FileMode:
    def __init__(self, b):
        f = HEADER.unpack_from(b, 0)
        assert f[0] == b'PERFILE2' and f[1] == 104
        self.b = b
        self.attr_size, self.attrs_off, self.attrs_size = f[2], f[3], f[4]
        self.data_off, self.data_size = f[5], f[6]
        self.flags = list(f[9:13])
        self.recs = records(b, self.data_off, self.data_off + self.data_size)

    def build(self, recs, features=True):
        data = b''.join(r for _, r in recs)
        old_end = self.data_off + self.data_size
        new_end = self.data_off + len(data)
        out = bytearray(self.b[:self.data_off]) + data
        if features:
            tail = bytearray(self.b[old_end:])
            nfeat = sum(bin(x).count('1') for x in self.flags)
            for i in range(nfeat):
                off, size = struct.unpack_from('<QQ', tail, 16 * i)
                struct.pack_into('<QQ', tail, 16 * i, off - old_end + new_end, size)
            out += tail
        else:
            struct.pack_into('<4Q', out, 72, 0, 0, 0, 0)
        struct.pack_into('<Q', out, 48, len(data))
        return bytes(out)

    def attr(self, i=0):
        a = self.attrs_off + i * self.attr_size
        return {'sample_type': struct.unpack_from('<Q', self.b, a + 24)[0],
                'flags': struct.unpack_from('<Q', self.b, a + 40)[0]}


def select(recs, per_type=6, samples=24, extra=None):
    extra = extra or {}
    seen = {}
    out = []
    for typ, r in recs:
        lim = extra.get(typ, samples if typ == SAMPLE else per_type)
        if seen.get(typ, 0) < lim:
            seen[typ] = seen.get(typ, 0) + 1
            out.append((typ, r))
    return out


def upto_samples(recs, n):
    """The records up to and including the n-th SAMPLE."""
    out = []
    for typ, r in recs:
        out.append((typ, r))
        n -= typ == SAMPLE
        if not n:
            break
    return out


def record_time(tr):
    """Sort key: metadata (no time) first, then time (sample_type IP|TID|TIME|...,
    sample_id_all with TID|TIME, so TIME is the last u64 of other records)."""
    typ, r = tr
    if typ >= 64:
        return -1
    if typ == SAMPLE:
        return struct.unpack_from('<Q', r, 24)[0]
    return struct.unpack_from('<Q', r, len(r) - 8)[0]


def with_rounds(recs, every=4):
    """A FINISHED_ROUND after every 4th record."""
    out = []
    for i, tr in enumerate(recs):
        out.append(tr)
        if i % every == every - 1:
            out.append(rec(FINISHED_ROUND, b''))
    return out


def rec(typ, body, misc=0):
    assert len(body) % 8 == 0
    return (typ, REC.pack(typ, misc, 8 + len(body)) + body)


def first_sample_ids(recs):
    """pid, tid, time of the first sample (sample_type IP|TID|TIME|...)."""
    for typ, r in recs:
        if typ == SAMPLE:
            pid, tid = struct.unpack_from('<II', r, 16)
            time = struct.unpack_from('<Q', r, 24)[0]
            return pid, tid, time
    raise ValueError('no sample')


def synth_records(pid, tid, time):
    sid = struct.pack('<IIQ', pid, tid, time)      # sample_id: TID, TIME
    return [
        rec(LOST, struct.pack('<QQ', 1, 7) + sid),
        rec(LOST_SAMPLES, struct.pack('<Q', 3) + sid),
        rec(THROTTLE, struct.pack('<QQQ', time, 1, 1) + sid),
        rec(UNTHROTTLE, struct.pack('<QQQ', time + 1000, 1, 1) + sid),
        rec(21, struct.pack('<Q', 0) + sid),         # AUX_OUTPUT_HW_ID: ignored kernel type
        rec(60, struct.pack('<Q', 0)),               # unknown type: warned and skipped
    ]


def payload_records():
    """HEADER_TRACING_DATA and AUXTRACE: their payload follows the record."""
    td = rec(TRACING_DATA, struct.pack('<II', 12, 0))[1] + b'tracingdata\0' + b'\0' * 4
    aux = rec(AUXTRACE, struct.pack('<QQQIIII', 24, 0, 0, 0, 0, 0, 0))[1] + bytes(range(24))
    return [(TRACING_DATA, td), (AUXTRACE, aux)]


def zstd(data):
    return subprocess.run(['zstd', '-q', '-c', '-19', '--no-check'], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def compressed(recs, v2):
    stream = zstd(b''.join(r for _, r in recs))
    cuts = [0, len(stream) // 3, 2 * len(stream) // 3 + 5, len(stream)]
    out = []
    for a, z in zip(cuts, cuts[1:]):
        chunk = stream[a:z]
        pad = b'\0' * (-len(chunk) % 8)
        if v2:
            out.append(rec(COMPRESSED2, struct.pack('<Q', len(chunk)) + chunk + pad))
        else:
            # COMPRESSED (v1) has no data size: the record ends where the
            # zstd bytes end, so it is left unpadded.
            out.append((COMPRESSED, REC.pack(COMPRESSED, 0, 8 + len(chunk)) + chunk))
    return out


# --- big-endian rewrite (fp_tiny only: the record types it holds) ---

def bitrev_bytes(v):
    r = 0
    for i in range(64):
        if v >> i & 1:
            r |= 1 << ((i & ~7) | (7 - (i & 7)))
    return r


def swap_u64s(b, start, end):
    out = bytearray(b)
    for p in range(start, end, 8):
        out[p:p + 8] = b[p:p + 8][::-1]
    return out


def swap_u32s(b, start, end):
    out = bytearray(b)
    for p in range(start, end, 4):
        out[p:p + 4] = b[p:p + 4][::-1]
    return out


def swap_attr(a):
    """perf_event_attr (128 bytes here) little -> big endian."""
    o = bytearray(a)
    o = swap_u32s(o, 0, 8)                       # type, size
    o = swap_u64s(o, 8, 40)                      # config, period, sample_type, read_format
    flags = struct.unpack_from('<Q', a, 40)[0]
    struct.pack_into('>Q', o, 40, bitrev_bytes(flags))
    o = swap_u32s(o, 48, 56)                     # wakeup, bp_type
    o = swap_u64s(o, 56, 88)                     # config1, config2, branch_sample_type, regs_user
    o = swap_u32s(o, 88, 96)                     # sample_stack_user, clockid
    o = swap_u64s(o, 96, 104)                    # regs_intr
    o = swap_u32s(o, 104, 108)                   # aux_watermark
    o[108:110] = a[108:110][::-1]                # sample_max_stack
    o[110:112] = a[110:112][::-1]
    o = swap_u32s(o, 112, 116)                   # aux_sample_size
    o = swap_u32s(o, 116, 120)
    o = swap_u64s(o, 120, len(a))                # sig_data, config3, ...
    return o


def swap_record(typ, r, sample_type):
    o = bytearray(r)
    o[0:4] = r[0:4][::-1]
    o[4:6] = r[4:6][::-1]
    o[6:8] = r[6:8][::-1]
    size = len(r)
    trailer = 16                                 # sample_id: TID (u32 pair), TIME
    if typ == SAMPLE:
        assert sample_type == 0x127
        o = swap_u64s(o, 8, 16)                  # ip
        o = swap_u32s(o, 16, 24)                 # pid, tid
        o = swap_u64s(o, 24, size)               # time, period, nr, ips
    elif typ in (MMAP, MMAP2):
        o = swap_u32s(o, 8, 16)                  # pid, tid
        o = swap_u64s(o, 16, 40)                 # addr, len, pgoff
        if typ == MMAP2:
            misc = struct.unpack_from('<H', r, 4)[0]
            if not misc & (1 << 14):
                o = swap_u32s(o, 40, 48)         # maj, min
                o = swap_u64s(o, 48, 64)         # ino, ino_generation
            o = swap_u32s(o, 64, 72)             # prot, flags
        o = swap_u32s(o, size - trailer, size - trailer + 8)
        o = swap_u64s(o, size - 8, size)
    elif typ == COMM:
        o = swap_u32s(o, 8, 16)
        o = swap_u32s(o, size - trailer, size - trailer + 8)
        o = swap_u64s(o, size - 8, size)
    elif typ in (FORK, EXIT):
        o = swap_u32s(o, 8, 24)
        o = swap_u64s(o, 24, 32)
        o = swap_u32s(o, size - trailer, size - trailer + 8)
        o = swap_u64s(o, size - 8, size)
    elif typ == FINISHED_ROUND:
        pass
    else:
        return None
    return bytes(o)


def bigendian(fm, recs):
    assert fm.attrs_size == fm.attr_size
    out = bytearray(fm.b[:fm.data_off])
    out[0:8] = b'2ELIFREP'
    out = swap_u64s(out, 8, 104)
    a = fm.attrs_off
    out[a:a + 128] = swap_attr(fm.b[a:a + 128])
    out = swap_u64s(out, a + 128, a + 144)       # ids file_section
    ido, ids = struct.unpack_from('<QQ', fm.b, a + 128)
    out = swap_u64s(out, ido, ido + ids)
    st = fm.attr()['sample_type']
    data = b''
    for typ, r in recs:
        s = swap_record(typ, r, st)
        if s is not None:
            data += s
    struct.pack_into('>Q', out, 48, len(data))
    struct.pack_into('>4Q', out, 72, 0, 0, 0, 0)
    return bytes(out) + data


class PipeMode:
    def __init__(self, b):
        assert b[:8] == b'PERFILE2' and struct.unpack_from('<Q', b, 8)[0] == 16
        self.b = b
        self.recs = records(b, 16, len(b))

    def build(self, recs):
        return self.b[:16] + b''.join(r for _, r in recs)


def main():
    fixtures = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', 'fixtures', 'perf')
    outdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, 'corpus', 'perf')

    def load(name):
        with open(os.path.join(fixtures, name), 'rb') as f:
            return f.read()

    outs = {}
    for name in ('fp', 'fork_exec', 'multi_event', 'clock', 'switch'):
        fm = FileMode(load('y_%s.data' % name))
        outs['%s_mix.data' % name] = fm.build(select(fm.recs))

    fm = FileMode(load('y_fp.data'))
    head, n = [], 0
    for typ, r in fm.recs:
        if n + len(r) > 4096:
            break
        head.append((typ, r))
        n += len(r)
    outs['fp_head.data'] = fm.build(head)
    tiny = upto_samples(fm.recs, 6)
    outs['fp_tiny.data'] = fm.build(tiny, features=False)
    mix = select(fm.recs)
    outs['fp_rounds.data'] = fm.build(with_rounds(sorted(mix, key=record_time)))
    outs['fp_rounds_unordered.data'] = fm.build(with_rounds(mix))
    pid, tid, time = first_sample_ids(fm.recs)
    outs['fp_synth.data'] = fm.build(tiny + synth_records(pid, tid, time) + payload_records(),
                                     features=False)
    outs['fp_compressed.data'] = fm.build(compressed(tiny, False), features=False)
    outs['fp_compressed2.data'] = fm.build(compressed(tiny, True), features=False)
    outs['fp_bigendian.data'] = bigendian(fm, tiny)

    pm = PipeMode(load('y_pipe.data'))
    outs['pipe_mix.data'] = pm.build(select(pm.recs, extra={80: 64}))
    kern = upto_samples([(t, r) for t, r in pm.recs if t < 64], 6)
    attr = [(t, r) for t, r in pm.recs if t == HEADER_ATTR]
    outs['pipe_tiny.data'] = pm.build(attr + kern)
    outs['pipe_synth.data'] = pm.build(attr + payload_records() + kern)

    outs['zstd.data'] = load('y_zstd.data')
    outs['pipe_zstd.data'] = load('y_pipe_zstd.data')

    os.makedirs(outdir, exist_ok=True)
    for name, data in sorted(outs.items()):
        with open(os.path.join(outdir, name), 'wb') as f:
            f.write(data)
        print('%-24s %6d bytes' % (name, len(data)))


if __name__ == '__main__':
    main()
