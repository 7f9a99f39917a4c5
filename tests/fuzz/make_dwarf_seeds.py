#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""make_dwarf_seeds.py - the --call-graph dwarf seeds of corpus/perf/ (dwarf_*.data).

usage: perf inject -i y_dwarf.data -o - > y_dwarf.pipe   (y_dwarf.data: zstd -d the fixture)
       make_dwarf_seeds.py y_dwarf.pipe OUTDIR

Each seed is a pipe-mode perf.data: every record of the real recording
(tests/fixtures/perf/y_dwarf.data.zst) up to its first sample, then a few of
its samples: the first through libc's qsort, the first system call and the
first vdso call.  fuzz_perf finds the binaries through the fixture's
symbol directories (see fuzz_perf.c), so the unwinder runs on every seed.
The variants break what the unwinder reads:

  dwarf_head.data        the samples as recorded (8 KiB stack copies)
  dwarf_short_stack.data stack copies cut to 64 valid bytes (dyn_size)
  dwarf_bad_regs.data    absurd registers: sp near 2^64, bp 0, ip 1 / ip in the kernel half
  dwarf_junk_stack.data  stack bytes from a fixed pseudo-random sequence
  dwarf_loop_stack.data  every stack word is the sample's own ip: return
                         addresses that lead back into the same function
  dwarf_abi32.data       register ABI 1 (a 32-bit process)
  dwarf_no_regs.data     register ABI 0 (no user registers), stack size 0

Standard library only.  Seeds stay small: copies of 1 KiB except in dwarf_head.
"""
import os
import struct
import sys

SAMPLE = 9
S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN, S_ID, S_CPU, S_PERIOD = (1 << i for i in range(9))
S_REGS_USER, S_STACK_USER, S_DATA_SRC = 1 << 12, 1 << 13, 1 << 15


def records(data):
    pos = 16
    while pos + 8 <= len(data):
        typ, misc, size = struct.unpack_from('<IHH', data, pos)
        if size < 8:
            break
        yield typ, misc, data[pos:pos + size]
        pos += size


def parse_sample(rec, sample_type, nregs):
    """Offsets of the fields the variants change."""
    pos = 8
    out = {}
    if sample_type & S_IP:
        out['ip'] = pos
        pos += 8
    for bit in (S_TID, S_TIME, S_ADDR, S_ID, S_CPU, S_PERIOD):
        if sample_type & bit:
            pos += 8
    if sample_type & S_CALLCHAIN:
        nr = struct.unpack_from('<Q', rec, pos)[0]
        pos += 8 + 8 * nr
    out['regs'] = pos
    abi = struct.unpack_from('<Q', rec, pos)[0]
    pos += 8 + (8 * nregs if abi else 0)
    out['stack'] = pos
    return out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    data = open(argv[1], 'rb').read()
    if data[:8] != b'PERFILE2':
        sys.stderr.write('not a little-endian pipe-mode perf.data\n')
        return 1
    head, picked = [], {}
    sample_type = regs_mask = None
    for typ, misc, rec in records(data):
        if typ == 64 and sample_type is None:  # HEADER_ATTR: perf_event_attr first
            sample_type = struct.unpack_from('<Q', rec, 8 + 24)[0]
            regs_mask = struct.unpack_from('<Q', rec, 8 + 80)[0]
        if typ != SAMPLE:
            if not picked:
                head.append(rec)
            continue
        kind = 'kernel' if (misc & 7) == 1 else None
        if kind is None:
            ip = struct.unpack_from('<Q', rec, 8)[0]
            kind = 'vdso' if ip >> 40 == 0x7f and len(picked) >= 1 and 'user' in picked else 'user'
        picked.setdefault(kind, rec)
        if len(picked) == 3:
            break
    nregs = bin(regs_mask).count('1')
    samples = list(picked.values())

    def write(name, recs):
        with open(os.path.join(argv[2], name), 'wb') as f:
            f.write(data[:16])
            for r in head + recs:
                f.write(r)

    def cut(rec, keep):
        """The sample with its stack copy cut to keep bytes (size and dyn_size)."""
        o = parse_sample(rec, sample_type, nregs)
        size = struct.unpack_from('<Q', rec, o['stack'])[0]
        if size == 0:
            return bytearray(rec)
        dyn = struct.unpack_from('<Q', rec, o['stack'] + 8 + size)[0]
        body = rec[o['stack'] + 8:o['stack'] + 8 + keep]
        tail = rec[o['stack'] + 16 + size:]
        new = bytearray(rec[:o['stack']]) + struct.pack('<Q', keep) + body + \
            struct.pack('<Q', min(dyn, keep)) + tail
        struct.pack_into('<H', new, 6, len(new))
        return new

    def variant(name, edit):
        """Each sample with its stack copy cut to 1 KiB, changed by edit(i, rec, offsets)."""
        out = []
        for i, r in enumerate(samples):
            r = cut(r, 1024)
            edit(i, r, parse_sample(r, sample_type, nregs))
            out.append(bytes(r))
        write(name, out)

    def short_stack(i, r, o):
        struct.pack_into('<Q', r, o['stack'] + 8 + 1024, 64)

    def bad_regs(i, r, o):
        regs = o['regs'] + 8
        # perf x86_64 order: AX BX CX DX SI DI BP SP IP ...
        struct.pack_into('<Q', r, regs + 8 * 6, 0)
        struct.pack_into('<Q', r, regs + 8 * 7, 0xfffffffffffffff8)
        struct.pack_into('<Q', r, regs + 8 * 8, 1 if i % 2 == 0 else 0xffffffff81000000)

    rng = [0x243f6a8885a308d3]

    def junk_stack(i, r, o):
        for k in range(0, 1024, 8):
            rng[0] = (rng[0] * 6364136223846793005 + 1442695040888963407) & (2 ** 64 - 1)
            struct.pack_into('<Q', r, o['stack'] + 8 + k, rng[0])

    def loop_stack(i, r, o):
        ip = struct.unpack_from('<Q', r, o['regs'] + 8 + 8 * 8)[0]
        for k in range(0, 1024, 8):
            struct.pack_into('<Q', r, o['stack'] + 8 + k, ip)

    def abi32(i, r, o):
        struct.pack_into('<Q', r, o['regs'], 1)

    write('dwarf_head.data', samples)
    variant('dwarf_short_stack.data', short_stack)
    variant('dwarf_bad_regs.data', bad_regs)
    variant('dwarf_junk_stack.data', junk_stack)
    variant('dwarf_loop_stack.data', loop_stack)
    variant('dwarf_abi32.data', abi32)
    out = []
    for r in samples:
        o = parse_sample(r, sample_type, nregs)
        new = bytearray(r[:o['regs']]) + struct.pack('<Q', 0) + struct.pack('<Q', 0)
        size = struct.unpack_from('<Q', r, o['stack'])[0]
        new += r[o['stack'] + 16 + size:]
        struct.pack_into('<H', new, 6, len(new))
        out.append(bytes(new))
    write('dwarf_no_regs.data', out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
