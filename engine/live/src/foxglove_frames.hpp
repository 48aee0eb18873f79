#pragma once
// The protocol's binary frames (foxglove.websocket.v1): Message Data (opcode 1) is
// uint8 opcode, uint32 subscription id, uint64 log time in nanoseconds (both little-endian),
// then the message's bytes. Shared by the server (writing) and the client (reading).
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace voxen::live::detail {

inline constexpr std::string_view kSubprotocol = "foxglove.websocket.v1";
inline constexpr uint8_t kMessageDataOpcode = 1;
inline constexpr uint8_t kTimeOpcode = 2;
inline constexpr size_t kMessageDataHeader = 13;

inline void putLittleEndian(char* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = char((value >> (8 * i)) & 0xff);
}
inline uint64_t getLittleEndian(const char* in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(uint8_t(in[i])) << (8 * i);
  return v;
}

inline std::string messageDataFrame(uint32_t subscriptionId, uint64_t timeNs, std::string_view payload) {
  std::string frame(kMessageDataHeader + payload.size(), '\0');
  frame[0] = char(kMessageDataOpcode);
  putLittleEndian(frame.data() + 1, subscriptionId, 4);
  putLittleEndian(frame.data() + 5, timeNs, 8);
  if (!payload.empty()) std::memcpy(frame.data() + kMessageDataHeader, payload.data(), payload.size());
  return frame;
}

struct MessageData {
  uint32_t subscriptionId = 0;
  uint64_t timeNs = 0;
  std::string_view payload;  // into the frame
};

// nullopt for a frame that is not Message Data or is shorter than its header.
inline std::optional<MessageData> parseMessageData(std::string_view frame) {
  if (frame.size() < kMessageDataHeader || uint8_t(frame[0]) != kMessageDataOpcode) return std::nullopt;
  return MessageData{uint32_t(getLittleEndian(frame.data() + 1, 4)), getLittleEndian(frame.data() + 5, 8),
                     frame.substr(kMessageDataHeader)};
}

}  // namespace voxen::live::detail
