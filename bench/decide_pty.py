#!/usr/bin/env python3
"""Measure deciding in the console as a user's terminal sees it, through a pty.

    bench/decide_pty.py [QUESTIONS]        (default 20)

Builds the release binary (`cargo build --release`; set CARGO_BUILD_JOBS=1
on a busy machine), generates a workspace of QUESTIONS PRD-master projects
(copies of examples/workspace/prd-master/stale-snapshot, each with one
frontier question whose title carries a tag `[qNN]`), starts the console
once (`--now` fixed, the audit log in a temp XDG_STATE_HOME) and:

  1. Cold start: from the program's start, answers the first question of
     the inbox the shortest way (i, a, the text, Ctrl-S, w) and prints the
     keys pressed (the typed text counted apart).
  2. For every other question: selects it (the inbox filter `/[qNN]`
     Enter), `a`, types a short answer, Ctrl-S, waits for the diff
     (`+++ b/state.json`), then times from writing `w` to the first screen
     update that shows the result (the status line's "· wrote"), and to
     the screen showing the project read again (the answered item gone
     from the filtered inbox). Prints median / p95 / max of each.
  3. Baseline: there is no earlier build with decisions in the console, so
     no `--baseline BIN`. Instead the same write made headless,
     `loopdeck act DIR answer OQ-5 TEXT` (process start to exit), on a
     second copy of every project; prints its median / p95 / max and the
     console's median as a ratio of it.

The screen is kept by a small terminal model (cursor moves, text, wide
characters; colours off with NO_COLOR) fed with the bytes the console
writes, so the waits see what a terminal would show, not byte fragments.
Each run checks the file afterwards (the answer is in state.json).
"""
import codecs, fcntl, json, os, pty, re, select, shutil, signal, struct, subprocess, sys, tempfile, termios, time, unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(sys.argv[1]) if len(sys.argv) > 1 else 20
W, H = 160, 50
NOW = "2026-06-01T12:00:00Z"
TEMPLATE = os.path.join(ROOT, "examples/workspace/prd-master/stale-snapshot")
TITLE = "单日预算调整幅度上限是否设为 ±20%"
QID = "OQ-5"


def tag(i):
    return f"[q{i:02d}]"


def generate(ws):
    for i in range(N):
        d = os.path.join(ws, f"bench-{i:02d}")
        shutil.copytree(TEMPLATE, d)
        p = os.path.join(d, "state.json")
        text = open(p, encoding="utf-8").read()
        text = text.replace(TITLE, TITLE.replace("是否", f" {tag(i)} 是否"))
        text = text.replace('"stale-snapshot"', f'"bench-{i:02d}"')
        # Distinct ages, so the inbox order is fixed.
        text = re.sub(r'"last_updated_at_utc": "[^"]*"',
                      f'"last_updated_at_utc": "2026-05-{i % 28 + 1:02d}T09:45:00Z"', text, count=1)
        open(p, "w", encoding="utf-8").write(text)


def width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


class Screen:
    """The subset of a VT100 a ratatui/crossterm frame uses: CSI H moves,
    CSI J/K clears, SGR and modes ignored, text at the cursor."""

    CSI = re.compile(r"\x1b\[([\x30-\x3f]*)[\x20-\x2f]*([\x40-\x7e])")
    PARTIAL = re.compile(r"\x1b(\[[\x20-\x3f]*)?$")

    def __init__(self):
        self.rows = [[" "] * W for _ in range(H)]
        self.y = self.x = 0
        self.pending = ""
        self.decode = codecs.getincrementaldecoder("utf-8")("replace").decode

    def feed(self, data):
        s = self.pending + self.decode(data)
        self.pending = ""
        i, start = 0, 0
        while i < len(s):
            ch = s[i]
            if ch == "\x1b":
                self.put(s[start:i])
                m = self.CSI.match(s, i)
                if m:
                    self.csi(m.group(1), m.group(2))
                    i = start = m.end()
                    continue
                if self.PARTIAL.match(s, i):
                    self.pending = s[i:]
                    return
                i = start = i + 2  # ESC x (ESC 7, ESC 8, ...): ignored
                continue
            if ch in "\r\n\b\x07":
                self.put(s[start:i])
                if ch == "\r":
                    self.x = 0
                elif ch == "\n":
                    self.y = min(self.y + 1, H - 1)
                start = i + 1
            i += 1
        self.put(s[start:])

    def put(self, text):
        for ch in text:
            w = width(ch)
            if w == 0 or not (0 <= self.y < H):
                continue
            if self.x < W:
                self.rows[self.y][self.x] = ch
                if w == 2 and self.x + 1 < W:
                    self.rows[self.y][self.x + 1] = ""
            self.x += w

    def csi(self, params, final):
        if params[:1] in ("?", ">", "<", "="):
            return
        nums = [int(p) if p else 0 for p in params.split(";")] if params else []
        if final in "Hf":
            row = nums[0] if nums else 1
            col = nums[1] if len(nums) > 1 else 1
            self.y, self.x = max(row, 1) - 1, max(col, 1) - 1
        elif final == "J":
            if (nums[0] if nums else 0) == 2:
                self.rows = [[" "] * W for _ in range(H)]
        elif final == "K":
            for x in range(self.x, W):
                self.rows[self.y][x] = " "
        elif final == "G":
            self.x = max(nums[0] if nums else 1, 1) - 1
        elif final == "C":
            self.x += nums[0] if nums else 1
        elif final == "D":
            self.x = max(self.x - (nums[0] if nums else 1), 0)
        elif final == "A":
            self.y = max(self.y - (nums[0] if nums else 1), 0)
        elif final == "B":
            self.y = min(self.y + (nums[0] if nums else 1), H - 1)

    def text(self):
        return "\n".join("".join(r) for r in self.rows)


class Console:
    def __init__(self, binary, ws, state):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["NO_COLOR"] = "1"
            os.environ["TERM"] = "xterm-256color"
            os.environ["XDG_CONFIG_HOME"] = "/nonexistent-loopdeck-bench-config"
            os.environ["XDG_STATE_HOME"] = state
            os.execv(binary, [binary, ws, "--now", NOW])
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", H, W, 0, 0))
        self.screen = Screen()
        self.keys_sent = 0

    def send(self, data, keys=1):
        os.write(self.fd, data)
        self.keys_sent += keys

    def type(self, text):
        # Text typed by a person: one key per character.
        for ch in text:
            os.write(self.fd, ch.encode())

    def wait(self, ok, what, timeout=10.0):
        """Read until the screen satisfies `ok`; the time it did."""
        end = time.monotonic() + timeout
        while True:
            if ok(self.screen.text()):
                return time.monotonic()
            left = end - time.monotonic()
            if left <= 0:
                sys.exit(f"never saw {what}; screen:\n{self.screen.text()}")
            r, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if r:
                try:
                    chunk = os.read(self.fd, 1 << 16)
                except OSError:
                    sys.exit("the console exited")
                self.screen.feed(chunk)
                if ok(self.screen.text()):
                    return time.monotonic()

    def wait_for(self, needle, timeout=10.0):
        return self.wait(lambda s: needle in s, repr(needle), timeout)

    def stop(self):
        os.kill(self.pid, signal.SIGTERM)
        os.waitpid(self.pid, 0)


CTRL_S, ENTER, CTRL_U = b"\x13", b"\r", b"\x15"


def answered(ws, i, text):
    state = json.load(open(os.path.join(ws, f"bench-{i:02d}", "state.json"), encoding="utf-8"))
    return any(e.get("question_id") == QID and e.get("answer") == text
               for e in state.get("user_inputs_log", []))


def stats(xs):
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, max(0, round(0.95 * len(xs)) - 1))]
    return xs[len(xs) // 2], p95, xs[-1]


def ms(t):
    return f"{t * 1000:.1f} ms"


def main():
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    binary = os.path.join(ROOT, "target/release/loopdeck")
    tmp = tempfile.mkdtemp()
    try:
        ws, headless = os.path.join(tmp, "ws"), os.path.join(tmp, "headless")
        state = os.path.join(tmp, "state")
        generate(ws)
        generate(headless)
        c = Console(binary, ws, state)
        start = time.monotonic()
        c.wait_for(f"{N} projects", timeout=30)

        # 1. Cold start: the inbox's first item (the oldest: [q00]).
        cold = "cold start answer"
        c.send(b"i")
        c.send(b"a")
        c.type(cold)
        c.wait_for(cold)
        c.send(CTRL_S)
        c.wait_for("+++ b/state.json")
        c.send(b"w")
        t_done = c.wait_for("· wrote")
        if not answered(ws, 0, cold):
            sys.exit("the cold-start answer is not in bench-00/state.json")
        cold_keys = c.keys_sent

        # 2. Every other question, selected by its tag.
        times, reread = [], []
        for i in range(1, N):
            text = f"answer {i}"
            c.send(b"/", 0); c.send(CTRL_U, 0)
            c.type(tag(i)); c.send(ENTER, 0)
            c.wait_for(f"/{tag(i)} · 1 ")
            c.send(b"a", 0)
            c.type(text)
            c.wait_for(text)
            c.send(CTRL_S, 0)
            c.wait_for("+++ b/state.json")
            t0 = time.monotonic()
            c.send(b"w", 0)
            t1 = c.wait_for("· wrote")
            times.append(t1 - t0)
            # The project read again: the answered item leaves the
            # filtered inbox.
            t2 = c.wait(lambda s, i=i: f"/{tag(i)} · 1 " not in s, "the item gone")
            reread.append(t2 - t0)
            if not answered(ws, i, text):
                sys.exit(f"bench-{i:02d}: the answer is not in state.json")
            # The status line lasts until the next key: clear it so the
            # next wait for "· wrote" sees the next write.
            c.send(b"j", 0)
            c.wait(lambda s: "· wrote" not in s, "the status cleared")
        c.stop()

        # 3. The headless command doing the same write.
        env = dict(os.environ, NO_COLOR="1", XDG_STATE_HOME=os.path.join(tmp, "state-headless"),
                   XDG_CONFIG_HOME="/nonexistent-loopdeck-bench-config")
        act = []
        for i in range(1, N):
            d = os.path.join(headless, f"bench-{i:02d}")
            t0 = time.monotonic()
            subprocess.run([binary, "act", d, "answer", QID, f"answer {i}", "--now", NOW],
                           env=env, check=True, stdout=subprocess.DEVNULL)
            act.append(time.monotonic() - t0)
            if not answered(headless, i, f"answer {i}"):
                sys.exit(f"headless bench-{i:02d}: the answer is not in state.json")

        med, p95, mx = stats(times)
        rmed, rp95, rmx = stats(reread)
        amed, ap95, amx = stats(act)
        print(f"questions                 {N} (PRD-master projects, one frontier question each)")
        print(f"cold start                {cold_keys} keys + the answer's {len(cold)} characters "
              f"(i, a, text, Ctrl-S, w); {ms(t_done - start)} from start with the keys sent as fast as the screen allowed")
        print(f"w to the updated screen   median {ms(med)} · p95 {ms(p95)} · max {ms(mx)} over {len(times)} writes")
        print(f"w to the item gone        median {ms(rmed)} · p95 {ms(rp95)} · max {ms(rmx)} (the project read again and redrawn)")
        print(f"loopdeck act (headless)   median {ms(amed)} · p95 {ms(ap95)} · max {ms(amx)} over {len(act)} runs (process start to exit)")
        print(f"console / headless        {med / amed:.2f}x (medians)")
        print("baseline build            none: no earlier build decides in the console; the headless act is the baseline")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
