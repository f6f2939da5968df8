#include "api/protobuf_meta_schema.h"

namespace podlimits::api {
namespace {

// Written by hand (five small types): scripts/schema-add-kinds adds kinds of kubernetes/api to
// the object schema, which would make Status a kind `podlimits admit` accepts.
constexpr std::string_view kMetaSchema = R"({
 "roots": {"Status": "io.k8s.apimachinery.pkg.apis.meta.v1.Status"},
 "types": {
  "io.k8s.apimachinery.pkg.apis.meta.v1.Status": {"kind": "object", "fields": {
   "kind": {"type": "string"}, "apiVersion": {"type": "string"},
   "metadata": {"ref": "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta", "always": true, "pb": 1},
   "status": {"type": "string", "pb": 2},
   "message": {"type": "string", "pb": 3},
   "reason": {"type": "string", "pb": 4},
   "details": {"ref": "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails", "pb": 5},
   "code": {"type": "integer", "format": "int32", "pb": 6}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails": {"kind": "object", "fields": {
   "name": {"type": "string", "pb": 1},
   "group": {"type": "string", "pb": 2},
   "kind": {"type": "string", "pb": 3},
   "uid": {"type": "string", "pb": 6},
   "causes": {"list": {"ref": "io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause"}, "pb": 4},
   "retryAfterSeconds": {"type": "integer", "format": "int32", "pb": 5}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause": {"kind": "object", "fields": {
   "reason": {"type": "string", "pb": 1},
   "message": {"type": "string", "pb": 2},
   "field": {"type": "string", "pb": 3}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta": {"kind": "object", "fields": {
   "selfLink": {"type": "string", "pb": 1},
   "resourceVersion": {"type": "string", "pb": 2},
   "continue": {"type": "string", "pb": 3},
   "remainingItemCount": {"type": "integer", "format": "int64", "pb": 4}}}
 }
})";

}  // namespace

const Schema& MetaProtobufSchema() {
  static const Schema schema(kMetaSchema);
  return schema;
}

}  // namespace podlimits::api
