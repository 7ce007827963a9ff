// Oracle for the GSD compatibility suite: runs GSD's own code in-process
// (gsd-tools' lib/state.cjs and the published statusline hook) on project
// directories. One JSON request per stdin line, one JSON reply per line:
//   {"op":"read","dir":D}   -> {json, snapshot, get_decisions, hook, prune (dry run), dec, blk}
//   {"op":"write","dir":D,"kind":"decision"|"blocker","text":T} -> gsd-tools' own add-*
//   {"op":"wait","dir":D,"question":Q,"options":"A|B","phase":P} -> gsd-tools' signal-waiting
// Usage: node oracle.js PACKAGE_DIR   (the unpacked get-shit-done-cc package)
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const pkg = process.argv[2];
let captured = null;
const realWriteSync = fs.writeSync;
// gsd-tools' output() writes with fs.writeSync(1, …): captured here.
fs.writeSync = function (fd, data, ...rest) {
  if ((fd === 1 || fd === 2) && captured !== null) { captured += String(data); return String(data).length; }
  return realWriteSync.call(fs, fd, data, ...rest);
};
const state = require(path.join(pkg, 'get-shit-done/bin/lib/state.cjs'));
const hook = require(path.join(pkg, 'hooks/dist/gsd-statusline.js'));

function run(fn) {
  captured = '';
  try { fn(); } catch (e) { captured += '\n!!' + e.message; }
  const out = captured; captured = null;
  try { return JSON.parse(out); } catch { return out; }
}
// The sections gsd-tools writes into: state.cjs cmdStateAddDecision and
// cmdStateAddBlocker / cmdStateResolveBlocker, copied verbatim.
const DEC = /(###?\s*(?:Decisions|Decisions Made|Accumulated.*Decisions)\s*\n)([\s\S]*?)(?=\n###?|\n##[^#]|$)/i;
const BLK = /(###?\s*(?:Blockers|Blockers\/Concerns|Concerns)\s*\n)([\s\S]*?)(?=\n###?|\n##[^#]|$)/i;
function section(re, content) {
  const m = content.match(re);
  return m ? { heading: m[1], body: m[2], index: m.index } : null;
}
function read(dir) {
  const content = fs.readFileSync(path.join(dir, '.planning', 'STATE.md'), 'utf8');
  const json = run(() => state.cmdStateJson(dir, false));
  if (json && typeof json === 'object') delete json.last_updated;
  return {
    json,
    snapshot: run(() => state.cmdStateSnapshot(dir, false)),
    get_decisions: run(() => state.cmdStateGet(dir, 'Decisions', false)),
    hook: hook.formatGsdState(hook.readGsdState(dir) || {}),
    prune: run(() => state.cmdStatePrune(dir, { keepRecent: '3', dryRun: true }, false)),
    dec: section(DEC, content),
    blk: section(BLK, content),
  };
}
function write(dir, kind, text) {
  if (kind === 'decision') return run(() => state.cmdStateAddDecision(dir, { summary: text, rationale: '' }, false));
  return run(() => state.cmdStateAddBlocker(dir, { text }, false));
}
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const req = JSON.parse(line);
  let res;
  try {
    if (req.op === 'read') res = read(req.dir);
    else if (req.op === 'wait') res = run(() => state.cmdSignalWaiting(req.dir, 'decision_point', req.question, req.options, req.phase, false));
    else res = write(req.dir, req.kind, req.text);
  } catch (e) { res = { error: String(e && e.message) }; }
  realWriteSync.call(fs, 1, JSON.stringify(res) + '\n');
});
