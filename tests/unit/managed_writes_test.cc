// The managedFields entries of the node's own writes (managed_writes.h), as a cluster's objects
// carry them: written out, not computed by the code under test.
#include "nodeagent/managed_writes.h"

#include <gtest/gtest.h>

#include "codec/json_codec.h"

namespace podlimits::nodeagent {
namespace {

using codec::Node;

Node Parse(std::string_view json) { return (*codec::ParseJsonStream(json))[0]; }

// "manager operation subresource fieldsV1" of each entry.
std::vector<std::string> Entries(const Node& object) {
  std::vector<std::string> out;
  const Node* list = object.FindPath({"metadata", "managedFields"});
  if (list == nullptr || !list->IsArray()) return out;
  for (const Node& e : list->items) {
    out.push_back(codec::StringOf(e.Find("manager")) + " " + codec::StringOf(e.Find("operation")) + " " +
                  codec::StringOf(e.Find("subresource")) + " " + codec::EncodeJsonSorted(*e.Find("fieldsV1")));
  }
  return out;
}

constexpr std::string_view kCreatedPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default",)"
    R"("managedFields":[{"manager":"kubectl-run","operation":"Update","apiVersion":"v1",)"
    R"("time":"2026-11-25T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:containers":{)"
    R"("k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}}}]},)"
    R"("spec":{"containers":[{"name":"c","image":"busybox"}]},"status":{"phase":"Pending"}})";

TEST(ManagedWritesTest, Writers) {
  struct Case {
    const char* name;
    std::string resource, subresource, manager;
    std::string live;  // "" for a create
    std::string next;
    std::vector<std::string> entries;
  } cases[] = {
      {"the kubelet's pod status",
       "pods", "status", "kubelet", std::string(kCreatedPod),
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},)"
       R"("spec":{"containers":[{"name":"c","image":"busybox"}]},"status":{"phase":"Running","podIP":"10.0.0.5"}})",
       {R"(kubectl-run Update  {"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}})",
        R"(kubelet Update status {"f:status":{"f:phase":{},"f:podIP":{}}})"}},
      {"the scheduler's Unschedulable condition",
       "pods", "status", "kube-scheduler", std::string(kCreatedPod),
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},)"
       R"("spec":{"containers":[{"name":"c","image":"busybox"}]},"status":{"phase":"Pending",)"
       R"("conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]}})",
       {R"(kubectl-run Update  {"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}})",
        R"(kube-scheduler Update status {"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:reason":{},"f:status":{},"f:type":{}}}}})"}},
      {"the Node the kubelet registers", "nodes", "", "kubelet", "",
       R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n","labels":{"kubernetes.io/hostname":"n"}}})",
       {R"(kubelet Update  {"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/hostname":{}}}})"}},
      {"an object nobody tracks stays untracked", "pods", "status", "kubelet",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{}})",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{},"status":{"phase":"Running"}})",
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Node live = c.live.empty() ? Node::Null() : Parse(c.live);
    Node next = Parse(c.next);
    if (!c.live.empty()) {
      if (const Node* m = live.FindPath({"metadata", "managedFields"})) next.Ensure("metadata").Set("managedFields", *m);
    }
    RecordManagedWrite(c.resource, c.subresource, c.manager, c.live.empty() ? nullptr : &live, next);
    EXPECT_EQ(Entries(next), c.entries);
  }
}

}  // namespace
}  // namespace podlimits::nodeagent
