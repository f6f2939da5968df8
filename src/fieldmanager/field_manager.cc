#include "fieldmanager/field_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "codec/json_codec.h"
#include "fieldmanager/typed_value.h"

namespace podlimits::fieldmanager {

using codec::Node;

namespace {

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";
constexpr std::string_view kBeforeFirstApply = "before-first-apply";

// The paths stripMetaManager takes out of a writer's set: no one owns them.
const FieldSet& StrippedMeta() {
  static const FieldSet set = [] {
    FieldSet s;
    s.Insert({PathElement::Field("apiVersion")});
    s.Insert({PathElement::Field("kind")});
    s.Insert({PathElement::Field("metadata")});
    for (const char* f : {"name", "namespace", "creationTimestamp", "selfLink", "uid",
                          "clusterName", "generation", "managedFields", "resourceVersion"}) {
      s.Insert({PathElement::Field("metadata"), PathElement::Field(f)});
    }
    return s;
  }();
  return set;
}

// The reset fields of the scope (a status subresource's strategy): left out of every comparison.
FieldSet IgnoredPrefixes(const WriteScope& scope) {
  FieldSet s;
  if (!scope.has_status) return s;
  if (scope.subresource == "status") {
    s.Insert({PathElement::Field("spec")});
    s.Insert({PathElement::Field("metadata")});
  } else if (scope.subresource.empty() || scope.subresource == "ephemeralcontainers") {
    s.Insert({PathElement::Field("status")});
  }
  return s;
}

// The object as the comparison sees it: without its managedFields.
Node WithoutManagedFields(const Node& object) {
  Node out = object;
  if (Node* meta = out.Find("metadata"); meta && meta->IsObject()) meta->Erase("managedFields");
  return out;
}

ManagedEntry Identity(const WriteScope& scope, std::string_view manager, std::string operation) {
  ManagedEntry e;
  e.manager = manager.empty() ? "unknown" : std::string(manager);
  e.operation = std::move(operation);
  e.api_version = scope.api_version;
  e.subresource = scope.subresource;
  return e;
}

ManagedFields::iterator FindManager(ManagedFields& managed, const ManagedEntry& id) {
  return std::find_if(managed.begin(), managed.end(),
                      [&](const ManagedEntry& m) { return m.SameManager(id); });
}

struct Compared {
  FieldSet changed;  // modified and added
  FieldSet removed;
};

// structured-merge-diff's Updater.update: what every manager but `writer` loses to the change
// from `live` to `next`; conflicts instead when not forced.
Result<Compared> TakeChanges(const TypeRef& type, const Node& live, const Node& next,
                             ManagedFields& managed, const ManagedEntry* writer,
                             const FieldSet& ignored, bool force, std::vector<Conflict>& conflicts) {
  auto cmp = Compare(type, &live, &next);
  if (!cmp) return std::unexpected(cmp.error());
  Compared out{cmp->modified.Union(cmp->added).WithoutPrefixes(ignored),
               cmp->removed.WithoutPrefixes(ignored)};
  for (const ManagedEntry& m : managed) {
    if (writer && m.SameManager(*writer)) continue;
    for (const Path& p : m.fields.Intersection(out.changed).Members()) conflicts.push_back({m, p});
  }
  if (!force && !conflicts.empty()) return out;
  conflicts.clear();
  for (ManagedEntry& m : managed) {
    if (writer && m.SameManager(*writer)) continue;
    m.fields = m.fields.Difference(out.changed).Difference(out.removed);
  }
  std::erase_if(managed, [](const ManagedEntry& m) { return m.fields.Empty(); });
  return out;
}

// The Update chain below the decoding: comparison, the writer's entry, the cap.
Result<void> RecordUpdate(const WriteScope& scope, const TypeRef& type, const Node& live,
                          const Node& next, ManagedFields& managed, std::string_view manager) {
  std::vector<Conflict> unused;
  auto changes = TakeChanges(type, live, next, managed, nullptr, IgnoredPrefixes(scope), true, unused);
  if (!changes) return std::unexpected(changes.error());
  const FieldSet mine = changes->changed.Difference(StrippedMeta());
  if (!mine.Empty()) {
    const ManagedEntry id = Identity(scope, manager, "Update");
    auto it = FindManager(managed, id);
    if (it == managed.end()) {
      managed.push_back(id);
      it = managed.end() - 1;
    }
    it->fields = mine.Union(it->fields);
    it->time = scope.now;
  }
  CapUpdateManagers(managed);
  return {};
}

ManagedFields DecodeOrEmpty(const Node* list) {
  auto decoded = DecodeManagedFields(list);
  return decoded ? std::move(*decoded) : ManagedFields{};
}

const Node* ManagedFieldsOf(const Node* object) {
  return object ? object->FindPath({"metadata", "managedFields"}) : nullptr;
}

void SetManagedFields(Node& object, ManagedFields managed) {
  Node encoded = EncodeManagedFields(std::move(managed));
  Node& meta = object.Ensure("metadata");
  if (encoded.IsNull()) {
    meta.Erase("managedFields");
  } else {
    meta.Set("managedFields", std::move(encoded));
  }
}

const FieldSet::Entry* EntryOf(const FieldSet* set, const PathElement& pe) {
  if (set == nullptr) return nullptr;
  for (const auto& e : set->entries()) {
    const int c = e.element.Compare(pe);
    if (c == 0) return &e;
    if (c > 0) break;
  }
  return nullptr;
}

// The members of `present` at or under a member of `last` that `owned` does not have: what
// prune takes away. One walk of the three tries side by side.
void CollectGone(const FieldSet& present, const FieldSet* last, const FieldSet* owned,
                 bool under_last, Path& prefix, FieldSet& gone) {
  for (const auto& e : present.entries()) {
    const FieldSet::Entry* l = EntryOf(last, e.element);
    const FieldSet::Entry* o = EntryOf(owned, e.element);
    const bool under = under_last || (l && l->member);
    prefix.push_back(e.element);
    if (e.member && under && !(o && o->member)) gone.Insert(prefix);
    if (under || l) {
      CollectGone(e.children, l ? &l->children : nullptr, o ? &o->children : nullptr, under,
                  prefix, gone);
    }
    prefix.pop_back();
  }
}

// The members of `present` at or under a member of `gone` that `last` has: what is removed.
void CollectRemoved(const FieldSet& present, const FieldSet* gone, const FieldSet* last,
                    bool under_gone, Path& prefix, FieldSet& removed) {
  for (const auto& e : present.entries()) {
    const FieldSet::Entry* g = EntryOf(gone, e.element);
    const FieldSet::Entry* l = EntryOf(last, e.element);
    const bool under = under_gone || (g && g->member);
    if (!under && g == nullptr) continue;
    if (l == nullptr && !under) continue;
    prefix.push_back(e.element);
    if (e.member && under && l && l->member) removed.Insert(prefix);
    if (l) {
      CollectRemoved(e.children, g ? &g->children : nullptr, &l->children, under, prefix, removed);
    }
    prefix.pop_back();
  }
}

// Updater.prune: what `manager` applied last time (`last`) and no one owns now goes.
Node Prune(const TypeRef& type, Node merged, const ManagedFields& managed, const FieldSet& last) {
  if (last.Empty()) return merged;
  auto merged_fields = ToFieldSet(type, merged);
  if (!merged_fields) return merged;
  const FieldSet present = EnsureNamedFieldsAreMembers(type, *merged_fields);
  const FieldSet last_named = EnsureNamedFieldsAreMembers(type, last);
  FieldSet owned;
  for (const ManagedEntry& m : managed) owned = owned.Union(m.fields);
  owned = EnsureNamedFieldsAreMembers(type, owned);
  FieldSet gone;
  Path prefix;
  CollectGone(present, &last_named, &owned, false, prefix, gone);
  if (gone.Empty()) return merged;
  // Only what this manager applied before: an item removed with its list map key takes its
  // fields with it, but a field someone else added below a removed parent is not dropped alone.
  FieldSet removed;
  CollectRemoved(present, &gone, &last_named, false, prefix, removed);
  return RemoveItems(type, merged, removed);
}

std::string GroupVersionKindString(const Node& object) {
  const std::string api_version = codec::StringOf(object.Find("apiVersion"));
  const std::string kind = codec::StringOf(object.Find("kind"));
  const std::size_t slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  return fmt::format("{}/{}, Kind={}", group, version, kind);
}

Error BadRequest(std::string message) {
  return Error{.detail = std::move(message)}.Because("BadRequest");
}

struct Attempt {
  Applied applied;
  bool changed = false;
};

// structuredMergeManager.Apply and the managers between it and skipNonApplied.
Result<Attempt> ApplyOnce(const WriteScope& scope, const TypeRef& type, const Node& live,
                          ManagedFields managed, const Node& config, std::string_view manager,
                          bool force) {
  if (managed.empty()) {
    // The fields the object has before its first apply are "before-first-apply"'s.
    if (auto r = RecordUpdate(scope, type, ZeroObject(type), live, managed, kBeforeFirstApply); !r) {
      return std::unexpected(r.error());
    }
  }
  auto merged = Merge(type, live, config);
  if (!merged) return std::unexpected(BadRequest(merged.error().Message()));
  const ManagedEntry id = Identity(scope, manager, "Apply");
  FieldSet last;
  auto it = FindManager(managed, id);
  if (it != managed.end()) last = it->fields;
  auto applied = ToFieldSet(type, config);
  if (!applied) return std::unexpected(BadRequest(applied.error().Message()));
  const FieldSet ignored = IgnoredPrefixes(scope);
  if (it == managed.end()) {
    managed.push_back(id);
    it = managed.end() - 1;
  }
  it->fields = applied->WithoutPrefixes(ignored);
  it->api_version = scope.api_version;
  Node next = Prune(type, std::move(*merged), managed, last);
  Attempt out;
  auto changes = TakeChanges(type, live, next, managed, &id, ignored, force, out.applied.conflicts);
  if (!changes) return std::unexpected(BadRequest(changes.error().Message()));
  if (!out.applied.conflicts.empty()) return out;
  it = FindManager(managed, id);
  if (it != managed.end()) {
    it->fields = it->fields.Difference(StrippedMeta());
    if (it->fields.Empty()) managed.erase(it);
  }
  out.changed = !SameValue(next, live);
  if (out.changed) {
    if (auto mine = FindManager(managed, id); mine != managed.end()) mine->time = scope.now;
  }
  SetManagedFields(next, std::move(managed));
  out.applied.object = std::move(next);
  return out;
}

// lastAppliedManager: the fields the last-applied-configuration annotation applied and the
// object still has as applied; nullopt without one.
std::optional<FieldSet> AllowedByLastApplied(const TypeRef& type, const Node& live,
                                             const WriteScope& scope) {
  const Node* annotation = live.FindPath({"metadata", "annotations"});
  const Node* text = annotation ? annotation->Find(kLastApplied) : nullptr;
  if (text == nullptr || !text->IsString() || text->scalar.empty()) return std::nullopt;
  auto parsed = codec::ParseJsonStream(text->scalar);
  if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) return std::nullopt;
  const Node& last = (*parsed)[0];
  if (codec::StringOf(last.Find("apiVersion")) != scope.api_version) return std::nullopt;
  auto set = ToFieldSet(type, last);
  const Node live_plain = WithoutManagedFields(live);
  auto cmp = Compare(type, &last, &live_plain);
  if (!set || !cmp) return std::nullopt;
  return set->Difference(cmp->modified).Difference(cmp->added).Difference(cmp->removed);
}

}  // namespace

Node TrackUpdate(const WriteScope& scope, const Node* live, const Node& next, const Node* requested,
                 std::string_view manager) {
  ManagedFields managed;
  if (!scope.subresource.empty() || requested == nullptr) {
    managed = DecodeOrEmpty(ManagedFieldsOf(live));
  } else if (!IsResetManagedFields(requested)) {
    auto decoded = DecodeManagedFields(requested);
    managed = decoded && !decoded->empty() ? std::move(*decoded) : DecodeOrEmpty(ManagedFieldsOf(live));
  }
  // An object that has no managers is not tracked by updates; a create always is.
  if (managed.empty() && live != nullptr) return Node::Null();
  const TypeRef type = TypeSchema::Embedded().Kind(scope.kind);
  const Node before = live ? WithoutManagedFields(*live) : ZeroObject(type);
  if (!RecordUpdate(scope, type, before, WithoutManagedFields(next), managed, manager)) {
    return Node::Null();  // UpdateNoErrors: a write is never refused for its managed fields
  }
  return EncodeManagedFields(std::move(managed));
}

Result<Applied> Apply(const WriteScope& scope, const Node* live, const Node& config,
                      std::string_view manager, bool force) {
  if (!config.IsObject()) {
    return std::unexpected(BadRequest("error decoding patch: the patch is not an object"));
  }
  const std::string gvk = GroupVersionKindString(config);
  const std::string api_version = codec::StringOf(config.Find("apiVersion"));
  if (codec::StringOf(config.Find("kind")) != scope.kind || api_version != scope.api_version) {
    return std::unexpected(BadRequest("invalid object type: " + gvk));
  }
  if (const Node* m = config.FindPath({"metadata", "managedFields"}); m && !m->IsNull()) {
    return std::unexpected(BadRequest("metadata.managedFields must be nil"));
  }
  ManagedFields managed;
  if (live != nullptr) {
    auto decoded = DecodeManagedFields(ManagedFieldsOf(live));
    if (!decoded) return std::unexpected(decoded.error().Wrap("failed to decode managed fields"));
    managed = std::move(*decoded);
  }
  const TypeRef type = TypeSchema::Embedded().Kind(scope.kind);
  const Node before = live ? WithoutManagedFields(*live) : ZeroObject(type);
  auto attempt = ApplyOnce(scope, type, before, managed, config, manager, force);
  if (attempt && !attempt->applied.conflicts.empty() && manager == "kubectl" && live != nullptr) {
    if (auto allowed = AllowedByLastApplied(type, *live, scope)) {
      auto& conflicts = attempt->applied.conflicts;
      std::erase_if(conflicts, [&](const Conflict& c) { return allowed->Has(c.path); });
      if (conflicts.empty()) attempt = ApplyOnce(scope, type, before, managed, config, manager, true);
    }
  }
  if (!attempt) return std::unexpected(attempt.error());
  Applied out = std::move(attempt->applied);
  if (!out.object) return out;
  Node& object = *out.object;
  if (manager == "kubectl" && attempt->changed) {
    // lastAppliedUpdater: the annotation, where the object keeps one, follows the apply.
    Node* annotations = object.FindPath({"metadata", "annotations"});
    if (annotations && annotations->Find(kLastApplied) &&
        !codec::StringOf(annotations->Find(kLastApplied)).empty()) {
      Node applied = config;
      if (Node* a = applied.FindPath({"metadata", "annotations"})) {
        a->Erase(kLastApplied);
        if (a->members.empty()) applied.Find("metadata")->Erase("annotations");
      }
      annotations->Set(kLastApplied, Node::String(codec::EncodeJsonSorted(applied) + "\n"));
    }
  }
  return out;
}

std::string ConflictMessage(const std::vector<Conflict>& conflicts) {
  if (conflicts.size() == 1) {
    return fmt::format("Apply failed with 1 conflict: conflict with {}: {}",
                       PrintManager(conflicts[0].manager), PathString(conflicts[0].path));
  }
  std::map<std::string, std::vector<std::string>> by_manager;
  for (const Conflict& c : conflicts) {
    by_manager[PrintManager(c.manager)].push_back(PathString(c.path));
  }
  std::string text;
  for (const auto& [manager, paths] : by_manager) {
    if (!text.empty()) text += '\n';
    text += fmt::format("conflicts with {}:", manager);
    for (const auto& p : paths) text += "\n- " + p;
  }
  return fmt::format("Apply failed with {} conflicts: {}", conflicts.size(), text);
}

}  // namespace podlimits::fieldmanager
