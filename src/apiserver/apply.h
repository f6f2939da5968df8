// The request side of managedFields and server-side apply (src/fieldmanager does the work):
//
//   the manager    `?fieldManager=`, or the User-Agent before its first `/` (kubectl, the Go
//                  program's name); validated on create, update and patch (at most 128 bytes,
//                  printable), required for apply, as upstream's Validate*Options answer:
//                  `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is
//                  required for apply patch`; `force` only on an apply
//   apply          PATCH with `application/apply-patch+yaml` (YAML or JSON): a missing object is
//                  created from the configuration; conflicts are 409 with a
//                  FieldManagerConflict cause per field; `application/apply-patch+cbor` is 415
//                  (kube-apiserver accepts it only with its CBOR feature gates, off by default)
//   managedFields  written by hand: ValidateManagedFields' 422
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "discovery/served_resources.h"
#include "codec/node.h"
#include "fieldmanager/field_manager.h"
#include "http/https_server.h"
#include "listwatch/api_errors.h"

namespace podlimits::apiserver {

bool IsApplyPatch(std::string_view content_type);

std::string WriteManager(const http::HttpRequest& request);

// The options' errors for `verb` (create, update, patch); nullopt when fine.
std::optional<ApiError> CheckWriteOptions(const http::HttpRequest& request, std::string_view verb,
                                          bool apply);

bool ForceApply(const http::HttpRequest& request);

fieldmanager::WriteScope WriteScopeOf(const ServedResource& resource, std::string_view subresource,
                                      std::string now);

// The apply body as an object; the apiserver's 400 when it is not one.
std::expected<codec::Node, ApiError> ReadApplyConfiguration(const http::HttpRequest& request);

// 422 for metadata.managedFields that ValidateManagedFields refuses.
std::optional<ApiError> CheckManagedFields(std::string_view kind, const codec::Node& object);

ApiError ApplyConflict(const std::vector<fieldmanager::Conflict>& conflicts);

// The managedFields of `next` for a create (live nullptr), update or patch, set in place.
void TrackWrite(const fieldmanager::WriteScope& scope, const codec::Node* live, codec::Node& next,
                const codec::Node* requested, const http::HttpRequest& request);

}  // namespace podlimits::apiserver
