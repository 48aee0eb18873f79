// Voxen's Foxglove WebSocket server and client against the protocol's reference implementation,
// npm @foxglove/ws-protocol (FoxgloveClient, FoxgloveServer), on the `ws` package's sockets
// (node 20 has no global WebSocket without a flag). Both from web/node_modules (npm ci --prefix
// web). Driven by tests/web/ws_protocol_interop.sh; every failure exits 1 naming what differed.
//
//   node ws_protocol_interop.mjs serve --url ws://H:P --expected N --docs docs/live.md
//     The reference client against `voxen serve MAP`: serverInfo, every channel of the docs'
//     table advertised (json, jsonschema, the documented schema name), every message valid
//     JSON its schema accepts, the /voxen/map/regions occupied_count sum (each region's latest)
//     equal to N (voxen info's count), and a /voxen/status saying "serving".
//   node ws_protocol_interop.mjs play --url ws://H:P --clouds N --summary PLAY_JSON
//     The reference client against `voxen play RECORDING.mcap --json > PLAY_JSON`: /points
//     (PointCloud2, cdr, ros2msg), /tf and /tf_static advertised; every cloud (N) and every
//     transform message (the count voxen play's summary gives once it ends) received, each
//     decoded from CDR.
//   node ws_protocol_interop.mjs relay --url ws://H:P --clouds N --out-file F
//     Captures what `voxen play RECORDING` sends (channels with their schemas, every message's
//     bytes and time) as a client, then serves the same from the reference FoxgloveServer at the
//     recorded pace (10 Hz clouds), once its client has subscribed; writes the server's URL to
//     F and prints "replayed M messages" once done. It serves until killed.
import path from 'node:path';
import fs from 'node:fs';
import {fileURLToPath} from 'node:url';
import {createRequire} from 'node:module';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
const require = createRequire(path.join(web, 'package.json'));
const {FoxgloveClient, FoxgloveServer} = require('@foxglove/ws-protocol');
const {WebSocket, WebSocketServer} = require('ws');

const args = process.argv.slice(3);
const take = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const timeoutMs = Number(take('--timeout-ms', '30000'));

function fail(message) {
  console.error(`ws_protocol_interop ${process.argv[2]}: ${message}`);
  process.exit(1);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls until ready() is true; fails with why() at the deadline.
async function waitFor(ready, why, ms = timeoutMs) {
  const until = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > until) fail(`${why()} (after ${ms} ms)`);
    await sleep(20);
  }
}

// The reference client on a `ws` socket offering the protocol, with everything it was sent
// recorded: serverInfo, channels by id, messages by channel id (bytes copied: the DataView the
// client hands over is the socket's buffer), server status messages, errors, the close.
function connect(url, subscribeOrder) {
  const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
  const client = new FoxgloveClient({ws});
  const seen = {serverInfo: null, channels: new Map(), messages: new Map(), order: [], statuses: [], errors: [], closed: null,
    advertisedTwice: []};
  const channelOfSub = new Map();
  client.on('serverInfo', (info) => { seen.serverInfo = info; });
  client.on('status', (status) => seen.statuses.push(status));
  client.on('error', (error) => seen.errors.push(String(error && error.message ? error.message : error)));
  client.on('close', (event) => { seen.closed = {code: event.code, reason: String(event.reason || '')}; });
  client.on('advertise', (channels) => {
    for (const channel of channels) {
      if (seen.channels.has(channel.id)) seen.advertisedTwice.push(channel.topic);
      seen.channels.set(channel.id, channel);
      seen.messages.set(channel.id, seen.messages.get(channel.id) || []);
    }
    // Subscribe in the caller's order (voxen play starts at the first cloud subscription: the
    // transforms' subscriptions go first so that none of their messages is missed).
    for (const channel of subscribeOrder ? subscribeOrder(channels) : channels) {
      channelOfSub.set(client.subscribe(channel.id), channel.id);
    }
  });
  client.on('message', ({subscriptionId, timestamp, data}) => {
    const channelId = channelOfSub.get(subscriptionId);
    if (channelId === undefined) {
      seen.errors.push(`a message for subscription ${subscriptionId}, which this client never made`);
      return;
    }
    const bytes = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
    const message = {channelId, timestamp, bytes};
    seen.messages.get(channelId).push(message);
    seen.order.push(message);
  });
  return {client, seen, ws};
}

const byTopic = (seen, topic) => [...seen.channels.values()].find((c) => c.topic === topic);
const describe = (channel) => JSON.stringify({topic: channel.topic, encoding: channel.encoding, schemaName: channel.schemaName,
  schemaEncoding: channel.schemaEncoding});

// --- JSON schema: the subset Foxglove's and Voxen's schemas use (type, properties, required,
// items, enum), enough to say which field of a message its advertised schema refuses.
function schemaErrors(schema, value, where = '$') {
  if (!schema || typeof schema !== 'object') return [];
  const errors = [];
  const types = schema.type === undefined ? [] : [].concat(schema.type);
  const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
  const matches = (t) => t === typeOf(value) || (t === 'number' && typeOf(value) === 'integer');
  if (types.length && !types.some(matches)) return [`${where}: ${typeOf(value)}, the schema says ${types.join('|')}`];
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${where}: ${JSON.stringify(value)} not one of ${JSON.stringify(schema.enum)}`);
  if (typeOf(value) === 'object') {
    for (const key of schema.required || []) if (!(key in value)) errors.push(`${where}.${key}: missing (required)`);
    for (const [key, sub] of Object.entries(schema.properties || {})) {
      if (key in value) errors.push(...schemaErrors(sub, value[key], `${where}.${key}`));
    }
  }
  if (typeOf(value) === 'array' && schema.items) {
    value.forEach((item, i) => errors.push(...schemaErrors(schema.items, item, `${where}[${i}]`)));
  }
  return errors;
}

// docs/live.md's channel table: | `topic` | `schema` | ...
function documentedChannels(docs) {
  const rows = [...fs.readFileSync(docs, 'utf8').matchAll(/^\|\s*`(\/[^`]+)`\s*\|\s*`([^`]+)`\s*\|/gm)];
  if (!rows.length) fail(`no channel table (| \`topic\` | \`schema\` |) in ${docs}`);
  return rows.map((row) => ({topic: row[1], schemaName: row[2]}));
}

async function checkServe() {
  const url = take('--url');
  const expected = Number(take('--expected'));
  const docs = take('--docs');
  if (!url || !Number.isInteger(expected) || !docs) fail('usage: serve --url URL --expected N --docs docs/live.md');
  const documented = documentedChannels(docs);
  const {client, seen} = connect(url);
  await waitFor(() => seen.serverInfo, () => `no serverInfo from ${url}; errors: ${seen.errors.join('; ') || 'none'}; closed: ${JSON.stringify(seen.closed)}`);
  console.log(`serverInfo: ${JSON.stringify(seen.serverInfo)}`);
  if (typeof seen.serverInfo.name !== 'string' || !Array.isArray(seen.serverInfo.capabilities)) {
    fail(`serverInfo lacks the spec's name (string) or capabilities (array): ${JSON.stringify(seen.serverInfo)}`);
  }
  await waitFor(() => documented.every((d) => byTopic(seen, d.topic)),
    () => `documented channels not advertised: ${documented.filter((d) => !byTopic(seen, d.topic)).map((d) => d.topic).join(', ')}` +
      ` (advertised: ${[...seen.channels.values()].map((c) => c.topic).join(', ')})`);
  const schemas = new Map();
  for (const channel of seen.channels.values()) {
    console.log(`channel ${channel.id}: ${describe(channel)}`);
    if (channel.encoding !== 'json' || channel.schemaEncoding !== 'jsonschema') {
      fail(`${channel.topic}: encoding ${channel.encoding}, schemaEncoding ${channel.schemaEncoding}; docs/live.md says json, jsonschema`);
    }
    try {
      schemas.set(channel.id, JSON.parse(channel.schema));
    } catch (error) {
      fail(`${channel.topic}: its schema is not JSON (${error.message}): ${String(channel.schema).slice(0, 200)}`);
    }
  }
  for (const d of documented) {
    const channel = byTopic(seen, d.topic);
    if (channel.schemaName !== d.schemaName) fail(`${d.topic}: schemaName ${channel.schemaName}, docs/live.md says ${d.schemaName}`);
  }
  const undocumented = [...seen.channels.values()].filter((c) => !documented.some((d) => d.topic === c.topic));
  if (undocumented.length) console.log(`note: advertised but not in the docs' table: ${undocumented.map(describe).join(', ')}`);

  // Each region's latest message counts (a region that changes is sent again); the status's
  // latest state.
  const regions = byTopic(seen, '/voxen/map/regions');
  const status = byTopic(seen, '/voxen/status');
  const decoder = new TextDecoder();
  let checked = 0;
  const latest = new Map();
  const states = new Set();
  let lastStatus = null;
  const decodeNew = () => {
    for (; checked < seen.order.length; ++checked) {
      const {channelId, bytes} = seen.order[checked];
      const channel = seen.channels.get(channelId);
      let value;
      try {
        value = JSON.parse(decoder.decode(bytes));
      } catch (error) {
        fail(`${channel.topic}: message ${checked} is not JSON (${error.message}): ${decoder.decode(bytes.slice(0, 200))}`);
      }
      const errors = schemaErrors(schemas.get(channelId), value);
      if (errors.length) fail(`${channel.topic}: message refused by its advertised schema: ${errors.slice(0, 5).join('; ')}`);
      if (channelId === regions.id) {
        const occupied = Buffer.from(value.occupied, 'base64');
        if (occupied.length !== 4 * value.occupied_count) {
          fail(`region ${JSON.stringify(value.region)}: occupied_count ${value.occupied_count}, but ${occupied.length} bytes of indices (want 4 each)`);
        }
        latest.set(JSON.stringify(value.region), value.occupied_count);
      } else if (channelId === status.id) {
        states.add(value.state);
        lastStatus = value;
      }
    }
  };
  const sum = () => [...latest.values()].reduce((a, b) => a + b, 0);
  await waitFor(() => { decodeNew(); return sum() === expected && states.has('serving'); },
    () => `regions' occupied_count sum ${sum()} over ${latest.size} regions, voxen info says ${expected}; ` +
      `status states seen: ${[...states].join(', ') || 'none'}; last status ${JSON.stringify(lastStatus)}; errors: ${seen.errors.join('; ') || 'none'}`);
  if (lastStatus.occupied_voxels !== expected) fail(`/voxen/status occupied_voxels ${lastStatus.occupied_voxels}, voxen info says ${expected}`);
  if (seen.errors.length) fail(`the reference client reported: ${seen.errors.join('; ')}`);
  if (seen.advertisedTwice.length) fail(`channels advertised twice: ${seen.advertisedTwice.join(', ')}`);
  const perTopic = [...seen.channels.values()].map((c) => `${c.topic} ${seen.messages.get(c.id).length}`).join(', ');
  console.log(`messages: ${perTopic}; ${latest.size} regions, ${sum()} occupied voxels = voxen info's ${expected}; status ${lastStatus.state}`);
  client.close();
}

// --- CDR (ROS 2's encoding): a little-endian reader aligned from the end of the 4-byte
// encapsulation header, for PointCloud2 and TFMessage.
class Cdr {
  constructor(bytes) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.bytes = bytes;
    if (bytes.length < 4 || bytes[0] !== 0 || bytes[1] !== 1) {
      throw new Error(`encapsulation ${[...bytes.slice(0, 4)].join(' ')}, not little-endian CDR (0 1 0 0)`);
    }
    this.at = 4;
  }
  align(n) { this.at += (n - ((this.at - 4) % n)) % n; }
  need(n) { if (this.at + n > this.bytes.length) throw new Error(`runs past its ${this.bytes.length} bytes at ${this.at} (+${n})`); }
  u8() { this.need(1); return this.view.getUint8(this.at++); }
  u32() { this.align(4); this.need(4); const v = this.view.getUint32(this.at, true); this.at += 4; return v; }
  i32() { this.align(4); this.need(4); const v = this.view.getInt32(this.at, true); this.at += 4; return v; }
  f64() { this.align(8); this.need(8); const v = this.view.getFloat64(this.at, true); this.at += 8; return v; }
  string() { const n = this.u32(); this.need(n); const s = new TextDecoder().decode(this.bytes.subarray(this.at, this.at + n - 1)); this.at += n; return s; }
  header() { return {sec: this.i32(), nsec: this.u32(), frame: this.string()}; }
}

function decodeCloud(bytes) {
  const r = new Cdr(bytes);
  const header = r.header();
  const height = r.u32();
  const width = r.u32();
  const fields = [];
  for (let n = r.u32(); n > 0; --n) fields.push({name: r.string(), offset: r.u32(), datatype: r.u8(), count: r.u32()});
  const bigEndian = r.u8();
  const pointStep = r.u32();
  const rowStep = r.u32();
  const dataBytes = r.u32();
  r.need(dataBytes);
  r.at += dataBytes;
  const dense = r.u8();
  if (dataBytes !== rowStep * height) throw new Error(`data ${dataBytes} bytes, row_step ${rowStep} x height ${height}`);
  if (rowStep < width * pointStep) throw new Error(`row_step ${rowStep} < width ${width} x point_step ${pointStep}`);
  for (const axis of ['x', 'y', 'z']) if (!fields.some((f) => f.name === axis)) throw new Error(`no field ${axis}`);
  return {header, points: width * height, fields: fields.map((f) => f.name), bigEndian, dense};
}

function decodeTf(bytes) {
  const r = new Cdr(bytes);
  const transforms = [];
  for (let n = r.u32(); n > 0; --n) {
    const header = r.header();
    const child = r.string();
    const t = [r.f64(), r.f64(), r.f64()];
    const q = [r.f64(), r.f64(), r.f64(), r.f64()];
    const norm = Math.hypot(...q);
    if (!(Math.abs(norm - 1) < 1e-6)) throw new Error(`${header.frame} -> ${child}: quaternion of norm ${norm}`);
    if (!t.every(Number.isFinite)) throw new Error(`${header.frame} -> ${child}: translation ${t}`);
    transforms.push({parent: header.frame, child});
  }
  if (r.at !== bytes.length) throw new Error(`${bytes.length - r.at} bytes left after ${transforms.length} transforms`);
  return transforms;
}

// Transforms first, clouds last: voxen play starts once a cloud topic is subscribed.
const cloudsLast = (channels) => [...channels].sort((a, b) => (a.topic === '/points') - (b.topic === '/points'));

async function checkPlay() {
  const url = take('--url');
  const clouds = Number(take('--clouds'));
  const summaryFile = take('--summary');
  if (!url || !Number.isInteger(clouds) || !summaryFile) fail('usage: play --url URL --clouds N --summary PLAY_JSON');
  const {seen} = connect(url, cloudsLast);
  await waitFor(() => seen.serverInfo, () => `no serverInfo from ${url}; errors: ${seen.errors.join('; ') || 'none'}`);
  const want = {
    '/points': {schemaName: 'sensor_msgs/msg/PointCloud2', encoding: 'cdr', schemaEncoding: 'ros2msg'},
    '/tf': {schemaName: 'tf2_msgs/msg/TFMessage', encoding: 'cdr', schemaEncoding: 'ros2msg'},
    '/tf_static': {schemaName: 'tf2_msgs/msg/TFMessage', encoding: 'cdr', schemaEncoding: 'ros2msg'},
  };
  await waitFor(() => Object.keys(want).every((t) => byTopic(seen, t)),
    () => `not advertised: ${Object.keys(want).filter((t) => !byTopic(seen, t)).join(', ')} (advertised: ${[...seen.channels.values()].map(describe).join(', ')})`);
  for (const [topic, fields] of Object.entries(want)) {
    const channel = byTopic(seen, topic);
    console.log(`channel ${channel.id}: ${describe(channel)}, schema ${channel.schema.length} chars`);
    for (const [key, value] of Object.entries(fields)) {
      if (channel[key] !== value) fail(`${topic}: ${key} ${channel[key]}, want ${value}`);
    }
    if (!channel.schema || !channel.schema.length) fail(`${topic}: empty schema (Foxglove Studio needs the ros2msg definition)`);
  }
  if (!/^\s*std_msgs\/Header header/m.test(byTopic(seen, '/points').schema)) {
    fail(`/points: the ros2msg schema does not start with the PointCloud2 definition: ${byTopic(seen, '/points').schema.slice(0, 200)}`);
  }
  const count = (topic) => seen.messages.get(byTopic(seen, topic).id).length;
  const tfCount = () => count('/tf') + count('/tf_static');
  // voxen play closes the connection once it has sent every message (it drains, then exits
  // and writes its summary).
  await waitFor(() => seen.closed, () => `voxen play did not finish: ${count('/points')} of ${clouds} clouds, ${tfCount()} transform messages so far`, 60000);
  let summary = null;
  await waitFor(() => {
    try {
      summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    } catch {
      return false;
    }
    return true;
  }, () => `no summary (voxen play --json) in ${summaryFile}`, 10000);
  const transforms = summary.transforms;
  if (summary.clouds !== clouds) fail(`voxen play says it played ${summary.clouds} clouds, the recording has ${clouds}`);
  const stamps = [];
  let points = 0;
  for (const [i, {bytes, timestamp}] of seen.messages.get(byTopic(seen, '/points').id).entries()) {
    let cloud;
    try {
      cloud = decodeCloud(bytes);
    } catch (error) {
      fail(`/points message ${i} does not decode as a CDR PointCloud2: ${error.message}`);
    }
    const stampNs = BigInt(cloud.header.sec) * 1000000000n + BigInt(cloud.header.nsec);
    stamps.push(Number(stampNs) * 1e-9);
    points += cloud.points;
    if (i === 0) console.log(`first cloud: ${JSON.stringify(cloud)}, message time ${timestamp} ns`);
  }
  let tfPairs = new Set();
  for (const topic of ['/tf', '/tf_static']) {
    for (const [i, {bytes}] of seen.messages.get(byTopic(seen, topic).id).entries()) {
      try {
        for (const t of decodeTf(bytes)) tfPairs.add(`${t.parent}->${t.child}`);
      } catch (error) {
        fail(`${topic} message ${i} does not decode as a CDR TFMessage: ${error.message}`);
      }
    }
  }
  console.log(`received ${count('/points')} clouds (${points} points, stamps ${stamps.map((s) => s.toFixed(2)).join(' ')}), ` +
    `${count('/tf')} /tf and ${count('/tf_static')} /tf_static messages (${[...tfPairs].join(', ')}); closed ${JSON.stringify(seen.closed)}`);
  if (count('/points') !== clouds) fail(`${count('/points')} clouds received, the recording has ${clouds}`);
  if (tfCount() !== transforms) fail(`${tfCount()} transform messages received (/tf ${count('/tf')}, /tf_static ${count('/tf_static')}), voxen play says it sent ${transforms}: ${JSON.stringify(summary)}`);
  if (count('/tf_static') < 1) fail('no /tf_static message');
  if (seen.errors.length) fail(`the reference client reported: ${seen.errors.join('; ')}`);
  if (seen.advertisedTwice.length) fail(`channels advertised twice: ${seen.advertisedTwice.join(', ')}`);
}

async function relay() {
  const url = take('--url');
  const clouds = Number(take('--clouds'));
  const outFile = take('--out-file');
  if (!url || !Number.isInteger(clouds) || !outFile) fail('usage: relay --url URL --clouds N --out-file F');
  // 1. Capture, as a client of voxen play, until the player has sent its last message and
  // closed.
  const isCloud = (c) => /PointCloud2$/.test(c.schemaName);
  const {seen} = connect(url, (channels) => [...channels].sort((a, b) => isCloud(a) - isCloud(b)));
  await waitFor(() => seen.closed, () => `voxen play did not finish: ${seen.order.length} messages so far; errors: ${seen.errors.join('; ') || 'none'}`, 60000);
  const cloudChannels = [...seen.channels.values()].filter(isCloud);
  if (cloudChannels.length !== 1) fail(`want one cloud channel, got: ${[...seen.channels.values()].map(describe).join(', ')}`);
  const captured = seen.messages.get(cloudChannels[0].id).length;
  if (captured !== clouds) fail(`captured ${captured} clouds from voxen play, want ${clouds}`);
  console.log(`captured from voxen play: ${[...seen.channels.values()].map((c) => `${describe(c)} x ${seen.messages.get(c.id).length}`).join(', ')}`);

  // 2. The same channels (with their schemas) and bytes from the reference server.
  const server = new FoxgloveServer({name: 'ws-protocol reference server (voxen interop test)'});
  const wss = new WebSocketServer({host: '127.0.0.1', port: 0, handleProtocols: (protocols) => server.handleProtocols(protocols)});
  const idOf = new Map();
  for (const c of seen.channels.values()) {
    idOf.set(c.id, server.addChannel({topic: c.topic, encoding: c.encoding, schemaName: c.schemaName, schema: c.schema,
      schemaEncoding: c.schemaEncoding}));
  }
  const subscribed = new Set();
  server.on('subscribe', (id) => subscribed.add(id));
  server.on('unsubscribe', (id) => subscribed.delete(id));
  server.on('error', (error) => console.error(`reference server error: ${error}`));
  wss.on('connection', (conn, req) => server.handleConnection(conn, `${req.socket.remoteAddress}:${req.socket.remotePort}`));
  await new Promise((resolve) => wss.on('listening', resolve));
  fs.writeFileSync(outFile, `ws://127.0.0.1:${wss.address().port}\n`);
  console.log(`reference server on ws://127.0.0.1:${wss.address().port}`);

  // 3. Once the client has subscribed to the clouds (and what else it wants, in the next
  // moment), replay in the captured order at the recorded times.
  const cloudId = idOf.get(cloudChannels[0].id);
  await waitFor(() => subscribed.has(cloudId), () => 'no client subscribed to the clouds', 60000);
  await sleep(500);
  console.log(`subscribed: ${[...seen.channels.values()].filter((c) => subscribed.has(idOf.get(c.id))).map((c) => c.topic).join(', ')}`);
  const start = performance.now();
  const first = seen.order[0].timestamp;
  for (const {channelId, timestamp, bytes} of seen.order) {
    const due = start + Number(timestamp - first) * 1e-6;
    if (due > performance.now()) await sleep(due - performance.now());
    server.sendMessage(idOf.get(channelId), timestamp, bytes);
  }
  console.log(`replayed ${seen.order.length} messages in ${((performance.now() - start) / 1000).toFixed(2)} s`);
}

const modes = {serve: checkServe, play: checkPlay, relay};
if (!modes[process.argv[2]]) fail(`usage: ws_protocol_interop.mjs serve|play|relay ...`);
modes[process.argv[2]]().then(() => { if (process.argv[2] !== 'relay') process.exit(0); }, (error) => fail(error.stack || String(error)));
