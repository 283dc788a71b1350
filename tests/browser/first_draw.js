// tests/browser/first_draw.js PAGE [RUNS] — for scripts/bench: opens a
// viewer page in Debian's chromium (headless) RUNS times (default 3) and
// prints "<best load-to-first-draw ms> <best script ms>": from navigation
// until the page's script has drawn its first flame graph, and the part
// of it spent in the script (data parsed, tree built, drawn).
'use strict';
const puppeteer = require('puppeteer-core');

(async () => {
  const [page, runs = '3'] = process.argv.slice(2);
  const browser = await puppeteer.launch({
    executablePath: process.env.RPERF_CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  let best = Infinity, bestScript = Infinity;
  try {
    for (let i = 0; i < Number(runs); i++) {
      const tab = await browser.newPage();
      await tab.setViewport({ width: 1280, height: 900 });
      const t0 = Date.now();
      await tab.goto('file://' + page);
      await tab.waitForSelector('body[data-ready=true]', { timeout: 120000 });
      best = Math.min(best, Date.now() - t0);
      bestScript = Math.min(bestScript, await tab.evaluate(() => rperfViewer.firstDrawMs));
      await tab.close();
    }
  } finally {
    await browser.close();
  }
  console.log(`${best} ${bestScript.toFixed(0)}`);
})().catch((e) => { console.error(`first_draw: ${e.message}`); process.exit(1); });
