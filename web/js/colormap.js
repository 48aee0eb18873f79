// Height colours: the ramp voxen's own pictures use (viridis at 0, 1/4, 1/2, 3/4 and 1,
// engine/export/src/picture/colour_bar.cpp), so the page, the PNG exports and the colour bars
// agree. The voxels and the legend both take their colours from here.

const STOPS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

// t in [0, 1] (clamped) -> [r, g, b], each 0..255.
export function rampColour(t) {
  const u = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
  const f = u * 4;
  const i = Math.min(3, Math.floor(f));
  const w = f - i;
  return STOPS[i].map((c, k) => c + (STOPS[i + 1][k] - c) * w);
}

// The colour of height z (metres) in the run's range [lo, hi].
export function heightColour(z, range) {
  const [lo, hi] = range;
  return rampColour(hi > lo ? (z - lo) / (hi - lo) : 0.5);
}

// A CSS gradient of the ramp, bottom (low) to top (high).
export function cssRamp() {
  const stops = STOPS.map((c, i) => `rgb(${c.join(',')}) ${i * 25}%`);
  return `linear-gradient(to top, ${stops.join(', ')})`;
}

// Up to about `count` round numbers between lo and hi for the legend's labels.
export function niceTicks(lo, hi, count) {
  if (!(hi > lo)) return [lo];
  const rough = (hi - lo) / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const ticks = [];
  for (let k = Math.ceil(lo / step); k * step <= hi + step * 1e-9; ++k) ticks.push(k * step);
  return ticks;
}
