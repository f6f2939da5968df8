// Image names and digests: the strings that become keys and file names in the store.
#include <gtest/gtest.h>

#include "image/digest.h"
#include "image/name.h"

namespace podlimits::image {
namespace {

TEST(ImageName, ParsesLikeDocker) {
  struct Case {
    const char* in;
    const char* want;  // normalized, or nullptr when invalid
  };
  const Case cases[] = {
      {"busybox", "busybox:latest"},
      {"busybox:1.36", "busybox:1.36"},
      {"library/busybox:musl", "library/busybox:musl"},
      {"registry.local:5000/team/app", "registry.local:5000/team/app:latest"},
      {"registry.local:5000/team/app:v1.2-rc_3", "registry.local:5000/team/app:v1.2-rc_3"},
      {"localhost/app:dev", "localhost/app:dev"},
      {"Registry.Example/app", "Registry.Example/app:latest"},
      {"a__b/c.d-e---f:x", "a__b/c.d-e---f:x"},
      {"", nullptr},
      {"Busybox", nullptr},
      {"busybox:", nullptr},
      {"busybox:-x", nullptr},
      {"busybox:a/b", nullptr},
      {"bad..name", nullptr},
      {"-bad", nullptr},
      {"trailing-", nullptr},
      {"a//b", nullptr},
      {"busybox@sha256:0123", nullptr},
      {"../etc:x", nullptr},
      {"host:port/app", nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    auto name = ParseImageName(c.in);
    if (c.want == nullptr) {
      ASSERT_FALSE(name) << name->String();
      EXPECT_TRUE(name.error().Message().starts_with("invalid image name"))
          << name.error().Message();
    } else {
      ASSERT_TRUE(name) << name.error();
      EXPECT_EQ(name->String(), c.want);
    }
  }
  EXPECT_NE(
      ParseImageName("x@sha256:ab").error().Message().find("digest references are not supported"),
      std::string::npos);
  EXPECT_FALSE(ParseImageName("busybox:" + std::string(129, 't')));
  EXPECT_TRUE(ParseImageName("busybox:" + std::string(128, 't')));
}

TEST(ImageDigest, ParsesOnlyExactDigests) {
  const std::string hex(64, 'a');
  struct Case {
    std::string in;
    bool ok;
  };
  const Case cases[] = {
      {"sha256:" + hex, true},
      {"sha512:" + std::string(128, '0'), true},
      {"sha256:" + std::string(63, 'a'), false},
      {"sha256:" + std::string(64, 'A'), false},
      {"sha256:../../../../etc/passwd" + std::string(36, 'a'), false},
      {"md5:" + std::string(32, 'a'), false},
      {hex, false},
      {"sha256:", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    auto d = ParseDigest(c.in);
    EXPECT_EQ(d.has_value(), c.ok) << (d ? d->String() : d.error().Message());
  }
  EXPECT_EQ(ParseDigest("sha256:" + hex)->BlobPath(), "blobs/sha256/" + hex);
}

TEST(ImageDigest, HashesIncrementally) {
  EXPECT_EQ(ComputeDigest("sha256", "abc").String(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  DigestHasher h("sha256");
  h.Update("a");
  h.Update("");
  h.Update("bc");
  EXPECT_EQ(h.Finish(), ComputeDigest("sha256", "abc"));
  EXPECT_EQ(ComputeDigest("sha512", "").hex.substr(0, 16), "cf83e1357eefb8bd");
}

}  // namespace
}  // namespace podlimits::image
