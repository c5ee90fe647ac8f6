#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks every #include of the source tree against the allowed edges.

The components and their allowed edges are the ```edges block of
docs/design.md (the one place they are kept).  Each line there reads

    NAME = PATH... [-> NAME...]

PATH is a folder or a single file; a source file belongs to the component
of its longest matching PATH.  A file may include files of its own
component and of the components after "->"; "*" stands for every
component and "!NAME" takes one back out.  Every .c/.h file must belong
to a component.

An include is resolved as the compiler would find it: next to the
including file, then from the include roots below; failing that, through
a unique tree file whose path ends with the included name (for headers
found through a -I flag this script does not know).  What resolves to no
tree file (libc, MPI, GTK, config.h) is outside the graph.

Two rules on the Makefile fragments (*.am) keep the same shape at link
time: nothing outside bench/ names a file of bench/ (bench/ is a leaf;
only the top Makefile.am includes its fragment), and the programs of
tools/ do not link liblogfmt-internal.la (only the public liblogfmt).

Usage: include-edges.py [--files | --graph] TOP
  (no option)  prints one line per violation; exit 1 if there is one
  --files      prints the files it scans (relative to TOP)
  --graph      prints the component edges the tree really has
"""
import os
import re
import sys

INCLUDE_ROOTS = ["", "logfmt/include", "mpe/include", "logfmt/src"]
GENERATED = {"config.h"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def read_table(top):
    path = os.path.join(top, "docs", "design.md")
    comps = {}       # name -> (paths, deps)
    order = []
    inside = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not inside:
                inside = s == "```edges"
                continue
            if s.startswith("```"):
                break
            s = s.split("#", 1)[0].strip()
            if not s:
                continue
            m = re.match(r"^([\w-]+)\s*=\s*([^>]*?)\s*(?:->\s*(.*))?$", s)
            if not m or not m.group(2):
                raise SystemExit("%s:%d: cannot read '%s'" % (path, n, s))
            name = m.group(1)
            if name in comps:
                raise SystemExit("%s:%d: %s defined twice" % (path, n, name))
            comps[name] = (m.group(2).split(), (m.group(3) or "").split())
            order.append(name)
    if not comps:
        raise SystemExit("%s: no ```edges block" % path)
    allowed = {}
    for name in order:
        paths, deps = comps[name]
        ok = set()
        for d in deps:
            if d == "*":
                ok |= set(order)
            elif d.startswith("!"):
                ok.discard(d[1:])
            elif d in comps:
                ok.add(d)
            else:
                raise SystemExit("docs/design.md: %s -> unknown component %s"
                                 % (name, d))
        ok.add(name)
        allowed[name] = ok
    owners = sorted(((p.rstrip("/"), name) for name in order
                     for p in comps[name][0]),
                    key=lambda pn: -len(pn[0]))
    return owners, allowed


def component_of(owners, rel):
    for p, name in owners:
        if rel == p or rel.startswith(p + "/"):
            return name
    return None


def tree_files(top, exts):
    """Every file ending in exts below TOP, minus build trees and hidden
    folders.  A build tree is known by config.status, or while configure
    still runs in it (a parallel CI), by config.log or confdefs.h."""
    out = []
    marks = ("config.status", "config.log", "confdefs.h")
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs
                         if not x.startswith((".", "_"))
                         and x != "autom4te.cache"
                         and not any(os.path.exists(os.path.join(d, x, m))
                                     for m in marks))
        for f in sorted(files):
            if f.endswith(exts):
                out.append(os.path.relpath(os.path.join(d, f), top))
    return out


def resolve(top, files_set, by_suffix, src, quote, name):
    cands = []
    if quote == '"':
        cands.append(os.path.join(os.path.dirname(src), name))
    cands += [os.path.join(r, name) for r in INCLUDE_ROOTS]
    for c in cands:
        c = os.path.normpath(c)
        if c in files_set:
            return c
    hits = by_suffix.get(os.path.basename(name), [])
    hits = [h for h in hits if h == name or h.endswith("/" + name)]
    return hits[0] if len(hits) == 1 else None


def makefile_problems(top):
    problems = []
    for rel in tree_files(top, (".am",)):
        with open(os.path.join(top, rel), encoding="utf-8",
                  errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                code = line.split("#", 1)[0]
                if (not rel.startswith("bench/") and "bench/" in code
                        and not (rel == "Makefile.am" and code.strip()
                                 == "include bench/Makefile.inc.am")):
                    problems.append("%s:%d: names a file of bench/ "
                                    "(bench/ is a leaf)" % (rel, n))
                if rel.startswith("tools/") and "liblogfmt-internal" in code:
                    problems.append("%s:%d: tools/ links liblogfmt-internal.la"
                                    " (only the public liblogfmt)" % (rel, n))
    return problems


def scan(top):
    owners, allowed = read_table(top)
    files = tree_files(top, (".c", ".h"))
    files_set = set(files)
    by_suffix = {}
    for f in files:
        by_suffix.setdefault(os.path.basename(f), []).append(f)
    problems = []
    edges = set()
    for src in files:
        comp = component_of(owners, src)
        if comp is None:
            problems.append("%s: belongs to no component of docs/design.md"
                            % src)
            continue
        with open(os.path.join(top, src), encoding="utf-8",
                  errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m or m.group(2) in GENERATED:
                    continue
                dst = resolve(top, files_set, by_suffix, src, m.group(1),
                              m.group(2))
                if dst is None:
                    continue
                to = component_of(owners, dst)
                if to is None:
                    continue        # reported as a source file already
                edges.add((comp, to))
                if to not in allowed[comp]:
                    problems.append("%s:%d: includes %s: %s -> %s is not an "
                                    "allowed edge" % (src, n, dst, comp, to))
    return files, problems + makefile_problems(top), edges


def main(argv):
    mode = None
    if len(argv) == 3 and argv[1] in ("--files", "--graph"):
        mode, top = argv[1], argv[2]
    elif len(argv) == 2 and not argv[1].startswith("-"):
        top = argv[1]
    else:
        sys.stderr.write(__doc__.split("Usage: ", 1)[1])
        return 2
    files, problems, edges = scan(top)
    if mode == "--files":
        print("\n".join(files + tree_files(top, (".am",))))
        return 0
    if mode == "--graph":
        for a, b in sorted(e for e in edges if e[0] != e[1]):
            print("%s -> %s" % (a, b))
        return 0
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
