#!/usr/bin/env python3
"""Issue 23's table: every row as this build against a baseline binary,
measured side by side in one run (the two alternate, so drift hits both).

    BASELINE=/path/to/older/loopdeck bench/speed.py [--only ROWS] [--short] [--keep DIR]

Rows (--only takes their names, comma-separated):
  list      `list --json` of 1,000 mixed projects (bench/gen_workspace.py:
            75 KB bug logs, 280 KB timelines, 24-task plans, real GSD files)
            against `cat` of the files it opens and of the 2,000 state
            files: wall and CPU, medians; and of its 250 DWP plans and its
            250 devloop projects alone
  memory    the console's resident memory at 10,000 mixed projects, with
            its read cache and without (LOOPDECK_READ_CACHE=off), and the
            CPU of a full re-read (`r`) with and without; medians of 3
  first     the first frame at 10,000 mixed projects (the list drawn):
            a first start, and a second (a snapshot to draw from); and at
            10,000 small PRD-master projects; medians of 3
  churn     1 project of 10,000 saved 50 times a second for 20 s, in place
            and by rename-over: the console's CPU; 1,000 lines a second
            appended to 1 devloop project of 1,000: the console's CPU
  idle      1,000 projects, 10 s with nothing changing: CPU and context
            switches (every thread's, from /proc)

--short: a tenth of every workspace and duration (a smoke run). --keep DIR
keeps (and reuses) the generated workspaces there. Needs strace for the
files `list` opens (else the state files alone), and a release build
(`cargo build --release`, done here).
"""
import argparse, glob, json, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from live import cpu_seconds, rss_mib  # noqa: E402

NOW = "2026-06-01T12:00:00Z"

# ---------------------------------------------------------------- helpers

def run_timed(argv, env=None):
    """Wall and CPU seconds of `argv`, its output thrown away."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0 and os.WEXITSTATUS(status) not in (0, 1):
        sys.exit(f"{argv[:3]} exited {os.WEXITSTATUS(status)}")
    return wall, ru.ru_utime + ru.ru_stime

def medians(samples):
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)

def generate(path, n, small=False):
    if os.path.isdir(path) and os.listdir(path):
        return
    os.makedirs(path, exist_ok=True)
    args = [sys.executable, os.path.join(HERE, "gen_workspace.py"), path, "--projects", str(n)]
    subprocess.run(args + (["--small"] if small else []), check=True, stdout=subprocess.DEVNULL)

def ctx_switches(pid):
    n = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            for line in open(status):
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    n += int(line.split()[1])
        except OSError:
            pass
    return n

def fresh_state(ws, tag):
    """A state directory of its own for each binary and run."""
    d = os.path.join(ws, ".state-" + tag)
    shutil.rmtree(d, ignore_errors=True)
    return d

def start_console(binary, roots, state, env=None):
    """`binary ROOTS...` on a pty, XDG_STATE_HOME=state; when it started."""
    import pty, fcntl, termios, struct, threading
    import live
    con = object.__new__(live.Console)
    t0 = time.monotonic()
    con.pid, con.fd = pty.fork()
    if con.pid == 0:
        os.environ["NO_COLOR"] = "1"
        os.environ["TERM"] = "xterm-256color"
        os.environ["XDG_STATE_HOME"] = state
        os.environ["XDG_CONFIG_HOME"] = state + "-no-config"
        os.environ.update(env or {})
        os.execv(binary, [binary] + roots)
    fcntl.ioctl(con.fd, termios.TIOCSWINSZ, struct.pack("HHHH", live.H, live.W, 0, 0))
    con.lock = threading.Lock()
    con.chunks = []
    con.total = 0
    threading.Thread(target=con._read, daemon=True).start()
    return con, t0

def loaded(con, n, t0, timeout=300):
    """Seconds from t0 until the header counts n projects. The terminal may
    get the count and the word apart, the cursor moved over a space already
    drawn (as bench/first_frame.py reads it)."""
    import re
    want = re.compile(str(n).encode() + rb"(?: |\x1b\[\d+;\d+H)projects")
    end, t = time.monotonic() + timeout, None
    while t is None and time.monotonic() < end:
        with con.lock:
            tail = b""
            for at, b in con.chunks:
                tail += b
                if want.search(tail):
                    t = at
                    break
        time.sleep(0.002)
    if t is None:
        con.stop()
        sys.exit(f"the console never showed {n} projects")
    return t - t0

def ratio(a, b):
    return "-" if not a or not b else f"{a / b:.2f}x"

def line(what, this, base, unit, vs=None, vs_name=""):
    """One row: this build, the baseline, baseline/this; and this/`vs`."""
    fmt = (lambda v: "-" if v is None else f"{v:,.2f}{unit}")
    extra = f"   this/{vs_name} {ratio(this, vs)}" if vs is not None else ""
    print(f"  {what:<44} {fmt(this):>12} {fmt(base):>12}   {ratio(base, this):>7}{extra}", flush=True)

# ---------------------------------------------------------------- rows

def files_list_opens(binary, ws):
    if not shutil.which("strace"):
        return None
    trace = os.path.join(tempfile.mkdtemp(), "trace")
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat", "-o", trace, binary, "list",
                    ws, "--json", "--now", NOW], stdout=subprocess.DEVNULL, check=True)
    found = set()
    for l in open(trace):
        if " = -1 " in l:
            continue
        s = l.find('"' + ws)
        if s < 0:
            continue
        p = l[s + 1:l.index('"', s + 1)]
        if os.path.isfile(p):
            found.add(p)
    shutil.rmtree(os.path.dirname(trace))
    return sorted(found)

def state_files(ws):
    names = {"state.json", "STATE.md", "manifest.json", "README.md", "project.json",
             "units.json", "bugs.ndjson"}
    out = []
    for d, _, files in os.walk(ws):
        out += [os.path.join(d, f) for f in files if f in names]
    return sorted(out)

def row_list(this, base, tmp, short, runs):
    n = 100 if short else 1000
    ws = os.path.join(tmp, f"mixed{n}")
    generate(ws, n)
    opens = files_list_opens(this, ws) or state_files(ws)
    states = state_files(ws)
    size = lambda fs: sum(os.path.getsize(f) for f in fs)
    print(f"list --json, {n} mixed projects: list opens {len(opens):,} files "
          f"({size(opens) / 1e6:.1f} MB); {len(states):,} state files ({size(states) / 1e6:.1f} MB)")
    cmds = {
        "cat-opens": ["cat"] + opens,
        "cat-states": ["cat"] + states,
        "this": [this, "list", ws, "--json", "--now", NOW],
    }
    if base:
        cmds["base"] = [base, "list", ws, "--json", "--now", NOW]
    for roots, name in ((["dwp"], "dwp"), (["devloop"], "devloop")):
        cmds["this-" + name] = [this, "list", os.path.join(ws, *roots), "--json", "--now", NOW]
        if base:
            cmds["base-" + name] = [base, "list", os.path.join(ws, *roots), "--json", "--now", NOW]
    got = {k: [] for k in cmds}
    for k, argv in cmds.items():  # warm the page cache
        run_timed(argv)
    for i in range(runs):
        keys = list(cmds)
        for k in (keys if i % 2 == 0 else keys[::-1]):
            got[k].append(run_timed(cmds[k]))
    m = {k: medians(v) for k, v in got.items()}
    b = lambda k, j: m[k][j] * 1000 if k in m else None
    print(f"  {'(ms, median of ' + str(runs) + ')':<44} {'this build':>12} {'baseline':>12}   {'base/this':>7}")
    line("cat of the files list opens, wall", b("cat-opens", 0), None, "")
    line("cat of the files list opens, CPU", b("cat-opens", 1), None, "")
    line("cat of the state files, wall", b("cat-states", 0), None, "")
    line("cat of the state files, CPU", b("cat-states", 1), None, "")
    line("list --json, wall", b("this", 0), b("base", 0), "", b("cat-opens", 0), "cat(opens)")
    line("  against cat of the state files", b("this", 0), b("base", 0), "", b("cat-states", 0), "cat(states)")
    line("list --json, CPU", b("this", 1), b("base", 1), "", b("cat-opens", 1), "cat(opens)")
    line("  against cat of the state files", b("this", 1), b("base", 1), "", b("cat-states", 1), "cat(states)")
    line(f"list of the {n // 4} DWP plans, wall", b("this-dwp", 0), b("base-dwp", 0), "")
    line(f"list of the {n // 4} devloop projects, wall", b("this-devloop", 0), b("base-devloop", 0), "")

def console_memory(binary, ws, n, state, env=None):
    con, t0 = start_console(binary, [ws], state, env)
    loaded(con, n, t0)
    time.sleep(3.0)
    rss = rss_mib(con.pid)
    # A full re-read (`r`): its CPU, until the console is quiet again.
    c0 = cpu_seconds(con.pid)
    os.write(con.fd, b"r")
    time.sleep(1.0)
    last, c1 = c0, cpu_seconds(con.pid)
    while c1 - last > 0.02:
        time.sleep(1.0)
        last, c1 = c1, cpu_seconds(con.pid)
    after = rss_mib(con.pid)
    con.stop()
    return rss, c1 - c0, after

def row_memory(this, base, tmp, short, reps=3):
    n = 1000 if short else 10000
    ws = os.path.join(tmp, f"mixed{n}")
    generate(ws, n)
    print(f"the console at {n:,} mixed projects (resident MiB; a full re-read's CPU s; "
          f"medians of {reps} runs, the three consoles alternating)")
    runs = {"m": [], "off": [], "mb": []}
    for _ in range(reps):
        runs["m"].append(console_memory(this, ws, n, fresh_state(tmp, "m1")))
        runs["off"].append(console_memory(this, ws, n, fresh_state(tmp, "m2"),
                                          {"LOOPDECK_READ_CACHE": "off"}))
        if base:
            runs["mb"].append(console_memory(base, ws, n, fresh_state(tmp, "m3")))
    med = lambda rs: tuple(statistics.median(r[j] for r in rs) for j in range(3)) if rs else None
    m, off, mb = med(runs["m"]), med(runs["off"]), med(runs["mb"])
    for name, rs in runs.items():
        if rs:
            print(f"    {name:>4} runs: " + "; ".join(f"{r[0]:.0f} MiB, {r[1]:.1f} s, {r[2]:.0f} MiB" for r in rs))
    print(f"  {'':<44} {'this build':>12} {'baseline':>12}   {'base/this':>7}")
    line("resident, loaded", m[0], mb and mb[0], " MiB", off[0], "no-cache")
    line("resident, after a full re-read", m[2], mb and mb[2], " MiB", off[2], "no-cache")
    line("  without the read cache", off[0], None, " MiB")
    line("CPU of a full re-read", m[1], mb and mb[1], " s", off[1], "no-cache")

def first_frame(binary, ws, n, state, env=None, keeps=False):
    """Milliseconds until the list of `n` projects is drawn. `keeps`: the
    build keeps a snapshot: wait for it before stopping, so the second
    start has it to draw from (stopped at once, the console was killed
    before its first full reading's snapshot was written, and the second
    start measured a first start again)."""
    con, t0 = start_console(binary, [ws], state, env)
    s = loaded(con, n, t0)
    if keeps:
        deadline = time.monotonic() + 120
        while not glob.glob(os.path.join(state, "loopdeck", "snapshot-*.json")):
            if time.monotonic() > deadline:
                con.stop()
                sys.exit(f"{binary} kept no snapshot in {state}")
            time.sleep(0.1)
    con.stop()
    return s * 1000

def row_first(this, base, tmp, short):
    n = 1000 if short else 10000
    ws = os.path.join(tmp, f"mixed{n}")
    generate(ws, n)
    small = os.path.join(tmp, f"small{n}")
    generate(small, n, small=True)
    print(f"first frame, the list drawn (ms)")
    print(f"  {'':<44} {'this build':>12} {'baseline':>12}   {'base/this':>7}")
    reps = 3
    for what, root in ((f"{n:,} mixed", ws), (f"{n:,} small PRD-master", small)):
        got = {k: [] for k in ("cold", "cold_b", "warm", "warm_b")}
        for _ in range(reps):
            s1, s2 = fresh_state(tmp, "f1"), fresh_state(tmp, "f2")
            got["cold"].append(first_frame(this, root, n, s1, keeps=True))
            if base:
                got["cold_b"].append(first_frame(base, root, n, s2, keeps=keeps_snapshot(base)))
            got["warm"].append(first_frame(this, root, n, s1))
            if base:
                got["warm_b"].append(first_frame(base, root, n, s2))
        med = {k: (statistics.median(v) if v else None) for k, v in got.items()}
        line(f"{what}, first start", med["cold"], med["cold_b"], "")
        line(f"{what}, second start", med["warm"], med["warm_b"], "")
        print(f"    (runs: " + "; ".join(f"{k} " + ", ".join(f"{x:.0f}" for x in v)
                                        for k, v in got.items() if v) + ")")

def keeps_snapshot(binary):
    """Does this build keep a snapshot (it knows `list --cached`)?"""
    out = subprocess.run([binary, "list", "--help"], capture_output=True, text=True).stdout
    return "--cached" in out


def save_in_place(path, i):
    doc = json.load(open(path, encoding="utf-8"))
    doc["project_name"] = f"churn{i:06d}"
    with open(path, "r+", encoding="utf-8") as f:
        f.seek(0)
        json.dump(doc, f, ensure_ascii=False, indent=2)
        f.truncate()

def save_rename(path, i):
    doc = json.load(open(path, encoding="utf-8"))
    doc["project_name"] = f"churn{i:06d}"
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=2)
    os.replace(tmp, path)

def churn_cpu(binary, ws, n, state, save, path, seconds):
    con, t0 = start_console(binary, [ws], state)
    loaded(con, n, t0)
    time.sleep(3.0)
    c0, w0 = cpu_seconds(con.pid), time.monotonic()
    end, tick, i = w0 + seconds, w0, 0
    while time.monotonic() < end:
        save(path, i)
        i += 1
        tick += 0.02
        time.sleep(max(0.0, tick - time.monotonic()))
    c1, w1 = cpu_seconds(con.pid), time.monotonic()
    con.stop()
    return (c1 - c0) / (w1 - w0) * 100

def append_cpu(binary, ws, n, state, log, seconds):
    import live
    con, t0 = start_console(binary, [ws], state)
    loaded(con, n, t0)
    time.sleep(3.0)
    c0, w0 = cpu_seconds(con.pid), time.monotonic()
    live.appender(log, 1000, seconds)
    c1, w1 = cpu_seconds(con.pid), time.monotonic()
    con.stop()
    return (c1 - c0) / (w1 - w0) * 100

def row_churn(this, base, tmp, short):
    n = 1000 if short else 10000
    secs = 5 if short else 20
    small = os.path.join(tmp, f"small{n}")
    generate(small, n, small=True)
    path = os.path.join(small, "prd", "p000000", "state.json")
    print(f"churn, 1 of {n:,} projects saved 50 times/s for {secs} s (console CPU, % of a core)")
    print(f"  {'':<44} {'this build':>12} {'baseline':>12}   {'base/this':>7}")
    for what, save in (("in place", save_in_place), ("by rename-over", save_rename)):
        c = churn_cpu(this, small, n, fresh_state(tmp, "c1"), save, path, secs)
        cb = churn_cpu(base, small, n, fresh_state(tmp, "c2"), save, path, secs) if base else None
        line(f"saved {what}", c, cb, "%")
    m = 100 if short else 1000
    ws = os.path.join(tmp, f"mixed{m}")
    generate(ws, m)
    log = sorted(glob.glob(os.path.join(ws, "devloop", "data", "companies", "*", "projects",
                                        "*", "timeline.ndjson")))[0]
    a = append_cpu(this, ws, m, fresh_state(tmp, "a1"), log, secs)
    ab = append_cpu(base, ws, m, fresh_state(tmp, "a2"), log, secs) if base else None
    line(f"1,000 lines/s into 1 devloop project of {m:,}", a, ab, "%")

def idle(binary, ws, n, state, seconds):
    con, t0 = start_console(binary, [ws], state)
    loaded(con, n, t0)
    time.sleep(3.0)
    c0, x0, w0 = cpu_seconds(con.pid), ctx_switches(con.pid), time.monotonic()
    time.sleep(seconds)
    c1, x1, w1 = cpu_seconds(con.pid), ctx_switches(con.pid), time.monotonic()
    con.stop()
    return (c1 - c0) / (w1 - w0) * 100, x1 - x0

def row_idle(this, base, tmp, short):
    n = 100 if short else 1000
    ws = os.path.join(tmp, f"mixed{n}")
    generate(ws, n)
    secs = 10
    i = idle(this, ws, n, fresh_state(tmp, "i1"), secs)
    ib = idle(base, ws, n, fresh_state(tmp, "i2"), secs) if base else None
    print(f"idle, {n:,} mixed projects, {secs} s with nothing changing")
    print(f"  {'':<44} {'this build':>12} {'baseline':>12}   {'base/this':>7}")
    line("console CPU", i[0], ib and ib[0], "%")
    line("context switches, every thread", i[1], ib and ib[1], "")

ROWS = {"list": row_list, "memory": row_memory, "first": row_first, "churn": row_churn,
        "idle": row_idle}

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=os.environ.get("BASELINE"))
    ap.add_argument("--only", default=",".join(ROWS))
    ap.add_argument("--short", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--runs", type=int, default=11)
    a = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    this = os.path.join(ROOT, "target", "release", "loopdeck")
    base = a.baseline and os.path.abspath(a.baseline)
    print(f"this build: {this}\nbaseline:   {base or '(none: set BASELINE=path)'}")
    tmp = a.keep or tempfile.mkdtemp(prefix="loopdeck-speed-")
    os.makedirs(tmp, exist_ok=True)
    try:
        for name in a.only.split(","):
            if name == "list":
                row_list(this, base, tmp, a.short, a.runs)
            else:
                ROWS[name](this, base, tmp, a.short)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    main()
