// tests/browser/served_test.js — the pages Rperf::Viewer serves, opened in
// Debian's chromium (headless, via puppeteer-core) over HTTP as a person
// would open them: the index, then a snapshot's link; the flame graph it
// draws under the viewer's own headers (its content security policy
// refuses anything the page would load or run from elsewhere, and a
// refusal is a console error) against the snapshot's JSON.
//   VIEWER_ORIGIN      http://127.0.0.1:PORT of served_server.rb
//   VIEWER_HOT         a method the snapshot has
//   VIEWER_SCREENSHOT  where the snapshot page's screenshot goes
'use strict';
const { env, check, openBrowser, finish, run } = require('./harness');

run(async () => {
  const origin = env('VIEWER_ORIGIN'), hotName = env('VIEWER_HOT');
  const session = await openBrowser([], [origin]);
  try {
    const page = session.page;
    const index = await page.goto(`${origin}/rperf/`, { waitUntil: 'load' });
    check(index.status() === 200, `the index answers 200 (got ${index.status()})`);
    const links = await page.$$eval('a', (as) => as.map((a) => a.getAttribute('href')));
    check(links.length === 1 && links[0] === '/rperf/snapshots/1/', `the index links the snapshot (${links.join(' ')})`);

    // The expected share of the hot method, from the snapshot's JSON.
    // (Asked from here: the viewer's policy lets no page of it connect.)
    const detail = await (await fetch(`${origin}/rperf/snapshots/1`)).json();
    const total = detail.samples.reduce((t, s) => t + s.weight, 0);
    const hot = detail.samples.filter((s) => s.stack.includes(hotName)).reduce((t, s) => t + s.weight, 0);

    const [response] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('a')]);
    const csp = response.headers()['content-security-policy'] || '';
    check(csp.includes("default-src 'none'"), `the page comes with the viewer's policy (${csp})`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 30000 });
    const box = await page.evaluate((n) => rperfViewer.boxes().find((b) => b.name === n) || null, hotName);
    check(box !== null, `${hotName} has a box in the flame graph of the served page`);
    check(box && Math.abs(box.share - hot / total) < 0.0005,
      `its share ${box && (box.share * 100).toFixed(2)}% is the snapshot's ${(100 * hot / total).toFixed(2)}%`);
    await page.screenshot({ path: env('VIEWER_SCREENSHOT') });
    console.log(`# screenshot: ${env('VIEWER_SCREENSHOT')}`);
  } finally {
    await finish(session);
  }
});
