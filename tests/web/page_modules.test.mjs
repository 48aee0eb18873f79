// The page's modules that need no browser, under node's test runner: the Message Data frame
// split, voxen.MapRegion decoding (docs/live.md's index layout), the map state's replace and
// remove rules, and the height colours' ends.
//   node --test tests/web/page_modules.test.mjs
import test from 'node:test';
import assert from 'node:assert/strict';
import {parseBinaryFrame} from '../../web/js/connection.js';
import {decodeRegion, MapState} from '../../web/js/map_state.js';
import {heightColour, niceTicks} from '../../web/js/colormap.js';

function regionMessage(region, indices, extra = {}) {
  const bytes = Buffer.alloc(indices.length * 4);
  indices.forEach((v, i) => bytes.writeUInt32LE(v, i * 4));
  return {
    region, region_size: 4, voxel_size: 0.5, origin: region.map((r) => r * 4 * 0.5),
    occupied_count: indices.length, occupied: bytes.toString('base64'), height_range: [0, 2], ...extra,
  };
}

test('a Message Data frame: opcode 1, uint32 LE subscription, uint64 LE time, payload', () => {
  const frame = Buffer.concat([Buffer.from([0x01, 7, 0, 0, 0]), Buffer.alloc(8), Buffer.from('{"a":1}')]);
  frame.writeBigUInt64LE(123456789012345n, 5);
  const copy = frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.length);
  const parsed = parseBinaryFrame(copy);
  assert.equal(parsed.subscriptionId, 7);
  assert.equal(parsed.timestampNs, 123456789012345n);
  assert.equal(new TextDecoder().decode(parsed.payload), '{"a":1}');
  const time = new Uint8Array([0x02, 0, 0, 0, 0, 0, 0, 0, 0]).buffer;  // a Time frame
  assert.equal(parseBinaryFrame(time), null);
});

test('a local index i is (i % n, (i / n) % n, i / n^2), centred, from the origin', () => {
  // n = 4: index 1 + 2*4 + 3*16 = 57 is voxel (1, 2, 3).
  const {count, centres} = decodeRegion(regionMessage([1, -1, 0], [0, 57]));
  assert.equal(count, 2);
  assert.deepEqual([...centres], [2.25, -1.75, 0.25, 2.75, -0.75, 1.75]);
});

test('a region message replaces its region; occupied_count 0 removes it', () => {
  const map = new MapState();
  map.applyRegion(regionMessage([0, 0, 0], [0, 1, 2]));
  map.applyRegion(regionMessage([1, 0, 0], [5]));
  assert.equal(map.voxelCount, 4);
  map.applyRegion(regionMessage([0, 0, 0], [3]));
  assert.equal(map.voxelCount, 2);
  map.applyRegion(regionMessage([1, 0, 0], [], {occupied_count: 0, occupied: ''}));
  assert.equal(map.voxelCount, 1);
  assert.equal(map.regions.size, 1);
  const pending = map.takePending();
  assert.deepEqual(pending.map(([key, region]) => [key, region ? region.count : null]), [['0,0,0', 1], ['1,0,0', null]]);
  map.clear();  // a new connection: what was held is pending removal
  assert.deepEqual(map.takePending().map(([key, region]) => [key, region]), [['0,0,0', undefined]]);
  assert.equal(map.voxelCount, 0);
});

test('a malformed region is counted and skipped', () => {
  const map = new MapState();
  const warn = console.warn;
  console.warn = () => {};
  try {
    map.applyRegion(regionMessage([0, 0, 0], [1], {occupied: 'AAA='}));  // 2 bytes: not a uint32
  } finally {
    console.warn = warn;
  }
  assert.equal(map.malformed, 1);
  assert.equal(map.voxelCount, 0);
});

test('height colours: viridis from the range low to high, clamped', () => {
  assert.deepEqual(heightColour(0, [0, 2]), [68, 1, 84]);
  assert.deepEqual(heightColour(2, [0, 2]), [253, 231, 37]);
  assert.deepEqual(heightColour(9, [0, 2]), [253, 231, 37]);
  assert.deepEqual(niceTicks(0, 2.4, 6), [0, 0.5, 1, 1.5, 2]);
});
