// podlimits-runc's front (runc_front.h): the calls that create nothing go to the runtime the full
// wrapper recorded, the rest to the full wrapper beside this executable.
//
// On x86-64 release builds it links neither libc nor libstdc++ (PODLIMITS_FRONT_NOLIBC): its own
// _start and seven raw system calls. Elsewhere, and in sanitizer builds, the same flow runs from
// an ordinary main() over libc's wrappers.
#include <fcntl.h>
#include <sys/syscall.h>

#include "runcwrap/front/runc_front.h"

namespace {

using namespace podlimits::runcwrap::front;

#if defined(PODLIMITS_FRONT_NOLIBC)
long Syscall3(long number, long a, long b, long c) {
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(number), "D"(a), "S"(b), "d"(c)
                   : "rcx", "r11", "memory");
  return result;
}
long Open(const char* path) {
  return Syscall3(SYS_open, reinterpret_cast<long>(path), O_RDONLY | O_CLOEXEC, 0);
}
long Read(long fd, char* buf, size_t n) {
  return Syscall3(SYS_read, fd, reinterpret_cast<long>(buf), static_cast<long>(n));
}
void Close(long fd) {
  Syscall3(SYS_close, fd, 0, 0);
}
long ReadLink(const char* path, char* buf, size_t n) {
  return Syscall3(SYS_readlink, reinterpret_cast<long>(path), reinterpret_cast<long>(buf),
                  static_cast<long>(n));
}
void Exec(const char* path, char** argv, char** envp) {
  Syscall3(SYS_execve, reinterpret_cast<long>(path), reinterpret_cast<long>(argv),
           reinterpret_cast<long>(envp));
}
void Write(const char* s, size_t n) {
  Syscall3(SYS_write, 2, reinterpret_cast<long>(s), static_cast<long>(n));
}
[[noreturn]] void Exit(int code) {
  for (;;) Syscall3(SYS_exit_group, code, 0, 0);
}
#else
}  // namespace
#include <unistd.h>
namespace {
long Open(const char* path) {
  return ::open(path, O_RDONLY | O_CLOEXEC);
}
long Read(long fd, char* buf, size_t n) {
  return ::read(static_cast<int>(fd), buf, n);
}
void Close(long fd) {
  ::close(static_cast<int>(fd));
}
long ReadLink(const char* path, char* buf, size_t n) {
  return ::readlink(path, buf, n);
}
void Exec(const char* path, char** argv, char** envp) {
  ::execve(path, argv, envp);
}
void Write(const char* s, size_t n) {
  (void)!::write(2, s, n);
}
[[noreturn]] void Exit(int code) {
  ::_exit(code);
}
#endif

size_t Length(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

const char* GetEnv(char** envp, const char* name) {
  size_t n = Length(name);
  for (; *envp != nullptr; ++envp) {
    if (SamePrefix(*envp, name, n) && (*envp)[n] == '=') return *envp + n + 1;
  }
  return nullptr;
}

// Reads a whole file of at most `cap` - 1 bytes into `buf`; its length, or -1 (absent, larger,
// unreadable).
long ReadWhole(const char* path, char* buf, size_t cap) {
  long fd = Open(path);
  if (fd < 0) return -1;
  size_t n = 0;
  long result = -1;
  for (;;) {
    long got = Read(fd, buf + n, cap - n);
    if (got < 0) break;
    if (got == 0) {
      result = static_cast<long>(n);
      break;
    }
    n += static_cast<size_t>(got);
    if (n == cap) break;  // cap bytes: more than allowed
  }
  Close(fd);
  return result;
}

// The runtime the full wrapper recorded for this configuration file, if the file still holds the
// bytes it parsed: a path in `record`, or null.
const char* RecordedRuntime(char** envp, char* record) {
  const char* config = GetEnv(envp, kConfigEnv);
  if (config == nullptr || *config == '\0') config = kDefaultConfig;
  char path[kMaxPath];
  if (!RecordPath(config, path, sizeof path)) return nullptr;
  long n = ReadWhole(path, record, kMaxRecord);
  Digest recorded;
  const char* runtime = nullptr;
  if (n <= 0 || !ParseRecord(record, static_cast<size_t>(n), &recorded, &runtime)) return nullptr;
  static char text[kMaxConfig + 1];
  long size = ReadWhole(config, text, sizeof text);
  if (size < 0) return nullptr;
  return DigestOf(text, static_cast<size_t>(size)) == recorded ? runtime : nullptr;
}

[[noreturn]] void FrontMain(int argc, char** argv, char** envp) {
  if (argc > 0 && PassesThrough(argc, argv)) {
    static char record[kMaxRecord];
    if (const char* runtime = RecordedRuntime(envp, record)) {
      argv[0] = const_cast<char*>(runtime);
      Exec(runtime, argv, envp);
      // Not runnable now (removed, replaced): the full wrapper says why.
    }
  }
  // The full wrapper: `podlimits` in this executable's own directory, told by its argv[0] to be
  // podlimits-runc.
  static char full[kMaxPath];
  static constexpr char kFull[] = "podlimits";
  long n = ReadLink("/proc/self/exe", full, sizeof full - sizeof kFull);
  if (n > 0) {
    size_t dir = static_cast<size_t>(n);
    while (dir > 0 && full[dir - 1] != '/') --dir;
    for (size_t i = 0; i < sizeof kFull; ++i) full[dir + i] = kFull[i];
    static char name[] = "podlimits-runc";
    if (argc > 0) argv[0] = name;
    Exec(full, argv, envp);
  }
  static constexpr char kMessage[] =
      "podlimits-runc: cannot run the full wrapper (podlimits, beside podlimits-runc)\n";
  Write(kMessage, sizeof kMessage - 1);
  Exit(127);
}

}  // namespace

#if defined(PODLIMITS_FRONT_NOLIBC)
// The kernel starts the process here: the stack holds argc, argv's pointers, a null, then envp's.
extern "C" [[noreturn]] void FrontStart(long* stack) {
  int argc = static_cast<int>(stack[0]);
  char** argv = reinterpret_cast<char**>(stack + 1);
  FrontMain(argc, argv, argv + argc + 1);
}
// What the compiler may call for a copy or a fill, since no libc provides them here.
extern "C" void* memcpy(void* dst, const void* src, size_t n) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
  return dst;
}
extern "C" void* memset(void* dst, int c, size_t n) {
  auto* d = static_cast<char*>(dst);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<char>(c);
  return dst;
}
__asm__(
    ".globl _start\n"
    "_start:\n"
    "  mov %rsp, %rdi\n"
    "  and $-16, %rsp\n"
    "  call FrontStart\n");
#else
int main(int argc, char** argv, char** envp) {
  FrontMain(argc, argv, envp);
}
#endif
