# SPDX-License-Identifier: BSD-2-Clause
"""cache_tamper.py FILE OLD NEW [keep-sum]: replace a string of a profconv
cache file's string table (OLD and NEW of the same length, each between NUL
bytes) and, unless a fourth argument is given, fix the file's checksum so
that it still validates.  The checksum is the word hash both cache formats
use (sym_persist.c whash(): bytes 48..56 hold the hash of everything from
byte 56 on, 8 bytes at a time, then the tail bytewise).  Used by
sympersist_test.sh and kallsyms_cache_test.sh."""
import struct
import sys

path, old, new = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
b = bytearray(open(path, 'rb').read())
i = b.find(b'\0' + old + b'\0')
assert i > 0 and len(old) == len(new), 'no such string'
b[i + 1:i + 1 + len(old)] = new
if len(sys.argv) < 5:
    M = 0xffffffffffffffff
    d = bytes(b[56:])
    n = len(d)
    h = 0xcbf29ce484222325 ^ n
    i = 0
    while i + 8 <= n:
        h ^= struct.unpack_from('=Q', d, i)[0]
        h = (h * 0x100000001b3) & M
        h ^= h >> 29
        i += 8
    for c in d[i:]:
        h = ((h ^ c) * 0x100000001b3) & M
    b[48:56] = struct.pack('=Q', h)
open(path, 'wb').write(bytes(b))
