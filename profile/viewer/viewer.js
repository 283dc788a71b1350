/*
 * profile/viewer/viewer.js — the viewer page's script.
 *
 * Reads the data rperf-analyze embedded (#rperf-data; its layout is
 * described at the top of profile/encode/html.c), filters the call tree's leaf
 * weights by label, process and thread, builds the tree that is shown
 * (with label values as root or leaf frames when asked), draws it on a
 * canvas, fills the Top and Tags tables, and sets up the views of their
 * own files (view_*.js: the time strip, Requests, Sandwich, Source,
 * Threads), lending them what they read (viewContext). No network, no
 * library.
 *
 * window.rperfViewer exposes what is drawn, for tests and for the curious.
 */
'use strict';
(function () {
  const scriptStart = performance.now();
  const data = JSON.parse(document.getElementById('rperf-data').textContent);
  // A profile with allocation sampling carries a view per measure (time,
  // allocated objects, retained objects and bytes); the page's address
  // (#measure=NAME) says which one is shown in place of the top level's.
  const topMeasure = data.measure || 'time';
  const wantedMeasure = new URLSearchParams(location.hash.slice(1)).get('measure');
  if (data.measures && wantedMeasure && data.measures[wantedMeasure]) Object.assign(data, data.measures[wantedMeasure]);
  const $ = (id) => document.getElementById(id);
  const str = (id) => (id >= 0 ? data.strings[id] : '');

  // --- frames --------------------------------------------------------------
  const KIND = { ruby: 0, cfunc: 1, state: 2, label: 3, other: 4, root: 5, library: 6 };
  const STATE_KEYS = new Set(['%GVL', '%GC']);
  // frameName says the line too ("Object#work:12") when the profile has
  // lines; frameLabel is the method's name alone.
  const frameName = [], frameLabel = [], framePath = [], frameKind = [], frameLine = [];
  for (let i = 0; i < data.frames.length; i += 3) {
    const label = data.frames[i], path = data.frames[i + 1], line = data.frames[i + 2];
    frameLine.push(label < 0 ? 0 : line);
    if (label < 0) {
      frameName.push('(other)'); frameLabel.push('(other)'); framePath.push(''); frameKind.push(KIND.other);
      continue;
    }
    frameName.push(line ? `${str(label)}:${line}` : str(label));
    frameLabel.push(str(label));
    framePath.push(str(path));
    frameKind.push(str(path) === '<C method>' ? KIND.cfunc : KIND.ruby);
  }
  const BASE_FRAMES = frameName.length;
  // A line-level profile (RPERF_LINES) has a frame per line of a method:
  // methodOf maps each to its method's first frame, which stands for the
  // method wherever the page shows methods rather than lines.
  const methodOf = new Int32Array(BASE_FRAMES);
  const hasLines = frameLine.some((l) => l > 0);
  {
    const firstOf = new Map();
    for (let f = 0; f < BASE_FRAMES; f++) {
      const key = `${data.frames[3 * f]}:${data.frames[3 * f + 1]}`;
      if (!firstOf.has(key)) firstOf.set(key, f);
      methodOf[f] = frameLabel[f] === '(other)' ? f : firstOf.get(key);
    }
  }
  const ROOT_FRAME = -1;
  const labelFrames = new Map();
  function labelFrame(key, value) {
    const name = `${key}=${value}`;
    let f = labelFrames.get(name);
    if (f === undefined) {
      f = frameName.length;
      frameName.push(name); frameLabel.push(name); framePath.push(''); frameLine.push(0);
      frameKind.push(STATE_KEYS.has(key) ? KIND.state : KIND.label);
      labelFrames.set(name, f);
    }
    return f;
  }
  // "My code": whose code each embedded frame is (-1 the application's,
  // -2 a C method, its caller's; else a library's index), and the frame
  // that stands for a run of a library's frames, made when first shown.
  const frameCode = data.frame_code || [];
  const libraries = data.libraries || [];
  const APP_CODE = -1, CALLERS_CODE = -2;
  const libraryFrames = new Map();
  function libraryFrame(lib) {
    let f = libraryFrames.get(lib);
    if (f === undefined) {
      f = frameName.length;
      const name = `[${libraries[lib][0]}]`;
      frameName.push(name); frameLabel.push(name); framePath.push(libraries[lib][1]); frameLine.push(0);
      frameKind.push(KIND.library);
      libraryFrames.set(lib, f);
    }
    return f;
  }
  const nameOf = (f) => (f === ROOT_FRAME ? 'all' : state.lines ? frameName[f] : frameLabel[f]);
  // The frame a view shows for an embedded one: its method's, unless lines
  // are asked for.
  const viewFrame = (f) => (f >= 0 && f < BASE_FRAMES && !state.lines ? methodOf[f] : f);
  // Whether several embedded frames fold into one shown (lines to methods).
  const merging = () => hasLines && !state.lines;

  // --- label sets, processes, threads ------------------------------------------
  const rootPid = String(data.root_pid);
  // The loader's label for the file a sample came from (its time slot):
  // kept apart, it is no label of the program.
  const SLOT_KEY = '%slot';
  const setSlot = new Int32Array(data.label_sets.length).fill(-1);
  const setLabels = data.label_sets.map((pairs, s) => {
    const m = new Map();
    for (let i = 0; i < pairs.length; i += 2) m.set(str(pairs[i]), str(pairs[i + 1]));
    if (m.has(SLOT_KEY)) { setSlot[s] = Number(m.get(SLOT_KEY)); m.delete(SLOT_KEY); }
    if (!m.has('%pid')) m.set('%pid', rootPid); // the root process carries none
    return m;
  });
  const setProcess = data.processes.map((p) => (p < 0 ? rootPid : str(p)));
  const threadKey = (set, seq) => `${setProcess[set]}:${seq}`;

  // --- the call tree as embedded --------------------------------------------------
  const nodeCount = data.nodes.length / 2 + 1;
  const nodeParent = new Int32Array(nodeCount), nodeFrame = new Int32Array(nodeCount);
  nodeParent[0] = -1; nodeFrame[0] = ROOT_FRAME;
  for (let n = 1; n < nodeCount; n++) {
    nodeParent[n] = data.nodes[2 * (n - 1)];
    nodeFrame[n] = data.nodes[2 * (n - 1) + 1];
  }
  const leaves = data.leaves; // node, thread_seq, label_set, weight
  const leafCount = leaves.length / 4;

  // --- idle threads, and time outside requests ------------------------------------------
  // A thread that spent 99% or more of its time off the GVL (%GVL=blocked:
  // an idle worker, a thread waiting for I/O or a timer), as rperf-analyze
  // --hide-idle counts them; and, where requests were recorded (every
  // ended request's samples carry %latency, a slow one's %span too),
  // a sample outside any request waiting for work in one of the methods
  // the page names (idle_waits: Mutex#sleep, Queue#pop, a select...).
  // `idleWeight` is their time.
  const IDLE_SHARE = 0.99;
  const setInRequest = setLabels.map((m) => m.has('%latency') || m.has('%span'));
  const hasRequests = setInRequest.some((x) => x);
  const waitLabels = new Set(data.idle_waits || []);
  const frameWaits = Uint8Array.from({ length: BASE_FRAMES }, (_, f) => (waitLabels.has(frameLabel[f]) ? 1 : 0));
  const leafWaits = (i) => hasRequests && frameWaits[nodeFrame[leaves[4 * i]]] === 1 && !setInRequest[leaves[4 * i + 2]];
  const { idleThreads, idleWeight, waitingWeight, outsideRequests } = (() => {
    const total = new Map(), blocked = new Map();
    let outside = 0;
    for (let i = 0; i < leafCount; i++) {
      const seq = leaves[4 * i + 1], set = leaves[4 * i + 2], w = leaves[4 * i + 3];
      const t = threadKey(set, seq);
      total.set(t, (total.get(t) || 0) + w);
      if (setLabels[set].get('%GVL') === 'blocked') blocked.set(t, (blocked.get(t) || 0) + w);
      if (!setInRequest[set]) outside += w;
    }
    const idle = new Set();
    let weight = 0, waiting = 0;
    for (const [t, w] of total) {
      if (w > 0 && (blocked.get(t) || 0) >= IDLE_SHARE * w) { idle.add(t); weight += w; }
    }
    for (let i = 0; i < leafCount; i++)
      if (leafWaits(i) && !idle.has(threadKey(leaves[4 * i + 2], leaves[4 * i + 1]))) waiting += leaves[4 * i + 3];
    return { idleThreads: idle, idleWeight: weight + waiting, waitingWeight: waiting, outsideRequests: outside };
  })();
  // A differential page offers it when the base recorded requests too.
  const offersRequests = hasRequests && (!data.diff || !!data.diff.requests);
  const isIdle = (i) => idleThreads.has(threadKey(leaves[4 * i + 2], leaves[4 * i + 1])) || leafWaits(i);

  // A differential page (rperf-analyze diff --html): the base's total and
  // self at each embedded node's path (-1: the base has no such path).
  const diff = data.diff || null;
  // With the time inside requests only (both profiles recorded them), the
  // base's is too.
  const baseView = () => (state.inRequests && diff.requests ? diff.requests : diff);
  const baseNsOf = (node) => (node === 0 ? baseView().base_total_ns : node > 0 ? baseView().base_ns[node - 1] : -1);
  const baseSelfOf = (node) => (node === 0 ? 0 : node > 0 ? baseView().base_self_ns[node - 1] : -1);

  // --- filters ---------------------------------------------------------------------------
  const state = {
    search: null, focusFrame: -1, tagfocus: [], tagignore: [], tagroot: [], tagleaf: [],
    process: '', thread: '', hideIdle: false, flame: false, zoomPath: [], sort: 'self',
    range: null, // { from, to } in ns: the time strip's selection
    lines: !!data.lines_view, // a frame per line of code (line-level profiles)
    inverted: false, // the tree bottom-up: leaves as roots
    method: -1, // the method the Sandwich and Source tabs show (a frame of methodOf)
    myCode: false, // each run of library frames as one box (set up below)
    inRequests: false, // only the time inside requests and jobs (set up below)
  };

  function escapeRegex(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

  // "REGEX" or "KEY=REGEX", several separated by commas; throws on a bad regex.
  function parseTagExprs(text) {
    return text.split(',').map((t) => t.trim()).filter((t) => t).map((t) => {
      const eq = t.indexOf('=');
      if (eq > 0) return { key: t.slice(0, eq), re: new RegExp(t.slice(eq + 1)) };
      return { key: null, re: new RegExp(t) };
    });
  }
  const parseKeys = (text) => text.split(',').map((t) => t.trim()).filter((t) => t);

  function labelValue(set, seq, key) {
    return key === 'thread_seq' ? String(seq) : setLabels[set].get(key);
  }

  function matchesAny(exprs, set, seq) {
    for (const e of exprs) {
      if (e.key !== null) {
        const v = labelValue(set, seq, e.key);
        if (v !== undefined && e.re.test(v)) return true;
      } else {
        for (const v of setLabels[set].values()) if (e.re.test(v)) return true;
      }
    }
    return false;
  }

  // Nodes whose path from the root holds the focused frame.
  function focusedNodes() {
    if (state.focusFrame < 0) return null;
    const has = new Uint8Array(nodeCount);
    for (let n = 1; n < nodeCount; n++)
      has[n] = has[nodeParent[n]] || viewFrame(nodeFrame[n]) === state.focusFrame ? 1 : 0;
    return has;
  }

  const rerooted = () => state.focusFrame >= 0 && !state.inverted;
  const collapsing = () => state.myCode;
  // Per embedded node, the frame shown for it with library runs collapsed
  // (frames): its own (the application's, or a C method it called), the
  // frame of the library a run of library frames began in, or SAME_RUN
  // further inside the run, whichever library it is in by then (libs: its
  // library, -1 none). A parent's id is below its children's.
  const SAME_RUN = -2;
  function myCodeFrames() {
    const libs = new Int32Array(nodeCount).fill(APP_CODE), inRun = new Uint8Array(nodeCount);
    const frames = new Int32Array(nodeCount);
    for (let n = 1; n < nodeCount; n++) {
      const f = nodeFrame[n], parentInRun = inRun[nodeParent[n]] === 1;
      const code = f < frameCode.length ? frameCode[f] : APP_CODE;
      const library = code === CALLERS_CODE ? parentInRun : code >= 0;
      inRun[n] = library ? 1 : 0;
      libs[n] = code;
      frames[n] = !library ? viewFrame(f) : parentInRun ? SAME_RUN : libraryFrame(code);
    }
    return { frames, libs };
  }
  // Whether the profile has the application's own Ruby methods and some
  // library's: then "my code" is offered, and on at first.
  const offersMyCode = (() => {
    let app = false, lib = false;
    for (let n = 1; n < nodeCount && !(app && lib); n++) {
      const f = nodeFrame[n], code = f < frameCode.length ? frameCode[f] : CALLERS_CODE;
      if (code === APP_CODE && frameKind[f] === KIND.ruby) app = true;
      if (code >= 0) lib = true;
    }
    return app && lib;
  })();
  // Per embedded node, the outermost node on its path (itself included)
  // of the focused method; -1 where none is. A parent's id is below its
  // children's.
  function outermostFocus() {
    const start = new Int32Array(nodeCount).fill(-1);
    for (let n = 1; n < nodeCount; n++)
      start[n] = start[nodeParent[n]] >= 0 ? start[nodeParent[n]] : viewFrame(nodeFrame[n]) === state.focusFrame ? n : -1;
    return start;
  }

  // The leaves that pass every filter, as indexes.
  function passingLeaves() {
    const cache = new Map(), focus = focusedNodes(), out = [];
    for (let i = 0; i < leafCount; i++) {
      const node = leaves[4 * i], seq = leaves[4 * i + 1], set = leaves[4 * i + 2];
      if (focus && !focus[node]) continue;
      if (state.hideIdle && isIdle(i)) continue;
      const key = set * 4294967296 + seq;
      let ok = cache.get(key);
      if (ok === undefined) {
        ok = (!state.process || setProcess[set] === state.process) &&
          (!state.thread || threadKey(set, seq) === state.thread) &&
          !(state.inRequests && !setInRequest[set]) &&
          (!state.tagfocus.length || matchesAny(state.tagfocus, set, seq)) &&
          !(state.tagignore.length && matchesAny(state.tagignore, set, seq));
        cache.set(key, ok);
      }
      if (ok) out.push(i);
    }
    return out;
  }

  // --- the tree shown --------------------------------------------------------------------
  let shown = null; // { frame, parent, depth, self, total, children }

  // Per (label set, thread), cached: the label frames above a sample's
  // stack (tagroot, outermost first) and below it (tagleaf).
  function slicer() {
    const slices = new Map();
    return (set, seq) => {
      const key = set * 4294967296 + seq;
      let sl = slices.get(key);
      if (sl) return sl;
      const rootFrames = [], leafFrames = [];
      for (const k of state.tagroot) {
        const v = labelValue(set, seq, k);
        rootFrames.push(labelFrame(k, v === undefined ? '(not set)' : v));
      }
      for (const k of state.tagleaf) {
        const v = labelValue(set, seq, k);
        if (v !== undefined) leafFrames.push(labelFrame(k, v));
      }
      slices.set(key, (sl = { rootFrames, leafFrames }));
      return sl;
    };
  }

  // Label frames (tagroot, tagleaf) are found among a node's children
  // through `labelChild`; embedded nodes map one to one onto shown nodes
  // under each tagroot group, through an Int32Array per group (a Map past
  // a few dozen groups, to bound memory).
  const DENSE_GROUPS = 32;
  function buildShown(passing) {
    const frame = [ROOT_FRAME], parent = [-1], depth = [0], self = [0];
    const origin = [0]; // the embedded node a shown node stands for; -1 for label frames
    // On a differential page: the base's self time in the embedded nodes
    // each shown node stands for, and whether the base has any of them.
    const baseSelf = [0], baseKnown = [1];
    const baseFrameSelf = diff ? new Float64Array(BASE_FRAMES) : null; // per method, of the nodes shown
    function add(p, f, from = -1) {
      frame.push(f); parent.push(p); depth.push(depth[p] + 1); self.push(0); origin.push(from);
      baseSelf.push(0); baseKnown.push(0);
      return frame.length - 1;
    }
    const credit = (at, n) => {
      if (!diff) return;
      const b = baseSelfOf(n);
      if (b >= 0) { baseSelf[at] += b; baseKnown[at] = 1; baseFrameSelf[viewFrame(nodeFrame[n])] += b; }
    };
    const labelChild = new Map(); // frame -> parent -> child (small-integer keys)
    function labelChildOf(p, f, from = -1) {
      let byParent = labelChild.get(f);
      if (!byParent) labelChild.set(f, (byParent = new Map()));
      let c = byParent.get(p);
      if (c === undefined) byParent.set(p, (c = add(p, f, from)));
      return c;
    }
    // With lines folded into methods several embedded nodes are one shown
    // node: a child is found by its frame, as label frames are.
    // Focused on a method: the graph is rooted at it, every call path to
    // it merged, so each box below is found by its frame too.
    const reroot = rerooted();
    // "My code": a library's run of frames is one box, found by its frame.
    const code = collapsing() ? myCodeFrames() : null, codeFrame = code && code.frames;
    // what each library box's run went through, for its tooltip
    const runLibs = new Map();
    const noteRun = (p, n) => {
      if (code.libs[n] < 0) return;
      let set = runLibs.get(p);
      if (!set) runLibs.set(p, (set = new Set()));
      set.add(code.libs[n]);
    };
    const fold = merging() || reroot || codeFrame !== null;
    const focusStart = reroot ? outermostFocus() : null;
    const methodChild = (p, n) => {
      if (reroot && focusStart[n] === n) return labelChildOf(p, state.focusFrame);
      if (codeFrame) {
        if (codeFrame[n] !== SAME_RUN) return labelChildOf(p, codeFrame[n]);
        noteRun(p, n);
        return p;
      }
      return fold ? labelChildOf(p, viewFrame(nodeFrame[n])) : add(p, nodeFrame[n], n);
    };
    const groups = new Map(); // tagroot group's node -> base node -> shown node
    function mapOf(top) {
      let m = groups.get(top);
      if (!m) {
        m = groups.size < DENSE_GROUPS ? new Int32Array(nodeCount).fill(-1) : new Map();
        groups.set(top, m);
      }
      return m;
    }
    const chain = [];
    function shownNode(top, base) {
      const m = mapOf(top), dense = m instanceof Int32Array;
      chain.length = 0;
      let n = base, at = top;
      const first = focusStart ? focusStart[base] : 0; // the outermost node shown
      while (n > 0) {
        const known = dense ? m[n] : m.has(n) ? m.get(n) : -1;
        if (known >= 0) { at = known; break; }
        chain.push(n);
        if (n === first) break;
        n = nodeParent[n];
      }
      for (let i = chain.length - 1; i >= 0; i--) {
        at = methodChild(at, chain[i]);
        credit(at, chain[i]);
        if (dense) m[chain[i]] = at; else m.set(chain[i], at);
      }
      return at;
    }
    const slice = slicer();
    if (state.inverted) {
      // Bottom-up: each path from its leaf frame to its root frame.
      for (const i of passing) {
        const sl = slice(leaves[4 * i + 2], leaves[4 * i + 1]);
        let at = 0;
        for (let k = sl.leafFrames.length - 1; k >= 0; k--) at = labelChildOf(at, sl.leafFrames[k]);
        for (let n = leaves[4 * i]; n > 0; n = nodeParent[n]) {
          if (codeFrame && codeFrame[n] === SAME_RUN) { noteRun(at, n); continue; }
          at = labelChildOf(at, codeFrame ? codeFrame[n] : viewFrame(nodeFrame[n]));
        }
        for (let k = sl.rootFrames.length - 1; k >= 0; k--) at = labelChildOf(at, sl.rootFrames[k]);
        self[at] += leaves[4 * i + 3];
      }
    } else {
      const tops = new Map();
      for (const i of passing) {
        const sl = slice(leaves[4 * i + 2], leaves[4 * i + 1]);
        let top = tops.get(sl);
        if (top === undefined) {
          top = 0;
          for (const f of sl.rootFrames) top = labelChildOf(top, f);
          tops.set(sl, top);
        }
        let at = shownNode(top, leaves[4 * i]);
        for (const f of sl.leafFrames) at = labelChildOf(at, f);
        self[at] += leaves[4 * i + 3];
      }
    }
    const count = frame.length;
    const total = Float64Array.from(self);
    for (let n = count - 1; n > 0; n--) total[parent[n]] += total[n];
    // Children as one array sliced per node (first[n] .. first[n + 1]),
    // heaviest first.
    const first = new Int32Array(count + 1), kids = new Int32Array(Math.max(count - 1, 0));
    for (let n = 1; n < count; n++) first[parent[n] + 1]++;
    for (let n = 0; n < count; n++) first[n + 1] += first[n];
    const fill = first.slice(0, count);
    for (let n = 1; n < count; n++) kids[fill[parent[n]]++] = n;
    for (let n = 0; n < count; n++)
      if (first[n + 1] - first[n] > 1) kids.subarray(first[n], first[n + 1]).sort((a, b) => total[b] - total[a]);
    const children = (n) => kids.subarray(first[n], first[n + 1]);
    // The base's total per shown node: exact where a node stands for one
    // embedded node; where it stands for several (a merged call path, a
    // library's run), the base's self time summed over its subtree.
    let baseTotal = null;
    if (diff) {
      baseTotal = Float64Array.from(baseSelf);
      for (let n = count - 1; n > 0; n--) baseTotal[parent[n]] += baseTotal[n];
      for (let n = 1; n < count; n++) if (!fold && origin[n] > 0) baseTotal[n] = baseNsOf(origin[n]);
      // focused, the base's time through the method; else all of it
      if (!reroot) baseTotal[0] = baseView().base_total_ns;
    }
    return { frame, parent, depth, self, total, children, origin, runLibs, baseSelf, baseKnown, baseTotal, baseFrameSelf };
  }

  // Per frame: self and total over the embedded tree (no label frames),
  // a frame counted once per path even under recursion.
  // With folded call paths the tree has lost the methods inside them; for
  // everything (no filter) the page carries their exact weights.
  function exactFrameWeights() {
    const self = Float64Array.from({ length: BASE_FRAMES }, (_, f) => data.frame_self_ns[f] || 0);
    const total = new Float64Array(BASE_FRAMES), pairs = data.frame_total_ns;
    for (let i = 0; i < pairs.length; i += 2) total[pairs[i]] = pairs[i + 1];
    return { self, total };
  }

  // `keyOf` (frame -> key below keyCount; viewFrame by default) says what
  // is weighed: methods, lines of code.
  function frameWeights(passing, keyOf = viewFrame, keyCount = BASE_FRAMES) {
    if (data.frame_self_ns && passing.length === leafCount && keyOf === viewFrame && !merging())
      return exactFrameWeights();
    const selfAt = new Float64Array(nodeCount);
    for (const i of passing) selfAt[leaves[4 * i]] += leaves[4 * i + 3];
    const totalAt = Float64Array.from(selfAt);
    for (let n = nodeCount - 1; n > 0; n--) totalAt[nodeParent[n]] += totalAt[n];
    const self = new Float64Array(keyCount), total = new Float64Array(keyCount);
    // A node adds to its key's total unless an ancestor has the same key.
    const onPath = new Int32Array(keyCount);
    const kids = baseChildren();
    const stack = [0];
    while (stack.length) {
      const n = stack.pop();
      if (n < 0) { onPath[keyOf(nodeFrame[~n])]--; continue; }
      const f = n > 0 ? keyOf(nodeFrame[n]) : -1; // -1: no key (weighed as nothing)
      if (f >= 0) {
        self[f] += selfAt[n];
        if (onPath[f] === 0) total[f] += totalAt[n];
        onPath[f]++;
        stack.push(~n);
      }
      for (let c = kids.first[n]; c < kids.first[n + 1]; c++)
        if (totalAt[kids.list[c]] > 0) stack.push(kids.list[c]);
    }
    return { self, total };
  }

  let baseKids = null;
  function baseChildren() {
    if (baseKids) return baseKids;
    const first = new Int32Array(nodeCount + 1), list = new Int32Array(Math.max(nodeCount - 1, 0));
    for (let n = 1; n < nodeCount; n++) first[nodeParent[n] + 1]++;
    for (let n = 0; n < nodeCount; n++) first[n + 1] += first[n];
    const fill = first.slice(0, nodeCount);
    for (let n = 1; n < nodeCount; n++) list[fill[nodeParent[n]]++] = n;
    baseKids = { first, list };
    return baseKids;
  }

  // --- numbers -----------------------------------------------------------------------------
  const msFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const ms = (ns) => msFormat.format(ns / 1e6);
  const countFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  const UNIT = data.unit || 'ms';
  // A weight as a number in the measure's unit, and with the unit.
  const num = (w) => (UNIT === 'ms' ? ms(w) : countFormat.format(w));
  const val = (w) => `${num(w)} ${UNIT}`;
  const pct = (part, whole) => (whole > 0 ? ((part * 100) / whole).toFixed(1) : '0.0') + '%';
  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  }

  // --- drawing -----------------------------------------------------------------------------
  const ROW = 18;
  const canvas = $('flame'), ctx = canvas.getContext('2d');
  let boxes = []; // { node, x, y, w } in CSS pixels of the canvas
  let zoomNode = 0, matched = null, hover = -1;

  // Sizes a canvas to width x height CSS pixels at the screen's pixel
  // ratio (sharp on any screen) and clears it; drawing uses CSS pixels.
  function prepareCanvas(c, context, width, height) {
    const ratio = window.devicePixelRatio || 1;
    c.width = Math.round(width * ratio);
    c.height = Math.round(height * ratio);
    c.style.width = width + 'px';
    c.style.height = height + 'px';
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
  }

  function hashOf(s) {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return (h >>> 0) / 4294967296;
  }
  // Differential colour: the change of a box's own (self) time from base
  // to target, as the text diff and the Top table's change column count
  // it, so that the change is painted where it happened rather than on
  // every ancestor; red grew, blue shrank, full colour at the page's
  // largest change (no less than DIFF_FULL_FLOOR of the larger total, so
  // that two equal profiles stay pale).
  const DIFF_FULL_FLOOR = 0.0025;
  const shareOf = (ns, all) => ns / (all || 1);
  const selfChange = (n) => shown.self[n] - shown.baseSelf[n];
  let diffFull = 1;
  function measureDiffScale() {
    diffFull = DIFF_FULL_FLOOR * Math.max(shown.total[0], shown.baseTotal[0], 1);
    for (let n = 1; n < shown.frame.length; n++) diffFull = Math.max(diffFull, Math.abs(selfChange(n)));
    if ($('diff-full')) $('diff-full').textContent = val(diffFull);
    if ($('diff-base-total')) $('diff-base-total').textContent = val(shown.baseTotal[0]);
    if ($('diff-target-total')) $('diff-target-total').textContent = val(shown.total[0]);
  }
  function diffColorOf(n) {
    if (shown.frame[n] >= 0 && frameKind[shown.frame[n]] === KIND.other) return '#e2e2e2';
    if (n > 0 && !shown.baseKnown[n] && shown.self[n] > 0) return 'hsl(0,85%,52%)';
    const delta = n > 0 ? selfChange(n) : 0;
    const strength = Math.min(1, Math.abs(delta) / diffFull);
    return `hsl(${delta >= 0 ? 0 : 218},${Math.round(20 + 65 * strength)}%,${Math.round(94 - 40 * strength)}%)`;
  }

  function colorOf(f) {
    if (f === ROOT_FRAME) return '#c8c8c8';
    const kind = frameKind[f], h = hashOf(frameLabel[f]);
    switch (kind) {
      case KIND.cfunc: return `hsl(${195 + 25 * h},55%,${62 + 10 * h}%)`;
      case KIND.state: return `hsl(${265 + 20 * h},35%,${68 + 8 * h}%)`;
      case KIND.label: return `hsl(${105 + 30 * h},45%,${58 + 10 * h}%)`;
      case KIND.other: return '#e2e2e2';
      case KIND.library: return `hsl(${200 + 30 * h},14%,${74 + 8 * h}%)`;
      default: return `hsl(${8 + 37 * h},78%,${58 + 8 * h}%)`;
    }
  }

  function resolveZoom() {
    let n = 0;
    for (const f of state.zoomPath) {
      const next = shown.children(n).find((c) => shown.frame[c] === f);
      if (next === undefined) { state.zoomPath = []; return 0; }
      n = next;
    }
    return n;
  }

  function pathTo(n) {
    const path = [];
    for (; n > 0; n = shown.parent[n]) path.push(n);
    return path.reverse();
  }

  function draw() {
    const width = canvas.parentElement.clientWidth;
    const zTotal = shown.total[zoomNode] || 1;
    const visible = [];
    const ancestors = [0, ...pathTo(zoomNode)];
    for (const a of ancestors) visible.push({ node: a, x: 0, w: width });
    visible.pop(); // the zoomed node itself is laid out below with its children
    let maxDepth = 0;
    const stack = [{ node: zoomNode, x: 0 }];
    while (stack.length) {
      const { node, x } = stack.pop();
      const w = (shown.total[node] / zTotal) * width;
      visible.push({ node, x, w });
      if (shown.depth[node] > maxDepth) maxDepth = shown.depth[node];
      let cx = x;
      for (const c of shown.children(node)) {
        const cw = (shown.total[c] / zTotal) * width;
        if (cw >= 0.35) stack.push({ node: c, x: cx });
        cx += cw;
      }
    }
    const height = (maxDepth + 1) * ROW;
    prepareCanvas(canvas, ctx, width, height);
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    boxes = [];
    for (const b of visible) {
      const d = shown.depth[b.node];
      const y = state.flame ? (maxDepth - d) * ROW : d * ROW;
      const f = shown.frame[b.node];
      const isMatch = matched && matched[b.node];
      ctx.fillStyle = isMatch ? '#d63bd6' : diff ? diffColorOf(b.node) : colorOf(f);
      const w = Math.max(b.w - 0.5, 0.35);
      ctx.fillRect(b.x, y, w, ROW - 1);
      if (b.node === hover) {
        ctx.strokeStyle = '#222';
        ctx.strokeRect(b.x + 0.5, y + 0.5, Math.max(w - 1, 0), ROW - 2);
      }
      if (w > 28) {
        const label = f !== ROOT_FRAME ? nameOf(f) : rerooted()
          ? `${nameOf(state.focusFrame)}: all its call paths (${val(shown.total[0])})` : `all (${val(shown.total[0])})`;
        ctx.fillStyle = isMatch ? '#fff' : '#1a1a1a';
        ctx.fillText(fitText(label, w - 6), b.x + 3, y + ROW / 2);
      }
      boxes.push({ node: b.node, x: b.x, y, w: b.w });
    }
    drawCrumbs();
  }

  const fitCache = new Map();
  function fitText(text, room) {
    const key = text + '\u0000' + Math.floor(room);
    let fit = fitCache.get(key);
    if (fit !== undefined) return fit;
    fit = text;
    if (ctx.measureText(text).width > room) {
      let lo = 0, hi = text.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (ctx.measureText(text.slice(0, mid) + '…').width <= room) lo = mid; else hi = mid - 1;
      }
      fit = lo > 0 ? text.slice(0, lo) + '…' : '';
    }
    if (fitCache.size > 20000) fitCache.clear();
    fitCache.set(key, fit);
    return fit;
  }

  function drawCrumbs() {
    const nav = $('crumbs');
    nav.textContent = '';
    const path = [0, ...pathTo(zoomNode)];
    const crumb = (text, title, disabled, action) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      b.title = title;
      b.disabled = disabled;
      b.addEventListener('click', action);
      nav.append(b);
    };
    // Focused: the way back to every call path first.
    if (rerooted()) {
      crumb('all', 'back to the whole graph', false, () => { state.focusFrame = -1; update(); });
      nav.append(' › ');
      nav.append(Object.assign(document.createElement('span'), { className: 'crumb-focus', textContent: 'focus:' }), ' ');
    }
    path.forEach((n, i) => {
      if (i) nav.append(' › ');
      crumb(n === 0 ? (rerooted() ? `${nameOf(state.focusFrame)} (all call paths)` : 'all') : nameOf(shown.frame[n]),
        val(shown.total[n]), n === zoomNode, () => zoomTo(n));
    });
  }

  function zoomTo(n) {
    zoomNode = n;
    state.zoomPath = pathTo(n).map((m) => shown.frame[m]);
    hover = -1;
    $('tooltip').hidden = true;
    draw();
  }

  function boxAt(x, y) {
    for (let i = boxes.length - 1; i >= 0; i--) {
      const b = boxes[i];
      if (y >= b.y && y < b.y + ROW && x >= b.x && x < b.x + Math.max(b.w, 1)) return b;
    }
    return null;
  }

  const signed = (x, text) => `${x >= 0 ? '+' : ''}${text}`;
  const points = (x) => signed(x, (x * 100).toFixed(1)) + ' points';
  function diffTooltipRows(n) {
    const base = shown.baseKnown[n] ? shown.baseTotal[n] : -1;
    if (base < 0) return '<tr><th>base</th><td colspan="3">not in the base profile (new)</td></tr>';
    const baseSelf = shown.baseSelf[n];
    const baseTotal = shown.baseTotal[0];
    const totalChange = shareOf(shown.total[n], shown.total[0]) - shareOf(base, baseTotal);
    const selfShareChange = shareOf(shown.self[n], shown.total[0]) - shareOf(baseSelf, baseTotal);
    return `<tr><th>base total</th><td>${val(base)}</td><td>${pct(base, baseTotal)} of all</td>` +
      `<td>${signed(shown.total[n] - base, val(shown.total[n] - base))}, ${points(totalChange)}</td></tr>` +
      `<tr><th>base self</th><td>${val(baseSelf)}</td><td>${pct(baseSelf, baseTotal)} of all</td>` +
      `<td>${signed(selfChange(n), val(selfChange(n)))}, ${points(selfShareChange)}</td></tr>`;
  }

  // A library box: the libraries its run went through after its own.
  function runHint(n, f) {
    const own = frameLabel[f].slice(1, -1);
    const others = [...(shown.runLibs.get(n) || [])].map((lib) => libraries[lib][0]).filter((name) => name !== own);
    return '<div class="hint">' + (others.length ? `on through ${escapeHtml(others.slice(0, 8).join(', '))}` +
      (others.length > 8 ? ` and ${others.length - 8} more` : '') + ' · ' : '') +
      'one box from where the application called it (or the thread began) to where the application\'s code ' +
      'runs again: uncheck “my code” to see inside</div>';
  }

  function showTooltip(b, ev) {
    const tip = $('tooltip'), n = b.node, f = shown.frame[n];
    const all = shown.total[0], par = n > 0 ? shown.total[shown.parent[n]] : all;
    const path = f >= 0 ? framePath[f] : '';
    tip.innerHTML = `<strong>${escapeHtml(nameOf(f))}</strong>` +
      (path ? `<div class="path">${escapeHtml(path)}</div>` : '') +
      `<table><tr><th>total</th><td>${val(shown.total[n])}</td><td>${pct(shown.total[n], all)} of all</td>` +
      `<td>${pct(shown.total[n], par)} of parent</td></tr>` +
      `<tr><th>self</th><td>${val(shown.self[n])}</td><td>${pct(shown.self[n], all)} of all</td><td></td></tr>` +
      (diff ? diffTooltipRows(n) : '') + '</table>' +
      (f >= 0 && f < BASE_FRAMES && frameKind[f] !== KIND.other ? '<div class="hint">click: zoom · shift-click: focus (rooted here, all call paths) · right-click: callers and callees</div>' : '') +
      (f >= 0 && frameKind[f] === KIND.library ? runHint(n, f) : '');
    tip.hidden = false;
    const box = canvas.parentElement.getBoundingClientRect();
    let left = ev.clientX - box.left + 14, top = ev.clientY - box.top + 14;
    if (left + tip.offsetWidth > box.width) left = Math.max(0, ev.clientX - box.left - tip.offsetWidth - 14);
    tip.style.left = left + 'px';
    tip.style.top = top + 'px';
  }

  canvas.addEventListener('mousemove', (ev) => {
    const r = canvas.getBoundingClientRect();
    const b = boxAt(ev.clientX - r.left, ev.clientY - r.top);
    const n = b ? b.node : -1;
    if (n !== hover) { hover = n; draw(); }
    if (b) showTooltip(b, ev); else $('tooltip').hidden = true;
  });
  canvas.addEventListener('mouseleave', () => { hover = -1; $('tooltip').hidden = true; draw(); });
  canvas.addEventListener('click', (ev) => {
    const r = canvas.getBoundingClientRect();
    const b = boxAt(ev.clientX - r.left, ev.clientY - r.top);
    if (!b) return;
    const f = shown.frame[b.node];
    if (ev.shiftKey && f >= 0 && f < BASE_FRAMES && frameKind[f] !== KIND.other) focusMethod(f);
    else zoomTo(b.node === zoomNode && b.node !== 0 ? shown.parent[b.node] : b.node);
  });
  // A right-click on a method's box shows its callers and callees.
  canvas.addEventListener('contextmenu', (ev) => {
    const r = canvas.getBoundingClientRect();
    const b = boxAt(ev.clientX - r.left, ev.clientY - r.top);
    const f = b ? shown.frame[b.node] : -1;
    if (f < 0 || f >= BASE_FRAMES || frameKind[f] === KIND.other) return;
    ev.preventDefault();
    $('tooltip').hidden = true;
    chooseMethod(f, 'sandwich');
  });

  // --- search --------------------------------------------------------------------------------
  // Marks the shown nodes whose frame matches; the share counts a nested
  // match once (its outermost matching ancestor covers it).
  function applySearch() {
    matched = null;
    const out = $('search-result');
    if (!state.search) { out.textContent = ''; return; }
    matched = new Uint8Array(shown.frame.length);
    let covered = 0;
    for (let n = 1; n < shown.frame.length; n++) {
      const f = shown.frame[n];
      if (!state.search.test(nameOf(f)) && !(f >= 0 && state.search.test(framePath[f]))) continue;
      matched[n] = 1;
      let a = shown.parent[n], inside = false;
      for (; a > 0; a = shown.parent[a]) if (matched[a]) { inside = true; break; }
      if (!inside) covered += shown.total[n];
    }
    out.textContent = `Matched: ${pct(covered, shown.total[0])} (${val(covered)})`;
    out.dataset.ns = String(covered);
  }

  // --- tables ------------------------------------------------------------------------------------
  const TOP_ROWS = 100;
  function renderTop(passing, shownTotal) {
    const { self, total } = frameWeights(passing);
    const rows = [];
    // On a differential page: the change of a method's self time from the base.
    // focused, the base's methods along the paths shown
    const baseSelf = !diff ? null : rerooted() ? shown.baseFrameSelf : baseView().base_frame_self_ns;
    const change = (f) => self[f] - (baseSelf[f] || 0);
    for (let f = 0; f < BASE_FRAMES; f++) if (total[f] > 0 || (baseSelf && baseSelf[f] > 0)) rows.push(f);
    const by = {
      change: (a, b) => change(b) - change(a) || self[b] - self[a],
      self: (a, b) => self[b] - self[a] || total[b] - total[a],
      total: (a, b) => total[b] - total[a] || self[b] - self[a],
      name: (a, b) => nameOf(a).localeCompare(nameOf(b)),
      path: (a, b) => framePath[a].localeCompare(framePath[b]) || nameOf(a).localeCompare(nameOf(b)),
    }[state.sort];
    rows.sort(by);
    const html = rows.slice(0, TOP_ROWS).map((f) =>
      `<tr data-frame="${f}"><td class="num">${num(self[f])}</td><td class="num">${pct(self[f], shownTotal)}</td>` +
      `<td class="num">${num(total[f])}</td><td class="num">${pct(total[f], shownTotal)}</td>` +
      (diff ? `<td class="num change">${signed(change(f), num(change(f)))}</td>` : '') +
      `<td class="name">${escapeHtml(nameOf(f))}</td><td class="path">${escapeHtml(framePath[f])}</td>` +
      `<td>${frameKind[f] === KIND.other ? '' : '<button type="button" class="to-sandwich" title="this method\'s callers and callees">callers/callees</button>'}</td></tr>`);
    $('top-body').innerHTML = html.join('\n');
    const sortName = { self: 'self time', total: 'total time', name: 'name', path: 'file',
      change: 'change of self time from the base' }[state.sort];
    $('top-caption').textContent = `Top ${Math.min(rows.length, TOP_ROWS)} of ${rows.length.toLocaleString('en-US')} methods by ${sortName}` +
      (data.folded_nodes > 0 && passing.length < leafCount ? ' (time in folded call paths counts as “(other)” here)' : '');
    for (const th of document.querySelectorAll('#top-table th')) th.classList.toggle('sorted', th.dataset.sort === state.sort);
  }

  function renderTags(passing, shownTotal) {
    const byKey = new Map(); // key -> Map(value -> weight)
    const add = (key, value, w) => {
      let m = byKey.get(key);
      if (!m) byKey.set(key, (m = new Map()));
      m.set(value, (m.get(value) || 0) + w);
    };
    const keys = new Set();
    for (const m of setLabels) for (const k of m.keys()) keys.add(k);
    if (data.processes.every((p) => p < 0)) keys.delete('%pid'); // one process: no such label
    for (const i of passing) {
      const seq = leaves[4 * i + 1], set = leaves[4 * i + 2], w = leaves[4 * i + 3];
      for (const k of keys) add(k, setLabels[set].has(k) ? setLabels[set].get(k) : null, w);
      add('thread_seq', String(seq), w);
    }
    const tables = [...byKey.keys()].sort((a, b) => (a === 'thread_seq') - (b === 'thread_seq') || (a < b ? -1 : a > b))
      .map((key) => {
        const rows = [...byKey.get(key).entries()].sort((a, b) =>
          key === 'thread_seq' ? Number(a[0]) - Number(b[0]) : b[1] - a[1]);
        const body = rows.map(([value, w]) => {
          const unset = value === null, text = unset ? '(not set)' : value;
          return `<tr data-value="${escapeHtml(text)}"${unset ? ' data-unset=""' : ''}><td>${unset ? '<em>' : ''}${escapeHtml(text)}${unset ? '</em>' : ''}</td>` +
            `<td class="num">${num(w)}</td><td class="num">${pct(w, shownTotal)}</td>` +
            `<td class="barcell"><span class="hbar" style="width:${shownTotal > 0 ? ((w * 100) / shownTotal).toFixed(3) : 0}%"></span></td></tr>`;
        }).join('\n');
        return `<table class="tag" data-key="${escapeHtml(key)}"><caption>${escapeHtml(key)}</caption><thead><tr>` +
          `<th scope="col">Value</th><th scope="col" class="num">${escapeHtml(UNIT)}</th><th scope="col" class="num">share</th><th scope="col"></th></tr></thead>` +
          `<tbody>\n${body}</tbody></table>`;
      });
    $('tags-body').innerHTML = tables.join('\n');
  }

  // --- time within a run ----------------------------------------------------------------------
  // A thread's time recorded per part, laid along the run. The agent
  // records a wait or a block when it ends, in the part where it ended: a
  // sleep through three parts is all in the third, and reaches back over
  // the other two. So each part's pieces (lengths in ns, earliest first:
  // pieces(s)) are laid back from the part's end, or from where the later
  // part's pieces began when that is earlier, and not before the run's
  // start; put(s, i, from, to) gets each piece's stretch. The time strip
  // (view_strip.js) and the Threads tab draw time so.
  // What the slots are called: the files' parts, or stretches of time
  // within a recording (load.h).
  const SLOTS = data.slots_are || 'parts';
  // A slot time (ns from data.slots_origin_ns, a Unix time) as a clock time.
  const slotClock = (ns) => new Date(data.slots_origin_ns / 1e6 + ns / 1e6).toLocaleTimeString('en-GB', { hour12: false });
  const slotStart = (s) => data.slots[2 * s], slotEnd = (s) => data.slots[2 * s] + data.slots[2 * s + 1];
  const slotsBack = [...Array((data.slots || []).length / 2).keys()].sort((a, b) => slotStart(b) - slotStart(a) || b - a);
  const runStart = slotsBack.length ? Math.min(...slotsBack.map(slotStart)) : 0;
  function layBack(pieces, put) {
    let limit = Infinity;
    for (const s of slotsBack) {
      const ps = pieces(s);
      if (!ps.some((ns) => ns > 0)) continue;
      let at = Math.min(slotEnd(s), limit);
      for (let i = ps.length - 1; i >= 0; i--) {
        if (ps[i] <= 0) continue;
        const from = Math.max(runStart, at - ps[i]);
        put(s, i, from, at);
        at = from;
      }
      limit = at;
    }
  }

  let strip = null; // view_strip.js's, set up below

  // --- the status line -----------------------------------------------------------------------------
  function renderStatus(shownTotal) {
    const st = $('status');
    st.textContent = '';
    const span = document.createElement('span');
    span.id = 'shown-total';
    span.dataset.ns = String(shownTotal);
    span.textContent = `Shown: ${val(shownTotal)} of ${val(data.total_ns)} (${pct(shownTotal, data.total_ns)})`;
    st.append(span);
    if (state.hideIdle) {
      const idle = document.createElement('span');
      idle.id = 'idle-hidden';
      idle.textContent = `${idleThreads.size} idle thread${idleThreads.size === 1 ? '' : 's'} hidden` +
        (waitingWeight > 0 ? ' and the time others waited for work outside requests' : '') +
        ` (${val(idleWeight)}, ${pct(idleWeight, data.total_ns)} of the time)`;
      st.append(' — ', idle);
    }
    if (state.inRequests) {
      const inside = document.createElement('span');
      inside.id = 'in-requests-note';
      inside.textContent = `inside requests and jobs only: ${val(outsideRequests)} (${pct(outsideRequests, data.total_ns)}) ` +
        'outside them left out — idle threads, waiting for work, the server\'s own loop';
      const all = document.createElement('button');
      all.type = 'button';
      all.id = 'show-everything';
      all.textContent = 'show everything';
      all.addEventListener('click', () => { $('in-requests').checked = false; onControl(); });
      st.append(' — ', inside, ' ', all);
    }
    if (collapsing()) {
      const note = document.createElement('span');
      note.id = 'my-code-note';
      note.textContent = 'my code: each run of a gem\'s, Ruby\'s or the VM\'s frames is one grey box named for it';
      st.append(' — ', note);
    }
    const result = document.createElement('span');
    result.id = 'search-result';
    st.append(' ', result);
    const share = endpointShare(shownTotal);
    if (share) {
      const e = document.createElement('span');
      e.id = 'focus-endpoint';
      e.dataset.endpointNs = String(share.wall_ns);
      e.textContent = `${pct(shownTotal, share.wall_ns)} of ${share.name}'s ${val(share.wall_ns)} in requests ` +
        `(the Requests tab's figure; the rest is outside ${nameOf(state.focusFrame)}: the framework around it, ` +
        'waiting for the GVL)';
      st.append(' — ', e);
    }
    if (state.focusFrame >= 0) {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.className = 'chip';
      chip.textContent = `focus: ${nameOf(state.focusFrame)} ✕`;
      chip.title = 'only stacks through this method; click to clear';
      chip.addEventListener('click', () => { state.focusFrame = -1; update(); });
      st.append(' ', chip);
    }
  }

  // Focused on a method that nearly all runs inside one endpoint's
  // requests (a controller's action): that endpoint's row of the Requests
  // tab, whose time the method's is part of.
  function endpointShare(shownTotal) {
    if (!rerooted() || !data.requests || !(shownTotal > 0)) return null;
    const byEndpoint = new Map();
    for (const i of lastPassing) {
      const name = setLabels[leaves[4 * i + 2]].get('endpoint');
      if (name !== undefined) byEndpoint.set(name, (byEndpoint.get(name) || 0) + leaves[4 * i + 3]);
    }
    const [name, w] = [...byEndpoint.entries()].sort((a, b) => b[1] - a[1])[0] || [];
    const row = name !== undefined && w >= 0.9 * shownTotal ? data.requests.endpoints.find((e) => e.name === name) : null;
    return row ? { name, wall_ns: row.wall_ns } : null;
  }

  // --- everything, after any change -------------------------------------------------------------
  // The tabs drawn from the samples that pass, by name: each is drawn when
  // shown, and again when shown after a change.
  const panels = new Map([
    ['top', (passing) => renderTop(passing, shown.total[0])],
    ['tags', (passing) => renderTags(passing, shown.total[0])],
  ]);
  const stalePanels = new Set();
  let lastPassing = [], lastUntimed = [];
  function update() {
    const untimed = passingLeaves();
    const passing = strip.select(untimed);
    strip.draw(untimed);
    lastPassing = passing;
    lastUntimed = untimed;
    shown = buildShown(passing);
    if (diff) measureDiffScale();
    zoomNode = resolveZoom();
    renderStatus(shown.total[0]);
    applySearch();
    draw();
    for (const [name, render] of panels) {
      if (!$('panel-' + name).hidden) render(passing); else stalePanels.add(name);
    }
  }

  function showError(message) {
    const e = $('error');
    e.textContent = message;
    e.hidden = !message;
  }

  function readControls() {
    try {
      state.tagfocus = parseTagExprs($('tagfocus').value);
      state.tagignore = parseTagExprs($('tagignore').value);
      const s = $('search').value;
      state.search = s ? new RegExp(s) : null;
      showError('');
    } catch (err) {
      showError(`Not a regular expression: ${err.message}`);
      return false;
    }
    state.tagroot = parseKeys($('tagroot').value);
    state.tagleaf = parseKeys($('tagleaf').value);
    state.process = $('process').value;
    state.thread = $('thread').value;
    state.hideIdle = $('hide-idle').checked;
    state.inRequests = offersRequests && $('in-requests').checked;
    const myCode = offersMyCode && $('my-code').checked;
    if (myCode !== state.myCode) state.zoomPath = []; // other boxes, other tree
    state.myCode = myCode;
    state.flame = $('flame-order').checked;
    const lines = hasLines && $('by-line').checked, inverted = $('inverted').checked;
    if (lines !== state.lines || inverted !== state.inverted) state.zoomPath = []; // other frames, other tree
    if (lines !== state.lines && state.focusFrame >= 0 && state.focusFrame < BASE_FRAMES)
      state.focusFrame = methodOf[state.focusFrame];
    state.lines = lines;
    state.inverted = inverted;
    return true;
  }

  let timer = 0;
  function onControl(ev) {
    clearTimeout(timer);
    const run = () => {
      if (!readControls()) return;
      if (ev && ev.target && ev.target.id === 'search') { applySearch(); draw(); } else update();
    };
    if (ev && ev.type === 'input') timer = setTimeout(run, 120); else run();
  }
  for (const id of ['search', 'tagfocus', 'tagignore', 'tagroot', 'tagleaf'])
    $(id).addEventListener('input', onControl);
  for (const id of ['process', 'thread', 'hide-idle', 'in-requests', 'my-code', 'flame-order', 'by-line', 'inverted'])
    $(id).addEventListener('change', onControl);
  $('controls').addEventListener('submit', (ev) => { ev.preventDefault(); onControl(); });
  $('reset').addEventListener('click', () => {
    for (const id of ['search', 'tagfocus', 'tagignore', 'tagroot']) $(id).value = '';
    $('tagleaf').value = '%GVL, %GC';
    $('process').value = '';
    $('thread').value = '';
    $('hide-idle').checked = false;
    $('my-code').checked = offersMyCode;
    $('in-requests').checked = offersRequests;
    $('flame-order').checked = false;
    $('by-line').checked = !!data.lines_view;
    $('inverted').checked = false;
    state.focusFrame = -1;
    state.zoomPath = [];
    state.range = null;
    onControl();
  });

  // --- tabs -------------------------------------------------------------------------------------------
  const TABS = ['flame', 'top', 'tags', 'sandwich', 'source', 'threads', 'requests'];
  function selectTab(name) {
    for (const t of TABS) {
      $('tab-' + t).setAttribute('aria-selected', String(t === name));
      $('panel-' + t).hidden = t !== name;
    }
    if (stalePanels.has(name)) { stalePanels.delete(name); panels.get(name)(lastPassing); }
    if (name === 'flame') draw();
  }
  for (const t of TABS) $('tab-' + t).addEventListener('click', () => selectTab(t));

  $('top-table').querySelector('thead').addEventListener('click', (ev) => {
    const th = ev.target.closest('th');
    if (!th) return;
    state.sort = th.dataset.sort;
    renderTop(lastPassing, shown.total[0]);
  });
  $('top-body').addEventListener('click', (ev) => {
    const tr = ev.target.closest('tr[data-frame]');
    if (!tr) return;
    if (ev.target.closest('button.to-sandwich')) chooseMethod(Number(tr.dataset.frame), 'sandwich');
    else focusMethod(Number(tr.dataset.frame));
  });
  $('tags-body').addEventListener('click', (ev) => {
    const tr = ev.target.closest('tr[data-value]');
    const table = tr && tr.closest('table[data-key]');
    if (!tr || !table || tr.hasAttribute('data-unset')) return;
    $('tagfocus').value = `${table.dataset.key}=^${escapeRegex(tr.dataset.value)}$`;
    onControl();
  });

  // --- process and thread choices ---------------------------------------------------------------
  function fillChoices() {
    const byProcess = new Map(), byThread = new Map();
    for (let i = 0; i < leafCount; i++) {
      const seq = leaves[4 * i + 1], set = leaves[4 * i + 2], w = leaves[4 * i + 3];
      const p = setProcess[set], t = threadKey(set, seq);
      byProcess.set(p, (byProcess.get(p) || 0) + w);
      byThread.set(t, (byThread.get(t) || 0) + w);
    }
    const sel = $('process');
    [...byProcess.entries()].sort((a, b) => Number(a[0]) - Number(b[0])).forEach(([p, w]) => {
      sel.append(new Option(`${p}${p === rootPid ? ' (root)' : ''} — ${val(w)}`, p));
    });
    const tsel = $('thread');
    const many = byProcess.size > 1;
    [...byThread.entries()].sort((a, b) => {
      const [pa, sa] = a[0].split(':').map(Number), [pb, sb] = b[0].split(':').map(Number);
      return pa - pb || sa - sb;
    }).forEach(([t, w]) => {
      const [p, seq] = t.split(':');
      tsel.append(new Option(`${many ? `pid ${p} ` : ''}thread ${seq} — ${val(w)}`, t));
    });
  }

  window.addEventListener('resize', () => {
    if (!$('panel-flame').hidden) draw();
    strip.draw(null);
  });

  // For tests and scripts: what is drawn, in page coordinates.
  window.rperfViewer = {
    boxes() {
      const r = canvas.getBoundingClientRect();
      return boxes.map((b) => ({
        name: nameOf(shown.frame[b.node]),
        path: shown.frame[b.node] >= 0 ? framePath[shown.frame[b.node]] : '',
        x: r.left + window.scrollX + b.x, y: r.top + window.scrollY + b.y, w: b.w, h: ROW,
        total_ns: shown.total[b.node], self_ns: shown.self[b.node],
        share: shown.total[0] > 0 ? shown.total[b.node] / shown.total[0] : 0,
        matched: !!(matched && matched[b.node]),
        base_ns: diff ? (shown.baseKnown[b.node] ? shown.baseTotal[b.node] : -1) : undefined,
        base_self_ns: diff ? shown.baseSelf[b.node] : undefined,
        self_change: diff && b.node > 0 ? selfChange(b.node) : undefined,
        color: diff ? diffColorOf(b.node) : colorOf(shown.frame[b.node]),
        zoomed: b.node === zoomNode,
        stack: pathTo(b.node).map((n) => nameOf(shown.frame[n])), // root first, the box last
      }));
    },
    shownTotal: () => shown.total[0],
    idleThreads: () => [...idleThreads],
    myCode: () => collapsing(),
    inRequests: () => state.inRequests,
    outsideRequestsNs: outsideRequests,
    measure: () => (data.measures && data.measures[wantedMeasure] ? wantedMeasure : topMeasure),
    unit: UNIT,
    zoomedName: () => nameOf(shown.frame[zoomNode]),
    strip: () => strip.describe(),
    sandwich: () => views.sandwich.describe(),
    source: () => views.source.describe(),
    threads: () => views.threads.describe(),
    // The method a name designates (as the Sandwich tab's box finds it),
    // shown in `tab` ('sandwich' or 'source').
    choose(name, tab) {
      const got = views.sandwich.find(name);
      if (got.method === undefined) throw new Error(got.error);
      chooseMethod(got.method, tab);
    },
  };

  // A differential page compares the target with the base: label frames
  // and filters the base is not known for would compare a part of the
  // target with all of the base, so they are off; focus, "my code" and
  // the time inside requests (when both recorded requests) stay.
  function setUpDiff() {
    if (!diff) return;
    $('tagleaf').value = '';
    for (const id of ['tagfocus', 'tagignore', 'tagroot', 'tagleaf', 'process', 'thread', 'hide-idle', 'inverted']) {
      $(id).disabled = true;
      $(id).title = 'not on a differential page';
    }
    const legend = document.querySelector('.legend');
    legend.innerHTML = '<strong>Differential flame graph</strong>: the target profile\'s shape, each box ' +
      `coloured by the change of its own (self) time from the base (<span id="diff-base-total">${val(baseView().base_total_ns)}</span> in all) ` +
      `to the target (<span id="diff-target-total">${val(data.total_ns)}</span>), so the change shows where it happened, not on every caller: ` +
      '<span class="sw d-grew"></span>grew <span class="sw d-shrank"></span>shrank ' +
      '<span class="sw d-same"></span>unchanged <span class="sw d-new"></span>new (not in the base); ' +
      'full colour at the largest change (<span id="diff-full"></span>). ' +
      'The tooltip gives the change of the total and of the shares too; the Top table has a change column.';
    // read before the graph, not found after scrolling past it
    $('flame-box').before(legend);
    document.body.classList.add('diff');
    // The Top table's change column, and the methods that changed most first.
    const th = document.createElement('th');
    th.scope = 'col';
    th.className = 'num';
    th.dataset.sort = 'change';
    th.textContent = `Change ${UNIT}`;
    th.title = 'self time in the target less self time in the base';
    $('top-table').querySelector('thead th[data-sort="name"]').before(th);
    state.sort = 'change';
  }

  // The measure chooser: another measure is another view of the page.
  function setUpMeasures() {
    for (const th of $('top-table').querySelectorAll('thead th[data-sort]'))
      th.textContent = th.textContent.replace(/ ms$/, ` ${UNIT}`);
    if (!data.measures) return;
    const sel = $('measure');
    const shownName = data.measures[wantedMeasure] ? wantedMeasure : topMeasure;
    const titles = { time: `time (${data.mode})`, alloc: 'allocated objects', retained: 'retained objects',
      'retained-bytes': 'retained bytes' };
    for (const name of [topMeasure, ...Object.keys(data.measures)])
      sel.append(new Option(titles[name] || name, name, false, name === shownName));
    $('measure-box').hidden = false;
    sel.addEventListener('change', () => {
      location.hash = sel.value === topMeasure ? '' : `measure=${sel.value}`;
      location.reload();
    });
  }

  // --- the views in files of their own (view_*.js) ---------------------------------------
  // What viewer.js lends them: the data and its tables, the samples the
  // filters keep, the formats, and the few actions a view may take.
  const viewContext = {
    data, $, state, KIND, BASE_FRAMES, hasLines, diff, UNIT, countFormat, msFormat,
    frameName, frameLabel, framePath, frameKind, frameLine, methodOf, viewFrame, nameOf,
    nodeCount, nodeParent, nodeFrame, leaves, leafCount, setLabels, setSlot, setProcess, threadKey,
    num, val, pct, escapeHtml, prepareCanvas, frameWeights,
    shownTotal: () => shown.total[0],
    untimed: () => lastUntimed, // the leaves every filter but the time range keeps
    layBack, SLOTS, slotClock,
    chooseMethod, focusMethod, narrow, update,
  };
  // Shows the Sandwich or Source tab of method `f` (any frame of it).
  function chooseMethod(f, tab) {
    state.method = f < BASE_FRAMES ? methodOf[f] : f;
    stalePanels.add('sandwich');
    stalePanels.add('source');
    selectTab(tab);
  }
  // The flame graph rooted at method `f`, every call path to it merged
  // (the Sandwich tab has its callers); on a differential page, or
  // inverted, the stacks through it.
  function focusMethod(f) {
    state.focusFrame = viewFrame(f);
    state.zoomPath = [];
    readControls();
    update();
    selectTab('flame');
  }
  // Every view narrowed to a stretch of time, and to a process or thread.
  function narrow(range, process, thread) {
    state.range = range;
    $('process').value = process;
    $('thread').value = thread;
    readControls();
    update();
  }
  // A tag filter set from a view (a request's %span), shown in the flame graph.
  function focusTag(expr) {
    $('tagfocus').value = expr;
    onControl();
    selectTab('flame');
  }
  viewContext.focusTag = focusTag;
  strip = rperfStripView(viewContext);
  rperfRequestsView(viewContext);
  const views = { sandwich: rperfSandwichView(viewContext), source: rperfSourceView(viewContext),
    threads: rperfThreadsView(viewContext) };
  for (const [name, view] of Object.entries(views)) panels.set(name, view.render);

  setUpMeasures();
  fillChoices();
  $('idle-box').hidden = idleThreads.size === 0 && waitingWeight === 0;
  // Where requests were recorded the page opens on the time inside them.
  $('in-requests-box').hidden = !offersRequests;
  $('in-requests').checked = offersRequests;
  $('my-code-box').hidden = !offersMyCode;
  $('my-code').checked = offersMyCode;
  $('lines-box').hidden = !hasLines;
  $('by-line').checked = state.lines;
  setUpDiff();
  readControls();
  update();
  // From the start of this script (data parsed, tree built, drawn).
  window.rperfViewer.firstDrawMs = performance.now() - scriptStart;
  document.body.dataset.ready = 'true';
})();
