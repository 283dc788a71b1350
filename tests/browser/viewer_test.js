// tests/browser/viewer_test.js — opens the viewer page in Debian's
// chromium (headless, via puppeteer-core) as a person would and checks
// what it shows against figures the shell side (viewer.sh) read from
// rperf-analyze's text outputs of the same session:
//   VIEWER_PAGE, VIEWER_CHROMIUM, VIEWER_SCREENSHOT
//   VIEWER_HOT, VIEWER_HOT_PCT        hottest method, its cumulative %
//   VIEWER_SEARCH, VIEWER_SEARCH_MS   a search term, the cumulative ms it covers
//   VIEWER_BLOCKED_MS                 the session's GVL blocked time
//   VIEWER_CHILD_PID, VIEWER_CHILD_MS a child process and its time
//   VIEWER_DIFF_PAGE                  the differential page of the session against itself
//   VIEWER_FOLDED_PAGE, VIEWER_SPREAD_MS  a page with folded call paths, and the
//                                     exact total of a method spread over them
//   VIEWER_IDLE_PAGE, VIEWER_IDLE_BUSY_MS, VIEWER_IDLE_ALL_MS  a server-shaped page
//                                     with six idle threads, what --hide-idle keeps, and all
//   VIEWER_TABLES                     JSON: rperf-analyze's self and total per method
//                                     ("label (path)") and ms per value of %GVL, %GC, thread_seq
'use strict';
const { env, check, openBrowser, load, finish, run } = require('./harness');

// Figures the page shows with one decimal of a millisecond.
const nearMs = (ns, ms, slack = 0.11) => Math.abs(ns / 1e6 - ms) <= slack;

async function typeInto(page, selector, text) {
  await page.click(selector, { clickCount: 3 });
  await page.keyboard.press('Backspace');
  if (text) await page.type(selector, text);
  await new Promise((r) => setTimeout(r, 300)); // the page waits 120 ms after typing
}
const shownNs = (page) => page.$eval('#shown-total', (e) => Number(e.dataset.ns));
// The rows of the Top and Tags tables as text, cell by cell.
const tablesText = (page) => page.evaluate(() => {
  const cells = (tr, n) => [...tr.cells].slice(0, n).map((c) => c.textContent.trim()).join(' | ');
  return {
    top: [...document.querySelectorAll('#top-body tr')].map((tr) => cells(tr, 6)),
    tags: [...document.querySelectorAll('#tags-body table.tag')].map((t) =>
      [t.dataset.key, ...[...t.querySelectorAll('tbody tr')].map((tr) => cells(tr, 3))].join(' / ')),
  };
});
// The rows of the drawn tables that do not show rperf-analyze's figures
// (VIEWER_TABLES): the Top table's self and total per method, each Tags
// table's values.
function tableDifferences(drawn) {
  const want = JSON.parse(env('VIEWER_TABLES')), wrong = [];
  for (const row of drawn.top) {
    const [self, , total, , name, path] = row.split(' | ');
    const w = want.top[`${name} (${path})`];
    if (!w || w.self !== self && !(self === '0.0' && !w.self) || w.total !== total) wrong.push(`top "${row}": report ${JSON.stringify(w)}`);
  }
  for (const table of drawn.tags) {
    const [key, ...rows] = table.split(' / ');
    if (!want.tags[key]) continue; // %pid: the report names the root process "(not set)"
    for (const row of rows) {
      const [value, ms] = row.split(' | ');
      if (want.tags[key][value] !== ms) wrong.push(`tags ${key} "${row}": report ${want.tags[key][value]}`);
    }
    if (rows.length !== Object.keys(want.tags[key]).length) wrong.push(`tags ${key}: ${rows.length} values, report ${Object.keys(want.tags[key]).length}`);
  }
  return wrong;
}
const boxNamed = (page, name) => page.evaluate((n) => rperfViewer.boxes().find((b) => b.name === n) || null, name);

// Folded call paths: the Top table of everything still has each method's
// exact time, as written into the page; a filter then counts what was
// folded as "(other)" and says so.
async function checkFolded(session, page) {
  const file = env('VIEWER_FOLDED_PAGE');
  await load(page, file);
  await page.click('#tab-top');
  const drawn = await tablesText(page);
  const spread = drawn.top.find((r) => r.includes('Util#spread')) || '';
  check(spread.split(' | ')[2] === env('VIEWER_SPREAD_MS'),
    `Util#spread, spread over folded paths, has its exact total: "${spread}" (report: ${env('VIEWER_SPREAD_MS')} ms)`);
  const caption = await page.$eval('#top-caption', (e) => e.textContent);
  check(!caption.includes('(other)'), `the caption of everything mentions no "(other)": "${caption}"`);
  await typeInto(page, '#tagfocus', 'thread_seq=2');
  const filtered = await page.$eval('#top-caption', (e) => e.textContent);
  check(filtered.includes('(other)'), `filtered, the caption says folded time counts as "(other)": "${filtered}"`);
  await typeInto(page, '#tagfocus', '');
  await page.click('#tab-flame');
}

// Idle threads: the switch appears on a page that has some, hides them as
// rperf-analyze --hide-idle does, and says what it hid.
async function checkIdle(page) {
  await load(page, env('VIEWER_IDLE_PAGE'));
  check(!(await page.$eval('#idle-box', (e) => e.hidden)), 'a page with idle threads offers to hide them');
  const all = await shownNs(page);
  await page.click('#hide-idle');
  await new Promise((r) => setTimeout(r, 100));
  const busy = await shownNs(page);
  const said = await page.$eval('#idle-hidden', (e) => e.textContent);
  check(nearMs(all, Number(env('VIEWER_IDLE_ALL_MS'))) && nearMs(busy, Number(env('VIEWER_IDLE_BUSY_MS'))),
    `hiding idle threads shows ${(busy / 1e6).toFixed(1)} of ${(all / 1e6).toFixed(1)} ms (--hide-idle: ${env('VIEWER_IDLE_BUSY_MS')} of ${env('VIEWER_IDLE_ALL_MS')} ms)`);
  check(said.startsWith('6 idle threads hidden'), `the status says what it hid: "${said}"`);
  await page.screenshot({ path: env('VIEWER_SCREENSHOT').replace(/\.png$/, '-idle.png'), fullPage: true });
  await page.click('#reset');
  await new Promise((r) => setTimeout(r, 100));
  check(nearMs(await shownNs(page), Number(env('VIEWER_IDLE_ALL_MS'))), 'Reset shows the idle threads again');
}

run(async () => {
  const session = await openBrowser([env('VIEWER_PAGE'), env('VIEWER_DIFF_PAGE'), env('VIEWER_FOLDED_PAGE'),
    env('VIEWER_IDLE_PAGE')]);
  try {
    const page = session.page;
    const t0 = Date.now();
    await load(page, env('VIEWER_PAGE'));
    const firstDraw = await page.evaluate(() => rperfViewer.firstDrawMs);
    console.log(`# loaded and drawn in ${Date.now() - t0} ms (script's first draw ${firstDraw.toFixed(0)} ms)`);

    // The Top and Tags tables, which only the script computes (from the
    // page's data, when their tab opens), give rperf-analyze's figures.
    await page.click('#tab-top');
    await page.click('#tab-tags');
    const drawn = await tablesText(page);
    await page.click('#tab-flame');
    const wrong = tableDifferences(drawn);
    check(drawn.top.length > 10 && drawn.tags.length >= 4 && wrong.length === 0,
      `the Top table (${drawn.top.length} rows) and Tags tables (${drawn.tags.length} keys) show rperf-analyze's figures` +
      (wrong.length ? ` — not: ${wrong.slice(0, 4).join('; ')}` : ''));

    // The hottest method's box, with its share, and its tooltip.
    const hotName = env('VIEWER_HOT'), hotPct = Number(env('VIEWER_HOT_PCT'));
    const hot = await boxNamed(page, hotName);
    check(hot !== null, `${hotName} has a box in the flame graph`);
    if (!hot) throw new Error('cannot go on without the hottest box');
    check(Math.abs(hot.share * 100 - hotPct) <= 0.11, `its share ${(hot.share * 100).toFixed(2)}% is the report's ${hotPct}%`);
    await page.mouse.move(hot.x + hot.w / 2, hot.y + hot.h / 2);
    const tip = await page.$eval('#tooltip', (e) => (e.hidden ? '' : e.textContent));
    check(tip.includes(hotName) && tip.includes(`${hotPct.toFixed(1)}% of all`), `hovering shows a tooltip with name and share: "${tip}"`);
    await page.screenshot({ path: env('VIEWER_SCREENSHOT'), fullPage: true });
    check(await page.$eval('#idle-box', (e) => e.hidden), 'a page without idle threads offers no switch for them');
    const placeholders = await page.$$eval('#controls input[placeholder]', (is) => is.map((i) => i.placeholder));
    check(placeholders.every((t) => /^(regex, )?e\.g\. /.test(t)),
      `the filter boxes' grey text reads as an example, not a filter set: ${placeholders.join(' | ')}`);
    // Whole-process profiles: no time strip (timeline_test.js has one).
    check((await page.evaluate(() => rperfViewer.strip())) === null && (await page.$eval('#timeline', (e) => e.hidden)),
      'a session without parts has no time strip');

    // A click zooms into it; the breadcrumb's first button zooms out.
    await page.mouse.click(hot.x + hot.w / 2, hot.y + hot.h / 2);
    const zoomed = await page.evaluate(() => rperfViewer.zoomedName());
    const hotAfter = await boxNamed(page, hotName);
    const width = await page.$eval('#flame', (c) => c.clientWidth);
    check(zoomed === hotName && hotAfter && hotAfter.w >= width - 1, `a click zooms: ${zoomed} now ${hotAfter && hotAfter.w.toFixed(0)} of ${width} px`);
    const crumbs = await page.$eval('#crumbs', (e) => e.textContent);
    check(crumbs.includes(hotName), `the breadcrumb shows the zoom path: "${crumbs}"`);
    await page.click('#crumbs button');
    check(await page.evaluate(() => rperfViewer.zoomedName()) === 'all', 'the breadcrumb zooms back out');

    // Search highlights and reports the share it covers.
    await typeInto(page, '#search', env('VIEWER_SEARCH'));
    const matchedNs = await page.$eval('#search-result', (e) => Number(e.dataset.ns));
    const resultText = await page.$eval('#search-result', (e) => e.textContent);
    const matchedBoxes = await page.evaluate(() => rperfViewer.boxes().filter((b) => b.matched).map((b) => b.name));
    check(nearMs(matchedNs, Number(env('VIEWER_SEARCH_MS')), 0.2), `search covers ${(matchedNs / 1e6).toFixed(1)} ms (report: ${env('VIEWER_SEARCH_MS')} ms): "${resultText}"`);
    check(matchedBoxes.length > 0 && matchedBoxes.every((n) => n.includes(env('VIEWER_SEARCH'))), `matching boxes are highlighted: ${[...new Set(matchedBoxes)]}`);
    await typeInto(page, '#search', '');

    // tagfocus %GVL=blocked: what is shown is the blocked time.
    await typeInto(page, '#tagfocus', '%GVL=blocked');
    const blocked = await shownNs(page);
    check(nearMs(blocked, Number(env('VIEWER_BLOCKED_MS'))), `tagfocus %GVL=blocked shows ${(blocked / 1e6).toFixed(1)} ms (stat: ${env('VIEWER_BLOCKED_MS')} ms)`);
    await typeInto(page, '#tagfocus', '');

    // The process filter keeps one process's time.
    await page.select('#process', env('VIEWER_CHILD_PID'));
    await new Promise((r) => setTimeout(r, 100));
    const child = await shownNs(page);
    check(nearMs(child, Number(env('VIEWER_CHILD_MS'))), `process ${env('VIEWER_CHILD_PID')} shows ${(child / 1e6).toFixed(1)} ms (its own profile: ${env('VIEWER_CHILD_MS')} ms)`);
    check((await boxNamed(page, hotName)) === null, `the child's view has no ${hotName}`);
    await page.select('#process', '');

    // Top: a sortable table; a row focuses its method in the flame graph.
    await page.click('#tab-top');
    const rows = await page.$$eval('#top-body tr', (trs) => trs.map((tr) => tr.querySelector('.name').textContent));
    check(rows.includes(hotName), `the Top tab lists ${hotName} among ${rows.length} rows`);
    await page.click('#top-table th[data-sort=total]');
    const firstTotal = await page.$$eval('#top-body tr', (trs) => trs.slice(0, 2).map((tr) => Number(tr.children[2].textContent.replace(/,/g, ''))));
    check(firstTotal[0] >= firstTotal[1], `sorting by total puts ${firstTotal[0]} ms before ${firstTotal[1]} ms`);
    const row = await page.evaluateHandle((n) => [...document.querySelectorAll('#top-body tr')].find((tr) => tr.querySelector('.name').textContent === n), hotName);
    await row.click();
    const flameVisible = await page.$eval('#panel-flame', (e) => !e.hidden);
    const focused = await shownNs(page);
    check(flameVisible && Math.abs((focused * 100) / (await page.evaluate(() => JSON.parse(document.getElementById('rperf-data').textContent).total_ns)) - hotPct) <= 0.11,
      `clicking its row focuses ${hotName}: ${(focused / 1e6).toFixed(1)} ms shown`);
    // Focused, the graph is rooted at the method: one box of it under the
    // root, as wide as the root, every call path merged into it.
    const focusedBoxes = await page.evaluate(() => rperfViewer.boxes());
    const top = Math.min(...focusedBoxes.map((b) => b.y));
    const rooted = focusedBoxes.filter((b) => b.y === top + b.h);
    check(rooted.length === 1 && rooted[0].name === hotName && rooted[0].total_ns === focused,
      `focused, the graph is rooted at ${hotName}: under the root ${rooted.map((b) => `${b.name} ${(b.total_ns / 1e6).toFixed(1)} ms`)}`);
    const focusCrumbs = await page.$$eval('#crumbs button', (bs) => bs.map((b) => b.textContent));
    check(focusCrumbs[0] === 'all' && focusCrumbs[1].startsWith(hotName), `its breadcrumb leads back: ${focusCrumbs.join(' › ')}`);
    await page.click('#crumbs button');
    const whole = await shownNs(page);
    check(whole > focused, `the breadcrumb's "all" shows the whole graph again: ${(whole / 1e6).toFixed(1)} ms`);

    // Tags: every label key, with values and shares.
    await page.click('#tab-tags');
    const keys = await page.$$eval('#tags-body table.tag', (ts) => ts.map((t) => t.dataset.key));
    check(['%GVL', '%GC', '%pid', 'thread_seq'].every((k) => keys.includes(k)), `the Tags tab has %GVL, %GC, %pid, thread_seq: ${keys}`);
    // Each table's header names the unit, not the text of a template.
    const heads = await page.$$eval('#tags-body table.tag thead th', (ths) => ths.map((th) => th.textContent));
    check(heads.includes('ms') && !heads.some((h) => h.includes('${')), `the Tags tables' headers name the unit: ${[...new Set(heads)]}`);

    // The differential page of the session against itself.
    await load(page, env('VIEWER_DIFF_PAGE'));
    const diffBoxes = await page.evaluate(() => rperfViewer.boxes());
    const unmatched = diffBoxes.filter((b) => b.name !== '(other)' && b.base_ns !== b.total_ns);
    check(diffBoxes.length > 10 && unmatched.length === 0,
      `diff against itself: all ${diffBoxes.length} boxes find their path in the base with the same time` +
      (unmatched.length ? ` (not: ${unmatched.slice(0, 3).map((b) => `${b.name} ${b.base_ns}/${b.total_ns}`)})` : ''));
    const legend = await page.$eval('.legend', (e) => e.textContent);
    check(legend.includes('Differential flame graph') && legend.includes('grew'), 'the diff page has its legend');
    const legendAbove = await page.evaluate(() =>
      document.querySelector('.legend').getBoundingClientRect().bottom <= document.getElementById('flame').getBoundingClientRect().top);
    check(legendAbove, 'the diff page\'s legend is above its flame graph');
    const diffHot = diffBoxes.find((b) => b.name === hotName);
    await page.mouse.move(diffHot.x + diffHot.w / 2, diffHot.y + diffHot.h / 2);
    const diffTip = await page.$eval('#tooltip', (e) => e.textContent);
    check(diffTip.includes('base') && diffTip.includes('+0.0 points'), `its tooltip compares with the base: "${diffTip}"`);
    check(diffBoxes.every((b) => b.self_change === undefined || Math.abs(b.self_change) < 1e-12),
      'against itself no box\'s own time changed');
    await page.click('#tab-top');
    const changes = await page.$$eval('#top-body td.change', (tds) => tds.map((td) => td.textContent));
    const sortedBy = await page.$eval('#top-table th.sorted', (th) => th.textContent);
    check(changes.length > 5 && changes.every((c) => c === '+0.0') && sortedBy.startsWith('Change'),
      `the Top table's change column, sorted by: ${changes.length} rows of ${[...new Set(changes)]}, sorted by ${sortedBy}`);

    await checkFolded(session, page);
    await checkIdle(page);

  } finally {
    await finish(session);
  }
});
