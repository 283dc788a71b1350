/*
 * profile/viewer/view_source.js — the Source tab: the chosen method's
 * file, each line with its self and total weight.
 *
 * Needs a line-level profile (RPERF_LINES: a frame per line of code). A
 * line's self weight is that of the samples whose innermost frame is on
 * it; its total, that of the samples with a frame on it, once per sample
 * however many frames are (the figures of `rperf-analyze report
 * --lines`, for the samples the page's filters keep). The code comes from
 * data.sources, which rperf-analyze filled from the files it could read
 * when it wrote the page (not with --no-source): a file it could not read
 * is said, and its lines' weights are still listed.
 *
 * `v` is what viewer.js lends its views (see `viewContext` there).
 */
'use strict';
function rperfSourceView(v) {
  const { $ } = v;
  const HOT_LINES = 3; // marked as the hottest: the heaviest by self weight
  const sources = v.data.sources || null;
  let last = null;

  function say(text) {
    $('source-note').textContent = text;
    $('source-note').hidden = !text;
  }

  // Per line of `path`: self and total over the leaves `passing`.
  function lineWeights(path, passing) {
    let maxLine = 0;
    for (let f = 0; f < v.BASE_FRAMES; f++) if (v.framePath[f] === path && v.frameLine[f] > maxLine) maxLine = v.frameLine[f];
    const keyOf = (f) => (f < v.BASE_FRAMES && v.framePath[f] === path && v.frameLine[f] > 0 ? v.frameLine[f] : -1);
    return { maxLine, ...v.frameWeights(passing, keyOf, maxLine + 1) };
  }

  function render(passing) {
    const m = v.state.method;
    $('source-table').hidden = true;
    last = null;
    if (!v.hasLines) {
      say('This profile has no line numbers: record with RPERF_LINES=1 (rperf record --lines) to see the time per line of code.');
      return;
    }
    if (m < 0) { say('Choose a method: right-click it in the flame graph, or use “callers/callees” in the Top table or the Sandwich tab.'); return; }
    const path = v.framePath[m];
    if (v.frameKind[m] !== v.KIND.ruby) { say(`${v.frameLabel[m]} is not a Ruby method: it has no source lines.`); return; }
    const { maxLine, self, total } = lineWeights(path, passing);
    const src = sources ? sources[path] : undefined;
    const code = src && src.lines ? src.lines : null;
    const methodLines = [];
    for (let f = 0; f < v.BASE_FRAMES; f++) if (v.methodOf[f] === m && v.frameLine[f] > 0) methodLines.push(v.frameLine[f]);
    const first = methodLines.length ? Math.min(...methodLines) : 1;
    const lastLine = methodLines.length ? Math.max(...methodLines) : 1;
    say(!sources ? `The page was written without the program's sources (--no-source): the lines of ${path} with weight are listed without their code.`
      : !src ? `The source of ${path} was not read when the page was written.`
      : src.error ? `The source of ${path} could not be read when the page was written (${src.error}): its lines with weight are listed without their code.`
      : '');
    $('source-title').textContent = `${path} — ${v.frameLabel[m]}, lines ${first}–${lastLine} sampled`;
    const hot = new Set([...Array(maxLine + 1).keys()].filter((l) => self[l] > 0)
      .sort((a, b) => self[b] - self[a]).slice(0, HOT_LINES));
    // Heat relative to the method's heaviest line.
    let most = 1;
    for (let l = first; l <= lastLine && l < total.length; l++) most = Math.max(most, total[l]);
    const count = code ? Math.max(code.length, maxLine) : maxLine;
    const rows = [];
    for (let l = 1; l <= count; l++) {
      if (!code && total[l] === 0) continue;
      const heat = total[l] > 0 ? (0.08 + 0.5 * Math.min(1, total[l] / most)).toFixed(3) : 0;
      const inMethod = l >= first && l <= lastLine;
      rows.push(`<tr id="src-${l}" data-line="${l}" data-self="${self[l]}" data-total="${total[l]}"` +
        `${hot.has(l) ? ' class="hot"' : ''}${inMethod ? ' data-method=""' : ''}>` +
        `<td class="num">${self[l] > 0 ? v.num(self[l]) : ''}</td><td class="num">${total[l] > 0 ? v.num(total[l]) : ''}</td>` +
        `<td class="num lineno">${l}${hot.has(l) ? ' ▲' : ''}</td>` +
        `<td class="code" style="background:rgba(232,116,59,${heat})">${code && l <= code.length ? v.escapeHtml(code[l - 1]) : ''}</td></tr>`);
    }
    $('source-body').innerHTML = rows.join('\n');
    $('source-table').hidden = false;
    const anchor = $(`src-${Math.max(1, first - 3)}`);
    if (anchor && !$('panel-source').hidden) anchor.scrollIntoView({ block: 'start' });
    last = { path, method: v.frameLabel[m], first, last: lastLine, hot: [...hot], self, total, code: !!code };
  }

  // For tests: the file, the method's lines, and each line's weights.
  function describe() {
    if (!last) return { note: $('source-note').textContent };
    const lines = [];
    for (let l = 1; l < last.total.length; l++) if (last.total[l] > 0) lines.push({ line: l, self: last.self[l], total: last.total[l] });
    return { path: last.path, method: last.method, first: last.first, last: last.last, hot: last.hot, lines,
      withCode: last.code, note: $('source-note').textContent };
  }

  return { render, describe };
}
