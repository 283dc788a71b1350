/*
 * profile/viewer/view_sandwich.js — the Sandwich tab: one method's
 * callers and callees.
 *
 * Every call path through the chosen method, merged: above, the tree of
 * its callers (the method first, each caller under what it called, up to
 * the stacks' roots); below, the tree of its callees down to the leaves,
 * with the weight ending at each (self). A stack that holds the method
 * twice (recursion) counts once, at its outermost call; the lines of a
 * method are one method. These are the figures of `rperf-analyze report
 * --callers/--callees METHOD` (profile/encode/sandwich.c), for the samples
 * the page's filters keep.
 *
 * `v` is what viewer.js lends its views (see `viewContext` there).
 */
'use strict';
function rperfSandwichView(v) {
  const { $ } = v;
  // Rows lighter than this share of the method's total are not listed.
  const MIN_SHARE = 0.002, MAX_ROWS = 400;

  // A tree whose node 0 is the method; a node's children found by frame.
  function newTree(method) {
    return { frame: [method], parent: [-1], end: [0], kids: new Map() };
  }
  function childOf(t, p, f) {
    let byFrame = t.kids.get(p);
    if (!byFrame) t.kids.set(p, (byFrame = new Map()));
    let c = byFrame.get(f);
    if (c === undefined) {
      c = t.frame.length;
      t.frame.push(f); t.parent.push(p); t.end.push(0);
      byFrame.set(f, c);
    }
    return c;
  }
  // Totals from the weights ending at each node (children come after
  // their parents), and each node's children, heaviest first.
  function finish(t) {
    const total = Float64Array.from(t.end);
    for (let n = t.frame.length - 1; n > 0; n--) total[t.parent[n]] += total[n];
    const children = t.frame.map(() => []);
    for (let n = 1; n < t.frame.length; n++) children[t.parent[n]].push(n);
    for (const c of children) c.sort((a, b) => total[b] - total[a] || a - b);
    return { frame: t.frame, self: t.end, total, children };
  }

  // Both trees of `method` over the leaves `passing`.
  function compute(method, passing) {
    const count = v.nodeCount, parent = v.nodeParent;
    const methodAt = (n) => v.methodOf[v.nodeFrame[n]] ?? v.nodeFrame[n];
    // outer[n]: the outermost node of n's path (n included) that is a call
    // of the method, or -1; a node comes after its parent.
    const outer = new Int32Array(count).fill(-1);
    for (let n = 1; n < count; n++)
      outer[n] = outer[parent[n]] >= 0 ? outer[parent[n]] : methodAt(n) === method ? n : -1;
    const up = newTree(method), down = newTree(method);
    const upEnd = new Map(); // outer node -> the callers' tree node of its outermost caller
    const downAt = new Int32Array(count).fill(-1); // node -> the callees' tree node
    const chain = [];
    function callersOf(o) {
      let at = upEnd.get(o);
      if (at !== undefined) return at;
      at = 0;
      for (let a = parent[o]; a > 0; a = parent[a]) at = childOf(up, at, methodAt(a));
      upEnd.set(o, at);
      return at;
    }
    function calleesOf(n) {
      chain.length = 0;
      let a = n;
      for (; a !== outer[n] && downAt[a] < 0; a = parent[a]) chain.push(a);
      let at = a === outer[n] ? 0 : downAt[a];
      for (let i = chain.length - 1; i >= 0; i--) at = downAt[chain[i]] = childOf(down, at, methodAt(chain[i]));
      return at;
    }
    for (const i of passing) {
      const n = v.leaves[4 * i], o = outer[n];
      if (o < 0) continue;
      const w = v.leaves[4 * i + 3];
      up.end[callersOf(o)] += w;
      down.end[calleesOf(n)] += w;
    }
    return { callers: finish(up), callees: finish(down) };
  }

  // --- choosing a method -------------------------------------------------------------
  // A method's name as the report gives it: "label (path)".
  const fullName = (f) => (v.framePath[f] ? `${v.frameLabel[f]} (${v.framePath[f]})` : v.frameLabel[f]);
  const methods = [];
  for (let f = 0; f < v.BASE_FRAMES; f++) if (v.methodOf[f] === f && v.frameLabel[f] !== '(other)') methods.push(f);

  // The method `text` names: the whole of a name, or a part of one only.
  function find(text) {
    const exact = methods.find((f) => fullName(f) === text || v.frameLabel[f] === text);
    if (exact !== undefined) return { method: exact };
    const holding = methods.filter((f) => fullName(f).includes(text));
    if (holding.length === 1) return { method: holding[0] };
    return { error: holding.length ? `${holding.length} methods' names hold “${text}” (one is ${fullName(holding[0])}): give more of the name`
      : `no method's name holds “${text}”` };
  }

  function fillChoices(passing) {
    const { total } = v.frameWeights(passing);
    const list = $('sandwich-methods');
    list.textContent = '';
    for (const f of methods.filter((m) => total[m] > 0).sort((a, b) => total[b] - total[a]).slice(0, 2000))
      list.append(new Option(fullName(f)));
  }

  $('sandwich-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = $('sandwich-method').value.trim();
    if (!text) return;
    const got = find(text);
    $('sandwich-error').textContent = got.error || '';
    $('sandwich-error').hidden = !got.error;
    if (got.method !== undefined) v.chooseMethod(got.method, 'sandwich');
  });

  // --- drawing -------------------------------------------------------------------------
  let last = null; // what is shown, for describe()

  function rowsOf(tree, withSelf, whole) {
    const rows = [];
    let hidden = 0;
    const stack = [[0, 0]];
    while (stack.length) {
      const [n, depth] = stack.pop();
      if (n > 0 && (tree.total[n] < MIN_SHARE * whole || rows.length >= MAX_ROWS)) { hidden++; continue; }
      const f = tree.frame[n];
      rows.push(`<tr data-frame="${f}" data-total="${tree.total[n]}" data-self="${tree.self[n]}" data-depth="${depth}">` +
        `<td class="num">${v.num(tree.total[n])}</td><td class="num">${v.pct(tree.total[n], whole)}</td>` +
        (withSelf ? `<td class="num">${tree.self[n] > 0 ? v.num(tree.self[n]) : ''}</td>` : '') +
        `<td class="name" style="padding-left:${8 + 16 * depth}px">${v.escapeHtml(v.frameLabel[f])}` +
        `${v.framePath[f] ? ` <span class="path">${v.escapeHtml(v.framePath[f])}</span>` : ''}</td></tr>`);
      const kids = tree.children[n];
      for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k], depth + 1]);
    }
    if (hidden) rows.push(`<tr class="hidden-rows"><td colspan="${withSelf ? 4 : 3}">${hidden.toLocaleString('en-US')} ` +
      `call paths under ${(MIN_SHARE * 100).toFixed(1)}% of the method's total not listed</td></tr>`);
    return rows.join('\n');
  }

  function render(passing) {
    fillChoices(passing);
    const m = v.state.method;
    $('sandwich-body').hidden = m < 0;
    $('sandwich-empty').hidden = m >= 0;
    if (m < 0) { last = null; return; }
    if (document.activeElement !== $('sandwich-method')) $('sandwich-method').value = fullName(m);
    const { callers, callees } = compute(m, passing);
    const whole = callers.total[0], shownTotal = v.shownTotal();
    $('sandwich-title').textContent = `${fullName(m)}: ${v.val(whole)} in all (${v.pct(whole, shownTotal)} of what is shown), ` +
      `${v.val(callees.self[0])} in itself`;
    $('sandwich-source').hidden = !v.hasLines;
    $('callers-body').innerHTML = whole > 0 ? rowsOf(callers, false, whole) : '';
    $('callees-body').innerHTML = whole > 0 ? rowsOf(callees, true, whole) : '';
    $('sandwich-none').hidden = whole > 0;
    last = { method: m, callers, callees };
  }

  // A click on a row shows that method's sandwich.
  for (const id of ['callers-body', 'callees-body']) {
    $(id).addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr[data-frame]');
      if (tr && Number(tr.dataset.frame) !== v.state.method) v.chooseMethod(Number(tr.dataset.frame), 'sandwich');
    });
  }
  $('sandwich-focus').addEventListener('click', () => v.focusMethod(v.state.method));
  $('sandwich-source').addEventListener('click', () => v.chooseMethod(v.state.method, 'source'));

  // For tests: each tree as rows of name, total, self and depth.
  function describe() {
    if (!last) return null;
    const rows = (tree) => {
      const out = [];
      const walk = (n, depth) => {
        out.push({ name: v.frameLabel[tree.frame[n]], path: v.framePath[tree.frame[n]], total: tree.total[n], self: tree.self[n], depth });
        for (const c of tree.children[n]) walk(c, depth + 1);
      };
      walk(0, 0);
      return out;
    };
    return { method: fullName(last.method), callers: rows(last.callers), callees: rows(last.callees) };
  }

  return { render, describe, find };
}
