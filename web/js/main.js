// Wires the page together: the connection's messages go to the map state, the scene and the
// panels. For tests (tests/web/live_page.mjs) it exposes window.voxenPage and sets
// document.body.dataset.ready = "1" once the first regions the server sent are drawn.
import {FoxgloveConnection, serverUrl} from './connection.js';
import {MapState} from './map_state.js';
import {Scene} from './scene.js';
import {Ui} from './ui.js';

const TOPICS = {
  regions: '/voxen/map/regions',
  path: '/voxen/sensor/path',
  pose: '/voxen/sensor/pose',
  status: '/voxen/status',
};
// The server sends every region at once when the page subscribes, with no end marker: the first
// batch is complete when the page holds the voxels the status counts, or when no region has
// come for this long.
const QUIET_MS = 200;

const map = new MapState();
let status = null;
let pathPoints = 0;
let poseShown = false;
let lastRegionAt = 0;
let scene = null;
let connection = null;
const ui = new Ui((z) => scene?.setSlice(z));

window.voxenPage = {
  get voxelsShown() { return map.voxelCount; },
  get regionsShown() { return map.regions.size; },
  get messagesReceived() { return connection ? connection.messagesReceived : 0; },
  get status() { return status; },
  get pathPoints() { return pathPoints; },
  get poseShown() { return poseShown; },
  readyMs: null,  // performance.now() when ready was set: from navigation start to the map drawn
  // performance.now() at the socket's opening and at the first and last region message so far.
  timings: {connected: null, firstRegion: null, lastRegion: null},
  drawError: null,
};

function pageCounts() {
  return {voxels: map.voxelCount, regions: map.regions.size, messages: window.voxenPage.messagesReceived};
}

function refreshPanels() {
  ui.showStatus(status, pageCounts());
}

// Regions are drawn at most once a frame, however many arrived since the last.
let drawQueued = false;
function queueDraw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => {
    drawQueued = false;
    const changes = map.takePending();
    if (scene && changes.length) scene.applyRegions(changes, map.voxelSize, map.heightRange);
    ui.showHeightRange(map.heightRange);
    refreshPanels();
    checkReady();
  });
}

function checkReady() {
  if (document.body.dataset.ready === '1' || !lastRegionAt && !status) return;
  const complete = status && status.occupied_voxels === map.voxelCount && !map.pending.size;
  const quiet = lastRegionAt && performance.now() - lastRegionAt >= QUIET_MS;
  if (!complete && !quiet) {
    setTimeout(checkReady, QUIET_MS);
    return;
  }
  // The scene draws on the next frame; ready follows the frame that shows the regions.
  const markReady = () => {
    window.voxenPage.readyMs = performance.now();
    document.body.dataset.ready = '1';
  };
  if (scene) {
    scene.reframe();  // the whole first batch, not only the regions of its first frame
    scene.onRendered = () => {
      scene.onRendered = () => {};
      markReady();
    };
    scene.requestRender();
  } else {
    markReady();
  }
}

function onMessage(topic, message) {
  if (topic === TOPICS.regions) {
    map.applyRegion(message);
    lastRegionAt = performance.now();
    window.voxenPage.timings.firstRegion ??= lastRegionAt;
    window.voxenPage.timings.lastRegion = lastRegionAt;
    queueDraw();
  } else if (topic === TOPICS.status) {
    status = message;
    queueDraw();
  } else if (topic === TOPICS.path) {
    pathPoints = (message.poses || []).length;
    scene?.setPath(message.poses || []);
  } else if (topic === TOPICS.pose) {
    poseShown = Boolean(message.pose);
    if (message.pose) scene?.setPose(message.pose);
  }
}

try {
  scene = new Scene(document.getElementById('view'));
} catch (error) {
  window.voxenPage.drawError = String(error);
  ui.showError(`The 3D view cannot start (WebGL: ${error.message}). The status below still updates.`);
}
connection = new FoxgloveConnection(serverUrl(), Object.values(TOPICS), {
  onMessage,
  onState: (state) => ui.showConnection(state),
  onConnect: () => {
    window.voxenPage.timings.connected = performance.now();
    map.clear();
    status = null;
    queueDraw();
  },
});
connection.start();
refreshPanels();
