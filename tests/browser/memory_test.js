// tests/browser/memory_test.js — the viewer's measure chooser as a person
// uses it, in Debian's chromium (headless, puppeteer-core): the page of a
// profile with allocation sampling opens on time; choosing "allocated
// objects" and then "retained objects" shows those, in their unit, in the
// flame graph, the Top table, the Tags (%class) and the time strip, with
// the totals rperf-analyze reports (memory.sh reads them):
//   MEMORY_PAGE, VIEWER_CHROMIUM, MEMORY_SCREENSHOT, MEMORY_ALLOC_TOTAL,
//   MEMORY_RETAINED_TOTAL, MEMORY_ALLOC_CHURN, MEMORY_RETAINED_KEEP
'use strict';
const { env, check, openBrowser, load, finish, run } = require('./harness');

const page_ = env('MEMORY_PAGE');
const allocTotal = Number(env('MEMORY_ALLOC_TOTAL')), retainedTotal = Number(env('MEMORY_RETAINED_TOTAL'));
const allocChurn = Number(env('MEMORY_ALLOC_CHURN')), retainedKeep = Number(env('MEMORY_RETAINED_KEEP'));

run(async () => {
  const session = await openBrowser([page_]);
  try {
    const page = session.page;
    await load(page, page_);
    const view = () => page.evaluate(() => ({
      measure: rperfViewer.measure(), unit: rperfViewer.unit, shown: rperfViewer.shownTotal(),
      boxes: rperfViewer.boxes().map((b) => ({ name: b.name, total: b.total_ns })),
      status: document.getElementById('shown-total').textContent,
      strip: rperfViewer.strip(),
    }));
    const choose = async (value) => {
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.select('#measure', value)]);
      await page.waitForSelector('body[data-ready=true]', { timeout: 30000 });
    };
    const options = await page.$$eval('#measure option', (os) => os.map((o) => o.value));
    check(await page.$eval('#measure-box', (e) => !e.hidden), 'the page of a profile with allocations has a measure chooser');
    check(options.join(',') === 'time,alloc,retained,retained-bytes', `it offers time and the three memory measures: ${options}`);
    const t = await view();
    check(t.measure === 'time' && t.unit === 'ms' && / ms of /.test(t.status), `it opens on time: "${t.status}"`);

    await choose('alloc');
    const a = await view();
    check(a.measure === 'alloc' && a.unit === 'objects', `choosing allocated objects shows them (${a.measure}, ${a.unit})`);
    check(a.shown === allocTotal, `all ${a.shown} objects, as rperf-analyze counts: ${allocTotal}`);
    check(/ objects of .* objects/.test(a.status), `the status says objects: "${a.status}"`);
    const churn = a.boxes.find((b) => b.name === 'Object#churn');
    check(churn && churn.total === allocChurn, `Object#churn's box holds ${churn && churn.total} objects: ${allocChurn}`);
    await page.click('#tab-top');
    const head = await page.$$eval('#top-table thead th', (ths) => ths.map((th) => th.textContent.trim()));
    const firstRow = await page.$$eval('#top-body tr', (trs) => trs.slice(0, 3).map((tr) => tr.textContent));
    check(head.slice(0, 4).join(' | ') === 'Self objects | Self % | Total objects | Total %', `the Top table counts objects: ${head.join(' | ')}`);
    check(firstRow.some((r) => /Array\.new|Object#churn/.test(r)), `its heaviest rows are the churn's: ${firstRow.join(' / ')}`);
    await page.click('#tab-tags');
    const classes = await page.$$eval('#tags-body table.tag[data-key="%class"] tbody tr', (trs) => trs.map((tr) => tr.dataset.value));
    check(classes.includes('Array') && classes.includes('String'), `the Tags list the classes: ${classes.slice(0, 6).join(', ')}`);
    await page.click('#tab-flame');

    await choose('retained');
    const r = await view();
    check(r.measure === 'retained' && r.shown === retainedTotal, `retained objects: ${r.shown}, as rperf-analyze counts: ${retainedTotal}`);
    const keep = r.boxes.find((b) => b.name === 'Object#keep');
    check(keep && keep.total === retainedKeep, `Object#keep holds ${keep && keep.total} of them: ${retainedKeep}`);
    const columns = r.strip ? r.strip.columns : [];
    const filled = columns.filter((c) => c > 0);
    check(filled.length >= 3 && filled[filled.length - 1] > filled[0],
      `the time strip shows the retained objects growing part after part: ${filled.join(', ')}`);
    await page.screenshot({ path: env('MEMORY_SCREENSHOT'), fullPage: true });

    await choose('time');
    const back = await view();
    check(back.measure === 'time' && back.shown === t.shown, `choosing time again shows the time: ${back.shown} ns`);
  } finally {
    await finish(session);
  }
});
