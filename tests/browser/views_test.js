// tests/browser/views_test.js — the viewer's Sandwich, inverted, Source
// and Threads views in Debian's chromium (headless, puppeteer-core), used
// as a person would (right-click, the Top table's button, the choosers, the
// pointer over a track, a click on it), each checked against
// rperf-analyze's own figures for the same session (views.sh):
//   VIEWS_PAGE, VIEWS_NOSOURCE_PAGE, VIEWS_UNREAD_PAGE, VIEWS_ONEFILE_PAGE,
//   VIEWS_NOLINES_PAGE, VIEWS_RAW_PAGE (raw samples with their times),
//   VIEWER_CHROMIUM, VIEWS_SCREENSHOTS (a folder)
//   VIEWS_EXPECTED   JSON: callers and callees of Object#shared at depth 1
//                    (name "label (path)", total, self in ms; callers in
//                    allocated objects too), the
//                    heaviest methods' self ms, prog.rb's lines of the
//                    method (self, total ms), thread 2's ms and ms blocked
//                    (raw_: of the raw recording)
'use strict';
const { env, check, openBrowser, load, finish, run } = require('./harness');

const expected = JSON.parse(env('VIEWS_EXPECTED'));
const shots = env('VIEWS_SCREENSHOTS');
// Figures the report prints with one decimal of a millisecond.
const nearMs = (ns, ms, slack = 0.11) => Math.abs(ns / 1e6 - ms) <= slack;
const settle = () => new Promise((r) => setTimeout(r, 200));
const viewer = (page, what) => page.evaluate((w) => rperfViewer[w](), what);
const shownNs = (page) => page.$eval('#shown-total', (e) => Number(e.dataset.ns));
const visible = (page, id) => page.$eval(`#${id}`, (e) => !e.hidden && e.offsetParent !== null);

// Each expected row of depth 1 found with its figures among `rows`.
function checkRows(what, rows, wanted, withSelf) {
  check(wanted.length > 0, `${what}: rperf-analyze listed rows (${wanted.length})`);
  for (const w of wanted) {
    const r = rows.find((x) => x.depth === 1 && `${x.name} (${x.path})` === w.name);
    check(r && nearMs(r.total, w.total) && (!withSelf || nearMs(r.self, w.self)),
      `${what}: ${w.name} ${w.total} ms${withSelf ? `, self ${w.self} ms` : ''} (page: ${r ? `${(r.total / 1e6).toFixed(1)} ms, self ${(r.self / 1e6).toFixed(1)}` : 'missing'})`);
  }
}

async function checkSandwich(page) {
  // Right-click on Object#shared's box in the flame graph.
  const box = await page.evaluate(() => rperfViewer.boxes().find((b) => b.name === 'Object#shared' && b.w > 20));
  check(!!box, 'the flame graph has a box for Object#shared (lines folded into methods)');
  await page.mouse.click(box.x + box.w / 2, box.y + box.h / 2, { button: 'right' });
  await settle();
  check(await visible(page, 'panel-sandwich'), 'a right-click on a box opens the Sandwich tab');
  const s = await viewer(page, 'sandwich');
  check(s && s.method === 'Object#shared (prog.rb)', `the sandwich is Object#shared's: ${s && s.method}`);
  checkRows('callers', s.callers, expected.callers, false);
  checkRows('callees', s.callees, expected.callees, true);
  const [a, b] = expected.callers;
  const share = a.total / (a.total + b.total);
  check(share > 0.55 && share < 0.78, `from_a has about 2/3 of shared's calls (${(share * 100).toFixed(1)}%)`);
  await page.screenshot({ path: `${shots}/views-sandwich.png`, fullPage: true });

  // A click on a caller's row shows its own sandwich.
  await page.click('#callers-body tr[data-depth="1"]');
  await settle();
  const next = await viewer(page, 'sandwich');
  check(next.method === expected.callers[0].name, `a click on the caller's row shows its sandwich: ${next.method}`);

  // The Top table's button.
  await page.click('#tab-top');
  const clicked = await page.evaluate(() => {
    const tr = [...document.querySelectorAll('#top-body tr')].find((r) => r.cells[4].textContent === 'Object#shared');
    if (!tr) return false;
    tr.querySelector('button.to-sandwich').click();
    return true;
  });
  await settle();
  check(clicked && (await viewer(page, 'sandwich')).method === 'Object#shared (prog.rb)',
    "the Top table's callers/callees button shows that method's sandwich");

  // The filters apply: thread 2 never calls it.
  await page.select('#thread', (await page.$$eval('#thread option', (os) => os.map((o) => o.value)))[2]);
  await settle();
  check(await visible(page, 'sandwich-none'), 'with thread 2 chosen, the sandwich says no sample passes through the method');
  await page.select('#thread', '');
  await settle();
  // Named in the box, by a part of its name.
  await page.click('#sandwich-method', { clickCount: 3 });
  await page.type('#sandwich-method', 'from_b');
  await page.keyboard.press('Enter');
  await settle();
  check((await viewer(page, 'sandwich')).method === 'Object#from_b (prog.rb)', 'a part of a name in the box finds the method');
  await page.click('#sandwich-method', { clickCount: 3 });
  await page.type('#sandwich-method', 'Object#');
  await page.keyboard.press('Enter');
  await settle();
  const err = await page.$eval('#sandwich-error', (e) => (e.hidden ? '' : e.textContent));
  check(/methods' names hold/.test(err), `a part of several names is refused, saying so: "${err}"`);
}

async function checkInverted(page) {
  await page.click('#tab-flame');
  await page.click('#tagleaf', { clickCount: 3 });
  await page.keyboard.press('Backspace');
  await page.click('#inverted');
  await settle();
  await settle();
  // "my code" on (the program's methods and Ruby's): Ruby's own frames,
  // Integer#times here, are one "[ruby]" root
  const collapsed = await page.evaluate(() => rperfViewer.boxes());
  const top = collapsed.find((b) => b.name === 'all');
  const ruby = collapsed.find((b) => b.y === top.y + top.h && b.name === '[ruby]');
  const times = expected.self.find((w) => w.name === 'Integer#times');
  check(await page.evaluate(() => rperfViewer.myCode()) && ruby && ruby.total_ns >= times.ms * 1e6 * 0.99,
    `my code, inverted: a root [ruby] holds Integer#times's self time (${ruby ? (ruby.total_ns / 1e6).toFixed(1) : 'none'} ms >= ${times.ms})`);
  await page.click('#my-code'); // everything
  await settle();
  const boxes = await page.evaluate(() => rperfViewer.boxes());
  const all = boxes.find((b) => b.name === 'all');
  const roots = boxes.filter((b) => b.y === all.y + all.h); // the row under 'all'
  for (const w of expected.self.slice(0, 5)) {
    const r = roots.find((x) => x.name === w.name && x.path === w.where);
    check(r && nearMs(r.total_ns, w.ms), `inverted: the root ${w.name} has its self time ${w.ms} ms (page: ${r ? (r.total_ns / 1e6).toFixed(1) : 'no such root'})`);
  }
  await page.screenshot({ path: `${shots}/views-inverted.png` });
  await page.click('#my-code');
  await page.click('#inverted');
  await page.click('#tagleaf', { clickCount: 3 });
  await page.type('#tagleaf', '%GVL, %GC');
  await settle();
}

async function checkSource(page) {
  await page.evaluate(() => rperfViewer.choose('Object#shared', 'sandwich'));
  await page.click('#sandwich-source');
  await settle();
  check(await visible(page, 'panel-source'), "the sandwich's button opens the Source tab");
  const src = await viewer(page, 'source');
  check(src.path === 'prog.rb' && src.withCode && src.note === '', `the source of prog.rb is in the page: ${src.path}, code ${src.withCode}, "${src.note}"`);
  for (const w of expected.lines) {
    const l = src.lines.find((x) => x.line === w.line);
    check(l && nearMs(l.self, w.self) && nearMs(l.total, w.total),
      `line ${w.line}: self ${w.self} ms, total ${w.total} ms as report --lines (page: ${l ? `${(l.self / 1e6).toFixed(1)}, ${(l.total / 1e6).toFixed(1)}` : 'none'})`);
  }
  const hottest = [...expected.lines].sort((a, b) => b.self - a.self)[0];
  check(src.hot[0] === hottest.line, `the hottest line is marked first: ${src.hot[0]} (report: ${hottest.line})`);
  const code = await page.$eval(`#src-${hottest.line} td.code`, (e) => e.textContent);
  check(code.includes('200.times'), `line ${hottest.line} shows its code: "${code}"`);
  await page.screenshot({ path: `${shots}/views-source.png` });
  // Per line, the flame graph too.
  await page.click('#tab-flame');
  await page.click('#by-line');
  await settle();
  const lineBox = await page.evaluate(() => rperfViewer.boxes().find((b) => /^Object#shared:\d+$/.test(b.name)));
  check(!!lineBox, `per line, the flame graph has line frames (${lineBox && lineBox.name})`);
  await page.click('#by-line');
  await settle();
}

const width = (xs) => xs.reduce((a, g) => a + g.w, 0), sum = (xs) => xs.reduce((a, g) => a + g.ns, 0);

// Thread 2's track: its time (`ms`, `blockedMs` blocked, as rperf-analyze
// stat gives them), half of it drawn blocked, after the burning.
async function checkSleeper(page, what, ms, blockedMs) {
  await page.click('#tab-threads');
  await settle();
  const t = await viewer(page, 'threads');
  check(t.timed && t.tracks.length === 2, `${what}: two thread tracks: ${t.tracks.map((x) => x.label).join(', ')}`);
  const t2 = t.tracks.find((x) => x.label === 'thread 2');
  const blocked = t2.stretches.filter((g) => g.state === 'off the GVL (blocked)');
  check(nearMs(sum(t2.stretches), ms, 0.3) && nearMs(sum(blocked), blockedMs, 0.11),
    `${what}: thread 2's track holds its ${ms} ms, ${blockedMs} ms blocked (page: ${(sum(t2.stretches) / 1e6).toFixed(1)}, ${(sum(blocked) / 1e6).toFixed(1)})`);
  const share = width(blocked) / width(t2.stretches), truth = blockedMs / ms;
  check(Math.abs(share - truth) < 0.02 && share > 0.3 && share < 0.56,
    `${what}: thread 2 slept half its life: its blocked stretch is ${(share * 100).toFixed(1)}% of its track (its time: ${(truth * 100).toFixed(1)}%)`);
  // After the burning (the thread's last moments, after its sleep, run a little).
  const first = Math.min(...blocked.map((g) => g.x));
  const lastRun = Math.max(...t2.stretches.filter((g) => g.state === 'running' && g.w > 3).map((g) => g.x + g.w));
  check(first >= lastRun - 1, `${what}: the sleep is drawn after the burning (from x ${first.toFixed(0)}, burning until ${lastRun.toFixed(0)})`);
  return t2;
}

async function checkThreads(page) {
  const t2 = await checkSleeper(page, 'parts', expected.thread2_ms, expected.thread2_blocked_ms);

  // The pointer over a running stretch shows its heaviest stack.
  const run2 = t2.stretches.filter((g) => g.state === 'running').sort((a, b) => b.w - a.w)[0];
  await page.mouse.move(run2.x + run2.w / 2, t2.y + t2.h / 2);
  await settle();
  const tip = await page.$eval('#threads-tip', (e) => (e.hidden ? '' : e.textContent));
  check(tip.includes('Object#burn_cpu') && tip.includes('thread 2'), `the pointer shows the stretch's heaviest stack: "${tip.slice(0, 160)}"`);
  await page.screenshot({ path: `${shots}/views-threads.png` });

  // A click narrows every view to that part and thread.
  await page.mouse.click(run2.x + run2.w / 2, t2.y + t2.h / 2);
  await settle();
  const after = await viewer(page, 'threads');
  const kept = after.tracks.find((x) => x.label === 'thread 2').stretches.filter((g) => g.slot === run2.slot);
  const thread = await page.$eval('#thread', (e) => e.value);
  const strip = await viewer(page, 'strip');
  check(thread.endsWith(':2') && strip.range && /^1 of \d+ parts/.test(strip.text),
    `the click chose thread 2 (${thread}) and that part (${strip.text})`);
  const shown = await shownNs(page);
  check(Math.abs(shown - sum(kept)) < 1e5,
    `the flame graph shows thread 2's time in that part: ${(shown / 1e6).toFixed(1)} ms (its stretches: ${(sum(kept) / 1e6).toFixed(1)} ms)`);
  await page.click('#reset');
  await settle();
}

// The Measure chooser: the sandwich of allocated objects.
async function checkMeasure(page) {
  await page.select('#measure', 'alloc');
  await page.waitForSelector('body[data-ready=true]');
  await settle();
  await page.evaluate(() => rperfViewer.choose('Object#shared', 'sandwich'));
  const s = await viewer(page, 'sandwich');
  check(await page.evaluate(() => rperfViewer.measure()) === 'alloc', 'the page shows allocated objects');
  const wanted = expected.alloc_callers;
  check(wanted.length === 2 && wanted.every((w) => {
    const r = s.callers.find((x) => x.depth === 1 && `${x.name} (${x.path})` === w.name);
    return r && r.total === w.total;
  }), `with allocations measured, the callers' objects are report --measure alloc's: ${wanted.map((w) => `${w.name} ${w.total}`).join(', ')} ` +
    `(page: ${s.callers.filter((x) => x.depth === 1).map((x) => `${x.name} ${x.total}`).join(', ')})`);
}

// Raw samples say when each was taken: the same, in finer stretches.
async function checkRaw(page) {
  await load(page, env('VIEWS_RAW_PAGE'));
  const strip = await viewer(page, 'strip');
  check(strip && /\d+ stretches/.test(strip.text) && strip.slots > 50, `raw samples give the strip stretches of time: "${strip && strip.text}"`);
  await checkSleeper(page, 'raw samples', expected.raw_thread2_ms, expected.raw_thread2_blocked_ms);
  await page.screenshot({ path: `${shots}/views-threads-raw.png` });
}

// What the page says when it cannot show a view.
async function checkSaid(page) {
  await load(page, env('VIEWS_NOSOURCE_PAGE'));
  await page.evaluate(() => rperfViewer.choose('Object#shared', 'source'));
  let src = await viewer(page, 'source');
  check(/--no-source/.test(src.note) && !src.withCode && src.lines.length > 0,
    `--no-source: the lines are listed without code, and the page says why: "${src.note}"`);
  await load(page, env('VIEWS_UNREAD_PAGE'));
  await page.evaluate(() => rperfViewer.choose('Object#shared', 'source'));
  src = await viewer(page, 'source');
  check(/could not be read .*No such file/.test(src.note) && src.lines.length > 0,
    `a source that could not be read is said: "${src.note}"`);
  await load(page, env('VIEWS_ONEFILE_PAGE'));
  await page.click('#tab-threads');
  check(await visible(page, 'threads-none'), 'a profile of one file says it has no times within the run');
  await load(page, env('VIEWS_NOLINES_PAGE'));
  await page.evaluate(() => rperfViewer.choose('Main#work', 'source'));
  src = await viewer(page, 'source');
  check(/no line numbers/.test(src.note), `a profile without lines says so: "${src.note}"`);
}

run(async () => {
  const session = await openBrowser(['VIEWS_PAGE', 'VIEWS_NOSOURCE_PAGE', 'VIEWS_UNREAD_PAGE', 'VIEWS_ONEFILE_PAGE',
    'VIEWS_NOLINES_PAGE', 'VIEWS_RAW_PAGE'].map(env));
  try {
    const page = session.page;
    await load(page, env('VIEWS_PAGE'));
    await checkSandwich(page);
    await checkInverted(page);
    await checkSource(page);
    await checkThreads(page);
    await checkMeasure(page);
    await checkRaw(page);
    await checkSaid(page);
  } finally {
    await finish(session);
  }
});
