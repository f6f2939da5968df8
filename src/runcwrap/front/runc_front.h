// podlimits-runc's front: the small executable a CRI shim runs as its runtime binary. It hands
// every call that neither creates nor execs (start, delete, kill, state, ...) straight to the
// real runtime, and every other call to the full wrapper (`podlimits`, beside it, called as podlimits-runc).
//
// Why a separate executable: the shim runs its runtime four times per container (create, start,
// delete, delete --force), and each call through the full, glibc-linked wrapper cost about 0.7 ms
// more than the runtime alone, mostly glibc's start-up (its CPUID queries trap to the hypervisor
// on virtual machines). The front makes raw system calls and starts in microseconds.
//
// The front never parses runc.yaml. It takes the runtime from a record the full wrapper writes
// after it has loaded and checked that file, and only when the file names its runtime (the
// default, crun if installed, else runc, depends on more than the file). The record holds the
// file's size and a 64-bit FNV-1a hash of the very bytes the full wrapper parsed, and the
// runtime. The front reads the file (a few hundred bytes) and uses the record only when they
// match; otherwise, with no record, or on anything unexpected, the call goes to the full wrapper,
// which decides as it always did and writes the record again. So the front changes how fast a
// call is made, never what runs, whatever the file's timestamps say.
//
// This header is the front's whole logic, free of the C and C++ libraries (the front links
// neither); the unit tests and the full wrapper include it too, so both sides agree.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace podlimits::runcwrap::front {

// Where the full wrapper writes its records, one per configuration file path.
inline constexpr char kRecordDir[] = "/run/podlimits/runc-front";
inline constexpr char kDefaultConfig[] = "/etc/podlimits/runc.yaml";
inline constexpr char kConfigEnv[] = "PODLIMITS_RUNC_CONFIG";
inline constexpr char kRecordHeader[] = "podlimits-runc-front 2 ";
inline constexpr size_t kMaxPath = 4096;
inline constexpr size_t kMaxRecord = kMaxPath + 256;
// A larger runc.yaml is never matched by the front (the full wrapper reads up to 1 MiB).
inline constexpr size_t kMaxConfig = 64 * 1024;

inline bool Same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

inline bool SamePrefix(const char* s, const char* prefix, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (s[i] != prefix[i]) return false;
  }
  return true;
}

// Whether `name` (an option's name, up to `n` bytes, without dashes) is a global option of runc
// 1.1 or crun 1.8 that takes a value. The one list: ParseRuncCall (runc_args.cc) asks it too.
inline bool GlobalTakesValue(const char* name, size_t n) {
  static constexpr const char* kNames[] = {"log",      "log-format",     "root",     "criu",
                                           "rootless", "cgroup-manager", "log-level"};
  for (const char* k : kNames) {
    size_t len = 0;
    while (k[len] != '\0') ++len;
    if (len == n && SamePrefix(name, k, n)) return true;
  }
  return false;
}

// The index in argv of the command (the first argument after the global options), or -1 when
// there is none. Reads the global options as ParseRuncCall does: `-x`, `--x`, `--x=v`, and
// `--x v` for the options that take a value; `--` or a lone `-` ends them.
inline int CommandIndex(int argc, char** argv) {
  int i = 1;
  for (; i < argc; ++i) {
    const char* a = argv[i];
    if (a[0] != '-' || a[1] == '\0' || (a[1] == '-' && a[2] == '\0')) break;
    const char* name = a + (a[1] == '-' ? 2 : 1);
    size_t n = 0;
    bool attached = false;
    while (name[n] != '\0') {
      if (name[n] == '=') {
        attached = true;
        break;
      }
      ++n;
    }
    if (!attached && GlobalTakesValue(name, n) && i + 1 < argc) ++i;
  }
  return i < argc ? i : -1;
}

// Whether the front may hand the call to the runtime itself: a command that is not create, run
// or exec (an exec'd process gets its container's rlimits: runcwrap/exec_limits.h).
inline bool PassesThrough(int argc, char** argv) {
  int i = CommandIndex(argc, argv);
  return i > 0 && !Same(argv[i], "create") && !Same(argv[i], "run") && !Same(argv[i], "exec");
}

// A bounded text buffer: every Put fails once only the terminating NUL would still fit.
struct Out {
  char* out;
  size_t cap;
  size_t o = 0;

  bool Put(char c) {
    if (o + 1 >= cap) return false;
    out[o++] = c;
    return true;
  }
  bool Text(const char* s) {
    for (; *s != '\0'; ++s) {
      if (!Put(*s)) return false;
    }
    return true;
  }
  size_t End() {
    out[o] = '\0';
    return o;
  }
};

// The record's path for a configuration file: kRecordDir, "/", and the file's path with every
// '%' written "%25" and every '/' written "%2F". False when it would not fit in `cap` bytes.
inline bool RecordPath(const char* config, char* out, size_t cap) {
  Out path{out, cap};
  if (!path.Text(kRecordDir) || !path.Put('/')) return false;
  for (const char* p = config; *p != '\0'; ++p) {
    if (*p == '/' || *p == '%') {
      if (!path.Put('%') || !path.Put('2') || !path.Put(*p == '/' ? 'F' : '5')) return false;
    } else if (!path.Put(*p)) {
      return false;
    }
  }
  path.End();
  return true;
}

// The configuration file's bytes, as the full wrapper parsed them: their count and their 64-bit
// FNV-1a hash.
struct Digest {
  uint64_t size = 0, hash = 0;

  bool operator==(const Digest&) const = default;
};

inline Digest DigestOf(const char* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325u;  // FNV-1a's offset basis and prime
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3u;
  }
  return Digest{n, h};
}

// A record: "podlimits-runc-front 2 SIZE HASH RUNTIME\n", the numbers in decimal. Returns the
// length written, 0 when it does not fit or the runtime is not an absolute path without newlines.
inline size_t FormatRecord(const Digest& digest, const char* runtime, char* out, size_t cap) {
  Out record{out, cap};
  auto number = [&](uint64_t v) {
    char digits[20];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) {
      if (!record.Put(digits[--n])) return false;
    }
    return record.Put(' ');
  };
  if (runtime[0] != '/') return 0;
  for (const char* p = runtime; *p != '\0'; ++p) {
    if (*p == '\n') return 0;
  }
  if (!record.Text(kRecordHeader) || !number(digest.size) || !number(digest.hash)) return 0;
  if (!record.Text(runtime) || !record.Put('\n')) return 0;
  return record.End();
}

// Reads a record of `n` bytes in `text` (changed in place: the runtime is NUL-terminated where its
// newline was). False for anything that is not exactly what FormatRecord writes.
inline bool ParseRecord(char* text, size_t n, Digest* digest, const char** runtime) {
  constexpr size_t kHeaderLength = sizeof(kRecordHeader) - 1;
  if (n < kHeaderLength || !SamePrefix(text, kRecordHeader, kHeaderLength)) return false;
  size_t i = kHeaderLength;
  uint64_t* fields[] = {&digest->size, &digest->hash};
  for (uint64_t* field : fields) {
    uint64_t v = 0;
    size_t digits = 0;
    while (i < n && text[i] >= '0' && text[i] <= '9') {
      const auto d = static_cast<uint64_t>(text[i++] - '0');
      if (v > (UINT64_MAX - d) / 10) return false;  // more than 64 bits
      v = v * 10 + d;
      ++digits;
    }
    if (digits == 0 || i >= n || text[i] != ' ') return false;
    ++i;
    *field = v;
  }
  if (i >= n || text[i] != '/') return false;
  size_t start = i;
  while (i < n && text[i] != '\n') {
    if (text[i] == '\0') return false;
    ++i;
  }
  if (i + 1 != n) return false;  // exactly one line, ending in its newline
  text[i] = '\0';
  *runtime = text + start;
  return true;
}

}  // namespace podlimits::runcwrap::front
