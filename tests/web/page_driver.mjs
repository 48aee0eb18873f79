// Headless Chromium for the page tests: puppeteer-core from web/node_modules (it downloads no
// browser) driving Debian's chromium, with WebGL on SwiftShader (no GPU, no display).
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {createRequire} from 'node:module';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
const puppeteer = createRequire(path.join(web, 'package.json'))('puppeteer-core');

export const VIEWPORT = {width: 1280, height: 800};

export async function launchBrowser(executablePath) {
  const args = ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'];
  // Chromium's sandbox refuses to start as root (CI runs as root).
  if (process.getuid && process.getuid() === 0) args.push('--no-sandbox');
  return puppeteer.launch({executablePath, headless: true, args, defaultViewport: VIEWPORT});
}

// Loads URL in page and waits for the page's ready mark. Returns the wall time from the start
// of navigation to the mark seen (readyWallMs) and the page's own clock at the mark (readyMs).
export async function loadUntilReady(page, url, timeoutMs) {
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') console.error(`  page ${message.type()}: ${message.text()}`);
  });
  const start = performance.now();
  await page.goto(url, {waitUntil: 'domcontentloaded', timeout: timeoutMs});
  try {
    await page.waitForFunction(() => document.body.dataset.ready === '1', {timeout: timeoutMs, polling: 10});
  } catch (error) {
    const seen = await page.evaluate(() => window.voxenPage && {
      voxels: window.voxenPage.voxelsShown, messages: window.voxenPage.messagesReceived,
      connection: document.getElementById('connection').textContent,
    }).catch(() => null);
    throw new Error(`the page never became ready in ${timeoutMs} ms: ${JSON.stringify(seen)}; page errors: ${errors.join('; ') || 'none'}`);
  }
  const readyWallMs = performance.now() - start;
  if (errors.length) throw new Error(`the page threw: ${errors.join('; ')}`);
  const readyMs = await page.evaluate(() => window.voxenPage.readyMs);
  return {readyWallMs, readyMs};
}

// How many distinct colours a PNG screenshot of the view alone holds (the panels hidden), and
// the share of its pixels that differ from the background: read back through the page's own
// 2D canvas, so no PNG decoder is needed here.
export async function pixelStats(page) {
  await page.evaluate(() => document.querySelectorAll('.panel, #connection').forEach((e) => { e.style.visibility = 'hidden'; }));
  const shot = await page.screenshot({type: 'png', encoding: 'base64'});
  await page.evaluate(() => document.querySelectorAll('.panel, #connection').forEach((e) => { e.style.visibility = ''; }));
  return page.evaluate(async (base64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${base64}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const {data} = context.getImageData(0, 0, canvas.width, canvas.height);
    const colours = new Set();
    let notBackground = 0;
    const [br, bg, bb] = [data[0], data[1], data[2]];  // a corner: the background
    for (let i = 0; i < data.length; i += 4) {
      colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      if (Math.abs(data[i] - br) + Math.abs(data[i + 1] - bg) + Math.abs(data[i + 2] - bb) > 24) notBackground += 1;
    }
    return {colours: colours.size, notBackground: notBackground / (data.length / 4)};
  }, shot);
}
