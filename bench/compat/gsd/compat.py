#!/usr/bin/env python3
"""GSD compatibility suite: loopdeck's GSD writes, read by GSD's own code.

For every real STATE.md (LF and CRLF copies) it applies each loopdeck verb
(add-decision, add-decision --rationale, add-blocker, answer, answer to a
WAITING.json that gsd-tools wrote under .gsd/, resolve-blocker) with ordinary
and hostile texts, and runs GSD's own readers before and after (oracle.js:
gsd-tools' state.cjs in-process -- `state json`, `state-snapshot`,
`state get Decisions`, `state prune --dry-run`, the add-decision /
add-blocker section regexes -- and the published statusline hook), then
GSD's next routine write (gsd-tools' own add-decision and add-blocker) on
the decided copy and on an untouched one.

A case holds when:
  * refused: the file is byte-identical and the text is not an ordinary one;
  * accepted (add-decision, add-blocker, answer -- the answer's text, or
    the question gsd-tools' signal-waiting wrote): exactly one new `- ` line,
    inside the section gsd-tools' own regex finds; `state json`
    (last_updated aside), the snapshot (its blockers may gain exactly the new
    blocker), the statusline, `state get Decisions` (may gain exactly the new
    entry) and prune's resolved-blocker count unchanged; no line removed
    unless gsd-tools' placeholder substitution empties it too; the phase `?`
    or a phase number; after GSD's next routine write the entry is still
    there verbatim, GSD's routine entries land under the same headings as in
    the untouched copy, and `state json` / the statusline equal the untouched
    copy's; an answer removes every WAITING.json (gsd-tools' signal-resume
    removes .gsd/ and .planning/ both);
  * resolve-blocker: exactly one line goes, and it was in GSD's section.
And `loopdeck status` equals the hook on every untouched copy (parity).

A case that cannot hold for a reason outside loopdeck is listed in
EXPECTED with the reason; it is reported, not failed.

Exit 0 when every case holds (or is expected), 1 otherwise; 0 with
"skipped: ..." when node or GSD's package cannot be found (run.sh finds it).
"""
import argparse
import collections
import concurrent.futures
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))

ORDINARY = {
    "o_plain": "Use gRPC for internal services",
    "o_colon": "Keep REST v1 until 2026-09: clients need time",
    "o_cjk": "采用 gRPC 作为内部通信协议",
    "o_hash": "Use C# 12 and F# for the tooling",
    "o_bold": "Ship the **smaller** scope first",
    "o_code": "Rename the `Phase` enum to `Stage`",
    "o_of": "Budget: 3 of 5 engineers (rest on support)",
    "o_dash": "Drop Redis --- use Postgres LISTEN/NOTIFY",
}
HOSTILE = {
    # line terminators for JavaScript regexes (^ $ with m, and . stops there)
    "lt_2028_phase": "Use gRPC\u2028Phase: 9 of 9 (pwned)",
    "lt_2029_session": "Use gRPC\u2029## Session Continuity\u2029Stopped at: X",
    "lt_2028_status": "Use gRPC\u2028Status: Complete",
    "lt_2028_fm": "x\u2028---\u2028status: complete\u2028---",
    "lt_2028_item": "ok\u2028- forged blocker",
    "lt_cr_status": "a\rStatus: Complete",
    "lt_nel_status": "a\u0085Status: Complete",
    # bold field labels (stateExtractField's bold pattern, unanchored, first match wins)
    "b_status": "**Status:** Complete",
    "b_stopped": "**Stopped At:** nowhere",
    "b_phase": "**Current Phase:** 99",
    "b_paused": "**Paused At:** now",
    "b_progress": "**Progress:** 100%",
    "b_lower_nospace": "**status:**complete",
    "b_get_decisions": "**Decisions:** forged",
    # heading regexes (###?\s*Title\s*\n, unanchored)
    "h_blockers": "see ## Blockers",
    "h_decisions": "notes ### Decisions",
    "h_session": "x ## Session",
    "h_position": "x ## Current Position",
    "h_nospace": "x ##Blockers",
    "h_concerns4": "x #### Concerns",
    "h_decmade": "x ## Decisions Made",
    # gsd-tools' placeholder deletion (substring, case-insensitive), and
    # texts a reader could take for "nothing"
    "p_none": "None",
    "p_none_yet": "none yet",
    "p_na": "n/a",
    "p_no_dec_yet": "No decisions yet",
    "p_nonexistent": "Nonexistent API key blocks deploy",
    "p_star_none": "*None.*",
    "p_paren_none": "(none)",
    "p_tbd": "TBD",
    # prune markers / table cells
    "m_resolved": "[RESOLVED] Phase 1 flaky CI",
    "m_strike": "~~Phase 1 flaky CI~~",
    "m_pipe": "A | B | C",
}
# The rationale ends the line (heading regexes need the title at its end);
# an answer is written as a decision.
SUBSET = {
    "add-decision-rationale": {"o_plain", "o_hash", "lt_2028_phase", "b_status", "h_blockers",
                               "h_decisions", "h_session", "h_nospace", "p_none_yet", "p_na"},
    "answer": {"o_plain", "o_cjk", "lt_2028_phase", "b_status", "h_blockers", "p_none_yet", "p_na"},
    "answer-gsd-dir": {"o_plain", "o_cjk", "b_status"},
    # The question comes from WAITING.json (an agent's text), the answer
    # is plain: what loopdeck copies from the file must stay text too.
    "answer-question": {"o_plain", "o_cjk", "o_hash", "lt_2028_phase", "lt_2029_session",
                        "b_status", "b_paused", "b_get_decisions", "h_blockers", "h_decmade",
                        "p_none_yet", "p_no_dec_yet", "m_resolved"},
}
# --quick: one or two texts of each family.
QUICK = {"o_plain", "o_cjk", "o_hash", "lt_2028_phase", "lt_2029_session", "b_status", "b_paused",
         "h_blockers", "h_decmade", "p_none_yet", "p_na", "p_star_none", "m_resolved"}
RESOLVE_HOSTILE = {"r_dash": "-", "r_phase": "Phase", "r_e": "e"}
FAMILIES = {"o": "ordinary", "lt": "line terminators", "b": "bold labels", "h": "## headings",
            "p": "placeholders", "m": "prune/table markers", "r": "resolve needles"}
VERBS = ("add-decision", "add-decision-rationale", "add-blocker", "answer", "answer-gsd-dir",
         "answer-question")

# Cases that cannot hold for a reason outside loopdeck: (file substring or
# "", eol or "", verb or "", text id or "", failure substring, reason).
EXPECTED = [
]

NOW = "2026-06-01T12:00:00Z"
PHASE_RE = re.compile(r"\d+[A-Z]?(?:\.\d+)*(?:-\d+)*")


def lines_of(b):
    return [l.rstrip("\r") for l in b.decode("utf-8", "replace").split("\n")]


def added_removed(before, after):
    a, b = lines_of(before), lines_of(after)
    add, rem = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            rem += a[i1:i2]
        if op in ("replace", "insert"):
            add += b[j1:j2]
    return add, rem


def gsd_placeholder_residue(line, kind):
    """What gsd-tools' add-blocker / add-decision placeholder substitution leaves of `line`."""
    t = line + "\n"
    if kind == "blocker":
        t = re.sub(r"None\.?\s*\n?", "", t, flags=re.I)
        t = re.sub(r"None yet\.?\s*\n?", "", t, flags=re.I)
    else:
        t = re.sub(r"None yet\.?\s*\n?", "", t, flags=re.I)
        t = re.sub(r"No decisions yet\.?\s*\n?", "", t, flags=re.I)
    return t


def heading_above(b, line):
    """The nearest line starting with `#` above `line`."""
    ls = lines_of(b)
    if line not in ls:
        return None
    i = ls.index(line)
    return next((l for l in reversed(ls[:i]) if l.startswith("#")), "")


def escaped(text):
    """The text as loopdeck's text rule writes it (crates/loopdeck-core/src/formats/gsd/text.rs):
    `:**` -> `\\:**`, `##` -> `#\\#`, `[RESOLVED]` -> `\\[RESOLVED\\]`."""
    t = text.strip()
    parts = t.split("`")
    out = []
    for i, seg in enumerate(parts):
        if i % 2 == 1 and i < len(parts) - 1:
            out.append(seg)
            continue
        seg = seg.replace(":**", "\\:**")
        seg = re.sub(r"#(#+)", lambda m: "#" + "\\#" * len(m.group(1)), seg)
        seg = re.sub(r"\[(RESOLVED)\]", r"\\[\1\\]", seg, flags=re.I)
        out.append(seg)
    return "`".join(out)


class Oracle:
    def __init__(self, package):
        self.p = subprocess.Popen(
            ["node", os.path.join(HERE, "oracle.js"), package],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def ask(self, req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("oracle.js stopped")
        return json.loads(line)

    def read(self, d):
        return self.ask({"op": "read", "dir": d})

    def write(self, d, kind, text):
        return self.ask({"op": "write", "dir": d, "kind": kind, "text": text})

    def wait(self, d, question, options):
        return self.ask({"op": "wait", "dir": d, "question": question, "options": options,
                         "phase": None})

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def setup(src, dst, crlf, orc=None, waiting=None, question="Which transport?"):
    """A fresh copy of `src` in dst/.planning/STATE.md; `waiting`: "planning"
    (a WAITING.json as gsd-tools writes it there) or "gsd" (a .gsd/ folder,
    so gsd-tools' signal-waiting writes .gsd/WAITING.json)."""
    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(os.path.join(dst, ".planning"))
    data = open(src, "rb").read()
    if crlf:
        data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    with open(os.path.join(dst, ".planning", "STATE.md"), "wb") as f:
        f.write(data)
    if waiting == "gsd":
        os.makedirs(os.path.join(dst, ".gsd"))
    if waiting:
        orc.wait(dst, question, "")
    return os.path.join(dst, ".planning", "STATE.md")


def expected_reason(rec, fail):
    for fs_, eol, verb, tid, cause, reason in EXPECTED:
        if fs_ in rec["file"] and eol in rec["eol"] and verb in rec["verb"] \
                and tid in rec["text"] and cause in fail:
            return reason
    return None


class Runner:
    def __init__(self, a, env, work):
        self.a, self.env, self.work = a, env, work

    def loopdeck(self, args):
        p = subprocess.run([self.a.loopdeck] + args, env=self.env, capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def unit(self, name, eol, texts):
        """Every case of one file in one line ending, with its own oracle and folder."""
        a = self.a
        base = tempfile.mkdtemp(prefix="u.", dir=self.work)
        orc = Oracle(a.package)
        src = os.path.join(a.files, name, "STATE.md")
        crlf = eol == "crlf"
        results = []
        try:
            d = os.path.join(base, "p")
            setup(src, d, crlf)
            hook = orc.read(d)["hook"]
            rc, out, err = self.loopdeck(["status", d, "--now", NOW])
            parity = {"file": name, "eol": eol, "hook": hook, "loopdeck": out.rstrip("\n"),
                      "same": out.rstrip("\n") == hook}
            before_read = orc.read(d)
            blk = before_read["blk"]
            # GSD's routine writes on the untouched copy: the reference.
            ref = os.path.join(base, "r")
            setup(src, ref, crlf)
            orc.write(ref, "decision", "routine entry")
            orc.write(ref, "blocker", "routine entry")
            ref_read = orc.read(ref)
            ref_bytes = open(os.path.join(ref, ".planning", "STATE.md"), "rb").read()
            ctx = (orc, src, crlf, base, before_read, ref_read, ref_bytes)
            for verb in VERBS:
                for tid, text in texts.items():
                    if verb in SUBSET and tid not in SUBSET[verb] and not a.full:
                        continue
                    results.append(self.case(ctx, name, eol, verb, tid, text))
            items = [l[2:] for l in (blk or {}).get("body", "").replace("\r", "").split("\n")
                     if l.startswith("- ")] if blk else []
            if items:
                results.append(self.case(ctx, name, eol, "resolve-blocker", "r_own", items[0]))
                for tid, text in RESOLVE_HOSTILE.items():
                    if a.quick and tid != "r_dash":
                        continue
                    results.append(self.case(ctx, name, eol, "resolve-blocker", tid, text))
        finally:
            orc.close()
            shutil.rmtree(base, ignore_errors=True)
        return parity, results

    def case(self, ctx, name, eol, verb, tid, text):
        orc, src, crlf, base, _, rr, ref_bytes = ctx
        a = self.a
        d = os.path.join(base, "c")
        waiting = {"answer": "planning", "answer-gsd-dir": "gsd",
                   "answer-question": "planning"}.get(verb)
        if verb == "answer-question":
            st = setup(src, d, crlf, orc, waiting, question=text)
        else:
            st = setup(src, d, crlf, orc, waiting)
        before = open(st, "rb").read()
        rb = orc.read(d)
        opts = ["--now", NOW, "--by", "tester"]
        if verb == "add-decision-rationale":
            args = ["act", d, "add-decision"] + opts + ["--rationale", text, "--", "Use gRPC"]
        elif verb == "answer-gsd-dir":
            args = ["act", d, "answer"] + opts + ["--", text]
        elif verb == "answer-question":
            args = ["act", d, "answer"] + opts + ["--", "gRPC"]
        else:
            args = ["act", d, verb] + opts + ["--", text]
        rc, out, err = self.loopdeck(args)
        after = open(st, "rb").read()
        fails = []
        rec = {"file": name, "eol": eol, "verb": verb, "text": tid, "rc": rc,
               "msg": (err.strip().splitlines() or [""])[-1][:200]}
        ordinary = tid.startswith("o_") or tid == "r_own"
        if rc != 0:
            if after != before:
                fails.append("refused but file changed")
            if ordinary:
                fails.append("ordinary text refused")
            rec["fails"] = fails
            return rec
        ra = orc.read(d)
        add, rem = added_removed(before, after)
        rec["added"], rec["removed"] = add, rem
        body_add = [l for l in add if not l.startswith("last_updated:")]
        body_rem = [l for l in rem if not l.startswith("last_updated:")]
        kind = "blk" if verb in ("add-blocker", "resolve-blocker") else "dec"
        if verb == "resolve-blocker":
            if len(body_rem) != 1:
                fails.append("resolve removed %d lines" % len(body_rem))
            blk_b = (rb["blk"] or {}).get("body", "")
            if body_rem and not all(g in blk_b for g in body_rem):
                fails.append("resolved outside GSD's blockers section")
        else:
            entries = [l for l in body_add if l.startswith("- ")]
            if len(entries) != 1:
                fails.append("accepted but no entry written" if not entries
                             else "%d entry lines" % len(entries))
            sec = ra[kind]
            if entries and not (sec and entries[0] in sec["body"].replace("\r", "")):
                fails.append("entry not in GSD's %s section (%s)" % (
                    "blockers" if kind == "blk" else "decisions",
                    "file has none" if not rb[kind] else "written elsewhere"))
            if kind == "dec" and entries:
                m = re.match(r"- \[Phase ([^\]]*)\]:", entries[0])
                ph = m.group(1) if m else None
                if ph != "?" and not (ph and PHASE_RE.fullmatch(ph)):
                    fails.append("phase not a phase number: %r" % ph)
            for l in body_rem:
                left = gsd_placeholder_residue(l, "blocker" if kind == "blk" else "decision")
                if left.strip():
                    fails.append("line removed that gsd-tools keeps (it leaves %r)" % left.rstrip("\n"))
            if verb.startswith("answer"):
                for w in (".planning/WAITING.json", ".gsd/WAITING.json"):
                    if os.path.exists(os.path.join(d, w)):
                        fails.append("answered but %s left" % w)
        jb, ja = rb["json"], ra["json"]
        if jb != ja:
            keys = sorted(k for k in set(jb) | set(ja) if jb.get(k) != ja.get(k))
            fails.append("state json changed: " + ",".join(keys))
        sb, sa = dict(rb["snapshot"]), dict(ra["snapshot"])
        bb, ba = sb.pop("blockers", []), sa.pop("blockers", [])
        if sb != sa:
            keys = sorted(k for k in set(sb) | set(sa) if sb.get(k) != sa.get(k))
            fails.append("snapshot changed: " + ",".join(keys))
        if verb == "add-blocker":
            ok = ba == bb or ba == bb + [text.strip()] or ba == bb + [escaped(text)]
        elif verb == "resolve-blocker":
            ok = len(bb) - len(ba) <= 1 and all(x in bb for x in ba)
        else:
            ok = ba == bb
        if not ok:
            fails.append("snapshot blockers changed")
        if rb["hook"] != ra["hook"]:
            fails.append("statusline changed")
        gb, ga = rb["get_decisions"], ra["get_decisions"]
        if gb != ga:
            tb = (gb.get("Decisions") if isinstance(gb, dict) else None) or ""
            ta = (ga.get("Decisions") if isinstance(ga, dict) else None) or ""
            new = [l for l in body_add if l.startswith("- ")]
            rest = [l.rstrip("\r") for l in ta.split("\n") if l.rstrip("\r") not in new]
            if not (kind == "dec" and new
                    and [l.rstrip("\r") for l in tb.split("\n") if l.strip()]
                    == [l for l in rest if l.strip()]):
                fails.append("state get Decisions changed")

        def resolved_count(pr):
            if not isinstance(pr, dict):
                return 0
            return sum(s.get("entries_would_archive", 0) for s in pr.get("sections", [])
                       if s.get("section") == "Blockers (resolved)")
        if resolved_count(rb["prune"]) != resolved_count(ra["prune"]):
            fails.append("prune would archive it as a resolved blocker")
        if not a.no_survive:
            orc.write(d, "decision", "routine entry")
            orc.write(d, "blocker", "routine entry")
            rd = orc.read(d)
            txt = open(st, "rb").read()
            if verb != "resolve-blocker":
                entries = [l for l in body_add if l.startswith("- ")]
                if entries and entries[0] not in lines_of(txt):
                    fails.append("entry altered by GSD's next write")
            for what, line in (("decision", "- [Phase ?]: routine entry"),
                               ("blocker", "- routine entry")):
                if heading_above(ref_bytes, line) != heading_above(txt, line):
                    fails.append("GSD's next %s lands under another heading" % what)
            if rr["json"] != rd["json"]:
                keys = sorted(k for k in set(rr["json"]) | set(rd["json"])
                              if rr["json"].get(k) != rd["json"].get(k))
                fails.append("after GSD's next write: state json differs: " + ",".join(keys))
            if rr["hook"] != rd["hook"]:
                fails.append("after GSD's next write: statusline differs")
        rec["fails"] = fails
        return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loopdeck", required=True)
    ap.add_argument("--package", required=True, help="the unpacked get-shit-done-cc package")
    ap.add_argument("--files", required=True, help="folders each holding a real STATE.md")
    ap.add_argument("--only", default="", help="files whose name holds this")
    ap.add_argument("--json", default="", help="write every case here")
    ap.add_argument("--quick", action="store_true", help="a few texts of each family")
    ap.add_argument("--full", action="store_true", help="every text with every verb")
    ap.add_argument("--no-survive", action="store_true", help="skip GSD's next-write check")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--verbose", action="store_true", help="list every case not held")
    ap.add_argument("--work", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    a = ap.parse_args()
    if not shutil.which("node"):
        print("skipped: node is not installed (GSD's tools are JavaScript)")
        return 0
    if not os.path.exists(os.path.join(a.package, "get-shit-done/bin/lib/state.cjs")):
        print("skipped: %s is not get-shit-done-cc's package" % a.package)
        return 0
    work = tempfile.mkdtemp(prefix="gsdcompat.", dir=a.work)
    home = os.path.join(work, "home")
    os.makedirs(home)
    # loopdeck's audit log and config stay in the work folder.
    env = dict(os.environ, HOME=home, XDG_STATE_HOME=home + "/state",
               XDG_DATA_HOME=home + "/data", XDG_CONFIG_HOME=home + "/cfg", LC_ALL="C.UTF-8")
    names = sorted(n for n in os.listdir(a.files)
                   if os.path.isfile(os.path.join(a.files, n, "STATE.md")) and a.only in n)
    texts = dict(ORDINARY, **HOSTILE)
    if a.quick:
        texts = {k: v for k, v in texts.items() if k in QUICK}
    runner = Runner(a, env, work)
    units = [(n, e) for n in names for e in ("lf", "crlf")]
    results, parity = [], []
    lock = threading.Lock()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            for p, rs in ex.map(lambda u: runner.unit(u[0], u[1], texts), units):
                with lock:
                    parity.append(p)
                    results.extend(rs)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for r in results:
        r["expected"] = [x for x in (expected_reason(r, f) for f in r["fails"]) if x]
        r["unexpected"] = [f for f in r["fails"] if not expected_reason(r, f)]
    held = [r for r in results if not r["fails"]]
    failed = [r for r in results if r["unexpected"]]
    print("GSD compatibility: %d files x LF/CRLF, %d texts; gsd-tools %s"
          % (len(names), len(texts), json.load(open(os.path.join(a.package, "package.json")))["version"]))
    print("held %d / %d cases (%d not held for a reason outside loopdeck, %d failing)"
          % (len(held), len(results), len(results) - len(held) - len(failed), len(failed)))
    table = collections.defaultdict(lambda: [0, 0])
    for r in results:
        fam = FAMILIES[r["text"].split("_")[0]]
        for k in ((r["verb"], ""), ("", fam), (r["verb"], fam)):
            table[k][1] += 1
            table[k][0] += not r["fails"]
    print("held / total by verb:")
    for (v, f), (h, t) in sorted(table.items()):
        if v and not f:
            print("  %-24s %6d / %6d" % (v, h, t))
    print("held / total by text family:")
    for (v, f), (h, t) in sorted(table.items()):
        if f and not v:
            print("  %-24s %6d / %6d" % (f, h, t))
    print("held / total by verb and text family:")
    for (v, f), (h, t) in sorted(table.items()):
        if v and f:
            print("  %-24s %-22s %6d / %6d" % (v, f, h, t))
    bad_parity = [p for p in parity if not p["same"]]
    print("status equals the hook: %d / %d" % (len(parity) - len(bad_parity), len(parity)))
    for p in bad_parity[:10]:
        print("   %s/%s hook=%r loopdeck=%r" % (p["file"], p["eol"], p["hook"], p["loopdeck"]))
    cause = collections.Counter()
    cause_files = collections.defaultdict(set)
    cause_texts = collections.defaultdict(set)
    for r in results:
        for f in r["fails"]:
            c = re.sub(r"\(it leaves .*\)|: %r|: '.*'$", "", f).strip()
            c = re.sub(r"phase not a phase number.*", "phase not a phase number", c)
            c = ("[expected] " if f not in r["unexpected"] else "") + c
            cause[c] += 1
            cause_files[c].add(r["file"])
            cause_texts[c].add(r["verb"] + ":" + r["text"])
    if cause:
        print("not held, by cause (cases, files, verb:text):")
        for c, n in cause.most_common():
            ts = sorted(cause_texts[c])
            print("  %5d  %-58s files=%d  %s" % (n, c, len(cause_files[c]),
                                                 ",".join(ts[:8]) + ("…" if len(ts) > 8 else "")))
    reasons = sorted({x for r in results for x in r["expected"]})
    for x in reasons:
        print("  expected exception: " + x)
    if a.verbose:
        for r in failed:
            print("FAIL %s/%s %s %s rc=%s %s %s" % (r["file"], r["eol"], r["verb"], r["text"],
                                                   r["rc"], r["unexpected"], r.get("added", "")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"results": results, "parity": parity}, f, ensure_ascii=False, indent=1)
    return 1 if failed or bad_parity else 0


if __name__ == "__main__":
    sys.exit(main())
