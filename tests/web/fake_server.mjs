// A stand-in for `voxen serve`, for working on the page without the program: it serves web/
// over HTTP at the paths the bundled page has (cmake/WebPage.cmake) and, on the same port, a
// Foxglove WebSocket stream with docs/live.md's channels: a small room's regions, a path, a
// pose and a status. The page test runs the real program; this one tests the page's own
// behaviour (reconnecting) where the server is made to go away.
//
//   node tests/web/fake_server.mjs [--port P] [--regions N]    prints its URL on stderr
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {createRequire} from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const web = path.join(root, 'web');
const require = createRequire(path.join(web, 'package.json'));
const {WebSocketServer} = require('ws');

const TYPES = {'.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8'};
const THREE_FILES = {
  '/three/three.module.js': 'node_modules/three/build/three.module.js',
  '/three/three.core.js': 'node_modules/three/build/three.core.js',
  '/three/addons/controls/OrbitControls.js': 'node_modules/three/examples/jsm/controls/OrbitControls.js',
};

function fileFor(urlPath) {
  const clean = urlPath.split('?')[0];
  if (clean === '/') return path.join(web, 'index.html');
  if (THREE_FILES[clean]) return path.join(web, THREE_FILES[clean]);
  if (/^\/(index\.html|style\.css|js\/[a-z_]+\.js)$/.test(clean)) return path.join(web, clean);
  return null;
}

// A room of 0.2 m voxels: floor and four walls, in regions of 16 voxels a side.
const N = 16;
const SIZE = 0.2;
function roomRegions(count) {
  const side = Math.max(1, Math.round(Math.sqrt(count)));
  const regions = new Map();
  const extent = side * N;
  const add = (x, y, z) => {
    const r = [Math.floor(x / N), Math.floor(y / N), Math.floor(z / N)];
    const key = r.join(',');
    if (!regions.has(key)) regions.set(key, {region: r, indices: []});
    regions.get(key).indices.push((x % N) + (y % N) * N + (z % N) * N * N);
  };
  for (let x = 0; x < extent; ++x) {
    for (let y = 0; y < extent; ++y) {
      add(x, y, 0);
      if (x === 0 || y === 0 || x === extent - 1 || y === extent - 1) for (let z = 1; z < 12; ++z) add(x, y, z);
    }
  }
  return [...regions.values()];
}

function regionMessage({region, indices}) {
  const bytes = Buffer.alloc(indices.length * 4);
  indices.forEach((v, i) => bytes.writeUInt32LE(v, i * 4));
  return {
    timestamp: {sec: 1, nsec: 0}, frame_id: 'map', region, region_size: N, voxel_size: SIZE,
    origin: region.map((r) => r * N * SIZE), occupied_count: indices.length,
    occupied: bytes.toString('base64'), height_range: [0, 12 * SIZE],
  };
}

function pose(t) {
  const a = t * 0.5;
  return {position: {x: 3 + Math.cos(a), y: 3 + Math.sin(a), z: 1}, orientation: {x: 0, y: 0, z: Math.sin((a + Math.PI / 2) / 2), w: Math.cos((a + Math.PI / 2) / 2)}};
}

function state(regionCount) {
  const regions = roomRegions(regionCount).map(regionMessage);
  const poses = Array.from({length: 40}, (_, i) => pose(i * 0.3));
  const voxels = regions.reduce((sum, r) => sum + r.occupied_count, 0);
  return {
    '/voxen/map/regions': regions,
    '/voxen/sensor/path': [{timestamp: {sec: 1, nsec: 0}, frame_id: 'map', poses}],
    '/voxen/sensor/pose': [{timestamp: {sec: 1, nsec: 0}, frame_id: 'map', pose: poses[poses.length - 1]}],
    '/voxen/status': [{timestamp: {sec: 1, nsec: 0}, state: 'serving', source: 'fake', clouds: 10, dropped_clouds: 0,
      rays: 1000, rays_per_second: 1.5e6, latency_ms: {last: 4, max: 9}, regions: regions.length,
      occupied_voxels: voxels, free_voxels: 0, resolution: SIZE, memory_mb: 1, clients: 1}],
  };
}

function dataFrame(subscriptionId, message) {
  const payload = Buffer.from(JSON.stringify(message));
  const head = Buffer.alloc(13);
  head.writeUInt8(0x01, 0);
  head.writeUInt32LE(subscriptionId, 1);
  head.writeBigUInt64LE(BigInt(Date.now()) * 1000000n, 5);
  return Buffer.concat([head, payload]);
}

function serveSocket(socket, messages) {
  const topics = Object.keys(messages);
  const channels = topics.map((topic, id) => ({id: id + 1, topic, encoding: 'json', schemaName: topic, schema: '{}', schemaEncoding: 'jsonschema'}));
  socket.send(JSON.stringify({op: 'serverInfo', name: 'voxen fake server', capabilities: [], supportedEncodings: []}));
  socket.send(JSON.stringify({op: 'advertise', channels}));
  socket.on('message', (data, binary) => {
    if (binary) return;
    const request = JSON.parse(String(data));
    if (request.op !== 'subscribe') return;
    for (const {id, channelId} of request.subscriptions) {
      for (const message of messages[channels[channelId - 1].topic]) socket.send(dataFrame(id, message));
    }
  });
}

// Serves the page and the stream of a room of about `regions` regions on `port` (0: any free
// one). Resolves to {port, voxels, close()}; close() drops every client and stops listening.
export function startFakeServer({port = 0, regions = 9} = {}) {
  const messages = state(regions);
  const server = http.createServer((request, response) => {
    const file = fileFor(request.url);
    if (!file || !fs.existsSync(file)) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, {'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream'});
    response.end(fs.readFileSync(file));
  });
  const sockets = new WebSocketServer({server, handleProtocols: (protocols) => (protocols.has('foxglove.websocket.v1') ? 'foxglove.websocket.v1' : false)});
  sockets.on('connection', (socket) => serveSocket(socket, messages));
  const voxels = messages['/voxen/status'][0].occupied_voxels;
  const close = () => new Promise((resolve) => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({port: server.address().port, voxels, close}));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const {port, voxels} = await startFakeServer({port: option('--port', 0), regions: option('--regions', 9)});
  console.error(`voxen fake server: listening on http://127.0.0.1:${port}/ (${voxels} voxels)`);
}
