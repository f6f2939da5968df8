// RenderOciSpec: each rule of runtime/oci_spec.h as a table of named cases. The produced
// config.json is parsed back with RapidJSON and its fields are checked.
#include "cri/oci_spec.h"
#include "cri/oci_process.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <stdlib.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cri/oci_capabilities.h"
#include "kubelet/volumes/container_env.h"
#include "test_support.h"

namespace podlimits::cri {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

// A container root with an /etc/passwd and /etc/group, removed again at the end of the test.
class TempRootfs {
 public:
  TempRootfs() {
    std::string tmpl = (fs::temp_directory_path() / "oci-spec-test-XXXXXX").string();
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
    path_ = tmpl;
  }
  ~TempRootfs() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempRootfs(const TempRootfs&) = delete;
  TempRootfs& operator=(const TempRootfs&) = delete;

  const fs::path& path() const { return path_; }

  void Write(const std::string& rel, const std::string& content) const {
    fs::create_directories((path_ / rel).parent_path());
    std::ofstream(path_ / rel) << content;
  }

  // The image database most user cases resolve against.
  void WriteUserDb() const {
    Write("etc/passwd",
          "# comment lines and malformed lines are skipped\n"
          "root:x:0:0:root:/root:/bin/sh\n"
          "broken line\n"
          "app:x:1000:1001:app:/home/app:/bin/sh\n"
          "nobody:x:65534:65534:nobody:/:/bin/false\n");
    Write("etc/group",
          "root:x:0:\n"
          "wheel:x:10:root\n"
          "audio:x:29:other,app\n"
          "staff:x:50:\n"
          "app:x:1001:app\n");
  }

 private:
  fs::path path_;
};

api::Pod PodWithSpec(std::string_view spec, std::string_view name = "web") {
  std::string yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: " + std::string(name) +
                     "}\nspec:\n" + std::string(spec);
  return podlimits::testing::DefaultedPod(yaml);
}

// Every capability this build knows, minus CAP_SYS_RESOURCE: what root holds on this project's
// machines (CapBnd 000001fffeffffff).
Strings HostCapabilities() {
  Strings out = CapabilityNamesFromMask(0x1fffeffffffULL);
  EXPECT_EQ(out.size(), 40u);
  return out;
}

ContainerSpecInput Input(const api::Pod& pod, const api::Container& c, const fs::path& rootfs) {
  ContainerSpecInput in;
  in.pod = &pod;
  in.container = &c;
  in.image.cmd = {"/bin/sh"};
  in.rootfs = rootfs;
  in.cgroups_path = "/kubepods/besteffort/pod1234/abcd";
  in.host_capabilities = HostCapabilities();
  in.hostname = pod.metadata.name;
  // The environment as the kubelet resolves it before the spec is built.
  kubelet::EnvContext env;
  env.pod = &pod;
  env.node_name = "node-a";
  if (auto resolved = kubelet::MakeEnvironmentVariables(env, c)) in.env = std::move(resolved->env);
  return in;
}

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  EXPECT_FALSE(doc.HasParseError()) << json;
  return doc;
}

const rapidjson::Value* At(const rapidjson::Value& doc, const char* pointer) {
  return rapidjson::Pointer(pointer).Get(doc);
}

Strings StringsAt(const rapidjson::Value& doc, const char* pointer) {
  Strings out;
  const rapidjson::Value* v = At(doc, pointer);
  if (v == nullptr || !v->IsArray()) {
    ADD_FAILURE() << pointer << " is not an array";
    return out;
  }
  for (const auto& s : v->GetArray()) out.emplace_back(s.GetString());
  return out;
}

std::vector<std::uint32_t> UintsAt(const rapidjson::Value& doc, const char* pointer) {
  std::vector<std::uint32_t> out;
  const rapidjson::Value* v = At(doc, pointer);
  if (v == nullptr || !v->IsArray()) {
    ADD_FAILURE() << pointer << " is not an array";
    return out;
  }
  for (const auto& n : v->GetArray()) out.push_back(n.GetUint());
  return out;
}

// The mount at `destination`, or nullptr.
const rapidjson::Value* MountAt(const rapidjson::Value& doc, std::string_view destination) {
  for (const auto& m : doc["mounts"].GetArray()) {
    if (m["destination"].GetString() == destination) return &m;
  }
  return nullptr;
}

Strings NamespaceTypes(const rapidjson::Value& doc) {
  Strings out;
  for (const auto& ns : doc["linux"]["namespaces"].GetArray()) {
    out.emplace_back(ns["type"].GetString());
    EXPECT_FALSE(ns.HasMember("path"));
  }
  return out;
}

std::string NodeHostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  EXPECT_EQ(gethostname(buf, sizeof buf - 1), 0);
  return buf;
}

const Strings kDefaultCaps = {
    "CAP_CHOWN",      "CAP_DAC_OVERRIDE", "CAP_FOWNER",      "CAP_FSETID",           "CAP_KILL",
    "CAP_SETGID",     "CAP_SETUID",       "CAP_SETPCAP",     "CAP_NET_BIND_SERVICE", "CAP_NET_RAW",
    "CAP_SYS_CHROOT", "CAP_MKNOD",        "CAP_AUDIT_WRITE", "CAP_SETFCAP",
};  // in capability-number order, as rendered

const std::string kDefaultPath =
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

TEST(OciSpec, DocumentBasics) {
  TempRootfs root;
  api::Pod pod = PodWithSpec("  containers: [{name: app, image: busybox}]\n");
  auto json = RenderOciSpec(Input(pod, pod.spec.containers[0], root.path()));
  ASSERT_TRUE(json) << json.error();
  auto doc = Parse(*json);
  EXPECT_STREQ(doc["ociVersion"].GetString(), "1.0.2");
  EXPECT_TRUE(doc["process"]["terminal"].IsFalse());
  EXPECT_EQ(doc["root"]["path"].GetString(), root.path().string());
  EXPECT_TRUE(doc["root"]["readonly"].IsFalse());
  EXPECT_STREQ(doc["linux"]["cgroupsPath"].GetString(), "/kubepods/besteffort/pod1234/abcd");
  // The pod's pids.max lives on the pod cgroup; nothing is set per container.
  EXPECT_FALSE(doc["linux"].HasMember("resources"));
}

TEST(OciSpec, Args) {
  struct Case {
    const char* name;
    std::string spec;  // the container, and what follows it in the pod spec
    image::ImageConfig image;
    Strings want;
  };
  const Case cases[] = {
      {"image entrypoint and cmd",
       "{name: app, image: i}",
       {{"/ep"}, {"c1", "c2"}, {}, "", ""},
       {"/ep", "c1", "c2"}},
      {"image cmd only", "{name: app, image: i}", {{}, {"/bin/sh"}, {}, "", ""}, {"/bin/sh"}},
      {"args replace cmd, keep entrypoint",
       "{name: app, image: i, args: [a1]}",
       {{"/ep"}, {"c1"}, {}, "", ""},
       {"/ep", "a1"}},
      {"command replaces entrypoint and drops cmd",
       "{name: app, image: i, command: [/cmd]}",
       {{"/ep"}, {"c1"}, {}, "", ""},
       {"/cmd"}},
      {"command and args",
       "{name: app, image: i, command: [/cmd], args: [a1, a2]}",
       {{"/ep"}, {"c1"}, {}, "", ""},
       {"/cmd", "a1", "a2"}},
      {"empty-string entrypoint means none",
       "{name: app, image: i}",
       {{""}, {"/bin/sh"}, {}, "", ""},
       {"/bin/sh"}},
      {"$(VAR) expanded from the container env",
       "{name: app, image: i, env: [{name: A, value: x}], command: [sh, -c, \"echo $(A)\"],"
       " args: [\"$(A)-$(MISSING)\", \"$$(A)\", \"$(A\", \"$x\"]}",
       {},
       {"sh", "-c", "echo x", "x-$(MISSING)", "$(A)", "$(A", "$x"}},
      {"image env does not expand $(VAR)",
       "{name: app, image: i, args: [\"$(IMG)\"]}",
       {{}, {}, {"IMG=1"}, "", ""},
       {"$(IMG)"}},
  };
  for (const auto& c : cases) {
    // One lambda per case: a failed ASSERT ends that case, not the rest of the table.
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec("  containers:\n  - " + c.spec + "\n");
      ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
      in.image = c.image;
      auto json = RenderOciSpec(in);
      ASSERT_TRUE(json) << json.error();
      EXPECT_EQ(StringsAt(Parse(*json), "/process/args"), c.want);
    }();
  }
}

TEST(OciSpec, ArgsEmptyIsAnErrorNamingTheContainer) {
  struct Case {
    const char* name;
    std::string spec;
    std::function<const api::Container&(const api::Pod&)> pick;
    std::string want;
    image::ImageConfig image = {};
  };
  const std::string tail =
      ": no command: the image has neither Entrypoint nor Cmd and the container sets no command";
  const Case cases[] = {
      {"container", "  containers: [{name: a, image: i}, {name: b, image: i}]\n",
       [](const api::Pod& p) -> const api::Container& { return p.spec.containers[1]; },
       "spec.containers[1]" + tail},
      {"init container",
       "  initContainers: [{name: setup, image: i}]\n  containers: [{name: a, image: i}]\n",
       [](const api::Pod& p) -> const api::Container& { return p.spec.init_containers[0]; },
       "spec.initContainers[0]" + tail},
      {"ephemeral container",
       "  containers: [{name: a, image: i}]\n  ephemeralContainers: [{name: dbg, image: i}]\n",
       [](const api::Pod& p) -> const api::Container& { return p.spec.ephemeral_containers[0]; },
       "spec.ephemeralContainers[0]" + tail},
      {"entrypoint [\"\"] and no cmd", "  containers: [{name: a, image: i}]\n",
       [](const api::Pod& p) -> const api::Container& { return p.spec.containers[0]; },
       "spec.containers[0]" + tail, image::ImageConfig{{""}, {}, {}, "", ""}},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec(c.spec);
      ContainerSpecInput in = Input(pod, c.pick(pod), root.path());
      in.image = c.image;
      auto json = RenderOciSpec(in);
      ASSERT_FALSE(json);
      EXPECT_EQ(json.error().Message(), c.want);
    }();
  }
}

TEST(OciSpec, Env) {
  struct Case {
    const char* name;
    std::string spec;  // pod spec
    Strings image_env;
    Strings want;
  };
  const Case cases[] = {
      {"PATH defaulted, HOSTNAME is the pod name",
       "  containers: [{name: app, image: i}]\n",
       {},
       {kDefaultPath, "HOSTNAME=web"}},
      {"image PATH replaces the default in place",
       "  containers: [{name: app, image: i}]\n",
       {"PATH=/img/bin", "LANG=C"},
       {"PATH=/img/bin", "HOSTNAME=web", "LANG=C"}},
      {"container env overrides the image by name, in place",
       "  containers: [{name: app, image: i, env: [{name: LANG, value: C.UTF-8},"
       " {name: NEW, value: \"1\"}]}]\n",
       {"LANG=C", "TZ=UTC"},
       {kDefaultPath, "HOSTNAME=web", "LANG=C.UTF-8", "TZ=UTC", "NEW=1"}},
      {"container PATH wins over image and default",
       "  containers: [{name: app, image: i, env: [{name: PATH, value: /c}]}]\n",
       {"PATH=/img"},
       {"PATH=/c", "HOSTNAME=web"}},
      {"later container entry wins, $(VAR) of earlier entries expanded",
       "  containers: [{name: app, image: i, env: [{name: A, value: a}, {name: B, value:"
       " \"$(A)-$(C)\"}, {name: A, value: z}, {name: E, value: \"\"}]}]\n",
       {},
       {kDefaultPath, "HOSTNAME=web", "A=z", "B=a-$(C)", "E="}},
      {"fieldRef: the pod's fields, not expanded; a missing label is empty",
       "  containers: [{name: app, image: i, env: [{name: NAME, valueFrom: {fieldRef:"
       " {fieldPath: metadata.name}}}, {name: NS, valueFrom: {fieldRef: {fieldPath:"
       " metadata.namespace}}}, {name: T, valueFrom: {fieldRef: {fieldPath:"
       " \"metadata.labels['tier']\"}}}, {name: X, valueFrom: {fieldRef: {fieldPath:"
       " \"metadata.annotations['none']\"}}}, {name: R, value: \"$(NAME).$(NS)\"},"
       " {name: SA, valueFrom: {fieldRef: {fieldPath: spec.serviceAccountName}}}]}]\n"
       "  serviceAccountName: builder\n",
       {},
       {kDefaultPath, "HOSTNAME=web", "NAME=web", "NS=default", "T=", "X=", "R=web.default",
        "SA=builder"}},
      {"an entry without value or valueFrom is empty",
       "  containers: [{name: app, image: i, env: [{name: EMPTY}]}]\n",
       {},
       {kDefaultPath, "HOSTNAME=web", "EMPTY="}},
      {"hostNetwork: HOSTNAME is the node's",
       "  hostNetwork: true\n  containers: [{name: app, image: i}]\n",
       {},
       {kDefaultPath, "HOSTNAME=" + NodeHostname()}},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec(c.spec);
      ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
      in.image.env = c.image_env;
      auto json = RenderOciSpec(in);
      ASSERT_TRUE(json) << json.error();
      EXPECT_EQ(StringsAt(Parse(*json), "/process/env"), c.want);
    }();
  }
}

TEST(OciSpec, Cwd) {
  struct Case {
    const char* name;
    std::string container;
    std::string image_dir;
    std::string want;  // the cwd, or the error
    bool ok;
  };
  const Case cases[] = {
      {"default /", "{name: app, image: i}", "", "/", true},
      {"image WorkingDir", "{name: app, image: i}", "/srv", "/srv", true},
      {"workingDir wins", "{name: app, image: i, workingDir: /work}", "/srv", "/work", true},
      {"relative workingDir", "{name: app, image: i, workingDir: work}", "",
       "spec.containers[0].workingDir: \"work\" is not an absolute path", false},
      {"relative image WorkingDir", "{name: app, image: i}", "srv",
       "spec.containers[0]: image WorkingDir \"srv\" is not an absolute path", false},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec("  containers:\n  - " + c.container + "\n");
      ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
      in.image.working_dir = c.image_dir;
      auto json = RenderOciSpec(in);
      ASSERT_EQ(json.has_value(), c.ok) << (json ? *json : json.error().Message());
      if (c.ok) {
        EXPECT_EQ(Parse(*json)["process"]["cwd"].GetString(), c.want);
      } else {
        EXPECT_EQ(json.error().Message(), c.want);
      }
    }();
  }
}

TEST(OciSpec, User) {
  struct Case {
    const char* name;
    std::string spec;  // pod spec
    std::string image_user;
    std::uint32_t uid, gid;
    std::vector<std::uint32_t> additional;
  };
  const Case cases[] = {
      {"nothing set: root", "  containers: [{name: app, image: i}]\n", "", 0, 0, {0, 10}},
      {"image numeric uid in passwd: primary gid and memberships",
       "  containers: [{name: app, image: i}]\n",
       "1000",
       1000,
       1001,
       {1001, 29}},
      {"image user name", "  containers: [{name: app, image: i}]\n", "app", 1000, 1001, {1001, 29}},
      {"image name:group",
       "  containers: [{name: app, image: i}]\n",
       "app:staff",
       1000,
       50,
       {50, 29}},  // the group named like the user is its primary one, not a member group
      {"image uid:gid not in the files",
       "  containers: [{name: app, image: i}]\n",
       "4242:4343",
       4242,
       4343,
       {4343}},
      {"image numeric uid not in passwd: gid 0",
       "  containers: [{name: app, image: i}]\n",
       "4242",
       4242,
       0,
       {0}},
      {"pod runAsUser over the image user",
       "  securityContext: {runAsUser: 1000}\n  containers: [{name: app, image: i}]\n",
       "nobody",
       1000,
       1001,
       {1001, 29}},
      {"container runAsUser over the pod's",
       "  securityContext: {runAsUser: 2000}\n"
       "  containers: [{name: app, image: i, securityContext: {runAsUser: 65534}}]\n",
       "",
       65534,
       65534,
       {65534}},
      {"runAsUser drops the image's group part",
       "  securityContext: {runAsUser: 3000}\n  containers: [{name: app, image: i}]\n",
       "app:staff",
       3000,
       0,
       {0}},
      {"pod runAsGroup",
       "  securityContext: {runAsUser: 1000, runAsGroup: 3000}\n"
       "  containers: [{name: app, image: i}]\n",
       "",
       1000,
       3000,
       {3000, 29}},
      {"container runAsGroup over the pod's",
       "  securityContext: {runAsUser: 1000, runAsGroup: 3000}\n"
       "  containers: [{name: app, image: i, securityContext: {runAsGroup: 4000}}]\n",
       "",
       1000,
       4000,
       {4000, 29}},
      {"runAsGroup with the image's user",
       "  securityContext: {runAsGroup: 3000}\n  containers: [{name: app, image: i}]\n",
       "app:staff",
       1000,
       3000,
       {3000, 29}},
      {"supplementalGroups and fsGroup become additionalGids",
       "  securityContext: {runAsUser: 1000, runAsGroup: 3000, supplementalGroups: [4000, 29],"
       " fsGroup: 2000}\n  containers: [{name: app, image: i}]\n",
       "",
       1000,
       3000,
       {3000, 29, 4000, 2000}},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      root.WriteUserDb();
      api::Pod pod = PodWithSpec(c.spec);
      ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
      in.image.user = c.image_user;
      auto json = RenderOciSpec(in);
      ASSERT_TRUE(json) << json.error();
      auto doc = Parse(*json);
      EXPECT_EQ(doc["process"]["user"]["uid"].GetUint(), c.uid);
      EXPECT_EQ(doc["process"]["user"]["gid"].GetUint(), c.gid);
      EXPECT_EQ(UintsAt(doc, "/process/user/additionalGids"), c.additional);
    }();
  }
}

TEST(OciSpec, UserErrors) {
  struct Case {
    const char* name;
    bool user_db;
    std::string image_user;
    std::string want;
  };
  const Case cases[] = {
      {"unknown user name", true, "ghost",
       "spec.containers[0]: image user \"ghost\": no such user in /etc/passwd of the image"},
      {"unknown group name", true, "app:ghosts",
       "spec.containers[0]: image group \"ghosts\": no such group in /etc/group of the image"},
      {"name without /etc/passwd", false, "app",
       "spec.containers[0]: image user \"app\": no such user in /etc/passwd of the image"},
      {"uid out of range", true, "2147483648",
       "spec.containers[0]: image user \"2147483648\": uids must be in range 0-2147483647"},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      if (c.user_db) root.WriteUserDb();
      api::Pod pod = PodWithSpec("  containers: [{name: app, image: i}]\n");
      ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
      in.image.user = c.image_user;
      auto json = RenderOciSpec(in);
      ASSERT_FALSE(json);
      EXPECT_EQ(json.error().Message(), c.want);
    }();
  }
}

TEST(OciSpec, UserFilesResolveInsideTheRootfs) {
  // The rootfs is <tmp>/rootfs; <tmp>/outside/passwd stands for a host file an image must not
  // be able to make podlimits read.
  struct Case {
    const char* name;
    std::function<void(const fs::path& rootfs)> setup;
    std::string image_user;
    std::optional<std::uint32_t> uid;  // nullopt: "no such user" is expected
  };
  const Case cases[] = {
      {"absolute symlink means the image's own file",
       [](const fs::path& r) {
         fs::create_directories(r / "etc");
         fs::create_directories(r / "lib");
         std::ofstream(r / "lib/passwd.real") << "svc:x:777:777::/:/bin/sh\n";
         fs::create_symlink("/lib/passwd.real", r / "etc/passwd");
       },
       "svc", 777},
      {"relative symlink cannot climb out of the rootfs",
       [](const fs::path& r) {
         fs::create_directories(r / "etc");
         fs::create_symlink("../../outside/passwd", r / "etc/passwd");
       },
       "svc", std::nullopt},
      {"scratch image: a numeric user needs no files",
       [](const fs::path& r) { fs::create_directories(r); }, "65532", 65532},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs tmp;
      tmp.Write("outside/passwd", "svc:x:666:666::/:/bin/sh\n");
      const fs::path rootfs = tmp.path() / "rootfs";
      c.setup(rootfs);
      api::Pod pod = PodWithSpec("  containers: [{name: app, image: i}]\n");
      ContainerSpecInput in = Input(pod, pod.spec.containers[0], rootfs);
      in.image.user = c.image_user;
      auto json = RenderOciSpec(in);
      if (c.uid) {
        ASSERT_TRUE(json) << json.error();
        EXPECT_EQ(Parse(*json)["process"]["user"]["uid"].GetUint(), *c.uid);
      } else {
        ASSERT_FALSE(json) << *json;
        EXPECT_EQ(
            json.error().Message(),
            "spec.containers[0]: image user \"svc\": no such user in /etc/passwd of the image");
      }
    }();
  }
}

TEST(OciSpec, Capabilities) {
  auto without = [](Strings caps, std::string_view name) {
    std::erase(caps, std::string(name));
    return caps;
  };
  Strings host = HostCapabilities();
  struct Case {
    const char* name;
    std::string security_context;  // the container's
    Strings host;
    Strings want;
  };
  const Case cases[] = {
      {"default set", "{}", host, kDefaultCaps},
      {"add without prefix",
       "{capabilities: {add: [NET_ADMIN]}}",
       host,
       {"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID",
        "CAP_SETUID", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_NET_ADMIN", "CAP_NET_RAW",
        "CAP_SYS_CHROOT", "CAP_MKNOD", "CAP_AUDIT_WRITE", "CAP_SETFCAP"}},
      {"add case-insensitive with prefix",
       "{capabilities: {add: [cap_sys_ptrace]}}",
       host,
       {"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID",
        "CAP_SETUID", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SYS_CHROOT",
        "CAP_SYS_PTRACE", "CAP_MKNOD", "CAP_AUDIT_WRITE", "CAP_SETFCAP"}},
      {"drop", "{capabilities: {drop: [chown, NET_RAW]}}", host,
       without(without(kDefaultCaps, "CAP_CHOWN"), "CAP_NET_RAW")},
      {"drop ALL", "{capabilities: {drop: [ALL]}}", host, {}},
      {"drop ALL then add one",
       "{capabilities: {drop: [all], add: [NET_BIND_SERVICE]}}",
       host,
       {"CAP_NET_BIND_SERVICE"}},
      {"add and drop the same: dropped", "{capabilities: {add: [NET_ADMIN], drop: [NET_ADMIN]}}",
       host, kDefaultCaps},
      {"dropping an unknown name is a no-op", "{capabilities: {drop: [BOGUS]}}", host,
       kDefaultCaps},
      {"add ALL: every host capability", "{capabilities: {add: [ALL]}}", host, host},
      {"privileged: every host capability, add/drop ignored",
       "{privileged: true, capabilities: {drop: [ALL]}}", host, host},
      {"a default the host lacks is left out", "{}", without(host, "CAP_MKNOD"),
       without(kDefaultCaps, "CAP_MKNOD")},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec(
          "  containers: [{name: app, image: i, securityContext: " + c.security_context + "}]\n");
      ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
      in.host_capabilities = c.host;
      auto json = RenderOciSpec(in);
      ASSERT_TRUE(json) << json.error();
      auto doc = Parse(*json);
      EXPECT_EQ(StringsAt(doc, "/process/capabilities/bounding"), c.want);
      EXPECT_EQ(StringsAt(doc, "/process/capabilities/effective"), c.want);
      EXPECT_EQ(StringsAt(doc, "/process/capabilities/permitted"), c.want);
      EXPECT_EQ(StringsAt(doc, "/process/capabilities/inheritable"), Strings{});
      EXPECT_EQ(StringsAt(doc, "/process/capabilities/ambient"), Strings{});
    }();
  }
}

TEST(OciSpec, CapabilityErrors) {
  struct Case {
    const char* name;
    std::string spec;
    std::string want;
  };
  const Case cases[] = {
      {"added capability the host lacks",
       "  containers: [{name: app, image: i, securityContext: {capabilities:"
       " {add: [NET_ADMIN, SYS_RESOURCE]}}}]\n",
       "spec.containers[0].securityContext.capabilities.add[1]: capability CAP_SYS_RESOURCE is "
       "not in the capability bounding set of the container runtime on this node"},
      {"init container path",
       "  initContainers: [{name: s, image: i, securityContext: {capabilities:"
       " {add: [sys_resource]}}}]\n  containers: [{name: app, image: i}]\n",
       "spec.initContainers[0].securityContext.capabilities.add[0]: capability CAP_SYS_RESOURCE "
       "is not in the capability bounding set of the container runtime on this node"},
      {"unknown capability",
       "  containers: [{name: app, image: i, securityContext: {capabilities: {add: [FLY]}}}]\n",
       "spec.containers[0].securityContext.capabilities.add[0]: unknown capability \"FLY\""},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec(c.spec);
      const api::Container& ctr =
          pod.spec.init_containers.empty() ? pod.spec.containers[0] : pod.spec.init_containers[0];
      auto json = RenderOciSpec(Input(pod, ctr, root.path()));
      ASSERT_FALSE(json);
      EXPECT_EQ(json.error().Message(), c.want);
    }();
  }
}

TEST(OciSpec, NoNewPrivilegesAndReadonlyRoot) {
  struct Case {
    const char* name;
    std::string security_context;
    bool no_new_privileges, readonly;
  };
  const Case cases[] = {
      {"unset", "{}", false, false},
      {"allowPrivilegeEscalation false", "{allowPrivilegeEscalation: false}", true, false},
      {"allowPrivilegeEscalation true", "{allowPrivilegeEscalation: true}", false, false},
      {"privileged never gets noNewPrivileges",
       "{privileged: true, allowPrivilegeEscalation: false}", false, false},
      {"readOnlyRootFilesystem", "{readOnlyRootFilesystem: true}", false, true},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec(
          "  containers: [{name: app, image: i, securityContext: " + c.security_context + "}]\n");
      auto json = RenderOciSpec(Input(pod, pod.spec.containers[0], root.path()));
      ASSERT_TRUE(json) << json.error();
      auto doc = Parse(*json);
      EXPECT_EQ(doc["process"]["noNewPrivileges"].GetBool(), c.no_new_privileges);
      EXPECT_EQ(doc["root"]["readonly"].GetBool(), c.readonly);
    }();
  }
}

TEST(OciSpec, Namespaces) {
  struct Case {
    const char* name;
    std::string host_flags;
    Strings want;
    bool hostname;
  };
  const Case cases[] = {
      {"isolated", "", {"pid", "ipc", "uts", "mount", "network", "cgroup"}, true},
      {"hostPID", "  hostPID: true\n", {"ipc", "uts", "mount", "network", "cgroup"}, true},
      {"hostIPC", "  hostIPC: true\n", {"pid", "uts", "mount", "network", "cgroup"}, true},
      {"hostNetwork: no network, no uts, no hostname",
       "  hostNetwork: true\n",
       {"pid", "ipc", "mount", "cgroup"},
       false},
      {"all host namespaces",
       "  hostPID: true\n  hostIPC: true\n  hostNetwork: true\n",
       {"mount", "cgroup"},
       false},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec(c.host_flags + "  containers: [{name: app, image: i}]\n");
      auto json = RenderOciSpec(Input(pod, pod.spec.containers[0], root.path()));
      ASSERT_TRUE(json) << json.error();
      auto doc = Parse(*json);
      EXPECT_EQ(NamespaceTypes(doc), c.want);
      EXPECT_EQ(doc.HasMember("hostname"), c.hostname);
      if (c.hostname) {
        EXPECT_STREQ(doc["hostname"].GetString(), "web");
      }
    }();
  }
}

// In a sandbox, a container joins the holder's network, IPC and UTS namespaces (and its PID
// namespace with shareProcessNamespace) by path, and leaves the hostname to the holder.
TEST(OciSpec, NamespacesOfTheSandbox) {
  struct Case {
    const char* name;
    std::string flags;
    std::vector<std::pair<std::string, std::string>> want;  // type, path
  };
  const std::string net = "/proc/4242/ns/net", ipc = "/proc/4242/ns/ipc",
                    uts = "/proc/4242/ns/uts", pid = "/proc/4242/ns/pid";
  const Case cases[] = {
      {"isolated pod",
       "",
       {{"pid", ""}, {"ipc", ipc}, {"uts", uts}, {"mount", ""}, {"network", net}, {"cgroup", ""}}},
      {"shareProcessNamespace",
       "  shareProcessNamespace: true\n",
       {{"pid", pid}, {"ipc", ipc}, {"uts", uts}, {"mount", ""}, {"network", net}, {"cgroup", ""}}},
      {"hostNetwork and hostIPC",
       "  hostNetwork: true\n  hostIPC: true\n",
       {{"pid", ""}, {"mount", ""}, {"cgroup", ""}}},
      {"hostPID with shareProcessNamespace",
       "  hostPID: true\n",
       {{"ipc", ipc}, {"uts", uts}, {"mount", ""}, {"network", net}, {"cgroup", ""}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempRootfs root;
    api::Pod pod = PodWithSpec(c.flags + "  containers: [{name: app, image: i}]\n");
    ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
    in.sandbox_pid = 4242;
    auto spec = BuildContainerSpec(in);
    ASSERT_TRUE(spec) << spec.error();
    std::vector<std::pair<std::string, std::string>> got;
    for (const auto& ns : spec->linux.namespaces) got.emplace_back(ns.type, ns.path);
    EXPECT_EQ(got, c.want);
    EXPECT_FALSE(spec->hostname.has_value());
  }
}

// The hostname the kubelet chose (kubelet/network/pod_hostname.h) becomes the UTS name of a container
// without a sandbox, and HOSTNAME.
TEST(OciSpec, Hostname) {
  api::Pod named = PodWithSpec("  containers: [{name: app, image: i}]\n");
  TempRootfs root;
  auto in = Input(named, named.spec.containers[0], root.path());
  in.hostname = "db-0.web.default.svc.cluster.local";
  auto spec = BuildContainerSpec(in);
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->hostname, "db-0.web.default.svc.cluster.local");
  EXPECT_NE(std::find(spec->process.env.begin(), spec->process.env.end(),
                      "HOSTNAME=db-0.web.default.svc.cluster.local"),
            spec->process.env.end());
}

TEST(OciSpec, Mounts) {
  struct Case {
    const char* name;
    std::string spec;
    Strings sysfs_options, cgroup_options;
    std::string shm_type;
  };
  const Strings sys_ro = {"nosuid", "noexec", "nodev", "ro"};
  const Strings sys_rw = {"nosuid", "noexec", "nodev", "rw"};
  const Strings cg_ro = {"nosuid", "noexec", "nodev", "relatime", "ro"};
  const Strings cg_rw = {"nosuid", "noexec", "nodev", "relatime", "rw"};
  const Case cases[] = {
      {"defaults: sysfs and cgroup read-only", "  containers: [{name: app, image: i}]\n", sys_ro,
       cg_ro, "tmpfs"},
      {"mountMode ReadOnly",
       "  containers: [{name: app, image: i, securityContext: {cgroupOptions: {mountMode: "
       "ReadOnly}}}]\n",
       sys_ro, cg_ro, "tmpfs"},
      {"mountMode Writable: cgroup rw",
       "  containers: [{name: app, image: i, securityContext: {cgroupOptions: {mountMode: "
       "Writable}}}]\n",
       sys_ro, cg_rw, "tmpfs"},
      {"privileged: sysfs rw, cgroup still ro (KEP-5474)",
       "  containers: [{name: app, image: i, securityContext: {privileged: true}}]\n", sys_rw,
       cg_ro, "tmpfs"},
      {"privileged and Writable",
       "  containers: [{name: app, image: i, securityContext: {privileged: true, cgroupOptions: "
       "{mountMode: Writable}}}]\n",
       sys_rw, cg_rw, "tmpfs"},
      {"hostNetwork: still a read-only sysfs",
       "  hostNetwork: true\n"
       "  containers: [{name: app, image: i}]\n",
       sys_ro, cg_ro, "tmpfs"},
      {"hostIPC: the node's /dev/shm", "  hostIPC: true\n  containers: [{name: app, image: i}]\n",
       sys_ro, cg_ro, "bind"},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec(c.spec);
      auto json = RenderOciSpec(Input(pod, pod.spec.containers[0], root.path()));
      ASSERT_TRUE(json) << json.error();
      auto doc = Parse(*json);
      Strings destinations;
      for (const auto& m : doc["mounts"].GetArray())
        destinations.emplace_back(m["destination"].GetString());
      EXPECT_EQ(destinations, (Strings{"/proc", "/dev", "/dev/pts", "/dev/shm", "/dev/mqueue",
                                       "/sys", "/sys/fs/cgroup"}));
      const auto* sys = MountAt(doc, "/sys");
      ASSERT_NE(sys, nullptr);
      EXPECT_STREQ((*sys)["type"].GetString(), "sysfs");
      EXPECT_EQ(StringsAt(*sys, "/options"), c.sysfs_options);
      const auto* cg = MountAt(doc, "/sys/fs/cgroup");
      ASSERT_NE(cg, nullptr);
      EXPECT_STREQ((*cg)["type"].GetString(), "cgroup");
      EXPECT_STREQ((*cg)["source"].GetString(), "cgroup");
      EXPECT_EQ(StringsAt(*cg, "/options"), c.cgroup_options);
      const auto* shm = MountAt(doc, "/dev/shm");
      ASSERT_NE(shm, nullptr);
      EXPECT_EQ((*shm)["type"].GetString(), c.shm_type);
      if (c.shm_type == "bind") {
        EXPECT_STREQ((*shm)["source"].GetString(), "/dev/shm");
      }
    }();
  }
}

TEST(OciSpec, FixedMountOptions) {
  TempRootfs root;
  api::Pod pod = PodWithSpec("  containers: [{name: app, image: i}]\n");
  auto json = RenderOciSpec(Input(pod, pod.spec.containers[0], root.path()));
  ASSERT_TRUE(json) << json.error();
  auto doc = Parse(*json);
  struct Want {
    const char* destination;
    const char* type;
    Strings options;
  };
  const Want wants[] = {
      {"/proc", "proc", {"nosuid", "noexec", "nodev"}},
      {"/dev", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}},
      {"/dev/pts",
       "devpts",
       {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}},
      {"/dev/shm", "tmpfs", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
      {"/dev/mqueue", "mqueue", {"nosuid", "noexec", "nodev"}},
  };
  for (const auto& w : wants) {
    SCOPED_TRACE(w.destination);
    const auto* m = MountAt(doc, w.destination);
    ASSERT_NE(m, nullptr);
    EXPECT_STREQ((*m)["type"].GetString(), w.type);
    EXPECT_EQ(StringsAt(*m, "/options"), w.options);
  }
}

TEST(OciSpec, Rlimits) {
  constexpr std::uint64_t kInfinity = UINT64_MAX;
  struct Case {
    const char* name;
    std::vector<Rlimit> rlimits;
  };
  const Case cases[] = {
      {"none", {}},
      {"in order", {{"RLIMIT_NOFILE", 256, 512}, {"RLIMIT_CORE", 0, 0}}},
      {"unlimited is UINT64_MAX", {{"RLIMIT_MEMLOCK", kInfinity, kInfinity}}},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec("  containers: [{name: app, image: i}]\n");
      ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
      in.rlimits = c.rlimits;
      auto json = RenderOciSpec(in);
      ASSERT_TRUE(json) << json.error();
      auto doc = Parse(*json);
      std::vector<Rlimit> got;
      for (const auto& r : doc["process"]["rlimits"].GetArray()) {
        ASSERT_TRUE(r["soft"].IsUint64());
        ASSERT_TRUE(r["hard"].IsUint64());
        got.push_back({r["type"].GetString(), r["soft"].GetUint64(), r["hard"].GetUint64()});
      }
      EXPECT_EQ(got, c.rlimits);
    }();
  }
  // Exactly the decimal the runtime parses, never a double or -1.
  TempRootfs root;
  api::Pod pod = PodWithSpec("  containers: [{name: app, image: i}]\n");
  ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
  in.rlimits = {{"RLIMIT_NOFILE", kInfinity, kInfinity}};
  auto json = RenderOciSpec(in);
  ASSERT_TRUE(json) << json.error();
  EXPECT_NE(json->find("\"soft\": 18446744073709551615"), std::string::npos) << *json;
  EXPECT_NE(json->find("\"hard\": 18446744073709551615"), std::string::npos) << *json;
}

TEST(OciSpec, MaskedAndReadonlyPaths) {
  struct Case {
    const char* name;
    std::string security_context;
    bool present;
  };
  const Case cases[] = {
      {"unprivileged: containerd's defaults", "{}", true},
      {"privileged: none", "{privileged: true}", false},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      TempRootfs root;
      api::Pod pod = PodWithSpec(
          "  containers: [{name: app, image: i, securityContext: " + c.security_context + "}]\n");
      auto json = RenderOciSpec(Input(pod, pod.spec.containers[0], root.path()));
      ASSERT_TRUE(json) << json.error();
      auto doc = Parse(*json);
      EXPECT_EQ(doc["linux"].HasMember("maskedPaths"), c.present);
      EXPECT_EQ(doc["linux"].HasMember("readonlyPaths"), c.present);
      if (!c.present) return;
      EXPECT_EQ(
          StringsAt(doc, "/linux/maskedPaths"),
          (Strings{"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                   "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
                   "/sys/firmware", "/sys/devices/virtual/powercap"}));
      EXPECT_EQ(
          StringsAt(doc, "/linux/readonlyPaths"),
          (Strings{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}));
    }();
  }
}

TEST(OciSpec, InputErrors) {
  TempRootfs root;
  api::Pod pod = PodWithSpec("  containers: [{name: app, image: i}]\n");
  struct Case {
    const char* name;
    std::function<void(ContainerSpecInput&)> change;
    std::string want;
  };
  const Case cases[] = {
      {"no pod", [](ContainerSpecInput& in) { in.pod = nullptr; },
       "render OCI spec: no pod or no container given"},
      {"relative rootfs", [](ContainerSpecInput& in) { in.rootfs = "rootfs"; },
       "spec.containers[0]: rootfs \"rootfs\" is not an absolute path"},
      {"relative cgroups path", [](ContainerSpecInput& in) { in.cgroups_path = "kubepods/x"; },
       "spec.containers[0]: cgroups path \"kubepods/x\" is not absolute"},
  };
  for (const auto& c : cases) {
    [&] {
      SCOPED_TRACE(c.name);
      ContainerSpecInput in = Input(pod, pod.spec.containers[0], root.path());
      c.change(in);
      auto json = RenderOciSpec(in);
      ASSERT_FALSE(json);
      EXPECT_EQ(json.error().Message(), c.want);
    }();
  }
}

TEST(OciSpec, CapBndParsing) {
  struct Case {
    const char* name;
    std::string status;
    std::optional<std::uint64_t> mask;
  };
  const Case cases[] = {
      {"this project's machines", "Name:\tx\nCapPrm:\t0\nCapBnd:\t000001fffeffffff\nCapAmb:\t0\n",
       0x1fffeffffffULL},
      {"no CapBnd line", "Name:\tx\nCapPrm:\t0000000000000000\n", std::nullopt},
      {"malformed", "CapBnd:\tzz\n", std::nullopt},
      {"empty value", "CapBnd:\t\n", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ParseCapBnd(c.status), c.mask);
  }
}

TEST(OciSpec, CapabilityNamesFromMask) {
  struct Case {
    const char* name;
    std::uint64_t mask;
    Strings want;
  };
  const Case cases[] = {
      {"none", 0, {}},
      {"first and last known", (1ULL << 0) | (1ULL << 40), {"CAP_CHOWN", "CAP_CHECKPOINT_RESTORE"}},
      {"unknown high bits ignored",
       (1ULL << 63) | (1ULL << 41) | (1ULL << 24),
       {"CAP_SYS_RESOURCE"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(CapabilityNamesFromMask(c.mask), c.want);
  }
  // This process's own set: whatever it is, it maps to known names only, in bit order.
  Strings own = BoundingCapabilities();
  for (const auto& name : own) EXPECT_TRUE(NormalizeCapability(name)) << name;
}

TEST(OciSpec, NormalizeCapability) {
  struct Case {
    const char* in;
    std::optional<std::string> want;
  };
  const Case cases[] = {
      {"NET_ADMIN", "CAP_NET_ADMIN"},
      {"net_admin", "CAP_NET_ADMIN"},
      {"Cap_Net_Admin", "CAP_NET_ADMIN"},
      {"CAP_CHECKPOINT_RESTORE", "CAP_CHECKPOINT_RESTORE"},
      {"ALL", std::nullopt},
      {"NET", std::nullopt},
      {"", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(NormalizeCapability(c.in), c.want);
  }
}

}  // namespace
}  // namespace podlimits::cri
