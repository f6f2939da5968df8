// metadata.managedFields as the apiserver reads and writes it (apimachinery's
// util/managedfields/internal: managedfields.go, capmanagers.go; meta/v1 validation):
//
//   an entry    {manager, operation Apply|Update, apiVersion, time, fieldsType FieldsV1,
//               fieldsV1, subresource}; entries are one per manager identity: (manager,
//               operation, apiVersion, subresource), Apply entries without the apiVersion
//   order       by operation (Apply before Update), time (seconds), manager, apiVersion,
//               subresource
//   validation  operation must be `Apply` or `Update`, fieldsType `FieldsV1`, the manager at
//               most 128 printable characters, the subresource at most 256: 422 on a write
//   decoding    a list that does not decode (no fieldsType, a fieldsV1 that is not a set) is
//               ignored on an update, the stored one used instead, as upstream's
//               decodeLiveOrNew; `[]` or `[{}]` resets it
//   the cap     beyond 10 Update managers the oldest are merged into "ancient-changes", one per
//               apiVersion
//
// The manager of a write is `?fieldManager=`, or the User-Agent before its first `/`, printable
// characters only, cut at 128 bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "codec/node.h"
#include "field/field.h"
#include "fieldmanager/field_set.h"

namespace podlimits::fieldmanager {

inline constexpr std::size_t kFieldManagerMaxLength = 128;
inline constexpr std::size_t kMaxUpdateManagers = 10;
inline constexpr std::string_view kAncientChanges = "ancient-changes";

struct ManagedEntry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string api_version;
  std::string subresource;
  std::optional<std::string> time;  // RFC 3339, as written
  FieldSet fields;

  bool applied() const { return operation == "Apply"; }
  // Whether `other` is the same manager identity (Apply entries match whatever their apiVersion).
  bool SameManager(const ManagedEntry& other) const;
};

using ManagedFields = std::vector<ManagedEntry>;

// metadata.managedFields of an object (absent or null: none). An error says why the list does
// not decode, in upstream's words.
Result<ManagedFields> DecodeManagedFields(const codec::Node* list);

// Whether a request's list asks for a reset: `[]` or one entry that is `{}`.
bool IsResetManagedFields(const codec::Node* list);

// The encoded list, sorted as upstream sorts it; null when there is no entry.
codec::Node EncodeManagedFields(ManagedFields managed);

// The errors of ValidateManagedFields (metadata.managedFields[i].operation, .fieldsType,
// .manager, .subresource).
field::ErrorList ValidateManagedFields(const codec::Node* list, const field::Path& path);

// ValidateFieldManager: at most 128 bytes, every rune printable.
field::ErrorList ValidateFieldManager(std::string_view manager, const field::Path& path);

// The apiserver's manager for a request without ?fieldManager=.
std::string PrefixFromUserAgent(std::string_view user_agent);

// Merges the oldest Update managers into "ancient-changes" while there are more than `max`.
void CapUpdateManagers(ManagedFields& managed, std::size_t max = kMaxUpdateManagers);

// How a conflict names a manager: "\"kubectl\" using v1" for an Update entry (with " at TIME"
// when it has one), "\"kubectl\"" for an Apply entry, with " with subresource \"status\"".
std::string PrintManager(const ManagedEntry& entry);

}  // namespace podlimits::fieldmanager
