#!/usr/bin/env python3
"""Issue 9's live-at-scale figures. Each scenario runs this build and, when
given, a baseline binary in the same invocation, and prints both with the
ratio baseline / this build.

    bench/live.py [--baseline BIN] [--only NAME[,NAME...]] [--short]

Scenarios (a generated workspace: PRD-master and GSD projects, plus one
devloop project that the writers feed):
  latency  200 writes of one state.json (rename-over, as agents write): time
           to the `watch --json` line and to the frame on a pty (median, p95)
  append   1,000 timeline lines a second into the devloop project, one of
           1,000 projects, for 30 s: CPU of the console (% of one core)
  rewrite  10,000 projects, 50 state.json rewrites a second for 60 s:
           resident memory before, the most during, and after
  idle     1,000 projects watched, 30 s with nothing changing: CPU %
  watches  inotify watches per project (from /proc/PID/fdinfo)

--short divides every duration by 6 and the big workspace by 10 (a smoke run).
"""
import argparse, fcntl, json, os, pty, re, shutil, signal, struct, subprocess
import sys, tempfile, termios, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "workspace")
W, H = 200, 60
HZ = os.sysconf("SC_CLK_TCK")

# ---------------------------------------------------------------- workspace

def generate(ws, n):
    """n projects: one devloop project (`live`), the rest PRD-master and GSD."""
    prd = open(os.path.join(EX, "prd-master/fba-smart-restock/state.json"), encoding="utf-8").read()
    gsd = open(os.path.join(EX, "gsd/paused-waiting/.planning/STATE.md"), encoding="utf-8").read()
    for i in range((n - 1) // 2):
        d = os.path.join(ws, "prd", f"p{i:05d}")
        os.makedirs(d)
        with open(os.path.join(d, "state.json"), "w", encoding="utf-8") as f:
            f.write(prd.replace("fba-smart-restock", f"restock-{i:05d}").replace(
                "2026-06-01T11:30:00Z", f"2026-05-{i % 28 + 1:02d}T11:30:00Z"))
    for i in range(n - 1 - (n - 1) // 2):
        d = os.path.join(ws, "gsd", f"repo{i:05d}", ".planning")
        os.makedirs(d)
        with open(os.path.join(d, "STATE.md"), "w", encoding="utf-8") as f:
            f.write(re.sub(r"last_updated: .*", f'last_updated: "2026-05-{i % 28 + 1:02d}T09:56:00.000Z"', gsd))
    live = os.path.join(ws, "dl", "data", "companies", "acme", "projects", "live")
    shutil.copytree(os.path.join(EX, "devloop/data/companies/acme/projects/p-restock"), live)
    return live

def state_path(ws):
    return os.path.join(ws, "prd", "p00000", "state.json")

def rewrite(path, name):
    """Replace a PRD state.json as agents do (temp file, rename), with this
    name and updated now (so it is the list's first row)."""
    doc = json.load(open(path, encoding="utf-8"))
    doc["project_name"] = name
    doc["last_updated_at_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=2)
    os.replace(tmp, path)

# ---------------------------------------------------------------- processes

class Console:
    """The console on a pty of W x H; its output is read all the time (a
    terminal that stops reading would stall it)."""

    def __init__(self, binary, ws, args=None):
        """`binary ws`, or `binary ARGS...` (the state directory in ws)."""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["NO_COLOR"] = "1"
            os.environ["TERM"] = "xterm-256color"
            os.environ["XDG_STATE_HOME"] = os.path.join(ws, ".state")
            os.environ["XDG_CONFIG_HOME"] = os.path.join(ws, ".no-config")
            os.execv(binary, [binary] + (args if args is not None else [ws]))
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", H, W, 0, 0))
        self.lock = threading.Lock()
        self.chunks = []  # (time, bytes), the recent ones
        self.total = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                b = os.read(self.fd, 1 << 16)
            except OSError:
                return
            if not b:
                return
            # A terminal answers a cursor-position query (crossterm asks
            # one on a full redraw, Ctrl-L): so does this one.
            if b"\x1b[6n" in b:
                try:
                    os.write(self.fd, b"\x1b[1;1R")
                except OSError:
                    pass
            with self.lock:
                self.chunks.append((time.monotonic(), b))
                self.total += len(b)
                if len(self.chunks) > 4000:
                    del self.chunks[:2000]

    def seen_after(self, token, t0, timeout):
        """When `token` was first drawn after t0 (None: not within timeout)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                tail = b""
                for t, b in self.chunks:
                    if t >= t0:
                        tail += b
                        if token in tail:
                            return t
            time.sleep(0.002)
        return None

    def stop(self):
        try:
            os.kill(self.pid, signal.SIGTERM)
            os.waitpid(self.pid, 0)
        except OSError:
            pass


class Feed:
    """`loopdeck watch --json`, its lines timed as they arrive."""

    def __init__(self, binary, ws):
        env = dict(os.environ, XDG_STATE_HOME=os.path.join(ws, ".state"))
        self.proc = subprocess.Popen([binary, "watch", "--json", ws], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.pid = self.proc.pid
        self.lock = threading.Lock()
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.lock:
                self.lines.append((time.monotonic(), line))
                if len(self.lines) > 4000:
                    del self.lines[:2000]

    def seen_after(self, token, t0, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                for t, line in self.lines:
                    if t >= t0 and token in line:
                        return t
            if self.proc.poll() is not None:
                return None
            time.sleep(0.002)
        return None

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def cpu_seconds(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / HZ

def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0

def inotify_watches(pid):
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "anon_inode:inotify":
                continue
            n += sum(1 for l in open(f"/proc/{pid}/fdinfo/{fd}") if l.startswith("inotify wd:"))
        except OSError:
            pass
    return n

def wait_loaded(proc, n, timeout=120):
    """Until the projects are on screen (the count in the header)."""
    token = f"{n} projects".encode()
    if proc.seen_after(token, 0, timeout) is None:
        sys.exit(f"never saw '{token.decode()}'")

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

# ---------------------------------------------------------------- scenarios

def latency(binary, feed, writes, ws):
    """Median and p95 (ms) from a rename-over write to the feed line, or to
    the frame, that shows it. The name toggles between two tokens that
    differ in every character, so the frame's diff draws it whole."""
    path = state_path(ws)
    # Not a token: the run before may have left one on screen.
    rewrite(path, "restock-start")
    if feed:
        proc = Feed(binary, ws)
        if proc.seen_after(b'"snapshot"', 0, 120) is None:
            proc.stop()
            return None
    else:
        proc = Console(binary, ws)
        wait_loaded(proc, N_SMALL)
    time.sleep(1.0)
    got, missed = [], 0
    for i in range(writes):
        token = "AAAAAAAAAAAA" if i % 2 else "BBBBBBBBBBBB"
        t0 = time.monotonic()
        rewrite(path, token)
        t = proc.seen_after(token.encode(), t0, 3.0)
        if t is None:
            missed += 1
        else:
            got.append((t - t0) * 1000)
        time.sleep(0.03)
    proc.stop()
    if not got:
        return {"missed": missed}
    return {"median": pct(got, 50), "p95": pct(got, 95), "missed": missed}

def appender(path, per_second, seconds):
    """Append `per_second` timeline lines a second, in 10 ms batches."""
    end = time.monotonic() + seconds
    n, tick = 0, time.monotonic()
    batch = max(1, per_second // 100)
    with open(path, "a", encoding="utf-8") as f:
        while time.monotonic() < end:
            lines = "".join(
                json.dumps({"ts": int(time.time()), "source": "coder", "kind": "note",
                            "summary": f"line {n + k}"}) + "\n" for k in range(batch))
            f.write(lines)
            f.flush()
            n += batch
            tick += 0.01
            time.sleep(max(0.0, tick - time.monotonic()))
    return n

def append_cpu(binary, ws, live, seconds):
    con = Console(binary, ws)
    wait_loaded(con, N_SMALL)
    time.sleep(2.0)
    c0, t0 = cpu_seconds(con.pid), time.monotonic()
    lines = appender(os.path.join(live, "timeline.ndjson"), 1000, seconds)
    c1, t1 = cpu_seconds(con.pid), time.monotonic()
    con.stop()
    return {"cpu": (c1 - c0) / (t1 - t0) * 100, "lines": lines}

def rewrite_memory(binary, ws, n, seconds):
    con = Console(binary, ws)
    wait_loaded(con, n, timeout=300)
    time.sleep(3.0)
    before = rss_mib(con.pid)
    path = state_path(ws)
    end, during, i = time.monotonic() + seconds, before, 0
    tick = next_sample = time.monotonic()
    while time.monotonic() < end:
        rewrite(path, f"rw{i:06d}")
        i += 1
        if time.monotonic() >= next_sample:
            during = max(during, rss_mib(con.pid))
            next_sample += 0.25
        tick += 0.02
        time.sleep(max(0.0, tick - time.monotonic()))
    time.sleep(5.0)
    after = rss_mib(con.pid)
    time.sleep(10.0)
    later = rss_mib(con.pid)
    con.stop()
    return {"before": before, "during": during, "after": after, "after15": later, "rewrites": i}

def idle_cpu(binary, ws, seconds):
    con = Console(binary, ws)
    wait_loaded(con, N_SMALL)
    time.sleep(3.0)
    watches = inotify_watches(con.pid)
    c0, t0 = cpu_seconds(con.pid), time.monotonic()
    time.sleep(seconds)
    c1, t1 = cpu_seconds(con.pid), time.monotonic()
    con.stop()
    return {"cpu": (c1 - c0) / (t1 - t0) * 100, "watches": watches}

# ---------------------------------------------------------------- report

def ratio(base, new):
    if base is None or new in (None, 0):
        return "-"
    return f"{base / new:.2f}x"

def row(what, new, base, unit):
    b = "-" if base is None else f"{base:.2f}{unit}"
    n = "-" if new is None else f"{new:.2f}{unit}"
    print(f"  {what:<34} {n:>14} {b:>14}   {ratio(base, new):>8}")

N_SMALL = 1000

def main():
    global N_SMALL
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline")
    ap.add_argument("--only", default="latency,append,rewrite,idle")
    ap.add_argument("--short", action="store_true")
    args = ap.parse_args()
    only = set(args.only.split(","))
    scale = 6 if args.short else 1
    big = 10000 // (10 if args.short else 1)
    N_SMALL = 1000 // (10 if args.short else 1)
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    new = os.path.join(ROOT, "target", "release", "loopdeck")
    base = args.baseline
    tmp = tempfile.mkdtemp(prefix="loopdeck-live-")
    try:
        small = os.path.join(tmp, "small")
        live = generate(small, N_SMALL)
        print(f"{'':<36} {'this build':>14} {'baseline':>14}   {'baseline/this':>8}")
        if "latency" in only:
            writes = 200 // scale
            print(f"latency, {writes} rename-over writes, {N_SMALL} projects (ms)")
            f = latency(new, True, writes, small)
            c = latency(new, False, writes, small)
            cb = latency(base, False, writes, small) if base else None
            row("write -> watch --json, median", f and f.get("median"), None, "")
            row("write -> watch --json, p95", f and f.get("p95"), None, "")
            row("write -> screen, median", c.get("median"), cb and cb.get("median"), "")
            row("write -> screen, p95", c.get("p95"), cb and cb.get("p95"), "")
            print(f"  missed (not seen within 3 s): feed {f and f.get('missed')}, screen {c.get('missed')}"
                  + (f", baseline screen {cb.get('missed')}" if cb else ""))
        if "append" in only:
            secs = 30 // scale
            print(f"append, 1,000 lines/s for {secs} s into 1 devloop project of {N_SMALL} (% of a core)")
            a = append_cpu(new, small, live, secs)
            ab = append_cpu(base, small, live, secs) if base else None
            row("console CPU", a["cpu"], ab and ab["cpu"], "%")
        if "idle" in only:
            secs = 30 // scale
            print(f"idle, {N_SMALL} projects watched, {secs} s (% of a core)")
            i = idle_cpu(new, small, secs)
            ib = idle_cpu(base, small, secs) if base else None
            row("console CPU", i["cpu"], ib and ib["cpu"], "%")
            row("inotify watches per project", i["watches"] / N_SMALL,
                ib and ib["watches"] / N_SMALL, "")
        if "rewrite" in only:
            secs = 60 // scale
            ws = os.path.join(tmp, "big")
            generate(ws, big)
            print(f"rewrite, 50 state.json rewrites/s for {secs} s, {big} projects (resident MiB)")
            r = rewrite_memory(new, ws, big, secs)
            rb = rewrite_memory(base, ws, big, secs) if base else None
            for k, what in [("before", "before"), ("during", "most during"),
                            ("after", "5 s after"), ("after15", "15 s after")]:
                row(what, r[k], rb and rb[k], "")
            print(f"  rewrites made: {r['rewrites']}" + (f", baseline {rb['rewrites']}" if rb else ""))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    main()
