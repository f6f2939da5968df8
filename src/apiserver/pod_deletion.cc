#include "apiserver/pod_deletion.h"

#include <fmt/format.h>

#include <expected>

#include "base/numbers.h"
#include "codec/json_codec.h"
#include "printers/human_duration.h"

namespace podlimits::apiserver {

using codec::Node;

namespace {


std::string Str(const Node& n, std::initializer_list<std::string_view> path) {
  const Node* at = n.FindPath(path);
  return at && at->IsString() ? at->scalar : std::string();
}

}  // namespace

Result<DeleteOptions> ParseDeleteOptions(std::string_view body,
                                         const std::optional<std::string>& grace_query) {
  DeleteOptions out;
  if (body.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    auto nodes = codec::ParseJsonStream(body);
    if (!nodes || nodes->size() != 1 || !(*nodes)[0].IsObject()) {
      return Failure(
          "the body of the request was in an unknown format - accepted media "
          "types include: application/json, application/yaml");
    }
    const Node& options = (*nodes)[0];
    if (const Node* g = options.Find("gracePeriodSeconds"); g && !g->IsNull()) {
      auto v = ParseInt64(g->scalar);
      if (!v || g->kind != Node::Kind::kNumber) {
        return Failure("gracePeriodSeconds: must be an integer");
      }
      out.grace_period_seconds = v;
    }
    if (const Node* dry = options.Find("dryRun"); dry && dry->IsArray()) {
      for (const Node& v : dry->items) {
        if (!v.IsString() || v.scalar != "All") {
          return Failure(
              fmt::format("dryRun: Unsupported value: {}: supported values: "
                          "\"All\"",
                          codec::EncodeJson(*dry, 0)));
        }
        out.dry_run = true;
      }
    }
    out.propagation_policy = Str(options, {"propagationPolicy"});
    if (const Node* orphan = options.Find("orphanDependents");
        orphan && orphan->AsBool() && out.propagation_policy.empty()) {
      out.propagation_policy = "Orphan";
    }
    out.precondition_uid = Str(options, {"preconditions", "uid"});
    out.precondition_resource_version = Str(options, {"preconditions", "resourceVersion"});
  }
  if (grace_query && !out.grace_period_seconds) {
    auto v = ParseInt64(*grace_query);
    if (!v) return Failure("gracePeriodSeconds: must be an integer");
    out.grace_period_seconds = v;
  }
  return out;
}

std::optional<PodDeletion> DecidePodDeletion(const Node& pod, const DeleteOptions& options) {
  std::int64_t grace = 30;
  if (const Node* g = pod.FindPath({"spec", "terminationGracePeriodSeconds"});
      g && g->kind == Node::Kind::kNumber) {
    grace = ParseInt64(g->scalar).value_or(30);
  }
  if (options.grace_period_seconds) grace = *options.grace_period_seconds;
  // CheckGracefulDelete: a negative period is taken as 1 second (the old clients' -1 was "the
  // pod's default", which they no longer send).
  if (grace < 0) grace = 1;
  const std::string phase = Str(pod, {"status", "phase"});
  if (Str(pod, {"spec", "nodeName"}).empty() || phase == "Succeeded" || phase == "Failed") {
    grace = 0;
  }
  if (const Node* earlier = pod.FindPath({"metadata", "deletionGracePeriodSeconds"});
      earlier && earlier->kind == Node::Kind::kNumber) {
    const std::int64_t before = ParseInt64(earlier->scalar).value_or(0);
    if (grace != 0 && grace >= before) return std::nullopt;  // only a shorter period changes it
  }
  return PodDeletion{grace == 0, grace};
}

void MarkPodDeleting(Node& pod, std::int64_t grace_seconds, std::chrono::sys_seconds now) {
  Node& meta = pod.Ensure("metadata");
  meta.Set("deletionTimestamp",
           Node::String(printers::FormatApiTime(now + std::chrono::seconds(grace_seconds))));
  meta.Set("deletionGracePeriodSeconds", Node::Int(grace_seconds));
}

}  // namespace podlimits::apiserver
