#!/usr/bin/env python3
"""Issue 22's figures: one console following 20 hosts over ssh, against a
console reading the same 2,000 projects from local roots, side by side in
one run (the ratios say what ssh adds).

    bench/hosts.py [--hosts 20] [--per-host 100] [--writes 40] [--idle 20]

A real sshd on 127.0.0.1 (generated keys and config, as the tests'
`common::sshd`), 20 hosts `h1`..`h20`, each a root of its own with
PRD-master and GSD projects and a devloop project whose timeline is a
280 KB log (what real loops leave), all reached through the system ssh.
The remote loopdeck is this build (`command` in each `[[host]]`).

Rows:
  idle CPU      20 s with nothing changing: the console (% of a core); for
                the hosts console also its ssh children and every remote
                `loopdeck watch` (what the fleet costs the machine)
  latency       a rename-over write of one project's state.json on a host's
                root -> the frame that shows it (median, p95, ms)
  memory        the console's resident MiB once every project is shown
  dead host     the remote `loopdeck watch` of h1 stopped (SIGSTOP, as a
                hung host): seconds until the header says `h1 stale`, and
                the latency of writes on h2 meanwhile
"""
import argparse, os, re, shutil, signal, socket, subprocess, sys, tempfile, time, unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live  # noqa: E402  (the pty console, the generator, /proc readers)

ROOT = live.ROOT
SSHD = "/usr/sbin/sshd"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Sshd:
    """sshd -D on 127.0.0.1 with its own keys; an ssh config for h1..hN."""

    def __init__(self, d):
        if not os.path.exists(SSHD):
            sys.exit("sshd is missing: apt-get install openssh-server")
        os.makedirs("/run/sshd", exist_ok=True)
        self.d = d
        for k in ("host_key", "client_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(d, k)], check=True)
        shutil.copy(os.path.join(d, "client_key.pub"), os.path.join(d, "authorized_keys"))
        self.port = free_port()
        cfg = os.path.join(d, "sshd_config")
        with open(cfg, "w") as f:
            f.write(f"""Port {self.port}
ListenAddress 127.0.0.1
HostKey {d}/host_key
PidFile {d}/sshd.pid
AuthorizedKeysFile {d}/authorized_keys
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxStartups 100
MaxSessions 100
LogLevel ERROR
SetEnv XDG_STATE_HOME={d}/remote-state XDG_CONFIG_HOME={d}/no-config
""")
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", cfg], stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        self.config = os.path.join(d, "ssh_config")
        with open(self.config, "w") as f:
            f.write(f"""Host *
  HostName 127.0.0.1
  Port {self.port}
  User {os.environ.get("USER", "root")}
  IdentityFile {d}/client_key
  IdentitiesOnly yes
  UserKnownHostsFile /dev/null
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking no
  LogLevel ERROR
""")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def workspace(tmp, hosts, per_host):
    """hosts roots of per_host projects; the devloop project's timeline a
    280 KB log. Returns the roots."""
    roots = []
    for i in range(1, hosts + 1):
        r = os.path.join(tmp, f"r{i}")
        dl = live.generate(r, per_host)
        with open(os.path.join(dl, "timeline.ndjson"), "a", encoding="utf-8") as f:
            for n in range(2000):
                f.write('{"ts":1780315200,"source":"coder","kind":"note","summary":"'
                        + f"step {n} of the long run, with the detail a real agent writes" + '"}\n')
        roots.append(r)
    return roots


def descendants(pid):
    """Every process below pid (from /proc)."""
    kids = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            ppid = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        kids.setdefault(ppid, []).append(int(p))
    out, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


def cpu_of(pids):
    total = 0.0
    for p in pids:
        try:
            total += live.cpu_seconds(p)
        except OSError:
            pass
    return total


def latency(con, roots, writes, on=1):
    """Rename-over writes of root `on`'s first PRD project -> the frame."""
    path = os.path.join(roots[on - 1], "prd", "p00000", "state.json")
    got, missed = [], 0
    for i in range(writes):
        # Two names that differ in every character: a frame's diff draws
        # the whole name, so the token is in the output as one run.
        token = "AAAAAAAAAAAA" if i % 2 else "BBBBBBBBBBBB"
        t0 = time.monotonic()
        live.rewrite(path, token)
        t = con.seen_after(token.encode(), t0, 5.0)
        if t is None:
            missed += 1
        else:
            got.append((t - t0) * 1000)
        time.sleep(0.05)
    live.rewrite(path, "restock-00000")
    if not got:
        return {"median": None, "p95": None, "missed": missed}
    return {"median": live.pct(got, 50), "p95": live.pct(got, 95), "missed": missed}


def screen_text(con):
    """What the console drew so far, escapes dropped (for a failure)."""
    with con.lock:
        data = b"".join(b for _, b in con.chunks)
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b" ", data).decode("utf-8", "replace")
    at = text.find("panicked")
    at = text.find("Error:") if at < 0 else at
    return text[max(0, at - 500):at + 1500] if at >= 0 else text[-3000:]


class Screen:
    """The cells a console drew, from its output: cursor moves (CSI r;c H)
    and text; other escapes skipped. Enough to read a row whole, which a
    frame's diff draws a few cells at a time."""

    CSI = re.compile(rb"\x1b\[([0-9;?]*)([A-Za-z])")

    def __init__(self):
        self.cells, self.row, self.col = {}, 1, 1

    def feed(self, data):
        text = data.decode("utf-8", "replace")
        i = 0
        while i < len(text):
            c = text[i]
            if c == "\x1b":
                m = self.CSI.match(text[i:].encode("utf-8", "replace"))
                if m:
                    args, cmd = m.group(1).decode(), m.group(2).decode()
                    if cmd == "H":
                        parts = (args.split(";") + ["1", "1"])[:2]
                        self.row, self.col = int(parts[0] or 1), int(parts[1] or 1)
                    elif cmd == "J" and args in ("2", "3"):
                        self.cells.clear()
                    i += len(m.group(0).decode("utf-8", "replace"))
                    continue
                i += 1
                continue
            if c in "\r\n":
                i += 1
                continue
            self.cells[(self.row, self.col)] = c
            self.col += 2 if unicodedata.east_asian_width(c) in "WF" else 1
            i += 1

    def line(self, row):
        cols = [c for (r, c) in self.cells if r == row]
        return "".join(self.cells.get((row, c), " ") for c in range(1, max(cols, default=0) + 1))


def header(con):
    """The console's first row as drawn so far."""
    screen = Screen()
    with con.lock:
        for _, b in con.chunks:
            screen.feed(b)
    return screen.line(1)


def shown(con, token, timeout):
    """Wait until the header shows `token` (read from the cells drawn)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if token in header(con):
            return True
        time.sleep(0.5)
    return False


def measure(con, roots, n, writes, idle_secs, fleet_pids=None):
    if not shown(con, f"{n} projects", 300):
        sys.exit(f"never saw '{n} projects'; the header: {header(con)}\n{screen_text(con)}")
    time.sleep(5.0)
    pids = [con.pid] + (fleet_pids() if fleet_pids else [])
    c0, f0, t0 = live.cpu_seconds(con.pid), cpu_of(pids), time.monotonic()
    time.sleep(idle_secs)
    c1, f1, t1 = live.cpu_seconds(con.pid), cpu_of(pids), time.monotonic()
    others = [p for p in pids if p != con.pid]
    rss_others = 0.0
    for p in others:
        try:
            rss_others += live.rss_mib(p)
        except OSError:
            pass
    out = {
        "idle": (c1 - c0) / (t1 - t0) * 100,
        "idle_all": (f1 - f0) / (t1 - t0) * 100,
        "rss": live.rss_mib(con.pid),
        "procs": len(others),
        "rss_others": rss_others,
    }
    out.update(latency(con, roots, writes, on=len(roots)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--per-host", type=int, default=100)
    ap.add_argument("--writes", type=int, default=40)
    ap.add_argument("--idle", type=int, default=20)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    binary = os.path.join(ROOT, "target", "release", "loopdeck")
    tmp = tempfile.mkdtemp(prefix="loopdeck-hosts-")
    sshd = None
    try:
        roots = workspace(tmp, args.hosts, args.per_host)
        n = args.hosts * args.per_host
        os.makedirs(os.path.join(tmp, "sshd"))
        sshd = Sshd(os.path.join(tmp, "sshd"))
        cfg = os.path.join(tmp, "hosts.toml")
        with open(cfg, "w") as f:
            for i, r in enumerate(roots, 1):
                f.write(f'[[host]]\nname = "h{i}"\nssh = "h{i}"\nroots = ["{r}"]\n'
                        f'command = "{binary}"\nssh_args = ["-F", "{sshd.config}"]\n\n')
        print(f"{args.hosts} hosts x {args.per_host} projects ({n}), one console; "
              f"baseline: the same {n} projects from {args.hosts} local roots")
        # Baseline: the same projects, local.
        base_ws = os.path.join(tmp, "base")
        os.makedirs(base_ws)
        print("  (the local console)", flush=True)
        local = live.Console(binary, base_ws, roots)
        b = measure(local, roots, n, args.writes, args.idle)
        local.stop()
        # The hosts console: no local root, every project over ssh.
        hosts_ws = os.path.join(tmp, "hostsws")
        os.makedirs(hosts_ws)
        print("  (the hosts console)", flush=True)
        con = live.Console(binary, hosts_ws, ["--config", cfg])
        fleet = lambda: descendants(con.pid) + descendants(sshd.proc.pid)
        if not shown(con, f"{args.hosts} hosts live", 300):
            sys.exit("the hosts never all went live")
        h = measure(con, roots, n, args.writes, args.idle, fleet)

        def row(what, new, base, unit, note=""):
            r = "-" if not base or new is None or base is None else f"{new / base:.2f}x"
            nv = "-" if new is None else f"{new:.2f}{unit}"
            bv = "-" if base is None else f"{base:.2f}{unit}"
            print(f"  {what:<44} {nv:>12} {bv:>12} {r:>8} {note}")

        print(f"  {'':<44} {'over ssh':>12} {'local':>12} {'ratio':>8}")
        row("idle CPU, the console (% of a core)", h["idle"], b["idle"], "%")
        row("idle CPU, console + ssh + remote watches", h["idle_all"], b["idle_all"], "%")
        row("write on a host -> screen, median (ms)", h["median"], b["median"], "")
        row("write on a host -> screen, p95 (ms)", h["p95"], b["p95"], "")
        row("resident memory, the console (MiB)", h["rss"], b["rss"], "")
        print(f"  missed (no frame within 5 s): over ssh {h['missed']}, local {b['missed']}")
        print(f"  the fleet: {h['procs']} processes (ssh clients, sshd sessions, shells, remote "
              f"watches), {h['rss_others']:.1f} MiB resident together")

        # A dead host: stop h1's remote watch (a hung machine).
        watch = [p for p in descendants(sshd.proc.pid)
                 if roots[0] + " " in open(f"/proc/{p}/cmdline").read().replace("\0", " ")
                 and "--model" in open(f"/proc/{p}/cmdline").read()]
        if not watch:
            sys.exit("no remote watch for h1")
        for p in watch:
            os.kill(p, signal.SIGSTOP)
        t0 = time.monotonic()
        during = latency(con, roots, 10, on=2)
        stale = None
        while time.monotonic() - t0 < 60:
            if "h1 stale" in header(con):
                stale = time.monotonic() - t0
                break
            time.sleep(0.25)
        for p in watch:
            try:
                os.kill(p, signal.SIGCONT)
            except OSError:
                pass
        print(f"  dead host h1 (its remote watch stopped):")
        print(f"    marked stale after            {stale if stale is None else f'{stale:.1f} s'} (goal: within 35 s)")
        print(f"    h2 write -> screen meanwhile  median {during['median'] and round(during['median'], 1)} ms, "
              f"p95 {during['p95'] and round(during['p95'], 1)} ms, missed {during['missed']}")
        con.stop()
    finally:
        if sshd:
            sshd.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
