#!/usr/bin/env python3
"""Architecture figures for a loopdeck tree (issue 21): lines and `pub`
items per crate (or, in a one-crate tree, per top-level module), `pub`
fields, the longest functions, and the import cycles between source files.

    bench/arch_metrics.py [TREE]        (default: this repository)

Counts are textual and the same for any tree, so two trees (before and
after a change) compare: production code only (`#[cfg(test)]` modules,
`*_tests.rs`, `tests/` and `benches/` are left out); `pub` means exactly
`pub` (not `pub(crate)`/`pub(super)`); a function's length is the lines
from its `fn` to the brace that closes it; a cycle is a set of files that
reach each other through `use crate::…`/`use super::…`/`use loopdeck_core::…`
paths (resolved to the file that defines the first module named).
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))

PUB_ITEM = re.compile(r'^\s*pub\s+(?:async\s+|const\s+|unsafe\s+)*(fn|struct|enum|trait|type|const|static|mod|use|macro)\b')
PUB_FIELD = re.compile(r'^\s+pub\s+[a-z_][a-z0-9_]*\s*:')
FN = re.compile(r'^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+|async\s+|unsafe\s+)*fn\s+([a-zA-Z0-9_]+)')


def source_dirs():
    """(unit name, src dir) for each crate, or for each top-level module
    of a single-crate tree."""
    crates = os.path.join(ROOT, 'crates')
    units = []
    if os.path.isdir(crates):
        for c in sorted(os.listdir(crates)):
            src = os.path.join(crates, c, 'src')
            if os.path.isdir(src):
                units.append((c, src))
    src = os.path.join(ROOT, 'src')
    if os.path.isdir(src):
        units.append(('loopdeck (binary)' if units else 'loopdeck', src))
    return units


def rust_files(src):
    for dirpath, _, files in os.walk(src):
        for f in files:
            if f.endswith('.rs') and not f.endswith('_tests.rs') and f != 'tests.rs' and '/tests/' not in dirpath + '/':
                yield os.path.join(dirpath, f)


def production_lines(path):
    """The file's lines outside `#[cfg(test)]` items."""
    lines = open(path, encoding='utf-8').read().split('\n')
    out, skip_depth, i = [], None, 0
    depth = 0
    pending_test = False
    for line in lines:
        stripped = line.strip()
        if skip_depth is None and stripped.startswith('#[cfg(test)]'):
            pending_test = True
            continue
        if pending_test and skip_depth is None:
            if stripped.startswith('#['):
                continue
            opens = line.count('{') - line.count('}')
            if stripped.endswith(';'):
                pending_test = False
                continue
            skip_depth = depth
            depth += opens
            pending_test = False
            if depth <= skip_depth:
                skip_depth = None
            continue
        depth += line.count('{') - line.count('}')
        if skip_depth is not None:
            if depth <= skip_depth:
                skip_depth = None
            continue
        out.append(line)
    return out


def longest_functions(lines, path):
    found = []
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m or line.rstrip().endswith(';'):
            continue
        depth, started = 0, False
        for j in range(i, len(lines)):
            depth += lines[j].count('{') - lines[j].count('}')
            if '{' in lines[j]:
                started = True
            if started and depth <= 0:
                found.append((j - i + 1, m.group(2), path))
                break
    return found


def module_of(path, src):
    rel = os.path.relpath(path, src)[:-3]
    parts = rel.split(os.sep)
    if parts[-1] in ('mod', 'lib', 'main'):
        parts = parts[:-1]
    return parts


def main():
    units = source_dirs()
    print(f'tree: {ROOT}')
    total_pub = total_fields = 0
    fns = []
    files_by_mod = {}
    uses = defaultdict(set)
    for name, src in units:
        n_lines = n_pub = n_fields = 0
        per_mod = defaultdict(int)
        for path in rust_files(src):
            lines = production_lines(path)
            n_lines += len(lines)
            mod = module_of(path, src)
            per_mod[mod[0] if mod else '(root)'] += len(lines)
            n_pub += sum(1 for l in lines if PUB_ITEM.match(l))
            n_fields += sum(1 for l in lines if PUB_FIELD.match(l))
            fns += longest_functions(lines, os.path.relpath(path, ROOT))
            key = (name, tuple(mod))
            files_by_mod[key] = path
            for l in lines:
                for m in re.finditer(r'\b(crate|super|loopdeck_core|loopdeck_tui|loopdeck_i18n)::([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)', l):
                    head, rest = m.group(1), m.group(2).split('::')
                    if head == 'super':
                        base = list(mod[:-1]) if not path.endswith('mod.rs') else list(mod[:-1])
                        target = base + rest
                        tname = name
                    elif head == 'crate':
                        target, tname = rest, name
                    else:
                        tname = head.replace('_', '-')
                        target = rest
                    uses[key].add((tname, tuple(target)))
        total_pub += n_pub
        total_fields += n_fields
        print(f'{name}: {n_lines} lines, {n_pub} pub items, {n_fields} pub fields')
        if len(units) == 1:
            for m, n in sorted(per_mod.items(), key=lambda x: -x[1]):
                print(f'    {m}: {n} lines')
    print(f'all: {total_pub} pub items, {total_fields} pub fields')
    fns.sort(reverse=True)
    print('longest functions:')
    for n, f, p in fns[:5]:
        print(f'    {n:4d}  {f}  ({p})')
    # Resolve each use to the longest known module prefix (a file).
    known = set(files_by_mod)
    edges = defaultdict(set)
    for src_key, targets in uses.items():
        for tname, target in targets:
            for k in range(len(target), 0, -1):
                cand = (tname, target[:k])
                if cand in known and cand != src_key:
                    edges[src_key].add(cand)
                    break
    # Tarjan's strongly connected components.
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)

    for v in sorted(known):
        if v not in index:
            strong(v)
    print(f'import cycles between files: {len(sccs)}')
    for comp in sccs:
        print('    ' + ' <-> '.join('::'.join(m) or n for n, m in sorted(comp)))


if __name__ == '__main__':
    main()
