#include "admission/psa_checks.h"

namespace podlimits::admission::psa {

std::vector<Check> DefaultChecks() {
  std::vector<Check> checks = BaselineChecks();
  for (auto& c : RestrictedChecks()) checks.push_back(std::move(c));
  return checks;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::string JoinQuote(const std::vector<std::string>& items) {
  return "\"" + Join(items, "\", \"") + "\"";
}

std::string_view Pluralize(std::string_view singular, std::string_view plural, std::size_t n) {
  return n == 1 ? singular : plural;
}

std::string ContainersPhrase(const std::vector<std::string>& names) {
  return std::string(Pluralize("container", "containers", names.size())) + " " + JoinQuote(names);
}

bool RelaxForUserNamespacePod(const api::PodSpec& spec) {
  return spec.host_users == false;
}

}  // namespace podlimits::admission::psa
