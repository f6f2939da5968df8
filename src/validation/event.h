// Validation of core/v1 Events written through the API (kubectl create -f, an operator's
// recorder), as the apiserver's legacy event validation does it for requests of version v1.
#pragma once

#include "codec/node.h"
#include "field/field.h"

namespace podlimits::validation {

// legacyValidateEvent: an event without eventTime (the old recorder's) names an involved object
// in its own namespace (an involved object without one: the event in "" or "default"); one with
// eventTime (the events.k8s.io recorder's) needs reportingComponent, reportingInstance (at most
// 128 characters) and action. The namespace is a DNS subdomain.
field::ErrorList ValidateEvent(const codec::Node& event);

}  // namespace podlimits::validation
