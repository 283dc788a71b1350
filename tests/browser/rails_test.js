// tests/browser/rails_test.js — a Rails developer's first look at their
// application's profile, in Debian's chromium (headless, puppeteer-core);
// rails.sh records the suite's Rails app on Puma and makes the pages:
//   RAILS_PAGE           the page of the recording (wall mode)
//   RAILS_REQUESTS_JSON  rperf-analyze requests --json of it
//   RAILS_DIFF_PAGE      diff --html of it against the app with /slow 30% slower
//   RAILS_SCREENSHOTS    where the screenshots go; VIEWER_CHROMIUM
'use strict';
const fs = require('fs');
const { env, check, openBrowser, load, finish, run } = require('./harness');

const pagePath = env('RAILS_PAGE'), diffPath = env('RAILS_DIFF_PAGE');
const endpoints = JSON.parse(fs.readFileSync(env('RAILS_REQUESTS_JSON'), 'utf8'));
const shots = env('RAILS_SCREENSHOTS');
const settle = () => new Promise((r) => setTimeout(r, 300));
const ACTIONS = { 'WorkController#slow': 'GET /slow' };
const ms = (ns) => (ns / 1e6).toFixed(1);

// The first screen, as the page opens: the time inside requests, the
// application's code first, and the actions among the widest boxes.
async function checkFirstScreen(page) {
  const viewer = await page.evaluate(() => ({ inRequests: rperfViewer.inRequests(), myCode: rperfViewer.myCode() }));
  check(viewer.inRequests && viewer.myCode, `the page opens inside requests with my code first: ${JSON.stringify(viewer)}`);
  const note = await page.$eval('#status', (e) => e.textContent);
  check(/inside requests and jobs only: .* left out/.test(note) && note.includes('show everything'),
    `the status line says what it left out and offers everything: "${note}"`);
  const height = await page.evaluate(() => window.innerHeight);
  const boxes = (await page.evaluate(() => rperfViewer.boxes())).filter((b) => b.y + b.h <= height);
  // each name once, at its widest
  const named = boxes.filter((b) => b.name !== 'all').sort((a, b) => b.w - a.w)
    .filter((b, i, all) => all.findIndex((x) => x.name === b.name) === i);
  console.log(`# first screen, widest: ${named.slice(0, 12).map((b) => `${b.name} ${b.w.toFixed(0)}px`).join(', ')}`);
  // The actions that spend their time themselves (a sleep, a burn) are
  // among the widest; PostsController#show spends a few microseconds of
  // its requests' milliseconds (Rails' own work is most of them), and is
  // there too.
  for (const action of ['WorkController#slow', 'WorkController#cpu']) {
    const rank = named.findIndex((b) => b.name === action);
    check(rank >= 0 && rank < 10 && named[rank].w >= 40,
      `${action} is on the first screen among the ten widest boxes, its name shown: ${rank >= 0 ? `#${rank + 1}, ${named[rank].w.toFixed(0)} px` : 'not there'}`);
  }
  const show = named.find((b) => b.name === 'PostsController#show');
  check(show && show.stack.length <= 3, `PostsController#show is on the first screen, under ${show ? show.stack.slice(0, -1).join(' > ') : 'nothing'}`);
  await page.screenshot({ path: `${shots}/rails-first-screen.png` });
}

// One click on an action in Top: the graph rooted at it, its total the
// action's total in Top, and the status line relating it to the time the
// requests table gives the action's endpoint.
async function checkFocus(page) {
  const action = 'WorkController#slow', endpoint = endpoints.find((e) => e.name === ACTIONS[action]);
  await page.click('#tab-top');
  await page.click('#top-table th[data-sort=total]'); // an action spends little time itself: by total
  const row = await page.evaluate((name) => {
    const tr = [...document.querySelectorAll('#top-body tr')].find((r) => r.querySelector('.name').textContent === name);
    if (!tr) return null;
    tr.querySelector('.name').click();
    return Number(tr.children[2].textContent.replace(/,/g, '')) * 1e6;
  }, action);
  await settle();
  const boxes = await page.evaluate(() => rperfViewer.boxes());
  const top = Math.min(...boxes.map((b) => b.y));
  const rooted = boxes.filter((b) => b.y === top + b.h);
  const total = await page.evaluate(() => rperfViewer.shownTotal());
  check(rooted.length === 1 && rooted[0].name === action, `one click roots the graph at ${action}: ${rooted.map((b) => b.name)}`);
  check(row !== null && Math.abs(total - row) <= 0.05e6, `its total ${ms(total)} ms is its total in Top, ${ms(row)} ms`);
  const said = await page.$eval('#focus-endpoint', (e) => ({ text: e.textContent, ns: Number(e.dataset.endpointNs) })).catch(() => null);
  const endpointNs = endpoint.total_ms * 1e6;
  check(said && Math.abs(said.ns - endpointNs) <= 0.01 * endpointNs && said.text.includes(endpoint.name),
    `the status line gives ${endpoint.name}'s time in requests, ${endpoint.total_ms.toFixed(1)} ms in the requests table: "${said && said.text}"`);
  // what the action's own requests took is most of it: the rest is Rails
  // around it and waiting for the GVL behind /cpu's burns
  check(total <= endpointNs * 1.001 && total >= 0.7 * endpointNs,
    `${action}'s ${ms(total)} ms is ${((100 * total) / endpointNs).toFixed(1)}% of ${endpoint.name}'s ${endpoint.total_ms.toFixed(1)} ms`);
  await page.screenshot({ path: `${shots}/rails-focused.png` });
}

// The diff against the app with its actions 30% slower: red where the
// actions' own time grew, not on every ancestor; Top's change column.
async function checkDiff(page) {
  await load(page, diffPath);
  const boxes = await page.evaluate(() => rperfViewer.boxes());
  const grew = boxes.filter((b) => b.self_change > 0).sort((a, b) => b.self_change - a.self_change);
  const strongest = grew.length ? grew[0].self_change : 0;
  const red = grew.filter((b) => b.self_change >= 0.5 * strongest);
  console.log(`# red boxes: ${red.map((b) => `${b.name} +${ms(b.self_change)} ms under ${b.stack.slice(-4, -1).join(' > ')}`).join('; ')}`);
  const inAction = (b) => b.stack.includes('WorkController#slow');
  check(red.length > 0 && red.every(inAction), `every red box is the slower action's own frame or its callee: ${red.map((b) => b.name)}`);
  const height = await page.evaluate(() => window.innerHeight);
  check(red.length > 0 && red[0].y + red[0].h <= height, `the reddest box is on the first screen (my code first): ${red.length && red[0].y.toFixed(0)} px`);
  // the action's ancestors (a server's and the framework's run, in one
  // box) are not red: their own time changed by what two runs differ
  const path = red.length ? red[0].stack.slice(0, red[0].stack.indexOf('WorkController#slow')) : [];
  const ancestors = boxes.filter((b) => path.includes(b.name) && b.name !== 'all');
  check(ancestors.length > 0 && ancestors.every((b) => b.self_change < 0.5 * strongest),
    `its ancestors are not: ${ancestors.map((b) => `${b.name} ${ms(b.self_change)} ms`).join(', ')} (the reddest +${ms(strongest)} ms)`);
  await page.screenshot({ path: `${shots}/rails-diff.png` });
  await page.click('#tab-top');
  const rows = await page.$$eval('#top-body tr', (trs) => trs.slice(0, 5).map((tr) => [tr.querySelector('.name').textContent, tr.querySelector('.change').textContent]));
  console.log(`# Top by change: ${rows.map((r) => r.join(' ')).join(', ')}`);
  const under = new Set(boxes.filter(inAction).map((b) => b.name));
  check(rows.length > 0 && under.has(rows[0][0]), `Top's change column lists first a method the slower action ran: ${rows[0]}`);
}

run(async () => {
  const session = await openBrowser([pagePath, diffPath]);
  try {
    const page = session.page;
    await load(page, pagePath);
    await checkFirstScreen(page);
    await checkFocus(page);
    await checkDiff(page);
  } finally {
    await finish(session);
  }
});
