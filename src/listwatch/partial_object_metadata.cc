#include "listwatch/partial_object_metadata.h"

#include <fmt/format.h>

namespace podlimits::apiserver {
namespace {

using codec::Node;

std::string ApiVersionOf(std::string_view version) { return fmt::format("meta.k8s.io/{}", version); }

// meta.IsListType: the object has items.
bool IsList(const Node& object) { return object.Find("items") != nullptr; }

ApiError NotAcceptable(std::string message) {
  ApiError e;
  e.code = 406;
  e.reason = "NotAcceptable";
  e.message = std::move(message);
  return e;
}

}  // namespace

MetadataConversion MetadataConversionOf(std::string_view as) {
  if (as == "PartialObjectMetadata") return MetadataConversion::kPartialObjectMetadata;
  if (as == "PartialObjectMetadataList") return MetadataConversion::kPartialObjectMetadataList;
  return MetadataConversion::kNone;
}

std::string InternalGoType(const Node& object) {
  const std::string api_version = codec::StringOf(object.Find("apiVersion"));
  const auto slash = api_version.find('/');
  // The internal package is the group's first DNS label: "" is core, coordination.k8s.io is
  // coordination.
  std::string package = slash == std::string::npos ? "core" : api_version.substr(0, slash);
  package = package.substr(0, package.find('.'));
  return fmt::format("*{}.{}", package, codec::StringOf(object.Find("kind")));
}

Node PartialObjectMetadataOf(const Node& object, std::string_view version) {
  Node partial = Node::Object();
  partial.Set("kind", Node::String("PartialObjectMetadata"));
  partial.Set("apiVersion", Node::String(ApiVersionOf(version)));
  const Node* meta = object.Find("metadata");
  partial.Set("metadata", meta != nullptr && meta->IsObject() ? *meta : Node::Object());
  return partial;
}

std::expected<Node, ApiError> ConvertToMetadata(const Node& object, MetadataConversion conversion,
                                                std::string_view version) {
  if (conversion == MetadataConversion::kNone ||
      codec::StringOf(object.Find("kind")) == "Status") {
    return object;
  }
  if (conversion == MetadataConversion::kPartialObjectMetadata) {
    if (IsList(object)) {
      return std::unexpected(NotAcceptable(fmt::format(
          "you requested PartialObjectMetadata, but the requested object is a list ({})",
          InternalGoType(object))));
    }
    return PartialObjectMetadataOf(object, version);
  }
  if (!IsList(object)) {
    return std::unexpected(NotAcceptable(fmt::format(
        "you requested PartialObjectMetadataList, but the requested object is not a list ({})",
        InternalGoType(object))));
  }
  Node list = Node::Object();
  list.Set("kind", Node::String("PartialObjectMetadataList"));
  list.Set("apiVersion", Node::String(ApiVersionOf(version)));
  // The ListMeta the converter copies: resourceVersion, continue, remainingItemCount.
  Node& meta = list.Ensure("metadata");
  if (const Node* from = object.Find("metadata")) {
    for (const char* key : {"resourceVersion", "continue", "remainingItemCount"}) {
      if (const Node* value = from->Find(key)) meta.Set(key, *value);
    }
  }
  // The converter appends to a nil slice: an empty list's items are null, as Go writes them.
  const Node& from_items = *object.Find("items");
  if (from_items.items.empty()) {
    list.Set("items", Node::Null());
    return list;
  }
  Node& items = list.Ensure("items", Node::Kind::kArray);
  for (const Node& item : from_items.items) {
    items.items.push_back(PartialObjectMetadataOf(item, version));
  }
  return list;
}

}  // namespace podlimits::apiserver
