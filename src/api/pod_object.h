#pragma once

#include "api/objects.h"
#include "codec/node.h"

namespace podlimits::api {

// A pod as the API holds it together with its typed view, built once. The tree keeps every field
// as written (node admission checks each one against what the node applies; the store keeps it);
// the typed view is what every decision reads. The admission chain hands both on, so nothing
// between the request and the runtime reads the pod a second time.
struct PodObject {
  codec::Node tree;
  Pod pod;

  // For a pod that arrives as a tree alone (a file, a stored object): its typed view read once.
  static PodObject FromTree(codec::Node tree) {
    Pod pod = ReadPod(tree);
    return {std::move(tree), std::move(pod)};
  }
};

}  // namespace podlimits::api
