// The kubelet's makeEnvironmentVariables over ConfigMaps and Secrets, and resourceFieldRef.
#include "kubelet/volumes/container_env.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace podlimits::kubelet {
namespace {

StaticObjectSource Objects() {
  StaticObjectSource objects;
  api::ConfigMap cm;
  cm.metadata = {"app", "", "default", "", {}, {}};
  cm.data = {{"db", "postgres"}, {"1bad", "x"}, {"mode", "fast"}, {"has space", "y"}};
  cm.binary_data = {{"blob", "bytes"}};
  objects.Add(cm);
  api::Secret s;
  s.metadata = {"creds", "", "default", "", {}, {}};
  s.data = {{"password", "s3cret"}};
  objects.Add(s);
  api::ConfigMap other;
  other.metadata = {"app", "", "elsewhere", "", {}, {}};
  other.data = {{"db", "wrong namespace"}};
  objects.Add(other);
  return objects;
}

api::ResourceList Allocatable() {
  return {{"cpu", *resource::Quantity::Parse("2")},
          {"memory", *resource::Quantity::Parse("4Gi")},
          {"ephemeral-storage", *resource::Quantity::Parse("10Gi")}};
}

struct EnvOutcome {
  cri::EnvList env;
  std::vector<Event> warnings;
  std::string error;
};

EnvOutcome Resolve(const std::string& container_yaml, const StaticObjectSource* objects) {
  api::Pod pod = testing::DefaultedPod("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n"
                                       "  containers:\n  - " + container_yaml + "\n");
  EnvContext ctx;
  ctx.pod = &pod;
  ctx.node_name = "node-a";
  ctx.objects = objects;
  ctx.allocatable = Allocatable();
  auto r = MakeEnvironmentVariables(ctx, pod.spec.containers[0]);
  if (!r) return {{}, {}, r.error().Message()};
  return {r->env, r->warnings, ""};
}

TEST(ContainerEnv, Resolution) {
  const StaticObjectSource objects = Objects();
  struct Case {
    const char* name;
    std::string container;
    cri::EnvList want;
    std::string error = {};
  };
  const Case cases[] = {
      {"configMapKeyRef and secretKeyRef",
       "{name: a, image: i, env: [{name: DB, valueFrom: {configMapKeyRef: {name: app, key: db}}},"
       " {name: PW, valueFrom: {secretKeyRef: {name: creds, key: password}}}]}",
       {{"DB", "postgres"}, {"PW", "s3cret"}}},
      {"envFrom with a prefix, then env overrides in place and expands",
       "{name: a, image: i, envFrom: [{prefix: APP_, configMapRef: {name: app}}],"
       " env: [{name: APP_db, value: \"$(APP_mode)-db\"}]}",
       {{"APP_1bad", "x"}, {"APP_db", "fast-db"}, {"APP_mode", "fast"}}},
      {"envFrom a secret", "{name: a, image: i, envFrom: [{secretRef: {name: creds}}]}",
       {{"password", "s3cret"}}},
      {"optional missing object and key are skipped",
       "{name: a, image: i, envFrom: [{configMapRef: {name: none, optional: true}}],"
       " env: [{name: A, valueFrom: {configMapKeyRef: {name: app, key: nokey, optional: true}}},"
       " {name: B, valueFrom: {secretKeyRef: {name: none, key: k, optional: true}}}]}",
       {}},
      {"binaryData keys are not environment",
       "{name: a, image: i, env: [{name: B, valueFrom: {configMapKeyRef: {name: app, key: blob}}}]}",
       {},
       "couldn't find key blob in ConfigMap default/app"},
      {"missing ConfigMap", "{name: a, image: i, envFrom: [{configMapRef: {name: none}}]}", {},
       "configmap \"none\" not found"},
      {"missing Secret",
       "{name: a, image: i, env: [{name: S, valueFrom: {secretKeyRef: {name: none, key: k}}}]}",
       {},
       "secret \"none\" not found"},
      {"missing Secret key",
       "{name: a, image: i, env: [{name: S, valueFrom: {secretKeyRef: {name: creds, key: k}}}]}",
       {},
       "couldn't find key k in Secret default/creds"},
      {"only the pod's namespace is read",
       "{name: a, image: i, env: [{name: D, valueFrom: {configMapKeyRef: {name: app, key: db}}}]}",
       {{"D", "postgres"}}},
      {"resourceFieldRef: unset limits read as allocatable, rounded up",
       "{name: a, image: i, env: [{name: CPU, valueFrom: {resourceFieldRef: {resource: limits.cpu}}},"
       " {name: MEM, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}},"
       " {name: REQ, valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: 1m}}}]}",
       {{"CPU", "2"}, {"MEM", "4096"}, {"REQ", "0"}}},
      {"resourceFieldRef of the container's own limit",
       "{name: a, image: i, resources: {limits: {cpu: 250m, memory: 100M}}, env: [{name: C,"
       " valueFrom: {resourceFieldRef: {resource: limits.cpu}}}, {name: M, valueFrom:"
       " {resourceFieldRef: {resource: requests.memory, divisor: 1Mi}}}]}",
       {{"C", "1"}, {"M", "96"}}},
      {"resourceFieldRef of an unsupported resource",
       "{name: a, image: i, env: [{name: G, valueFrom: {resourceFieldRef: {resource: limits.gpu}}}]}",
       {},
       "unsupported container resource : limits.gpu"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EnvOutcome got = Resolve(c.container, &objects);
    EXPECT_EQ(got.error, c.error);
    if (c.error.empty()) {
      EXPECT_EQ(got.env, c.want);
    }
  }
}

TEST(ContainerEnv, InvalidEnvFromKeysAreSkippedWithOneWarning) {
  const StaticObjectSource objects = Objects();
  EnvOutcome got = Resolve("{name: a, image: i, envFrom: [{configMapRef: {name: app}}]}", &objects);
  ASSERT_EQ(got.error, "");
  EXPECT_EQ(got.env, (cri::EnvList{{"db", "postgres"}, {"mode", "fast"}}));
  ASSERT_EQ(got.warnings.size(), 1u);
  EXPECT_EQ(got.warnings[0].reason, "InvalidEnvironmentVariableNames");
  EXPECT_EQ(got.warnings[0].message,
            "Keys [1bad, has space] from the EnvFrom configMap default/app were skipped since "
            "they are considered invalid environment variable names.");
}

TEST(ContainerEnv, NoObjectSourceMeansNothingExists) {
  EnvOutcome got =
      Resolve("{name: a, image: i, envFrom: [{secretRef: {name: creds}}]}", nullptr);
  EXPECT_EQ(got.error, "secret \"creds\" not found");
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

TEST(ContainerEnv, StatusFieldsAreTheAddresses) {
  api::Pod pod = testing::DefaultedPod(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: a, "
      "image: i, env: [{name: IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}, {name: IPS, "
      "valueFrom: {fieldRef: {fieldPath: status.podIPs}}}, {name: HOST, valueFrom: {fieldRef: "
      "{fieldPath: status.hostIP}}}, {name: HOSTS, valueFrom: {fieldRef: {fieldPath: "
      "status.hostIPs}}}, {name: LINK, value: \"http://$(IP):80\"}]}\n");
  EnvContext ctx;
  ctx.pod = &pod;
  ctx.pod_ips = {"10.244.0.5", "fd00::5"};
  ctx.host_ips = {"192.168.1.2"};
  auto r = MakeEnvironmentVariables(ctx, pod.spec.containers[0]);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->env, (cri::EnvList{{"IP", "10.244.0.5"},
                                  {"IPS", "10.244.0.5,fd00::5"},
                                  {"HOST", "192.168.1.2"},
                                  {"HOSTS", "192.168.1.2"},
                                  {"LINK", "http://10.244.0.5:80"}}));
  // Node admission keeps a pod that asks for a value the node lacks from getting here.
  ctx.pod_ips.clear();
  auto missing = MakeEnvironmentVariables(ctx, pod.spec.containers[0]);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().Message(), "no value for fieldPath status.podIP on this node");
}

}  // namespace
}  // namespace podlimits::kubelet
