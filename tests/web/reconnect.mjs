// The page when its server goes away and comes back (tests/web/fake_server.mjs stands in for
// voxen serve, so this needs no voxen build): the page draws the first map, shows that it is
// disconnected and retrying, and once the server is back on the same port holds the new map
// only (a region the new server does not send is gone), with the same counts as the server's.
//
//   node reconnect.mjs [--chromium /usr/bin/chromium] [--screenshot PNG]
// Prints the reconnect time and "PASS ..."; exits 1 with what was seen otherwise.
import {startFakeServer} from './fake_server.mjs';
import {launchBrowser, loadUntilReady} from './page_driver.mjs';

const args = process.argv.slice(2);
const take = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);

async function waitFor(page, what, predicate, arg, timeoutMs = 15000) {
  try {
    await page.waitForFunction(predicate, {timeout: timeoutMs, polling: 20}, arg);
  } catch (error) {
    const seen = await page.evaluate(() => ({
      voxels: window.voxenPage.voxelsShown, regions: window.voxenPage.regionsShown,
      banner: document.getElementById('connection').textContent,
    }));
    throw new Error(`${what}: not within ${timeoutMs} ms; the page shows ${JSON.stringify(seen)}`);
  }
}

async function main() {
  let server = await startFakeServer({regions: 9});
  const {port} = server;
  const browser = await launchBrowser(take('--chromium', '/usr/bin/chromium'));
  try {
    const page = await browser.newPage();
    const first = await loadUntilReady(page, `http://127.0.0.1:${port}/`, 30000);
    console.log(`first map: ${server.voxels} voxels, ready in ${first.readyWallMs.toFixed(0)} ms`);
    await waitFor(page, 'the first map', (n) => window.voxenPage.voxelsShown === n, server.voxels);

    await server.close();
    await waitFor(page, 'the banner saying disconnected',
      () => document.getElementById('connection').dataset.state === 'disconnected' &&
            /reconnecting in/.test(document.getElementById('connection').textContent));
    const banner = await page.evaluate(() => document.getElementById('connection').textContent);
    console.log(`server gone: the banner says "${banner}"`);
    // Let a retry or two fail, so the page is in its backoff when the server comes back.
    await new Promise((resolve) => setTimeout(resolve, 1200));

    server = await startFakeServer({port, regions: 4});
    const back = performance.now();
    await waitFor(page, 'the page back on the new map', (n) =>
      document.getElementById('connection').dataset.state === 'connected' && window.voxenPage.voxelsShown === n &&
      window.voxenPage.status && window.voxenPage.status.occupied_voxels === n, server.voxels);
    const regions = await page.evaluate(() => window.voxenPage.regionsShown);
    console.log(`server back: the page holds ${server.voxels} voxels in ${regions} regions ${(performance.now() - back).toFixed(0)} ms later`);
    if (take('--screenshot')) await page.screenshot({type: 'png', path: take('--screenshot')});
  } finally {
    await browser.close();
    await server.close();
  }
  console.log('PASS: the page reconnects and holds the new map only');
}

main().catch((error) => {
  console.error(`reconnect: FAIL: ${error.stack || error}`);
  process.exitCode = 1;
});
