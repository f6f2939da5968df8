#include "apiserver/rest_handler.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/decode.h"
#include "api/defaults.h"
#include "api/schema.h"
#include "listwatch/api_errors.h"
#include "listwatch/list_options.h"
#include "listwatch/paged_list.h"
#include "apiserver/apply.h"
#include "apiserver/pod_attach_handler.h"
#include "apiserver/pod_deletion.h"
#include "apiserver/pod_exec_handler.h"
#include "apiserver/pod_log_handler.h"
#include "apiserver/pod_portforward_handler.h"
#include "apiserver/negotiated_response.h"
#include "apiserver/request_body.h"
#include "apiserver/access_reviews.h"
#include "apiserver/resource_metrics.h"
#include "apiserver/rest_response.h"
#include "listwatch/selectors.h"
#include "apiserver/served_resources.h"
#include "apiserver/workload_delete.h"
#include "listwatch/stored_object.h"
#include "listwatch/watch_handler.h"
#include "base/numbers.h"
#include "base/uuid.h"
#include "codec/json_codec.h"
#include "field/field.h"
#include "validation/workloads.h"
#include "printers/human_duration.h"
#include "printers/table.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

constexpr std::string_view kSystemNamespaces[] = {"default", "kube-node-lease", "kube-public",
                                                  "kube-system"};

bool Implemented(std::string_view resource, std::string_view verb) {
  if (verb == "watch") return true;
  if (IsWorkloadResource(resource)) {
    return verb == "create" || verb == "get" || verb == "list" || verb == "delete" ||
           verb == "update" || verb == "patch";
  }
  if (verb == "update" || verb == "patch") {
    return resource == "namespaces" || resource == "configmaps" || resource == "secrets" ||
           resource == "limitranges" || resource == "pods" || resource == "nodes" ||
           resource == "events";
  }
  if (resource == "namespaces") {
    return verb == "create" || verb == "get" || verb == "list" || verb == "delete";
  }
  // The node registers itself and is never deleted; users update it (cordon, label, taint).
  if (resource == "nodes") return verb == "get" || verb == "list";
  if (resource == "leases") return verb == "get" || verb == "list";  // and renews its Lease
  if (resource == "configmaps" || resource == "secrets" || resource == "limitranges" ||
      resource == "pods" || resource == "events") {
    return verb == "create" || verb == "get" || verb == "list" || verb == "delete";
  }
  return false;
}

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
// sending them or a list built on them.
http::HttpResponse CorruptResponse(const storage::StoredObject& object) {
  return CorruptStoredObject(object).Response();
}

}  // namespace

RestHandler::RestHandler(storage::ObjectStore& store, admission::ChainOptions options, Clock clock)
    : store_(store), options_(std::move(options)), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    };
  }
}

std::string RestHandler::Now() const { return printers::FormatApiTime(clock_()); }

Result<void> RestHandler::EnsureSystemNamespaces() {
  for (std::string_view name : kSystemNamespaces) {
    if (store_.Get({"namespaces", "", std::string(name)})) continue;
    http::HttpRequest create;
    create.method = "POST";
    create.path = "/api/v1/namespaces";
    create.headers["content-type"] = "application/json";
    create.headers["user-agent"] = "kube-apiserver";  // the manager of what it makes
    create.body = fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})",
                              name);
    http::HttpResponse r = Create(create, RequestInfo{"create", "namespaces", "", "", ""});
    if (r.status != 201) {
      return Failure("create namespace", {}, std::string(name) + ": " + r.body);
    }
  }
  return {};
}

std::optional<http::HttpResponse> RestHandler::Handle(const http::HttpRequest& request) {
  auto info = ParseRequestInfo(request);
  if (!info) return std::nullopt;
  // The streams of their own (log, exec, attach, port-forward) answer in their own types.
  if (info->subresource == "log" || info->subresource == "exec" ||
      info->subresource == "attach" || info->subresource == "portforward") {
    return Dispatch(request, *info, OutputMediaType{});
  }
  // Negotiated before anything is read or written, as every apiserver handler does; JSON where
  // the resource's kind has no protobuf form (metrics.k8s.io here).
  EndpointMediaTypes endpoint;
  endpoint.protobuf = info->group != kMetricsGroup;
  auto accept = request.headers.find("accept");
  const std::string_view header =
      accept == request.headers.end() ? std::string_view() : std::string_view(accept->second);
  auto media = info->verb == "watch" ? NegotiateWatchMediaType(header, endpoint)
                                     : NegotiateOutputMediaType(header, endpoint);
  if (!media) return media.error().Response();
  return EncodeNegotiated(Dispatch(request, *info, *media), *media);
}

http::HttpResponse RestHandler::Dispatch(const http::HttpRequest& request, const RequestInfo& info,
                                         const OutputMediaType& media) {
  // Impersonation (kubectl --as, --as-group): serve has no user but its admin and no RBAC to
  // judge another by, so acting as someone else is refused rather than done as the admin.
  for (const auto& [name, value] : request.headers) {
    if (!name.starts_with("impersonate-")) continue;
    const std::string_view what = name == "impersonate-user"    ? "users"
                                  : name == "impersonate-group" ? "groups"
                                  : name == "impersonate-uid"   ? "uids"
                                                                : "userextras";
    return Forbidden(what, value,
                     fmt::format("User {} cannot impersonate resource {} in API group \"\" at "
                                 "the cluster scope: podlimits serve has no user but its admin",
                                 field::GoQuote(request.user), field::GoQuote(what)))
        .Response();
  }
  if (info.group == kMetricsGroup) {
    return ServeResourceMetrics(store_, metrics_, request, info, clock_());
  }
  if (info.group == kAuthenticationGroup || info.group == kAuthorizationGroup) {
    return ServeAccessReview(request, info);
  }
  const ServedResource* resource = FindServedResource(info.group, info.resource);
  if (resource == nullptr) return PathNotFound().Response();
  if (info.resource == "pods" && info.subresource == "log" && info.verb == "get" &&
      logs_ != nullptr && !info.namespace_.empty()) {
    return ServePodLog(store_, *logs_, request, {"pods", info.namespace_, info.name});
  }
  if (info.resource == "pods" && info.subresource == "exec" &&
      (info.verb == "get" || info.verb == "create") && executor_ != nullptr &&
      !info.namespace_.empty()) {
    return ServePodExec(store_, *executor_, request, {"pods", info.namespace_, info.name});
  }
  if (info.resource == "pods" && info.subresource == "attach" &&
      (info.verb == "get" || info.verb == "create") && logs_ != nullptr &&
      executor_ != nullptr && !info.namespace_.empty()) {
    return ServePodAttach(store_, *logs_, *executor_, request, {"pods", info.namespace_, info.name});
  }
  if (info.resource == "pods" && info.subresource == "portforward" &&
      (info.verb == "get" || info.verb == "create") && port_dialer_ != nullptr &&
      !info.namespace_.empty()) {
    return ServePodPortForward(store_, *port_dialer_, request, {"pods", info.namespace_, info.name});
  }
  // dryRun=All: the write goes through everything and is not committed.
  std::optional<storage::DryRunScope> dry_run;
  if (auto it = request.query.find("dryRun"); it != request.query.end() &&
                                              info.verb != "get" && info.verb != "list" &&
                                              info.verb != "watch") {
    if (it->second != "All") {
      const char* options = info.verb == "create"   ? "CreateOptions"
                            : info.verb == "patch"  ? "PatchOptions"
                            : info.verb == "update" ? "UpdateOptions"
                                                     : "DeleteOptions";
      field::ErrorList errs;
      errs.push_back(field::NotSupported(field::Path("dryRun"),
                                         field::Json{"[" + field::GoQuote(it->second) + "]"},
                                         {"All"}));
      ApiError e = Invalid(options, "", errs);
      e.message = fmt::format("{}.meta.k8s.io \"\" is invalid: {}", options, errs[0].String());
      return e.Response();
    }
    dry_run.emplace();
  }
  if (info.subresource == "scale" && !info.name.empty() && !info.namespace_.empty() &&
      (info.resource == "deployments" || info.resource == "replicasets")) {
    return Scale(request, info);
  }
  if (info.subresource == "status" && !info.name.empty() &&
      (info.resource == "pods" || info.resource == "nodes" || info.resource == "namespaces" ||
       IsWorkloadResource(info.resource))) {
    if (info.verb == "get") {
      RequestInfo plain = info;
      plain.subresource.clear();
      return Get(request, plain);
    }
    if (info.verb == "update" || info.verb == "patch") return Update(request, info);
  }
  if (info.resource == "pods" && info.subresource == "ephemeralcontainers" &&
      !info.name.empty() && !info.namespace_.empty()) {
    if (info.verb == "get") {
      RequestInfo plain = info;
      plain.subresource.clear();
      return Get(request, plain);
    }
    if (info.verb == "update" || info.verb == "patch") return Update(request, info);
  }
  if (info.resource == "pods" && info.subresource == "eviction" && info.verb == "create" &&
      !info.namespace_.empty()) {
    return Evict(request, info);
  }
  if (!info.subresource.empty() || !Implemented(info.resource, info.verb)) {
    std::string what = info.resource + (info.subresource.empty() ? "" : "/" + info.subresource);
    return MethodNotSupported(what, info.verb).Response();
  }
  // A namespaced resource named through a namespace only; /api/v1/configmaps lists (and
  // watches) them all.
  if (resource->namespaced && info.namespace_.empty() && info.verb != "list" &&
      info.verb != "watch") {
    return PathNotFound().Response();
  }
  if (info.verb == "create") return Create(request, info);
  if (info.verb == "get") return Get(request, info);
  if (info.verb == "list") return List(request, info);
  if (info.verb == "watch") return Watch(request, info, media);
  if (info.verb == "update" || info.verb == "patch") return Update(request, info);
  return Delete(request, info);
}

std::variant<http::HttpResponse, RestHandler::Admitted> RestHandler::Admit(
    const http::HttpRequest& request, const RequestInfo& info, std::string_view body,
    const field::ErrorList& update_errors) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  api::DecodeOptions decode;
  decode.field_validation = FieldValidationOf(request);
  decode.kinds = {std::string(resource.kind)};
  std::vector<api::DecodeResult> stream;
  // What the object's namespace holds that admission reads: the Namespace (Pod Security's
  // labels) and its LimitRanges, ahead of the object as a stream of `admit` would have them.
  if (resource.namespaced) {
    auto ns = store_.Get({"namespaces", "", info.namespace_});
    if (!ns) {
      if (ns.error().Is(storage::kNotFound)) {
        return NotFound("namespaces", info.namespace_).Response();
      }
      return InternalResponse(ns.error());
    }
    // False for a damaged object: admission without it (a LimitRange left out) would let
    // through what it refuses.
    auto add = [&](const std::string& kind, const std::string& data) {
      auto tree = ParseStoredObject(data);
      if (!tree) return false;
      stream.push_back(api::DecodeObject(api::Schema::Objects(), kind, std::move(*tree), "store",
                                         0, api::FieldValidation::kIgnore));
      return true;
    };
    // NamespaceLifecycle: nothing new in a namespace being deleted (updates go on).
    if (info.verb == "create") {
      if (auto ns_tree = ParseStoredObject(ns->data);
          ns_tree && ns_tree->FindPath({"metadata", "deletionTimestamp"})) {
        std::string name;
        if (auto body_tree = codec::ParseJsonStream(body); body_tree && body_tree->size() == 1) {
          if (const Node* n = (*body_tree)[0].FindPath({"metadata", "name"})) name = n->scalar;
        }
        return Forbidden(info.resource, name,
                         fmt::format("unable to create new content in namespace {} because it is "
                                     "being terminated",
                                     info.namespace_))
            .Response();
      }
    }
    if (!add("Namespace", ns->data)) return CorruptResponse(*ns);
    auto ranges = store_.List("limitranges", info.namespace_, false);
    if (!ranges) return InternalResponse(ranges.error());
    for (const auto& lr : ranges->items) {
      // An update of a LimitRange is admitted without its stored self.
      if (info.resource == "limitranges" && lr.key.name == info.name) continue;
      if (!add("LimitRange", lr.data)) return CorruptResponse(lr);
    }
  }
  const std::size_t context = stream.size();
  auto decoded = api::DecodeManifests("request", body, decode);
  if (decoded.size() != 1) {
    return BadRequest("the request body must hold exactly one object").Response();
  }
  if (auto* err = std::get_if<api::DecodeError>(&decoded[0])) {
    return BadRequest(err->message).Response();
  }
  auto& object = std::get<api::DecodedObject>(decoded[0]);
  // The URL's namespace is the object's (rest.BeforeCreate / EnsureObjectNamespaceMatchesRequest).
  if (resource.namespaced) {
    Node& meta = object.tree.Ensure("metadata");
    const Node* given = meta.Find("namespace");
    if (given && given->IsString() && !given->scalar.empty() && given->scalar != info.namespace_) {
      return BadRequest(
                 "the namespace of the provided object does not match the namespace sent on "
                 "the request")
          .Response();
    }
    meta.Set("namespace", Node::String(info.namespace_));
  }
  Admitted admitted;
  admitted.warnings = object.warnings;
  stream.push_back(std::move(decoded[0]));
  admission::ChainOptions options = options_;
  options.username = request.user;  // Pod Security's exemptions are by user
  std::vector<admission::Outcome> outcomes = admission::RunChain(std::move(stream), options);
  if (outcomes.size() != context + 1) return BadRequest("admission produced no outcome").Response();
  admission::Outcome& outcome = outcomes.back();
  admitted.warnings.insert(admitted.warnings.end(), outcome.warnings.begin(),
                           outcome.warnings.end());
  if (!update_errors.empty() && (outcome.admitted || outcome.reason == "Invalid")) {
    outcome.admitted = false;
    outcome.reason = "Invalid";
    field::Append(outcome.field_errors, update_errors);
    const std::string kind = IsWorkloadResource(info.resource)
                                 ? validation::WorkloadGroupKind(resource.kind)
                                 : std::string(resource.kind);
    outcome.message = fmt::format("{} {} is invalid: {}", kind, field::GoQuote(info.name),
                                  field::Aggregate(outcome.field_errors));
  }
  if (!outcome.admitted) {
    ApiError e;
    if (outcome.reason == "Invalid") {
      // Invalid names the Kind and carries a cause per field: kubectl prints them.
      e = Invalid(resource.kind, outcome.name, outcome.field_errors);
      e.group = std::string(resource.group);
    } else {
      e.code = admission::StatusCode(outcome.reason);
      e.reason = outcome.reason;
      e.name = outcome.name;
      e.kind = info.resource;
    }
    e.message = outcome.message;
    http::HttpResponse r = e.Response();
    AddWarnings(r, admitted.warnings);
    return r;
  }
  admitted.object = std::move(outcome.object);
  return admitted;
}

std::variant<http::HttpResponse, RestHandler::Loaded> RestHandler::Load(const storage::ObjectKey& key) {
  auto got = store_.Get(key);
  if (!got) {
    if (got.error().Is(storage::kNotFound)) {
      const ServedResource* served = FindServedResourceByName(key.resource);
      return NotFound(key.resource, key.name, served ? served->group : "").Response();
    }
    return InternalResponse(got.error());
  }
  auto tree = ParseStoredObject(got->data);
  if (!tree) return CorruptResponse(*got);
  return Loaded{std::move(*got), std::move(*tree)};
}

http::HttpResponse RestHandler::Create(const http::HttpRequest& request, const RequestInfo& info,
                                      const Node* applied_managed_fields) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  if (auto refused = CheckWriteOptions(request, "create", false)) return refused->Response();
  // kubectl's generators (create namespace|configmap|secret, run) and client-go's typed
  // clients send protobuf.
  auto body = ReadRequestBody(request);
  if (!body) return body.error().Response();
  auto admitted = Admit(request, info, body->text);
  if (auto* refused = std::get_if<http::HttpResponse>(&admitted)) return std::move(*refused);
  Admitted& a = std::get<Admitted>(admitted);
  Node tree = std::move(a.object);
  Node& meta = tree.Ensure("metadata");
  const std::string name = meta.Find("name") ? meta.Find("name")->scalar : "";
  // A Job's uid is set by admission, which generated its selector from it.
  if (!(resource.kind == "Job" && meta.Find("uid"))) meta.Set("uid", Node::String(NewUuid()));
  meta.Set("creationTimestamp", Node::String(Now()));
  if (applied_managed_fields != nullptr) {
    if (applied_managed_fields->IsNull()) {
      meta.Erase("managedFields");
    } else {
      meta.Set("managedFields", *applied_managed_fields);
    }
  } else {
    const Node* requested = tree.FindPath({"metadata", "managedFields"});
    const std::optional<Node> requested_copy =
        requested ? std::optional<Node>(*requested) : std::nullopt;
    TrackWrite(WriteScopeOf(resource, "", Now()), nullptr, tree,
               requested_copy ? &*requested_copy : nullptr, request);
  }
  if (auto invalid = CheckManagedFields(resource.kind, tree)) return invalid->Response();
  const std::string kind(resource.kind);
  auto stored = store_.Create(
      {info.resource, resource.namespaced ? info.namespace_ : "", name},
      [&](std::int64_t rv) { return RenderStoredObject(tree, kind, rv); });
  if (!stored) {
    if (stored.error().Is(storage::kAlreadyExists)) {
      return AlreadyExists(QualifiedResource(info.resource), name).Response();
    }
    return InternalResponse(stored.error());
  }
  http::HttpResponse r = JsonResponse(201, std::move(stored->data));
  AddWarnings(r, a.warnings);
  return r;
}

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
    if (!tree) return CorruptResponse(*got);
    return JsonResponse(
        200, codec::EncodeJson(printers::BuildTable(info.resource, {std::move(*tree)},
                                                    std::to_string(got->revision), clock_(),
                                                    *row_object),
                               0));
  }
  if (StoredJsonProblem(got->data)) return CorruptResponse(*got);
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
  if (corrupt) return CorruptResponse(*corrupt);
  const std::string rv = std::to_string(listed->revision);
  if (WantsTable(request)) {
    auto row_object = TableRowObject(request);
    if (!row_object) return row_object.error().Response();
    std::vector<Node> objects;
    for (const auto& item : listed->items) {
      auto tree = ParseStoredObject(item.data);
      if (!tree) return CorruptResponse(item);
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
    if (StoredJsonProblem(listed->items[i].data)) return CorruptResponse(listed->items[i]);
    if (i > 0) body += ',';
    AppendListItem(body, listed->items[i].data);
  }
  body += "]}";
  return JsonResponse(200, std::move(body));
}

http::HttpResponse RestHandler::Watch(const http::HttpRequest& request, const RequestInfo& info,
                                      const OutputMediaType& media) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  auto query = [&](const char* key) {
    auto it = request.query.find(key);
    return it == request.query.end() ? std::string() : it->second;
  };
  auto options = ParseListOptions(request);
  if (!options) return options.error().Response();
  WatchRequest watch;
  watch.resource = info.resource;
  watch.kind = resource.kind;
  watch.api_version = resource.GroupVersion();
  watch.namespace_ = resource.namespaced ? info.namespace_ : "";
  watch.all_namespaces = !resource.namespaced || info.namespace_.empty();
  watch.table = media.convert_kind == "Table";
  watch.protobuf = media.type == MediaType::kProtobuf && !watch.table;
  auto labels = ParseLabelSelector(query("labelSelector"));
  if (!labels) return BadRequest(labels.error().Message()).Response();
  watch.labels = std::move(*labels);
  std::string field_selector = query("fieldSelector");
  if (!info.name.empty()) {
    // A watch of one object is a watch of its name (upstream's rewrite of GET name?watch).
    field_selector = "metadata.name=" + info.name +
                     (field_selector.empty() ? "" : "," + field_selector);
  }
  auto fields = ParseFieldSelector(field_selector, info.resource);
  if (!fields) return BadRequest(fields.error().Message()).Response();
  watch.fields = std::move(*fields);
  const std::string& rv = options->resource_version;
  if (!rv.empty() && rv != "0") {
    const std::optional<std::int64_t> from = ParseInt64(rv);
    if (!from || *from < 0) {
      return BadRequest(fmt::format("resourceVersion: Invalid value: {}: must be a decimal "
                                    "number",
                                    field::GoQuote(rv)))
          .Response();
    }
    watch.from = *from;
  }
  // Watch-list (watch_handler.h): the initial events whatever the resourceVersion, closed by
  // the initial-events-end bookmark when bookmarks are allowed.
  watch.send_initial_events = options->send_initial_events.value_or(false);
  watch.initial_events_end_bookmark = watch.send_initial_events && options->allow_watch_bookmarks;
  watch.bookmarks = options->allow_watch_bookmarks;
  if (options->send_initial_events == false && !watch.from) {
    // sendInitialEvents=false from "" or "0": the changes from now on, "now" fixed before the
    // answer so that the client's next write is after it.
    auto now = store_.Revision();
    if (!now) return InternalResponse(now.error());
    watch.from = *now;
  }
  if (const std::string t = query("timeoutSeconds"); !t.empty()) {
    const std::optional<std::int64_t> seconds = ParseInt64(t);
    if (!seconds || *seconds < 0) {
      return BadRequest(fmt::format("timeoutSeconds: Invalid value: {}", field::GoQuote(t)))
          .Response();
    }
    if (*seconds > 0) {
      watch.timeout = std::min<std::chrono::milliseconds>(watch.timeout,
                                                          std::chrono::seconds(*seconds));
    }
  }
  return ServeWatch(store_, std::move(watch), clock_);
}

http::HttpResponse RestHandler::Delete(const http::HttpRequest& request, const RequestInfo& info) {
  std::optional<std::string> grace_query;
  if (auto it = request.query.find("gracePeriodSeconds"); it != request.query.end()) {
    grace_query = it->second;
  }
  // client-go's typed clients send DeleteOptions in protobuf, kubectl in JSON.
  std::string body;
  if (request.body.find_first_not_of(" \t\r\n") != std::string::npos) {
    auto decoded = ReadRequestBodyAsJson(request);
    if (!decoded) return decoded.error().Response();
    body = std::move(*decoded);
  }
  auto options = ParseDeleteOptions(body, grace_query);
  if (!options) return BadRequest(options.error().Message()).Response();
  if (auto it = request.query.find("propagationPolicy");
      it != request.query.end() && options->propagation_policy.empty()) {
    options->propagation_policy = it->second;
  }
  return DeleteObject(info, *options);
}

http::HttpResponse RestHandler::DeleteObject(const RequestInfo& info, const DeleteOptions& options) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  const storage::ObjectKey key{info.resource, resource.namespaced ? info.namespace_ : "", info.name};
  std::optional<storage::DryRunScope> dry_run;
  if (options.dry_run) dry_run.emplace();
  // Retried when the object changes between the read and the write (the node publishing a
  // pod's status meanwhile), as the apiserver's GuaranteedUpdate retries.
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto loaded = Load(key);
    if (auto* missing = std::get_if<http::HttpResponse>(&loaded)) return std::move(*missing);
    storage::StoredObject* got = &std::get<Loaded>(loaded).stored;
    Node* tree = &std::get<Loaded>(loaded).tree;
    std::string uid;
    if (const Node* u = tree->FindPath({"metadata", "uid"})) uid = u->scalar;
    if (!options.precondition_uid.empty() && options.precondition_uid != uid) {
      return Conflict(QualifiedResource(info.resource), info.name,
                      fmt::format("Precondition failed: UID in precondition: {}, UID in object "
                                  "meta: {}",
                                  options.precondition_uid, uid))
          .Response();
    }
    if (!options.precondition_resource_version.empty() &&
        options.precondition_resource_version != std::to_string(got->revision)) {
      return Conflict(QualifiedResource(info.resource), info.name,
                      fmt::format("Precondition failed: ResourceVersion in precondition: {}, "
                                  "ResourceVersion in object meta: {}",
                                  options.precondition_resource_version, got->revision))
          .Response();
    }
    if (info.resource == "namespaces") {
      // NamespaceLifecycle's immortal namespaces; the others go through the namespace
      // controller: Terminating until their content is gone and the finalizer removed.
      for (std::string_view immortal : {"default", "kube-system", "kube-public"}) {
        if (info.name == immortal) {
          return Forbidden("namespaces", info.name, "this namespace may not be deleted").Response();
        }
      }
      const Node* finalizers = tree->FindPath({"spec", "finalizers"});
      if (finalizers && finalizers->IsArray() && !finalizers->items.empty()) {
        if (tree->FindPath({"metadata", "deletionTimestamp"})) {
          return JsonResponse(200, std::move(got->data));
        }
        tree->Ensure("metadata").Set("deletionTimestamp", Node::String(Now()));
        tree->Ensure("status").Set("phase", Node::String("Terminating"));
        auto updated = store_.Update(key, got->revision, [&](std::int64_t rv) {
          return RenderStoredObject(*tree, "Namespace", rv);
        });
        if (!updated) {
          if (updated.error().Is(storage::kConflict)) continue;
          return InternalResponse(updated.error());
        }
        return JsonResponse(200, std::move(updated->data));
      }
    }
    if (info.resource == "pods") {
      auto deletion = DecidePodDeletion(*tree, options);
      if (!deletion) return JsonResponse(200, std::move(got->data));  // already going sooner
      if (!deletion->immediate) {
        MarkPodDeleting(*tree, deletion->grace_seconds, clock_());
        auto updated = store_.Update(key, got->revision, [&](std::int64_t rv) {
          return RenderStoredObject(*tree, "Pod", rv);
        });
        if (!updated) {
          if (updated.error().Is(storage::kConflict)) continue;
          if (updated.error().Is(storage::kNotFound)) {
            return NotFound(info.resource, info.name, info.group).Response();
          }
          return InternalResponse(updated.error());
        }
        // The object, being deleted: what the apiserver answers a graceful delete.
        return JsonResponse(200, std::move(updated->data));
      }
    }
    if (IsWorkloadResource(info.resource) && options.propagation_policy == "Orphan" &&
        !options.dry_run) {
      if (auto orphaned = OrphanDependents(store_, info.resource, key.namespace_, uid); !orphaned) {
        return InternalResponse(orphaned.error());
      }
    }
    auto deleted = store_.Delete(key, got->revision, [&](std::int64_t rv) {
      return RenderStoredObject(*tree, resource.kind, rv);
    });
    if (!deleted) {
      if (deleted.error().Is(storage::kConflict)) continue;
      if (deleted.error().Is(storage::kNotFound)) {
        return NotFound(info.resource, info.name, info.group).Response();
      }
      return InternalResponse(deleted.error());
    }
    if (info.resource == "pods") return JsonResponse(200, std::move(deleted->data));
    // What the apiserver answers for other resources deleted at once: a Status of Success.
    Node status = Node::Object();
    status.Set("kind", Node::String("Status"));
    status.Set("apiVersion", Node::String("v1"));
    status.Set("metadata", Node::Object());
    status.Set("status", Node::String("Success"));
    Node details = Node::Object();
    details.Set("name", Node::String(info.name));
    if (!resource.group.empty()) details.Set("group", Node::String(std::string(resource.group)));
    details.Set("kind", Node::String(info.resource));
    details.Set("uid", Node::String(uid));
    status.Set("details", std::move(details));
    return JsonResponse(200, codec::EncodeJson(status, 0));
  }
  return Conflict(QualifiedResource(info.resource), info.name, ModifiedConflictReason()).Response();
}

}  // namespace podlimits::apiserver
