#!/usr/bin/env python3
"""Measure the console as a user's terminal sees it, through a pty.

Over a generated workspace of N projects (half PRD-master, half GSD):
  - time from start to the first frame that shows the loaded projects
  - resident memory once loaded
  - CPU used while idle for IDLE seconds (target: below 0.5% of a core)
  - bytes sent to the terminal when one project's file changes
    (one row of the list changes; what matters over SSH)
The frame render time is measured by `cargo bench --bench render`.

    bench/tui_measure.py [PROJECTS] [IDLE_SECONDS]
"""
import os, pty, select, shutil, signal, subprocess, sys, tempfile, time, fcntl, termios, struct, re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
IDLE = float(sys.argv[2]) if len(sys.argv) > 2 else 30.0
W, H = 200, 60

def generate(ws):
    prd = os.path.join(ROOT, "examples/workspace/prd-master/fba-smart-restock/state.json")
    gsd = os.path.join(ROOT, "examples/workspace/gsd/paused-waiting/.planning/STATE.md")
    prd_text, gsd_text = open(prd, encoding="utf-8").read(), open(gsd, encoding="utf-8").read()
    for i in range(N // 2):
        d = os.path.join(ws, "prd", f"p{i:04d}"); os.makedirs(d)
        open(os.path.join(d, "state.json"), "w", encoding="utf-8").write(
            prd_text.replace("fba-smart-restock", f"restock-{i:04d}").replace("2026-06-01T11:30:00Z", f"2026-05-{i % 28 + 1:02d}T11:30:00Z"))
    for i in range(N - N // 2):
        d = os.path.join(ws, "gsd", f"repo{i:04d}", ".planning"); os.makedirs(d)
        open(os.path.join(d, "STATE.md"), "w", encoding="utf-8").write(
            re.sub(r"last_updated: .*", f'last_updated: "2026-05-{i % 28 + 1:02d}T09:56:00.000Z"', gsd_text))

def read_for(fd, seconds, until=None):
    out = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.02)
        if r:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                break
            out += chunk
            if until and until in out:
                return out, time.monotonic()
    return out, None

def cpu_ticks(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])  # utime + stime, in clock ticks

def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

def main():
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    binary = os.path.join(ROOT, "target/release/loopdeck")
    ws = tempfile.mkdtemp()
    try:
        generate(ws)
        pid, fd = pty.fork()
        if pid == 0:
            os.environ["NO_COLOR"] = "1"
            os.environ["TERM"] = "xterm-256color"
            os.execv(binary, [binary, ws])
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", H, W, 0, 0))
        start = time.monotonic()
        shown = f"{N} projects".encode()
        out, t_first = read_for(fd, 30, until=shown)
        if t_first is None:
            print("never saw the loaded frame", file=sys.stderr); sys.exit(1)
        read_for(fd, 1.0)  # let it settle
        rss = rss_kib(pid)
        ticks0, t0 = cpu_ticks(pid), time.monotonic()
        idle_out, _ = read_for(fd, IDLE)
        ticks1, t1 = cpu_ticks(pid), time.monotonic()
        hz = os.sysconf("SC_CLK_TCK")
        idle_cpu = (ticks1 - ticks0) / hz / (t1 - t0) * 100
        # Change one project in view (the newest, at the top of the list):
        # its name, so exactly one row of the list changes. Written as agents
        # write: a temp file renamed over the state file.
        newest = 27  # the generator gives p0027 the latest update
        target = os.path.join(ws, "prd", f"p{newest:04d}", "state.json")
        text = open(target, encoding="utf-8").read().replace(f"restock-{newest:04d}", f"restock-{newest:04d}-renamed")
        t_write = time.monotonic()
        with open(target + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(target + ".tmp", target)
        change_out, t_seen = read_for(fd, 2.0, until=b"-renamed")
        rest, _ = read_for(fd, 0.5)
        change_out += rest
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        print(f"projects            {N}")
        print(f"start to first frame {(t_first - start) * 1000:.0f} ms (loaded list on screen)")
        print(f"resident memory     {rss / 1024:.1f} MiB")
        print(f"idle CPU over {IDLE:.0f} s  {idle_cpu:.3f}% of a core ({len(idle_out)} bytes drawn while idle)")
        latency = f"{(t_seen - t_write) * 1000:.0f} ms" if t_seen else "not seen"
        print(f"one row changes     {len(change_out)} bytes sent to the terminal; on screen after {latency}")
    finally:
        shutil.rmtree(ws, ignore_errors=True)

main()
