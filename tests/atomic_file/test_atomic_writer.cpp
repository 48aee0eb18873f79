// The library's one output writer (voxen/atomic_file/atomic_file.hpp): what it does with each kind
// of file at the target path, and that it never leaves a temporary file or a half-written
// target behind.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/temp_dir.hpp"
#include "support/test_helpers.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/ply.hpp"
#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/atomic_file/output_file.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using voxen::detail::AtomicFileWriter;
using vt::errorOf;

namespace {

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void save(const fs::path& path, const std::string& text, const std::string& what = "test") {
  AtomicFileWriter out(path, what);
  out.write(text.data(), text.size());
  out.commit();
}

int temporaryFilesIn(const fs::path& folder) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) ++count;
  return count;
}

mode_t modeOf(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode;
}

}  // namespace

TEST_CASE("Output writer: a new or regular file is replaced whole, keeping its mode", "[output]") {
  vt::TempDir dir("output");
  const fs::path file = dir / "out.bin";
  save(file, "first");
  CHECK(readText(file) == "first");
  const mode_t umask = ::umask(0);
  ::umask(umask);
  CHECK((modeOf(file) & 07777) == (0666 & ~umask));

  for (mode_t mode : {mode_t(0600), mode_t(0640), mode_t(0755)}) {
    fs::permissions(file, fs::perms(mode), fs::perm_options::replace);
    struct stat before {};
    REQUIRE(::stat(file.c_str(), &before) == 0);
    save(file, "second " + std::to_string(mode));
    CHECK(readText(file) == "second " + std::to_string(mode));
    CHECK((modeOf(file) & 07777) == mode);
    struct stat after {};
    REQUIRE(::stat(file.c_str(), &after) == 0);
    CHECK(after.st_ino != before.st_ino);  // a new file renamed over: readers saw old or new
  }
  CHECK(temporaryFilesIn(dir.path()) == 0);

  const std::string longest(255, 'n');  // NAME_MAX: the temporary name must not exceed it
  save(dir / longest, "long");
  CHECK(readText(dir / longest) == "long");
}

TEST_CASE("Output writer: bytes written earlier can be patched", "[output]") {
  vt::TempDir dir("output");
  AtomicFileWriter out(dir / "p.txt", "test", AtomicFileWriter::Patching::Needed);
  out.write("count=??\n", 9);
  out.write("body", 4);
  out.patch(6, "42", 2);
  CHECK_THAT(errorOf([&] { out.patch(12, "xx", 2); }), Contains("outside the bytes written"));
  out.commit();
  CHECK(readText(dir / "p.txt") == "count=42\nbody");
}

TEST_CASE("Output writer: a read-only file, a directory and a missing folder are refused", "[output][errors]") {
  vt::TempDir dir("output");
  const fs::path locked = dir / "locked.vxm";
  save(locked, "keep me");
  fs::permissions(locked, fs::perms(0444), fs::perm_options::replace);
  CHECK_THAT(errorOf([&] { save(locked, "new", "map"); }),
             Contains("cannot save map to '" + locked.string() + "'") && Contains("read-only") && Contains("0444"));
  CHECK(readText(locked) == "keep me");
  CHECK_THAT(errorOf([&] { voxen::checkOutputPath(locked); }), Contains("read-only"));

  CHECK_THAT(errorOf([&] { save(dir.path(), "x"); }), Contains(dir.path().string()) && Contains("is a directory"));
  CHECK_THAT(errorOf([&] { save(dir / "no/such/folder/x.vxm", "x"); }), Contains("folder") && Contains("does not exist"));
  // A file where a folder should be (ENOTDIR): the folder is named.
  CHECK_THAT(errorOf([&] { save(locked / "x.vxm", "x"); }), Contains(locked.string() + "' is not a folder"));
  CHECK_THAT(errorOf([&] { voxen::checkOutputPath(locked / "x.vxm"); }), Contains("is not a folder"));
  CHECK(temporaryFilesIn(dir.path()) == 0);
}

TEST_CASE("Output writer: a symbolic link is written through and stays a link", "[output]") {
  vt::TempDir dir("output");
  fs::create_directory(dir / "real");
  save(dir / "real/target.ply", "old");
  fs::permissions(dir / "real/target.ply", fs::perms(0640), fs::perm_options::replace);
  fs::create_symlink("real/target.ply", dir / "link.ply");  // relative to the link's folder
  fs::create_symlink(dir / "link.ply", dir / "chain.ply");  // a link to a link
  save(dir / "chain.ply", "new");
  CHECK(fs::is_symlink(dir / "link.ply"));
  CHECK(fs::is_symlink(dir / "chain.ply"));
  CHECK(readText(dir / "real/target.ply") == "new");
  CHECK((modeOf(dir / "real/target.ply") & 07777) == 0640);
  // A dangling link: its target is created.
  fs::create_symlink("real/later.ply", dir / "dangling.ply");
  save(dir / "dangling.ply", "made");
  CHECK(fs::is_symlink(dir / "dangling.ply"));
  CHECK(readText(dir / "real/later.ply") == "made");
  // A link to a directory is refused, naming both.
  fs::create_directory_symlink("real", dir / "folder-link");
  CHECK_THAT(errorOf([&] { save(dir / "folder-link", "x"); }), Contains("is a directory") && Contains("symbolic link"));
  CHECK(temporaryFilesIn(dir.path()) == 0);
  CHECK(temporaryFilesIn(dir / "real") == 0);
}

TEST_CASE("Output writer: /dev/null is written through and stays a character device", "[output]") {
  save("/dev/null", std::string(3 << 20, 'x'));  // past the buffer
  AtomicFileWriter patched("/dev/null", "PLY", AtomicFileWriter::Patching::Needed);  // spooled, then copied
  patched.write("0123456789", 10);
  patched.patch(0, "ab", 2);
  patched.commit();
  CHECK(S_ISCHR(modeOf("/dev/null")));
  voxen::PlyWriter ply("/dev/null", {{"x"}});
  ply.write({1.0});
  ply.close();
  CHECK(S_ISCHR(modeOf("/dev/null")));
}

TEST_CASE("Output writer: a FIFO is written through to its reader", "[output]") {
  vt::TempDir dir("output");
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (auto patching : {AtomicFileWriter::Patching::None, AtomicFileWriter::Patching::Needed}) {
    std::string received;
    std::thread reader([&] { received = readText(fifo); });  // opening blocks until the writer opens
    {
      AtomicFileWriter out(fifo, "test", patching);
      const std::string body(2 << 20, 'b');  // more than a pipe holds: the reader must drain it
      out.write("head", 4);
      out.write(body.data(), body.size());
      if (patching == AtomicFileWriter::Patching::Needed) out.patch(0, "HEAD", 4);
      out.commit();
    }
    reader.join();
    const std::string head = patching == AtomicFileWriter::Patching::Needed ? "HEAD" : "head";
    CHECK(received.size() == 4 + (2u << 20));
    CHECK(received.substr(0, 4) == head);
    CHECK(S_ISFIFO(modeOf(fifo)));
  }
  CHECK(temporaryFilesIn(dir.path()) == 0);
}

TEST_CASE("Output writer: /dev/stdout-style links to a pipe (/proc/self/fd/N) are written through", "[output]") {
  int ends[2];
  REQUIRE(::pipe(ends) == 0);
  std::string received;
  std::thread reader([&] {
    char chunk[4096];
    for (ssize_t n; (n = ::read(ends[0], chunk, sizeof chunk)) > 0;) received.append(chunk, size_t(n));
  });
  {
    // The link's text is "pipe:[inode]", no path: the writer must open the name it was given.
    AtomicFileWriter out("/proc/self/fd/" + std::to_string(ends[1]), "PLY", AtomicFileWriter::Patching::Needed);
    out.write("ply 0000\n", 9);
    out.patch(4, "0042", 4);
    out.commit();
  }
  ::close(ends[1]);
  reader.join();
  ::close(ends[0]);
  CHECK(received == "ply 0042\n");
}

TEST_CASE("Output writer: a full device gives an error naming the file and ENOSPC", "[output][errors]") {
  if (!fs::exists("/dev/full")) return;
  CHECK_THAT(errorOf([] { save("/dev/full", "data", "map"); }),
             Contains("cannot save map to '/dev/full'") && Contains("No space left on device"));
  CHECK_THAT(errorOf([] {
               AtomicFileWriter out("/dev/full", "map");
               const std::string big(3 << 20, 'x');  // written at once, past the buffer
               out.write(big.data(), big.size());
             }),
             Contains("No space left on device"));
}

TEST_CASE("Output writer: an uncommitted or failed save leaves no temporary file and the target as it was", "[output][errors]") {
  vt::TempDir dir("output");
  const fs::path file = dir / "keep.vxm";
  save(file, "original");
  {
    AtomicFileWriter out(file, "map");
    out.write("partial", 7);
    CHECK(temporaryFilesIn(dir.path()) == 1);
  }  // dies uncommitted, as on an exception
  CHECK(readText(file) == "original");
  CHECK(temporaryFilesIn(dir.path()) == 0);

  // A PLY writer unwound by an exception discards its rows instead of finishing the file.
  try {
    voxen::PlyWriter ply(dir / "unwound.ply", {{"x"}});
    ply.write({1.0});
    throw std::runtime_error("the work failed");
  } catch (const std::runtime_error&) {
  }
  CHECK_FALSE(fs::exists(dir / "unwound.ply"));
  CHECK(temporaryFilesIn(dir.path()) == 0);
}

TEST_CASE("Output writer: the signal cleanup removes the temporary files of saves in progress", "[output]") {
  vt::TempDir dir("output");
  const fs::path file = dir / "busy.vxm";
  save(file, "original");
  AtomicFileWriter out(file, "map");
  out.write("half", 4);
  REQUIRE(temporaryFilesIn(dir.path()) == 1);
  voxen::removeTemporaryFilesNow();  // what the SIGINT/SIGTERM handler runs
  CHECK(temporaryFilesIn(dir.path()) == 0);
  CHECK(readText(file) == "original");
  // The rename then has nothing to move: an error, and the target is still untouched.
  CHECK_THAT(errorOf([&] { out.commit(); }), Contains("rename"));
  CHECK(readText(file) == "original");
}
