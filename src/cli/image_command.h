// `podlimits image load SOURCE --name NAME[:TAG] | ls [-o json] | rm NAME[:TAG]`: the local image
// store runtime/image_store.h describes. Exit 0 on success, 1 when the store refuses (no such
// image, a corrupt archive, an image in use), 2 on usage errors.
#pragma once

#include <string>

namespace podlimits::cli {

int ImageLoadCommand(const std::string& image_root, const std::string& source,
                     const std::string& name);
int ImageListCommand(const std::string& image_root, const std::string& output);
int ImageRemoveCommand(const std::string& image_root, const std::string& name);

}  // namespace podlimits::cli
