// The page during a live run (tests/web/live_mapping.sh): joins `voxen map --live ... --serve`
// while it maps, and checks that the map grows on the page (several voxel counts seen, the
// status saying "mapping"), that the path and pose arrive, and, once the recording has ended
// (the mapper reconnecting, its status still), that the page holds the voxels the status
// counts (clouds the mapper dropped behind, as it may on a busy machine, are in neither). Prints the final count as "FINAL N" for
// the script to compare with the saved map. A screenshot mid-run goes to --screenshot.
//
//   node live_mapping.mjs --url URL --clouds N [--screenshot PNG] [--chromium PATH] [--timeout-ms T]
// N: the recording's clouds; the screenshot is taken once a quarter of them is mapped, at a
// moment the page and the status agree (or at the end, said so, where none came).
import {launchBrowser, loadUntilReady} from './page_driver.mjs';

const args = process.argv.slice(2);
const take = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const url = take('--url');
const clouds = Number(take('--clouds'));
const timeoutMs = Number(take('--timeout-ms', '120000'));

function fail(message) {
  throw new Error(message);
}

const snapshot = (page) => page.evaluate(() => ({
  voxels: window.voxenPage.voxelsShown,
  regions: window.voxenPage.regionsShown,
  state: window.voxenPage.status && window.voxenPage.status.state,
  clouds: window.voxenPage.status && window.voxenPage.status.clouds,
  mapVoxels: window.voxenPage.status && window.voxenPage.status.occupied_voxels,
  pathPoints: window.voxenPage.pathPoints,
  poseShown: window.voxenPage.poseShown,
}));

async function main() {
  if (!url || !Number.isInteger(clouds)) fail('usage: live_mapping.mjs --url URL --clouds N [--screenshot PNG]');
  const browser = await launchBrowser(take('--chromium', '/usr/bin/chromium'));
  try {
    const page = await browser.newPage();
    await loadUntilReady(page, url, timeoutMs);
    const counts = new Set();
    const states = new Set();
    let shot = false;
    let last = null;
    const settled = {key: '', since: 0};
    const start = Date.now();
    // Poll until every cloud is mapped and the page holds what the status counts.
    for (;;) {
      last = await snapshot(page);
      counts.add(last.voxels);
      if (last.state) states.add(last.state);
      if (!shot && take('--screenshot') && last.state === 'mapping' && last.clouds >= clouds / 4 && last.pathPoints > 1 &&
          last.voxels === last.mapVoxels) {
        await page.screenshot({type: 'png', path: take('--screenshot')});
        console.log(`screenshot at ${last.clouds} clouds: ${last.voxels} voxels`);
        shot = true;
      }
      // The run is over once the robot is gone (play ended: the mapper is reconnecting) and the
      // status has not changed for 1.5 s (three publications at the default 2 per second).
      const key = JSON.stringify([last.state, last.clouds, last.mapVoxels]);
      if (key !== settled.key) Object.assign(settled, {key, since: Date.now()});
      if (last.state === 'reconnecting' && Date.now() - settled.since >= 1500 && last.voxels === last.mapVoxels) break;
      if (Date.now() - start > timeoutMs) fail(`not every cloud mapped and shown within ${timeoutMs} ms: ${JSON.stringify(last)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!shot && take('--screenshot')) {
      await page.screenshot({type: 'png', path: take('--screenshot')});
      console.log('screenshot after the run: the page never saw it a quarter done');
    }
    console.log(`seen: ${counts.size} voxel counts, states ${[...states].join(', ')}; last ${JSON.stringify(last)}`);
    if (counts.size < 2) fail(`the map did not grow on the page: only ${[...counts].join(", ")} voxels seen`);
    if (!states.has('mapping')) fail(`the status never said mapping: ${[...states].join(', ')}`);
    if (!(last.pathPoints > 1)) fail(`no path drawn (${last.pathPoints} points)`);
    if (!last.poseShown) fail('no pose drawn');
    const dropped = await page.evaluate(() => window.voxenPage.status.dropped_clouds);
    console.log(`${last.clouds} of ${clouds} clouds mapped, ${dropped} dropped behind`);
    console.log(`FINAL ${last.voxels}`);
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(`live_mapping: FAIL: ${error.message || error}`);
  process.exitCode = 1;
});
