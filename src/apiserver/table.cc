#include "apiserver/table.h"

#include <functional>
#include <string>

#include "apiserver/human_duration.h"

namespace podlimits::apiserver {
namespace {

using api::Node;

// metav1.ObjectMeta's and the kinds' swagger docs, which upstream uses as the descriptions.
constexpr std::string_view kNameDoc =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
constexpr std::string_view kCreationDoc =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
constexpr std::string_view kConfigMapDataDoc =
    "Data contains the configuration data. Each key must consist of alphanumeric characters, "
    "'-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The "
    "keys stored in Data must not overlap with the keys in the BinaryData field, this is "
    "enforced during validation process.";
constexpr std::string_view kSecretTypeDoc =
    "Used to facilitate programmatic handling of secret data. More info: "
    "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types";
constexpr std::string_view kSecretDataDoc =
    "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' "
    "or '.'. The serialized form of the secret data is a base64 encoded string, representing "
    "the arbitrary (possibly non-string) data value here. Described in "
    "https://tools.ietf.org/html/rfc4648#section-4";

struct Column {
  std::string_view name, type, format, description;
};

const Node* Meta(const Node& o, std::string_view key) {
  const Node* m = o.Find("metadata");
  return m ? m->Find(key) : nullptr;
}

std::string Str(const Node* n) { return n && n->IsString() ? n->scalar : std::string(); }

std::int64_t Count(const Node* n) {
  return n && n->IsObject() ? static_cast<std::int64_t>(n->members.size()) : 0;
}

struct Printer {
  std::vector<Column> columns;
  std::function<std::vector<Node>(const Node&, std::chrono::sys_seconds)> cells;
};

Printer PrinterFor(std::string_view resource) {
  const Column name{"Name", "string", "name", kNameDoc};
  const Column age{"Age", "string", "", kCreationDoc};
  auto obj_name = [](const Node& o) { return Node::String(Str(Meta(o, "name"))); };
  auto obj_age = [](const Node& o, std::chrono::sys_seconds now) {
    return Node::String(AgeSince(Str(Meta(o, "creationTimestamp")), now));
  };
  if (resource == "namespaces") {
    return {{name, {"Status", "string", "", "The status of the namespace"}, age},
            [=](const Node& o, auto now) {
              return std::vector<Node>{obj_name(o),
                                       Node::String(Str(o.FindPath({"status", "phase"}))),
                                       obj_age(o, now)};
            }};
  }
  if (resource == "configmaps") {
    return {{name, {"Data", "string", "", kConfigMapDataDoc}, age}, [=](const Node& o, auto now) {
              return std::vector<Node>{
                  obj_name(o), Node::Int(Count(o.Find("data")) + Count(o.Find("binaryData"))),
                  obj_age(o, now)};
            }};
  }
  if (resource == "secrets") {
    return {{name, {"Type", "string", "", kSecretTypeDoc}, {"Data", "string", "", kSecretDataDoc},
             age},
            [=](const Node& o, auto now) {
              return std::vector<Node>{obj_name(o), Node::String(Str(o.Find("type"))),
                                       Node::Int(Count(o.Find("data"))), obj_age(o, now)};
            }};
  }
  // limitranges, and the apiserver's default table for every other kind.
  return {{name, {"Created At", "date", "", kCreationDoc}}, [=](const Node& o, auto) {
            return std::vector<Node>{obj_name(o), Node::String(Str(Meta(o, "creationTimestamp")))};
          }};
}

}  // namespace

Node BuildTable(std::string_view resource, const std::vector<Node>& objects,
                std::string_view resource_version, std::chrono::sys_seconds now) {
  const Printer printer = PrinterFor(resource);
  Node table = Node::Object();
  table.Set("kind", Node::String("Table"));
  table.Set("apiVersion", Node::String("meta.k8s.io/v1"));
  Node metadata = Node::Object();
  metadata.Set("resourceVersion", Node::String(std::string(resource_version)));
  table.Set("metadata", std::move(metadata));
  Node columns = Node::Array();
  for (const Column& c : printer.columns) {
    Node col = Node::Object();
    col.Set("name", Node::String(std::string(c.name)));
    col.Set("type", Node::String(std::string(c.type)));
    col.Set("format", Node::String(std::string(c.format)));
    col.Set("description", Node::String(std::string(c.description)));
    col.Set("priority", Node::Int(0));
    columns.items.push_back(std::move(col));
  }
  table.Set("columnDefinitions", std::move(columns));
  Node rows = Node::Array();
  for (const Node& o : objects) {
    Node row = Node::Object();
    Node cells = Node::Array();
    for (Node& cell : printer.cells(o, now)) cells.items.push_back(std::move(cell));
    row.Set("cells", std::move(cells));
    Node partial = Node::Object();
    partial.Set("kind", Node::String("PartialObjectMetadata"));
    partial.Set("apiVersion", Node::String("meta.k8s.io/v1"));
    const Node* meta = o.Find("metadata");
    partial.Set("metadata", meta ? *meta : Node::Object());
    row.Set("object", std::move(partial));
    rows.items.push_back(std::move(row));
  }
  table.Set("rows", std::move(rows));
  return table;
}

}  // namespace podlimits::apiserver
