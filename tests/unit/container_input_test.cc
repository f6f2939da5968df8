// A container's input as attach sessions use it: a session's bytes reach the container's
// stdin; with stdinOnce the end of the first session's input is the container's end of file,
// without it the stdin stays open for the next session; a stop ends a copy at once, and a
// container that is gone ends it too.
#include "kubelet/podworker/container_input.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

namespace podlimits::kubelet {
namespace {

struct Pipe {
  UniqueFd read, write;
  Pipe() {
    int p[2];
    EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
    read.Reset(p[0]);
    write.Reset(p[1]);
  }
};

std::string ReadAvailable(int fd) {
  std::string out;
  char buf[4096];
  const int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  fcntl(fd, F_SETFL, flags);
  return out;
}

TEST(ContainerInput, StdinOnceEndsTheContainersInputWithTheFirstSession) {
  Pipe container;  // the container's stdin: it reads `read`
  ContainerInput input(std::move(container.write), false, true);
  UniqueFd stop(eventfd(0, EFD_CLOEXEC));
  Pipe session;
  std::thread copy([&] { input.CopyFrom(session.read.get(), stop.get()); });
  ASSERT_EQ(write(session.write.get(), "hello\n", 6), 6);
  session.write.Reset();  // the client's input ends
  copy.join();
  char buf[16];
  EXPECT_EQ(read(container.read.get(), buf, sizeof buf), 6);
  EXPECT_EQ(read(container.read.get(), buf, sizeof buf), 0);  // end of file: nothing else holds it
  EXPECT_FALSE(input.Duplicate());
}

TEST(ContainerInput, WithoutStdinOnceTheNextSessionWritesToo) {
  Pipe container;
  ContainerInput input(std::move(container.write), false, false);
  UniqueFd stop(eventfd(0, EFD_CLOEXEC));
  for (const char* text : {"one\n", "two\n"}) {
    Pipe session;
    std::thread copy([&] { input.CopyFrom(session.read.get(), stop.get()); });
    ASSERT_EQ(write(session.write.get(), text, 4), 4);
    session.write.Reset();
    copy.join();
  }
  EXPECT_EQ(ReadAvailable(container.read.get()), "one\ntwo\n");
  EXPECT_TRUE(input.Duplicate());  // still open: no end of file for the container
}

TEST(ContainerInput, AStopEndsACopyWhoseContainerDoesNotRead) {
  signal(SIGPIPE, SIG_IGN);  // the monitor's setting; the writer below meets a closed pipe
  Pipe container;
  ContainerInput input(std::move(container.write), false, true);
  UniqueFd stop(eventfd(0, EFD_CLOEXEC));
  Pipe session;
  std::thread copy([&] { input.CopyFrom(session.read.get(), stop.get()); });
  // More than the pipe holds: the copy waits for room that never comes.
  const std::string big(1 << 20, 'x');
  std::thread writer([&] { (void)write(session.write.get(), big.data(), big.size()); });
  usleep(100'000);
  const std::uint64_t one = 1;
  ASSERT_EQ(write(stop.get(), &one, sizeof one), 8);
  copy.join();
  session.read.Reset();  // the writer's blocked write fails now
  writer.join();
  EXPECT_TRUE(input.Duplicate());  // a stop is not the end of the input
}

TEST(ContainerInput, AContainerThatIsGoneEndsTheCopy) {
  signal(SIGPIPE, SIG_IGN);  // the monitor's setting: EPIPE, not a signal
  Pipe container;
  ContainerInput input(std::move(container.write), false, false);
  container.read.Reset();  // the container ended
  UniqueFd stop(eventfd(0, EFD_CLOEXEC));
  Pipe session;
  std::thread copy([&] { input.CopyFrom(session.read.get(), stop.get()); });
  ASSERT_EQ(write(session.write.get(), "x", 1), 1);
  copy.join();  // returns without the session's end
}

}  // namespace
}  // namespace podlimits::kubelet
