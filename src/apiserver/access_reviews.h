// What a client asks about itself, computed per request and never stored:
//
//   POST /apis/authentication.k8s.io/v1/selfsubjectreviews        kubectl auth whoami
//   POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews   kubectl auth can-i VERB RES
//   POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews    kubectl auth can-i --list
//
// Every user serve authenticates (its admin certificate's kubernetes-admin, a token's user) is
// in system:masters, which kube-apiserver's authorizer chain allows everything before RBAC is
// asked; serve has no other authorizer. So an access review is `allowed: true` with no reason,
// and a rules review lists everything (verbs, groups and resources "*", non-resource URLs "*"),
// complete. A user's groups are what the authenticator gave plus system:authenticated, as
// kube-apiserver adds it.
//
// The body in JSON, YAML or protobuf (request_body.h), decoded strictly as its kind (400 for an
// unknown field under fieldValidation=Strict); a SelfSubjectAccessReview's spec validated as
// ValidateSelfSubjectAccessReview (422 naming the field); 201 with the review and its status.
// Other verbs are the apiserver's 405.
#pragma once

#include <string_view>

#include "http/https_server.h"
#include "listwatch/request_info.h"

namespace podlimits::apiserver {

inline constexpr std::string_view kAuthenticationGroup = "authentication.k8s.io";
inline constexpr std::string_view kAuthorizationGroup = "authorization.k8s.io";

// The answer to a request of kAuthenticationGroup or kAuthorizationGroup.
http::HttpResponse ServeAccessReview(const http::HttpRequest& request, const RequestInfo& info);

}  // namespace podlimits::apiserver
