#include "api/protobuf_meta_schema.h"

namespace podlimits::api {
namespace {

// Written by hand (a few small types): scripts/schema-add-kinds adds kinds of kubernetes/api to
// the object schema, which would make Status a kind `podlimits admit` accepts. ObjectMeta and
// the types under it are the object schema's own (a unit test holds them equal), repeated here
// because a schema's references stay inside it.
constexpr std::string_view kMetaSchema = R"({
 "roots": {"Status": "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
           "PartialObjectMetadata": "io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata",
           "PartialObjectMetadataList": "io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList"},
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
   "remainingItemCount": {"type": "integer", "format": "int64", "pb": 4},
   "shardInfo": {"ref": "io.k8s.apimachinery.pkg.apis.meta.v1.ShardInfo", "pb": 5}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.ShardInfo": {"kind": "object", "fields": {
   "selector": {"type": "string", "pb": 1}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata": {"kind": "object", "fields": {
   "kind": {"type": "string"}, "apiVersion": {"type": "string"},
   "metadata": {"ref": "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "pb": 1}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList": {"kind": "object", "fields": {
   "kind": {"type": "string"}, "apiVersion": {"type": "string"},
   "metadata": {"ref": "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta", "always": true, "pb": 1},
   "items": {"list": {"ref": "io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata"}, "pb": 2}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"kind": "object", "fields": {
   "name": {"type": "string", "pb": 1},
   "generateName": {"type": "string", "pb": 2},
   "namespace": {"type": "string", "pb": 3},
   "selfLink": {"type": "string", "pb": 4},
   "uid": {"type": "string", "pb": 5},
   "resourceVersion": {"type": "string", "pb": 6},
   "generation": {"type": "integer", "format": "int64", "pb": 7},
   "creationTimestamp": {"type": "time", "pb": 8},
   "deletionTimestamp": {"type": "time", "pb": 9},
   "deletionGracePeriodSeconds": {"type": "integer", "format": "int64", "pb": 10},
   "labels": {"map": {"type": "string"}, "pb": 11},
   "annotations": {"map": {"type": "string"}, "pb": 12},
   "ownerReferences": {"list": {"ref": "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"}, "pb": 13},
   "finalizers": {"list": {"type": "string"}, "pb": 14},
   "managedFields": {"list": {"ref": "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry"}, "pb": 17}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": {"kind": "object", "fields": {
   "apiVersion": {"type": "string", "pb": 5},
   "kind": {"type": "string", "pb": 1},
   "name": {"type": "string", "pb": 3},
   "uid": {"type": "string", "pb": 4},
   "controller": {"type": "boolean", "pb": 6},
   "blockOwnerDeletion": {"type": "boolean", "pb": 7}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry": {"kind": "object", "fields": {
   "manager": {"type": "string", "pb": 1},
   "operation": {"type": "string", "pb": 2},
   "apiVersion": {"type": "string", "pb": 3},
   "time": {"type": "time", "pb": 4},
   "fieldsType": {"type": "string", "pb": 6},
   "fieldsV1": {"type": "any", "pb": 7},
   "subresource": {"type": "string", "pb": 8}}}
 }
})";

}  // namespace

const Schema& MetaProtobufSchema() {
  static const Schema schema(kMetaSchema);
  return schema;
}

}  // namespace podlimits::api
