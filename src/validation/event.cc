#include "validation/event.h"

#include <fmt/format.h>

#include "validation/object_meta.h"

namespace podlimits::validation {

using codec::Node;

namespace {

constexpr std::size_t kReportingInstanceLengthLimit = 128;

}  // namespace

field::ErrorList ValidateEvent(const Node& event) {
  field::ErrorList errs;
  const std::string ns = codec::StringOf(event.FindPath({"metadata", "namespace"}));
  const std::string involved_ns = codec::StringOf(event.FindPath({"involvedObject", "namespace"}));
  const field::Path involved = field::Path("involvedObject").Child("namespace");
  const Node* event_time = event.Find("eventTime");
  if (event_time == nullptr || event_time->IsNull() || codec::StringOf(event_time).empty()) {
    const bool matches =
        involved_ns.empty() ? (ns.empty() || ns == "default") : ns == involved_ns;
    if (!matches) errs.push_back(field::Invalid(involved, involved_ns, "does not match event.namespace"));
  } else {
    if (involved_ns.empty() && ns != "default" && ns != "kube-system") {
      errs.push_back(field::Invalid(involved, involved_ns, "does not match event.namespace"));
    }
    const std::string component = codec::StringOf(event.Find("reportingComponent"));
    if (component.empty()) {
      errs.push_back(field::Required(field::Path("reportingComponent"), ""));
    }
    for (const auto& msg : IsQualifiedName(component)) {
      if (!component.empty()) {
        errs.push_back(field::Invalid(field::Path("reportingComponent"), component, msg));
      }
    }
    const std::string instance = codec::StringOf(event.Find("reportingInstance"));
    if (instance.empty()) errs.push_back(field::Required(field::Path("reportingInstance"), ""));
    if (instance.size() > kReportingInstanceLengthLimit) {
      errs.push_back(field::Invalid(
          field::Path("reportingInstance"), "",
          fmt::format("can have at most {} characters", kReportingInstanceLengthLimit)));
    }
    if (codec::StringOf(event.Find("action")).empty()) {
      errs.push_back(field::Required(field::Path("action"), ""));
    }
  }
  for (const auto& msg : IsDNS1123Subdomain(ns)) {
    errs.push_back(field::Invalid(field::Path("namespace"), ns, msg));
  }
  return errs;
}

}  // namespace podlimits::validation
