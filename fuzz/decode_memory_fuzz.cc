// The decoders' memory is bounded by their input: any text through the YAML, JSON or protobuf
// decoder (the first byte picks: 'j' JSON, 'p' protobuf, anything else YAML) may grow the heap by
// at most max(kFloorBytes, kBytesPerInputByte x its length) while it is decoded, accepted or
// refused. Alias bombs are the reason (a 62 KB YAML text that expanded to 200 MB, issue 29);
// the seed corpus is alias-heavy YAML: nested anchor chains, billion laughs, big scalars aliased
// many times, merge keys, aliases as keys.
//
// The heap is counted through the sanitizer allocator's malloc and free hooks rather than a
// replaced operator new: they see every allocation, also those of the C libraries under the
// decoders (libyaml's buffers and token queue, RapidJSON's parse stack, which uses malloc), and
// ASan keeps its own operator new with its new/delete mismatch checks. The count is the bytes
// requested, on this thread only (the decoders allocate on the caller's thread; libFuzzer's own
// threads do not count). A peak over the bound aborts at the allocation that crossed it, so the
// stack trace shows who allocated it.
//
// The largest peak of a run is printed when it ends. With PODLIMITS_DECODE_MEMORY_REPORT set,
// the fuzzer measures instead: every input prints "decoder input-bytes peak-bytes peak/byte
// accepted|refused" on stderr (run the binary on files to measure shapes), and a peak over the
// bound is marked there instead of aborting.
#include <sanitizer/allocator_interface.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "api/protobuf_object.h"
#include "api/schema.h"
#include "codec/json_codec.h"
#include "codec/yaml_codec.h"

namespace {

// The bound, from the worst cases measured per decoder (docs/serve.md, "Decoding limits"; bytes
// requested, 1 MiB of text): a vector that doubles holds three times its elements while they
// move, and the densest texts make an 88-byte Node or a 120-byte Member per 2 bytes. So JSON
// peaks at 133 bytes a byte (`[0,0,...]`), protobuf at 132 (a list of empty messages), YAML at
// 180 (`{a,a,...}`), to which its anchor and alias copies may add 64 (yaml_parse.cc). 256 is
// above the sum, and still what makes a decoder safe in a bounded process: 3 MiB, the largest
// body the servers read, may take at most 768 MiB. The floor covers fixed costs (libyaml's
// buffers, 68 KB; a thread's first scratch) and the YAML copies' own floor of 256 KiB.
constexpr std::int64_t kBytesPerInputByte = 256;
constexpr std::int64_t kFloorBytes = 8 << 20;

struct HeapCount {
  bool counting = false;
  // Relative to the decode's start: freeing memory allocated before it goes below 0.
  std::int64_t live = 0;
  std::int64_t peak = 0;
  std::int64_t limit = 0;
  std::size_t input = 0;
  char decoder = 0;
  bool abort_over_limit = true;
};
thread_local HeapCount heap;

bool Reporting() {
  static const bool report = std::getenv("PODLIMITS_DECODE_MEMORY_REPORT") != nullptr;
  return report;
}

// Called inside malloc: nothing here may allocate.
void Overrun() {
  heap.counting = false;
  char line[256];
  const int n = std::snprintf(line, sizeof line,
                              "decode_memory_fuzz: decoder '%c' grew the heap to %lld bytes for "
                              "%zu input bytes (bound %lld)\n",
                              heap.decoder, static_cast<long long>(heap.peak), heap.input,
                              static_cast<long long>(heap.limit));
  if (n > 0) (void)!write(2, line, static_cast<std::size_t>(std::min<int>(n, sizeof line - 1)));
  std::abort();
}

void OnMalloc(const volatile void*, std::size_t size) {
  if (!heap.counting) return;
  heap.live += static_cast<std::int64_t>(size);
  if (heap.live > heap.peak) {
    heap.peak = heap.live;
    if (heap.peak > heap.limit && heap.abort_over_limit) Overrun();
  }
}

void OnFree(const volatile void* p) {
  if (!heap.counting || p == nullptr) return;
  heap.live -=
      static_cast<std::int64_t>(__sanitizer_get_allocated_size(const_cast<const void*>(p)));
}

// The largest peak of the run, printed at exit.
struct Largest {
  std::int64_t peak = 0;
  std::size_t input = 0;
  char decoder = 0;
  double ratio = 0;  // peak per input byte, over the inputs beyond the floor's reach
  std::size_t ratio_input = 0;
  char ratio_decoder = 0;
};
Largest largest;
struct PrintLargestAtExit {
  ~PrintLargestAtExit() {
    if (largest.peak == 0) return;
    std::fprintf(stderr,
                 "decode_memory_fuzz: largest peak %lld bytes (decoder '%c', %zu input bytes); "
                 "largest per input byte %.1f (decoder '%c', %zu input bytes)\n",
                 static_cast<long long>(largest.peak), largest.decoder, largest.input,
                 largest.ratio, largest.ratio_decoder, largest.ratio_input);
  }
} print_largest_at_exit;

// Decodes; true when the text was accepted.
bool Decode(char decoder, std::string_view text) {
  switch (decoder) {
    case 'j':
      return podlimits::codec::ParseJsonStream(text).has_value();
    case 'p':
      return podlimits::api::DecodeProtobufObject(text, podlimits::api::Schema::Objects())
          .has_value();
    default:
      return podlimits::codec::ParseYamlStream(text).has_value();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (__sanitizer_install_malloc_and_free_hooks(OnMalloc, OnFree) == 0) std::abort();
  (void)podlimits::api::Schema::Objects();  // built once, outside any decode's count
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const char decoder = data[0] == 'j' || data[0] == 'p' ? static_cast<char>(data[0]) : 'y';
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  heap = HeapCount{};
  heap.limit = std::max(kFloorBytes, kBytesPerInputByte * static_cast<std::int64_t>(text.size()));
  heap.input = text.size();
  heap.decoder = decoder;
  heap.abort_over_limit = !Reporting();
  heap.counting = true;
  const bool accepted = Decode(decoder, text);
  heap.counting = false;
  if (heap.peak > largest.peak) {
    largest.peak = heap.peak;
    largest.input = text.size();
    largest.decoder = decoder;
  }
  const double ratio =
      text.empty() ? 0.0 : static_cast<double>(heap.peak) / static_cast<double>(text.size());
  if (text.size() * kBytesPerInputByte > kFloorBytes && ratio > largest.ratio) {
    largest.ratio = ratio;
    largest.ratio_input = text.size();
    largest.ratio_decoder = decoder;
  }
  if (Reporting()) {
    std::fprintf(stderr, "decode_memory: %c %zu %lld %.1f %s%s\n", decoder, text.size(),
                 static_cast<long long>(heap.peak), ratio, accepted ? "accepted" : "refused",
                 heap.peak > heap.limit ? " OVER THE BOUND" : "");
  }
  return 0;
}
