// tests/browser/history_test.js — the history page of `rperf report DIR`
// in Debian's chromium, as its user reads it (history.sh makes the
// snapshots and knows each one's figures):
//   HISTORY_ORIGIN       http://localhost:PORT of rperf report --port
//   HISTORY_TRUTH        one JSON line per snapshot, oldest first: sha,
//                        Object#render's self_pct and total_pct
//   HISTORY_BRANCH       the branch the commits are on
//   HISTORY_SCREENSHOT, HISTORY_DIFF_SCREENSHOT  where the pictures go
'use strict';
const fs = require('fs');
const { env, check, openBrowser, finish, run } = require('./harness');

run(async () => {
  const origin = env('HISTORY_ORIGIN');
  const truth = fs.readFileSync(env('HISTORY_TRUTH'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const session = await openBrowser([], [origin]);
  try {
    const page = session.page;
    const index = await page.goto(`${origin}/`, { waitUntil: 'load' });
    check(index.status() === 200, `the page answers 200 (got ${index.status()})`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 30000 });

    // The list: the branch, then the five newest first, each its commit.
    const heading = await page.$eval('#list h2', (h) => h.textContent);
    check(heading === `${env('HISTORY_BRANCH')} (5)`, `the branch heads the list (${heading})`);
    const rows = await page.$$eval('.snap', (rs) => rs.map((r) => ({
      sha: r.querySelector('.sha').textContent, subject: r.querySelector('.subject').textContent,
      current: r.classList.contains('current'),
    })));
    const newestFirst = truth.map((t) => t.sha).reverse();
    check(JSON.stringify(rows.map((r) => r.sha)) === JSON.stringify(newestFirst),
      `five rows, newest first, by commit (${rows.map((r) => r.sha).join(' ')}; git: ${newestFirst.join(' ')})`);
    check(rows.every((r, i) => r.subject === `render step ${5 - i}`), `each with its commit's subject (${rows.map((r) => r.subject).join(' | ')})`);
    check(rows[0].current, 'the newest is the current one');

    // The current one's own viewer, loaded into the frame.
    const frame = async () => {
      const f = await (await page.$('#view')).contentFrame();
      await f.waitForSelector('body[data-ready=true]', { timeout: 30000 });
      return f;
    };
    let f = await frame();
    // (the block given to sum is Object#render's too: the outermost box
    // holds the method's total, as the table counts it)
    const outermost = (boxes) => boxes.filter((b) => b.name === 'Object#render')
      .sort((a, b) => a.stack.length - b.stack.length).slice(0, 1);
    const own = outermost(await f.evaluate(() => rperfViewer.boxes()));
    const newest = truth[truth.length - 1];
    // (a table's shares are rounded to 0.01%)
    check(own.length === 1 && Math.abs(own[0].share * 100 - newest.total_pct) < 0.006,
      `the newest's page: Object#render ${own.length && (own[0].share * 100).toFixed(3)}% of the run, its table ${newest.total_pct}%`);

    // The sparkline of Object#render (the newest's top method): each
    // point its snapshot's share.
    const method = await page.$eval('#method', (i) => i.value);
    check(method === 'Object#render', `the sparkline opens on the current's top method (${method})`);
    const trend = await page.evaluate(() => rperfHistory.trend());
    const points = await page.$$eval('#spark circle', (cs) => cs.length);
    check(points === 5, `five points on the sparkline (${points})`);
    trend.forEach((p, i) => {
      const t = truth[i];
      check(p.sha === t.sha && p.share && Math.abs(p.share.self_pct - t.self_pct) < 0.01 && Math.abs(p.share.total_pct - t.total_pct) < 0.01,
        `point ${i + 1} (${p.sha}): self ${p.share && p.share.self_pct.toFixed(2)}% total ${p.share && p.share.total_pct.toFixed(2)}%, ` +
        `its table ${t.self_pct}% ${t.total_pct}%`);
    });
    const rising = trend.every((p, i) => i === 0 || p.share.total_pct > trend[i - 1].share.total_pct);
    check(rising, `its total share rises commit after commit, as render does more (${trend.map((p) => p.share.total_pct.toFixed(1)).join(' ')})`);
    await page.screenshot({ path: env('HISTORY_SCREENSHOT') });
    console.log(`# screenshot: ${env('HISTORY_SCREENSHOT')}`);

    // The newest against the oldest, chosen as a person would: the
    // "Compare with" select.
    const oldestId = await page.evaluate((sha) => rperfHistory.snapshots().find((s) => s.sha === sha).id, truth[0].sha);
    await page.select('#base', String(oldestId));
    // the frame's own document the diff's, drawn (its src changes first,
    // while the snapshot's page, ready too, is still shown)
    await page.waitForFunction(() => {
      const view = document.getElementById('view');
      const doc = view.contentDocument;
      return view.getAttribute('src').startsWith('diff/') && doc && doc.location.pathname.includes('/diff/') &&
        doc.body && doc.body.dataset.ready === 'true';
    }, { timeout: 30000 });
    f = await frame();
    const all = await f.evaluate(() => rperfViewer.boxes());
    const root = all.find((b) => b.stack.length === 0);
    const diffBoxes = all.filter((b) => b.stack.includes('Object#render'));
    const diffBox = outermost(diffBoxes);
    const oldest = truth[0];
    const pct = (b, total) => (100 * b) / total;
    const was = diffBox.length ? pct(diffBox[0].base_ns, root.base_ns) : NaN, now = diffBox.length ? diffBox[0].share * 100 : NaN;
    check(diffBox.length === 1 && Math.abs(now - newest.total_pct) < 0.006 && Math.abs(was - oldest.total_pct) < 0.006,
      `the difference: Object#render ${was.toFixed(3)}% → ${now.toFixed(3)}% of its run, the files' own ${oldest.total_pct}% → ${newest.total_pct}%`);
    // its own time is in what it calls (Integer#times, Enumerable#sum:
    // Ruby's, one [ruby] box in the "my code" view): the most grown box
    // under it is red
    const grown = diffBoxes.reduce((a, b) => (b.self_change > (a ? a.self_change : 0) ? b : a), null);
    check(grown !== null && grown.self_change > 0 && /^hsl\(0,/.test(grown.color),
      `under it, ${grown && grown.name} grew ${grown && (grown.self_change / 1e6).toFixed(1)} ms of own time and is red (${grown && grown.color})`);
    const status = await page.$eval('#status', (s) => s.textContent);
    check(status.includes(`the difference from ${oldest.sha}`), `the status line says what is compared (${status})`);
    await page.screenshot({ path: env('HISTORY_DIFF_SCREENSHOT') });
    console.log(`# screenshot: ${env('HISTORY_DIFF_SCREENSHOT')}`);

    // A point of the sparkline makes its snapshot current.
    await page.click('#spark circle:nth-of-type(2)');
    const current = await page.evaluate(() => rperfHistory.current());
    const second = await page.evaluate((sha) => rperfHistory.snapshots().find((s) => s.sha === sha).id, truth[1].sha);
    check(current === second, `a click on the second point shows the second snapshot (${current}, expected ${second})`);
  } finally {
    await finish(session);
  }
});
