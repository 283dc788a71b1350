// profile/viewer/history.js — the history page (rperf report DIR): the
// snapshots of a directory (rperf record --snapshot-dir), listed by branch
// from their meta and summary alone; the chosen one's viewer page, or its
// difference against any other, loaded only when chosen (the server
// renders them: snapshots/ID, diff/BASE/ID); a method's share across all
// snapshots as a sparkline (share?method=NAME). The server is rperf's
// (rperf/history.c); every request goes back to it, nothing elsewhere.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const state = { snaps: [], byId: new Map(), current: null, base: null, method: '', trend: [] };

  const timeOf = (s) => (s.meta && ((s.meta.git && s.meta.git.committed_at) || s.meta.created_at)) || '';
  const shaOf = (s) => (s.meta && s.meta.git && s.meta.git.sha ? s.meta.git.sha.slice(0, 7) : 'nogit');
  const subjectOf = (s) => (s.meta && s.meta.git && s.meta.git.subject) || s.file;
  const branchOf = (s) => {
    if (!s.meta || !s.meta.git) return '(outside git)';
    return s.meta.git.branch || '(detached)';
  };
  const sum = (s) => s.summary || {};
  const gcCount = (s) => (sum(s).gc_count_minor || 0) + (sum(s).gc_count_major || 0);
  const label = (s) => `${shaOf(s)} ${subjectOf(s)}`;

  // What moved against the snapshot before it on the same branch: time,
  // allocations and GC runs by 10% or more.
  function badgesOf(s, before) {
    const out = [];
    if (s.meta && s.meta.git && s.meta.git.dirty) out.push(['plain', 'dirty']);
    const labels = (s.meta && s.meta.labels) || {};
    for (const k of Object.keys(labels)) out.push(['plain', `${k}=${labels[k]}`]);
    if (!before) return out;
    const moved = (name, now, was, unit) => {
      if (!(was > 0) || !(now >= 0)) return;
      const pct = (now / was - 1) * 100;
      if (Math.abs(pct) >= 10) out.push([pct > 0 ? 'up' : 'down', `${name} ${pct > 0 ? '+' : ''}${pct.toFixed(0)}%${unit}`]);
    };
    moved('time', sum(s).total_ms, sum(before).total_ms, '');
    moved('alloc', sum(s).allocated_objects, sum(before).allocated_objects, '');
    const gcNow = gcCount(s), gcWas = gcCount(before);
    if (gcWas > 0 && Math.abs(gcNow / gcWas - 1) >= 0.1) {
      out.push([gcNow > gcWas ? 'up' : 'down', `GC ${gcNow > gcWas ? '+' : ''}${gcNow - gcWas} runs`]);
    }
    return out;
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The list, by branch (the branch of the newest snapshot first), newest
  // first within each.
  function drawList() {
    const list = $('list');
    list.textContent = '';
    const branches = new Map();
    for (const s of state.snaps) {
      if (!branches.has(branchOf(s))) branches.set(branchOf(s), []);
      branches.get(branchOf(s)).push(s);
    }
    const order = [...branches.entries()].sort((a, b) => timeOf(b[1][b[1].length - 1]).localeCompare(timeOf(a[1][a[1].length - 1])));
    for (const [branch, snaps] of order) {
      list.appendChild(el('h2', null, `${branch} (${snaps.length})`));
      for (let i = snaps.length - 1; i >= 0; i--) {
        const s = snaps[i];
        const row = el('button', 'snap');
        row.type = 'button';
        row.dataset.id = s.id;
        row.title = `${s.file}\nclick: show it; shift-click: compare the current snapshot with it`;
        row.appendChild(el('span', 'sha', shaOf(s)));
        row.appendChild(el('span', 'subject', subjectOf(s)));
        const ms = sum(s).total_ms;
        row.appendChild(el('span', 'when', `${timeOf(s).replace('T', ' ').replace('Z', ' UTC')}${ms !== undefined ? ` · ${ms} ms` : ''}`));
        for (const [kind, text] of badgesOf(s, snaps[i - 1])) row.appendChild(el('span', `badge ${kind}`, text));
        row.addEventListener('click', (e) => (e.shiftKey ? setBase(s.id) : setCurrent(s.id)));
        list.appendChild(row);
      }
    }
  }

  function fillSelects() {
    const current = $('current'), base = $('base');
    for (let i = state.snaps.length - 1; i >= 0; i--) {
      const s = state.snaps[i];
      current.appendChild(new Option(label(s), s.id));
      base.appendChild(new Option(label(s), s.id));
    }
    current.addEventListener('change', () => setCurrent(Number(current.value)));
    base.addEventListener('change', () => setBase(base.value === '' ? null : Number(base.value)));
    const names = new Set();
    for (const s of state.snaps) for (const m of sum(s).top_methods || []) names.add(m.name);
    for (const n of [...names].sort()) $('methods').appendChild(new Option(n));
    $('method').addEventListener('change', () => setMethod($('method').value.trim()));
  }

  function show() {
    const cur = state.byId.get(state.current);
    const base = state.base === null ? null : state.byId.get(state.base);
    for (const row of document.querySelectorAll('.snap')) {
      row.classList.toggle('current', Number(row.dataset.id) === state.current);
      row.classList.toggle('base', base !== null && Number(row.dataset.id) === state.base);
    }
    $('current').value = String(state.current);
    $('base').value = base ? String(state.base) : '';
    const src = base ? `diff/${base.id}/${cur.id}` : `snapshots/${cur.id}`;
    if ($('view').getAttribute('src') !== src) $('view').setAttribute('src', src);
    const branches = new Set(state.snaps.map(branchOf)).size;
    $('status').textContent = `${state.snaps.length} snapshot${state.snaps.length === 1 ? '' : 's'} on ${branches} branch${branches === 1 ? '' : 'es'}; ` +
      (base ? `the difference from ${label(base)} to ${label(cur)} (red: more own time in ${shaOf(cur)})` : `showing ${label(cur)}`);
    drawTrend();
  }

  function setCurrent(id) {
    state.current = id;
    if (state.base === id) state.base = null;
    show();
  }

  function setBase(id) {
    state.base = id === state.current ? null : id;
    show();
  }

  async function setMethod(name) {
    state.method = name;
    $('method').value = name;
    state.trend = [];
    if (name) {
      const r = await fetch(`share?method=${encodeURIComponent(name)}`);
      state.trend = r.ok ? await r.json() : [];
    }
    drawTrend();
    return state.trend;
  }

  // The sparkline: the method's self share (solid) and total share
  // (dashed) in each snapshot, oldest first.
  function drawTrend() {
    const svg = $('spark'), fig = $('trend');
    fig.hidden = !state.method;
    svg.textContent = '';
    if (!state.method) return;
    const ns = 'http://www.w3.org/2000/svg';
    const W = Number(svg.getAttribute('width')), H = Number(svg.getAttribute('height')), pad = 14;
    const points = state.snaps.map((s) => ({ s, v: state.trend[s.id] || null }));
    const top = Math.max(1, ...points.map((p) => (p.v ? p.v.total_pct : 0)));
    const x = (i) => pad + (points.length > 1 ? (i * (W - 2 * pad)) / (points.length - 1) : (W - 2 * pad) / 2);
    const y = (v) => H - pad - (v / top) * (H - 2 * pad);
    for (const key of ['total', 'self']) {
      const line = document.createElementNS(ns, 'polyline');
      line.setAttribute('class', key);
      line.setAttribute('points', points.map((p, i) => `${x(i)},${y(p.v ? p.v[`${key}_pct`] : 0)}`).join(' '));
      svg.appendChild(line);
    }
    points.forEach((p, i) => {
      const dot = document.createElementNS(ns, 'circle');
      dot.setAttribute('cx', x(i));
      dot.setAttribute('cy', y(p.v ? p.v.self_pct : 0));
      dot.setAttribute('r', 4);
      if (p.s.id === state.current) dot.setAttribute('class', 'current');
      const title = document.createElementNS(ns, 'title');
      title.textContent = `${label(p.s)}: ${p.v ? `self ${p.v.self_pct.toFixed(2)}%, total ${p.v.total_pct.toFixed(2)}%` : 'not in it'}`;
      dot.appendChild(title);
      dot.addEventListener('click', () => setCurrent(p.s.id));
      svg.appendChild(dot);
    });
    const topText = document.createElementNS(ns, 'text');
    topText.setAttribute('x', 2);
    topText.setAttribute('y', 10);
    topText.textContent = `${top.toFixed(1)}%`;
    svg.appendChild(topText);
    const first = points.find((p) => p.v), last = [...points].reverse().find((p) => p.v);
    $('trend-caption').textContent = first
      ? `${state.method}, oldest to newest: self (solid) ${first.v.self_pct.toFixed(2)}% in ${shaOf(first.s)} → ${last.v.self_pct.toFixed(2)}% in ${shaOf(last.s)}, ` +
        `total (dashed) ${first.v.total_pct.toFixed(2)}% → ${last.v.total_pct.toFixed(2)}% (${points.filter((p) => p.v).length} of ${points.length} snapshots have it)`
      : `${state.method}: in none of the snapshots`;
  }

  // A page in the frame opens on its flame graph (its status line and
  // tabs at the top): the summary above is a scroll away.
  // (the frame's own window scrolled: scrollIntoView would scroll this page
  // too, its list and controls out of sight)
  function openOnGraph() {
    const doc = $('view').contentDocument;
    const at = doc && doc.getElementById('status');
    if (at) doc.defaultView.scrollTo(0, at.getBoundingClientRect().top + doc.defaultView.scrollY);
  }

  async function start() {
    $('view').addEventListener('load', openOnGraph);
    const r = await fetch('snapshots');
    if (!r.ok) throw new Error(`snapshots: ${r.status}`);
    const snaps = await r.json();
    // (commits of one second: in the order their files were written)
    snaps.sort((a, b) => timeOf(a).localeCompare(timeOf(b)) || a.mtime - b.mtime || a.file.localeCompare(b.file));
    state.snaps = snaps;
    for (const s of snaps) state.byId.set(s.id, s);
    if (!snaps.length) {
      $('status').textContent = 'No snapshots.';
      return;
    }
    drawList();
    fillSelects();
    state.current = snaps[snaps.length - 1].id;
    show();
    const top = (sum(state.byId.get(state.current)).top_methods || [])[0];
    await setMethod(top ? top.name : '');
    document.body.dataset.ready = 'true';
  }

  window.rperfHistory = {
    snapshots: () => state.snaps.map((s) => ({ id: s.id, sha: shaOf(s), subject: subjectOf(s), branch: branchOf(s), file: s.file })),
    current: () => state.current,
    base: () => state.base,
    setCurrent, setBase, setMethod,
    trend: () => state.snaps.map((s) => ({ id: s.id, sha: shaOf(s), share: state.trend[s.id] || null })),
  };
  start().catch((e) => {
    $('status').textContent = `Could not read the snapshots: ${e.message}`;
    document.body.dataset.ready = 'error';
  });
})();
