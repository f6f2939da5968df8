// The controllers' view of the API: objects read from the object store (what an informer's cache
// holds), writes sent through the API handler as HTTP requests of the controller's service
// account and kube-controller-manager's user agent, so that admission, validation, the
// resourceVersion checks and the managedFields (manager kube-controller-manager, Update) apply to
// them as to any client. Events are core/v1 Events as client-go's recorder posts them.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/rest_handler.h"
#include "codec/node.h"
#include "storage/object_store.h"

namespace podlimits::controllers {

struct Object {
  codec::Node tree;
  std::int64_t revision = 0;
};

class ApiClient {
 public:
  using Clock = std::function<std::chrono::sys_seconds()>;
  // `component`: the controller's name, e.g. "replicaset-controller" (its events' source and its
  // service account, system:serviceaccount:kube-system:<component>).
  ApiClient(storage::ObjectStore& store, apiserver::RestHandler& rest, std::string component,
            Clock clock = {});

  // Every object of `resource` (in `namespace_`, or everywhere when empty).
  std::vector<Object> List(std::string_view resource, std::string_view namespace_ = "") const;
  std::optional<Object> Get(std::string_view resource, std::string_view namespace_,
                            std::string_view name) const;

  // The answer's status and body; what the request path is: /api/v1/... or /apis/GROUP/v1/...
  struct Answer {
    int status = 0;
    std::string body;
    bool ok() const { return status >= 200 && status < 300; }
    // The Status message of a refusal.
    std::string Message() const;
  };
  Answer Create(std::string_view resource, std::string_view namespace_, const codec::Node& object);
  // PUT of the whole object, or of its status (`subresource` "status").
  Answer Update(std::string_view resource, const codec::Node& object,
                std::string_view subresource = "");
  // PATCH with `content_type` (merge, strategic or JSON patch).
  Answer Patch(std::string_view resource, std::string_view namespace_, std::string_view name,
               std::string_view content_type, std::string_view patch);
  Answer Delete(std::string_view resource, std::string_view namespace_, std::string_view name);

  // A Normal or Warning event about `object` (its kind and apiVersion as stored).
  void Event(const codec::Node& object, std::string_view type, std::string_view reason,
             std::string_view message);

  std::chrono::sys_seconds Now() const { return clock_(); }
  std::string NowText() const;

 private:
  std::string Path(std::string_view resource, std::string_view namespace_,
                   std::string_view name = "", std::string_view subresource = "") const;
  Answer Send(std::string method, std::string path, std::string content_type, std::string body);

  storage::ObjectStore& store_;
  apiserver::RestHandler& rest_;
  std::string component_;
  Clock clock_;
};

}  // namespace podlimits::controllers
