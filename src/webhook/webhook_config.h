// `podlimits webhook --config FILE`: what the webhook knows of the cluster without API access,
// as one YAML stream of the objects it would otherwise read:
//
//   Namespace (v1)                      its Pod Security labels, by name; a namespace the
//                                       file does not name has none
//   LimitRange (v1)                     the pod PID defaults and bounds of its namespace
//   AdmissionConfiguration              Pod Security's defaults and exemptions, as
//     (apiserver.config.k8s.io/v1)      `podlimits admit --admission-config` reads them
//   WebhookConfiguration                nodeEnforcement: RuntimeClass (the default: nodes run
//     (podlimits.dev/v1alpha1)          podlimits-runc behind RuntimeClasses) or NRI (nodes run
//                                       `podlimits nri`: no RuntimeClass set or required, and
//                                       naming one is an error); runtimeClassName: the
//                                       RuntimeClass the mutation sets for every need;
//                                       runtimeClassNames: {ulimits, podPIDLimit,
//                                       writableCgroups} one per need (default podlimits,
//                                       podlimits-pid, podlimits-cgroups; admission_review.h)
//
// Objects are decoded strictly: a misspelt field is an error naming the file and line.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "admission/pod_security.h"
#include "base/error.h"
#include "webhook/admission_review.h"

namespace podlimits::webhook {

struct WebhookSettings {
  ReviewPolicy policy;  // policy.chain.pod_security points into pod_security
  std::unique_ptr<admission::psa::PodSecurity> pod_security;
};

// The settings from `text` (the file `source`); the error is the message to print.
Result<WebhookSettings> ParseWebhookConfig(std::string_view text,
                                                               std::string_view source,
                                                               const std::filesystem::path& base_dir);

// ParseWebhookConfig on the file at `path`; an empty path gives the defaults.
Result<WebhookSettings> LoadWebhookConfig(const std::filesystem::path& path);

}  // namespace podlimits::webhook
