// tests/browser/interactions.js PAGE [RUNS] — for scripts/bench: opens a
// viewer page in Debian's chromium (headless) and times what a person
// does on it, from the action until the next frame is painted: each tab
// chosen, a search (typed, then Enter), a method chosen in the Top table (the flame graph of
// the stacks through it), Reset. Prints one "<what> <best ms>" line per
// action over RUNS rounds (default 3).
'use strict';
const puppeteer = require('puppeteer-core');

// In the page: runs the action named, then waits for the frame after it.
async function timed(tab, what) {
  return tab.evaluate(async (what) => {
    const $ = (id) => document.getElementById(id);
    const actions = {
      'tab Top': () => $('tab-top').click(),
      'tab Tags': () => $('tab-tags').click(),
      'tab Sandwich': () => $('tab-sandwich').click(),
      'tab Threads': () => $('tab-threads').click(),
      'tab Flame graph': () => $('tab-flame').click(),
      'search (Enter)': () => {
        $('search').value = 'walk_1[0-9]';
        $('controls').requestSubmit();
      },
      'method from Top': () => {
        $('tab-top').click();
        $('top-body').querySelector('tr[data-frame] td:last-child').click();
      },
      'reset': () => $('reset').click(),
    };
    const t0 = performance.now();
    actions[what]();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return performance.now() - t0;
  }, what);
}

(async () => {
  const [page, runs = '3'] = process.argv.slice(2);
  const browser = await puppeteer.launch({
    executablePath: process.env.RPERF_CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const names = ['tab Top', 'tab Tags', 'tab Sandwich', 'tab Threads', 'tab Flame graph', 'search (Enter)',
    'method from Top', 'reset'];
  const best = new Map(names.map((n) => [n, Infinity]));
  try {
    const tab = await browser.newPage();
    await tab.setViewport({ width: 1280, height: 900 });
    await tab.goto('file://' + page);
    await tab.waitForSelector('body[data-ready=true]', { timeout: 120000 });
    for (let i = 0; i < Number(runs); i++)
      for (const n of names) best.set(n, Math.min(best.get(n), await timed(tab, n)));
  } finally {
    await browser.close();
  }
  for (const [n, ms] of best) console.log(`${n.replace(/ /g, '_')} ${ms.toFixed(0)}`);
})().catch((e) => { console.error(`interactions: ${e.message}`); process.exit(1); });
