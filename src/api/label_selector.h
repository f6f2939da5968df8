// metav1.LabelSelector (matchLabels and matchExpressions) as the workload controllers and
// printers use it: LabelSelectorAsSelector's matching and metav1.FormatLabelSelector's text.
#pragma once

#include <map>
#include <string>

#include "codec/node.h"

namespace podlimits::api {

// Whether `labels` (an object of strings, or null) satisfies every term of `selector`. A
// selector with no terms matches everything; an unknown operator matches nothing (the
// apiserver refuses such selectors on create).
bool LabelSelectorMatches(const codec::Node& selector, const codec::Node* labels);

// kubectl's SELECTOR column: "app=web,tier in (a,b)", terms sorted by key; "<none>" for a
// missing or empty selector.
std::string FormatLabelSelector(const codec::Node* selector);

// An object's labels as a map (the pod-template-hash and the like are added to copies of them).
std::map<std::string, std::string> LabelsOf(const codec::Node* labels);

}  // namespace podlimits::api
