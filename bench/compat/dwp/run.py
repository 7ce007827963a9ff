#!/usr/bin/env python3
"""Deep Work Plan compatibility suite (issue 19 §3): loopdeck's DWP decisions
against the format's own tools.

Applies every loopdeck DWP verb (approve, block, unblock, reopen, reconcile)
with ordinary and hostile texts to copies of every reference plan (LF and
CRLF Markdown), runs the format's own tools as the oracle before and after,
and prints held/total with failures grouped by cause.

Oracle (DailybotHQ/deepworkplan-skill, skills/deepworkplan/), found through
DWP_SKILL (the skill's directory: shared/update-state.py,
shared/state_contract.py, verify/plan_contract.py and the spec/schema files
they load):
  shared/update-state.py   the protected updater: does it accept the same
                           transition, and does it reach the same state?
  shared/state_contract.py state_errors(): no new error in the written state
                           (strict=True is what the updater demands of its own
                           candidates)
  verify/plan_contract.py  no new failing line (README <-> state agreement,
                           Plan Status count, task records, ...)
plus: loopdeck's own `check` reports no new error, PROGRESS.md records every
status change, no hostile text adds a checkbox, heading or label to any
Markdown file, a CRLF PROGRESS.md stays CRLF, and every decision an inbox
item offers is accepted by `act --dry-run` (an item naming reconcile carries
it).

Usage:
  DWP_SKILL=/path/to/skills/deepworkplan bench/compat/dwp/run.sh [--verbose] [PLAN_DIR ...]
LOOPDECK=path/to/loopdeck picks the binary (default: target/debug/loopdeck,
built when missing). Default plans: tests/fixtures/dwp-real-world/*/PLAN_*
(the real-world plans) and examples/workspace/dwp/*/.dwp/plans/PLAN_*.
Without DWP_SKILL (or without the scripts there) it prints "skipped: ..."
and exits 0. Exit 1 when a case is not held; EXPECTED below lists the
documented differences, each with its reason (counted held, listed apart).
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
NOW = '2026-12-02T12:00:00Z'
VERBOSE = '--verbose' in sys.argv

if not os.environ.get('DWP_SKILL'):
    print('skipped: DWP_SKILL is not set (point it at a checkout of '
          'DailybotHQ/deepworkplan-skill/skills/deepworkplan)')
    sys.exit(0)
SKILL = Path(os.environ['DWP_SKILL'])
for need in ('shared/update-state.py', 'shared/state_contract.py', 'verify/plan_contract.py'):
    if not (SKILL / need).is_file():
        print(f'skipped: {SKILL / need} not found (DWP_SKILL must be the skill directory)')
        sys.exit(0)
LOOPDECK = os.environ.get('LOOPDECK') or str(REPO / 'target/debug/loopdeck')
if not os.environ.get('LOOPDECK') and not Path(LOOPDECK).is_file():
    subprocess.run(['cargo', 'build', '--quiet'], cwd=REPO, check=True)

# Documented differences from the updater: a case whose every cause matches
# one of these is held, and listed apart with its reason.
EXPECTED = [
    (r'\.finalizing\.json',
     'stricter than update-state: loopdeck refuses every write while .finalizing.json exists '
     '(seed 002: normal validation fails until the interrupted finalization is recovered; '
     'update-state checks the marker on the plan-completing write only)'),
    (r'^loopdeck refuses what update-state accepts \(reopening requires a reason',
     'stricter than update-state: a blank reopen reason records no intent, and the seed requires '
     'the amendment to be recorded first (loopdeck writes it to the README marker and PROGRESS.md); '
     'update-state accepts any non-empty string, whitespace included'),
    (r'^loopdeck refuses what update-state accepts \(--reason is \d+ characters long; `reopen` takes at most',
     'per-field length limit (issue 19 §5): loopdeck writes the reopen reason into the README marker and '
     'PROGRESS.md and caps it; update-state stores no reopen reason, so it has no cap'),
]

sys.path.insert(0, str(SKILL / 'shared'))
sys.path.insert(0, str(SKILL / 'verify'))
sys.dont_write_bytecode = True
import state_contract  # noqa: E402
import plan_contract  # noqa: E402

TEXTS = {
    'plain': 'waiting for the staging key',
    'hostile-md': 'x\n- [x] Task 4\n## 5. Plan Status\nPlan Status: 4/4\n**Approval:** approved',
    'blank': '   ',
    'long-1001': 'r' * 1001,
}


def plans_from_args():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if args:
        return [Path(a) for a in args]
    real = REPO / 'tests/fixtures/dwp-real-world'
    out = sorted(p for p in real.glob('*/PLAN_*') if (p / 'state.json').is_file())
    out += sorted(REPO.glob('examples/workspace/dwp/*/.dwp/plans/PLAN_*'))
    return out


def copy_plan(src, root, crlf):
    dst = Path(root) / src.name
    shutil.copytree(src, dst, symlinks=True)
    (dst / 'SOURCE.txt').unlink(missing_ok=True)
    for p in [dst] + list(dst.rglob('*')):
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o200)
    if crlf:
        for md in dst.rglob('*.md'):
            b = md.read_bytes().replace(b'\r\n', b'\n').replace(b'\n', b'\r\n')
            md.write_bytes(b)
    return dst


def contract_fails(plan):
    try:
        report = plan_contract.check(plan)
        return [l for l in report.lines if not l.startswith(('+ ', '~ '))]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f'plan contract cannot be verified: {exc}']


def state_errs(plan, strict):
    try:
        return state_contract.state_errors(json.loads((plan / 'state.json').read_text()), strict=strict)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f'state unreadable: {exc}']


def ld_errors(plan):
    env = dict(os.environ, XDG_STATE_HOME=str(Path(tempfile.gettempdir()) / 'dwp_compat_state'))
    r = subprocess.run([LOOPDECK, 'check', '--json', '--now', NOW, str(plan)],
                       capture_output=True, text=True, env=env)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        return ['loopdeck check: no JSON']
    return sorted({f"{f['code']} {f.get('ref','')}" for p in d['projects'] for f in p['findings']
                   if f['level'] == 'error'})


def ld_inbox_refused(plan):
    """Every decision an inbox item offers, made with `act --dry-run`: the
    items whose decision is refused, and items that name reconcile without
    carrying it."""
    env = dict(os.environ, XDG_STATE_HOME=str(Path(tempfile.gettempdir()) / 'dwp_compat_state'))
    r = subprocess.run([LOOPDECK, 'show', '--json', '--now', NOW, str(plan)],
                       capture_output=True, text=True, env=env)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        return ['show --json: no JSON']
    bad = []
    for item in d.get('inbox', []):
        act = item.get('act')
        title = item.get('title', '')
        if 'reconcile state.json from it' in title and (not act or act.get('verb') != 'reconcile'):
            bad.append(f'{item.get("kind")} item names reconcile without offering it')
        if not act:
            continue
        args = [act['verb']] + ([act['target']] if act.get('target') else [])
        if act['verb'] in ('block', 'reopen'):
            args += ['--reason', 'compat']
        if act['verb'] == 'unlock':
            args += ['--confirm']
        rc, out = run_loopdeck(plan, args + ['--dry-run'])
        if rc != 0:
            bad.append(f'{item.get("kind")} item offers {" ".join(args)}, refused: {out[-120:]}')
    return bad


def run_loopdeck(plan, verb_args):
    env = dict(os.environ, XDG_STATE_HOME=str(Path(tempfile.gettempdir()) / 'dwp_compat_state'))
    r = subprocess.run([LOOPDECK, 'act', '--now', NOW, '--by', 'compat', str(plan)] + verb_args,
                       capture_output=True, text=True, env=env)
    return r.returncode, (r.stdout + r.stderr).strip()


def run_updater(plan, args):
    r = subprocess.run([sys.executable, str(SKILL / 'shared/update-state.py'), str(plan / 'state.json')] + args,
                       capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip()


def snapshot(plan):
    return {p.relative_to(plan).as_posix(): p.read_bytes() for p in plan.rglob('*') if p.is_file()}


def essence(plan):
    s = json.loads((plan / 'state.json').read_text())
    b = s.get('blocked') or {}
    return {'status': s.get('status'), 'completed_count': s.get('completed_count'),
            'approval': s.get('approval'),
            'tasks': [(t.get('id'), t.get('status')) for t in s.get('tasks', [])],
            'blocked': (b.get('task'), b.get('reason'), b.get('needs')) if b else None}


def md_structure(text):
    """Lines any DWP reader takes as structure: checkboxes, headings, labels."""
    return [l for l in text.splitlines()
            if re.match(r'^\s*- \[[ xX]\]', l) or re.match(r'^\s*#{1,6}\s', l)
            or re.match(r'^\s*(?:Plan Status:|\*\*\w[^*]*:\*\*|Approval:)', l)]


def own_reopen_line(line, old, verb):
    """A reopen's own README edits: the task's box unticked with its
    `(re-validate: …)` marker (the text inside it without brackets, parens,
    braces or `Plan Status:`), and the Plan Status count one lower."""
    if verb != 'reopen':
        return False
    m = re.match(r'^(\s*- )\[ \](.*) \(re-validate: ([^()\[\]{}]*)\)$', line)
    if m and 'Plan Status:' not in m[3]:
        return f'{m[1]}[x]{m[2]}' in old or f'{m[1]}[X]{m[2]}' in old
    c = re.match(r'^(.*Plan Status:\s*)(\d+)(.*)$', line)
    return bool(c) and f'{c[1]}{int(c[2]) + 1}{c[3]}' in old


def candidates(state):
    tasks = state.get('tasks', [])
    blocked = (state.get('blocked') or {}).get('task')
    out = [('approve', ['approve'], None), ('reconcile', ['reconcile'], None)]
    for t in tasks:
        n = str(t['id'])
        if t['status'] != 'completed':
            for tk, tx in TEXTS.items():
                out.append((f'block T{n} [{tk}]', ['block', n, '--reason', tx, '--needs', 'an admin'],
                            ['--task', n, '--status', 'blocked', '--block-reason', tx, '--block-needs', 'an admin']))
        if blocked == t['id'] or t['status'] == 'blocked':
            out.append((f'unblock T{n}', ['unblock', n],
                        ['--task', n, '--status', 'in_progress', '--resolve-blocker']))
        if t['status'] == 'completed':
            for tk, tx in TEXTS.items():
                out.append((f'reopen T{n} [{tk}]', ['reopen', n, '--reason', tx],
                            ['--task', n, '--status', 'in_progress', '--reopen-reason', tx]))
    return out


def main():
    held, total = 0, 0
    fails = defaultdict(list)
    expected = defaultdict(list)
    base = Path(tempfile.mkdtemp(prefix='dwp_compat_'))
    queue = [(src, crlf, f"{src.name}{' (CRLF)' if crlf else ''}")
             for src in plans_from_args() for crlf in (False, True)
             if not (crlf and not list(src.glob('*.md')))]
    while queue:
        src, crlf, variant = queue.pop(0)
        if True:
            root0 = base / f'{len(list(base.iterdir()))}'
            root0.mkdir()
            ref = copy_plan(src, root0, crlf)
            pc0, se0, ss0, ld0 = contract_fails(ref), state_errs(ref, False), state_errs(ref, True), ld_errors(ref)
            state = json.loads((ref / 'state.json').read_text())
            # Chained: a plan awaiting approval is also tried after `approve`
            # (update-state refuses everything on an unapproved plan, so the
            # interesting divergences only show once it is approved).
            if 'after approve' not in variant and state.get('approval') == 'pending':
                pre = Path(tempfile.mkdtemp(dir=base)); pp = copy_plan(src, pre, crlf)
                if run_loopdeck(pp, ['approve'])[0] == 0:
                    queue.append((pp, False, variant + ' after approve'))
            # The inbox may only suggest a decision the rules accept.
            total += 1
            bad = ld_inbox_refused(ref)
            for b in bad:
                fails['inbox: ' + b].append(variant)
            if not bad:
                held += 1
            for label, ld_args, us_args in candidates(state):
                total += 1
                case = f'{variant}: {label}'
                causes = []
                a = Path(tempfile.mkdtemp(dir=base)); pa = copy_plan(src, a, crlf)
                before = snapshot(pa)
                rc_l, out_l = run_loopdeck(pa, ld_args)
                after = snapshot(pa)
                rc_u = out_u = None
                if us_args is not None:
                    b = Path(tempfile.mkdtemp(dir=base)); pb = copy_plan(src, b, crlf)
                    rc_u, out_u = run_updater(pb, us_args)
                ld_ok, us_ok = rc_l == 0, (rc_u == 0 if rc_u is not None else None)
                if us_ok is not None and ld_ok != us_ok:
                    if us_ok:
                        msg = re.sub(r'^loopdeck: ', '', out_l.splitlines()[-1] if out_l else '')
                        causes.append(f'loopdeck refuses what update-state accepts ({msg[:90]})')
                    else:
                        causes.append(f'loopdeck accepts what update-state refuses ({out_u[:110]})')
                if ld_ok and us_ok and essence(pa) != essence(pb):
                    ea, eb = essence(pa), essence(pb)
                    diff = [k for k in ea if ea[k] != eb[k]]
                    causes.append(f'result differs from update-state in {",".join(diff)}')
                if ld_ok:
                    for l in set(contract_fails(pa)) - set(pc0):
                        causes.append('plan_contract: ' + re.sub(r'\d+', 'N', l))
                    for e in set(state_errs(pa, False)) - set(se0):
                        causes.append('state_contract: ' + e)
                    for e in set(state_errs(pa, True)) - set(ss0):
                        causes.append('state_contract strict (updater candidate rule): ' + e)
                    for e in set(ld_errors(pa)) - set(ld0):
                        causes.append('loopdeck check: new ' + re.sub(r'\d+', 'N', e))
                    verb = ld_args[0]
                    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
                    status_verb = verb in ('block', 'unblock', 'reopen', 'reconcile')
                    if status_verb and 'PROGRESS.md' not in changed:
                        causes.append(f'{verb}: PROGRESS.md does not record it')
                    for k in changed:
                        if k.endswith('.md'):
                            old = md_structure(before.get(k, b'').decode('utf-8', 'replace'))
                            new = md_structure(after.get(k, b'').decode('utf-8', 'replace'))
                            added = [l for l in new if l not in old]
                            own = [l for l in added if re.match(r'^## \w+ — ', l) or l.strip() in ('# Progress', 'Approval: approved')
                                   or own_reopen_line(l, old, verb)]
                            extra = [l for l in added if l not in own]
                            if extra:
                                causes.append(f'{k}: text written as structure ({extra[0][:60]!r})')
                    if b'\r\n' in before.get('PROGRESS.md', b'') and b'\n' in after.get('PROGRESS.md', b'').replace(b'\r\n', b''):
                        causes.append('PROGRESS.md: LF line in a CRLF file')
                # Stricter than the updater on purpose (seed 002: while
                # .finalizing.json exists normal validation fails; plan_contract
                # fails every check): reported apart, not counted as a failure.
                reasons = [next((why for pat, why in EXPECTED if re.search(pat, c)), None) for c in causes]
                if causes and all(reasons):
                    held += 1
                    for why in set(reasons):
                        expected[why].append(case)
                    causes = []
                elif causes:
                    for c in causes:
                        fails[c].append(case)
                else:
                    held += 1
                if VERBOSE:
                    print(f"{'ok  ' if not causes else 'FAIL'} {case} :: loopdeck rc={rc_l} {out_l.splitlines()[-1][:80] if out_l else ''}"
                          + (f" :: updater rc={rc_u} {out_u[:80]}" if rc_u is not None else ''))
    shutil.rmtree(base, ignore_errors=True)
    print(f'held {held} / {total}')
    for why, cases in expected.items():
        print(f'\n[{len(cases)}] held as documented: {why}')
        for c in cases[:4]:
            print(f'    {c}')
        if len(cases) > 4:
            print(f'    … {len(cases) - 4} more')
    for cause, cases in sorted(fails.items(), key=lambda kv: -len(kv[1])):
        print(f'\n[{len(cases)}] {cause}')
        for c in cases[:6]:
            print(f'    {c}')
        if len(cases) > 6:
            print(f'    … {len(cases) - 6} more')
    sys.exit(0 if held == total else 1)


if __name__ == '__main__':
    main()
