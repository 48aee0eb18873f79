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

ChildResult runSelf(const std::vector<std::string>& args, double limitSeconds,
                    const std::function<void(const std::string&)>& onStderrLine) {
  ChildResult result;
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
    return result;
  }
  if (pipe2(errPipe, O_CLOEXEC) != 0) {
    result.startError = std::string("pipe: ") + strerror(errno);
    close(outPipe[0]), close(outPipe[1]);
    return result;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    result.startError = std::string("fork: ") + strerror(errno);
    for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1]}) close(fd);
    return result;
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

  std::string errLine;
  bool outOpen = true, errOpen = true;
  char buffer[65536];
  while (outOpen || errOpen) {
    int timeoutMs = -1;
    if (limitSeconds > 0 && !result.cutOff) {
      const double left = limitSeconds - secondsSince(start);
      if (left <= 0) {
        result.cutOff = true;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        continue;
      }
      timeoutMs = int(std::ceil(std::min(left, 3600.0) * 1e3));
    }
    pollfd fds[2];
    nfds_t count = 0;
    if (outOpen) fds[count++] = {outPipe[0], POLLIN, 0};
    if (errOpen) fds[count++] = {errPipe[0], POLLIN, 0};
    const int ready = poll(fds, count, timeoutMs);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (nfds_t i = 0; i < count; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      const bool isOut = fds[i].fd == outPipe[0];
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
  close(outPipe[0]);
  close(errPipe[0]);
  // Its pipes are closed, but it may still run (a child that closed its stdout and stderr
  // hangs): waited for under the same limit.
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (limitSeconds > 0 && !result.cutOff && secondsSince(start) > limitSeconds) {
      result.cutOff = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
    }
    usleep(2000);
  }
  result.seconds = secondsSince(start);
  if (result.err.size() > kKeptStderr) result.err.erase(0, result.err.size() - kKeptStderr);
  if (WIFEXITED(status)) result.exitStatus = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace voxen::cli
