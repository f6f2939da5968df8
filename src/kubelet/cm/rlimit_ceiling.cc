#include "kubelet/cm/rlimit_ceiling.h"

#include <fmt/format.h>

#include <algorithm>

namespace podlimits::kubelet {
namespace {

RlimValue NrOpen(const NodeCapabilities& caps) {
  return static_cast<RlimValue>(caps.nr_open.value_or(kDefaultNrOpen));
}

RlimValue OwnHard(std::string_view ulimit, const NodeCapabilities& caps) {
  auto it = caps.hard_limits.find(ulimit);
  return it == caps.hard_limits.end() ? kRlimInfinity : it->second;
}

// The limit a too-large value runs into: nr_open first, because no node setting could lift it,
// then the ceiling (whose number and reason then match).
UlimitCeiling LimitHit(std::string_view ulimit, RlimValue value, const UlimitCeiling& ceiling,
                       const NodeCapabilities& caps) {
  if (ulimit == "nofile" && value > NrOpen(caps)) return {NrOpen(caps), kWhyNrOpen};
  return ceiling;
}

std::string Text(RlimValue v) {
  return v == kRlimInfinity ? std::string("unlimited") : std::to_string(v);
}

std::string_view WhyNoCap(const NodeCapabilities& caps) {
  switch (caps.rlimit_holder) {
    case RlimitHolder::kRuncWrapper: return kWhyNoCapSysResourceUnderRuntime;
    case RlimitHolder::kNriPlugin: return kWhyNoCapSysResourceInNriPlugin;
    case RlimitHolder::kKubelet: break;
  }
  return kWhyNoCapSysResource;
}

}  // namespace

UlimitCeiling CeilingFor(std::string_view ulimit, const NodeCapabilities& caps) {
  if (ulimit == "nofile") {
    RlimValue nr_open = NrOpen(caps);
    RlimValue own = OwnHard(ulimit, caps);
    if (!caps.cap_sys_resource && own < nr_open) return {own, WhyNoCap(caps)};
    return {nr_open, kWhyNrOpen};
  }
  if (caps.cap_sys_resource) return {};
  RlimValue own = OwnHard(ulimit, caps);
  if (own == kRlimInfinity) return {};
  return {own, WhyNoCap(caps)};
}

UlimitGrant GrantUlimits(const api::Container& c, const NodeCapabilities& caps) {
  UlimitGrant out;
  if (!c.security_context || !c.security_context->ulimits) return out;
  const auto& ulimits = *c.security_context->ulimits;
  const field::Path list = api::ContainerPath(c).Child("securityContext").Child("ulimits");
  for (std::size_t i = 0; i < ulimits.size(); ++i) {
    const api::Ulimit& u = ulimits[i];
    const UlimitCeiling ceiling = CeilingFor(u.name, caps);
    // Checked hard first: a soft above the ceiling with a hard within it cannot pass validation.
    for (auto [which, value] : {std::pair{"hard", u.hard}, std::pair{"soft", u.soft}}) {
      if (value < 0 || static_cast<RlimValue>(value) <= ceiling.value) continue;
      UlimitCeiling hit = LimitHit(u.name, static_cast<RlimValue>(value), ceiling, caps);
      out.rejection = fmt::format("{}: container {} asks {} {}, above this node's ceiling {}: {}",
                                  list.Index(i).Child(which).String(), field::GoQuote(c.name),
                                  u.name, value, Text(hit.value), hit.why);
      return out;
    }
    auto grant = [&](std::int64_t v) -> RlimValue {
      if (v == -1) return ceiling.value;
      return v < 0 ? 0 : static_cast<RlimValue>(v);
    };
    GrantedUlimit g{u.name, grant(u.soft), grant(u.hard)};
    g.soft = std::min(g.soft, g.hard);
    out.granted.push_back(g);
    // nofile at nr_open is what -1 means on every node (KEP-5758); anything else finite is this
    // node falling short of "unlimited".
    bool asked_unlimited = u.soft == -1 || u.hard == -1;
    // Seed 000: -1 stays "as many as the kernel allows", but a process that closes or polls
    // every descriptor up to its limit slows down with it; past the usual 1048576, say so.
    constexpr RlimValue kUsualNrOpen = 1048576;
    if (u.name == "nofile" && asked_unlimited && ceiling.value > kUsualNrOpen) {
      out.warnings.push_back(Event{
          EventType::kWarning, std::string(kReasonUlimitNofileLarge),
          fmt::format("container {}: ulimit nofile -1 is {} descriptors on this node "
                      "(fs.nr_open), more than {}: programs that close or scan every "
                      "descriptor up to the limit will be slow",
                      field::GoQuote(c.name), ceiling.value, kUsualNrOpen)});
    }
    if (asked_unlimited && ceiling.value != kRlimInfinity && ceiling.why == WhyNoCap(caps)) {
      out.warnings.push_back(
          Event{EventType::kWarning, std::string(kReasonUlimitClamped),
                fmt::format("container {}: ulimit {} -1 (unlimited) granted as {}, this node's "
                            "ceiling: {}",
                            field::GoQuote(c.name), u.name, ceiling.value, ceiling.why)});
    }
  }
  return out;
}

}  // namespace podlimits::kubelet
