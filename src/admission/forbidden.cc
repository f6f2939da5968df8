#include "admission/forbidden.h"

#include "field/field.h"

namespace podlimits::admission {

std::string ForbiddenMessage(std::string_view resource, const api::ObjectMeta& meta,
                             std::string_view err) {
  std::string_view name = !meta.name.empty()            ? std::string_view(meta.name)
                          : !meta.generate_name.empty() ? std::string_view(meta.generate_name)
                                                        : std::string_view("Unknown");
  std::string out(resource);
  out += ' ';
  out += field::GoQuote(name);
  out += " is forbidden: ";
  out += err;
  return out;
}

}  // namespace podlimits::admission
