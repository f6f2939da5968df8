// The field manager against what kube-apiserver writes: each row an object and a write, the
// managedFields (fieldsV1 as the apiserver encodes it) or the conflict message written out by
// hand from upstream's rules (structured-merge-diff's comparison and merge, apimachinery's
// managedfields chain). tests/clients/go compares the same operations with
// structured-merge-diff itself.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "codec/json_codec.h"
#include "fieldmanager/field_manager.h"
#include "fieldmanager/field_set.h"
#include "fieldmanager/managed_fields.h"

namespace podlimits::fieldmanager {
namespace {

using codec::Node;

Node Json(std::string_view text) {
  auto parsed = codec::ParseJsonStream(text);
  EXPECT_TRUE(parsed && parsed->size() == 1) << text;
  return parsed && parsed->size() == 1 ? (*parsed)[0] : Node::Null();
}

std::string Compact(const Node& n) { return codec::EncodeJson(n, 0); }

WriteScope Scope(std::string kind, std::string subresource = "") {
  const bool has_status = kind == "Pod" || kind == "Node" || kind == "Namespace";
  return WriteScope{std::move(kind), "v1", std::move(subresource), "2026-11-29T03:00:00Z", has_status};
}

// The fieldsV1 of each entry: "manager/operation/subresource: fieldsV1".
std::vector<std::string> Entries(const Node& managed_fields) {
  std::vector<std::string> out;
  if (!managed_fields.IsArray()) return out;
  for (const Node& e : managed_fields.items) {
    out.push_back(codec::StringOf(e.Find("manager")) + "/" + codec::StringOf(e.Find("operation")) +
                  (e.Find("subresource") ? "/" + codec::StringOf(e.Find("subresource")) : "") +
                  ": " + Compact(*e.Find("fieldsV1")));
  }
  return out;
}

Node WithManaged(Node object, const Node& managed) {
  object.Ensure("metadata").Set("managedFields", managed);
  return object;
}

TEST(FieldSetTest, FieldsV1RoundTrips) {
  const char* cases[] = {
      R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}}})",
      R"({"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}})",
      R"({"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}})",
      R"({"f:metadata":{"f:finalizers":{".":{},"v:\"a\"":{},"v:\"b\"":{}}}})",
      R"({"f:data":{"f:a":{},"f:b":{}},"f:immutable":{}})",
  };
  for (const char* text : cases) {
    SCOPED_TRACE(text);
    auto set = FieldSet::FromFieldsV1(Json(text));
    ASSERT_TRUE(set) << set.error();
    EXPECT_EQ(Compact(set->ToFieldsV1()), text);
  }
}

TEST(FieldSetTest, PathsPrintAsConflictsNameThem) {
  auto set = FieldSet::FromFieldsV1(Json(
      R"({"f:spec":{"f:containers":{"k:{\"name\":\"x\"}":{"f:image":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{}}}}}})"));
  ASSERT_TRUE(set);
  std::vector<std::string> paths;
  for (const Path& p : set->Members()) paths.push_back(PathString(p));
  EXPECT_EQ(paths, (std::vector<std::string>{
                       R"(.spec.containers[name="x"].image)",
                       R"(.spec.containers[name="x"].ports[containerPort=80,protocol="TCP"])"}));
}

TEST(FieldSetTest, MalformedFieldsV1IsAnError) {
  const char* cases[] = {R"({"x":{}})", R"({"k:{notjson":{}})", R"({"i:abc":{}})", R"({"f:a":1})"};
  for (const char* text : cases) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(FieldSet::FromFieldsV1(Json(text)));
  }
  // An element kind a later version may add is dropped, as upstream drops it.
  auto future = FieldSet::FromFieldsV1(Json(R"({"z:x":{},"f:a":{}})"));
  ASSERT_TRUE(future);
  EXPECT_EQ(Compact(future->ToFieldsV1()), R"({"f:a":{}})");
}

TEST(TrackUpdateTest, CreatesRecordWhatTheRequestSet) {
  struct Case {
    const char* name;
    const char* kind;
    const char* object;
    std::string manager;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"a ConfigMap's data and labels", "ConfigMap",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","labels":{"app":"x"},"uid":"u","resourceVersion":"5","creationTimestamp":"2026-11-29T03:00:00Z"},"data":{"a":"1"}})",
       "kubectl-create",
       {R"(kubectl-create/Update: {"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}})"}},
      {"a pod's container by name, its empty resources, not its status", "Pod",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"run":"p"}},"spec":{"containers":[{"name":"web","image":"busybox","resources":{},"terminationMessagePath":"/dev/termination-log"}],"restartPolicy":"Always"},"status":{"phase":"Pending"}})",
       "kubectl-run",
       {R"(kubectl-run/Update: {"f:metadata":{"f:labels":{".":{},"f:run":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{}}},"f:restartPolicy":{}}})"}},
      {"a port keyed with its protocol's default", "Pod",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}})",
       "m",
       {R"(m/Update: {"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}})"}},
      {"an atomic list is one field", "Pod",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","command":["sh","-c"]}]}})",
       "m",
       {R"(m/Update: {"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:command":{},"f:name":{}}}}})"}},
      {"no manager is unknown", "ConfigMap",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})", "",
       {R"(unknown/Update: {"f:data":{".":{},"f:a":{}}})"}},
      {"nothing but metadata the server owns: no entry", "ConfigMap",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"d"}})", "m", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Node managed = TrackUpdate(Scope(c.kind), nullptr, Json(c.object), nullptr, c.manager);
    EXPECT_EQ(Entries(managed), c.want);
  }
}

TEST(TrackUpdateTest, UpdatesMoveFieldsBetweenManagers) {
  const Node created = Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}})");
  const Node live = WithManaged(created, TrackUpdate(Scope("ConfigMap"), nullptr, created, nullptr, "creator"));
  struct Case {
    const char* name;
    const char* next;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"a changed value moves to the writer", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"9","b":"2"}})",
       {R"(creator/Update: {"f:data":{".":{},"f:b":{}}})", R"(editor/Update: {"f:data":{"f:a":{}}})"}},
      {"a removed value leaves every manager", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"b":"2"}})",
       {R"(creator/Update: {"f:data":{".":{},"f:b":{}}})"}},
      {"an unchanged object changes no one", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}})",
       {R"(creator/Update: {"f:data":{".":{},"f:a":{},"f:b":{}}})"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Node managed = TrackUpdate(Scope("ConfigMap"), &live, Json(c.next), nullptr, "editor");
    EXPECT_EQ(Entries(managed), c.want);
  }
}

TEST(TrackUpdateTest, RequestManagedFieldsAndUntrackedObjects) {
  const Node object = Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})");
  const Node live = WithManaged(object, TrackUpdate(Scope("ConfigMap"), nullptr, object, nullptr, "creator"));
  const Node changed = Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"2"}})");
  struct Case {
    const char* name;
    const Node* live;
    const char* requested;  // nullptr: none in the request
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"the request's list replaces the stored one", &live,
       R"([{"manager":"other","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{},"f:z":{}}}}])",
       {R"(other/Update: {"f:data":{"f:z":{}}})", R"(w/Update: {"f:data":{"f:a":{}}})"}},
      // Reset, the object has no managers: an update does not track it (skipNonApplied).
      {"[{}] resets them", &live, R"([{}])", {}},
      {"a list that does not decode is ignored", &live,
       R"([{"manager":"x","operation":"Update","apiVersion":"v1"}])",
       {R"(creator/Update: {"f:data":{}})", R"(w/Update: {"f:data":{"f:a":{}}})"}},
      {"an update of an untracked object stays untracked", &object, nullptr, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Node requested = c.requested ? Json(c.requested) : Node::Null();
    const Node managed = TrackUpdate(Scope("ConfigMap"), c.live, changed,
                                     c.requested ? &requested : nullptr, "w");
    EXPECT_EQ(Entries(managed), c.want);
  }
}

TEST(TrackUpdateTest, StatusFieldsBelongToTheStatusEndpoint) {
  const Node pod = Json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a"}]},"status":{}})");
  const Node live = WithManaged(pod, TrackUpdate(Scope("Pod"), nullptr, pod, nullptr, "kubectl"));
  Node with_status = pod;
  with_status.Set("status", Json(R"({"phase":"Running"})"));
  const Node managed = TrackUpdate(Scope("Pod", "status"), &live, with_status, nullptr, "podlimits");
  EXPECT_EQ(Entries(managed),
            (std::vector<std::string>{
                R"(kubectl/Update: {"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:name":{}}}}})",
                R"(podlimits/Update/status: {"f:status":{"f:phase":{}}})"}));
}

TEST(TrackUpdateTest, MoreThanTenUpdateManagersBecomeAncientChanges) {
  Node object = Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{}})");
  Node managed = Node::Null();
  for (int i = 0; i < 12; ++i) {
    Node next = object;
    next.Find("data")->Set("k" + std::to_string(i), Node::String("v"));
    WriteScope scope = Scope("ConfigMap");
    scope.now = fmt::format("2026-11-29T03:00:{:02}Z", i);
    Node live = WithManaged(object, managed);
    managed = TrackUpdate(scope, i == 0 ? nullptr : &live, next, nullptr, "m" + std::to_string(i));
    object = next;
  }
  const std::vector<std::string> entries = Entries(managed);
  ASSERT_EQ(entries.size(), 10u);
  EXPECT_EQ(entries[0], R"(ancient-changes/Update: {"f:data":{".":{},"f:k0":{},"f:k1":{},"f:k2":{}}})");
  EXPECT_EQ(entries[9], R"(m11/Update: {"f:data":{"f:k11":{}}})");
}

// Bad input: 10,000 Update managers written by hand, each owning a field. The write is bounded
// as upstream bounds it (10 Update managers, the rest in "ancient-changes") and stays quick.
TEST(TrackUpdateTest, TenThousandManagersWrittenByHandAreCapped) {
  Node object = Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})");
  const Node live = WithManaged(object, TrackUpdate(Scope("ConfigMap"), nullptr, object, nullptr, "creator"));
  Node requested = Node::Array();
  for (int i = 0; i < 10000; ++i) {
    requested.items.push_back(Json(fmt::format(
        R"({{"manager":"m{}","operation":"Update","apiVersion":"v1","time":"2026-11-29T0{}:00:00Z","fieldsType":"FieldsV1","fieldsV1":{{"f:data":{{"f:k{}":{{}}}}}}}})",
        i, i % 3, i)));
  }
  Node next = object;
  next.Find("data")->Set("a", Node::String("2"));
  const Node managed = TrackUpdate(Scope("ConfigMap"), &live, next, &requested, "writer");
  ASSERT_TRUE(managed.IsArray());
  EXPECT_EQ(managed.items.size(), 10u);
  EXPECT_EQ(codec::StringOf(managed.items[0].Find("manager")), "ancient-changes");
  EXPECT_EQ(codec::StringOf(managed.items[9].Find("manager")), "writer");
}

struct ApplyStep {
  std::string manager;
  const char* config;
  bool force = false;
  // "" when it succeeds; the conflict message otherwise.
  std::string conflict = "";
};

// Runs the steps on a ConfigMap or Pod from nothing; the last object.
Node RunApplies(const char* kind, const Node* start, const std::vector<ApplyStep>& steps) {
  Node live = start ? *start : Node::Null();
  bool exists = start != nullptr;
  for (const ApplyStep& step : steps) {
    SCOPED_TRACE(step.manager + " " + step.config);
    auto applied = Apply(Scope(kind), exists ? &live : nullptr, Json(step.config), step.manager, step.force);
    EXPECT_TRUE(applied) << (applied ? "" : applied.error().Message());
    if (!applied) return live;
    if (!step.conflict.empty()) {
      EXPECT_EQ(ConflictMessage(applied->conflicts), step.conflict);
      continue;
    }
    EXPECT_TRUE(applied->conflicts.empty()) << ConflictMessage(applied->conflicts);
    if (applied->object) {
      live = *applied->object;
      exists = true;
    }
  }
  return live;
}

TEST(ApplyTest, OwnershipConflictsAndPruning) {
  struct Case {
    const char* name;
    std::vector<ApplyStep> steps;
    const char* data;  // the final object's data
    std::vector<std::string> managed;
  };
  const char* kA1 = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})";
  const char* kA2 = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"2"}})";
  const char* kAB = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"1"}})";
  const char* kB1 = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"b":"1"}})";
  const Case cases[] = {
      {"apply that creates", {{"m", kA1}}, R"({"a":"1"})", {R"(m/Apply: {"f:data":{"f:a":{}}})"}},
      {"a second manager with the same value shares the field",
       {{"m", kA1}, {"n", kA1}}, R"({"a":"1"})",
       // n's apply changed nothing: its entry has no time, and sorts first.
       {R"(n/Apply: {"f:data":{"f:a":{}}})", R"(m/Apply: {"f:data":{"f:a":{}}})"}},
      {"a different value is a conflict",
       {{"m", kA1}, {"n", kA2, false, R"(Apply failed with 1 conflict: conflict with "m": .data.a)"}},
       R"({"a":"1"})", {R"(m/Apply: {"f:data":{"f:a":{}}})"}},
      {"force takes the field",
       {{"m", kA1}, {"n", kA2, true}}, R"({"a":"2"})", {R"(n/Apply: {"f:data":{"f:a":{}}})"}},
      {"a field no longer applied goes", {{"m", kAB}, {"m", kB1}}, R"({"b":"1"})",
       {R"(m/Apply: {"f:data":{"f:b":{}}})"}},
      {"unless another manager applies it too", {{"m", kAB}, {"n", kA1}, {"m", kB1}},
       R"({"a":"1","b":"1"})",
       {R"(n/Apply: {"f:data":{"f:a":{}}})", R"(m/Apply: {"f:data":{"f:b":{}}})"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Node out = RunApplies("ConfigMap", nullptr, c.steps);
    EXPECT_EQ(Compact(*out.Find("data")), c.data);
    EXPECT_EQ(Entries(*out.FindPath({"metadata", "managedFields"})), c.managed);
  }
}

TEST(ApplyTest, ConflictsWithUpdateManagersNameTheirVersion) {
  const Node created = Json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"x","image":"a"}]}})");
  const Node live = WithManaged(
      created, TrackUpdate(Scope("Pod"), nullptr, created, nullptr, "kubectl-client-side-apply"));
  RunApplies("Pod", &live,
             {{"kubectl-server",
               R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"x","image":"b"}]}})",
               false,
               R"(Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .spec.containers[name="x"].image)"}});
  const Node two = RunApplies(
      "Pod", &live,
      {{"m", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"l":"1"}},"spec":{"containers":[{"name":"x","image":"c"}]}})", true},
       {"n", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"l":"2"}},"spec":{"containers":[{"name":"x","image":"d"}]}})",
        false,
        "Apply failed with 2 conflicts: conflicts with \"m\":\n- .metadata.labels.l\n- "
        ".spec.containers[name=\"x\"].image"}});
  EXPECT_EQ(Compact(*two.FindPath({"metadata", "labels"})), R"({"l":"1"})");
}

TEST(ApplyTest, ListsMergeByTheirSchemaType) {
  const Node created = Json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"i","env":[{"name":"X","value":"1"}],"command":["sh"]}]}})");
  const Node live = WithManaged(created, TrackUpdate(Scope("Pod"), nullptr, created, nullptr, "creator"));
  const Node out = RunApplies(
      "Pod", &live,
      {{"m", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"2"}]},{"name":"b","image":"j"}]}})"}});
  EXPECT_EQ(Compact(*out.FindPath({"spec", "containers"})),
            R"([{"name":"a","image":"i","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}],"command":["sh"]},{"name":"b","image":"j"}])");
}

TEST(ApplyTest, BadConfigurations) {
  struct Case {
    const char* name;
    const char* config;
    std::string error;
  };
  const Case cases[] = {
      {"another kind", R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"c"}})",
       "invalid object type: /v1, Kind=Secret"},
      {"no kind", R"({"metadata":{"name":"c"}})", "invalid object type: /, Kind="},
      {"managedFields set", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[]}})",
       "metadata.managedFields must be nil"},
      {"not an object", R"([1])", "error decoding patch: the patch is not an object"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto applied = Apply(Scope("ConfigMap"), nullptr, Json(c.config), "m", false);
    ASSERT_FALSE(applied);
    EXPECT_EQ(applied.error().Message(), c.error);
    EXPECT_TRUE(applied.error().Is("BadRequest"));
  }
}

TEST(ManagedFieldsTest, ValidationAndManagerNames) {
  EXPECT_EQ(PrefixFromUserAgent("kubectl/v1.32.0 (linux/amd64) kubernetes/abc"), "kubectl");
  EXPECT_EQ(PrefixFromUserAgent("go\tclient/1"), "goclient");
  EXPECT_EQ(PrefixFromUserAgent(std::string(200, 'a')), std::string(128, 'a'));
  struct Case {
    const char* name;
    std::string manager;
    std::string want;  // the aggregated errors
  };
  const Case cases[] = {
      {"fine", "kubectl", ""},
      {"too long", std::string(129, 'm'),
       "fieldManager: Too long: may not be more than 128 bytes"},
      {"a tab", "a\tb", "fieldManager: Invalid value: \"a\\tb\": invalid character U+0009 (at position 1)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const field::ErrorList errs = ValidateFieldManager(c.manager, field::Path("fieldManager"));
    EXPECT_EQ(errs.empty() ? "" : field::Aggregate(errs), c.want);
  }
  const Node list = Json(R"([{"manager":"m","operation":"Patch","fieldsType":"FieldsV2"}])");
  EXPECT_EQ(field::Aggregate(ValidateManagedFields(&list, field::Path("metadata").Child("managedFields"))),
            "[metadata.managedFields[0].operation: Invalid value: \"Patch\": must be `Apply` or "
            "`Update`, metadata.managedFields[0].fieldsType: Invalid value: \"FieldsV2\": must be "
            "`FieldsV1`]");
}

}  // namespace
}  // namespace podlimits::fieldmanager
