#pragma once
// voxen::live::FoxgloveServer: a Foxglove WebSocket server (protocol foxglove.websocket.v1,
// https://github.com/foxglove/ws-protocol) whose channels hold state, not a log. Foxglove
// Studio, the browser page (voxen/live/web_assets.hpp, served on the same port) and any
// client of the protocol connect to it.
//
//   voxen::live::FoxgloveServer server({.port = 8765});          // ws://127.0.0.1:8765
//   auto regions = server.advertise({.topic = "/voxen/map/regions", .schemaName = "voxen.MapRegion"});
//   server.publish(regions, "region 0 0 0", stampNs, json);      // replaces that key's message
//
// State: a channel keeps the newest message of each key (a map region, say; one key, "", for
// a channel that has one current value such as a pose). A client that subscribes gets every
// key's newest message at once, then each key again whenever it is published anew. A key
// removed with remove() sends its last message (a deletion) to the clients that had the key
// and is forgotten. A client that reads slower than keys change gets, once it has caught up,
// the newest message of each key that changed meanwhile, never a backlog: a slow client costs
// the server at most one copy of each channel's state, and never makes a publisher wait.
//
// Security: the server listens on 127.0.0.1 unless told otherwise (bind). A browser page from
// another site must not read a robot's map through the user's browser: connections that carry
// an Origin header are accepted only from this server's own page, Foxglove's web app
// (https://app.foxglove.dev, https://studio.foxglove.dev) and allowedOrigins; programs (no
// Origin header) are always accepted. Connections that do not offer the protocol are refused
// with HTTP 400 and a sentence saying what the server speaks.
//
// Threads: every method may be called from any thread at any time. The server runs on a
// thread of its own; publish() copies nothing per client and never blocks on the network.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace voxen::live {

// A channel's id as the protocol's Advertise message gives it.
struct ChannelId {
  uint32_t value = 0;
  bool operator==(const ChannelId&) const = default;
};

struct FoxgloveChannel {
  std::string topic;
  std::string schemaName;             // "foxglove.Grid", "voxen.MapRegion"
  std::string schema{};               // the schema's text (a JSON schema for "json")
  std::string encoding = "json";      // the messages' encoding
  std::string schemaEncoding = "jsonschema";
  // A log rather than state: every message is sent to every client subscribed when it was
  // published, none kept for later subscribers, keys ignored (tf, whose every transform counts;
  // a player's clouds). A slow client's messages wait in the server until it has read them, 64
  // at most: a client that falls further behind misses the oldest (counters().logDropped).
  bool everyMessage = false;
};

struct FoxgloveServerOptions {
  std::string bind = "127.0.0.1";  // "0.0.0.0" or "::" to be reachable from other machines
  uint16_t port = 8765;            // 0: any free port (port() tells which)
  std::string name = "voxen";      // the Server Info message's name
  std::vector<std::string> allowedOrigins{};  // more web origins to accept ("*": any)
  // A client with more than this many bytes queued and not yet written to its socket is
  // behind: it is sent nothing more until it has caught up.
  uint64_t clientQueueBytes = uint64_t(16) << 20;
  bool servePage = true;  // answer HTTP GETs with the browser page (when this build has one)
};

struct FoxgloveServerCounters {
  uint64_t clients = 0;           // connected now
  uint64_t connections = 0;       // accepted since the start
  uint64_t refused = 0;           // handshakes refused (origin, protocol)
  uint64_t messagesSent = 0;      // Message Data frames written to sockets' queues
  uint64_t bytesSent = 0;
  uint64_t badRequests = 0;       // client messages that were not valid protocol (answered with a status)
  uint64_t pageRequests = 0;      // HTTP GETs answered
  uint64_t logDropped = 0;        // everyMessage messages dropped before a slow client took them
};

class FoxgloveServer {
 public:
  // Listens and starts the server's thread. Throws voxen::Error naming the address and the
  // reason (a port in use, an address this machine does not have).
  explicit FoxgloveServer(FoxgloveServerOptions options = {});
  ~FoxgloveServer();  // closes every connection ("server stopping") and joins the thread
  FoxgloveServer(const FoxgloveServer&) = delete;
  FoxgloveServer& operator=(const FoxgloveServer&) = delete;

  uint16_t port() const;
  // "ws://127.0.0.1:8765" (the address it listens on; a wildcard bind gives 127.0.0.1's URL).
  std::string url() const;

  // Adds a channel (connected clients are told at once). Throws Error for a topic already advertised.
  ChannelId advertise(const FoxgloveChannel& channel);
  // The newest message of `key` on `channel` (replacing the one before), sent to every
  // subscriber. `timeNs`: the message's time (the protocol's log time). Throws Error for an
  // unknown channel.
  void publish(ChannelId channel, const std::string& key, uint64_t timeNs, std::string payload);
  // Sends `payload` (a deletion) to the clients that were sent `key`, then forgets the key; a
  // client that joins later never hears of it. Nothing happens for a key never published.
  void remove(ChannelId channel, const std::string& key, uint64_t timeNs, std::string payload);
  // A Status message (0 info, 1 warning, 2 error) to every connected client.
  void status(int level, const std::string& message);

  FoxgloveServerCounters counters() const;
  // Waits until every connected client has been sent everything published so far and its
  // socket has taken it, or `seconds` pass; whether it got there. (A player's last message
  // before it closes.)
  bool drain(double seconds) const;
  // Clients subscribed to `channel` now.
  uint64_t subscribers(ChannelId channel) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen::live
