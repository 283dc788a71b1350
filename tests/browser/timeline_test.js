// tests/browser/timeline_test.js — the viewer's time strip as a person
// uses it, in Debian's chromium (headless, puppeteer-core): drag across
// the strip, click on it, clear the selection; what the page shows is
// checked against the parts' own totals (timeline.sh reads them from the
// part files):
//   TIMELINE_PAGE, VIEWER_CHROMIUM, TIMELINE_SCREENSHOT
//   TIMELINE_PARTS   "start:duration:total_ns ..." per part, times in ns
//                    from the earliest start
'use strict';
const { env, check, openBrowser, load, finish, run } = require('./harness');

const parts = env('TIMELINE_PARTS').trim().split(/\s+/).map((p) => {
  const [start, duration, total] = p.split(':').map(Number);
  return { start, end: start + duration, total };
});
const allNs = parts.reduce((a, p) => a + p.total, 0);
// The parts a selection keeps: those overlapping it (a moment: those
// holding it), as rperf-analyze --since/--until keep parts.
const keptBy = (from, to) => parts.filter((p) => (from === to ? p.start <= from && p.end > from : p.start < to && p.end > from));
const sum = (ps) => ps.reduce((a, p) => a + p.total, 0);
const ms = (ns) => (ns / 1e6).toFixed(1);
const settle = () => new Promise((r) => setTimeout(r, 150));

run(async () => {
  const session = await openBrowser([env('TIMELINE_PAGE')]);
  try {
    const page = session.page;
    await load(page, env('TIMELINE_PAGE'));

    const strip = () => page.evaluate(() => rperfViewer.strip());
    const shown = () => page.$eval('#shown-total', (e) => Number(e.dataset.ns));
    const names = () => page.evaluate(() => rperfViewer.boxes().map((b) => b.name));
    const s0 = await strip();
    check(s0 !== null && (await page.$eval('#timeline', (e) => !e.hidden)), 'the page of a session of parts has a time strip');
    if (!s0) throw new Error('cannot go on without the strip');
    check(s0.slots === parts.length && s0.text.includes(`${parts.length} parts`), `it knows the ${parts.length} parts: "${s0.text}"`);
    const columnsNs = s0.columns.reduce((a, c) => a + c, 0);
    check(Math.abs(columnsNs - allNs) <= allNs * 1e-6, `its columns hold all the time: ${ms(columnsNs)} of ${ms(allNs)} ms`);
    check(Math.abs((await shown()) - allNs) <= 1e5, `before any selection the page shows all ${ms(allNs)} ms`);

    // A time in the strip's pixels, as the page maps them.
    const span = s0.end_ns - s0.start_ns;
    const xAt = (t) => s0.x + ((t - s0.start_ns) / span) * s0.w;
    const tAt = (x) => s0.start_ns + ((x - s0.x) / s0.w) * span;
    const y = s0.y + s0.h / 2;

    // Drag across the middle of the run.
    const x1 = Math.round(s0.x + s0.w * 0.45), x2 = Math.round(s0.x + s0.w * 0.6);
    await page.mouse.move(x1, y);
    await page.mouse.down();
    await page.mouse.move((x1 + x2) / 2, y, { steps: 3 });
    await page.mouse.move(x2, y, { steps: 3 });
    await page.mouse.up();
    await settle();
    const dragged = keptBy(tAt(x1), tAt(x2));
    const s1 = await strip();
    const afterDrag = await shown();
    check(dragged.length >= 1 && dragged.length < parts.length, `the drag keeps ${dragged.length} of ${parts.length} parts`);
    check(Math.abs(afterDrag - sum(dragged)) <= 1e5, `after the drag the page shows ${ms(afterDrag)} ms: the kept parts hold ${ms(sum(dragged))} ms`);
    check(s1.text.includes(`${dragged.length} of ${parts.length} parts`), `the strip says so: "${s1.text}"`);
    const dragNames = await names();
    check(dragNames.includes('Object#phase_b'), `the flame graph shows the middle phase: ${dragNames.filter((n) => n.startsWith('Object#phase'))}`);
    await page.screenshot({ path: env('TIMELINE_SCREENSHOT'), fullPage: true });

    // The Tags tab knows nothing of the loader's slot label.
    await page.click('#tab-tags');
    const keys = await page.$$eval('#tags-body table.tag', (ts) => ts.map((t) => t.dataset.key));
    check(!keys.includes('%slot') && keys.includes('thread_seq'), `the Tags tab lists the program's keys only: ${keys}`);
    await page.click('#tab-flame');

    // A click keeps the part at that moment: early in the run, the first phase.
    const early = parts[0].start + (parts[0].end - parts[0].start) / 2;
    await page.mouse.click(Math.round(xAt(early)), y);
    await settle();
    const at = tAt(Math.round(xAt(early)));
    const clicked = keptBy(at, at);
    const afterClick = await shown();
    const clickNames = await names();
    check(clicked.length === 1 && Math.abs(afterClick - clicked[0].total) <= 1e5,
      `a click keeps the part at that moment: ${ms(afterClick)} ms shown, the part holds ${clicked.length === 1 ? ms(clicked[0].total) : '?'} ms`);
    check(clickNames.includes('Object#phase_a') && !clickNames.includes('Object#phase_c'), `it is the first phase: ${clickNames.filter((n) => n.startsWith('Object#phase'))}`);

    // "whole run" clears the selection.
    await page.click('#strip-clear');
    await settle();
    check(Math.abs((await shown()) - allNs) <= 1e5 && (await strip()).range === null, 'the "whole run" button shows everything again');

    // The other filters apply to the strip's columns too: with tagignore
    // dropping the GC time, the columns hold what the page shows.
    await page.type('#tagignore', '%GC=.*');
    await new Promise((r) => setTimeout(r, 400));
    const filtered = await shown(), filteredCols = (await strip()).columns.reduce((a, c) => a + c, 0);
    check(filtered < allNs && Math.abs(filteredCols - filtered) <= 1e5,
      `with tagignore %GC=.* the strip holds the ${ms(filtered)} ms shown (of ${ms(allNs)}): ${ms(filteredCols)} ms`);

  } finally {
    await finish(session);
  }
});
