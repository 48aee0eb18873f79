// FoxgloveServer (voxen/live/foxglove_server.hpp): channels of keyed state over ws::Server.
//
// Each channel numbers its publications (seq); a key's entry carries the seq of its newest
// message, and bySeq orders the keys by it, so a subscription that has sent everything up to
// sentSeq finds what is new with one ordered lookup, and a key published ten times while a
// client was behind is sent once. Channel state is guarded by `mutex`; client state
// (subscriptions) lives on the server's thread only.
#include "voxen/live/foxglove_server.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <map>
#include <set>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "foxglove_frames.hpp"
#include "voxen/host/error.hpp"
#include "voxen/live/web_assets.hpp"
#include "ws/ws_transport.hpp"

namespace voxen::live {

namespace {

using Json = nlohmann::json;
using detail::kSubprotocol;

struct Entry {
  std::shared_ptr<const std::string> payload;
  uint64_t timeNs = 0;
  uint64_t seq = 0;
  bool removed = false;  // a deletion kept until every subscriber has been sent it
  bool logged = false;   // a message of an everyMessage channel: likewise
};

struct Channel {
  uint32_t id = 0;
  FoxgloveChannel info;
  std::unordered_map<std::string, Entry> entries;
  std::map<uint64_t, std::string> bySeq;  // seq -> key
  std::set<uint64_t> transient;           // seqs of removed and logged entries, to purge once sent
  std::set<uint64_t> logged;              // seqs of an everyMessage channel's entries not yet purged
  uint64_t lastSeq = 0;
  uint64_t subscribers = 0;  // subscriptions to it, over every client
};

struct Subscription {
  uint32_t channel = 0;
  uint64_t sentSeq = 0;  // every entry up to this seq has been sent
  uint64_t joinSeq = 0;  // the channel's lastSeq when it subscribed: older deletions are not its business
};

struct Client {
  std::map<uint32_t, Subscription> subscriptions;  // by the client's subscription id
  bool flushQueued = false;
};

// Messages of an everyMessage channel kept for clients that have not taken them yet.
constexpr size_t kLogLimit = 64;

const std::vector<std::string> kFoxgloveOrigins = {"https://app.foxglove.dev", "https://studio.foxglove.dev"};

Json channelJson(const Channel& c) {
  return Json{{"id", c.id},
              {"topic", c.info.topic},
              {"encoding", c.info.encoding},
              {"schemaName", c.info.schemaName},
              {"schema", c.info.schema},
              {"schemaEncoding", c.info.schemaEncoding}};
}

uint64_t nowMs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

}  // namespace

struct FoxgloveServer::Impl {
  FoxgloveServerOptions options;
  std::string sessionId = std::to_string(nowMs());
  mutable std::mutex mutex;  // channels
  std::map<uint32_t, Channel> channels;
  uint32_t nextChannel = 1;
  std::unordered_map<ws::ConnectionId, Client> clients;  // server thread only
  std::atomic<bool> flushAllQueued{false};
  std::atomic<uint64_t> clientCount{0}, connections{0}, refused{0}, messagesSent{0}, bytesSent{0}, badRequests{0},
      pageRequests{0}, loggedDropped{0};
  // The transport. Its hooks and posted work run on its thread until its destructor has joined
  // that thread, so they reach it through `server`, which stays valid while `owner` is being
  // reset (a unique_ptr is null during its reset).
  ws::Server* server = nullptr;
  std::unique_ptr<ws::Server> owner;  // last: destroyed first, so no hook runs on a dying Impl

  bool accept(const ws::Handshake& h, std::string& chosen, int& status, std::string& why) {
    bool offered = false;
    for (const std::string& p : h.subprotocols) offered = offered || p == kSubprotocol;
    if (!offered) {
      ++refused;
      status = 400;
      why = "this is a Foxglove WebSocket server (" + options.name + "): connect with the subprotocol " +
            std::string(kSubprotocol);
      return false;
    }
    if (!originAllowed(h)) {
      ++refused;
      status = 403;
      why = "a page from " + h.origin + " may not read this server's data; its allowed origins are its own page, " +
            "Foxglove's web app and those it was started with";
      return false;
    }
    chosen = std::string(kSubprotocol);
    return true;
  }

  bool originAllowed(const ws::Handshake& h) const {
    if (h.origin.empty()) return true;  // a program, not a page in a browser
    if (h.origin == "http://" + h.host) return true;  // this server's own page
    for (const std::string& o : options.allowedOrigins)
      if (o == "*" || o == h.origin) return true;
    for (const std::string& o : kFoxgloveOrigins)
      if (o == h.origin) return true;
    return false;
  }

  void opened(ws::ConnectionId id) {
    clients[id] = Client{};
    ++clientCount;
    ++connections;
    Json info{{"op", "serverInfo"}, {"name", options.name}, {"capabilities", Json::array()},
              {"metadata", Json::object()}, {"sessionId", sessionId}};
    server->sendNow(id, info.dump(), false);
    Json channelList = Json::array();
    {
      std::lock_guard lock(mutex);
      for (const auto& [cid, c] : channels) channelList.push_back(channelJson(c));
    }
    server->sendNow(id, Json{{"op", "advertise"}, {"channels", channelList}}.dump(), false);
  }

  void closed(ws::ConnectionId id) {
    auto it = clients.find(id);
    if (it == clients.end()) return;
    for (const auto& [subId, sub] : it->second.subscriptions) unsubscribed(sub.channel);
    clients.erase(it);
    --clientCount;
  }

  void unsubscribed(uint32_t channel) {
    std::lock_guard lock(mutex);
    if (auto c = channels.find(channel); c != channels.end() && c->second.subscribers > 0) --c->second.subscribers;
  }

  void statusTo(ws::ConnectionId id, int level, const std::string& message) {
    server->sendNow(id, Json{{"op", "status"}, {"level", level}, {"message", message}}.dump(), false);
  }

  void text(ws::ConnectionId id, const std::string& text) {
    auto client = clients.find(id);
    if (client == clients.end()) return;
    Json message;
    try {
      message = Json::parse(text);
      const std::string op = message.at("op").get<std::string>();
      if (op == "subscribe") return subscribe(id, client->second, message.at("subscriptions"));
      if (op == "unsubscribe") {
        for (const Json& s : message.at("subscriptionIds")) {
          auto sub = client->second.subscriptions.find(s.get<uint32_t>());
          if (sub == client->second.subscriptions.end()) continue;
          unsubscribed(sub->second.channel);
          client->second.subscriptions.erase(sub);
        }
        return;
      }
      ++badRequests;
      statusTo(id, 1, "'" + op + "' is not supported by this server (it publishes; it takes subscriptions only)");
    } catch (const std::exception& e) {
      ++badRequests;
      statusTo(id, 2, std::string("could not read the message: ") + e.what());
    }
  }

  void subscribe(ws::ConnectionId id, Client& client, const Json& list) {
    for (const Json& s : list) {
      const uint32_t subId = s.at("id").get<uint32_t>(), channelId = s.at("channelId").get<uint32_t>();
      if (client.subscriptions.contains(subId)) {
        ++badRequests;
        statusTo(id, 2, "subscription id " + std::to_string(subId) + " is in use: unsubscribe it first");
        continue;
      }
      uint64_t joinSeq = 0;
      {
        std::lock_guard lock(mutex);
        auto c = channels.find(channelId);
        if (c == channels.end()) {
          ++badRequests;
          statusTo(id, 2, "subscription " + std::to_string(subId) + ": no channel " + std::to_string(channelId));
          continue;
        }
        joinSeq = c->second.lastSeq;
        ++c->second.subscribers;
      }
      client.subscriptions[subId] = Subscription{channelId, 0, joinSeq};
    }
    flush(id);
  }

  // The next message a subscription has not been sent, or false when it is up to date.
  bool nextFor(Subscription& sub, std::shared_ptr<const std::string>& payload, uint64_t& timeNs) {
    std::lock_guard lock(mutex);
    auto c = channels.find(sub.channel);
    if (c == channels.end()) return false;
    for (auto it = c->second.bySeq.upper_bound(sub.sentSeq); it != c->second.bySeq.end(); ++it) {
      sub.sentSeq = it->first;
      const Entry& e = c->second.entries.at(it->second);
      // Removed (or logged) before it joined: it never had the key, and a log is not replayed.
      if ((e.removed || e.logged) && e.seq <= sub.joinSeq) continue;
      payload = e.payload;
      timeNs = e.timeNs;
      return true;
    }
    return false;
  }

  // Server thread: sends a client what it has not been sent, while its socket's queue is short.
  void flush(ws::ConnectionId id) {
    auto it = clients.find(id);
    if (it == clients.end()) return;
    Client& client = it->second;
    bool pending = false;
    for (auto& [subId, sub] : client.subscriptions) {
      std::shared_ptr<const std::string> payload;
      uint64_t timeNs = 0;
      while (true) {
        if (server->buffered(id) >= options.clientQueueBytes) {
          pending = true;
          break;
        }
        if (!nextFor(sub, payload, timeNs)) break;
        const std::string frame = detail::messageDataFrame(subId, timeNs, *payload);
        if (!server->sendNow(id, frame, true)) return;
        ++messagesSent;
        bytesSent += frame.size();
      }
    }
    if (pending && !client.flushQueued) {
      client.flushQueued = true;
      server->postAfter(std::chrono::milliseconds(10), [this, id] {
        auto c = clients.find(id);
        if (c == clients.end()) return;
        c->second.flushQueued = false;
        flush(id);
      });
    }
    purgeRemoved();
  }

  // Deletions and logged messages every subscription has been sent are dropped (a later
  // subscriber skips them anyway); with no subscriber, at once.
  void purgeRemoved() {
    std::lock_guard lock(mutex);
    for (auto& [cid, c] : channels) {
      if (c.transient.empty()) continue;
      uint64_t least = c.lastSeq;
      for (const auto& [id, client] : clients)
        for (const auto& [subId, sub] : client.subscriptions)
          if (sub.channel == cid) least = std::min(least, sub.sentSeq);
      while (!c.transient.empty() && *c.transient.begin() <= least) {
        const uint64_t seq = *c.transient.begin();
        c.transient.erase(c.transient.begin());
        auto key = c.bySeq.find(seq);
        if (key == c.bySeq.end()) continue;
        c.entries.erase(key->second);
        c.bySeq.erase(key);
        c.logged.erase(seq);
      }
    }
  }

  void queueFlushAll() {
    if (flushAllQueued.exchange(true)) return;
    server->post([this] {
      flushAllQueued = false;
      for (auto& [id, client] : clients) flush(id);
      purgeRemoved();
    });
  }

  void store(ChannelId channel, const std::string& key, uint64_t timeNs, std::string payload, bool removed) {
    {
      std::unique_lock lock(mutex);
      auto c = channels.find(channel.value);
      if (c == channels.end()) throw Error("Foxglove server: no channel " + std::to_string(channel.value));
      Channel& ch = c->second;
      if (ch.info.everyMessage) {
        const uint64_t seq = ++ch.lastSeq;
        const std::string logKey = "#" + std::to_string(seq);
        ch.entries[logKey] = Entry{std::make_shared<const std::string>(std::move(payload)), timeNs, seq, false, true};
        ch.bySeq[seq] = logKey;
        ch.transient.insert(seq);
        ch.logged.insert(seq);
        // A client that has not taken the last kLogLimit messages is behind: its oldest is
        // dropped (it skips it), so a log costs the server bounded memory.
        while (ch.logged.size() > kLogLimit) {
          const uint64_t oldest = *ch.logged.begin();
          ch.logged.erase(ch.logged.begin());
          ch.transient.erase(oldest);
          if (auto k = ch.bySeq.find(oldest); k != ch.bySeq.end()) {
            ch.entries.erase(k->second);
            ch.bySeq.erase(k);
          }
          ++loggedDropped;
        }
        lock.unlock();
        queueFlushAll();
        return;
      }
      auto e = ch.entries.find(key);
      if (removed && e == ch.entries.end()) return;
      if (e == ch.entries.end()) e = ch.entries.emplace(key, Entry{}).first;
      else ch.bySeq.erase(e->second.seq);
      e->second = Entry{std::make_shared<const std::string>(std::move(payload)), timeNs, ++ch.lastSeq, removed};
      ch.bySeq[e->second.seq] = key;
      if (removed) ch.transient.insert(e->second.seq);
    }
    queueFlushAll();
  }

  ws::HttpReply http(const std::string& path) {
    ++pageRequests;
    ws::HttpReply reply;
    if (!options.servePage) {
      reply.body = options.name + " serves no page here; connect a Foxglove client to ws://this-address/";
      return reply;
    }
    if (const std::optional<WebAsset> asset = webAsset(path)) {
      reply.status = 200;
      reply.contentType = std::string(asset->contentType);
      reply.body.assign(reinterpret_cast<const char*>(asset->bytes.data()), asset->bytes.size());
      return reply;
    }
    reply.body = webPageBuilt() ? "no such file: " + path
                                : "this build of voxen has no browser page: " + std::string(webPageMissingReason());
    return reply;
  }
};

FoxgloveServer::FoxgloveServer(FoxgloveServerOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.options = std::move(options);
  ws::ServerHooks hooks;
  hooks.accept = [&s](const ws::Handshake& h, std::string& chosen, int& status, std::string& why) {
    return s.accept(h, chosen, status, why);
  };
  hooks.onOpen = [&s](ws::ConnectionId id, const ws::Handshake&) { s.opened(id); };
  hooks.onClose = [&s](ws::ConnectionId id) { s.closed(id); };
  hooks.onText = [&s](ws::ConnectionId id, std::string&& text) { s.text(id, text); };
  hooks.onBinary = [&s](ws::ConnectionId id, std::string&&) {
    ++s.badRequests;
    s.statusTo(id, 1, "this server takes no client messages (clientPublish is not among its capabilities)");
  };
  hooks.onHttp = [&s](const std::string& path) { return s.http(path); };
  try {
    s.owner = std::make_unique<ws::Server>(s.options.bind, s.options.port, std::move(hooks));
    s.server = s.owner.get();
  } catch (const std::runtime_error& e) {
    throw Error(std::string("Foxglove server: ") + e.what());
  }
}

FoxgloveServer::~FoxgloveServer() { impl_->owner.reset(); }

uint16_t FoxgloveServer::port() const { return impl_->server->port(); }

std::string FoxgloveServer::url() const {
  const std::string& bind = impl_->options.bind;
  const bool wildcard = bind == "0.0.0.0" || bind == "::" || bind.empty();
  const bool v6 = !wildcard && bind.find(':') != std::string::npos;
  const std::string host = wildcard ? "127.0.0.1" : v6 ? "[" + bind + "]" : bind;
  return "ws://" + host + ":" + std::to_string(port());
}

ChannelId FoxgloveServer::advertise(const FoxgloveChannel& channel) {
  Impl& s = *impl_;
  Json message;
  ChannelId id;
  {
    std::lock_guard lock(s.mutex);
    for (const auto& [cid, c] : s.channels)
      if (c.info.topic == channel.topic) throw Error("Foxglove server: topic " + channel.topic + " is advertised already");
    id.value = s.nextChannel++;
    Channel& c = s.channels[id.value];
    c.id = id.value;
    c.info = channel;
    message = Json{{"op", "advertise"}, {"channels", Json::array({channelJson(c)})}};
  }
  s.server->post([&s, text = message.dump()] {
    for (auto& [cid, client] : s.clients) s.server->sendNow(cid, text, false);
  });
  return id;
}

void FoxgloveServer::publish(ChannelId channel, const std::string& key, uint64_t timeNs, std::string payload) {
  impl_->store(channel, key, timeNs, std::move(payload), false);
}

void FoxgloveServer::remove(ChannelId channel, const std::string& key, uint64_t timeNs, std::string payload) {
  impl_->store(channel, key, timeNs, std::move(payload), true);
}

void FoxgloveServer::status(int level, const std::string& message) {
  Impl& s = *impl_;
  s.server->post([&s, level, message] {
    for (auto& [cid, client] : s.clients) s.statusTo(cid, level, message);
  });
}

bool FoxgloveServer::drain(double seconds) const {
  Impl& s = *impl_;
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(int64_t(seconds * 1e6));
  while (std::chrono::steady_clock::now() < until) {
    auto answer = std::make_shared<std::promise<bool>>();
    std::future<bool> idle = answer->get_future();
    s.server->post([&s, answer] {
      bool all = true;
      for (auto& [id, client] : s.clients) {
        if (s.server->buffered(id) > 0) all = false;
        for (const auto& [subId, sub] : client.subscriptions) {
          std::lock_guard lock(s.mutex);
          auto c = s.channels.find(sub.channel);
          if (c != s.channels.end() && c->second.bySeq.upper_bound(sub.sentSeq) != c->second.bySeq.end()) all = false;
        }
      }
      answer->set_value(all);
    });
    if (idle.wait_until(until) == std::future_status::ready && idle.get()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

uint64_t FoxgloveServer::subscribers(ChannelId channel) const {
  std::lock_guard lock(impl_->mutex);
  auto c = impl_->channels.find(channel.value);
  return c == impl_->channels.end() ? 0 : c->second.subscribers;
}

FoxgloveServerCounters FoxgloveServer::counters() const {
  const Impl& s = *impl_;
  return {s.clientCount.load(), s.connections.load(), s.refused.load(), s.messagesSent.load(),
          s.bytesSent.load(), s.badRequests.load(), s.pageRequests.load(), s.loggedDropped.load()};
}

}  // namespace voxen::live
