// tests/browser/requests_test.js — the viewer's Requests tab as a person
// uses it, in Debian's chromium (headless, puppeteer-core): the endpoint
// table against rperf-analyze requests --json, the latency histogram of an
// endpoint, and a click on the slowest request for its own flame graph
// (requests.sh makes the page):
//   REQUESTS_PAGE, REQUESTS_JSON, REQUESTS_SCREENSHOT, VIEWER_CHROMIUM
'use strict';
const fs = require('fs');
const { env, check, openBrowser, load, finish, run } = require('./harness');

const pagePath = env('REQUESTS_PAGE');
const truth = JSON.parse(fs.readFileSync(env('REQUESTS_JSON'), 'utf8'));
const settle = () => new Promise((r) => setTimeout(r, 300));

run(async () => {
  const session = await openBrowser([pagePath]);
  try {
    const page = session.page;
    await load(page, pagePath);
    check(await page.$eval('#tab-requests', (b) => !b.hidden), 'the page of a profile with requests has a Requests tab');
    await page.click('#tab-requests');
    const rows = await page.$$eval('#requests-body tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    check(rows.length === truth.length, `one row per endpoint: ${rows.length} of ${truth.length}`);
    for (const e of truth) {
      const row = rows.find((r) => r[r.length - 1] === e.name);
      check(row && Number(row[0].replace(/,/g, '')) === e.count && row[3] === e.p99_ms.toFixed(2),
        `${e.name}: count ${row && row[0]} (${e.count}), p99 ${row && row[3]} ms (${e.p99_ms.toFixed(2)})`);
      const other = (100 * e.other_ms) / e.total_ms;
      check(row && Math.abs(Number(row[11]) - other) <= 0.1, `${e.name}: %other ${row && row[11]} (${other.toFixed(1)})`);
    }
    const slowName = 'GET /slow';
    await page.evaluate((name) => [...document.querySelectorAll('#requests-body tr')]
      .find((tr) => tr.cells[tr.cells.length - 1].textContent === name).click(), slowName);
    const bars = await page.$$eval('#histogram-bars span', (s) => s.map((b) => Number(b.dataset.count)));
    const slowTruth = truth.find((e) => e.name === slowName);
    check(bars.reduce((a, b) => a + b, 0) === slowTruth.count,
      `the histogram of ${slowName} holds its ${slowTruth.count} requests in ${bars.length} buckets`);
    check(bars[bars.length - 1] > 0 && bars[0] > 0, 'from its fastest bucket to its slowest');
    await page.screenshot({ path: env('REQUESTS_SCREENSHOT'), fullPage: true });

    const slowest = await page.$eval('#slow-body tr', (tr) => ({ span: tr.dataset.span, ms: Number(tr.cells[0].textContent),
      endpoint: tr.cells[tr.cells.length - 2].textContent, block: tr.cells[tr.cells.length - 1].textContent }));
    check(slowest.endpoint === slowName && slowest.ms >= 30, `the slowest request is a ${slowName} of ${slowest.ms} ms: ${slowest.endpoint}`);
    check(/^(2\d|3\d)\.\d\d ms in Kernel#sleep at .*app\.rb:\d+$/.test(slowest.block),
      `its longest block is its 30 ms sleep, where it called it: "${slowest.block}"`);
    await page.click('#slow-body tr');
    await settle();
    const focus = await page.$eval('#tagfocus', (i) => i.value);
    check(/^\d+\.\d+$/.test(slowest.span) && focus === `%span=^(${slowest.span.replace('.', '\\.')})$`,
      `clicking it focuses on its samples: "${focus}" (its span ${slowest.span}: process.number)`);
    check(await page.$eval('#tab-flame', (t) => t.getAttribute('aria-selected') === 'true'), 'and shows the flame graph');
    const boxes = await page.evaluate(() => rperfViewer.boxes().map((b) => ({ name: b.name, ns: b.total_ns })));
    const sleep = boxes.find((b) => b.name === 'Kernel#sleep');
    const shown = await page.evaluate(() => rperfViewer.shownTotal());
    check(sleep && sleep.ns >= 25e6, `its own flame graph shows its sleep: Kernel#sleep ${sleep && (sleep.ns / 1e6).toFixed(1)} ms`);
    check(shown <= slowest.ms * 1e6 * 1.1 + 2e6, `and only its own time: ${(shown / 1e6).toFixed(1)} ms of its ${slowest.ms} ms`);
  } finally {
    await finish(session);
  }
});
