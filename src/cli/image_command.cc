#include "cli/image_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "codec/json_codec.h"
#include "codec/node.h"
#include "image/store.h"
#include "serve/data_dir.h"

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

int ImageLoadCommand(const std::string& image_root, const std::string& source,
                     const std::string& name) {
  auto store = Store(image_root);
  auto image = store.Load(source, name);
  if (!image) {
    std::fprintf(stderr, "error: %s\n", image.error().Message().c_str());
    return kExitRejected;
  }
  std::printf("Loaded image: %s (sha256:%s)\n", image->name.c_str(), image->id.c_str());
  return kExitOk;
}

int ImageListCommand(const std::string& image_root, const std::string& output) {
  auto store = Store(image_root);
  auto images = store.List();
  if (!images) {
    std::fprintf(stderr, "error: %s\n", images.error().Message().c_str());
    return kExitRejected;
  }
  if (output == "json") {
    codec::Node list = codec::Node::Array();
    for (const auto& i : *images) {
      codec::Node item = codec::Node::Object();
      item.Set("name", codec::Node::String(i.name));
      item.Set("id", codec::Node::String("sha256:" + i.id));
      item.Set("architecture", codec::Node::String(i.architecture));
      item.Set("os", codec::Node::String(i.os));
      item.Set("created", codec::Node::String(i.created));
      item.Set("format", codec::Node::String(i.format));
      item.Set("size", codec::Node::Int(static_cast<std::int64_t>(i.size)));
      list.items.push_back(std::move(item));
    }
    std::printf("%s\n", codec::EncodeJson(list, 4).c_str());
    return kExitOk;
  }
  std::printf("%-40s %-14s %-10s %s\n", "IMAGE", "ID", "SIZE", "FORMAT");
  for (const auto& i : *images) {
    std::printf("%-40s %-14s %-10s %s\n", i.name.c_str(), i.id.substr(0, 12).c_str(),
                HumanSize(i.size).c_str(), i.format.c_str());
  }
  return kExitOk;
}

int ImageRemoveCommand(const std::string& image_root, const std::string& name) {
  auto store = Store(image_root);
  if (auto r = store.Remove(name); !r) {
    std::fprintf(stderr, "error: %s\n", r.error().Message().c_str());
    return kExitRejected;
  }
  std::printf("Untagged: %s\n", name.c_str());
  return kExitOk;
}

struct ImageFlags {
  std::string image_root, data_dir;
  std::string load_source, load_name;
  std::string ls_output = "text";
  std::string rm_name;

  // --data-dir DIR is the image store of the node serving DIR.
  std::string Root() const {
    return data_dir.empty() ? image_root : serve::ImageRoot(data_dir).string();
  }
};

}  // namespace

void AddImageCommands(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ImageFlags>();
  CLI::App* image = app.add_subcommand("image", "The local image store");
  image->require_subcommand(1);
  auto* image_root_option = image->add_option(
      "--image-root", flags->image_root, "The image store (default /var/lib/podlimits/images)");
  AddDataDirFlag(image, flags->data_dir,
                 "The image store of the node `podlimits serve --data-dir DIR` runs: DIR/images")
      ->excludes(image_root_option);
  CLI::App* load = image->add_subcommand(
      "load", "Load an OCI image layout directory, an OCI archive or a docker archive");
  load->add_option("SOURCE", flags->load_source, "Directory or archive")->required();
  load->add_option("--name", flags->load_name, "NAME[:TAG] (default tag: latest)")->required();
  load->callback([flags, &exit_code] {
    exit_code = ImageLoadCommand(flags->Root(), flags->load_source, flags->load_name);
  });
  CLI::App* ls = image->add_subcommand("ls", "List the images");
  AddOutputFlag(ls, flags->ls_output, {"text", "json"}, "text or json");
  ls->callback([flags, &exit_code] { exit_code = ImageListCommand(flags->Root(), flags->ls_output); });
  CLI::App* rm =
      image->add_subcommand("rm", "Remove an image name (and the image with its last name)");
  rm->add_option("NAME", flags->rm_name, "NAME[:TAG]")->required();
  rm->callback([flags, &exit_code] { exit_code = ImageRemoveCommand(flags->Root(), flags->rm_name); });
  // `image load SRC --name N --image-root DIR`: an option of `image` given after its subcommand
  // goes up to `image`, as it does when given before.
  for (CLI::App* sub : {load, ls, rm}) sub->fallthrough();
}

}  // namespace podlimits::cli
