#pragma once
// The WebSocket transport under the Foxglove server and client: websocketpp over standalone
// asio, each endpoint on a thread of its own. websocketpp 0.8.2 (Debian bookworm) does not
// compile as C++20, so its two translation units (ws_server.cpp, ws_client.cpp) are built as
// C++17 in a library of their own (voxen_live_ws), and this header, which both languages
// include, holds nothing of websocketpp's: plain types, std::function hooks and a pimpl.
//
// Threads: hooks run on the endpoint's thread, one at a time. Every method may be called from
// any thread (the client's sends are posted to its thread), except those marked "server
// thread": those only from hooks or posted work.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace voxen::live::ws {

using ConnectionId = uint64_t;

struct HttpReply {
  int status = 404;
  std::string contentType = "text/plain; charset=utf-8";
  std::string body;
};

// What a connection asked for in its opening handshake.
struct Handshake {
  std::string origin;  // the Origin header ("" when none: a program rather than a browser page)
  std::string host;    // the Host header
  std::string remote;  // the peer's address and port
  std::vector<std::string> subprotocols;
};

struct ServerHooks {
  // Whether to accept a WebSocket connection; on refusal, `why` is the HTTP body sent back.
  // `chosenSubprotocol` is set to the one to select.
  std::function<bool(const Handshake&, std::string& chosenSubprotocol, int& status, std::string& why)> accept;
  std::function<void(ConnectionId, const Handshake&)> onOpen;
  std::function<void(ConnectionId)> onClose;
  std::function<void(ConnectionId, std::string&&)> onText;
  std::function<void(ConnectionId, std::string&&)> onBinary;
  std::function<HttpReply(const std::string& path)> onHttp;  // plain HTTP GETs
};

class Server {
 public:
  // Listens on `bind`:`port` (0: any free port) and starts the thread. Throws
  // std::runtime_error naming the address and the reason (a port in use, an unknown address).
  Server(const std::string& bind, uint16_t port, ServerHooks hooks);
  ~Server();  // closes every connection, stops and joins the thread
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const;
  // Server thread: queues a message on the connection now (false when it is gone), so that
  // buffered() counts it at once.
  bool sendNow(ConnectionId connection, const std::string& payload, bool binary);
  // Server thread: bytes queued for a connection and not yet written to its socket (0 once it
  // is gone).
  uint64_t buffered(ConnectionId connection) const;
  // Runs `work` on the server's thread, now or after `delay`.
  void post(std::function<void()> work);
  void postAfter(std::chrono::milliseconds delay, std::function<void()> work);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ClientHooks {
  std::function<void(const std::string& subprotocol)> onOpen;
  // The connection could not be made (refused, not a WebSocket server, handshake refused):
  // the reason in words, with the HTTP status when the server answered one (0 otherwise).
  std::function<void(const std::string& reason, int httpStatus)> onFail;
  std::function<void(const std::string& reason)> onClose;  // an open connection ended
  std::function<void(std::string&&)> onText;
  std::function<void(std::string&&)> onBinary;
};

class Client {
 public:
  explicit Client(ClientHooks hooks);  // starts the thread
  ~Client();                           // closes the connection, stops and joins the thread
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Opens a connection to `url` offering `subprotocol` (the previous one, if any, is dropped);
  // the outcome comes through onOpen or onFail. Throws std::runtime_error for a URL that
  // cannot be parsed.
  void connect(const std::string& url, const std::string& subprotocol);
  void sendText(std::string text);
  void close(const std::string& reason);
  void postAfter(std::chrono::milliseconds delay, std::function<void()> work);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen::live::ws
