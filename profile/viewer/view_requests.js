/*
 * profile/viewer/view_requests.js — the Requests tab, when requests and
 * jobs were recorded (Rperf::RackMiddleware, Sidekiq, ActiveJob,
 * Rperf.request): per endpoint its count, latency percentiles and how its
 * threads spent the time, its latency histogram, and the slowest requests
 * kept. A click on a slow request, or on a histogram's bucket, focuses the
 * flame graph on those requests' samples (their %span).
 *
 * `v` is what viewer.js lends its views (see `viewContext` there).
 */
'use strict';
function rperfRequestsView(v) {
  const { data, $, countFormat, msFormat, escapeHtml } = v;
  // A click on a slow request, or on a latency bucket, focuses the flame
  // graph on the samples of the slow requests kept there (their %span).
  function focusSpans(ids) {
    if (!ids.length) return;
    v.focusTag(`%span=^(${ids.map((id) => id.replace(/\./g, '\\.')).join('|')})$`);
  }

  function setUpRequests() {
    const req = data.requests;
    if (!req) return;
    $('tab-requests').hidden = false;
    const f2 = (ns) => (ns / 1e6).toFixed(2);
    const share = (part, whole) => (whole > 0 ? ((part * 100) / whole).toFixed(1) : '0.0');
    const cell = (v) => `<td class="num">${v}</td>`;
    // a split's states as shares of its wall time: %queue %cpu %wait %blocked %gc %other
    const shares = (x) => [x.queue_ns || 0, x.cpu_ns, x.gvl_wait_ns, x.blocked_ns, x.gc_ns, x.other_ns || 0]
      .map((ns) => cell(share(ns, x.wall_ns))).join('');
    $('requests-body').innerHTML = req.endpoints.map((e, i) =>
      `<tr data-endpoint="${i}">${cell(countFormat.format(e.count))}${cell(f2(e.p50_ns))}${cell(f2(e.p90_ns))}` +
      `${cell(f2(e.p99_ns))}${cell(f2(e.max_ns))}${cell(msFormat.format(e.wall_ns / 1e6))}${shares(e)}` +
      `<td>${escapeHtml(e.name)}</td></tr>`).join('');
    $('slow-body').innerHTML = req.slow.map((s) =>
      `<tr data-span="${s.span}">${cell(f2(s.wall_ns))}${shares(s)}${cell(s.status || '')}${cell(s.span || '-')}<td>${escapeHtml(s.endpoint)}</td>` +
      `<td>${s.blocked_at ? `${f2(s.longest_block_ns)} ms in ${escapeHtml(s.blocked_at)}` : ''}</td></tr>`).join('');
    $('slow-body').addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr[data-span]');
      if (tr && tr.dataset.span) focusSpans([tr.dataset.span]);
    });
    $('requests-body').addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr[data-endpoint]');
      if (tr) showHistogram(Number(tr.dataset.endpoint));
    });
    if (req.endpoints.length) showHistogram(0);
  }

  // A latency bucket's lower bound in ns (requests.h: 2% wide from 1 µs).
  const bucketFrom = (b) => (b > 0 ? 1000 * Math.pow(1.02, b - 1) : 0);

  // One endpoint's latency buckets as bars, every bucket from its fastest
  // to its slowest one (a log scale of latency, 2% per bar).
  function showHistogram(i) {
    const req = data.requests, e = req.endpoints[i];
    for (const tr of $('requests-body').rows) tr.classList.toggle('chosen', Number(tr.dataset.endpoint) === i);
    if (!e.hist.length) return;
    const counts = new Map(e.hist), first = e.hist[0][0], last = e.hist[e.hist.length - 1][0];
    const most = Math.max(1, ...e.hist.map((h) => h[1]));
    $('histogram-title').textContent = `${e.name}: ${countFormat.format(e.count)} requests, from ` +
      `${(bucketFrom(first) / 1e6).toFixed(2)} ms to ${(e.max_ns / 1e6).toFixed(2)} ms (log scale)`;
    const bars = $('histogram-bars');
    bars.setAttribute('aria-label', `latency histogram of ${e.name}`);
    const spans = [];
    for (let b = first; b <= last; b++) {
      const n = counts.get(b) || 0;
      spans.push(`<span data-from="${bucketFrom(b)}" data-to="${bucketFrom(b + 1)}" data-count="${n}" ` +
        `style="height:${((n * 100) / most).toFixed(1)}%" ` +
        `title="${(bucketFrom(b) / 1e6).toFixed(3)}–${(bucketFrom(b + 1) / 1e6).toFixed(3)} ms: ${n} requests"></span>`);
    }
    bars.innerHTML = spans.join('');
    bars.onclick = (ev) => {
      const bar = ev.target.closest('span[data-from]');
      if (!bar) return;
      const from = Number(bar.dataset.from), to = Number(bar.dataset.to);
      focusSpans(req.slow.filter((s) => s.endpoint === e.name && s.span && s.wall_ns >= from && s.wall_ns < to)
        .map((s) => s.span));
    };
    $('histogram').hidden = false;
  }

  setUpRequests();
}
