#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""diag_codes_check.py - every warning kind the library counts has a stable
code, and the one table of codes (docs/diagnostics.md) agrees with the
library's (src/core/diag_codes.c).

Finds each pc_warn()/pc_warn_n() call in src/ (arguments over several lines
too), resolves its kind (a string literal, or a macro defined as one in the
same file or a header of src/), and checks that the kind is in
src/core/diag_codes.c; then that every row of the C table is a row of the
docs table with the same code, identifier and text, in the same order, and
that codes and identifiers are unique.  Prints what differs; exit 1.

usage: diag_codes_check.py SOURCE_DIR [--list]
"""
import os
import re
import sys

top = sys.argv[1]
src = os.path.join(top, "src")
STR = r'"(?:[^"\\]|\\.)*"'


def unq(lits):
    return "".join(bytes(l[1:-1], "utf-8").decode("unicode_escape") for l in re.findall(STR, lits))


files = {}
for d, _, names in os.walk(src):
    for n in names:
        if n.endswith((".c", ".h")):
            p = os.path.join(d, n)
            files[p] = open(p, encoding="utf-8").read()

# macros defined as string literals, per file (headers count for everyone)
macros_by_file = {}
kinds_pre = {}
global_macros = {}
for p, text in files.items():
    m = {}
    for name, val in re.findall(r"#define\s+([A-Z_][A-Z0-9_]*)\s+((?:" + STR + r"\s*)+)\n", text):
        m[name] = unq(val)
    for name, val in re.findall(r"static\s+const\s+char\s+([A-Z_][A-Z0-9_]*)\s*\[\]\s*=\s*((?:" + STR + r"\s*)+);", text):
        m[name] = unq(val)
    macros_by_file[p] = m
    if p.endswith(".h"):
        global_macros.update(m)

# kinds handed to a wrapper of pc_warn() (read_perf.c's warn(), ...): by
# the convention that a warning kind's constant is named W_* or WARN_*
for p, m in macros_by_file.items():
    for name, v in m.items():
        if re.match(r"(W|WARN)_", name):
            text = files[p]
            line = text.count("\n", 0, text.find(name)) + 1
            kinds_pre.setdefault(v, "%s:%d" % (os.path.relpath(p, top), line))

# kinds passed through a variable (the worker context's kinds, re-counted)
PASSTHROUGH = {"const", "off", "struct", "kind", "w->warns[i].kind", "j->ctx->warns[kind].kind", "k->kind"}
kinds = dict(kinds_pre)
bad = []
for p, text in files.items():
    if p.endswith(("core/ctx.c", "core/pc_core.h", ".h")):
        continue
    for m in re.finditer(r"\b(pc_warn|pc_warn_n|perf_warn_at|pc_jr_warn)\s*\(", text):
        # the kind: the second argument (pc_jr_warn: the fourth)
        i, depth, commas = m.end(), 0, 0
        want = 3 if m.group(1) == "pc_jr_warn" else 1
        while i < len(text):
            c = text[i]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == "," and depth == 0:
                commas += 1
                if commas == want:
                    break
            i += 1
        j = i + 1
        arg = re.match(r"\s*((?:" + STR + r"\s*)+|[A-Za-z_][A-Za-z0-9_>\-.\[\]]*)", text[j:])
        if not arg:
            bad.append("%s: cannot read the kind of %s" % (p, text[m.start():m.start() + 60]))
            continue
        a = arg.group(1).strip()
        line = text.count("\n", 0, m.start()) + 1
        if a.startswith('"'):
            kinds.setdefault(unq(a), "%s:%d" % (os.path.relpath(p, top), line))
        elif a in PASSTHROUGH:
            continue
        elif a in macros_by_file[p] or a in global_macros:
            v = macros_by_file[p].get(a, global_macros.get(a))
            kinds.setdefault(v, "%s:%d" % (os.path.relpath(p, top), line))
        else:
            bad.append("%s:%d: kind %s is neither a string nor a string macro" %
                       (os.path.relpath(p, top), line, a))

ctab = files[os.path.join(src, "core", "diag_codes.c")]
crows = [(int(c), i, unq(t)) for c, i, t in
         re.findall(r"\{\s*(\d+)\s*,\s*\"([a-z0-9-]+)\"\s*,\s*((?:" + STR + r"\s*)+)\}", ctab)]
if "--list" in sys.argv:
    for k, where in sorted(kinds.items(), key=lambda kv: kv[1]):
        print("%s\t%s" % (where, k))
    sys.exit(0)
known = {t for _, _, t in crows}
for k, where in sorted(kinds.items()):
    if k not in known:
        bad.append("%s: warning kind \"%s\" has no code in src/core/diag_codes.c" % (where, k))
for what, idx in (("code", 0), ("identifier", 1), ("text", 2)):
    seen = set()
    for r in crows:
        if r[idx] in seen:
            bad.append("src/core/diag_codes.c: %s %s used twice" % (what, r[idx]))
        seen.add(r[idx])

doc = open(os.path.join(top, "docs", "diagnostics.md"), encoding="utf-8").read()
drows = []
for line in doc.splitlines():
    m = re.match(r"\|\s*(\d+)\s*\|\s*`([a-z0-9-]+)`\s*\|\s*(warning|error)\s*\|\s*((?:[^|\\]|\\.)*?)\s*\|\s*(.*?)\s*\|\s*$", line)
    if m:
        drows.append((int(m.group(1)), m.group(2), m.group(3), m.group(4).replace("\\|", "|")))
# the two rows without a kind of their own (1000, 1999) are the docs' alone
dw = [(c, i, t) for c, i, s, t in drows if s == "warning" and i not in ("validate-remark", "unlisted")]
if dw != crows:
    a, b = set(dw), set(crows)
    for r in sorted(b - a):
        bad.append("docs/diagnostics.md lacks warning row %s" % (r,))
    for r in sorted(a - b):
        bad.append("docs/diagnostics.md has warning row %s that src/core/diag_codes.c lacks" % (r,))
    if a == b:
        bad.append("docs/diagnostics.md lists the warnings in another order than src/core/diag_codes.c")
# the error rows: one per status in profconv.h
hdr = open(os.path.join(top, "include", "profconv.h"), encoding="utf-8").read()
status = {}
for name, val in re.findall(r"\b(PROFCONV_(?:OK|ERR_[A-Z_]+))\s*=\s*([^,]+),", hdr):
    status[name] = val.strip()
errs = [(c, i) for c, i, s, t in drows if s == "error"]
if len(errs) != len(status) - 1:
    bad.append("docs/diagnostics.md has %d error rows; profconv.h has %d PROFCONV_ERR_* codes" %
               (len(errs), len(status) - 1))
# each error row names a status of profconv.h, and profconv_code_id()'s list
ecodes = {}
for name, val in status.items():
    v = val.replace("(", " ").replace(")", " ")
    for n2, v2 in sorted(status.items(), key=lambda kv: -len(kv[0])):
        v = v.replace(n2, "(" + status[n2] + ")") if n2 != name else v
    try:
        ecodes[name] = eval(v, {})
    except Exception:
        bad.append("profconv.h: cannot evaluate %s = %s" % (name, val))
want = sorted(v for k, v in ecodes.items() if k != "PROFCONV_OK")
if sorted(c for c, _ in errs) != want:
    bad.append("docs/diagnostics.md error codes %s, profconv.h has %s" %
               (sorted(c for c, _ in errs), want))
cerr = re.findall(r"\{\s*(PROFCONV_ERR_[A-Z_]+)\s*,\s*\"([a-z0-9-]+)\"", ctab)
if sorted((ecodes.get(n, -1), i) for n, i in cerr) != sorted(errs):
    bad.append("src/core/diag_codes.c's error identifiers differ from docs/diagnostics.md's")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("diag codes: %d warning kinds in src/, %d warning codes, %d error codes; docs agree" %
      (len(kinds), len(crows), len(errs)))
