#!/usr/bin/env python3
"""Generate a workspace that looks like real projects, for the benchmarks.

    bench/gen_workspace.py OUT [--projects N] [--small] [--seed S]

Mixed (the default): N projects, a quarter of each format, sized as the
projects agents really leave behind (issue 23's workload):

  devloop      the example project (examples/workspace), its logs grown to a
               75 KB bugs.ndjson (bugs opened, triaged, fixed, verified), a
               9 KB units.json (40 units in a DAG) and a 280 KB
               timeline.ndjson (about 2,200 events)
  Deep Work Plan  a plan of 24 tasks (README, manifest, a ~27 KB state.json
               with gates and outcomes, a task file each), in a repository
  GSD          every real STATE.md in tests/fixtures/gsd-real-world in turn (the
               example's when that is absent), in a repository
  PRD-master   the example state.json with its scene anchor

--small: N PRD-master projects only (the 10,000 and 100,000 runs).

Every project's own date (updated_at, last_updated...) is spread over May
2026, and every file's mtime is set to that date, so sorting has work to do
and nothing reads as "future". Deterministic for a seed. Prints, on stdout,
one line of JSON: the counts and the bytes of the files `list` reads whole.
"""

import argparse
import json
import os
import random
import re
import shutil
import sys
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
EX = os.path.join(REPO, "examples", "workspace")
PRD = os.path.join(EX, "prd-master", "fba-smart-restock")
GSD = os.path.join(EX, "gsd", "paused-waiting")
PLAN = os.path.join(EX, "dwp", "shop-api", ".dwp", "plans", "PLAN_checkout_refactor")
DEV = os.path.join(EX, "devloop", "data", "companies", "acme", "projects", "p-restock")
REAL_GSD = os.path.join(REPO, "tests", "fixtures", "gsd-real-world")

BASE = datetime(2026, 5, 1, tzinfo=timezone.utc)


def when(rng, i):
    """A project's date: spread over May 2026, distinct per project."""
    return BASE + timedelta(seconds=(i * 7919) % (30 * 86400) + rng.randrange(60))


def iso(t, millis=False):
    if millis:
        return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def touch_tree(path, t):
    """Every file and directory under `path` dated `t` (bottom up)."""
    ts = t.timestamp()
    for d, dirs, files in os.walk(path, topdown=False):
        for f in files:
            os.utime(os.path.join(d, f), (ts, ts), follow_symlinks=False)
        os.utime(d, (ts, ts))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return len(text.encode("utf-8"))


# ---------------------------------------------------------------- PRD-master
def prd(out, i, rng, whole):
    d = os.path.join(out, "prd", f"p{i:06d}")
    os.makedirs(d)
    t = when(rng, i)
    with open(os.path.join(PRD, "state.json"), encoding="utf-8") as f:
        state = json.load(f)
    state_text = json.dumps(state, ensure_ascii=False, indent=2)
    state_text = state_text.replace("fba-smart-restock", f"restock-{i}")
    state_text = re.sub(r'"last_updated_at_utc": "[^"]*"',
                        f'"last_updated_at_utc": "{iso(t)}"', state_text)
    whole.append(write(os.path.join(d, "state.json"), state_text + "\n"))
    for name in ("scene-anchor.md", "conversation.md"):
        shutil.copy(os.path.join(PRD, name), d)
    touch_tree(d, t)


# ---------------------------------------------------------------- GSD
def gsd_sources():
    found = []
    if os.path.isdir(REAL_GSD):
        for repo in sorted(os.listdir(REAL_GSD)):
            p = os.path.join(REAL_GSD, repo, "STATE.md")
            if os.path.isfile(p):
                found.append(p)
    return found or [os.path.join(GSD, ".planning", "STATE.md")]


def gsd(out, i, rng, whole, sources):
    d = os.path.join(out, "gsd", f"repo{i:06d}")
    os.makedirs(os.path.join(d, ".planning"))
    os.makedirs(os.path.join(d, "src"))
    t = when(rng, i)
    with open(sources[i % len(sources)], encoding="utf-8") as f:
        text = f.read()
    if re.search(r"^last_updated:", text, re.M):
        text = re.sub(r"^last_updated: .*$", f'last_updated: "{iso(t, True)}"', text,
                      count=1, flags=re.M)
    whole.append(write(os.path.join(d, ".planning", "STATE.md"), text))
    write(os.path.join(d, "src", "main.rs"), "fn main() {}\n")
    touch_tree(d, t)


# ---------------------------------------------------------------- Deep Work Plan
TASKS = 24


def dwp(out, i, rng, whole):
    repo = os.path.join(out, "dwp", f"repo{i:06d}")
    name = f"PLAN_plan{i}"
    d = os.path.join(repo, ".dwp", "plans", name)
    shutil.copytree(PLAN, d)
    write(os.path.join(repo, "src", "main.rs"), "fn main() {}\n")
    for f in os.listdir(d):
        if re.match(r"^\d+\.task_.*\.md$", f):
            os.remove(os.path.join(d, f))
    t = when(rng, i)
    with open(os.path.join(d, "state.json"), encoding="utf-8") as f:
        state = json.load(f)
    with open(os.path.join(d, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    template = state["tasks"][0]
    done = rng.randrange(TASKS)
    links = []
    tasks = []
    for k in range(1, TASKS + 1):
        file = f"{k}.task_final_review.md" if k == TASKS else f"{k}.task_step_{k}.md"
        final = k == TASKS
        title = "Final Review" if final else f"Step {k} of plan {i}"
        status = "completed" if k <= done else ("in_progress" if k == done + 1 else "pending")
        accept = ("Security pass: no secret in the repo. Final-state validation: "
                  "`cargo test` green. Skills reconciliation: decisions recorded."
                  if final else f"Step {k} works; its tests pass.")
        write(os.path.join(d, file),
              f"# Task {k}: {title}\n\n## Goal\n\nDo step {k}.\n\n"
              f"## Context\n\nStep {k} follows step {k - 1}.\n\n"
              f"## Touched Surface\n\n`crates/step{k}`\n\n"
              f"## Acceptance Criteria\n\n{accept}\n\n"
              f"## Validation\n\n`cargo test -p step{k}`\n\nStatus: {status}\n")
        links.append(f"- [{'x' if k <= done else ' '}] Task {k}: {title}\n"
                     f"  See: [{file}](./{file})\n")
        task = json.loads(json.dumps(template))
        task["id"] = k
        task["locator"] = {"kind": "file", "value": file}
        task["title"] = title
        start = t - timedelta(hours=TASKS - k + 2)
        if k <= done:
            task["status"] = "completed"
            task["started_at"] = iso(start)
            task["completed_at"] = iso(start + timedelta(minutes=50))
            task["commit"] = f"{rng.getrandbits(28):07x}"
            task["gates"] = [
                {"command": f"cargo test -p step{k} --test g{g}", "passes": True,
                 "exit_code": 0, "last_run": iso(start + timedelta(minutes=45)),
                 "evidence": f"{rng.randrange(20, 400)} passed, 0 failed; " + "ok " * 40}
                for g in range(3)
            ]
            task["outcome"] = {
                "tried": [f"approach {a} for step {k}: " + "details " * 12 for a in range(3)],
                "failed": [f"approach {a} broke the invariant " + "because " * 10
                           for a in range(2)],
                "worked": f"the third approach for step {k} " + "with care " * 10,
                "notes": "see analysis_results/discount_order.md " * 3,
            }
        else:
            task["status"] = "in_progress" if k == done + 1 else "pending"
            for key in ("started_at", "completed_at", "commit", "outcome"):
                task.pop(key, None)
            task["gates"] = []
            if k == done + 1:
                task["started_at"] = iso(start)
        tasks.append(task)
    state["plan"] = name
    state["updated_at"] = iso(t)
    state["status"] = "in_progress"
    state["completed_count"] = done
    state["task_count"] = TASKS
    state["tasks"] = tasks
    for key in ("blocked", "blocker", "blocked_reason"):
        state.pop(key, None)
    manifest["name"] = name
    manifest["task_count"] = TASKS
    whole.append(write(os.path.join(d, "state.json"), json.dumps(state, indent=2) + "\n"))
    whole.append(write(os.path.join(d, "manifest.json"), json.dumps(manifest, indent=2) + "\n"))
    with open(os.path.join(d, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    readme = readme.replace("PLAN_checkout_refactor", name)
    head, rest = readme.split("## 4. Task List & Links", 1)
    readme = (head + "## 4. Task List & Links\n\n" + "".join(links) + "\n## 5. Plan Status / Notes\n\n"
              + f"- Current status: In progress on Task {done + 1} ({done}/{TASKS} completed)\n\n"
              + f"Plan Status: {done}/{TASKS}\n")
    whole.append(write(os.path.join(d, "README.md"), readme))
    touch_tree(repo, t)


# ---------------------------------------------------------------- devloop
UNITS = 40


def devloop(out, i, rng, whole):
    d = os.path.join(out, "devloop", "data", "companies", "acme", "projects", f"p{i:06d}")
    shutil.copytree(DEV, d)
    t = when(rng, i)
    with open(os.path.join(d, "project.json"), encoding="utf-8") as f:
        project = json.load(f)
    project["id"] = f"p{i:06d}"
    project["name"] = f"补货 {i}"
    project["root_path"] = d
    project["updated_at"] = iso(t)
    whole.append(write(os.path.join(d, "project.json"),
                       json.dumps(project, ensure_ascii=False, indent=2) + "\n"))

    with open(os.path.join(d, "units.json"), encoding="utf-8") as f:
        units = json.load(f)
    units["project_id"] = f"p{i:06d}"
    base = units["units"]
    ids = [u["id"] for u in base]
    for k in range(UNITS - len(base)):
        uid = "unit-" + "abcdefghijklmnopqrstuvwxyz"[k % 26] * (1 + k // 26) + "-" + rng.choice(["be", "fe", "db", "mw"])
        deps = rng.sample(ids, min(len(ids), rng.randrange(0, 3)))
        units["units"].append({
            "id": uid, "type": uid.rsplit("-", 1)[1],
            "status": rng.choice(["passed", "passed", "passed", "pending", "coding", "testing"]),
            "depends_on": deps, "retries": rng.randrange(3), "retry_budget": 5,
            "contract_hash": f"sha256:{rng.getrandbits(64):016x}",
        })
        ids.append(uid)
    whole.append(write(os.path.join(d, "units.json"),
                       json.dumps(units, ensure_ascii=False, indent=2) + "\n"))

    # bugs.ndjson: each bug opened, then triaged, sometimes fixed and
    # verified (the fold keeps the last line per id), to ~75 KB.
    with open(os.path.join(d, "bugs.ndjson"), encoding="utf-8") as f:
        lines = [json.loads(x) for x in f if x.strip()]
    size = sum(len(json.dumps(x, ensure_ascii=False).encode()) + 1 for x in lines)
    n = 0
    with open(os.path.join(d, "bugs.ndjson"), "a", encoding="utf-8") as f:
        while size < 75_000:
            n += 1
            bug = dict(lines[n % len(lines)])
            bug["id"] = f"bug-2026{i:06d}-{n:04d}"
            bug["discovered_at"] = iso(t - timedelta(hours=200 - n % 200))
            bug["affected_units"] = [rng.choice(ids)]
            for status in ("open", "triaged", "fixed", "verified")[: rng.randrange(1, 5)]:
                bug["status"] = status
                text = json.dumps(bug, ensure_ascii=False) + "\n"
                f.write(text)
                size += len(text.encode())
    whole.append(size)

    # timeline.ndjson: ~280 KB of events, oldest first, the last at t.
    with open(os.path.join(d, "timeline.ndjson"), encoding="utf-8") as f:
        events = [json.loads(x) for x in f if x.strip()]
    out_lines = []
    size = 0
    while size < 280_000:
        ev = dict(events[len(out_lines) % len(events)])
        text = json.dumps(ev, ensure_ascii=False)
        out_lines.append(ev)
        size += len(text.encode()) + 1
    start = int(t.timestamp()) - len(out_lines) * 60
    with open(os.path.join(d, "timeline.ndjson"), "w", encoding="utf-8") as f:
        for k, ev in enumerate(out_lines):
            ev["ts"] = start + k * 60
            f.write(json.dumps(ev, ensure_ascii=False) + "\n")
    touch_tree(d, t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--projects", type=int, default=1000)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--seed", type=int, default=23)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    if os.listdir(a.out):
        sys.exit(f"{a.out} is not empty")
    whole = []
    counts = {}
    if a.small:
        for i in range(a.projects):
            prd(a.out, i, rng, whole)
        counts["prd-master"] = a.projects
    else:
        q = a.projects // 4
        sources = gsd_sources()
        for i in range(q):
            prd(a.out, i, rng, whole)
            gsd(a.out, i, rng, whole, sources)
            dwp(a.out, i, rng, whole)
        for i in range(a.projects - 3 * q):
            devloop(a.out, i, rng, whole)
        counts = {"prd-master": q, "gsd": q, "dwp": q, "devloop": a.projects - 3 * q}
    print(json.dumps({"projects": a.projects, "formats": counts,
                      "whole_files": len(whole), "whole_bytes": sum(whole)}))


if __name__ == "__main__":
    main()
