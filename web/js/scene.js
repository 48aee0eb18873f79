// The 3D view: one InstancedMesh of cubes per region (replaced whole when its region changes),
// coloured by height, the sensor's path as a line and its pose as an arrow, orbit controls, and
// a slice that hides the voxels above a height (a clipping plane). Z is up, as in the map.
// It draws on demand (a change, a camera move), not every frame: a software-rendered browser
// (headless Chromium, a robot's laptop without a GPU) stays idle while nothing moves.
import * as THREE from 'three';
import {OrbitControls} from 'three/addons/controls/OrbitControls.js';
import {rampColour} from './colormap.js';

// 256 linear-space colours of the ramp: three.js expects instance colours in linear space.
function linearRamp() {
  const table = new Float32Array(256 * 3);
  const colour = new THREE.Color();
  for (let i = 0; i < 256; ++i) {
    const [r, g, b] = rampColour(i / 255);
    colour.setRGB(r / 255, g / 255, b / 255, THREE.SRGBColorSpace);
    table.set([colour.r, colour.g, colour.b], i * 3);
  }
  return table;
}

// Whether WebGL runs on the CPU (SwiftShader in headless Chromium, llvmpipe): there multisampling
// costs more than it shows (about a third of a 30,000-voxel frame, measured on SwiftShader).
function softwareRenderer() {
  const gl = document.createElement('canvas').getContext('webgl2');
  const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
  const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
  gl?.getExtension('WEBGL_lose_context')?.loseContext();
  return /swiftshader|llvmpipe|software/i.test(name);
}

export class Scene {
  constructor(canvas) {
    this.renderer = new THREE.WebGLRenderer({canvas, antialias: !softwareRenderer()});
    this.renderer.setPixelRatio(window.devicePixelRatio);
    this.renderer.localClippingEnabled = true;
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0x20242b);
    this.camera = new THREE.PerspectiveCamera(50, 1, 0.05, 5000);
    this.camera.up.set(0, 0, 1);
    this.camera.position.set(-10, -10, 10);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.addEventListener('change', () => this.requestRender());
    this.userMoved = false;  // the camera is the user's once they move it: no more framing
    this.controls.addEventListener('start', () => { this.userMoved = true; });
    // Sky above (+z, not three's default +y), a sun from the camera's side: the three faces a
    // cube shows from the default view differ in brightness.
    const sky = new THREE.HemisphereLight(0xffffff, 0x707a88, 1.5);
    sky.position.set(0, 0, 1);
    this.scene.add(sky);
    const sun = new THREE.DirectionalLight(0xffffff, 1.3);
    sun.position.set(-0.3, -0.8, 1.0);
    this.scene.add(sun);
    this.slicePlane = new THREE.Plane(new THREE.Vector3(0, 0, -1), Infinity);
    this.material = new THREE.MeshLambertMaterial({color: 0xffffff, clippingPlanes: [this.slicePlane]});
    this.ramp = linearRamp();
    // One unit cube for every voxel: the voxel size is in each instance's matrix.
    this.geometry = new THREE.BoxGeometry(1, 1, 1);
    this.regions = new Map();  // key -> {mesh, min: [x, y, z], max: [x, y, z]}
    this.voxelSize = null;
    this.framed = false;
    this.addPathAndPose();
    this.onRendered = () => {};
    window.addEventListener('resize', () => this.resize());
    this.resize();
  }

  addPathAndPose() {
    // Drawn over the voxels (no depth test, last): the robot is usually inside the walls.
    this.path = new THREE.Line(new THREE.BufferGeometry(), new THREE.LineBasicMaterial({color: 0xff5a36, depthTest: false}));
    this.path.frustumCulled = false;
    this.path.renderOrder = 1;
    this.scene.add(this.path);
    this.pose = new THREE.Group();
    const arrow = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 1, 0xff5a36, 0.35, 0.25);
    arrow.traverse((part) => {
      if (part.material) part.material.depthTest = false;
      part.renderOrder = 2;
    });
    this.pose.add(arrow);
    this.pose.visible = false;
    this.scene.add(this.pose);
  }

  resize() {
    const canvas = this.renderer.domElement;
    this.renderer.setSize(canvas.clientWidth, canvas.clientHeight, false);
    this.camera.aspect = canvas.clientWidth / Math.max(1, canvas.clientHeight);
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  requestRender() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      this.renderer.render(this.scene, this.camera);
      this.onRendered();
    });
  }

  // changes: [key, region or undefined (removed)] from MapState.takePending().
  applyRegions(changes, voxelSize, heightRange) {
    if (voxelSize && voxelSize !== this.voxelSize) {
      this.voxelSize = voxelSize;
      this.pose.scale.setScalar(Math.max(1, voxelSize * 5));
    }
    for (const [key, region] of changes) {
      this.removeRegion(key);
      if (region) this.addRegion(key, region, heightRange);
    }
    if (!this.framed && this.regions.size) this.frame();
    this.requestRender();
  }

  removeRegion(key) {
    const old = this.regions.get(key);
    if (!old) return;
    this.scene.remove(old.mesh);
    old.mesh.dispose();
    this.regions.delete(key);
  }

  addRegion(key, region, heightRange) {
    const {count, centres} = region;
    const mesh = new THREE.InstancedMesh(this.geometry, this.material, count);
    const matrices = mesh.instanceMatrix.array;
    const colours = new Float32Array(count * 3);
    const [lo, hi] = heightRange || [0, 1];
    const scale = hi > lo ? 255 / (hi - lo) : 0;
    const size = this.voxelSize;
    const min = [Infinity, Infinity, Infinity];
    const max = [-Infinity, -Infinity, -Infinity];
    for (let v = 0; v < count; ++v) {
      const m = v * 16;
      matrices[m] = matrices[m + 5] = matrices[m + 10] = size;
      matrices[m + 15] = 1;
      for (let a = 0; a < 3; ++a) {
        const c = centres[v * 3 + a];
        matrices[m + 12 + a] = c;
        min[a] = Math.min(min[a], c);
        max[a] = Math.max(max[a], c);
      }
      const t = Math.max(0, Math.min(255, Math.round((centres[v * 3 + 2] - lo) * scale)));
      colours.set(this.ramp.subarray(t * 3, t * 3 + 3), v * 3);
    }
    mesh.instanceColor = new THREE.InstancedBufferAttribute(colours, 3);
    mesh.instanceMatrix.needsUpdate = true;
    mesh.computeBoundingSphere();
    this.scene.add(mesh);
    this.regions.set(key, {mesh, min, max});
  }

  // The box around every voxel drawn, or null when none is.
  bounds() {
    if (!this.regions.size) return null;
    const box = new THREE.Box3();
    for (const {min, max} of this.regions.values()) {
      box.expandByPoint(new THREE.Vector3(...min));
      box.expandByPoint(new THREE.Vector3(...max));
    }
    return box.expandByScalar((this.voxelSize || 0) / 2);
  }

  // Frames the whole map again (the first regions' frame saw only those) unless the user has
  // moved the camera since.
  reframe() {
    if (!this.userMoved && this.regions.size) this.frame();
  }

  // Looks at the whole map from above, from the side of its longer horizontal axis: as close as
  // lets every corner of its box show (a sphere around the box would leave a long corridor
  // small in the middle of the view). First when the first regions arrive, then reframe().
  frame() {
    const box = this.bounds();
    const centre = box.getCenter(new THREE.Vector3());
    const size = box.getSize(new THREE.Vector3());
    const direction = (size.x >= size.y ? new THREE.Vector3(-0.35, -0.8, 0.75) : new THREE.Vector3(-0.8, -0.35, 0.75)).normalize();
    const radius = Math.max(1, size.length() / 2);
    let distance = radius / Math.sin(THREE.MathUtils.degToRad(this.camera.fov / 2));
    const corners = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => new THREE.Vector3(
      i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z));
    this.controls.target.copy(centre);
    this.camera.far = distance * 10;
    for (let step = 0; step < 8; ++step) {
      this.camera.position.copy(centre).addScaledVector(direction, distance);
      this.camera.lookAt(centre);
      this.camera.updateMatrixWorld();
      this.camera.updateProjectionMatrix();
      const spread = Math.max(...corners.map((c) => {
        const p = c.clone().project(this.camera);
        return Math.max(Math.abs(p.x), Math.abs(p.y));
      }));
      // The spread shrinks about as 1 / distance: aim for 0.9 of the half-view.
      distance = Math.min(distance * 2, Math.max(radius * 0.5, distance * spread / 0.9));
    }
    this.camera.position.copy(centre).addScaledVector(direction, distance);
    this.controls.update();
    this.framed = true;
  }

  // Hides every voxel whose centre is above z (metres); Infinity shows them all. The cut falls
  // on a voxel boundary above z, so a voxel is drawn whole or not at all.
  setSlice(z) {
    let cut = z;
    if (Number.isFinite(z) && this.voxelSize) cut = (Math.floor(z / this.voxelSize) + 1) * this.voxelSize;
    this.slicePlane.constant = cut;
    this.requestRender();
  }

  // poses: foxglove Pose objects ({position: {x, y, z}, orientation: ...}) along the path.
  setPath(poses) {
    const points = poses.map((p) => new THREE.Vector3(p.position.x, p.position.y, p.position.z));
    this.path.geometry.dispose();
    this.path.geometry = new THREE.BufferGeometry().setFromPoints(points);
    this.requestRender();
  }

  setPose(pose) {
    const {position: p, orientation: q} = pose;
    this.pose.position.set(p.x, p.y, p.z);
    this.pose.quaternion.set(q.x, q.y, q.z, q.w).normalize();
    this.pose.visible = true;
    this.requestRender();
  }
}
