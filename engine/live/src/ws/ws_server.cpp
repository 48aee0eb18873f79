// ws::Server (ws_transport.hpp): websocketpp's asio server on a thread of its own. Built as
// C++17 (voxen_live_ws): websocketpp 0.8.2 does not compile as C++20.
#include <websocketpp/config/asio_no_tls.hpp>
#include <websocketpp/server.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "ws/ws_transport.hpp"

namespace voxen::live::ws {

using Endpoint = websocketpp::server<websocketpp::config::asio>;
using Hdl = websocketpp::connection_hdl;

struct Server::Impl {
  ServerHooks hooks;
  Endpoint endpoint;
  std::thread thread;
  uint16_t port = 0;
  // Connections by id, and ids by handle: touched on the endpoint's thread only.
  std::map<ConnectionId, Hdl> handles;
  std::map<Hdl, ConnectionId, std::owner_less<Hdl>> ids;
  ConnectionId nextId = 1;

  Endpoint::connection_ptr connection(ConnectionId id) {
    auto it = handles.find(id);
    if (it == handles.end()) return nullptr;
    websocketpp::lib::error_code ec;
    Endpoint::connection_ptr con = endpoint.get_con_from_hdl(it->second, ec);
    return ec ? nullptr : con;
  }

  static Handshake handshakeOf(const Endpoint::connection_ptr& con) {
    Handshake h;
    h.origin = con->get_request_header("Origin");
    h.host = con->get_request_header("Host");
    h.remote = con->get_remote_endpoint();
    h.subprotocols = con->get_requested_subprotocols();
    return h;
  }
};

Server::Server(const std::string& bind, uint16_t port, ServerHooks hooks) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.hooks = std::move(hooks);
  Endpoint& e = s.endpoint;
  e.clear_access_channels(websocketpp::log::alevel::all);
  e.clear_error_channels(websocketpp::log::elevel::all);
  e.init_asio();
  e.set_reuse_addr(true);
  e.set_validate_handler([&s](Hdl hdl) {
    Endpoint::connection_ptr con = s.endpoint.get_con_from_hdl(hdl);
    std::string chosen, why;
    int status = 400;
    if (!s.hooks.accept || s.hooks.accept(Impl::handshakeOf(con), chosen, status, why)) {
      if (!chosen.empty()) con->select_subprotocol(chosen);
      return true;
    }
    con->set_status(websocketpp::http::status_code::value(status));
    con->set_body(why + "\n");
    con->append_header("Content-Type", "text/plain; charset=utf-8");
    return false;
  });
  e.set_open_handler([&s](Hdl hdl) {
    const ConnectionId id = s.nextId++;
    s.handles[id] = hdl;
    s.ids[hdl] = id;
    if (s.hooks.onOpen) s.hooks.onOpen(id, Impl::handshakeOf(s.endpoint.get_con_from_hdl(hdl)));
  });
  auto closed = [&s](Hdl hdl) {
    auto it = s.ids.find(hdl);
    if (it == s.ids.end()) return;
    const ConnectionId id = it->second;
    s.ids.erase(it);
    s.handles.erase(id);
    if (s.hooks.onClose) s.hooks.onClose(id);
  };
  e.set_close_handler(closed);
  e.set_fail_handler(closed);
  e.set_message_handler([&s](Hdl hdl, Endpoint::message_ptr message) {
    auto it = s.ids.find(hdl);
    if (it == s.ids.end()) return;
    std::string& payload = message->get_raw_payload();
    if (message->get_opcode() == websocketpp::frame::opcode::text) {
      if (s.hooks.onText) s.hooks.onText(it->second, std::move(payload));
    } else if (s.hooks.onBinary) {
      s.hooks.onBinary(it->second, std::move(payload));
    }
  });
  e.set_http_handler([&s](Hdl hdl) {
    Endpoint::connection_ptr con = s.endpoint.get_con_from_hdl(hdl);
    HttpReply reply;
    if (s.hooks.onHttp) reply = s.hooks.onHttp(con->get_resource());
    con->set_status(websocketpp::http::status_code::value(reply.status));
    con->append_header("Content-Type", reply.contentType);
    con->append_header("Cache-Control", "no-store");
    con->set_body(std::move(reply.body));
  });
  websocketpp::lib::error_code ec;
  e.listen(bind, std::to_string(port), ec);
  if (ec) throw std::runtime_error("cannot listen on " + bind + ":" + std::to_string(port) + ": " + ec.message());
  e.start_accept(ec);
  if (ec) throw std::runtime_error("cannot accept on " + bind + ":" + std::to_string(port) + ": " + ec.message());
  s.port = e.get_local_endpoint(ec).port();
  s.thread = std::thread([&e] { e.run(); });
}

Server::~Server() {
  Impl& s = *impl_;
  // Close every connection politely (clients see "going away"), give them a moment, then stop.
  std::atomic<bool> closed{false};
  s.endpoint.get_io_service().post([&s, &closed] {
    websocketpp::lib::error_code ec;
    s.endpoint.stop_listening(ec);
    for (auto& [id, hdl] : s.handles) s.endpoint.close(hdl, websocketpp::close::status::going_away, "server stopping", ec);
    closed = true;
  });
  for (int i = 0; i < 100 && !closed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  for (int i = 0; i < 50; ++i) {
    std::atomic<bool> empty{false}, answered{false};
    s.endpoint.get_io_service().post([&] {
      empty = s.handles.empty();
      answered = true;
    });
    while (!answered && !s.endpoint.stopped()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (empty || s.endpoint.stopped()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
  }
  s.endpoint.stop();
  if (s.thread.joinable()) s.thread.join();
}

uint16_t Server::port() const { return impl_->port; }

bool Server::sendNow(ConnectionId connection, const std::string& payload, bool binary) {
  Endpoint::connection_ptr con = impl_->connection(connection);
  if (!con) return false;
  return !con->send(payload, binary ? websocketpp::frame::opcode::binary : websocketpp::frame::opcode::text);
}

uint64_t Server::buffered(ConnectionId connection) const {
  Endpoint::connection_ptr con = impl_->connection(connection);
  return con ? con->get_buffered_amount() : 0;
}

void Server::post(std::function<void()> work) { impl_->endpoint.get_io_service().post(std::move(work)); }

void Server::postAfter(std::chrono::milliseconds delay, std::function<void()> work) {
  auto timer = std::make_shared<asio::steady_timer>(impl_->endpoint.get_io_service(), delay);
  timer->async_wait([timer, work = std::move(work)](const asio::error_code& ec) {
    if (!ec) work();
  });
}

}  // namespace voxen::live::ws
