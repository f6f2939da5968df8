// SerializeSpec: what each optional part of the Spec struct becomes in config.json, and that
// unset parts stay out of it (the runtime's own default then applies).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdint>
#include <functional>

#include "cri/spec.h"

namespace podlimits::cri {
namespace {

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

TEST(SerializeSpec, UnsetPartsAreLeftOut) {
  Spec spec;
  auto d = Parse(SerializeSpec(spec));
  EXPECT_STREQ(d["ociVersion"].GetString(), "1.0.2");
  EXPECT_FALSE(d.HasMember("hostname"));
  EXPECT_FALSE(d["process"].HasMember("capabilities"));
  EXPECT_FALSE(d["process"].HasMember("apparmorProfile"));
  for (const char* key : {"resources", "sysctl", "seccomp", "maskedPaths", "readonlyPaths",
                          "mountLabel", "rootfsPropagation"}) {
    EXPECT_FALSE(d["linux"].HasMember(key)) << key;
  }
  EXPECT_FALSE(d.HasMember("annotations"));
}

struct Case {
  const char* name;
  std::function<void(Spec&)> set;
  std::function<void(const rapidjson::Document&)> check;
};

TEST(SerializeSpec, Parts) {
  const Case cases[] = {
      {"rlimit infinity as an exact uint64",
       [](Spec& s) {
         s.process.rlimits = {{"RLIMIT_CORE", UINT64_MAX, UINT64_MAX}};
       },
       [](const rapidjson::Document& d) {
         EXPECT_EQ(d["process"]["rlimits"][0]["soft"].GetUint64(), UINT64_MAX);
         EXPECT_STREQ(d["process"]["rlimits"][0]["type"].GetString(), "RLIMIT_CORE");
       }},
      {"a namespace to join has its path",
       [](Spec& s) {
         s.linux.namespaces = {{"network", "/proc/42/ns/net"}, {"mount", ""}};
       },
       [](const rapidjson::Document& d) {
         EXPECT_STREQ(d["linux"]["namespaces"][0]["path"].GetString(), "/proc/42/ns/net");
         EXPECT_FALSE(d["linux"]["namespaces"][1].HasMember("path"));
       }},
      {"unified resources",
       [](Spec& s) {
         s.linux.unified = {{"memory.max", "1048576"}};
       },
       [](const rapidjson::Document& d) {
         EXPECT_STREQ(d["linux"]["resources"]["unified"]["memory.max"].GetString(), "1048576");
       }},
      {"sysctl",
       [](Spec& s) {
         s.linux.sysctl = {{"net.ipv4.ping_group_range", "0 1"}};
       },
       [](const rapidjson::Document& d) {
         EXPECT_STREQ(d["linux"]["sysctl"]["net.ipv4.ping_group_range"].GetString(), "0 1");
       }},
      {"seccomp with an errno and an argument condition",
       [](Spec& s) {
         s.linux.seccomp = SpecSeccomp{
             "SCMP_ACT_ERRNO",
             38,
             {"SCMP_ARCH_X86_64"},
             {},
             {{{"personality"}, "SCMP_ACT_ALLOW", std::nullopt, {{0, 8, 0, "SCMP_CMP_EQ"}}}}};
       },
       [](const rapidjson::Document& d) {
         const auto& sc = d["linux"]["seccomp"];
         EXPECT_STREQ(sc["defaultAction"].GetString(), "SCMP_ACT_ERRNO");
         EXPECT_EQ(sc["defaultErrnoRet"].GetUint(), 38u);
         EXPECT_STREQ(sc["syscalls"][0]["names"][0].GetString(), "personality");
         EXPECT_EQ(sc["syscalls"][0]["args"][0]["value"].GetUint64(), 8u);
         EXPECT_FALSE(sc["syscalls"][0]["args"][0].HasMember("valueTwo"));
         EXPECT_FALSE(sc.HasMember("flags"));
       }},
      {"apparmor and selinux",
       [](Spec& s) {
         s.process.apparmor_profile = "cri-containerd.apparmor.d";
         s.process.selinux_label = "system_u:system_r:container_t:s0";
       },
       [](const rapidjson::Document& d) {
         EXPECT_STREQ(d["process"]["apparmorProfile"].GetString(), "cri-containerd.apparmor.d");
         EXPECT_STREQ(d["process"]["selinuxLabel"].GetString(), "system_u:system_r:container_t:s0");
       }},
      {"hostname and annotations",
       [](Spec& s) {
         s.hostname = "web";
         s.annotations = {{"io.kubernetes.cri.container-type", "container"}};
       },
       [](const rapidjson::Document& d) {
         EXPECT_STREQ(d["hostname"].GetString(), "web");
         EXPECT_STREQ(d["annotations"]["io.kubernetes.cri.container-type"].GetString(),
                      "container");
       }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Spec spec;
    c.set(spec);
    c.check(Parse(SerializeSpec(spec)));
  }
}

TEST(SpecFindNamespace, FindsByType) {
  Spec spec;
  spec.linux.namespaces = {{"pid", ""}, {"network", ""}};
  ASSERT_NE(spec.FindNamespace("network"), nullptr);
  spec.FindNamespace("network")->path = "/proc/1/ns/net";
  EXPECT_EQ(spec.linux.namespaces[1].path, "/proc/1/ns/net");
  EXPECT_EQ(spec.FindNamespace("uts"), nullptr);
}

}  // namespace
}  // namespace podlimits::cri
