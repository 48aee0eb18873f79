// The Foxglove WebSocket client (protocol foxglove.websocket.v1, docs/live.md): connects to the
// server that served this page, subscribes to the wanted topics as the server advertises them,
// decodes Message Data frames into JSON objects, and reconnects with a growing delay when the
// socket closes. It knows nothing of maps or drawing: it hands (topic, message) to onMessage.

const SUBPROTOCOL = 'foxglove.websocket.v1';
const OP_MESSAGE_DATA = 0x01;
// Reconnect delays grow from the first to the last, doubling, so a server that restarts is
// found within a second and one that is gone for long is not hammered.
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;

export function serverUrl() {
  return location.origin.replace(/^http/, 'ws') + '/';
}

// Splits a binary Message Data frame: opcode (1 byte), subscription id (uint32 LE), receive
// time in ns (uint64 LE), then the payload. Returns null for any other opcode.
export function parseBinaryFrame(buffer) {
  const view = new DataView(buffer);
  if (view.byteLength < 13 || view.getUint8(0) !== OP_MESSAGE_DATA) return null;
  return {
    subscriptionId: view.getUint32(1, true),
    timestampNs: view.getBigUint64(5, true),
    payload: new Uint8Array(buffer, 13),
  };
}

// callbacks: onMessage(topic, object), onState({state, attempt, delayMs, reason, serverName}),
// onConnect() (a new session: the server will send the whole state again).
export class FoxgloveConnection {
  constructor(url, topics, callbacks) {
    this.url = url;
    this.topics = new Set(topics);
    this.callbacks = callbacks;
    this.decoder = new TextDecoder();
    this.attempt = 0;
    this.messagesReceived = 0;
    this.malformed = 0;
    this.socket = null;
  }

  start() {
    this.open();
  }

  open() {
    this.subscriptions = new Map();  // subscription id -> topic
    this.subscribedChannels = new Map();  // channel id -> subscription id
    this.nextSubscriptionId = 1;
    this.report({state: this.attempt === 0 ? 'connecting' : 'reconnecting', attempt: this.attempt});
    let socket;
    try {
      socket = new WebSocket(this.url, [SUBPROTOCOL]);
    } catch (error) {
      this.retry(String(error));
      return;
    }
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => {
      this.attempt = 0;
      this.report({state: 'connected'});
      this.callbacks.onConnect();
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => this.retry(event.reason || `closed (code ${event.code})`);
    this.socket = socket;
  }

  // The socket closed (or never opened): wait, then open a new one.
  retry(reason) {
    if (this.socket) this.socket.onclose = null;
    this.socket = null;
    const delayMs = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.attempt);
    this.attempt += 1;
    this.report({state: 'disconnected', attempt: this.attempt, delayMs, reason});
    setTimeout(() => this.open(), delayMs);
  }

  receive(data) {
    if (typeof data === 'string') {
      this.receiveText(data);
      return;
    }
    const frame = parseBinaryFrame(data);
    if (!frame) return;  // Time and other binary ops: nothing the page needs
    const topic = this.subscriptions.get(frame.subscriptionId);
    if (topic === undefined) return;  // a late message of an ended subscription
    this.messagesReceived += 1;
    let message;
    try {
      message = JSON.parse(this.decoder.decode(frame.payload));
    } catch (error) {
      this.malformed += 1;
      console.warn(`voxen page: ${topic}: a message that is not JSON (${error})`);
      return;
    }
    this.callbacks.onMessage(topic, message);
  }

  receiveText(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch (error) {
      this.malformed += 1;
      return;
    }
    if (message.op === 'serverInfo') {
      this.report({state: 'connected', serverName: message.name});
    } else if (message.op === 'advertise') {
      this.subscribe(message.channels || []);
    } else if (message.op === 'unadvertise') {
      this.forget(message.channelIds || []);
    } else if (message.op === 'status' && message.level >= 2) {
      console.warn(`voxen page: the server says: ${message.message}`);
    }
  }

  subscribe(channels) {
    const wanted = channels.filter((c) => this.topics.has(c.topic) && !this.subscribedChannels.has(c.id));
    if (!wanted.length || !this.socket) return;
    const subscriptions = wanted.map((channel) => {
      const id = this.nextSubscriptionId++;
      this.subscriptions.set(id, channel.topic);
      this.subscribedChannels.set(channel.id, id);
      return {id, channelId: channel.id};
    });
    this.socket.send(JSON.stringify({op: 'subscribe', subscriptions}));
  }

  // The server withdrew channels: their subscriptions end with them (it may advertise them again).
  forget(channelIds) {
    for (const channelId of channelIds) {
      this.subscriptions.delete(this.subscribedChannels.get(channelId));
      this.subscribedChannels.delete(channelId);
    }
  }

  report(state) {
    this.callbacks.onState(state);
  }
}
