#include "fieldmanager/managed_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "codec/json_codec.h"

namespace podlimits::fieldmanager {

using codec::Node;

namespace {

// One rune of UTF-8 at `i` and its length; U+FFFD with length 1 for a byte that starts none.
std::pair<char32_t, std::size_t> DecodeRune(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return {c, 1};
  std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return {0xFFFD, 1};
  char32_t r = c & (0xFF >> (n + 1));
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return {0xFFFD, 1};
    r = (r << 6) | (b(i + k) & 0x3F);
  }
  return {r, n};
}

// Go's unicode.IsPrint for the runes a manager name meets: controls, separators other than the
// ASCII space, and format characters are not printable.
bool IsPrint(char32_t r) {
  if (r < 0x20 || (r >= 0x7F && r <= 0x9F)) return false;
  if (r == 0xA0 || r == 0xAD || r == 0x1680 || r == 0x3000 || r == 0xFEFF) return false;
  if ((r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F) || (r >= 0x205F && r <= 0x206F))
    return false;
  if (r >= 0xD800 && r <= 0xDFFF) return false;
  return true;
}

std::string StringMember(const Node& n, std::string_view key) { return codec::StringOf(n.Find(key)); }

// Seconds since the epoch of an RFC 3339 time written by the apiserver ("2026-11-29T03:04:05Z");
// 0 when absent, as upstream sorts a missing time.
long long Seconds(const std::optional<std::string>& t) {
  if (!t) return 0;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (std::sscanf(t->c_str(), "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &s) != 6) return 0;
  const auto days = std::chrono::sys_days(std::chrono::year(y) / std::chrono::month(static_cast<unsigned>(mo)) / std::chrono::day(static_cast<unsigned>(d))).time_since_epoch().count();
  return days * 86400LL + h * 3600 + mi * 60 + s;
}

}  // namespace

bool ManagedEntry::SameManager(const ManagedEntry& other) const {
  return manager == other.manager && operation == other.operation &&
         subresource == other.subresource && (applied() || api_version == other.api_version);
}

Result<ManagedFields> DecodeManagedFields(const Node* list) {
  ManagedFields out;
  if (list == nullptr || list->IsNull()) return out;
  if (!list->IsArray()) return Failure("managedFields must be a list");
  std::unordered_map<std::string, std::size_t> seen;  // identity -> index in out
  for (std::size_t i = 0; i < list->items.size(); ++i) {
    const Node& e = list->items[i];
    ManagedEntry entry;
    entry.manager = StringMember(e, "manager");
    entry.operation = StringMember(e, "operation");
    entry.api_version = StringMember(e, "apiVersion");
    entry.subresource = StringMember(e, "subresource");
    if (entry.operation != "Apply" && entry.operation != "Update") {
      return Failure("operation must be `Apply` or `Update`");
    }
    if (entry.api_version.empty()) return Failure("apiVersion must not be empty");
    const std::string type = StringMember(e, "fieldsType");
    if (type.empty()) return Failure(fmt::format("missing fieldsType in managed fields entry {}", i));
    if (type != "FieldsV1") {
      return Failure(fmt::format("invalid fieldsType {} in managed fields entry {}",
                                 field::GoQuote(type), i));
    }
    if (const Node* t = e.Find("time"); t && t->IsString()) entry.time = t->scalar;
    if (const Node* f = e.Find("fieldsV1"); f && !f->IsNull()) {
      auto set = FieldSet::FromFieldsV1(*f);
      if (!set) {
        return std::unexpected(set.error().Wrap(
            fmt::format("error decoding versioned set from entry {}: error decoding set", i)));
      }
      entry.fields = std::move(*set);
    }
    // A later entry of the same identity replaces an earlier one, as upstream's map does.
    std::string identity = entry.manager + '\n' + entry.operation + '\n' + entry.subresource +
                           '\n' + (entry.applied() ? std::string() : entry.api_version);
    if (auto [at, added] = seen.emplace(std::move(identity), out.size()); !added) {
      out[at->second] = std::move(entry);
    } else {
      out.push_back(std::move(entry));
    }
  }
  return out;
}

bool IsResetManagedFields(const Node* list) {
  if (list == nullptr || !list->IsArray()) return false;
  if (list->items.empty()) return true;
  return list->items.size() == 1 && list->items[0].IsObject() && list->items[0].members.empty();
}

Node EncodeManagedFields(ManagedFields managed) {
  if (managed.empty()) return Node::Null();
  std::vector<long long> seconds(managed.size());
  std::vector<std::size_t> order(managed.size());
  for (std::size_t i = 0; i < managed.size(); ++i) {
    seconds[i] = Seconds(managed[i].time);
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const ManagedEntry& p = managed[a];
    const ManagedEntry& q = managed[b];
    if (p.operation != q.operation) return p.operation < q.operation;
    if (seconds[a] != seconds[b]) return seconds[a] < seconds[b];
    if (p.manager != q.manager) return p.manager < q.manager;
    if (p.api_version != q.api_version) return p.api_version < q.api_version;
    return p.subresource < q.subresource;
  });
  Node list = Node::Array();
  for (std::size_t i : order) {
    const ManagedEntry& m = managed[i];
    Node e = Node::Object();
    if (!m.manager.empty()) e.Set("manager", Node::String(m.manager));
    e.Set("operation", Node::String(m.operation));
    e.Set("apiVersion", Node::String(m.api_version));
    if (m.time) e.Set("time", Node::String(*m.time));
    e.Set("fieldsType", Node::String("FieldsV1"));
    e.Set("fieldsV1", m.fields.ToFieldsV1());
    if (!m.subresource.empty()) e.Set("subresource", Node::String(m.subresource));
    list.items.push_back(std::move(e));
  }
  return list;
}

field::ErrorList ValidateFieldManager(std::string_view manager, const field::Path& path) {
  field::ErrorList errs;
  if (manager.size() > kFieldManagerMaxLength) {
    errs.push_back(field::TooLong(path, field::NoValue{}, kFieldManagerMaxLength));
  }
  for (std::size_t i = 0; i < manager.size();) {
    auto [r, n] = DecodeRune(manager, i);
    if (!IsPrint(r)) {
      errs.push_back(field::Invalid(path, std::string(manager),
                                    fmt::format("invalid character U+{:04X} (at position {})",
                                                static_cast<std::uint32_t>(r), i)));
    }
    i += n;
  }
  return errs;
}

field::ErrorList ValidateManagedFields(const Node* list, const field::Path& path) {
  field::ErrorList errs;
  if (list == nullptr || !list->IsArray()) return errs;
  for (std::size_t i = 0; i < list->items.size(); ++i) {
    const Node& e = list->items[i];
    const field::Path at = path.Index(i);
    const std::string operation = StringMember(e, "operation");
    if (operation != "Apply" && operation != "Update") {
      errs.push_back(field::Invalid(at.Child("operation"), operation, "must be `Apply` or `Update`"));
    }
    const std::string type = StringMember(e, "fieldsType");
    if (!type.empty() && type != "FieldsV1") {
      errs.push_back(field::Invalid(at.Child("fieldsType"), type, "must be `FieldsV1`"));
    }
    field::Append(errs, ValidateFieldManager(StringMember(e, "manager"), at.Child("manager")));
    if (StringMember(e, "subresource").size() > 256) {
      errs.push_back(field::TooLong(at.Child("subresource"), field::NoValue{}, 256));
    }
  }
  return errs;
}

std::string PrefixFromUserAgent(std::string_view user_agent) {
  const std::string_view head = user_agent.substr(0, user_agent.find('/'));
  std::string out;
  for (std::size_t i = 0; i < head.size();) {
    auto [r, n] = DecodeRune(head, i);
    if (IsPrint(r)) {
      if (out.size() + n > kFieldManagerMaxLength) break;
      out.append(head.substr(i, n));
    }
    i += n;
  }
  return out;
}

void CapUpdateManagers(ManagedFields& managed, std::size_t max) {
  std::vector<std::size_t> updaters;
  for (std::size_t i = 0; i < managed.size(); ++i) {
    if (!managed[i].applied()) updaters.push_back(i);
  }
  if (updaters.size() <= max) return;
  std::vector<long long> seconds(managed.size());
  for (std::size_t i : updaters) seconds[i] = Seconds(managed[i].time);
  std::sort(updaters.begin(), updaters.end(), [&](std::size_t a, std::size_t b) {
    if (seconds[a] != seconds[b]) return seconds[a] < seconds[b];
    return managed[a].manager < managed[b].manager;
  });
  // The first (oldest) manager of each apiVersion becomes the bucket once a second one of the
  // same version is merged into it; every merged one is dropped.
  std::map<std::string, std::size_t> first_of_version;
  std::map<std::string, std::size_t> bucket_of_version;  // "ancient-changes" entries there are
  for (std::size_t i = 0; i < managed.size(); ++i) {
    if (!managed[i].applied() && managed[i].manager == kAncientChanges &&
        managed[i].subresource.empty()) {
      bucket_of_version.emplace(managed[i].api_version, i);
    }
  }
  std::vector<bool> drop(managed.size(), false);
  // What each bucket takes in, united once at the end: one union per merged manager would copy
  // the growing bucket every time (10,000 managers written by hand: seconds).
  std::map<std::size_t, std::vector<const FieldSet*>> into;
  std::size_t length = updaters.size();
  for (std::size_t k = 0; k < updaters.size() && length > max; ++k) {
    ManagedEntry& m = managed[updaters[k]];
    auto first = first_of_version.find(m.api_version);
    if (first == first_of_version.end()) {
      first_of_version.emplace(m.api_version, updaters[k]);
      continue;
    }
    // The version's "ancient-changes" entry when there is one already (the first stays as it
    // is then), otherwise the first becomes it.
    auto bucket_at = bucket_of_version.find(m.api_version);
    const std::size_t b = bucket_at != bucket_of_version.end() ? bucket_at->second : first->second;
    bucket_of_version[m.api_version] = b;
    if (b == updaters[k]) continue;  // the bucket itself, met again
    ManagedEntry& bucket = managed[b];
    bucket.manager = std::string(kAncientChanges);
    bucket.subresource.clear();
    into[b].push_back(&m.fields);
    bucket.time = m.time;
    drop[updaters[k]] = true;
    --length;
  }
  for (auto& [b, sets] : into) {
    // Pairwise rounds: each entry is copied about log2(n) times.
    std::vector<FieldSet> round;
    round.push_back(managed[b].fields);
    for (const FieldSet* s : sets) round.push_back(*s);
    while (round.size() > 1) {
      std::vector<FieldSet> next;
      for (std::size_t i = 0; i + 1 < round.size(); i += 2) next.push_back(round[i].Union(round[i + 1]));
      if (round.size() % 2 == 1) next.push_back(std::move(round.back()));
      round = std::move(next);
    }
    managed[b].fields = std::move(round[0]);
  }
  ManagedFields kept;
  for (std::size_t i = 0; i < managed.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(managed[i]));
  }
  managed = std::move(kept);
}

std::string PrintManager(const ManagedEntry& entry) {
  std::string out = field::GoQuote(entry.manager);
  if (!entry.subresource.empty()) out += " with subresource " + field::GoQuote(entry.subresource);
  if (!entry.applied()) out += " using " + entry.api_version;
  return out;
}

}  // namespace podlimits::fieldmanager
