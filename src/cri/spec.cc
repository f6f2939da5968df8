#include "cri/spec.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <string_view>

namespace podlimits::cri {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void Str(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void Key(Writer& w, std::string_view key) {
  Str(w, key);
}

void StrArray(Writer& w, std::string_view key, const std::vector<std::string>& items) {
  Key(w, key);
  w.StartArray();
  for (const auto& s : items) Str(w, s);
  w.EndArray();
}

void StrMap(Writer& w, std::string_view key, const std::map<std::string, std::string>& items) {
  Key(w, key);
  w.StartObject();
  for (const auto& [k, v] : items) {
    Key(w, k);
    Str(w, v);
  }
  w.EndObject();
}

void WriteProcess(Writer& w, const SpecProcess& p) {
  Key(w, "process");
  w.StartObject();
  Key(w, "terminal");
  w.Bool(p.terminal);
  Key(w, "user");
  w.StartObject();
  Key(w, "uid");
  w.Uint(p.user.uid);
  Key(w, "gid");
  w.Uint(p.user.gid);
  Key(w, "additionalGids");
  w.StartArray();
  for (auto gid : p.user.additional_gids) w.Uint(gid);
  w.EndArray();
  w.EndObject();
  StrArray(w, "args", p.args);
  StrArray(w, "env", p.env);
  Key(w, "cwd");
  Str(w, p.cwd);
  if (p.capabilities) {
    Key(w, "capabilities");
    w.StartObject();
    StrArray(w, "bounding", p.capabilities->bounding);
    StrArray(w, "effective", p.capabilities->effective);
    StrArray(w, "permitted", p.capabilities->permitted);
    StrArray(w, "inheritable", p.capabilities->inheritable);
    StrArray(w, "ambient", p.capabilities->ambient);
    w.EndObject();
  }
  Key(w, "rlimits");
  w.StartArray();
  for (const auto& r : p.rlimits) {
    w.StartObject();
    Key(w, "type");
    Str(w, r.type);
    // Uint64: RLIM_INFINITY must reach the runtime as 18446744073709551615 exactly.
    Key(w, "soft");
    w.Uint64(r.soft);
    Key(w, "hard");
    w.Uint64(r.hard);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "noNewPrivileges");
  w.Bool(p.no_new_privileges);
  if (p.apparmor_profile) {
    Key(w, "apparmorProfile");
    Str(w, *p.apparmor_profile);
  }
  if (p.selinux_label) {
    Key(w, "selinuxLabel");
    Str(w, *p.selinux_label);
  }
  w.EndObject();
}

void WriteSeccomp(Writer& w, const SpecSeccomp& s) {
  Key(w, "seccomp");
  w.StartObject();
  Key(w, "defaultAction");
  Str(w, s.default_action);
  if (s.default_errno_ret) {
    Key(w, "defaultErrnoRet");
    w.Uint(*s.default_errno_ret);
  }
  StrArray(w, "architectures", s.architectures);
  if (!s.flags.empty()) StrArray(w, "flags", s.flags);
  Key(w, "syscalls");
  w.StartArray();
  for (const auto& sc : s.syscalls) {
    w.StartObject();
    StrArray(w, "names", sc.names);
    Key(w, "action");
    Str(w, sc.action);
    if (sc.errno_ret) {
      Key(w, "errnoRet");
      w.Uint(*sc.errno_ret);
    }
    if (!sc.args.empty()) {
      Key(w, "args");
      w.StartArray();
      for (const auto& a : sc.args) {
        w.StartObject();
        Key(w, "index");
        w.Uint(a.index);
        Key(w, "value");
        w.Uint64(a.value);
        if (a.value_two != 0) {
          Key(w, "valueTwo");
          w.Uint64(a.value_two);
        }
        Key(w, "op");
        Str(w, a.op);
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteLinux(Writer& w, const SpecLinux& l) {
  Key(w, "linux");
  w.StartObject();
  Key(w, "namespaces");
  w.StartArray();
  for (const auto& ns : l.namespaces) {
    w.StartObject();
    Key(w, "type");
    Str(w, ns.type);
    if (!ns.path.empty()) {
      Key(w, "path");
      Str(w, ns.path);
    }
    w.EndObject();
  }
  w.EndArray();
  Key(w, "cgroupsPath");
  Str(w, l.cgroups_path);
  if (!l.unified.empty()) {
    Key(w, "resources");
    w.StartObject();
    StrMap(w, "unified", l.unified);
    w.EndObject();
  }
  if (!l.sysctl.empty()) StrMap(w, "sysctl", l.sysctl);
  if (l.seccomp) WriteSeccomp(w, *l.seccomp);
  if (!l.masked_paths.empty()) StrArray(w, "maskedPaths", l.masked_paths);
  if (!l.readonly_paths.empty()) StrArray(w, "readonlyPaths", l.readonly_paths);
  if (!l.mount_label.empty()) {
    Key(w, "mountLabel");
    Str(w, l.mount_label);
  }
  if (l.rootfs_propagation) {
    Key(w, "rootfsPropagation");
    Str(w, *l.rootfs_propagation);
  }
  w.EndObject();
}

}  // namespace

SpecNamespace* Spec::FindNamespace(std::string_view type) {
  for (auto& ns : linux.namespaces) {
    if (ns.type == type) return &ns;
  }
  return nullptr;
}

std::string SerializeSpec(const Spec& spec) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  Key(w, "ociVersion");
  Str(w, spec.oci_version);
  WriteProcess(w, spec.process);
  Key(w, "root");
  w.StartObject();
  Key(w, "path");
  Str(w, spec.root.path);
  Key(w, "readonly");
  w.Bool(spec.root.readonly);
  w.EndObject();
  if (spec.hostname) {
    Key(w, "hostname");
    Str(w, *spec.hostname);
  }
  Key(w, "mounts");
  w.StartArray();
  for (const auto& m : spec.mounts) {
    w.StartObject();
    Key(w, "destination");
    Str(w, m.destination);
    Key(w, "type");
    Str(w, m.type);
    Key(w, "source");
    Str(w, m.source);
    StrArray(w, "options", m.options);
    w.EndObject();
  }
  w.EndArray();
  WriteLinux(w, spec.linux);
  if (!spec.annotations.empty()) StrMap(w, "annotations", spec.annotations);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace podlimits::cri
