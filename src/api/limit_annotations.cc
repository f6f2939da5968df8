#include "api/limit_annotations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "base/numbers.h"
#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "resource/quantity.h"

namespace podlimits::api {

namespace {

field::Path AnnotationPath(std::string_view key) {
  return field::Path("metadata").Child("annotations").Key(key);
}

// The container (or init container) named `name`, and its path.
codec::Node* FindContainer(codec::Node& pod, std::string_view name, std::string* path) {
  for (const char* list : {"containers", "initContainers"}) {
    codec::Node* containers = pod.FindPath({"spec", list});
    if (containers == nullptr || !containers->IsArray()) continue;
    for (std::size_t i = 0; i < containers->items.size(); ++i) {
      if (codec::StringOf(containers->items[i].Find("name")) == name) {
        *path = fmt::format("spec.{}[{}]", list, i);
        return &containers->items[i];
      }
    }
  }
  return nullptr;
}

// The container an annotation names, or nullptr with the error naming the annotation.
codec::Node* NamedContainer(codec::Node& pod, std::string_view name, std::string_view key,
                     const std::string& value, std::string* path, field::ErrorList& errors) {
  codec::Node* c = FindContainer(pod, name, path);
  if (c == nullptr) {
    errors.push_back(field::Invalid(
        AnnotationPath(key), value,
        fmt::format("no container named {} in the pod", field::GoQuote(name))));
  }
  return c;
}

// RLIMIT_NOFILE, rlimit_nofile, nofile: the field's name ("nofile").
std::string UlimitName(std::string_view type) {
  std::string name(type);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name.starts_with("rlimit_")) name.erase(0, 7);
  return name;
}

// The ulimit-adjuster's YAML list as the field's list, or why it is not one.
Result<codec::Node> ParseUlimits(std::string_view text) {
  auto docs = codec::ParseYamlStream(text);
  if (!docs) return Failure(codec::DescribeYamlError(docs.error()));
  if (docs->size() != 1 || !(*docs)[0].node.IsArray()) {
    return Failure("must be a YAML list of {type, soft, hard}");
  }
  codec::Node out = codec::Node::Array();
  for (const codec::Node& item : (*docs)[0].node.items) {
    if (!item.IsObject()) return Failure("must be a YAML list of {type, soft, hard}");
    const codec::Node* type = item.Find("type");
    if (type == nullptr || !type->IsString() || type->scalar.empty()) {
      return Failure("every entry needs a type (e.g. RLIMIT_NOFILE)");
    }
    codec::Node ulimit = codec::Node::Object();
    ulimit.Set("name", codec::Node::String(UlimitName(type->scalar)));
    for (const char* bound : {"soft", "hard"}) {
      const codec::Node* v = item.Find(bound);
      if (v == nullptr || v->IsNull()) {
        ulimit.Set(bound, codec::Node::Int(0));  // as the ulimit-adjuster reads a missing one
        continue;
      }
      if (v->kind != codec::Node::Kind::kNumber || v->scalar.find_first_of(".eE") != std::string::npos) {
        return Failure(fmt::format("{} of {} must be an integer", bound, type->scalar));
      }
      ulimit.Set(bound, *v);
    }
    for (const auto& m : item.members) {
      if (m.key != "type" && m.key != "soft" && m.key != "hard") {
        return Failure(fmt::format("unknown key {} (an entry has type, soft and hard)",
                                           field::GoQuote(m.key)));
      }
    }
    out.items.push_back(std::move(ulimit));
  }
  return out;
}

// ParseUlimits through a small per-thread memo. The pods of one workload (a Deployment's
// replicas, a Job's) carry the same annotation text, and libyaml's parse of even a two-entry
// list is most of a webhook review's CPU (docs/benchmarks.md, issue 32): a text seen lately is
// answered from its earlier parse, which the same text always gives. Small texts only, a
// handful of them, the oldest replaced first, so the memo stays a few kilobytes per thread.
Result<codec::Node> ParseUlimitsRemembered(std::string_view text) {
  constexpr std::size_t kEntries = 16;
  constexpr std::size_t kMaxTextBytes = 1024;
  if (text.size() > kMaxTextBytes) return ParseUlimits(text);
  struct Entry {
    std::string text;
    Result<codec::Node> parsed;
  };
  thread_local std::vector<Entry> memo;
  thread_local std::size_t next = 0;
  for (const Entry& e : memo) {
    if (e.text == text) return e.parsed;
  }
  Result<codec::Node> parsed = ParseUlimits(text);
  Entry entry{std::string(text), parsed};
  if (memo.size() < kEntries) {
    memo.push_back(std::move(entry));
  } else {
    memo[next] = std::move(entry);
    next = (next + 1) % kEntries;
  }
  return parsed;
}

// Sets `at` (an object) [key] to `value` unless it holds something else already: then the
// error says which field the annotation disagrees with.
bool SetUnlessConflicting(codec::Node& at, std::string_view key, codec::Node value, const std::string& field,
                          std::string_view annotation, const std::string& annotation_value,
                          field::ErrorList& errors) {
  if (const codec::Node* have = at.Find(key); have && !have->IsNull()) {
    if (codec::EncodeJsonSorted(*have) == codec::EncodeJsonSorted(value)) return true;
    errors.push_back(field::Invalid(AnnotationPath(annotation), annotation_value,
                                    fmt::format("conflicts with {}", field)));
    return false;
  }
  at.Set(key, std::move(value));
  return true;
}

bool PodSetsLimitFields(const codec::Node& pod) {
  if (pod.FindPath({"spec", "resources", "limits", "pid"}) != nullptr) return true;
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    const codec::Node* containers = pod.FindPath({"spec", list});
    if (containers == nullptr || !containers->IsArray()) continue;
    for (const codec::Node& c : containers->items) {
      const codec::Node* sc = c.Find("securityContext");
      if (sc && (sc->Find("ulimits") || sc->Find("cgroupOptions"))) return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string_view> AnnotatedContainer(std::string_view key) {
  for (std::string_view prefix :
       {kUlimitsKeyPrefix, kDeprecatedUlimitsKeyPrefix, kWritableKeyPrefix, kNriWritableKeyPrefix}) {
    if (key.starts_with(prefix)) return key.substr(prefix.size());
  }
  return std::nullopt;
}

bool IsWritableAnnotation(std::string_view key) {
  // kNriWritableKey is also the prefix of its per-container keys.
  return key.starts_with(kWritableKeyPrefix) || key.starts_with(kNriWritableKey) ||
         key == kCrioWritableKey;
}

bool IsLimitAnnotation(std::string_view key) {
  return AnnotatedContainer(key) || IsWritableAnnotation(key) || key == kPodPidLimitKey;
}

AnnotatedFields ApplyLimitAnnotations(codec::Node& pod) {
  AnnotatedFields out;
  const codec::Node* annotations = pod.FindPath({"metadata", "annotations"});
  if (annotations == nullptr || !annotations->IsObject()) {
    out.any = PodSetsLimitFields(pod);
    return out;
  }
  const codec::Node kept = *annotations;  // the loop writes into the pod
  auto writable = [&](std::string_view key, const std::string& value, std::string_view name) {
    auto on = ParseGoBool(value);
    if (!on) {
      out.errors.push_back(field::Invalid(AnnotationPath(key), value, "must be true or false"));
      return;
    }
    if (!*on) return;  // read-only is what a container gets anyway
    out.any = true;
    std::vector<std::string> names;
    if (!name.empty()) {
      names.emplace_back(name);
    } else {
      for (const char* list : {"containers", "initContainers"}) {
        const codec::Node* containers = pod.FindPath({"spec", list});
        if (containers == nullptr || !containers->IsArray()) continue;
        for (const codec::Node& c : containers->items) names.push_back(codec::StringOf(c.Find("name")));
      }
    }
    for (const auto& n : names) {
      // A container's own key wins over the pod-wide ones.
      if (name.empty() && (kept.Find(std::string(kWritableKeyPrefix) + n) ||
                           kept.Find(std::string(kNriWritableKeyPrefix) + n))) {
        continue;
      }
      std::string path;
      codec::Node* c = NamedContainer(pod, n, key, value, &path, out.errors);
      if (c == nullptr) continue;
      codec::Node& options = c->Ensure("securityContext").Ensure("cgroupOptions");
      SetUnlessConflicting(options, "mountMode", codec::Node::String(std::string(kMountModeWritable)),
                           path + ".securityContext.cgroupOptions.mountMode", key, value,
                           out.errors);
    }
  };
  for (const auto& m : kept.members) {
    const std::string& key = m.key;
    const std::string value = codec::StringOf(&m.value);
    const bool deprecated = key.starts_with(kDeprecatedUlimitsKeyPrefix);
    if (key.starts_with(kUlimitsKeyPrefix) || deprecated) {
      out.any = true;
      const std::string name =
          key.substr((deprecated ? kDeprecatedUlimitsKeyPrefix : kUlimitsKeyPrefix).size());
      if (deprecated) {
        out.warnings.push_back(fmt::format("metadata.annotations[{}]: deprecated, use {}{}", key,
                                           kUlimitsKeyPrefix, name));
      }
      auto ulimits = ParseUlimitsRemembered(value);
      if (!ulimits) {
        out.errors.push_back(field::Invalid(AnnotationPath(key), value, ulimits.error().Message()));
        continue;
      }
      std::string path;
      codec::Node* c = NamedContainer(pod, name, key, value, &path, out.errors);
      if (c == nullptr) continue;
      SetUnlessConflicting(c->Ensure("securityContext"), "ulimits", std::move(*ulimits),
                           path + ".securityContext.ulimits", key, value, out.errors);
    } else if (key == kPodPidLimitKey) {
      out.any = true;
      auto q = resource::Quantity::Parse(value);
      if (!q) {
        out.errors.push_back(field::Invalid(AnnotationPath(key), value,
                                            "must be a quantity (a number of processes)"));
        continue;
      }
      codec::Node& limits = pod.Ensure("spec").Ensure("resources").Ensure("limits");
      SetUnlessConflicting(limits, "pid", codec::Node::String(value), "spec.resources.limits.pid", key,
                           value, out.errors);
    } else if (key.starts_with(kWritableKeyPrefix)) {
      writable(key, value, std::string_view(key).substr(kWritableKeyPrefix.size()));
    } else if (key.starts_with(kNriWritableKeyPrefix)) {
      writable(key, value, std::string_view(key).substr(kNriWritableKeyPrefix.size()));
    } else if (key == kNriWritableKey || key == kCrioWritableKey) {
      writable(key, value, "");
    }
  }
  out.any = out.any || PodSetsLimitFields(pod);
  return out;
}

}  // namespace podlimits::api
