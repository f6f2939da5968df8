// The continue tokens of paged lists, in the apiserver's format (k8s.io/apiserver/pkg/storage/
// continue.go), so a client that looks inside one (some do, to log or compare them) finds what
// it would find from kube-apiserver:
//
//   base64url, unpadded, of {"v":"meta.k8s.io/v1","rv":REVISION,"start":"KEY\u0000"}
//
// KEY is the last item's key below the list's key prefix (`ns/name` for a list over every
// namespace, `name` otherwise); the NUL makes the next page start just after it. REVISION is the
// revision every page of the list shows; -1 means "the newest", what a token handed out with a
// 410 for an expired one carries (upstream's inconsistent continuation).
//
// Decoding answers DecodeContinue's errors word for word (the caller prefixes "invalid continue
// token: "): base64 errors as Go's decoder words them, JSON errors as encoding/json's, a version
// other than meta.k8s.io/v1, a revision of 0, an empty start key, or one that path.Clean would
// change (`../x`, `a//b`: the start may not reach outside the list's prefix).
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits::apiserver {

struct ContinueToken {
  std::int64_t revision = 0;  // > 0: the list's revision; < 0: the newest
  std::string start;          // the start key below the prefix, without a leading '/'
};

std::string EncodeContinueToken(std::string_view start, std::int64_t revision);

// The token, or the error's message ("continue key is not valid: ...").
Result<ContinueToken> DecodeContinueToken(std::string_view text);

}  // namespace podlimits::apiserver
