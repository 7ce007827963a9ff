#!/usr/bin/env python3
"""What breaks first at 100,000 projects (issue 23): one run, this build.

    bench/scale.py [--projects N] [--keep DIR] [--limit WATCHES]

On N small PRD-master projects (bench/gen_workspace.py --small):
  - `list --json`: wall, CPU and peak memory (medians of 3);
  - the console's first start: the list drawn, its resident memory, its
    inotify watches and what its header says of them, its CPU while idle;
  - its second start, drawn from the snapshot the first kept, the
    snapshot's size, and `list --cached --json`;
  - with --limit (root: writes /proc/sys/fs/inotify/max_user_watches for
    the run, then puts it back), a console that meets the watch limit: what
    its header says, and the CPU of polling N projects while idle.
"""
import argparse, glob, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import speed  # noqa: E402
from live import cpu_seconds, rss_mib, inotify_watches  # noqa: E402

LIMIT = "/proc/sys/fs/inotify/max_user_watches"


def screen_has(con, token):
    with con.lock:
        return token in b"".join(b for _, b in con.chunks)


def idle_cpu(con, seconds):
    c0, w0 = cpu_seconds(con.pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(con.pid) - c0) / (time.monotonic() - w0) * 100


def console(binary, ws, n, state, idle_s):
    con, t0 = speed.start_console(binary, [ws], state)
    shown = speed.loaded(con, n, t0, timeout=900)
    time.sleep(3.0)
    out = {"shown_s": shown, "rss_mib": rss_mib(con.pid), "watches": inotify_watches(con.pid)}
    # The watcher settles after the reading: wait for its word.
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not (screen_has(con, b"live") or screen_has(con, b"polling")):
        time.sleep(0.2)
    out["live"] = screen_has(con, "● live".encode())
    out["polling"] = screen_has(con, b"polling")
    # After the list is drawn the console still writes its memories
    # (seen, first-seen, the snapshot) and adds its watches: settled once
    # a second passes with under 5% of a core used (at most 120 s).
    last, settle = cpu_seconds(con.pid), time.monotonic()
    while time.monotonic() - settle < 120:
        time.sleep(1.0)
        now = cpu_seconds(con.pid)
        if now - last < 0.05:
            break
        last = now
    out["settled_s"] = time.monotonic() - t0 - shown
    out["watches"] = inotify_watches(con.pid)
    out["idle_cpu_pct"] = idle_cpu(con, idle_s)
    deadline = time.monotonic() + 300
    while not glob.glob(os.path.join(state, "loopdeck", "snapshot-*.json")):
        if time.monotonic() > deadline:
            break
        time.sleep(0.2)
    con.stop()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--projects", type=int, default=100_000)
    ap.add_argument("--keep")
    ap.add_argument("--limit", type=int)
    # Long enough to hold several polls' readings at 100,000 projects (a
    # 30-s window can fall between two of them and read 5% for 31%).
    ap.add_argument("--idle", type=float, default=90.0)
    a = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    this = os.path.join(ROOT, "target", "release", "loopdeck")
    tmp = a.keep or tempfile.mkdtemp(prefix="loopdeck-scale-")
    n = a.projects
    ws = os.path.join(tmp, f"small{n}")
    speed.generate(ws, n, small=True)
    print(f"{n:,} small PRD-master projects ({ws}); fs.inotify.max_user_watches = "
          f"{open(LIMIT).read().strip()}")

    runs = []
    for _ in range(3):
        t0 = time.monotonic()
        p = subprocess.Popen([this, "list", ws, "--json", "--now", speed.NOW],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        runs.append((time.monotonic() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024))
    med = [statistics.median(r[j] for r in runs) for j in range(3)]
    print(f"  list --json                 wall {med[0]:6.2f} s   CPU {med[1]:6.2f} s   "
          f"peak {med[2]:6.0f} MiB")

    state = speed.fresh_state(tmp, "scale")
    first = console(this, ws, n, state, a.idle)
    print(f"  console, first start       list drawn {first['shown_s']:6.2f} s   "
          f"resident {first['rss_mib']:6.0f} MiB   inotify watches {first['watches']:,}   "
          f"header {'● live' if first['live'] else 'polling' if first['polling'] else '?'}   "
          f"settled {first['settled_s']:.0f} s after   then idle CPU {first['idle_cpu_pct']:.2f}%")
    snaps = glob.glob(os.path.join(state, "loopdeck", "snapshot-*.json"))
    if snaps:
        second = console(this, ws, n, state, 1.0)
        print(f"  console, second start      list drawn {second['shown_s']:6.2f} s   "
              f"(snapshot {os.path.getsize(snaps[0]) / 1e6:.2f} MB)")
        env = dict(os.environ, XDG_STATE_HOME=state, XDG_CONFIG_HOME=state + "-no-config")
        t0 = time.monotonic()
        subprocess.run([this, "list", "--cached", "--json", ws], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env, check=False)
        print(f"  list --cached --json        wall {time.monotonic() - t0:6.2f} s")
    else:
        print("  (no snapshot kept: no second start)")

    if a.limit:
        old = open(LIMIT).read().strip()
        try:
            open(LIMIT, "w").write(str(a.limit))
            capped = console(this, ws, n, speed.fresh_state(tmp, "scale-limit"), a.idle)
        finally:
            open(LIMIT, "w").write(old)
        print(f"  watch limit {a.limit:,}:        list drawn {capped['shown_s']:6.2f} s   "
              f"resident {capped['rss_mib']:6.0f} MiB   header "
              f"{'polling' if capped['polling'] else '● live' if capped['live'] else '?'}   "
              f"idle CPU (polling) {capped['idle_cpu_pct']:.2f}%")


if __name__ == "__main__":
    main()
