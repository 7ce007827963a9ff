#!/usr/bin/env bash
# Soak: loopdeck beside busy agents for a long time.
#
#   bench/soak.sh [--minutes N] [--projects N] [--deciders N] [--keep]
#
# 50 projects (default) of all four formats, copied from examples/workspace
# into a temporary workspace. For the whole run:
#   - agents save: PRD-master state.json (no lock exists: a careful agent
#     re-checks the file before its rename; it also asks new questions),
#     GSD STATE.md (half with `STATE.md.lock`, half without), DWP state.json
#     (half with `mkdir state.json.lock`, half without), devloop
#     timeline.ndjson and bugs.ndjson appends (new bugs) and agent-state
#     saves;
#   - deciders (4 by default) run `loopdeck inbox --json`, pick what it
#     offers and decide it with `loopdeck act … --json` in parallel (plus
#     GSD add-decision / add-blocker / resolve-blocker), each text carrying
#     a unique token;
#   - a console runs in tmux (keys sent to move around and refresh), and
#     `loopdeck watch --json` is read line by line.
# Every minute the console's and watch's RSS, CPU and open fds are sampled
# into a table. At the end: every decision in the audit log
# ($XDG_STATE_HOME/loopdeck/audit.ndjson) was reported written by `act`,
# every `act` that said written is in the audit log, each decision's text
# is in its files exactly as many times as one such decision writes (no
# duplicate, none lost), every JSON and NDJSON file parses, no project
# became unreadable, the console and watch are still alive, no `act`
# crashed. Prints the table and a verdict; exit 1 on a violation.
#
# The binary: $LOOPDECK, else target/release/loopdeck, else
# target/debug/loopdeck (debug figures are larger and slower than release).
# Needs python3 and tmux. Runs at nice 19.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${LOOPDECK:-}
if [ -z "$bin" ]; then
  for c in "$here/target/release/loopdeck" "$here/target/debug/loopdeck"; do
    if [ -x "$c" ]; then bin=$c; break; fi
  done
fi
if [ -z "$bin" ]; then
  (cd "$here" && nice -n 19 cargo build --release) || exit 2
  bin=$here/target/release/loopdeck
fi
command -v python3 >/dev/null || { echo "bench/soak.sh needs python3" >&2; exit 2; }
command -v tmux >/dev/null || { echo "bench/soak.sh needs tmux" >&2; exit 2; }
exec nice -n 19 python3 - "$here" "$bin" "$@" <<'PY'
import argparse, json, os, random, re, shutil, signal, subprocess, sys, tempfile, threading, time

here, binary = sys.argv[1], sys.argv[2]
ap = argparse.ArgumentParser(prog="bench/soak.sh")
ap.add_argument("--minutes", type=float, default=60)
ap.add_argument("--projects", type=int, default=50)
ap.add_argument("--deciders", type=int, default=4)
ap.add_argument("--keep", action="store_true", help="keep the workspace")
args = ap.parse_args(sys.argv[3:])

examples = os.path.join(here, "examples", "workspace")
work = tempfile.mkdtemp(prefix="loopdeck-soak-")
ws = os.path.join(work, "ws")
state = os.path.join(work, "state")
os.makedirs(state, mode=0o700)
os.makedirs(os.path.join(work, "config"))
env = dict(os.environ, XDG_STATE_HOME=state, XDG_CONFIG_HOME=os.path.join(work, "config"),
           NO_COLOR="1", LC_ALL="C.UTF-8")
violations = []
lock = threading.Lock()
stop = threading.Event()

def violation(msg):
    with lock:
        violations.append(msg)

# ------------------------------------------------------------ the projects
def sources():
    out = {"prd-master": [], "gsd": [], "dwp": [], "devloop": []}
    for name in sorted(os.listdir(os.path.join(examples, "prd-master"))):
        d = os.path.join(examples, "prd-master", name)
        if os.path.isfile(os.path.join(d, "state.json")):
            out["prd-master"].append(d)
    for name in sorted(os.listdir(os.path.join(examples, "gsd"))):
        out["gsd"].append(os.path.join(examples, "gsd", name))
    for name in sorted(os.listdir(os.path.join(examples, "dwp"))):
        out["dwp"].append(os.path.join(examples, "dwp", name))
    pdir = os.path.join(examples, "devloop", "data", "companies", "acme", "projects")
    for name in sorted(os.listdir(pdir)):
        out["devloop"].append(os.path.join(pdir, name))
    return out

projects = []  # (format, dir, source)
src = sources()
order = ["prd-master", "gsd", "dwp", "devloop"]
k = 0
while len(projects) < args.projects:
    fmt = order[k % 4]
    pool = src[fmt]
    s = pool[(k // 4) % len(pool)]
    n = k // 4
    name = "%s-%d" % (os.path.basename(s), n)
    if fmt == "devloop":
        dest = os.path.join(ws, "devloop", "data", "companies", "acme", "projects", name)
    else:
        dest = os.path.join(ws, fmt, name)
    shutil.copytree(s, dest, symlinks=True)
    projects.append((fmt, dest, s))
    k += 1
by_format = {f: [p for p in projects if p[0] == f] for f in order}

def run(argv, timeout=60):
    try:
        p = subprocess.run([binary] + argv, env=env, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return -9, "", "timed out after %ss" % timeout

rc, out, err = run(["list", ws, "--json"])
try:
    listed = json.loads(out)
except ValueError:
    print("loopdeck list failed: " + err, file=sys.stderr)
    sys.exit(2)
def problems_of(listing):
    ps = set()
    for p in listing.get("problems", []):
        ps.add((p.get("file", ""), p.get("reason", "")[:60]))
    for pr in listing.get("projects", []):
        for p in pr.get("problems", []) or []:
            if isinstance(p, dict) and p.get("severity", "") in ("error",):
                ps.add((pr.get("path", ""), p.get("file", "") + ": " + p.get("reason", "")[:60]))
    return ps
initial_problems = problems_of(listed)
counts = {}
for pr in listed.get("projects", []):
    counts[pr.get("format")] = counts.get(pr.get("format"), 0) + 1
print("soak: %d project directories copied, %d projects read (%s) in %s" % (
    len(projects), len(listed.get("projects", [])),
    ", ".join("%s %d" % kv for kv in sorted(counts.items())), work))
print("soak: binary %s, %.0f minutes, %d deciders" % (binary, args.minutes, args.deciders))

# ------------------------------------------------------------ agents
saves = {"count": 0, "skipped_locked": 0}
seq = [0]
def next_seq():
    with lock:
        seq[0] += 1
        return seq[0]

def careful_replace(path, make):
    """Read, change, write a temp file, and rename only if the file did not
    move since it was read (an agent that checks; there is still a tiny
    window, as for any writer without a lock)."""
    for _ in range(5):
        try:
            st = os.stat(path)
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return False
        new = make(data)
        if new is None:
            return False
        tmp = "%s.agent-%d-%d.tmp" % (path, os.getpid(), threading.get_ident())
        with open(tmp, "wb") as f:
            f.write(new)
            f.flush()
            os.fsync(f.fileno())
        st2 = os.stat(path)
        if (st2.st_mtime_ns, st2.st_size, st2.st_ino) != (st.st_mtime_ns, st.st_size, st.st_ino):
            os.unlink(tmp)
            continue
        os.rename(tmp, path)
        with lock:
            saves["count"] += 1
        return True
    return False

def prd_agent(rng, locked):
    fmt, d, _ = rng.choice(by_format["prd-master"])
    path = os.path.join(d, "state.json")
    def make(data):
        try:
            s = json.loads(data)
        except ValueError:
            return None
        s["x_agent_heartbeat"] = next_seq()
        qs = s.get("open_questions")
        if isinstance(qs, list) and rng.random() < 0.15:
            n = next_seq()
            qs.append({"id": "OQ-%d" % (900 + n), "title": "agent question %d" % n,
                       "kind": "decision", "category": "scope", "priority": "P2",
                       "depends_on": [], "owner": "user", "status": "pending_user"})
        return (json.dumps(s, ensure_ascii=False, indent=2) + "\n").encode()
    careful_replace(path, make)

def gsd_agent(rng, locked):
    fmt, d, _ = rng.choice(by_format["gsd"])
    path = os.path.join(d, ".planning", "STATE.md")
    lockf = path + ".lock"
    if locked:
        try:
            fd = os.open(lockf, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            with lock:
                saves["skipped_locked"] += 1
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
    try:
        def make(data):
            text = data.decode("utf-8", "replace")
            line = "Agent heartbeat: %d" % next_seq()
            if re.search(r"^Agent heartbeat: \d+$", text, re.M):
                text = re.sub(r"^Agent heartbeat: \d+$", line, text, count=1, flags=re.M)
            else:
                text = text.rstrip("\n") + "\n\n" + line + "\n"
            return text.encode()
        careful_replace(path, make)
    finally:
        if locked:
            try:
                os.unlink(lockf)
            except OSError:
                pass

def dwp_agent(rng, locked):
    fmt, d, _ = rng.choice(by_format["dwp"])
    plans = os.path.join(d, ".dwp", "plans")
    try:
        plan = os.path.join(plans, rng.choice(sorted(os.listdir(plans))))
    except (OSError, IndexError):
        return
    path = os.path.join(plan, "state.json")
    if not os.path.isfile(path):
        return
    lockd = path + ".lock"
    if locked:
        try:
            os.mkdir(lockd)
        except FileExistsError:
            with lock:
                saves["skipped_locked"] += 1
            return
    try:
        def make(data):
            try:
                s = json.loads(data)
            except ValueError:
                return None
            s["x_agent_heartbeat"] = next_seq()
            return (json.dumps(s, ensure_ascii=False, indent=2) + "\n").encode()
        careful_replace(path, make)
    finally:
        if locked:
            try:
                os.rmdir(lockd)
            except OSError:
                pass

def append_line(path, obj):
    line = (json.dumps(obj, ensure_ascii=False) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    with lock:
        saves["count"] += 1

def devloop_agent(rng, locked):
    fmt, d, _ = rng.choice(by_format["devloop"])
    r = rng.random()
    if r < 0.6:
        append_line(os.path.join(d, "timeline.ndjson"),
                    {"ts": int(time.time()), "source": "system", "kind": "agent_started",
                     "ref": "agent/coder/soak-%d" % next_seq(), "summary": "coder started (soak)"})
    elif r < 0.8:
        n = next_seq()
        append_line(os.path.join(d, "bugs.ndjson"),
                    {"id": "bug-soak-%d" % n, "discovered_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     "source": "triage", "category": "unknown", "severity": "medium",
                     "title": "soak bug %d" % n, "detail": "found by the soak agent",
                     "affected_units": [], "status": "open", "status_history": [], "fix_refs": []})
    else:
        agents = os.path.join(d, "agent-state")
        try:
            names = [n for n in sorted(os.listdir(agents)) if n.endswith(".json")]
        except OSError:
            return
        if not names:
            return
        path = os.path.join(agents, rng.choice(names))
        def make(data):
            try:
                s = json.loads(data)
            except ValueError:
                return None
            if not isinstance(s, dict):
                return None
            s["x_agent_heartbeat"] = next_seq()
            return (json.dumps(s, ensure_ascii=False, indent=2) + "\n").encode()
        careful_replace(path, make)

def agent_loop(fn, locked, seed):
    rng = random.Random(seed)
    while not stop.is_set():
        try:
            fn(rng, locked)
        except Exception as e:  # an agent's own trouble is not loopdeck's
            with lock:
                saves.setdefault("agent_errors", 0)
                saves["agent_errors"] += 1
                saves["agent_error"] = "%s: %s" % (fn.__name__, repr(e)[:160])
        stop.wait(rng.uniform(0.05, 0.4))

# ------------------------------------------------------------ deciders
decided = []  # dicts: token, verb, path, argv, rc, audit_id
stats = {"acts": 0, "written": 0, "refused": 0, "conflict": 0, "other": 0}
blockers = []  # (path, text) added by the soak, not yet resolved

def act_args(item, token, rng):
    a = item.get("act") or {}
    verb, target, options = a.get("verb"), a.get("target"), a.get("options") or []
    if verb == "answer":
        if target and re.fullmatch(r"[0-9a-f]{64}", target):
            return ["answer", token]
        return ["answer", target, token] if target else ["answer", token]
    if verb == "evidence" and target:
        return ["evidence", target, token]
    if verb == "choose" and options:
        return ["choose", rng.choice(options)]
    if verb == "bug" and target and options:
        opts = [o for o in options if o != "duplicate"]
        if not opts:
            return None
        return ["bug", target, rng.choice(opts), "--note", token]
    if verb == "sign-off":
        return ["sign-off"] if rng.random() < 0.7 else ["abandon"]
    if verb == "resume-agent" and target and options:
        return ["resume-agent", target, rng.choice(options)]
    if verb == "approve":
        return ["approve"]
    if verb == "unblock" and target:
        return ["unblock", target]
    if verb == "reopen" and target:
        return ["reopen", target, "--reason", token]
    if verb == "block" and target:
        return ["block", target, "--reason", token]
    return None

def decider(n):
    rng = random.Random(1000 + n)
    while not stop.is_set():
        token = "SOAK%d-%06d" % (n, next_seq())
        choice = rng.random()
        path, argv = None, None
        if choice < 0.35:
            fmt, d, _ = rng.choice(by_format["gsd"])
            path = d
            r = rng.random()
            with lock:
                mine = [b for b in blockers if b[0] == d]
            if r < 0.5:
                argv = ["add-decision", "decided by soak " + token]
            elif r < 0.8 or not mine:
                argv = ["add-blocker", "blocked in soak " + token]
            else:
                b = rng.choice(mine)
                argv = ["resolve-blocker", b[1]]
        else:
            rc, out, err = run(["inbox", ws, "--json"])
            try:
                items = [i for i in json.loads(out).get("items", []) if i.get("act")]
            except ValueError:
                violation("inbox --json printed no JSON (exit %d): %s" % (rc, err.strip()[:200]))
                items = []
            rng.shuffle(items)
            for item in items:
                argv = act_args(item, token, rng)
                if argv:
                    path = item.get("path")
                    break
        if not argv or not path:
            stop.wait(0.2)
            continue
        rc, out, err = run(["act", path] + argv + ["--json", "--by", "soak-%d" % n])
        audit_id = None
        if rc == 0:
            try:
                audit_id = json.loads(out).get("audit_id")
            except ValueError:
                violation("act %s exited 0 without JSON: %s" % (" ".join(argv[:2]), out[:200]))
        with lock:
            stats["acts"] += 1
            key = {0: "written", 1: "refused", 3: "conflict"}.get(rc, "other")
            stats[key] += 1
            decided.append({"token": token, "verb": argv[0], "path": path, "argv": argv,
                            "rc": rc, "audit_id": audit_id, "err": err.strip()[:300]})
            if rc == 0 and argv[0] == "add-blocker":
                blockers.append((path, argv[1]))
            if rc == 0 and argv[0] == "resolve-blocker":
                blockers[:] = [b for b in blockers if b != (path, argv[1])]
        if rc not in (0, 1, 3):
            violation("act %s on %s exited %d: %s" % (" ".join(argv[:2]), path, rc, err.strip()[:300]))
        if "panicked" in err:
            violation("act %s panicked: %s" % (argv[0], err.strip()[:300]))
        stop.wait(rng.uniform(0.0, 0.3))

# ------------------------------------------------------------ console and watch
session = "loopdeck-soak-%d" % os.getpid()
def tmux(*a):
    return subprocess.run(["tmux"] + list(a), capture_output=True, text=True)
cmd = "env XDG_STATE_HOME=%s XDG_CONFIG_HOME=%s LC_ALL=C.UTF-8 %s %s" % (
    state, os.path.join(work, "config"), binary, ws)
tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "48", cmd)
time.sleep(1.0)
console_pid = None
r = tmux("display-message", "-p", "-t", session, "#{pane_pid}")
if r.returncode == 0 and r.stdout.strip().isdigit():
    console_pid = int(r.stdout.strip())
else:
    violation("the console did not start in tmux: " + r.stderr.strip())

watch = subprocess.Popen([binary, "watch", ws, "--json"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
watch_lines = {"lines": 0, "bad": 0}
def read_watch():
    for line in watch.stdout:
        watch_lines["lines"] += 1
        try:
            json.loads(line)
        except ValueError:
            watch_lines["bad"] += 1
threading.Thread(target=read_watch, daemon=True).start()

def keys():
    rng = random.Random(7)
    while not stop.is_set():
        tmux("send-keys", "-t", session, rng.choice(["j", "j", "k", "Tab", "Down", "Up", "g", "G"]))
        stop.wait(1.5)

# ------------------------------------------------------------ sampling
CLK = os.sysconf("SC_CLK_TCK")
def sample(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            rss = next((int(l.split()[1]) for l in f if l.startswith("VmRSS:")), 0)
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / CLK
        fds = len(os.listdir("/proc/%d/fd" % pid))
        return rss, cpu, fds
    except (OSError, StopIteration, ValueError, IndexError):
        return None

rows = []
last = {}
def take_row(minute):
    row = {"min": minute}
    now = time.time()
    for name, pid in (("console", console_pid), ("watch", watch.pid)):
        s = sample(pid) if pid else None
        if s is None:
            row[name] = None
            continue
        rss, cpu, fds = s
        prev = last.get(name)
        pct = 100.0 * (cpu - prev[1]) / (now - prev[0]) if prev else 0.0
        last[name] = (now, cpu)
        row[name] = (rss / 1024.0, pct, fds)
    with lock:
        row["acts"] = stats["acts"]
        row["written"] = stats["written"]
        row["saves"] = saves["count"]
    row["watch_lines"] = watch_lines["lines"]
    rows.append(row)
    return row

HEAD = "%5s  %12s %7s %5s  %12s %7s %5s  %7s %7s %7s %9s" % (
    "min", "console MiB", "cpu%", "fds", "watch MiB", "cpu%", "fds", "acts", "written", "saves", "watch ln")
def fmt_row(r):
    def part(x):
        return ("%12.1f %7.1f %5d" % x) if x else "%12s %7s %5s" % ("gone", "-", "-")
    return "%5s  %s  %s  %7d %7d %7d %9d" % (r["min"], part(r["console"]), part(r["watch"]),
                                         r["acts"], r["written"], r["saves"], r["watch_lines"])

# ------------------------------------------------------------ run
threads = []
for i, fn in enumerate([prd_agent, gsd_agent, dwp_agent, devloop_agent]):
    for locked in (True, False):
        threads.append(threading.Thread(target=agent_loop, args=(fn, locked, i * 2 + locked), daemon=True))
for n in range(args.deciders):
    threads.append(threading.Thread(target=decider, args=(n,), daemon=True))
threads.append(threading.Thread(target=keys, daemon=True))
take_row(0)
print(HEAD)
print(fmt_row(rows[-1]), flush=True)
for t in threads:
    t.start()
start = time.time()
end = start + args.minutes * 60
minute = 0
def on_signal(sig, frame):
    global end
    end = 0
signal.signal(signal.SIGINT, on_signal)
signal.signal(signal.SIGTERM, on_signal)
while time.time() < end:
    nxt = min(end, start + (minute + 1) * 60)
    while time.time() < nxt:
        time.sleep(min(1.0, max(0.0, nxt - time.time())))
    minute += 1
    label = minute if time.time() - start >= minute * 60 - 1 else "%.1f" % ((time.time() - start) / 60)
    print(fmt_row(take_row(label)), flush=True)
    if console_pid and tmux("has-session", "-t", session).returncode != 0:
        violation("the console exited during the run")
        console_pid = None
    if watch.poll() is not None:
        violation("watch --json exited during the run (exit %s): %s" % (
            watch.returncode, watch.stderr.read().decode("utf-8", "replace")[:300]))
stop.set()
for t in threads:
    t.join(timeout=120)
time.sleep(2)

# ------------------------------------------------------------ the end
console_alive = tmux("has-session", "-t", session).returncode == 0
screen = tmux("capture-pane", "-p", "-t", session).stdout if console_alive else ""
tmux("kill-session", "-t", session)
watch_alive = watch.poll() is None
watch.terminate()
try:
    watch.wait(timeout=10)
except subprocess.TimeoutExpired:
    watch.kill()
if "panicked" in screen:
    violation("the console shows a panic")
if watch_lines["bad"]:
    violation("watch --json printed %d lines that are not JSON" % watch_lines["bad"])

# Every file parses.
bad_files = []
for root, dirs, files in os.walk(ws):
    for name in files:
        p = os.path.join(root, name)
        if name.endswith(".json"):
            try:
                with open(p, "rb") as f:
                    json.loads(f.read().decode("utf-8-sig"))
            except (ValueError, OSError) as e:
                bad_files.append("%s: %s" % (os.path.relpath(p, ws), e))
        elif name.endswith(".ndjson"):
            with open(p, "rb") as f:
                data = f.read()
            for i, line in enumerate(data.split(b"\n")):
                if line.strip():
                    try:
                        json.loads(line)
                    except ValueError as e:
                        bad_files.append("%s:%d: %s" % (os.path.relpath(p, ws), i + 1, e))
        if ".loopdeck" in name and ("tmp" in name or "lock" in name):
            bad_files.append("%s: left behind by loopdeck" % os.path.relpath(p, ws))
# Known-broken example files are not the soak's doing: compare with the copies' sources.
for b in bad_files:
    rel = b.split(":")[0]
    if "left behind" in b:
        violation(b)
        continue
    origin = None
    for fmt, d, s in projects:
        if os.path.join(ws, rel).startswith(d + os.sep):
            origin = os.path.join(s, os.path.relpath(os.path.join(ws, rel), d))
    try:
        with open(origin, "rb") as f:
            json.loads(f.read().decode("utf-8-sig")) if origin.endswith(".json") else \
                [json.loads(l) for l in f.read().split(b"\n") if l.strip()]
        violation("does not parse: " + b)
    except (ValueError, OSError, TypeError, AttributeError):
        pass  # broken in the example too
rc, out, err = run(["list", ws, "--json"])
try:
    new_problems = problems_of(json.loads(out)) - initial_problems
except ValueError:
    new_problems = {("list --json", err[:200])}
for p in sorted(new_problems):
    violation("new problem: %s %s" % p)

# The audit log against what act said.
audit = []
sdir = os.path.join(state, "loopdeck")
for name in sorted(os.listdir(sdir)) if os.path.isdir(sdir) else []:
    if name.startswith("audit") and ".ndjson" in name:
        with open(os.path.join(sdir, name), "rb") as f:
            for line in f:
                if line.strip():
                    try:
                        audit.append(json.loads(line))
                    except ValueError:
                        violation("audit log %s has a line that is not JSON" % name)
said = {d["audit_id"]: d for d in decided if d["rc"] == 0 and d["audit_id"]}
by_token = {d["token"]: d for d in decided}
with open(os.path.join(work, "acts.ndjson"), "w") as f:
    for d in decided:
        f.write(json.dumps(d, ensure_ascii=False) + "\n")
ids = {r.get("id") for r in audit}
for r in audit:
    if r.get("id") not in said:
        text = json.dumps(r.get("decision"), ensure_ascii=False)
        m = re.search(r"SOAK\d+-\d+", text)
        d = by_token.get(m.group(0)) if m else None
        told = "act exited %d: %s" % (d["rc"], d["err"][:160]) if d else "no act of the soak made it"
        violation("audit record %s (%s%s) was not reported written (%s)" % (
            r.get("id"), text[:100], ", partial" if r.get("partial") else "", told))
for aid, d in said.items():
    if aid not in ids:
        violation("act wrote %s (%s) but the audit log has no record of it" % (aid, d["verb"]))
for d in decided:
    if d["rc"] == 0 and not d["audit_id"]:
        violation("act %s said written without an audit id" % d["verb"])

# Exactly once: each written decision's token, counted in its files, is what
# one such decision writes (measured on a fresh copy of its example).
def count_in(path, token):
    try:
        with open(path, "rb") as f:
            return f.read().count(token.encode())
    except OSError:
        return 0
calibration = {}
def calibrate(d):
    fmt = next((f for f, p, s in projects if os.path.abspath(d["path"]).startswith(p)), None)
    origin = next((s for f, p, s in projects if os.path.abspath(d["path"]).startswith(p)), None)
    key = (fmt, d["verb"])
    if key in calibration:
        return calibration[key]
    calibration[key] = None
    if not origin:
        return None
    cal = tempfile.mkdtemp(prefix="cal-", dir=work)
    dest = os.path.join(cal, os.path.relpath(d["path"], ws))
    proj_root = next(p for f, p, s in projects if os.path.abspath(d["path"]).startswith(p))
    shutil.copytree(origin, os.path.join(cal, os.path.relpath(proj_root, ws)), symlinks=True)
    token = "SOAKCAL-%s" % d["verb"]
    argv = [token if a == d["token"] else re.sub(re.escape(d["token"]), token, a) for a in d["argv"]]
    if d["verb"] in ("add-decision", "add-blocker"):
        pass
    else:
        rc, out, err = run(["inbox", cal, "--json"])
        try:
            items = [i for i in json.loads(out).get("items", []) if (i.get("act") or {}).get("verb") == d["verb"]]
        except ValueError:
            items = []
        if not items:
            return None
        argv = act_args(items[0], token, random.Random(0))
        dest = items[0].get("path")
        if not argv or d["argv"][:1] != argv[:1]:
            return None
    calenv = dict(env, XDG_STATE_HOME=os.path.join(cal, "state"))
    p = subprocess.run([binary, "act", dest] + argv + ["--json"], env=calenv, capture_output=True)
    if p.returncode != 0:
        return None
    files = [f.get("file") for f in json.loads(p.stdout).get("files", [])]
    calibration[key] = {f: count_in(os.path.join(dest, f), token) for f in files}
    return calibration[key]

removing = {"resolve-blocker", "unblock", "reopen"}
checked = uncalibrated = 0
for aid, d in said.items():
    if d["verb"] not in ("answer", "evidence", "add-decision", "add-blocker", "bug", "block", "reopen"):
        continue
    rec = next((r for r in audit if r.get("id") == aid), None)
    if rec is None:
        continue
    want = calibrate(d)
    if want is None:
        uncalibrated += 1
        continue
    later = [r for r in audit if r.get("project") == rec.get("project") and r.get("at", "") >= rec.get("at", "")
             and (r.get("decision") or {}).get("verb", (r.get("decision") or {}).get("name")) in removing]
    later = later or [x for x in said.values() if x["path"] == d["path"] and x["verb"] in removing]
    checked += 1
    for f, n in want.items():
        got = count_in(os.path.join(d["path"], f), d["token"])
        if got > n or (got < n and not later):
            violation("%s %s: %s holds its text %d times, one decision writes it %d times" % (
                d["verb"], d["token"], f, got, n))

# ------------------------------------------------------------ report
print()
print("soak: %.1f minutes, %d projects; %d act runs (%d written, %d refused, %d changed/locked, %d other); "
      "%d agent saves (%d skipped for a held lock, %d agent errors); watch printed %d lines" % (
          (time.time() - start) / 60, len(projects), stats["acts"], stats["written"], stats["refused"],
          stats["conflict"], stats["other"], saves["count"], saves["skipped_locked"],
          saves.get("agent_errors", 0), watch_lines["lines"]))
if saves.get("agent_error"):
    print("last agent error: " + saves["agent_error"])
print("audit: %d records; exactly-once checked for %d decisions (%d without a calibration)" % (
    len(audit), checked, uncalibrated))
print()
print(HEAD)
for r in rows:
    print(fmt_row(r))
refusals = {}
for d in decided:
    if d["rc"] != 0:
        first = re.sub(r"[0-9a-f]{8,}|SOAK\S+|/\S+", "…", d["err"].split("\n")[0])[:90]
        refusals[first] = refusals.get(first, 0) + 1
if refusals:
    print()
    print("most common refusals:")
    for msg, n in sorted(refusals.items(), key=lambda kv: -kv[1])[:6]:
        print("  %5d  %s" % (n, msg))
print()
if violations:
    print("VERDICT: FAIL (%d violations)" % len(violations))
    for v in violations[:40]:
        print("  - " + v)
else:
    print("VERDICT: PASS (every decision recorded once and in its files once, every file parses, "
          "console and watch alive)")
if args.keep:
    print("kept: " + work)
else:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if violations else 0)
PY
