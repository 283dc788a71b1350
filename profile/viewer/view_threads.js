/*
 * profile/viewer/view_threads.js — the Threads tab: a track per thread
 * (and per process, when there are several) along the run's time.
 *
 * The times are those the page was made from: a session of parts
 * (RPERF_INTERVAL) says what each thread did in each part, and no finer;
 * a recording whose raw samples say when they were taken (RPERF_AGGREGATE
 * =0), in stretches of a 200th of it (10 ms at least); a profile of whole
 * processes has no times, and the tab says so. A
 * thread's track shows its time in each state — running, in GC marking or
 * sweeping, waiting for the GVL, off it (blocked) — as stretches of that
 * length, laid back from the end of the part that recorded them: the agent
 * records a wait or a block when it ends, so a thread that slept through
 * three parts has its sleep in the third, and it is drawn reaching back
 * over the other two (never over what a later part drew). In cpu mode only
 * CPU time is recorded, and drawn. A process's track shows its threads'
 * shares of each part. The pointer over a stretch shows its heaviest
 * stack; a click on one narrows every view to that part and that thread.
 * The filters apply; the time strip's selection is shaded.
 *
 * `v` is what viewer.js lends its views (see `viewContext` there).
 */
'use strict';
function rperfThreadsView(v) {
  const { $ } = v;
  const slots = v.data.slots || [];
  const count = slots.length / 2;
  const STATES = [ // label of each state (none: running), its title; colour --st-INDEX (viewer.css)
    { key: null, value: null, title: 'running' },
    { key: '%GVL', value: 'blocked', title: 'off the GVL (blocked)' },
    { key: '%GVL', value: 'wait', title: 'waiting for the GVL' },
    { key: '%GC', value: 'mark', title: 'GC marking' },
    { key: '%GC', value: 'sweep', title: 'GC sweeping' },
  ];
  const NSTATES = STATES.length;
  const LAID_OUT = [0, 3, 4, 2, 1]; // in a part, earliest first: a wait or block ends the part's time
  const GUTTER = 190, TRACK = 18, GAP = 5, TOP = 18; // CSS pixels
  const canvas = $('threads-canvas'), ctx = canvas.getContext('2d');
  const setState = v.setLabels.map((m) => {
    for (let k = 1; k < NSTATES; k++) if (m.get(STATES[k].key) === STATES[k].value) return k;
    return 0;
  });
  const start = (s) => slots[2 * s], duration = (s) => slots[2 * s + 1];
  let t0 = Infinity, t1 = -Infinity;
  for (let s = 0; s < count; s++) { t0 = Math.min(t0, start(s)); t1 = Math.max(t1, start(s) + duration(s)); }
  const span = Math.max(t1 - t0, 1);
  const clock = v.slotClock;
  let tracks = [], segments = [], hover = null, leafIdx = [];

  // Per track (a thread, or a process's threads together): the weight of
  // each state in each part.
  function weigh(passing) {
    const byKey = new Map();
    const trackOf = (key, label, process, thread) => {
      let t = byKey.get(key);
      if (!t) byKey.set(key, (t = { key, label, process, thread, ns: new Float64Array(count * NSTATES), sum: 0 }));
      return t;
    };
    const processes = new Set(passing.map((i) => v.setProcess[v.leaves[4 * i + 2]]));
    for (const i of passing) {
      const set = v.leaves[4 * i + 2], seq = v.leaves[4 * i + 1], s = v.setSlot[set], w = v.leaves[4 * i + 3];
      if (s < 0) continue;
      const pid = v.setProcess[set], k = s * NSTATES + setState[set];
      const t = trackOf(v.threadKey(set, seq), `${processes.size > 1 ? `pid ${pid} ` : ''}thread ${seq}`, pid, seq);
      t.ns[k] += w; t.sum += w;
      if (processes.size > 1) {
        const p = trackOf(`${pid}:`, `pid ${pid} (process)`, pid, 0);
        p.ns[k] += w; p.sum += w;
      }
    }
    return [...byKey.values()].sort((a, b) => Number(a.process) - Number(b.process) || a.thread - b.thread);
  }

  const xOf = (t, width) => GUTTER + ((t - t0) / span) * (width - GUTTER);

  // A track's stretches, { slot, state, ns, from, to } in ns of the axis.
  // A thread's time: laid back along the run (viewer.js's layBack). A
  // process's, or objects (allocation measures): their shares of each
  // part's stretch.
  function layOut(t) {
    const out = [];
    const pieces = (s) => LAID_OUT.map((k) => t.ns[s * NSTATES + k]);
    if (t.thread && v.data.unit === 'ms') {
      v.layBack(pieces, (s, i, from, to) => out.push({ slot: s, state: LAID_OUT[i], ns: t.ns[s * NSTATES + LAID_OUT[i]], from, to }));
      return out;
    }
    for (let s = 0; s < count; s++) {
      const ps = pieces(s), sum = ps.reduce((a, b) => a + b, 0);
      let at = start(s);
      ps.forEach((ns, i) => {
        if (ns <= 0) return;
        const to = at + (ns * duration(s)) / sum; // a thread's share of its part's time
        out.push({ slot: s, state: LAID_OUT[i], ns, from: at, to });
        at = to;
      });
    }
    return out;
  }

  function draw() {
    const width = canvas.parentElement.clientWidth;
    const height = TOP + tracks.length * (TRACK + GAP);
    v.prepareCanvas(canvas, ctx, width, height);
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const colours = STATES.map((_, k) => getComputedStyle(document.documentElement).getPropertyValue(`--st-${k}`).trim());
    const r = v.state.range;
    if (r) {
      ctx.fillStyle = 'rgba(70,110,200,0.15)';
      const lo = xOf(r.from, width), hi = xOf(r.to, width);
      ctx.fillRect(lo, 0, Math.max(hi - lo, 1), height);
    }
    ctx.fillStyle = '#5f6368';
    ctx.fillText(clock(t0), GUTTER, TOP / 2);
    ctx.textAlign = 'right';
    ctx.fillText(clock(t1), width - 2, TOP / 2);
    ctx.textAlign = 'left';
    segments = [];
    tracks.forEach((t, row) => {
      const y = TOP + row * (TRACK + GAP);
      ctx.fillStyle = t.key === v.state.thread ? '#1d1d1f' : '#5f6368';
      ctx.fillText(t.label, 4, y + TRACK / 2);
      ctx.fillStyle = '#f1f1f4';
      ctx.fillRect(GUTTER, y, width - GUTTER, TRACK);
      for (const g of layOut(t)) {
        const x = xOf(g.from, width), w = xOf(g.to, width) - x;
        ctx.fillStyle = colours[g.state];
        ctx.fillRect(x, y, Math.max(w, 0.5), TRACK);
        segments.push({ track: row, slot: g.slot, state: g.state, x, y, w, ns: g.ns });
      }
    });
    if (hover) {
      ctx.strokeStyle = '#222';
      ctx.strokeRect(hover.x + 0.5, hover.y + 0.5, Math.max(hover.w - 1, 0), TRACK - 1);
    }
  }

  // The heaviest stack of a stretch: its leaf's path, innermost first.
  function heaviestStack(seg) {
    const t = tracks[seg.track], byNode = new Map();
    for (const i of leafIdx) {
      const set = v.leaves[4 * i + 2];
      if (v.setSlot[set] !== seg.slot || setState[set] !== seg.state || v.setProcess[set] !== t.process) continue;
      if (t.thread && v.leaves[4 * i + 1] !== t.thread) continue;
      byNode.set(v.leaves[4 * i], (byNode.get(v.leaves[4 * i]) || 0) + v.leaves[4 * i + 3]);
    }
    let best = -1, most = -1;
    for (const [n, w] of byNode) if (w > most) { best = n; most = w; }
    const names = [];
    for (let n = best; n > 0; n = v.nodeParent[n]) names.push(v.nameOf(v.viewFrame(v.nodeFrame[n])));
    return { names, ns: most };
  }

  function showTip(seg, ev) {
    const tip = $('threads-tip'), t = tracks[seg.track], st = heaviestStack(seg);
    const shown = st.names.slice(0, 14).map((n) => `<div>${v.escapeHtml(n)}</div>`).join('') +
      (st.names.length > 14 ? `<div>… ${st.names.length - 14} more frames</div>` : '');
    tip.innerHTML = `<strong>${v.escapeHtml(t.label)}</strong>: ${STATES[seg.state].title}, ${v.val(seg.ns)} ` +
      `of ${clock(start(seg.slot))} – ${clock(start(seg.slot) + duration(seg.slot))}` +
      `<div class="path">heaviest stack (${v.val(st.ns)}):</div>${shown || '<div>(no frames)</div>'}`;
    tip.hidden = false;
    const box = canvas.parentElement.getBoundingClientRect();
    let left = ev.clientX - box.left + 14;
    if (left + tip.offsetWidth > box.width) left = Math.max(0, ev.clientX - box.left - tip.offsetWidth - 14);
    tip.style.left = left + 'px';
    tip.style.top = ev.clientY - box.top + 14 + 'px';
  }

  function segmentAt(ev) {
    const r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
    return segments.find((g) => x >= g.x && x < g.x + Math.max(g.w, 1) && y >= g.y && y < g.y + TRACK) || null;
  }
  canvas.addEventListener('mousemove', (ev) => {
    const seg = segmentAt(ev);
    if (seg !== hover) { hover = seg; draw(); }
    if (seg) showTip(seg, ev); else $('threads-tip').hidden = true;
  });
  canvas.addEventListener('mouseleave', () => { hover = null; $('threads-tip').hidden = true; draw(); });
  canvas.addEventListener('click', (ev) => {
    const seg = segmentAt(ev);
    if (!seg) return;
    const t = tracks[seg.track];
    v.narrow({ from: start(seg.slot), to: start(seg.slot) + duration(seg.slot) }, t.process, t.thread ? t.key : '');
  });

  function render() {
    const timed = count >= 2 && !v.data.diff;
    $('threads-none').hidden = timed;
    canvas.hidden = !timed;
    if (!timed) return;
    leafIdx = v.untimed();
    tracks = weigh(leafIdx);
    $('threads-note').textContent = `${tracks.length} track${tracks.length === 1 ? '' : 's'} over ${count} ${v.SLOTS} ` +
      `(${clock(t0)} – ${clock(t1)}), each thread's time drawn where it was spent. ` +
      `Point at a stretch for its heaviest stack; click it to narrow every view to that ${v.SLOTS === 'parts' ? 'part' : 'stretch'} and thread.`;
    hover = null;
    draw();
  }
  window.addEventListener('resize', () => { if (!$('panel-threads').hidden && count >= 2) draw(); });

  // For tests: the tracks in page coordinates, and their stretches.
  function describe() {
    const r = canvas.getBoundingClientRect(), width = r.width;
    return {
      timed: !canvas.hidden, x: r.left + window.scrollX + GUTTER, y: r.top + window.scrollY, w: width - GUTTER,
      tracks: tracks.map((t, row) => ({
        label: t.label, key: t.key, y: r.top + window.scrollY + TOP + row * (TRACK + GAP), h: TRACK,
        stretches: segments.filter((g) => g.track === row)
          .map((g) => ({ slot: g.slot, state: STATES[g.state].title, x: r.left + window.scrollX + g.x, w: g.w, ns: g.ns })),
      })),
    };
  }

  return { render, describe };
}
