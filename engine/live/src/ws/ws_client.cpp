// ws::Client (ws_transport.hpp): websocketpp's asio client on a thread of its own. Built as
// C++17 (voxen_live_ws): websocketpp 0.8.2 does not compile as C++20.
#include <websocketpp/client.hpp>
#include <websocketpp/config/asio_no_tls_client.hpp>

#include <stdexcept>
#include <thread>

#include "ws/ws_transport.hpp"

namespace voxen::live::ws {

using Endpoint = websocketpp::client<websocketpp::config::asio_client>;
using Hdl = websocketpp::connection_hdl;

struct Client::Impl {
  ClientHooks hooks;
  Endpoint endpoint;
  std::thread thread;
  Hdl current;  // the connection in use: on the endpoint's thread only
};

Client::Client(ClientHooks hooks) : impl_(std::make_unique<Impl>()) {
  Impl& c = *impl_;
  c.hooks = std::move(hooks);
  c.endpoint.clear_access_channels(websocketpp::log::alevel::all);
  c.endpoint.clear_error_channels(websocketpp::log::elevel::all);
  c.endpoint.init_asio();
  c.endpoint.start_perpetual();
  c.thread = std::thread([&c] { c.endpoint.run(); });
}

Client::~Client() {
  Impl& c = *impl_;
  c.endpoint.get_io_service().post([&c] {
    websocketpp::lib::error_code ec;
    if (!c.current.expired()) c.endpoint.close(c.current, websocketpp::close::status::going_away, "client stopping", ec);
    c.current.reset();
  });
  c.endpoint.stop_perpetual();
  // Give the close a moment to reach the server, then stop whatever is left.
  for (int i = 0; i < 50 && !c.endpoint.stopped(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  c.endpoint.stop();
  if (c.thread.joinable()) c.thread.join();
}

void Client::connect(const std::string& url, const std::string& subprotocol) {
  Impl* c = impl_.get();
  websocketpp::lib::error_code ec;
  Endpoint::connection_ptr con = c->endpoint.get_connection(url, ec);
  if (ec) throw std::runtime_error(ec.message());
  con->add_subprotocol(subprotocol, ec);
  if (ec) throw std::runtime_error(ec.message());
  // Point clouds of big lidars: a 128 x 2048 cloud of 48-byte points is 12.6 MB.
  con->set_max_message_size(uint64_t(512) << 20);
  con->set_open_handler([c](Hdl hdl) {
    if (c->current.lock() != hdl.lock()) return;
    // websocketpp keeps no subprotocol on the client side: the server's answer is in the response header.
    if (c->hooks.onOpen) c->hooks.onOpen(c->endpoint.get_con_from_hdl(hdl)->get_response_header("Sec-WebSocket-Protocol"));
  });
  con->set_fail_handler([c](Hdl hdl) {
    if (c->current.lock() != hdl.lock()) return;
    Endpoint::connection_ptr failed = c->endpoint.get_con_from_hdl(hdl);
    const int status = int(failed->get_response_code());
    std::string reason = failed->get_ec().message();
    if (status != 0 && status != 101) reason += " (HTTP " + std::to_string(status) + ")";
    c->current.reset();
    if (c->hooks.onFail) c->hooks.onFail(reason, status == 101 ? 0 : status);
  });
  con->set_close_handler([c](Hdl hdl) {
    if (c->current.lock() != hdl.lock()) return;
    Endpoint::connection_ptr closed = c->endpoint.get_con_from_hdl(hdl);
    std::string reason = closed->get_remote_close_reason();
    const auto code = closed->get_remote_close_code();
    if (reason.empty()) reason = websocketpp::close::status::get_string(code);
    c->current.reset();
    if (c->hooks.onClose) c->hooks.onClose(reason);
  });
  con->set_message_handler([c](Hdl hdl, Endpoint::message_ptr message) {
    if (c->current.lock() != hdl.lock()) return;
    std::string& payload = message->get_raw_payload();
    if (message->get_opcode() == websocketpp::frame::opcode::text) {
      if (c->hooks.onText) c->hooks.onText(std::move(payload));
    } else if (c->hooks.onBinary) {
      c->hooks.onBinary(std::move(payload));
    }
  });
  c->endpoint.get_io_service().post([c, con] {
    websocketpp::lib::error_code ec2;
    if (!c->current.expired()) c->endpoint.close(c->current, websocketpp::close::status::normal, "reconnecting", ec2);
    c->current = con->get_handle();
    c->endpoint.connect(con);
  });
}

void Client::sendText(std::string text) {
  Impl* c = impl_.get();
  c->endpoint.get_io_service().post([c, text = std::move(text)] {
    websocketpp::lib::error_code ec;
    if (!c->current.expired()) c->endpoint.send(c->current, text, websocketpp::frame::opcode::text, ec);
  });
}

void Client::close(const std::string& reason) {
  Impl* c = impl_.get();
  c->endpoint.get_io_service().post([c, reason] {
    websocketpp::lib::error_code ec;
    if (!c->current.expired()) c->endpoint.close(c->current, websocketpp::close::status::normal, reason, ec);
  });
}

void Client::postAfter(std::chrono::milliseconds delay, std::function<void()> work) {
  auto timer = std::make_shared<asio::steady_timer>(impl_->endpoint.get_io_service(), delay);
  timer->async_wait([timer, work = std::move(work)](const asio::error_code& ec) {
    if (!ec) work();
  });
}

}  // namespace voxen::live::ws
