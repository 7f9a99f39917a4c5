#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""make_cfi_seeds.py - the seeds of corpus/cfi/ for fuzz_cfi.c.

usage: make_cfi_seeds.py OUTDIR

Each seed is the fuzz_cfi input format (u64 .eh_frame address, u64
.eh_frame_hdr address, u32 hdr length, u8 mode, hdr bytes, section bytes)
holding the real tables of a perf fixture binary (tests/fixtures/perf:
src/dwarfprog, the vdso image, and a slice of libc's: its first 16 table
entries and the FDEs they name, with the table's count cut to match), once
as .eh_frame with its table (mode 0) and once as .eh_frame alone (mode 0
with an empty hdr: the index is built).  Standard library only.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FX = os.path.join(HERE, '..', 'fixtures', 'perf')


def sections(path):
    d = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', d, 40)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 58)
    secs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    st = secs[shstrndx]
    out = {}
    for s in secs:
        name = d[st[4] + s[0]:d.index(b'\0', st[4] + s[0])].decode()
        out[name] = (s[3], d[s[4]:s[4] + s[5]])
    return out


def seed(eh_addr, hdr_addr, hdr, eh, mode=0):
    return struct.pack('<QQIB', eh_addr, hdr_addr, len(hdr), mode) + hdr + eh


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    files = {'dwarfprog': os.path.join(FX, 'src', 'dwarfprog'),
             'vdso': os.path.join(FX, 'dwarf-syms', '.build-id', 'a5',
                                  '99807156a2a62fe956a82e388aeeabc874119c', 'vdso'),
             'libc': os.path.join(FX, 'dwarf-syms', 'libc.so.6')}
    for name, path in files.items():
        s = sections(path)
        hdr_addr, hdr = s['.eh_frame_hdr']
        eh_addr, eh = s['.eh_frame']
        if name == 'libc':
            # the first 16 entries: the FDEs they name lie in the first part of
            # .eh_frame; keep up to the farthest of them plus its length
            n = 16
            ents = [struct.unpack_from('<ii', hdr, 12 + 8 * i) for i in range(n)]
            end = max(hdr_addr + f - eh_addr for _, f in ents)
            end += 4 + struct.unpack_from('<I', eh, end)[0]
            hdr = hdr[:8] + struct.pack('<I', n) + hdr[12:12 + 8 * n]
            eh = eh[:end] + b'\0\0\0\0'
        with open(os.path.join(argv[1], name + '.cfi'), 'wb') as f:
            f.write(seed(eh_addr, hdr_addr, hdr, eh))
        with open(os.path.join(argv[1], name + '-nohdr.cfi'), 'wb') as f:
            f.write(seed(eh_addr, hdr_addr, b'', eh))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
