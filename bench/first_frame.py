#!/usr/bin/env python3
"""Time the console's first frame that shows the project list (issue 23),
and `list --cached` against `list`, on one workspace, in one run.

    bench/first_frame.py WORKSPACE [--binary BIN] [--runs N]

For the console, with no snapshot (a fresh state directory: the list shows
once the whole reading is done) and with the snapshot of the last run
(kept by a first run that read everything and quit: the list shows at
once, marked refreshing). Each figure is the median of N runs (3); the
page cache is warmed first by one `list`. Also prints the snapshot's size.

Importable: `first_frame_ms(binary, roots, env) -> float` is the time
from exec to the first byte of a frame whose header counts projects
(`N projects`, N > 0), on a pty of 200x60 (a bench script that prints
every speed row reuses it).

Generate a workspace with `bench/gen_workspace.py /tmp/ws10k --projects
10000` (a few minutes, ~2 GB; delete it after).
"""
import argparse, fcntl, glob, os, pty, re, select, shutil, signal, statistics, struct
import subprocess, sys, tempfile, termios, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W, H = 200, 60
# The header's count: a frame skips the cells it leaves blank, so the
# space may be a cursor move.
COUNT = re.compile(rb"(\d+)(?: |\x1b\[\d+;\d+H)projects?")


def _read_until(fd, found, timeout):
    """Read the pty until `found(buffer)` is true; (time seen, buffer), or
    (None, buffer) at the timeout or when the child is gone."""
    buf = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.01)
        if not r:
            continue
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            return None, buf
        if not chunk:
            return None, buf
        t = time.monotonic()
        # A terminal answers a cursor-position query: so does this one.
        if b"\x1b[6n" in chunk:
            try:
                os.write(fd, b"\x1b[1;1R")
            except OSError:
                pass
        buf += chunk
        if found(buf):
            return t, buf
    return None, buf


def _spawn(binary, args, env):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.clear()
        os.environ.update(env)
        os.execv(binary, [binary] + args)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", H, W, 0, 0))
    return pid, fd


def _quit(pid, fd, timeout=60):
    """`q`, then wait for the console to end (it keeps its snapshot on the
    way out); killed after `timeout`."""
    try:
        os.write(fd, b"q")
    except OSError:
        pass
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        # Keep reading: a terminal that stops reading stalls the console.
        _read_until(fd, lambda b: False, 0.05)
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            os.close(fd)
            return
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(fd)


def _shows_list(buf):
    return any(int(m.group(1)) > 0 for m in COUNT.finditer(buf))


def _env(env):
    base = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
        "LC_ALL": "C.UTF-8",
        "XDG_CONFIG_HOME": "/nonexistent-loopdeck-bench-config",
    }
    base.update(env or {})
    return base


def first_frame_ms(binary, roots, env):
    """Milliseconds from exec to the first frame showing the list (its
    header counts the projects) of `binary ROOTS...` on a pty, with `env`
    (e.g. XDG_STATE_HOME) over a neutral environment. The console is then
    quit with `q` (and waited for)."""
    t0 = time.monotonic()
    pid, fd = _spawn(binary, list(roots), _env(env))
    t, _ = _read_until(fd, _shows_list, 300)
    _quit(pid, fd)
    if t is None:
        raise RuntimeError("the list never showed")
    return (t - t0) * 1000


def keep_snapshot(binary, roots, state):
    """Run the console until its whole reading shows, then quit: the
    snapshot of `roots` is in `state` (XDG_STATE_HOME)."""
    pid, fd = _spawn(binary, list(roots), _env({"XDG_STATE_HOME": state}))
    # No snapshot there yet: the list shows once the reading is done.
    t, _ = _read_until(fd, _shows_list, 600)
    _quit(pid, fd)
    if t is None:
        raise RuntimeError("the reading never showed")
    files = glob.glob(os.path.join(state, "loopdeck", "snapshot-*.json"))
    if not files:
        raise RuntimeError("no snapshot kept")
    return files[0]


def wall_ms(argv, env):
    t0 = time.monotonic()
    p = subprocess.run(argv, env=_env(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ms = (time.monotonic() - t0) * 1000
    if p.returncode != 0:
        raise RuntimeError(f"{argv[1:3]} exited {p.returncode}")
    return ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workspace")
    ap.add_argument("--binary", default=None)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    binary = a.binary
    if binary is None:
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        binary = os.path.join(target, "release", "loopdeck")
    roots = [os.path.abspath(a.workspace)]
    tmp = tempfile.mkdtemp(prefix="loopdeck-first-frame-")
    try:
        # Warm the page cache (the figures are of loopdeck, not the disk).
        wall_ms([binary, "list", *roots], {"XDG_STATE_HOME": os.path.join(tmp, "warm")})
        cold = []
        for i in range(a.runs):
            cold.append(first_frame_ms(binary, roots, {"XDG_STATE_HOME": os.path.join(tmp, f"none{i}")}))
        state = os.path.join(tmp, "kept")
        snap = keep_snapshot(binary, roots, state)
        warm = [first_frame_ms(binary, roots, {"XDG_STATE_HOME": state}) for _ in range(a.runs)]
        env = {"XDG_STATE_HOME": state}
        lst = [wall_ms([binary, "list", "--json", *roots], env) for _ in range(a.runs)]
        cached = [wall_ms([binary, "list", "--cached", "--json", *roots], env) for _ in range(a.runs)]
        med = statistics.median
        print(f"first frame, no snapshot      {med(cold):8.0f} ms   (runs: {', '.join(f'{x:.0f}' for x in cold)})")
        print(f"first frame, from snapshot    {med(warm):8.0f} ms   (runs: {', '.join(f'{x:.0f}' for x in warm)})")
        print(f"list --json                   {med(lst):8.0f} ms")
        print(f"list --cached --json          {med(cached):8.0f} ms")
        print(f"snapshot size                 {os.path.getsize(snap) / 1e6:8.2f} MB   ({os.path.basename(snap)})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
