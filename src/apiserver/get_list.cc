// GET of one object or of a (paged, selected) list, as JSON or as a Table.
#include "apiserver/rest_handler.h"

#include <fmt/format.h>

#include "apiserver/rest_response.h"
#include "discovery/served_resources.h"
#include "codec/json_codec.h"
#include "field/field.h"
#include "listwatch/api_errors.h"
#include "listwatch/list_options.h"
#include "listwatch/paged_list.h"
#include "listwatch/selectors.h"
#include "listwatch/stored_object.h"
#include "printers/table.h"

namespace podlimits::apiserver {

using codec::Node;

namespace {

// The request's TableOptions (includeObject), or the apiserver's 400 for a value it does not know.
std::expected<printers::RowObject, ApiError> TableRowObject(const http::HttpRequest& request) {
  auto it = request.query.find("includeObject");
  const std::string value = it == request.query.end() ? std::string() : it->second;
  if (auto parsed = printers::ParseIncludeObject(value)) return *parsed;
  field::ErrorList errors;
  errors.push_back(field::Invalid(field::Path("includeObject"), value,
                                  "must be 'Metadata', 'Object', 'None', or empty"));
  return std::unexpected(BadRequest("Unable to convert to Table as requested: " +
                                    field::Aggregate(errors)));
}

// What a read answers for an object whose stored bytes are not one JSON object, instead of
}  // namespace

http::HttpResponse RestHandler::Get(const http::HttpRequest& request, const RequestInfo& info) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  auto got = store_.Get({info.resource, resource.namespaced ? info.namespace_ : "", info.name});
  if (!got) {
    if (got.error().Is(storage::kNotFound)) {
      return NotFound(info.resource, info.name, info.group).Response();
    }
    return InternalResponse(got.error());
  }
  if (WantsTable(request)) {
    auto row_object = TableRowObject(request);
    if (!row_object) return row_object.error().Response();
    auto tree = ParseStoredObject(got->data);
    if (!tree) return CorruptStoredObject(*got).Response();
    return JsonResponse(
        200, codec::EncodeJson(printers::BuildTable(info.resource, {std::move(*tree)},
                                                    std::to_string(got->revision), clock_(),
                                                    *row_object),
                               0));
  }
  if (StoredJsonProblem(got->data)) return CorruptStoredObject(*got).Response();
  return JsonResponse(200, std::move(got->data));
}

http::HttpResponse RestHandler::List(const http::HttpRequest& request, const RequestInfo& info) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  auto query = [&](const char* key) {
    auto it = request.query.find(key);
    return it == request.query.end() ? std::string() : it->second;
  };
  auto labels = ParseLabelSelector(query("labelSelector"));
  if (!labels) return BadRequest(labels.error().Message()).Response();
  auto fields = ParseFieldSelector(query("fieldSelector"), info.resource);
  if (!fields) return BadRequest(fields.error().Message()).Response();
  auto options = ParseListOptions(request);
  if (!options) return options.error().Response();
  ListFilter keep;
  // A damaged object fails the whole list, as the apiserver's does: left out, it would look
  // deleted to a client that syncs from lists.
  std::optional<storage::StoredObject> corrupt;
  if (!labels->requirements.empty() || !fields->requirements.empty()) {
    keep = [&](const storage::StoredObject& item) {
      auto tree = ParseStoredObject(item.data);
      if (!tree) {
        if (!corrupt) corrupt = item;
        return true;
      }
      const Node fields_of = SelectableFields(info.resource, *tree);
      return labels->Matches(tree->FindPath({"metadata", "labels"})) &&
             fields->Matches(&fields_of);
    };
  }
  const ListScope scope{info.resource, resource.namespaced ? info.namespace_ : "",
                        !resource.namespaced || info.namespace_.empty(), resource.namespaced};
  auto listed = ReadListPage(store_, scope, *options, keep);
  if (!listed) return listed.error().Response();
  if (corrupt) return CorruptStoredObject(*corrupt).Response();
  const std::string rv = std::to_string(listed->revision);
  if (WantsTable(request)) {
    auto row_object = TableRowObject(request);
    if (!row_object) return row_object.error().Response();
    std::vector<Node> objects;
    for (const auto& item : listed->items) {
      auto tree = ParseStoredObject(item.data);
      if (!tree) return CorruptStoredObject(item).Response();
      objects.push_back(std::move(*tree));
    }
    Node table = printers::BuildTable(info.resource, objects, rv, clock_(), *row_object);
    // The list's ListMeta, as upstream's table convertor copies it.
    Node& meta = table.Ensure("metadata");
    if (!listed->continue_token.empty()) {
      meta.Set("continue", Node::String(listed->continue_token));
    }
    if (listed->remaining_item_count) {
      meta.Set("remainingItemCount", Node::Int(*listed->remaining_item_count));
    }
    return JsonResponse(200, codec::EncodeJson(table, 0));
  }
  // The stored bytes go out as they are, less each item's kind and apiVersion.
  std::string body =
      fmt::format(R"({{"kind":"{}List","apiVersion":"{}","metadata":{{"resourceVersion":"{}")",
                  resource.kind, resource.GroupVersion(), rv);
  if (!listed->continue_token.empty()) {
    body += fmt::format(R"(,"continue":"{}")", listed->continue_token);  // base64url: no escapes
  }
  if (listed->remaining_item_count) {
    body += fmt::format(R"(,"remainingItemCount":{})", *listed->remaining_item_count);
  }
  body += R"(},"items":[)";
  for (std::size_t i = 0; i < listed->items.size(); ++i) {
    if (StoredJsonProblem(listed->items[i].data)) return CorruptStoredObject(listed->items[i]).Response();
    if (i > 0) body += ',';
    AppendListItem(body, listed->items[i].data);
  }
  body += "]}";
  return JsonResponse(200, std::move(body));
}

}  // namespace podlimits::apiserver
