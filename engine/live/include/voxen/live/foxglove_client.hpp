#pragma once
// voxen::live::FoxgloveClient: a client of the Foxglove WebSocket protocol
// (foxglove.websocket.v1): it connects to a server (foxglove_bridge on a robot, `voxen play`,
// `voxen serve`), subscribes to the channels a caller wants as they are advertised, and hands
// each message over with its channel. A lost connection is retried with a growing pause
// (reconnect), and every change of state is reported.
//
//   voxen::live::FoxgloveClient client({.url = "ws://robot:8765",
//       .wants = [](const voxen::live::AdvertisedChannel& c) { return c.topic == "/points"; }},
//       [](const voxen::live::AdvertisedChannel& c, uint64_t timeNs, std::span<const uint8_t> bytes) { ... },
//       [](const voxen::live::ClientEvent& e) { std::fprintf(stderr, "%s\n", e.text.c_str()); });
//
// Threads: the callbacks run on the client's own thread, one at a time, and must be quick
// (queue the bytes; decode elsewhere): while one runs, nothing else is read. The methods may
// be called from any thread; the destructor must not be called from a callback.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace voxen::live {

struct AdvertisedChannel {
  uint32_t id = 0;
  std::string topic, encoding, schemaName, schema, schemaEncoding;
};

struct ClientEvent {
  enum class Kind {
    Connected,     // the handshake succeeded and the server said who it is (text: its name)
    Advertised,    // channels were advertised (text: the topics)
    Subscribed,    // a wanted channel was subscribed (text: topic and encoding)
    Disconnected,  // an open connection ended (text: why; a retry follows when reconnecting)
    Failed,        // a connection could not be made (text: why; a retry follows when reconnecting)
    NotFoxglove,   // the peer is not a Foxglove WebSocket server (text: what it did); no retry
    ServerStatus,  // the server sent a Status message (text: level and message)
    Malformed,     // a message from the server could not be read (text: what), counted and skipped
  };
  Kind kind = Kind::Connected;
  std::string text;
};

struct FoxgloveClientOptions {
  std::string url;  // ws://HOST:PORT[/PATH]
  // Which advertised channels to subscribe to.
  std::function<bool(const AdvertisedChannel&)> wants{};
  bool reconnect = true;
  double retryMinSeconds = 0.25, retryMaxSeconds = 4.0;  // the pause doubles from min to max
  // A server that accepts the WebSocket but sends no Server Info within this time is taken
  // for something other than a Foxglove server.
  double serverInfoSeconds = 3.0;
};

struct FoxgloveClientCounters {
  uint64_t connects = 0;      // connections opened
  uint64_t disconnects = 0;   // open connections lost
  uint64_t failures = 0;      // attempts that failed
  uint64_t messages = 0;      // Message Data frames received on subscribed channels
  uint64_t bytes = 0;
  uint64_t malformed = 0;     // frames or JSON messages that could not be read
};

class FoxgloveClient {
 public:
  using MessageCallback = std::function<void(const AdvertisedChannel&, uint64_t timeNs, std::span<const uint8_t>)>;
  using EventCallback = std::function<void(const ClientEvent&)>;
  // Starts connecting at once. Throws voxen::Error for a URL that is not ws://HOST:PORT.
  FoxgloveClient(FoxgloveClientOptions options, MessageCallback onMessage, EventCallback onEvent);
  ~FoxgloveClient();  // closes the connection and joins the thread
  FoxgloveClient(const FoxgloveClient&) = delete;
  FoxgloveClient& operator=(const FoxgloveClient&) = delete;

  // Every channel advertised by the server (those of the current connection), any thread.
  std::vector<AdvertisedChannel> channels() const;
  bool connected() const;
  FoxgloveClientCounters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen::live
