#include "api/objects.h"

#include <array>
#include <utility>

#include "api/member_lookup.h"

namespace podlimits::api {
namespace {

std::optional<std::string> OptStr(const codec::Node* n) {
  if (!n || !n->IsString()) return std::nullopt;
  return n->scalar;
}

std::optional<bool> OptBool(const codec::Node* n) {
  if (!n || n->kind != codec::Node::Kind::kBool) return std::nullopt;
  return n->AsBool();
}

std::optional<std::int64_t> OptInt(const codec::Node* n) {
  if (!n) return std::nullopt;
  return n->AsInt();
}

std::vector<std::string> Strings(const codec::Node* n) {
  std::vector<std::string> out;
  if (!n || !n->IsArray()) return out;
  out.reserve(n->items.size());
  for (const auto& i : n->items) out.push_back(i.scalar);
  return out;
}

std::map<std::string, std::string> StringMap(const codec::Node* n) {
  std::map<std::string, std::string> out;
  if (!n || !n->IsObject()) return out;
  for (const auto& m : n->members) out[m.key] = m.value.scalar;
  return out;
}

std::optional<std::int32_t> OptInt32(const codec::Node* n) {
  auto v = OptInt(n);
  if (!v) return std::nullopt;
  return static_cast<std::int32_t>(*v);
}

ResourceFieldRef ReadResourceFieldRef(const codec::Node& n) {
  ResourceFieldRef ref;
  ref.container_name = codec::StringOf(n.Find("containerName"));
  ref.resource = codec::StringOf(n.Find("resource"));
  if (const codec::Node* d = n.Find("divisor")) {
    if (auto q = resource::Quantity::Parse(d->scalar)) ref.divisor = *q;
  }
  return ref;
}

KeySelector ReadKeySelector(const codec::Node& n) {
  return KeySelector{codec::StringOf(n.Find("name")), codec::StringOf(n.Find("key")),
                     OptBool(n.Find("optional")).value_or(false)};
}

// A configMap/secret/downwardAPI volume source or projection.
VolumeProjection ReadProjection(const std::string& kind, const codec::Node& n) {
  VolumeProjection p;
  p.kind = kind;
  p.name = codec::StringOf(n.Find(kind == "secret" && n.Find("secretName") ? "secretName" : "name"));
  p.optional = OptBool(n.Find("optional")).value_or(false);
  const codec::Node* items = n.Find("items");
  if (items == nullptr || !items->IsArray()) return p;
  for (const auto& item : items->items) {
    if (kind == "downwardAPI") {
      DownwardAPIFile f;
      f.path = codec::StringOf(item.Find("path"));
      f.field_path = OptStr(item.FindPath({"fieldRef", "fieldPath"}));
      if (const codec::Node* r = item.Find("resourceFieldRef")) f.resource_field_ref = ReadResourceFieldRef(*r);
      f.mode = OptInt32(item.Find("mode"));
      p.files.push_back(std::move(f));
    } else {
      p.items.push_back({codec::StringOf(item.Find("key")), codec::StringOf(item.Find("path")), OptInt32(item.Find("mode"))});
    }
  }
  return p;
}

ResourceList ReadResourceList(const codec::Node* n) {
  ResourceList out;
  if (!n || !n->IsObject()) return out;
  for (const auto& m : n->members) {
    // Already canonical after StrictDecode; a parse failure here would be a bug upstream of us.
    if (auto q = resource::Quantity::Parse(m.value.scalar)) out.insert_or_assign(m.key, *q);
  }
  return out;
}

std::optional<SELinuxOptions> ReadSELinux(const codec::Node* n) {
  if (!n) return std::nullopt;
  return SELinuxOptions{codec::StringOf(n->Find("user")), codec::StringOf(n->Find("role")), codec::StringOf(n->Find("type")),
                        codec::StringOf(n->Find("level"))};
}

std::optional<SeccompProfile> ReadSeccomp(const codec::Node* n) {
  if (!n) return std::nullopt;
  return SeccompProfile{codec::StringOf(n->Find("type")), OptStr(n->Find("localhostProfile"))};
}

std::optional<AppArmorProfile> ReadAppArmor(const codec::Node* n) {
  if (!n) return std::nullopt;
  return AppArmorProfile{codec::StringOf(n->Find("type")), OptStr(n->Find("localhostProfile"))};
}

std::optional<WindowsSecurityContextOptions> ReadWindows(const codec::Node* n) {
  if (!n) return std::nullopt;
  return WindowsSecurityContextOptions{OptBool(n->Find("hostProcess")), true};
}

std::optional<SecurityContext> ReadSecurityContext(const codec::Node* n) {
  if (!n || !n->IsObject()) return std::nullopt;
  SecurityContext sc;
  if (const codec::Node* caps = n->Find("capabilities")) {
    sc.capabilities = Capabilities{Strings(caps->Find("add")), Strings(caps->Find("drop"))};
  }
  sc.privileged = OptBool(n->Find("privileged"));
  sc.se_linux_options = ReadSELinux(n->Find("seLinuxOptions"));
  sc.windows_options = ReadWindows(n->Find("windowsOptions"));
  sc.run_as_user = OptInt(n->Find("runAsUser"));
  sc.run_as_group = OptInt(n->Find("runAsGroup"));
  sc.run_as_non_root = OptBool(n->Find("runAsNonRoot"));
  sc.read_only_root_filesystem = OptBool(n->Find("readOnlyRootFilesystem"));
  sc.allow_privilege_escalation = OptBool(n->Find("allowPrivilegeEscalation"));
  sc.proc_mount = OptStr(n->Find("procMount"));
  sc.seccomp_profile = ReadSeccomp(n->Find("seccompProfile"));
  sc.app_armor_profile = ReadAppArmor(n->Find("appArmorProfile"));
  if (const codec::Node* u = n->Find("ulimits"); u && u->IsArray()) {
    std::vector<Ulimit> ulimits;
    ulimits.reserve(u->items.size());
    for (const auto& item : u->items) {
      ulimits.push_back(Ulimit{codec::StringOf(item.Find("name")), OptInt(item.Find("soft")).value_or(0),
                               OptInt(item.Find("hard")).value_or(0)});
    }
    sc.ulimits = std::move(ulimits);
  }
  if (const codec::Node* c = n->Find("cgroupOptions")) {
    sc.cgroup_options = CgroupOptions{OptStr(c->Find("mountMode"))};
  }
  return sc;
}

std::optional<PodSecurityContext> ReadPodSecurityContext(const codec::Node* n) {
  if (!n || !n->IsObject()) return std::nullopt;
  PodSecurityContext sc;
  sc.se_linux_options = ReadSELinux(n->Find("seLinuxOptions"));
  sc.windows_options = ReadWindows(n->Find("windowsOptions"));
  sc.run_as_user = OptInt(n->Find("runAsUser"));
  sc.run_as_group = OptInt(n->Find("runAsGroup"));
  sc.run_as_non_root = OptBool(n->Find("runAsNonRoot"));
  if (const codec::Node* g = n->Find("supplementalGroups"); g && g->IsArray()) {
    sc.supplemental_groups_set = true;
    for (const auto& i : g->items) sc.supplemental_groups.push_back(i.AsInt().value_or(0));
  }
  sc.supplemental_groups_policy = OptStr(n->Find("supplementalGroupsPolicy"));
  sc.fs_group = OptInt(n->Find("fsGroup"));
  sc.fs_group_change_policy = OptStr(n->Find("fsGroupChangePolicy"));
  sc.se_linux_change_policy = OptStr(n->Find("seLinuxChangePolicy"));
  if (const codec::Node* s = n->Find("sysctls"); s && s->IsArray()) {
    for (const auto& i : s->items)
      sc.sysctls.push_back({codec::StringOf(i.Find("name")), codec::StringOf(i.Find("value"))});
  }
  sc.seccomp_profile = ReadSeccomp(n->Find("seccompProfile"));
  sc.app_armor_profile = ReadAppArmor(n->Find("appArmorProfile"));
  return sc;
}

void ReadHandlerHosts(const codec::Node& handler, const std::string& prefix,
                      std::vector<HandlerHost>& out) {
  for (const char* action : {"httpGet", "tcpSocket"}) {
    if (const codec::Node* a = handler.Find(action)) {
      if (const codec::Node* host = a->Find("host")) {
        out.push_back({prefix + "." + action + ".host", host->scalar});
      }
    }
  }
}

std::string PortText(const codec::Node* port) { return port ? port->scalar : std::string(); }

HandlerAction ReadHandlerAction(const codec::Node& handler) {
  HandlerAction a;
  if (const codec::Node* exec = handler.Find("exec")) {
    a.kind = "exec";
    a.command = Strings(exec->Find("command"));
  } else if (const codec::Node* http = handler.Find("httpGet")) {
    a.kind = "httpGet";
    a.host = codec::StringOf(http->Find("host"));
    a.port = PortText(http->Find("port"));
    a.path = codec::StringOf(http->Find("path"));
    a.scheme = codec::StringOf(http->Find("scheme"));
    if (const codec::Node* headers = http->Find("httpHeaders"); headers && headers->IsArray()) {
      for (const auto& h : headers->items) {
        a.http_headers.emplace_back(codec::StringOf(h.Find("name")), codec::StringOf(h.Find("value")));
      }
    }
  } else if (const codec::Node* tcp = handler.Find("tcpSocket")) {
    a.kind = "tcpSocket";
    a.host = codec::StringOf(tcp->Find("host"));
    a.port = PortText(tcp->Find("port"));
  } else if (const codec::Node* grpc = handler.Find("grpc")) {
    a.kind = "grpc";
    a.port = PortText(grpc->Find("port"));
    a.grpc_service = OptStr(grpc->Find("service"));
  } else if (const codec::Node* sleep = handler.Find("sleep")) {
    a.kind = "sleep";
    a.sleep_seconds = OptInt(sleep->Find("seconds")).value_or(0);
  }
  return a;
}

std::optional<Probe> ReadProbe(const codec::Node* n) {
  if (n == nullptr || !n->IsObject()) return std::nullopt;
  Probe p;
  p.action = ReadHandlerAction(*n);
  auto int32 = [&](const char* key, std::int32_t fallback) {
    return static_cast<std::int32_t>(OptInt(n->Find(key)).value_or(fallback));
  };
  p.initial_delay_seconds = int32("initialDelaySeconds", 0);
  p.timeout_seconds = int32("timeoutSeconds", 1);
  p.period_seconds = int32("periodSeconds", 10);
  p.success_threshold = int32("successThreshold", 1);
  p.failure_threshold = int32("failureThreshold", 3);
  p.termination_grace_period_seconds = OptInt(n->Find("terminationGracePeriodSeconds"));
  return p;
}

// The members of a container that ReadContainer reads, found in one pass (member_lookup.h).
// clang-format off
constexpr KeyList kContainerKeys{std::to_array<std::string_view>({
    "name", "image", "command", "args", "workingDir", "ports", "env", "envFrom", "resources",
    "volumeMounts", "restartPolicy", "securityContext", "terminationMessagePath",
    "terminationMessagePolicy", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
    "tty", "stdin", "stdinOnce", "targetContainerName", "resizePolicy", "restartPolicyRules"})};
// clang-format on

Container ReadContainer(const codec::Node& n, ContainerKind kind, std::size_t index) {
  const Members<kContainerKeys> f(n);
  Container c;
  c.kind = kind;
  c.index = index;
  c.name = codec::StringOf(f["name"]);
  c.image = codec::StringOf(f["image"]);
  c.command = Strings(f["command"]);
  c.args = Strings(f["args"]);
  c.working_dir = codec::StringOf(f["workingDir"]);
  if (const codec::Node* ports = f["ports"]; ports && ports->IsArray()) {
    for (const auto& p : ports->items) {
      ContainerPort port;
      port.name = codec::StringOf(p.Find("name"));
      if (auto hp = OptInt(p.Find("hostPort"))) port.host_port = static_cast<std::int32_t>(*hp);
      port.container_port = static_cast<std::int32_t>(OptInt(p.Find("containerPort")).value_or(0));
      port.protocol = codec::StringOf(p.Find("protocol"));
      port.host_ip = codec::StringOf(p.Find("hostIP"));
      c.ports.push_back(std::move(port));
    }
  }
  if (const codec::Node* env = f["env"]; env && env->IsArray()) {
    for (const auto& e : env->items) {
      EnvVar var;
      var.name = codec::StringOf(e.Find("name"));
      var.value = OptStr(e.Find("value"));
      if (const codec::Node* from = e.Find("valueFrom")) {
        var.field_path = OptStr(from->FindPath({"fieldRef", "fieldPath"}));
        if (const codec::Node* r = from->Find("resourceFieldRef")) var.resource_field_ref = ReadResourceFieldRef(*r);
        if (const codec::Node* r = from->Find("configMapKeyRef")) var.config_map_key_ref = ReadKeySelector(*r);
        if (const codec::Node* r = from->Find("secretKeyRef")) var.secret_key_ref = ReadKeySelector(*r);
      }
      c.env.push_back(std::move(var));
    }
  }
  if (const codec::Node* env_from = f["envFrom"]; env_from && env_from->IsArray()) {
    for (const auto& e : env_from->items) {
      EnvFromSource source;
      source.prefix = codec::StringOf(e.Find("prefix"));
      const codec::Node* ref = e.Find("configMapRef");
      if (ref == nullptr && (ref = e.Find("secretRef")) != nullptr) source.secret = true;
      if (ref == nullptr) continue;
      source.name = codec::StringOf(ref->Find("name"));
      source.optional = OptBool(ref->Find("optional")).value_or(false);
      c.env_from.push_back(std::move(source));
    }
  }
  if (const codec::Node* r = f["resources"]) {
    c.resources = ReadResourceRequirements(*r);
    c.resources_set = true;
  }
  if (const codec::Node* mounts = f["volumeMounts"]; mounts && mounts->IsArray()) {
    for (const auto& m : mounts->items) {
      VolumeMount vm;
      vm.name = codec::StringOf(m.Find("name"));
      vm.mount_path = codec::StringOf(m.Find("mountPath"));
      vm.read_only = m.Find("readOnly") && m.Find("readOnly")->AsBool();
      vm.sub_path = codec::StringOf(m.Find("subPath"));
      vm.sub_path_expr = codec::StringOf(m.Find("subPathExpr"));
      c.volume_mounts.push_back(std::move(vm));
    }
  }
  c.restart_policy = OptStr(f["restartPolicy"]);
  c.security_context = ReadSecurityContext(f["securityContext"]);
  const std::pair<const char*, const codec::Node*> probes[] = {{"livenessProbe", f["livenessProbe"]},
                                                        {"readinessProbe", f["readinessProbe"]},
                                                        {"startupProbe", f["startupProbe"]}};
  for (const auto& [name, probe] : probes) {
    if (probe) ReadHandlerHosts(*probe, name, c.handler_hosts);
  }
  c.termination_message_path = codec::StringOf(f["terminationMessagePath"]);
  c.termination_message_policy = codec::StringOf(f["terminationMessagePolicy"]);
  c.liveness_probe = ReadProbe(f["livenessProbe"]);
  c.readiness_probe = ReadProbe(f["readinessProbe"]);
  c.startup_probe = ReadProbe(f["startupProbe"]);
  if (const codec::Node* lifecycle = f["lifecycle"]) {
    for (const char* hook : {"postStart", "preStop"}) {
      if (const codec::Node* h = lifecycle->Find(hook)) {
        ReadHandlerHosts(*h, std::string("lifecycle.") + hook, c.handler_hosts);
      }
    }
    if (const codec::Node* h = lifecycle->Find("postStart")) c.post_start = ReadHandlerAction(*h);
    if (const codec::Node* h = lifecycle->Find("preStop")) c.pre_stop = ReadHandlerAction(*h);
  }
  c.tty = OptBool(f["tty"]).value_or(false);
  c.stdin = OptBool(f["stdin"]).value_or(false);
  c.stdin_once = OptBool(f["stdinOnce"]).value_or(false);
  if (kind == ContainerKind::kEphemeral) {
    c.target_container_name = codec::StringOf(f["targetContainerName"]);
    // Set is what Go's reflect finds non-zero after decoding: any member present and not null.
    for (const char* member : {"ports", "resizePolicy", "restartPolicy", "restartPolicyRules",
                               "livenessProbe", "readinessProbe", "startupProbe", "lifecycle"}) {
      const codec::Node* v = n.Find(member);
      if (v != nullptr && !v->IsNull()) c.set_ephemeral_forbidden.emplace_back(member);
    }
  }
  return c;
}

std::vector<Container> ReadContainers(const codec::Node* list, ContainerKind kind) {
  std::vector<Container> out;
  if (!list || !list->IsArray()) return out;
  out.reserve(list->items.size());
  for (std::size_t i = 0; i < list->items.size(); ++i) {
    out.push_back(ReadContainer(list->items[i], kind, i));
  }
  return out;
}

}  // namespace

ObjectMeta ReadObjectMeta(const codec::Node& object) {
  ObjectMeta m;
  const codec::Node* meta = object.Find("metadata");
  if (!meta) return m;
  m.name = codec::StringOf(meta->Find("name"));
  m.generate_name = codec::StringOf(meta->Find("generateName"));
  m.namespace_ = codec::StringOf(meta->Find("namespace"));
  m.uid = codec::StringOf(meta->Find("uid"));
  m.labels = StringMap(meta->Find("labels"));
  m.annotations = StringMap(meta->Find("annotations"));
  return m;
}

ResourceRequirements ReadResourceRequirements(const codec::Node& node) {
  ResourceRequirements r;
  r.limits = ReadResourceList(node.Find("limits"));
  r.requests = ReadResourceList(node.Find("requests"));
  if (const codec::Node* claims = node.Find("claims")) {
    r.claims_set = true;
    r.claims.reserve(claims->items.size());
    for (const auto& c : claims->items) {
      r.claims.push_back({codec::StringOf(c.Find("name")), codec::StringOf(c.Find("request"))});
    }
  }
  return r;
}

// The members of a pod's spec that ReadPod reads, found in one pass (member_lookup.h).
// clang-format off
constexpr KeyList kPodSpecKeys{std::to_array<std::string_view>({
    "os", "hostPID", "hostNetwork", "hostIPC", "hostUsers", "shareProcessNamespace",
    "securityContext", "containers", "initContainers", "ephemeralContainers", "volumes",
    "resources", "resourceClaims", "overhead", "restartPolicy", "runtimeClassName",
    "serviceAccountName", "hostname", "subdomain", "setHostnameAsFQDN", "dnsPolicy", "dnsConfig",
    "hostAliases", "terminationGracePeriodSeconds", "activeDeadlineSeconds"})};
// clang-format on

Pod ReadPod(const codec::Node& object) {
  Pod pod;
  pod.metadata = ReadObjectMeta(object);
  const codec::Node* spec = object.Find("spec");
  if (!spec) return pod;
  const Members<kPodSpecKeys> f(*spec);
  PodSpec& s = pod.spec;
  if (const codec::Node* os = f["os"]) s.os_name = codec::StringOf(os->Find("name"));
  s.host_pid = OptBool(f["hostPID"]).value_or(false);
  s.host_network = OptBool(f["hostNetwork"]).value_or(false);
  s.host_ipc = OptBool(f["hostIPC"]).value_or(false);
  s.host_users = OptBool(f["hostUsers"]);
  s.share_process_namespace = OptBool(f["shareProcessNamespace"]);
  s.security_context = ReadPodSecurityContext(f["securityContext"]);
  s.containers = ReadContainers(f["containers"], ContainerKind::kContainer);
  s.init_containers = ReadContainers(f["initContainers"], ContainerKind::kInit);
  s.ephemeral_containers =
      ReadContainers(f["ephemeralContainers"], ContainerKind::kEphemeral);
  if (const codec::Node* vols = f["volumes"]; vols && vols->IsArray()) {
    for (const auto& v : vols->items) {
      Volume vol;
      for (const auto& m : v.members) {
        if (m.key == "name")
          vol.name = m.value.scalar;
        else if (vol.source.empty())
          vol.source = m.key;
      }
      if (vol.source == "hostPath") {
        vol.host_path = codec::StringOf(v.FindPath({"hostPath", "path"}));
        vol.host_path_type = codec::StringOf(v.FindPath({"hostPath", "type"}));
      }
      if (vol.source == "emptyDir") {
        vol.medium = codec::StringOf(v.FindPath({"emptyDir", "medium"}));
        if (const codec::Node* q = v.FindPath({"emptyDir", "sizeLimit"})) {
          if (auto parsed = resource::Quantity::Parse(q->scalar)) vol.size_limit = *parsed;
        }
      }
      if (vol.source == "configMap" || vol.source == "secret" || vol.source == "downwardAPI") {
        const codec::Node& source = *v.Find(vol.source);
        vol.projections.push_back(ReadProjection(vol.source, source));
        vol.default_mode = OptInt32(source.Find("defaultMode"));
      }
      if (vol.source == "projected") {
        const codec::Node& projected = *v.Find("projected");
        vol.default_mode = OptInt32(projected.Find("defaultMode"));
        if (const codec::Node* sources = projected.Find("sources"); sources && sources->IsArray()) {
          for (const auto& src : sources->items) {
            for (const auto& m : src.members) {
              if (!m.value.IsNull()) vol.projections.push_back(ReadProjection(m.key, m.value));
            }
          }
        }
      }
      s.volumes.push_back(std::move(vol));
    }
  }
  if (const codec::Node* r = f["resources"]) s.resources = ReadResourceRequirements(*r);
  if (const codec::Node* claims = f["resourceClaims"]; claims && claims->IsArray()) {
    for (const auto& c : claims->items) s.resource_claim_names.push_back(codec::StringOf(c.Find("name")));
  }
  if (const codec::Node* o = f["overhead"]) {
    s.overhead = ReadResourceList(o);
    s.overhead_set = true;
  }
  s.restart_policy = codec::StringOf(f["restartPolicy"]);
  s.runtime_class_name = OptStr(f["runtimeClassName"]);
  s.service_account_name = codec::StringOf(f["serviceAccountName"]);
  s.hostname = codec::StringOf(f["hostname"]);
  s.subdomain = codec::StringOf(f["subdomain"]);
  s.set_hostname_as_fqdn = OptBool(f["setHostnameAsFQDN"]);
  s.dns_policy = codec::StringOf(f["dnsPolicy"]);
  if (const codec::Node* dns = f["dnsConfig"]; dns && dns->IsObject()) {
    PodDNSConfig config;
    config.nameservers = Strings(dns->Find("nameservers"));
    config.searches = Strings(dns->Find("searches"));
    if (const codec::Node* options = dns->Find("options"); options && options->IsArray()) {
      for (const auto& o : options->items) {
        config.options.push_back({codec::StringOf(o.Find("name")), OptStr(o.Find("value"))});
      }
    }
    s.dns_config = std::move(config);
  }
  if (const codec::Node* aliases = f["hostAliases"]; aliases && aliases->IsArray()) {
    for (const auto& a : aliases->items) {
      s.host_aliases.push_back({codec::StringOf(a.Find("ip")), Strings(a.Find("hostnames"))});
    }
  }
  s.termination_grace_period_seconds = OptInt(f["terminationGracePeriodSeconds"]);
  s.active_deadline_seconds = OptInt(f["activeDeadlineSeconds"]);
  return pod;
}

LimitRange ReadLimitRange(const codec::Node& object) {
  LimitRange lr;
  lr.metadata = ReadObjectMeta(object);
  const codec::Node* limits = object.FindPath({"spec", "limits"});
  if (!limits || !limits->IsArray()) return lr;
  for (const auto& item : limits->items) {
    LimitRangeItem it;
    it.type = codec::StringOf(item.Find("type"));
    it.max = ReadResourceList(item.Find("max"));
    it.min = ReadResourceList(item.Find("min"));
    it.default_limit = ReadResourceList(item.Find("default"));
    it.default_request = ReadResourceList(item.Find("defaultRequest"));
    it.max_limit_request_ratio = ReadResourceList(item.Find("maxLimitRequestRatio"));
    lr.limits.push_back(std::move(it));
  }
  return lr;
}

Namespace ReadNamespace(const codec::Node& object) {
  return Namespace{ReadObjectMeta(object)};
}

}  // namespace podlimits::api

namespace podlimits::api {

PersistentVolumeClaim ReadPersistentVolumeClaim(const codec::Node& object) {
  PersistentVolumeClaim pvc;
  pvc.metadata = ReadObjectMeta(object);
  const codec::Node* spec = object.Find("spec");
  if (!spec) return pvc;
  if (const codec::Node* modes = spec->Find("accessModes"); modes && modes->IsArray()) {
    for (const auto& m : modes->items) pvc.access_modes.push_back(m.scalar);
  }
  if (const codec::Node* r = spec->Find("resources")) {
    // VolumeResourceRequirements has the same limits/requests shape as a container's.
    ResourceRequirements req = ReadResourceRequirements(*r);
    pvc.requests = std::move(req.requests);
    pvc.limits = std::move(req.limits);
  }
  return pvc;
}

std::string_view ContainerListName(ContainerKind kind) {
  switch (kind) {
    case ContainerKind::kInit:
      return "initContainers";
    case ContainerKind::kEphemeral:
      return "ephemeralContainers";
    case ContainerKind::kContainer:
      break;
  }
  return "containers";
}

field::Path ContainerPath(const Container& c) {
  return field::Path("spec").Child(ContainerListName(c.kind)).Index(c.index);
}

}  // namespace podlimits::api
