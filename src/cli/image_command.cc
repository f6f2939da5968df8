#include "cli/image_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "api/json_codec.h"
#include "api/node.h"
#include "image/store.h"

namespace podlimits::cli {
namespace {

image::ImageStore Store(const std::string& image_root) {
  return image::ImageStore(image_root.empty() ? image::ImageStore::kDefaultRoot : image_root);
}

// docker's human sizes: 1.23MB (decimal units).
std::string HumanSize(std::uint64_t bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000 && u < 4) v /= 1000, ++u;
  return u == 0 ? fmt::format("{}B", bytes) : fmt::format("{:.3g}{}", v, units[u]);
}

}  // namespace

int ImageLoadCommand(const std::string& image_root, const std::string& source,
                     const std::string& name) {
  auto store = Store(image_root);
  auto image = store.Load(source, name);
  if (!image) {
    std::fprintf(stderr, "error: %s\n", image.error().Message().c_str());
    return 1;
  }
  std::printf("Loaded image: %s (sha256:%s)\n", image->name.c_str(), image->id.c_str());
  return 0;
}

int ImageListCommand(const std::string& image_root, const std::string& output) {
  auto store = Store(image_root);
  auto images = store.List();
  if (!images) {
    std::fprintf(stderr, "error: %s\n", images.error().Message().c_str());
    return 1;
  }
  if (output == "json") {
    api::Node list = api::Node::Array();
    for (const auto& i : *images) {
      api::Node item = api::Node::Object();
      item.Set("name", api::Node::String(i.name));
      item.Set("id", api::Node::String("sha256:" + i.id));
      item.Set("architecture", api::Node::String(i.architecture));
      item.Set("os", api::Node::String(i.os));
      item.Set("created", api::Node::String(i.created));
      item.Set("format", api::Node::String(i.format));
      item.Set("size", api::Node::Int(static_cast<std::int64_t>(i.size)));
      list.items.push_back(std::move(item));
    }
    std::printf("%s\n", api::EncodeJson(list, 4).c_str());
    return 0;
  }
  std::printf("%-40s %-14s %-10s %s\n", "IMAGE", "ID", "SIZE", "FORMAT");
  for (const auto& i : *images) {
    std::printf("%-40s %-14s %-10s %s\n", i.name.c_str(), i.id.substr(0, 12).c_str(),
                HumanSize(i.size).c_str(), i.format.c_str());
  }
  return 0;
}

int ImageRemoveCommand(const std::string& image_root, const std::string& name) {
  auto store = Store(image_root);
  if (auto r = store.Remove(name); !r) {
    std::fprintf(stderr, "error: %s\n", r.error().Message().c_str());
    return 1;
  }
  std::printf("Untagged: %s\n", name.c_str());
  return 0;
}

}  // namespace podlimits::cli
