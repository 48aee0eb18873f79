#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "stopwatch.hpp"

namespace voxen::cli {

namespace {

constexpr size_t kKeptStderr = 64 * 1024;

// Between fork and exec only async-signal-safe calls: a message by write(), then _exit.
[[noreturn]] void childFails(const char* what) {
  const char* why = strerror(errno);
  const char prefix[] = "voxen: cannot start the child process: ";
  (void)!write(STDERR_FILENO, prefix, sizeof prefix - 1);
  (void)!write(STDERR_FILENO, what, strlen(what));
  (void)!write(STDERR_FILENO, ": ", 2);
  (void)!write(STDERR_FILENO, why, strlen(why));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(127);
}

}  // namespace

std::string ChildResult::how() const {
  char text[160];
  if (!startError.empty()) return "not started: " + startError;
  if (cutOff)
    std::snprintf(text, sizeof text, "cut off after %.1f s (its time limit; the process group was killed)", seconds);
  else if (signal)
    std::snprintf(text, sizeof text, "killed by signal %d (%s) after %.1f s", signal, strsignal(signal), seconds);
  else
    std::snprintf(text, sizeof text, "exit status %d after %.1f s", exitStatus, seconds);
  return text;
}

namespace {

// A started child: its pid, the read ends of its stdout and stderr, and when it started.
struct Child {
  pid_t pid = -1;
  int out = -1, err = -1;
  Clock::time_point start;
};

// Its whole process group killed (and itself, were it not in the group yet): it ran past its
// time limit.
void cutOff(const Child& child, ChildResult& result) {
  result.cutOff = true;
  kill(-child.pid, SIGKILL);
  kill(child.pid, SIGKILL);
}

// Forks and runs /proc/self/exe with `args` in a process group of its own, stdout and stderr
// into pipes; false, with result.startError, when it could not.
bool startChild(const std::vector<std::string>& args, Child& child, ChildResult& result) {
  // Everything the child needs is built before fork: after it, the child may only make
  // async-signal-safe calls (this process may have other threads).
  std::vector<std::string> words{"voxen"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const char* self = "/proc/self/exe";

  int outPipe[2], errPipe[2];
  if (pipe2(outPipe, O_CLOEXEC) != 0) {
    result.startError = std::string("pipe: ") + strerror(errno);
    return false;
  }
  if (pipe2(errPipe, O_CLOEXEC) != 0) {
    result.startError = std::string("pipe: ") + strerror(errno);
    close(outPipe[0]), close(outPipe[1]);
    return false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  child.start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    result.startError = std::string("fork: ") + strerror(errno);
    for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1]}) close(fd);
    return false;
  }
  if (pid == 0) {
    setpgid(0, 0);
    // Dies with the parent, even when the parent is killed outright.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) childFails("prctl");
    if (getppid() != parent) _exit(127);  // the parent died before prctl
    const int devNull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devNull < 0 || dup2(devNull, STDIN_FILENO) < 0) childFails("/dev/null");
    if (dup2(outPipe[1], STDOUT_FILENO) < 0 || dup2(errPipe[1], STDERR_FILENO) < 0) childFails("dup2");
    // A signal ignored here would stay ignored after exec; the defaults come back.
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(s, SIG_DFL);
    execv(self, argv.data());
    childFails(self);
  }
  setpgid(pid, pid);  // also here, so that a kill right away finds the group
  close(outPipe[1]);
  close(errPipe[1]);
  child.pid = pid;
  child.out = outPipe[0];
  child.err = errPipe[0];
  return true;
}

// Reads the child's stdout and stderr until it closes both (or is cut off at its limit),
// each complete stderr line to `onStderrLine` as it arrives.
void readUntilClosed(const Child& child, double limitSeconds, const std::function<void(const std::string&)>& onStderrLine,
                     ChildResult& result) {
  std::string errLine;
  bool outOpen = true, errOpen = true;
  char buffer[65536];
  while (outOpen || errOpen) {
    int timeoutMs = -1;
    if (limitSeconds > 0 && !result.cutOff) {
      const double left = limitSeconds - secondsSince(child.start);
      if (left <= 0) {
        cutOff(child, result);
        continue;
      }
      timeoutMs = int(std::ceil(std::min(left, 3600.0) * 1e3));
    }
    pollfd fds[2];
    nfds_t count = 0;
    if (outOpen) fds[count++] = {child.out, POLLIN, 0};
    if (errOpen) fds[count++] = {child.err, POLLIN, 0};
    const int ready = poll(fds, count, timeoutMs);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (nfds_t i = 0; i < count; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      const bool isOut = fds[i].fd == child.out;
      if (n <= 0) {
        (isOut ? outOpen : errOpen) = false;
        continue;
      }
      if (isOut) {
        result.out.append(buffer, size_t(n));
        continue;
      }
      result.err.append(buffer, size_t(n));
      if (result.err.size() > 2 * kKeptStderr) result.err.erase(0, result.err.size() - kKeptStderr);
      errLine.append(buffer, size_t(n));
      for (size_t end; (end = errLine.find('\n')) != std::string::npos; errLine.erase(0, end + 1))
        if (onStderrLine) onStderrLine(errLine.substr(0, end));
      if (errLine.size() > kKeptStderr) errLine.clear();  // a "line" this long is not one
    }
  }
  if (!errLine.empty() && onStderrLine) onStderrLine(errLine);
}

// Its pipes are closed, but it may still run (a child that closed its stdout and stderr
// hangs): waited for under the same limit. Returns its wait status.
int waitForExit(const Child& child, double limitSeconds, ChildResult& result) {
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child.pid, &status, WNOHANG);
    if (done == child.pid || (done < 0 && errno != EINTR)) break;
    if (limitSeconds > 0 && !result.cutOff && secondsSince(child.start) > limitSeconds) cutOff(child, result);
    usleep(2000);
  }
  return status;
}

}  // namespace

ChildResult runSelf(const std::vector<std::string>& args, double limitSeconds,
                    const std::function<void(const std::string&)>& onStderrLine) {
  ChildResult result;
  Child child;
  if (!startChild(args, child, result)) return result;
  readUntilClosed(child, limitSeconds, onStderrLine, result);
  close(child.out);
  close(child.err);
  const int status = waitForExit(child, limitSeconds, result);
  result.seconds = secondsSince(child.start);
  if (result.err.size() > kKeptStderr) result.err.erase(0, result.err.size() - kKeptStderr);
  if (WIFEXITED(status)) result.exitStatus = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace voxen::cli
