#include "validation/cron_job.h"

#include <regex>

#include "api/objects.h"
#include "codec/json_codec.h"
#include "validation/cron_schedule.h"
#include "validation/object_meta.h"
#include "validation/time_zone.h"
#include "validation/workloads.h"

namespace podlimits::validation {
namespace {

using codec::Node;

const field::Path kSpec("spec");

void NonNegative(const Node& spec, const field::Path& path, std::string_view name,
                 field::ErrorList& errs) {
  if (auto v = codec::IntOf(spec.Find(name)); v && *v < 0) {
    errs.push_back(field::Invalid(path.Child(name), *v, "must be greater than or equal to 0"));
  }
}

void ValidateSchedule(const Node& spec, const Node* old_spec, field::ErrorList& errs) {
  const field::Path path = kSpec.Child("schedule");
  const std::string schedule = codec::StringOf(spec.Find("schedule"));
  if (schedule.empty()) {
    errs.push_back(field::Required(path, ""));
    return;
  }
  if (auto parsed = ParseCronSchedule(schedule); !parsed) {
    errs.push_back(field::Invalid(path, schedule, parsed.error().detail));
  }
  const bool allow_tz =
      old_spec != nullptr && codec::StringOf(old_spec->Find("schedule")).find("TZ") != std::string::npos;
  const bool has_tz = schedule.find("TZ") != std::string::npos;
  const Node* zone = spec.Find("timeZone");
  const bool zone_set = zone != nullptr && !zone->IsNull();
  if (allow_tz && has_tz && zone_set) {
    errs.push_back(field::Invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"));
  } else if (!allow_tz && has_tz) {
    errs.push_back(field::Invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
  }
}

void ValidateTimeZone(const Node& spec, const Node* old_spec, field::ErrorList& errs) {
  const Node* zone = spec.Find("timeZone");
  if (zone == nullptr || zone->IsNull()) return;
  const std::string name = codec::StringOf(zone);
  if (old_spec != nullptr && old_spec->Find("timeZone") &&
      codec::StringOf(old_spec->Find("timeZone")) == name) {
    return;  // unchanged: not checked again
  }
  const field::Path path = kSpec.Child("timeZone");
  if (name.empty()) {
    errs.push_back(field::Invalid(path, name, "timeZone must be nil or non-empty string"));
    return;
  }
  // IANA naming: components of letters, '.', '-', '_' (digits and '+' for legacy names).
  static const std::regex kPart("^[A-Za-z.\\-_0-9+]{1,14}$");
  std::size_t start = 0;
  for (;;) {
    const std::size_t slash = name.find('/', start);
    const std::string part = name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "." || part == ".." || part.starts_with('-') || !std::regex_match(part, kPart)) {
      errs.push_back(field::Invalid(path, name, "unknown time zone " + name));
      return;
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "local") {
    errs.push_back(field::Invalid(path, name, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"));
  }
  if (auto loaded = LoadTimeZone(name); !loaded) {
    errs.push_back(field::Invalid(path, name, loaded.error().detail));
  }
}

void ValidateConcurrencyPolicy(const Node& spec, field::ErrorList& errs) {
  const std::string policy = codec::StringOf(spec.Find("concurrencyPolicy"));
  const field::Path path = kSpec.Child("concurrencyPolicy");
  if (policy.empty()) {
    errs.push_back(field::Required(path, ""));
  } else if (policy != "Allow" && policy != "Forbid" && policy != "Replace") {
    errs.push_back(field::NotSupported(path, policy, {"Allow", "Forbid", "Replace"}));
  }
}

// ValidateJobTemplateSpec: the Job spec's own rules and the pod template's.
ValidationResult ValidateJobTemplate(const Node& spec, const FeatureGates& gates) {
  ValidationResult out;
  const field::Path path = kSpec.Child("jobTemplate").Child("spec");
  static const Node kEmpty = Node::Object();
  const Node* job_spec = spec.FindPath({"jobTemplate", "spec"});
  const Node& js = job_spec && job_spec->IsObject() ? *job_spec : kEmpty;
  for (const char* f : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                        "ttlSecondsAfterFinished"}) {
    NonNegative(js, path, f, out.errors);
  }
  // The template as a workload's spec.template: its errors and warnings come back under
  // "spec.template.", moved under "spec.jobTemplate.spec.template.".
  Node workload = Node::Object();
  if (const Node* t = js.Find("template")) workload.Ensure("spec").Set("template", *t);
  ValidationResult pod = ValidatePodTemplate(workload, gates);
  auto move_path = [](std::string text) {
    if (text.starts_with("spec.template")) return "spec.jobTemplate.spec" + text.substr(4);
    return text;
  };
  for (field::Error& e : pod.errors) {
    e.field = move_path(e.field);
    out.errors.push_back(std::move(e));
  }
  for (std::string& w : pod.warnings) out.warnings.push_back(move_path(std::move(w)));
  const std::string restart = codec::StringOf(js.FindPath({"template", "spec", "restartPolicy"}));
  if (restart != "OnFailure" && restart != "Never") {
    out.errors.push_back(field::NotSupported(path.Child("template").Child("spec").Child("restartPolicy"),
                                             restart, {"OnFailure", "Never"}));
  }
  if (const Node* selector = js.Find("selector"); selector && !selector->IsNull()) {
    out.errors.push_back(field::Invalid(path.Child("selector"), field::Json{codec::EncodeJsonSorted(*selector)},
                                        "`selector` will be auto-generated"));
  }
  if (const Node* manual = js.Find("manualSelector"); manual && manual->AsBool()) {
    out.errors.push_back(field::NotSupported(path.Child("manualSelector"), true, {"nil", "false"}));
  }
  return out;
}

}  // namespace

ValidationResult ValidateCronJob(const Node& object, const Node* old, const FeatureGates& gates) {
  ValidationResult out;
  const api::ObjectMeta meta = api::ReadObjectMeta(object);
  out.errors = ValidateObjectMeta(meta, true, NameRule::kDNSSubdomain, field::Path("metadata"));
  static const Node kEmpty = Node::Object();
  const Node* spec_node = object.Find("spec");
  const Node& spec = spec_node && spec_node->IsObject() ? *spec_node : kEmpty;
  const Node* old_spec = old ? old->Find("spec") : nullptr;
  ValidateSchedule(spec, old_spec, out.errors);
  NonNegative(spec, kSpec, "startingDeadlineSeconds", out.errors);
  ValidateTimeZone(spec, old_spec, out.errors);
  ValidateConcurrencyPolicy(spec, out.errors);
  ValidationResult job = ValidateJobTemplate(spec, gates);
  field::Append(out.errors, std::move(job.errors));
  out.warnings = std::move(job.warnings);
  NonNegative(spec, kSpec, "successfulJobsHistoryLimit", out.errors);
  NonNegative(spec, kSpec, "failedJobsHistoryLimit", out.errors);
  if (old == nullptr && meta.name.size() > 52) {
    out.errors.push_back(field::Invalid(field::Path("metadata").Child("name"), meta.name,
                                        "must be no more than 52 characters"));
  }
  return out;
}

}  // namespace podlimits::validation
