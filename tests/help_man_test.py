#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""help_man_test.py - `profconv --help` and docs/profconv.1 say the same thing.

Both are parsed, nothing is listed here by hand, so a new command or option
has to be added to both or this fails:
  - commands: the help's usage lines against the man page's SYNOPSIS, and
    every command has an entry under COMMANDS;
  - options: the help's option lines and the options in its usage lines,
    against the man page's OPTIONS entries and the options in its SYNOPSIS
    (long names, and which short letter goes with which long name);
  - formats: the help's -f and -t lists against the man page's -f and -t
    entries; compressions: --compress's methods, and the input compressions
    and archives, in both.
The version --version prints is the man page's and CHANGELOG.md's newest.
Then the command's usage errors: one line on stderr, naming "profconv" (not
the path it was run by) and the problem, with "Try 'profconv --help'", and
exit status 2.

usage: help_man_test.py PROFCONV MANPAGE
"""
import os
import re
import subprocess
import sys

prog, manpath = sys.argv[1], sys.argv[2]
problems = []


def check(cond, what):
    if not cond:
        problems.append(what)


def same(what, help_set, man_set):
    if help_set != man_set:
        problems.append("%s differ:\n    only in --help: %s\n    only in the man page: %s" % (
            what, sorted(help_set - man_set) or "-", sorted(man_set - help_set) or "-"))


# --- --help --------------------------------------------------------------
h = subprocess.run([prog, "--help"], capture_output=True, text=True)
check(h.returncode == 0, "--help exited %d" % h.returncode)
help_lines = h.stdout.split("\n")
usage = []
for line in help_lines:
    if not line.strip():
        break
    usage.append(re.sub(r"^usage:", "", line).strip())
check(len(usage) > 1, "no usage lines in --help")

CMD = re.compile(r"^profconv (?:\[options\] )?([a-z][a-z0-9-]*)")
help_cmds = {m.group(1) for m in map(CMD.match, usage) if m}
help_opts = set()
help_short = {}
for line in usage:
    help_opts |= set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", line))
for line in help_lines:
    m = re.match(r"^  (?:-(\w), )?--([a-z][a-z0-9-]*)", line) or re.match(r"^      --([a-z][a-z0-9-]*)", line)
    if not m:
        continue
    if m.re.groups == 2:
        help_opts.add(m.group(2))
        if m.group(1):
            help_short[m.group(1)] = m.group(2)
    else:
        help_opts.add(m.group(1))
help_text = " ".join(l.strip() for l in help_lines)


def help_list(pattern, what):
    m = re.search(pattern, help_text)
    check(m, "--help: no %s list (%s)" % (what, pattern))
    return set(re.split(r",? or |, | and ", m.group(1).strip())) if m else set()


help_from = help_list(r"--from FORMAT .*?\(([^)]*)\)", "-f")
help_to = help_list(r"--to FORMAT .*?\(([^;)]*)", "-t")
help_comp = help_list(r"--compress METHOD (.*?) \(the default", "--compress")
help_incomp = help_list(r"standard input\); (.*?) compression, and a", "input compression")
help_archive = help_list(r"compression, and an? (.*?) archive", "archive")

# --- the man page ----------------------------------------------------------


def roff_args(s):
    return [a.replace('"', "") for a in re.findall(r'"[^"]*"|\S+', s)]


def unescape(s):
    s = re.sub(r"\\f[BIRP]", "", s)
    for a, b in (("\\-", "-"), ("\\&", ""), ("\\(lq", '"'), ("\\(rq", '"'), ("\\(<=", "<="),
                 ("\\(em", "--"), ("\\e", "\\")):
        s = s.replace(a, b)
    return s


def render(line):
    """A man(7) line as text, and its bold pieces."""
    m = re.match(r"^\.(B|I|BR|RB|BI|IB|IR|RI)\s+(.*)$", line)
    if not m:
        if line.startswith("."):
            return "", []
        return unescape(line), re.findall(r"\\fB(.*?)\\f[RP]", line)
    fonts, args = m.group(1), roff_args(m.group(2))
    bold = []
    for i, a in enumerate(args):
        f = fonts[i % len(fonts)] if len(fonts) > 1 else fonts
        if f == "B":
            bold.append(unescape(a))
    sep = " " if len(fonts) == 1 else ""
    return unescape(sep.join(args)), bold


man = open(manpath, encoding="utf-8").read().split("\n")
sections = {}
cur = None
for line in man:
    m = re.match(r"^\.SH\s+(.*)$", line)
    if m:
        cur = m.group(1).strip('"')
        sections[cur] = []
    elif cur:
        sections[cur].append(line)
for s in ("SYNOPSIS", "COMMANDS", "OPTIONS"):
    check(s in sections, "man page: no %s section" % s)


def entries(lines):
    """.TP entries: (header text, header bold pieces, body text, body bold pieces)."""
    out = []
    i = 0
    while i < len(lines):
        if lines[i] == ".TP" and i + 1 < len(lines):
            head, hb = render(lines[i + 1])
            body, bb = [], []
            j = i + 2
            while j < len(lines) and lines[j] != ".TP":
                t, b = render(lines[j])
                body.append(t)
                bb += b
                j += 1
            out.append((head, hb, " ".join(x for x in body if x), bb))
            i = j
        else:
            i += 1
    return out


synopsis = []
for line in sections.get("SYNOPSIS", []):
    if line == ".br":
        synopsis.append("")
        continue
    t, _ = render(line)
    if t:
        synopsis.append((synopsis.pop() + " " if synopsis else "") + t)
synopsis = [re.sub(r"\s+", " ", s).strip() for s in synopsis if s.strip()]
man_cmds = {m.group(1) for m in map(CMD.match, synopsis) if m}
man_opts = set()
for s in synopsis:
    man_opts |= set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", s))
man_short = {}
for head, _, _, _ in entries(sections.get("OPTIONS", [])):
    m = re.match(r"^(?:-(\w), )?--([a-z][a-z0-9-]*)", head)
    check(m, "man page OPTIONS: an entry that is not an option: %r" % head)
    if m:
        man_opts.add(m.group(2))
        if m.group(1):
            man_short[m.group(1)] = m.group(2)
command_heads = set()
for head, _, _, _ in entries(sections.get("COMMANDS", [])):
    w = head.split()[0] if head.split() else ""
    command_heads.add(w)
opt_entries = {re.sub(r"^(?:-\w, )?--([a-z0-9-]+).*$", r"\1", h): (h, b, t, tb)
               for h, b, t, tb in entries(sections.get("OPTIONS", []))}


def man_list(opt, pattern, what):
    e = opt_entries.get(opt)
    check(e, "man page: no --%s entry" % opt)
    if not e:
        return set()
    m = re.search(pattern, re.sub(r"\s+", " ", e[2]))
    check(m, "man page --%s: no %s list (%s) in %r" % (opt, what, pattern, e[2][:200]))
    return set(re.split(r",? or |, | and ", m.group(1).strip())) if m else set()


man_from = man_list("from", r"content detection: (.*?) \(", "format")
man_to = {b for b in opt_entries.get("to", ("", [], "", []))[3] if re.fullmatch(r"[a-z][a-z0-9-]*", b)}
man_comp = man_list("compress", r"^(.*?) \(the default", "method")
desc = " ".join(render(l)[0] for l in sections.get("DESCRIPTION", []))
desc = re.sub(r"\s+", " ", desc)
m = re.search(r"A (.*?) stream, and an? (.*?) archive", desc)
check(m, "man page DESCRIPTION: no 'A ... stream, and a ... archive' sentence")
man_incomp = set(re.split(r",? or |, | and ", m.group(1))) if m else set()
man_archive = set(re.split(r",? or |, | and ", m.group(2))) if m else set()

# --- compare ---------------------------------------------------------------
same("commands (usage lines / SYNOPSIS)", help_cmds, man_cmds)
missing = help_cmds - command_heads
check(not missing, "commands without an entry under COMMANDS in the man page: %s" % sorted(missing))
same("options", help_opts, man_opts)
same("short options", set(help_short.items()), set(man_short.items()))
same("input formats (-f)", help_from, man_from)
same("output formats (-t)", help_to, man_to)
same("--compress methods", help_comp, man_comp)
same("input compressions", help_incomp, man_incomp)
same("input archives", help_archive, man_archive)
for name, s in (("commands", help_cmds), ("options", help_opts), ("input formats", help_from),
                ("output formats", help_to), ("compressions", help_comp)):
    check(len(s) >= 2, "--help: only %s %s found: the parser no longer understands it" % (sorted(s), name))

# --- the version: --version, the man page's title line, CHANGELOG.md --------
v = subprocess.run([prog, "--version"], capture_output=True, text=True).stdout
m = re.match(r"profconv (\d+\.\d+\.\d+) ", v)
check(m, "--version: %r" % v)
version = m.group(1) if m else "?"
th = [l for l in man if l.startswith(".TH ")]
check(th and '"profconv %s"' % version in th[0], "man page .TH does not say profconv %s: %s" % (version, th))
changelog = open(os.path.join(os.path.dirname(manpath), "..", "CHANGELOG.md"), encoding="utf-8").read()
heads = re.findall(r"^## (\S+)", changelog, re.M)
check(heads and heads[0] == version, "CHANGELOG.md's newest section is %s, not %s" % (heads[:1], version))

# --- usage errors ----------------------------------------------------------
for args, want in ((["--ouput", "x.json"], "unknown option '--ouput' (did you mean '--output'?)"),
                   (["--no-such-option"], "unknown option '--no-such-option'"),
                   (["-Z"], "unknown option '-Z'"),
                   (["--jobs"], "option '--jobs' needs an argument"),
                   (["x.data", "-o"], "option '-o' needs an argument"),
                   (["--strict=yes", "x.data"], "option '--strict' takes no argument"),
                   ([], "no INPUT given"),
                   (["a.data", "b.data"], "one INPUT at a time"),
                   (["info"], "info needs an INPUT"),
                   (["-t", "bogus", "x.data"], "unknown output format 'bogus'"),
                   (["--jobs", "0", "-O", "out", "x.data"], "--jobs takes a number"),
                   (["--shard", "1/2", "x.data"], "are for batch mode (-O OUTDIR)"),
                   (["--weight", "bogus", "x.data"], "--weight takes 'samples' or 'period'")):
    r = subprocess.run([prog] + args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    err = r.stderr.rstrip("\n")
    what = "profconv %s" % " ".join(args)
    check(r.returncode == 2, "%s: exit %d, expected 2" % (what, r.returncode))
    check("\n" not in err, "%s: more than one line on stderr:\n%s" % (what, err))
    check(err.startswith("profconv: "), "%s: does not start with 'profconv: ': %r" % (what, err))
    check(prog not in err or prog == "profconv", "%s: names the program by its path: %r" % (what, err))
    check(want in err, "%s: %r does not say %r" % (what, err, want))
    check(err.endswith("Try 'profconv --help'."), "%s: no \"Try 'profconv --help'.\": %r" % (what, err))
    check(r.stdout == "", "%s: printed on stdout: %r" % (what, r.stdout[:200]))

if problems:
    print("FAIL: help-man:\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print("help-man: %d commands, %d options, %d input and %d output formats agree" % (
    len(help_cmds), len(help_opts), len(help_from), len(help_to)))
