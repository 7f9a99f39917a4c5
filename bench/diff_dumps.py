#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""diff_dumps.py - what a user sees, before and after an output change.

usage: diff_dumps.py DUMP_A.json DUMP_B.json [PROFILE_A.json PROFILE_B.json]
(the profiles processed or Gecko JSON, uncompressed)

DUMP_A/B are fe-validator's `dump.sh --production` of two conversions of the
same input (call trees, function lists with self time, markers per name, as
the front-end shows them); every member but the file name and the load time
must be equal.  With the two processed profiles as well, each marker is
compared as the tooltip and the marker table show it: thread, name, start,
end (the times its phase uses), phase, category, its schema's description and display locations, and
every schema field of its payload (label and value), a string-table
reference (unique-string, flow-id, terminating-flow-id) read as its text, so
that a field written as text in one and as a reference in the other, or a
renamed string table row, is no difference.

Exit 0 when equal; else the first differences and exit 1.  Python's
standard library only.
"""
import json
import sys

STRING_REF = ("unique-string", "flow-id", "terminating-flow-id")


def diff(a, b, path, out, limit=20):
    if len(out) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append("%s.%s: only in %s" % (path, k, "A" if k in a else "B"))
            else:
                diff(a[k], b[k], "%s.%s" % (path, k), out, limit)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("%s: %d vs %d entries" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s[%d]" % (path, i), out, limit)
    elif a != b:
        out.append("%s: %r vs %r" % (path, a, b))


def shown_markers(path):
    """Each thread's markers as the front-end displays them."""
    d = json.load(open(path))
    strs = d["shared"]["stringArray"] if "shared" in d else None
    cats = [c["name"] for c in d["meta"].get("categories") or []]
    schemas = {s["name"]: s for s in d["meta"].get("markerSchema") or []}
    threads = []
    for t in d["threads"]:
        st = strs if strs is not None else t.get("stringArray", t.get("stringTable"))
        m = t["markers"]
        if "schema" in m:  # Gecko format: rows of columns
            col = m["schema"]
            m = {k: [r[c] if c < len(r) else None for r in m["data"]] for k, c in col.items()}
            m["length"] = len(m["name"])
        rows = []
        for i in range(m["length"]):
            p = m["data"][i]
            shown = None
            if isinstance(p, dict):
                # the schema's name is not displayed (only its description
                # and fields): a renamed schema is no difference
                shown = {}
                s = schemas.get(p.get("type"))
                if s:
                    shown["(schema)"] = (s.get("description"), None, sorted(s.get("display") or []))
                for f in (s.get("fields", s.get("data", [])) if s else []):
                    if "key" not in f:
                        continue  # a static row (Gecko format)
                    v = p.get(f["key"])
                    if v is None:
                        continue
                    if f.get("format") in STRING_REF and isinstance(v, int):
                        v = st[v]
                    shown[f["key"]] = (f.get("label"), f.get("format") in STRING_REF or
                                       f.get("format") == "string", v)
                # what no schema field lists stays as written (not shown)
            # the times its phase uses (Instant, IntervalStart: start;
            # IntervalEnd: end; Interval: both): the front-end reads no
            # other (deriveMarkersFromRawMarkerTable)
            ph = m["phase"][i]
            rows.append((st[m["name"][i]], m["startTime"][i] if ph != 3 else None,
                         m["endTime"][i] if ph in (1, 3) else None, ph,
                         cats[m["category"][i]] if m["category"][i] < len(cats) else m["category"][i],
                         shown))
        threads.append({"name": t.get("name"), "tid": t.get("tid"), "markers": rows})
    return threads


def normalise_fields(threads):
    # a field shown as text is equal whether written as text or reference
    for t in threads:
        for j, r in enumerate(t["markers"]):
            shown = r[5]
            if shown:
                shown = {k: (v[0], v[2]) for k, v in shown.items()}
            t["markers"][j] = list(r[:5]) + [shown]
    return threads


def main():
    if len(sys.argv) not in (3, 5):
        sys.stderr.write(__doc__)
        return 2
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
    for d in (a, b):
        d.pop("file", None)
        d.pop("loadMs", None)
    out = []
    diff(a, b, "dump", out)
    if len(sys.argv) == 5:
        ma, mb = (normalise_fields(shown_markers(p)) for p in sys.argv[3:5])
        diff(ma, mb, "markers", out)
    if out:
        print("\n".join(out))
        return 1
    n = sum(len(t.get("markersByName") or {}) for t in a.get("threads", []))
    print("same: %d threads, %d marker names%s" % (len(a.get("threads", [])), n,
          ", every marker's fields" if len(sys.argv) == 5 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
