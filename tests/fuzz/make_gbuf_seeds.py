#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""make_gbuf_seeds.py - seeds for fuzz_gbuf (the gecko-buffer reader).

usage: make_gbuf_seeds.py DUMP.pgkb OUTDIR SYNTHETIC.pgkb

From DUMP (a PGKB packed by `profconv gecko-dump`, e.g. from
tests/fixtures/gecko-buffer) it writes small dumps to OUTDIR whose BUFR holds
a few KB of whole blocks (from the start and from the middle of the buffer),
one without the side tables, and writes SYNTHETIC: a dump built here from
scratch with what the scrape lacks (marker types with complete field lists of
every serial type, counters, paused ranges, a sync sample with a labelled
frame), which tests/unit/test_read_gecko_buffer.c also checks.
"""
import struct
import sys

MAGIC = b"PGKBUF1\0"


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def read_uleb(d, i):
    v = s = 0
    while True:
        b = d[i]
        i += 1
        v |= (b & 0x7F) << s
        s += 7
        if not b & 0x80:
            return v, i


def s_(t):
    b = t.encode()
    return uleb(len(b)) + b


def sections(d):
    assert d[:8] == MAGIC
    n = struct.unpack_from("<Q", d, 16)[0]
    off, out = 24, []
    for _ in range(n):
        cc, _r, ln = struct.unpack_from("<4sIQ", d, off)
        out.append((cc, d[off + 16:off + 16 + ln]))
        off += 16 + ln
    return out


def pack(secs):
    out = bytearray(MAGIC + struct.pack("<HHBBBBQ", 1, 0, 8, 8, 8, 0, len(secs)))
    for cc, body in secs:
        out += struct.pack("<4sIQ", cc, 0, len(body)) + body
    return bytes(out)


def blocks(bufr):
    ln, i = read_uleb(bufr, 0)
    start = struct.unpack_from("<Q", bufr, i)[0]
    i += 8
    data = bufr[i:i + ln]
    j, res = 0, []
    while j < len(data):
        sz, k = read_uleb(data, j)
        res.append((j, k + sz))
        j = k + sz
    return start, data, res


def cut(bufr, first, nbytes):
    start, data, bl = blocks(bufr)
    a = bl[first][0]
    e = a
    for (o, end) in bl[first:]:
        if end - a > nbytes:
            break
        e = end
    chunk = data[a:e]
    return uleb(len(chunk)) + struct.pack("<Q", start + a) + chunk + struct.pack("<QQ", 0, 0)


def legacy(tag, payload):
    return uleb(1 + len(payload)) + bytes([tag]) + payload


def modern(tag, payload):
    return uleb(1 + len(payload)) + bytes([tag]) + payload


KINDS = [(1, "CategoryPair", 4), (2, "CollectionStart", 8), (3, "CollectionEnd", 8),
         (4, "Label", 8), (5, "FrameFlags", 8), (6, "DynamicStringFragment", 8),
         (7, "JitReturnAddr", 8), (8, "InnerWindowID", 8), (9, "SourceId", 4),
         (10, "LineNumber", 4), (11, "ColumnNumber", 4), (12, "NativeLeafAddr", 8),
         (13, "Pause", 8), (14, "Resume", 8), (15, "PauseSampling", 8), (16, "ResumeSampling", 8),
         (17, "Responsiveness", 8), (18, "ThreadId", 8), (19, "Time", 8),
         (20, "TimeBeforeCompactStack", 8), (21, "TimeBeforeSameSample", 8),
         (22, "CounterId", 8), (23, "Number", 8), (24, "Count", 8),
         (25, "ProfilerOverheadTime", 8), (26, "ProfilerOverheadDuration", 8),
         (27, "Marker", 255), (28, "RunningTimes", 255), (29, "UnresponsiveDurationMs", 255),
         (30, "CompactStack", 255), (31, "SameSample", 255)]
T = {name: tag for tag, name, _ in KINDS}


def synthetic():
    f64 = lambda v: struct.pack("<d", v)
    u64 = lambda v: struct.pack("<Q", v)
    meta = (s_("Firefox") + s_("153.7.0") + s_("20261103151912") + s_("") + struct.pack("<I", 34)
            + u64(100) + struct.pack("<I", 0) + s_("default") + s_("Parent Process")
            + f64(1.7e12) + u64(1_000_000_000) + f64(1e6) + s_("CLOCK_MONOTONIC")
            + f64(0.0) + f64(50.0) + f64(1.0) + struct.pack("<I", 0) + uleb(0) + uleb(0)
            + s_("Linux") + s_("") + s_("x86_64-gcc3") + s_("") + s_("ns") + b"\0")
    kind = uleb(len(KINDS)) + b"".join(bytes([t]) + s_(n) + bytes([z]) for t, n, z in KINDS) + b"\x1b"
    cats = uleb(2) + s_("Other") + s_("grey") + uleb(2) + s_("Other") + s_("Sub") \
        + s_("JavaScript") + s_("yellow") + uleb(1) + s_("Other")
    thrd = uleb(1) + u64(100) + s_("GeckoMain") + b"\1" + f64(0) + f64(float("nan")) + b"\0"
    libs = uleb(1) + u64(0x400000) + u64(0x500000) + u64(0) + s_("app") + s_("/usr/bin/app") \
        + s_("app") + s_("/usr/bin/app") + s_("") + s_("") + s_("x86_64")
    strs = uleb(2) + u64(0x1000) + s_("Label") + u64(0x2000) + s_("literal name")
    cntr = uleb(1) + u64(0xC0) + s_("malloc") + s_("Memory") + s_("bytes allocated")
    # every serial type, in order, in one complete C++ type (tag 1)
    fields = [("u8", 1, 0), ("u16", 2, 0), ("u32", 3, 0), ("u64", 4, 0), ("i32", 5, 0),
              ("i64", 6, 0), ("f64", 7, 0), ("b", 8, 0), ("s8", 9, 0), ("s16", 10, 0),
              ("ncs", 11, 0), ("ns", 12, 0), ("std", 13, 0), ("ts", 14, 0), ("dur", 15, 0),
              ("flow", 16, 0), ("maybe", 3, 1), ("nothing", 3, 1)]
    mt = bytearray(uleb(2))
    mt += b"\0\1" + s_("AllTypes") + b"\1" + uleb(len(fields))
    for k, t, fl in fields:
        mt += s_(k) + bytes([t, fl]) + s_(k) + s_("integer") + b"\0"
    mt += s_("")
    mt += b"\1\1" + s_("RustThing") + b"\0" + uleb(0) + s_("")
    payload = (b"\x07" + struct.pack("<H", 300) + struct.pack("<I", 70000) + u64(2**63 + 5)
               + struct.pack("<i", -3) + struct.pack("<q", -4) + f64(2.5) + b"\1"
               + uleb(5 << 1 | 1) + b"hello" + uleb(2 << 1 | 1) + "é€".encode("utf-16-le")
               + uleb(3) + b"abc" + uleb(2) + "hi".encode("utf-16-le") + uleb(4) + b"std!"
               + u64(1_002_000_000) + u64(1_500_000) + u64(0xABCDEF) + b"M" + struct.pack("<I", 9)
               + b"m")
    nostack = uleb(0)
    mk = lambda phase, times, name, tag, rest: modern(
        T["Marker"], u64(100) + bytes([phase]) + b"".join(u64(t) for t in times) + nostack
        + u64(0) + name + uleb(1) + bytes([tag]) + rest)
    inner = (legacy(T["ThreadId"], u64(100)) + legacy(T["Time"], f64(3.0))
             + legacy(T["NativeLeafAddr"], u64(0x401234)))
    stack_blob = uleb(len(inner)) + u64(1) + inner + u64(3) + u64(0)
    buf = bytearray()
    buf += legacy(T["ThreadId"], u64(100)) + legacy(T["Time"], f64(1.0))
    buf += legacy(T["NativeLeafAddr"], u64(0x401000))
    buf += legacy(T["Label"], u64(0x1000)) + legacy(T["FrameFlags"], u64(1 << 5))
    buf += legacy(T["DynamicStringFragment"], b"dynamic\0") + legacy(T["CategoryPair"], struct.pack("<i", 1))
    buf += legacy(T["NativeLeafAddr"], u64(0x401100))
    buf += mk(1, [1_001_000_000, 1_003_000_000], uleb(4 << 1 | 1) + b"mark", 1, b"\0" + payload)
    buf += mk(0, [1_004_000_000], uleb(12 << 1) + u64(0x2000), 1, b"\1" + b"\xff" * 3)
    buf += mk(2, [1_005_000_000], uleb(3 << 1) + u64(0x3000), 0, b"")
    buf += modern(T["Marker"], u64(100) + b"\3" + u64(1_006_000_000) + stack_blob + u64(7)
                  + uleb(4 << 1 | 1) + b"withstack"[:4] + uleb(0) + b"\0")
    buf += legacy(T["CounterId"], u64(0xC0)) + legacy(T["Time"], f64(2.0)) \
        + legacy(T["Count"], struct.pack("<q", 4096)) + legacy(T["Number"], u64(3))
    buf += legacy(T["Pause"], f64(10.0)) + legacy(T["Resume"], f64(12.0))
    buf += legacy(T["CollectionStart"], f64(20.0)) + legacy(T["CollectionEnd"], f64(21.0))
    buf += legacy(T["ThreadId"], u64(100)) + legacy(T["TimeBeforeSameSample"], f64(4.0)) \
        + modern(T["RunningTimes"], uleb(1) + uleb(12345)) + modern(T["SameSample"], b"")
    buf += legacy(T["ThreadId"], u64(100)) + legacy(T["TimeBeforeCompactStack"], f64(5.0)) \
        + modern(T["UnresponsiveDurationMs"], f64(0.5)) + modern(T["CompactStack"], uleb(0))
    buf += bytes([2, 99, 0])  # a kind the table does not name
    bufr = uleb(len(buf)) + u64(1) + bytes(buf) + u64(0) + u64(0)
    return pack([(b"META", meta), (b"KIND", kind), (b"CATS", cats), (b"THRD", thrd),
                 (b"LIBS", libs), (b"STRS", strs), (b"CNTR", cntr), (b"MTYP", bytes(mt)),
                 (b"XTRA", b"skipped"), (b"BUFR", bufr)])


def main():
    dump, outdir, synth = sys.argv[1:4]
    d = open(dump, "rb").read()
    secs = sections(d)
    side = [(c, b) for c, b in secs if c != b"BUFR" and c != b"LIBS"]
    bufr = dict(secs)[b"BUFR"]
    _, _, bl = blocks(bufr)
    open(f"{outdir}/head.pgkb", "wb").write(pack(side + [(b"BUFR", cut(bufr, 0, 6000))]))
    open(f"{outdir}/middle.pgkb", "wb").write(pack(side + [(b"BUFR", cut(bufr, len(bl) // 2, 6000))]))
    bare = [(c, b) for c, b in secs if c in (b"META", b"KIND")]
    open(f"{outdir}/bare.pgkb", "wb").write(pack(bare + [(b"BUFR", cut(bufr, len(bl) - 200, 4000))]))
    open(synth, "wb").write(synthetic())


if __name__ == "__main__":
    main()
