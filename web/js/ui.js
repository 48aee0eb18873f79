// The page's panels: the connection banner, the status table (voxen.Status beside what the page
// holds), the height colour bar and the slice slider. It only writes the DOM and reports the
// slider's height through onSlice(z); it keeps no state of the map.
import {cssRamp, niceTicks} from './colormap.js';

const $ = (id) => document.getElementById(id);

function formatCount(n) {
  return Number.isFinite(n) ? n.toLocaleString('en-US') : '–';
}

function formatRate(n) {
  if (!Number.isFinite(n)) return '–';
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return n.toFixed(0);
}

export class Ui {
  constructor(onSlice) {
    this.onSlice = onSlice;
    this.range = null;
    $('colour-ramp').style.background = cssRamp();
    $('slice').addEventListener('input', () => this.sliceChanged());
  }

  // state: FoxgloveConnection's report ({state, attempt, delayMs, reason, serverName}).
  showConnection(state) {
    const banner = $('connection');
    banner.dataset.state = state.state;
    if (state.state === 'connected') {
      banner.textContent = state.serverName ? `connected to ${state.serverName}` : 'connected';
    } else if (state.state === 'disconnected') {
      const seconds = (state.delayMs / 1000).toFixed(1);
      banner.textContent = `disconnected (${state.reason}): reconnecting in ${seconds} s, attempt ${state.attempt}`;
    } else {
      banner.textContent = state.attempt ? `reconnecting (attempt ${state.attempt})…` : 'connecting…';
    }
  }

  showError(text) {
    const box = $('error');
    box.textContent = text;
    box.hidden = false;
  }

  // status: the last voxen.Status (or null); page: {voxels, regions, messages}.
  showStatus(status, page) {
    const s = status || {};
    const latency = s.latency_ms || {};
    const rows = {
      'st-state': s.state ?? '–',
      'st-source': s.source ?? '–',
      'st-clouds': formatCount(s.clouds),
      'st-dropped': formatCount(s.dropped_clouds),
      'st-rays': formatRate(s.rays_per_second),
      'st-latency': Number.isFinite(latency.last) ? `${latency.last.toFixed(1)} ms (max ${(latency.max ?? 0).toFixed(1)})` : '–',
      'st-regions': formatCount(s.regions),
      'st-map-voxels': formatCount(s.occupied_voxels),
      'st-page-voxels': formatCount(page.voxels),
      'st-page-regions': formatCount(page.regions),
      'st-messages': formatCount(page.messages),
    };
    for (const [id, text] of Object.entries(rows)) $(id).textContent = text;
    // The raw count, for tests and for copying: the table's text has thousands separators.
    $('st-page-voxels').dataset.count = String(page.voxels);
    const agree = !status || status.occupied_voxels === page.voxels;
    $('st-page-voxels').classList.toggle('differs', !agree);  // mid-run, until the next status
  }

  // range: [zlo, zhi] metres, the run's colour scale (height_range), also the slider's span.
  showHeightRange(range) {
    if (!range || (this.range && this.range[0] === range[0] && this.range[1] === range[1])) return;
    this.range = range;
    const [lo, hi] = range;
    const ticks = $('colour-ticks');
    ticks.replaceChildren();
    for (const z of niceTicks(lo, hi, 6)) {
      const tick = document.createElement('span');
      tick.style.bottom = `${hi > lo ? ((z - lo) / (hi - lo)) * 100 : 50}%`;
      tick.textContent = `${+z.toFixed(2)} m`;
      ticks.append(tick);
    }
    const slider = $('slice');
    slider.min = String(lo);
    slider.max = String(hi);
    slider.step = String((hi - lo) / 200 || 0.01);
    slider.value = String(hi);
    slider.disabled = false;
    this.sliceChanged();
  }

  sliceChanged() {
    const slider = $('slice');
    const z = Number(slider.value);
    // The slider's steps need not land on its max exactly: its last half step shows all.
    const all = z >= Number(slider.max) - Number(slider.step) / 2;
    $('slice-value').textContent = all ? 'all' : `≤ ${z.toFixed(2)} m`;
    this.onSlice(all ? Infinity : z);
  }
}
