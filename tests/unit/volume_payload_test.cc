// The files of configMap, secret, downwardAPI and projected volumes, and the AtomicWriter layout.
#include "kubelet/volumes/volume_payload.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "temp_dir.h"
#include "test_support.h"

namespace podlimits::kubelet {
namespace {

namespace fs = std::filesystem;

StaticObjectSource Objects() {
  StaticObjectSource objects;
  api::ConfigMap cm;
  cm.metadata = {"app", "", "default", "", {}, {}};
  cm.data = {{"a.conf", "A"}, {"b", "B"}};
  cm.binary_data = {{"bin", std::string("\0\1", 2)}};
  objects.Add(cm);
  api::Secret s;
  s.metadata = {"creds", "", "default", "", {}, {}};
  s.data = {{"password", "pw"}, {"user", "u"}};
  objects.Add(s);
  return objects;
}

struct PayloadOutcome {
  Payload payload;
  std::string error;
};

PayloadOutcome PayloadOf(const std::string& volumes_yaml) {
  static const StaticObjectSource objects = Objects();
  api::Pod pod = testing::DefaultedPod(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {app: web, tier: \"1\"},"
      " annotations: {note: 'say \"hi\"'}}\nspec:\n"
      "  containers:\n  - {name: main, image: i, resources: {limits: {cpu: 1500m}}}\n"
      "  volumes:\n  - " + volumes_yaml + "\n");
  PayloadContext ctx;
  ctx.pod = &pod;
  ctx.objects = &objects;
  ctx.allocatable = {{"cpu", *resource::Quantity::Parse("4")},
                     {"memory", *resource::Quantity::Parse("1Gi")}};
  ctx.kubelet_annotations = {{"kubernetes.io/config.source", "api"}};
  auto r = VolumePayload(pod.spec.volumes[0], ctx);
  if (!r) return {{}, r.error().Message()};
  return {*r, ""};
}

TEST(VolumePayload, Sources) {
  struct Case {
    const char* name;
    std::string volume;
    Payload want;
    std::string error = {};
  };
  const Case cases[] = {
      {"configMap: every key of data and binaryData, defaultMode 0644",
       "{name: v, configMap: {name: app}}",
       {{"a.conf", {"A", 0644}}, {"b", {"B", 0644}}, {"bin", {std::string("\0\1", 2), 0644}}}},
      {"configMap items with paths and modes",
       "{name: v, configMap: {name: app, defaultMode: 0400, items: [{key: b, path: dir/b.txt},"
       " {key: bin, path: x, mode: 0600}]}}",
       {{"dir/b.txt", {"B", 0400}}, {"x", {std::string("\0\1", 2), 0600}}}},
      {"configMap missing", "{name: v, configMap: {name: none}}", {},
       "configmap \"none\" not found"},
      {"configMap optional and missing: empty", "{name: v, configMap: {name: none, optional: true}}",
       {}},
      {"configMap item missing",
       "{name: v, configMap: {name: app, items: [{key: nokey, path: x}]}}", {},
       "configmap references non-existent config key: nokey"},
      {"configMap optional item missing is skipped",
       "{name: v, configMap: {name: app, optional: true, items: [{key: nokey, path: x},"
       " {key: b, path: why}]}}",
       {{"why", {"B", 0644}}}},
      {"secret", "{name: v, secret: {secretName: creds, defaultMode: 0440}}",
       {{"password", {"pw", 0440}}, {"user", {"u", 0440}}}},
      {"secret item missing", "{name: v, secret: {secretName: creds, items: [{key: k, path: k}]}}",
       {},
       "references non-existent secret key: k"},
      {"downwardAPI: metadata maps formatted as the kubelet does",
       "{name: v, downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}},"
       " {path: ann, fieldRef: {fieldPath: metadata.annotations}},"
       " {path: ./sub/name, fieldRef: {fieldPath: metadata.name}, mode: 0400},"
       " {path: tier, fieldRef: {fieldPath: \"metadata.labels['tier']\"}},"
       " {path: cpu, resourceFieldRef: {containerName: main, resource: limits.cpu, divisor: 1m}},"
       " {path: mem, resourceFieldRef: {containerName: main, resource: limits.memory}}]}}",
       {{"labels", {"app=\"web\"\ntier=\"1\"", 0644}},
        {"ann", {"kubernetes.io/config.source=\"api\"\nnote=\"say \\\"hi\\\"\"", 0644}},
        {"sub/name", {"web", 0400}},
        {"tier", {"1", 0644}},
        {"cpu", {"1500", 0644}},
        {"mem", {"1073741824", 0644}}}},
      {"downwardAPI errors are gathered",
       "{name: v, downwardAPI: {items: [{path: a, fieldRef: {fieldPath: spec.nodeName}},"
       " {path: b, resourceFieldRef: {containerName: other, resource: limits.cpu}}]}}",
       {},
       "[unsupported fieldPath: spec.nodeName, container other not found]"},
      {"projected: sources merged in order",
       "{name: v, projected: {defaultMode: 0600, sources: ["
       "{configMap: {name: app, items: [{key: b, path: same}]}},"
       " {secret: {name: creds, items: [{key: user, path: same}]}},"
       " {downwardAPI: {items: [{path: ns, fieldRef: {fieldPath: metadata.namespace}}]}}]}}",
       {{"same", {"u", 0600}}, {"ns", {"default", 0600}}}},
      {"projected: every source's error",
       "{name: v, projected: {sources: [{configMap: {name: none}}, {secret: {name: none}}]}}", {},
       "[configmap \"none\" not found, secret \"none\" not found]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    PayloadOutcome got = PayloadOf(c.volume);
    EXPECT_EQ(got.error, c.error);
    if (c.error.empty()) {
      EXPECT_EQ(got.payload, c.want);
    }
  }
}

TEST(VolumePayload, PathsStayInsideTheVolume) {
  struct Case {
    std::string path;
    std::string error;
  };
  const Case cases[] = {
      {"a/b", ""},
      {"..a", "invalid path: must not start with '..': ..a"},
      {"a/../b", "invalid path: must not contain '..': a/../b"},
      {"/etc/passwd", "invalid path: must be relative path: /etc/passwd"},
      {"", "invalid path: must not be empty: \"\""},
      {std::string(256, 'x'), "invalid path: filenames must be less than or equal to 255 characters"},
  };
  for (const auto& c : cases) {
    auto r = ValidatePayloadPath(c.path);
    EXPECT_EQ(r ? "" : r.error().Message(), c.error) << c.path;
  }
}

TEST(VolumePayload, WritesTheAtomicWriterLayout) {
  testing::TempDir dir("payload");
  const Payload payload = {{"a.conf", {"A", 0640}}, {"d/e", {"E", 0400}}, {"d/f", {"F", 0644}}};
  const auto now = std::chrono::system_clock::from_time_t(1700000000);  // 2023-11-14 22:13:20 UTC
  const gid_t gid = getgid();
  ASSERT_TRUE(WritePayload(dir.path(), payload, gid, now).has_value());

  const fs::path data = dir.path() / "..data";
  ASSERT_TRUE(fs::is_symlink(data));
  const std::string stamp = fs::read_symlink(data).string();
  EXPECT_TRUE(stamp.starts_with("..2023_11_14_22_13_20.")) << stamp;
  EXPECT_EQ(fs::read_symlink(dir.path() / "a.conf"), "..data/a.conf");
  EXPECT_EQ(fs::read_symlink(dir.path() / "d"), "..data/d");
  std::ifstream e(dir.path() / "d" / "e");
  std::string text;
  e >> text;
  EXPECT_EQ(text, "E");
  struct stat st {};
  ASSERT_EQ(stat((dir.path() / stamp / "d" / "e").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0440u);  // 0400 plus group read for fsGroup
  EXPECT_EQ(st.st_gid, gid);
  ASSERT_EQ(stat((dir.path() / stamp / "a.conf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  ASSERT_EQ(stat((dir.path() / stamp / "d").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 02755u);  // setgid, group search

  // A bad path is refused before anything is written.
  testing::TempDir other("payload-bad");
  auto bad = WritePayload(other.path(), {{"ok", {"x", 0644}}, {"../escape", {"x", 0644}}},
                          std::nullopt, now);
  ASSERT_FALSE(bad.has_value());
  EXPECT_TRUE(fs::is_empty(other.path()));
}

}  // namespace
}  // namespace podlimits::kubelet
