// FoxgloveClient (voxen/live/foxglove_client.hpp) over ws::Client. Connection state lives on
// the client's thread; what other threads read (channels, counters) is under `mutex` or atomic.
#include "voxen/live/foxglove_client.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "foxglove_frames.hpp"
#include "voxen/host/error.hpp"
#include "ws/ws_transport.hpp"

namespace voxen::live {

namespace {

using Json = nlohmann::json;
using Kind = ClientEvent::Kind;

}  // namespace

struct FoxgloveClient::Impl {
  FoxgloveClientOptions options;
  MessageCallback onMessage;
  EventCallback onEvent;
  mutable std::mutex mutex;                          // channels
  std::map<uint32_t, AdvertisedChannel> channels;    // by channel id
  std::map<uint32_t, uint32_t> subscriptions;        // subscription id -> channel id (client thread)
  uint32_t nextSubscription = 1;
  uint64_t generation = 0;    // connection attempts made: a timer of an older one does nothing
  bool gotServerInfo = false;
  bool gaveUp = false;        // not a Foxglove server: no more attempts
  double retrySeconds = 0.25;
  std::atomic<bool> open{false};
  std::atomic<uint64_t> connects{0}, disconnects{0}, failures{0}, messages{0}, bytes{0}, malformed{0};
  // The transport. Its handlers run on its thread until its destructor has joined that thread,
  // so they reach it through `ws`, which stays valid while `owner` is being reset (a
  // unique_ptr is null during its reset); `stopping` stops them scheduling more work then.
  std::atomic<bool> stopping{false};
  ws::Client* ws = nullptr;
  std::unique_ptr<ws::Client> owner;  // last: destroyed first

  void event(Kind kind, std::string text) {
    if (onEvent) onEvent(ClientEvent{kind, std::move(text)});
  }

  void connect() {
    if (stopping) return;
    ++generation;
    gotServerInfo = false;
    ws->connect(options.url, std::string(detail::kSubprotocol));
  }

  void retryLater() {
    if (!options.reconnect || gaveUp || stopping) return;
    const double wait = retrySeconds;
    retrySeconds = std::min(options.retryMaxSeconds, retrySeconds * 2.0);
    ws->postAfter(std::chrono::milliseconds(int64_t(wait * 1000.0)), [this] { connect(); });
  }

  void forgetConnection() {
    open = false;
    std::lock_guard lock(mutex);
    channels.clear();
    subscriptions.clear();
  }

  void notFoxglove(const std::string& what) {
    gaveUp = true;
    forgetConnection();
    ws->close("not a Foxglove server");
    event(Kind::NotFoxglove, options.url + ": " + what + ": not a Foxglove WebSocket server (protocol " +
                                 std::string(detail::kSubprotocol) + ")");
  }

  void opened(const std::string& subprotocol) {
    if (subprotocol != detail::kSubprotocol)
      return notFoxglove("it accepted the WebSocket connection without the subprotocol " + std::string(detail::kSubprotocol));
    open = true;
    ++connects;
    const uint64_t attempt = generation;
    ws->postAfter(std::chrono::milliseconds(int64_t(options.serverInfoSeconds * 1000.0)), [this, attempt] {
      if (attempt == generation && open && !gotServerInfo)
        notFoxglove("it sent no Server Info message within " + std::to_string(int(options.serverInfoSeconds)) + " s");
    });
  }

  void failed(const std::string& reason, int httpStatus) {
    forgetConnection();
    ++failures;
    if (httpStatus != 0 && httpStatus < 500)
      return notFoxglove("it answered HTTP " + std::to_string(httpStatus) + " to the WebSocket handshake");
    event(Kind::Failed, options.url + ": " + reason + (options.reconnect ? "; retrying in " + seconds(retrySeconds) : ""));
    retryLater();
  }

  void closed(const std::string& reason) {
    if (gaveUp) return;
    forgetConnection();
    ++disconnects;
    retrySeconds = options.retryMinSeconds;
    event(Kind::Disconnected, options.url + ": connection lost (" + reason + ")" +
                                  (options.reconnect ? "; reconnecting in " + seconds(retrySeconds) : ""));
    retryLater();
  }

  static std::string seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2g s", s);
    return text;
  }

  void text(const std::string& text) {
    try {
      const Json message = Json::parse(text);
      const std::string op = message.at("op").get<std::string>();
      if (op == "serverInfo") {
        gotServerInfo = true;
        retrySeconds = options.retryMinSeconds;
        event(Kind::Connected, options.url + ": " + message.value("name", std::string("a Foxglove server")));
      } else if (op == "advertise") {
        advertised(message.at("channels"));
      } else if (op == "unadvertise") {
        std::lock_guard lock(mutex);
        for (const Json& id : message.at("channelIds")) {
          const uint32_t channel = id.get<uint32_t>();
          channels.erase(channel);
          std::erase_if(subscriptions, [channel](const auto& s) { return s.second == channel; });
        }
      } else if (op == "status") {
        event(Kind::ServerStatus, "level " + std::to_string(message.value("level", 0)) + ": " + message.value("message", std::string()));
      }
    } catch (const std::exception& e) {
      ++malformed;
      event(Kind::Malformed, options.url + ": a message that is not the protocol's JSON (" + e.what() + ")");
    }
  }

  void advertised(const Json& list) {
    Json subscribe = Json::array();
    std::string topics, subscribed;
    {
      std::lock_guard lock(mutex);
      for (const Json& c : list) {
        AdvertisedChannel a;
        a.id = c.at("id").get<uint32_t>();
        a.topic = c.at("topic").get<std::string>();
        a.encoding = c.at("encoding").get<std::string>();
        a.schemaName = c.value("schemaName", std::string());
        a.schema = c.value("schema", std::string());
        a.schemaEncoding = c.value("schemaEncoding", std::string());
        topics += (topics.empty() ? "" : ", ") + a.topic;
        // A server may advertise a channel twice (a channel added while this client joined):
        // the same id with the same topic is the channel already known, not a second one.
        if (auto known = channels.find(a.id); known != channels.end() && known->second.topic == a.topic) continue;
        const bool wanted = options.wants && options.wants(a);
        channels[a.id] = a;
        if (!wanted) continue;
        const uint32_t sub = nextSubscription++;
        subscriptions[sub] = a.id;
        subscribe.push_back(Json{{"id", sub}, {"channelId", a.id}});
        subscribed += (subscribed.empty() ? "" : ", ") + a.topic + " (" + a.encoding + ")";
      }
    }
    event(Kind::Advertised, topics);
    if (subscribe.empty()) return;
    ws->sendText(Json{{"op", "subscribe"}, {"subscriptions", subscribe}}.dump());
    event(Kind::Subscribed, subscribed);
  }

  void binary(const std::string& frame) {
    const std::optional<detail::MessageData> data = detail::parseMessageData(frame);
    if (!data) {
      if (!frame.empty() && uint8_t(frame[0]) == detail::kTimeOpcode) return;  // server time: not needed
      ++malformed;
      event(Kind::Malformed, options.url + ": a binary frame that is not Message Data (" + std::to_string(frame.size()) + " bytes)");
      return;
    }
    AdvertisedChannel channel;
    {
      std::lock_guard lock(mutex);
      auto s = subscriptions.find(data->subscriptionId);
      if (s == subscriptions.end()) return;  // unsubscribed meanwhile
      auto c = channels.find(s->second);
      if (c == channels.end()) return;
      channel = c->second;
    }
    ++messages;
    bytes += data->payload.size();
    onMessage(channel, data->timeNs,
              std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data->payload.data()), data->payload.size()));
  }
};

FoxgloveClient::FoxgloveClient(FoxgloveClientOptions options, MessageCallback onMessage, EventCallback onEvent)
    : impl_(std::make_unique<Impl>()) {
  Impl& c = *impl_;
  if (options.url.rfind("ws://", 0) != 0)
    throw Error("Foxglove client: '" + options.url + "' is not a WebSocket URL (ws://HOST:PORT)");
  c.options = std::move(options);
  c.retrySeconds = c.options.retryMinSeconds;
  c.onMessage = std::move(onMessage);
  c.onEvent = std::move(onEvent);
  ws::ClientHooks hooks;
  hooks.onOpen = [&c](const std::string& subprotocol) { c.opened(subprotocol); };
  hooks.onFail = [&c](const std::string& reason, int status) { c.failed(reason, status); };
  hooks.onClose = [&c](const std::string& reason) { c.closed(reason); };
  hooks.onText = [&c](std::string&& text) { c.text(text); };
  hooks.onBinary = [&c](std::string&& frame) { c.binary(frame); };
  c.owner = std::make_unique<ws::Client>(std::move(hooks));
  c.ws = c.owner.get();
  try {
    c.connect();
  } catch (const std::runtime_error& e) {
    throw Error("Foxglove client: '" + c.options.url + "': " + e.what());
  }
}

FoxgloveClient::~FoxgloveClient() {
  impl_->stopping = true;
  impl_->owner.reset();
}

std::vector<AdvertisedChannel> FoxgloveClient::channels() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<AdvertisedChannel> out;
  for (const auto& [id, c] : impl_->channels) out.push_back(c);
  return out;
}

bool FoxgloveClient::connected() const { return impl_->open; }

FoxgloveClientCounters FoxgloveClient::counters() const {
  const Impl& c = *impl_;
  return {c.connects.load(), c.disconnects.load(), c.failures.load(), c.messages.load(), c.bytes.load(), c.malformed.load()};
}

}  // namespace voxen::live
