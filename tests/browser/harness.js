// tests/browser/harness.js — what the browser tests share: environment
// figures, ok/FAIL lines, and a headless Debian chromium page that loads
// the given file:// pages only (every other request is blocked and
// counted) and collects console errors and warnings and page errors.
'use strict';
const puppeteer = require('puppeteer-core');

function env(name) {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is not set`);
  return v;
}

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failures++;
}

// Opens a 1280x900 page in VIEWER_CHROMIUM allowed to load `files` and
// what `origins` (e.g. http://127.0.0.1:4567) serve, nothing else.
async function openBrowser(files, origins = []) {
  const fileUrls = new Set(files.map((f) => 'file://' + f));
  // A page's own address with a fragment (#measure=alloc) is the same file.
  const allowed = { has: (url) => fileUrls.has(url.split('#')[0]) || origins.some((o) => url.startsWith(o + '/')) };
  const browser = await puppeteer.launch({
    executablePath: env('VIEWER_CHROMIUM'), headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const problems = [], requests = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.setRequestInterception(true);
  page.on('request', (r) => { if (allowed.has(r.url())) r.continue(); else { requests.push(r.url()); r.abort(); } });
  return { browser, page, problems, requests };
}

// Loads a viewer page and waits until it has drawn.
async function load(page, file) {
  await page.goto('file://' + file, { waitUntil: 'load' });
  await page.waitForSelector('body[data-ready=true]', { timeout: 30000 });
}

// The last checks of every test, the browser closed, and the exit status.
async function finish(session) {
  try {
    check(session.requests.length === 0, `no network request: ${session.requests.join(' ') || 'none'}`);
    check(session.problems.length === 0, `no console error or page error: ${session.problems.join(' | ') || 'none'}`);
  } finally {
    await session.browser.close();
  }
  if (failures) {
    console.log(`${failures} check(s) failed`);
    process.exit(1);
  }
}

// Runs a test body; an exception is a failure.
function run(body) {
  body().catch((e) => { console.error(`FAIL: ${e.stack || e}`); process.exit(1); });
}

module.exports = { env, check, openBrowser, load, finish, run };
