// The map as the page holds it: one entry per region, from /voxen/map/regions' voxen.MapRegion
// messages (docs/live.md). A message replaces its region whole; occupied_count 0 removes it.
// The regions changed since the scene last drew are kept in `pending`, so a burst of messages
// costs one redraw per region, not one per message.

export function regionKey(region) {
  return `${region[0]},${region[1]},${region[2]}`;
}

function base64Bytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// The centres (x, y, z, metres) of a region's occupied voxels: a local index i is the voxel
// (i % n, (i / n) % n, i / (n * n)) of the region, n = region_size.
export function decodeRegion(message) {
  const bytes = message.occupied ? base64Bytes(message.occupied) : new Uint8Array(0);
  if (bytes.length % 4 !== 0) throw new Error(`occupied holds ${bytes.length} bytes, not whole uint32s`);
  const view = new DataView(bytes.buffer);
  const count = bytes.length / 4;
  const n = message.region_size;
  const size = message.voxel_size;
  const [ox, oy, oz] = message.origin;
  const centres = new Float32Array(count * 3);
  for (let v = 0; v < count; ++v) {
    const i = view.getUint32(v * 4, true);
    centres[v * 3] = ox + ((i % n) + 0.5) * size;
    centres[v * 3 + 1] = oy + ((Math.floor(i / n) % n) + 0.5) * size;
    centres[v * 3 + 2] = oz + (Math.floor(i / (n * n)) + 0.5) * size;
  }
  return {count, centres};
}

export class MapState {
  constructor() {
    this.clear();
  }

  // A new connection: the server sends every region again, and one dropped meanwhile never.
  clear() {
    // The regions held until now are pending: the scene removes them.
    this.pending = new Set(this.regions ? this.regions.keys() : []);
    this.regions = new Map();  // key -> {count, centres}
    this.voxelCount = 0;
    this.voxelSize = null;
    this.heightRange = null;
    this.malformed = 0;
  }

  applyRegion(message) {
    const key = regionKey(message.region);
    let decoded;
    try {
      decoded = message.occupied_count === 0 ? {count: 0, centres: new Float32Array(0)} : decodeRegion(message);
    } catch (error) {
      this.malformed += 1;
      console.warn(`voxen page: region ${key}: ${error.message}`);
      return;
    }
    if (decoded.count !== message.occupied_count) {
      console.warn(`voxen page: region ${key} says ${message.occupied_count} voxels and holds ${decoded.count}`);
    }
    this.voxelSize = message.voxel_size;
    if (Array.isArray(message.height_range)) this.heightRange = message.height_range;
    const old = this.regions.get(key);
    this.voxelCount -= old ? old.count : 0;
    if (decoded.count === 0) {
      this.regions.delete(key);
    } else {
      this.regions.set(key, decoded);
      this.voxelCount += decoded.count;
    }
    this.pending.add(key);
  }

  // The keys changed since the last call (each with its region, or undefined: removed).
  takePending() {
    const changed = [...this.pending].map((key) => [key, this.regions.get(key)]);
    this.pending.clear();
    return changed;
  }
}
