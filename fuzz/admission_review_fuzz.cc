// The webhook's review path: any body reaches AnswerReview on /validate or /mutate (the first
// byte picks) and gets an answer: a 200 with an AdmissionReview whose response carries the
// request's uid and says allowed or not, or a 400 Status. Never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "codec/json_codec.h"
#include "webhook/admission_review.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const podlimits::webhook::ReviewPolicy policy;
  const auto mode = data[0] & 1 ? podlimits::webhook::ReviewMode::kMutate
                                : podlimits::webhook::ReviewMode::kValidate;
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  const podlimits::webhook::ReviewAnswer answer = podlimits::webhook::AnswerReview(body, mode, policy);
  auto parsed = podlimits::codec::ParseJsonStream(answer.body);
  if (!parsed || parsed->size() != 1) std::abort();
  const podlimits::codec::Node& out = (*parsed)[0];
  const podlimits::codec::Node* kind = out.Find("kind");
  if (answer.http_status == 400) {
    if (kind == nullptr || kind->scalar != "Status") std::abort();
    return 0;
  }
  if (answer.http_status != 200 || kind == nullptr || kind->scalar != "AdmissionReview") std::abort();
  const podlimits::codec::Node* allowed = out.FindPath({"response", "allowed"});
  if (allowed == nullptr || allowed->AsBool() != answer.allowed) std::abort();
  return 0;
}
