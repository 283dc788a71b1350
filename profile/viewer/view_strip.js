/*
 * profile/viewer/view_strip.js — the time strip above the tabs, for a
 * session of parts (RPERF_INTERVAL) or a recording of raw samples that
 * say when they were taken (RPERF_AGGREGATE=0).
 *
 * Each slot (a part, or a stretch of a recording) is a stretch of time;
 * each thread's time in it is spread evenly over where viewer.js's
 * layBack lays it, its objects (allocation measures) over the slot: finer
 * the profile cannot say. Dragging keeps the slots that overlap a stretch
 * of time, as rperf-analyze --since/--until keep parts; a click, those at
 * a moment; every other view then shows only them.
 *
 * `v` is what viewer.js lends its views (see `viewContext` there);
 * returns select (the leaves the selection keeps), draw and describe.
 */
'use strict';
function rperfStripView(v) {
  const { data, $, state, diff, leaves, setSlot, threadKey, layBack, UNIT, prepareCanvas, update, SLOTS } = v;
  const slots = data.slots || [];
  const count = slots.length / 2;
  const box = $('timeline');
  if (count < 2 || diff) {
    return { select: (leafIdx) => leafIdx, draw() {}, describe: () => null };
  }
  box.hidden = false;
  const start = (s) => slots[2 * s], end = (s) => slots[2 * s] + slots[2 * s + 1];
  let t0 = Infinity, t1 = -Infinity;
  for (let s = 0; s < count; s++) { t0 = Math.min(t0, start(s)); t1 = Math.max(t1, end(s)); }
  const span = Math.max(t1 - t0, 1);
  const cv = $('strip'), sctx = cv.getContext('2d');
  const HEIGHT = 56, COL = 3; // CSS pixels
  let weights = [], columns = [], drag = null;

  const overlaps = (s, r) => start(s) < r.to && end(s) > r.from ||
    (r.from === r.to && start(s) <= r.from && end(s) > r.from);
  function select(leafIdx) {
    const r = state.range;
    if (!r) return leafIdx;
    const keep = new Uint8Array(count);
    for (let s = 0; s < count; s++) keep[s] = overlaps(s, r) ? 1 : 0;
    return leafIdx.filter((i) => { const s = setSlot[leaves[4 * i + 2]]; return s >= 0 && keep[s]; });
  }

  const timeOf = (x, width) => t0 + (Math.min(Math.max(x, 0), width) / width) * span;
  const xOf = (t, width) => ((t - t0) / span) * width;
  const clock = v.slotClock;
  const secs = (ns) => (ns >= 60e9 ? `${(ns / 60e9).toFixed(1)} min` : `${(ns / 1e9).toFixed(1)} s`);

  // Each thread's time, laid back along the run (layBack), as stretches.
  function stretchesOf(leafIdx) {
    const byThread = new Map();
    for (const i of leafIdx) {
      const set = leaves[4 * i + 2], s = setSlot[set], t = threadKey(set, leaves[4 * i + 1]);
      if (s < 0) continue;
      let w = byThread.get(t);
      if (!w) byThread.set(t, (w = new Float64Array(count)));
      w[s] += leaves[4 * i + 3];
    }
    const out = [];
    for (const w of byThread.values()) {
      if (UNIT === 'ms') layBack((s) => [w[s]], (s, i, from, to) => out.push({ ns: w[s], from, to }));
      else for (let s = 0; s < count; s++) if (w[s] > 0) out.push({ ns: w[s], from: start(s), to: end(s) }); // objects: no time to lay
    }
    return out;
  }

  function draw(leafIdx) {
    if (leafIdx) weights = stretchesOf(leafIdx);
    const width = cv.parentElement.clientWidth;
    const n = Math.max(1, Math.floor(width / COL));
    const ns = new Float64Array(n);
    for (const g of weights) {
      const a = ((g.from - t0) / span) * n, b = ((g.to - t0) / span) * n;
      if (b - a < 1e-9) { ns[Math.min(n - 1, Math.floor(a))] += g.ns; continue; }
      for (let c = Math.floor(a); c < Math.min(n, Math.ceil(b)); c++)
        ns[c] += (g.ns * (Math.min(b, c + 1) - Math.max(a, c))) / (b - a);
    }
    const most = Math.max(...ns, 1);
    prepareCanvas(cv, sctx, width, HEIGHT);
    // The range dragged or chosen, and the columns of the parts it keeps.
    const r = drag ? drag.range : state.range;
    const kept = new Uint8Array(n).fill(r ? 0 : 1);
    for (let s = 0; r && s < count; s++) {
      if (!overlaps(s, r)) continue;
      const a = ((start(s) - t0) / span) * n, b = ((end(s) - t0) / span) * n;
      for (let c = Math.floor(a); c < Math.min(n, Math.max(Math.ceil(b), Math.floor(a) + 1)); c++) kept[c] = 1;
    }
    if (r) {
      const lo = xOf(r.from, width), hi = xOf(r.to, width);
      sctx.fillStyle = 'rgba(70,110,200,0.18)';
      sctx.fillRect(lo, 0, Math.max(hi - lo, 1), HEIGHT);
    }
    columns = [];
    const colW = width / n;
    for (let c = 0; c < n; c++) {
      const x = c * colW, h = (ns[c] / most) * (HEIGHT - 4);
      sctx.fillStyle = kept[c] ? '#d9622b' : '#ecd3c6';
      sctx.fillRect(x, HEIGHT - h, Math.max(colW - 0.5, 0.5), h);
      columns.push({ x, w: colW, ns: ns[c] });
    }
    describeRange();
  }

  function describeRange() {
    const r = state.range;
    const info = $('strip-range');
    $('strip-clear').hidden = !r;
    if (!r) {
      info.textContent = `${clock(t0)} – ${clock(t1)} (${secs(t1 - t0)}), ${count} ${SLOTS}: ` +
        `drag across the strip to keep a stretch of time, click to keep the ${SLOTS} at a moment`;
      return;
    }
    let kept = 0, from = Infinity, to = -Infinity;
    for (let s = 0; s < count; s++) {
      if (!overlaps(s, r)) continue;
      kept++;
      from = Math.min(from, start(s));
      to = Math.max(to, end(s));
    }
    const asked = r.from === r.to ? `at ${clock(r.from)}` : `overlapping ${clock(r.from)} – ${clock(r.to)}`;
    info.textContent = kept
      ? `${kept} of ${count} ${SLOTS} ${asked}, spanning ${clock(from)} – ${clock(to)} (${secs(to - from)})`
      : `no part ${asked}`;
  }

  function pointer(ev) {
    const rect = cv.getBoundingClientRect();
    return { x: ev.clientX - rect.left, width: rect.width };
  }
  cv.addEventListener('mousedown', (ev) => {
    const p = pointer(ev);
    drag = { x: p.x, range: { from: timeOf(p.x, p.width), to: timeOf(p.x, p.width) } };
    ev.preventDefault();
  });
  window.addEventListener('mousemove', (ev) => {
    if (!drag) return;
    const p = pointer(ev);
    const a = timeOf(drag.x, p.width), b = timeOf(p.x, p.width);
    drag.range = { from: Math.min(a, b), to: Math.max(a, b) };
    draw(null);
  });
  window.addEventListener('mouseup', (ev) => {
    if (!drag) return;
    const p = pointer(ev);
    const moved = Math.abs(p.x - drag.x) >= 3;
    const at = timeOf(drag.x, p.width);
    state.range = moved ? drag.range : { from: at, to: at };
    drag = null;
    update();
  });
  $('strip-clear').addEventListener('click', () => { state.range = null; update(); });

  function describe() {
    const rect = cv.getBoundingClientRect();
    return {
      x: rect.left + window.scrollX, y: rect.top + window.scrollY, w: rect.width, h: rect.height,
      start_ns: t0, end_ns: t1, slots: count, columns: columns.map((c) => c.ns),
      range: state.range, text: $('strip-range').textContent,
    };
  }
  return { select, draw, describe };
}
