#include "voxen/input/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <iterator>

#include "voxen/host/error.hpp"

namespace voxen::detail {

namespace {

std::string kindOf(std::filesystem::file_type type) {
  switch (type) {
    case std::filesystem::file_type::directory: return "a directory";
    case std::filesystem::file_type::fifo: return "a pipe";
    case std::filesystem::file_type::socket: return "a socket";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::character: return "a character device";
    default: return "a special file";
  }
}

}  // namespace

std::ifstream openInputFile(const std::filesystem::path& path, const std::string& what) {
  const std::string name = path.string();
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  // Failures other than absence (a parent that is a file, a folder we may not enter; the
  // library reports both as "not found"): the system's words say which.
  if (ec && ec != std::errc::no_such_file_or_directory) throw Error(name + ": cannot open the " + what + ": " + ec.message());
  if (status.type() == std::filesystem::file_type::not_found) throw Error(name + ": no such file");
  if (status.type() != std::filesystem::file_type::regular) {
    throw Error(name + ": is " + kindOf(status.type()) + ", not a " + what +
                " (give the path of a regular file" +
                (status.type() == std::filesystem::file_type::fifo ? "; a pipe cannot be measured or sought: save it to a file first" : "") +
                ")");
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw Error(name + ": cannot open the " + what + (error != 0 ? ": " + std::string(std::strerror(error)) : std::string()));
  }
  return in;
}

std::vector<uint8_t> readInputFile(const std::filesystem::path& path, const std::string& what) {
  std::ifstream in = openInputFile(path, what);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path.string() + ": cannot read the " + what);
  return bytes;
}

}  // namespace voxen::detail
