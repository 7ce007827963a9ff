#!/usr/bin/env python3
"""How many of the failing lines DWP's own verifier (verify/plan_contract.py)
prints for each plan `loopdeck check` reports (issue 19 §3, read side).

  DWP_SKILL=/path/to/skills/deepworkplan python3 bench/compat/dwp/coverage.py [-v] [PLAN_DIR ...]

A line counts as reported when a `check` error carries its words (equal, or
the verifier's line as its prefix), or, for the causes loopdeck words its
own way, when the finding of that cause is there (CAUSE below). Default
plans: the real-world plans and the example workspace's. LOOPDECK picks the
binary (default target/debug/loopdeck). Skips without DWP_SKILL.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
if not os.environ.get('DWP_SKILL'):
    print('skipped: DWP_SKILL is not set')
    sys.exit(0)
SKILL = Path(os.environ['DWP_SKILL'])
if not (SKILL / 'verify/plan_contract.py').is_file():
    print(f'skipped: {SKILL}/verify/plan_contract.py not found')
    sys.exit(0)
sys.dont_write_bytecode = True
sys.path.insert(0, str(SKILL / 'verify'))
sys.path.insert(0, str(SKILL / 'shared'))
import plan_contract  # noqa: E402

LOOPDECK = os.environ.get('LOOPDECK') or str(REPO / 'target/debug/loopdeck')
CAUSE = [
    (r'^missing task file: ', 'dwp.task-file-missing'),
    (r'^Full task files disagree with state inventory', 'dwp.task-file-missing'),
    (r'^README task list matches the task files', 'dwp.task-file-missing'),
    (r'^state.json task_count \(\d+\) differs from the task files', 'dwp.task-file-missing'),
    (r'^state.json task entries do not match the task files', 'dwp.task-file-missing'),
    (r'^README task checkboxes do not match the task ids on disk', 'dwp.task-file-missing'),
    (r'^interrupted finalization', 'dwp.finalization-interrupted'),
    (r'^state status disagrees with README', 'dwp.desync'),
    (r'^state.json (task status disagrees with README|desync: README shows)', 'dwp.desync'),
    (r'^passing gate has zero-selection evidence', 'dwp.gate-never-ran'),
    (r'^passing gate .* admits the check never ran', 'dwp.gate-never-ran'),
    (r'^completed task \d+ has a failing gate', 'dwp.completed-with-failing-gate'),
]
# v1 verdict labels the verifier prints bare when they fail.
BARE = {'README.md': 'plan has no README.md', 'PROMPTS.md': 'missing PROMPTS.md',
        'PROGRESS.md': 'missing PROGRESS.md', 'analysis_results/': 'missing analysis_results/',
        'README has a Plan Status count': 'README has no Plan Status count'}

args = [a for a in sys.argv[1:] if not a.startswith('-')]
plans = [Path(a) for a in args] or (
    sorted(p for p in (REPO / 'tests/fixtures/dwp-real-world').glob('*/PLAN_*') if (p / 'state.json').is_file())
    + sorted(REPO.glob('examples/workspace/dwp/*/.dwp/plans/PLAN_*')))
total = covered = 0
env = dict(os.environ, XDG_STATE_HOME=tempfile.mkdtemp(prefix='dwp_coverage_'))
for plan in plans:
    lines = [l for l in plan_contract.check(plan).lines if not l.startswith(('+ ', '~ '))]
    r = subprocess.run([LOOPDECK, 'check', '--json', str(plan)], capture_output=True, text=True, env=env)
    found = [(f['code'], f['message']) for p in json.loads(r.stdout)['projects']
             for f in p['findings'] if f['level'] == 'error']
    msgs = [m for _, m in found]
    codes = {c for c, _ in found}
    n = 0
    for line in lines:
        ok = any(m == line or m.startswith(line) for m in msgs)
        ok = ok or any(re.search(p, line) and c in codes for p, c in CAUSE)
        ok = ok or (line in BARE and any(BARE[line] in m for m in msgs))
        n += ok
        if not ok and '-v' in sys.argv:
            print(f'   not reported: {plan.name}: {line}')
    print(f'{plan.name}: {n}/{len(lines)}')
    total += len(lines)
    covered += n
print(f'reported {covered} / {total}')
sys.exit(0 if covered == total else 1)
