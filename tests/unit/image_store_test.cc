// The image store: loading OCI layouts, OCI archives and docker archives; verification;
// atomicity; names; List / Find / Remove.
#include <gtest/gtest.h>

#include "image/lease.h"
#include "image/manifest.h"
#include "image/store.h"
#include "image_test_support.h"

namespace podlimits::image {
namespace {

using image_testing::ConfigJson;
using image_testing::DirNames;
using image_testing::Layer;
using image_testing::MakeLayer;
using image_testing::ReadFile;
using image_testing::TarEntry;
using image_testing::TempDir;
namespace fs = std::filesystem;

// Two layers: a base, and an upper one with a whiteout and an opaque directory.
std::vector<Layer> TwoLayers() {
  return {
      MakeLayer({TarEntry::Dir("bin"), TarEntry::File("bin/app", "v1", 0755),
                 TarEntry::File("etc/old.conf", "old"), TarEntry::File("var/cache/a", "a"),
                 TarEntry::File("var/cache/b", "b")}),
      MakeLayer({TarEntry::File("bin/app", "v2", 0755), TarEntry::File("etc/.wh.old.conf", ""),
                 TarEntry::File("var/cache/.wh..wh..opq", ""), TarEntry::File("var/cache/c", "c")},
                /*filter=*/"")};
}

class ImageStoreTest : public ::testing::Test {
 protected:
  // Checks the store holds `name` with the TwoLayers() content and ConfigJson()'s config.
  void ExpectTwoLayerImage(const std::string& name) {
    auto image = store_.Find(name);
    ASSERT_TRUE(image) << image.error();
    EXPECT_EQ(image->name, name);
    EXPECT_EQ(image->rootfs, root_ / image->id / "rootfs");
    EXPECT_EQ(ReadFile(image->rootfs / "bin/app"), "v2");
    EXPECT_FALSE(fs::exists(image->rootfs / "etc/old.conf"));
    EXPECT_TRUE(fs::is_directory(image->rootfs / "etc"));
    EXPECT_EQ(DirNames(image->rootfs / "var/cache"), std::vector<std::string>{"c"});
    EXPECT_EQ(image->config.entrypoint, std::vector<std::string>{"/bin/app"});
    EXPECT_EQ(image->config.cmd, std::vector<std::string>{"--serve"});
    EXPECT_EQ(image->config.env, (std::vector<std::string>{"PATH=/bin", "A=1"}));
    EXPECT_EQ(image->config.working_dir, "/srv");
    EXPECT_EQ(image->config.user, "65534");
    EXPECT_EQ(image->architecture, "amd64");
    EXPECT_EQ(image->os, "linux");
    EXPECT_EQ(image->created, "2024-01-02T03:04:05Z");
    EXPECT_EQ(image->size, 2u + 1u);  // "v2" and "c": what is left, not what was written
  }

  TempDir tmp_;
  fs::path root_ = tmp_ / "store";
  ImageStore store_{root_};
};

TEST_F(ImageStoreTest, LoadsAnOciLayoutWithWhiteoutsAndOpaqueDirs) {
  auto layers = TwoLayers();
  fs::path layout = image_testing::WriteOciLayout(tmp_ / "layout", layers, ConfigJson(layers));
  auto image = store_.Load(layout, "example/app:1.0");
  ASSERT_TRUE(image) << image.error();
  EXPECT_EQ(image->format, "oci-layout");
  EXPECT_EQ(image->id, image::ComputeDigest("sha256", ConfigJson(layers)).hex);
  EXPECT_EQ(DirNames(root_), (std::vector<std::string>{".lock", image->id, "images.json"}));
  EXPECT_EQ(DirNames(root_ / image->id), (std::vector<std::string>{"image.json", "rootfs"}));
  // Setuid files of images must not be reachable by other users.
  EXPECT_EQ(fs::status(root_).permissions(), fs::perms::owner_all);
  EXPECT_EQ(fs::status(root_ / image->id).permissions(), fs::perms::owner_all);
  ExpectTwoLayerImage("example/app:1.0");
}

TEST_F(ImageStoreTest, LoadsAnOciArchive) {
  auto layers = TwoLayers();
  fs::path layout = image_testing::WriteOciLayout(tmp_ / "layout", layers, ConfigJson(layers));
  fs::path archive = image_testing::TarDirectory(layout, tmp_ / "image.tar");
  auto image = store_.Load(archive, "example/app:1.0");
  ASSERT_TRUE(image) << image.error();
  EXPECT_EQ(image->format, "oci-layout");
  ExpectTwoLayerImage("example/app:1.0");
}

TEST_F(ImageStoreTest, LoadsCompressedArchivesAndZstdLayers) {
  auto layers = TwoLayers();
  layers[1] =
      MakeLayer({TarEntry::File("bin/app", "v2", 0755), TarEntry::File("etc/.wh.old.conf", ""),
                 TarEntry::File("var/cache/.wh..wh..opq", ""), TarEntry::File("var/cache/c", "c")},
                "zstd");
  fs::path layout = image_testing::WriteOciLayout(tmp_ / "layout", layers, ConfigJson(layers));
  fs::path archive = image_testing::TarDirectory(layout, tmp_ / "image.tar.gz", "gzip");
  auto image = store_.Load(archive, "example/app:1.0");
  ASSERT_TRUE(image) << image.error();
  ExpectTwoLayerImage("example/app:1.0");
}

TEST_F(ImageStoreTest, LoadsADockerArchive) {
  auto layers = TwoLayers();
  fs::path archive = image_testing::WriteDockerArchive(tmp_ / "save.tar", layers,
                                                       ConfigJson(layers), "example/app:1.0");
  auto image = store_.Load(archive, "example/app:1.0");
  ASSERT_TRUE(image) << image.error();
  EXPECT_EQ(image->format, "docker-archive");
  ExpectTwoLayerImage("example/app:1.0");
}

TEST_F(ImageStoreTest, LoadsADockerArchiveWhoseLayersAreSymlinks) {
  // docker save stores a layer shared by two images once and symlinks the other copy.
  auto layers = TwoLayers();
  std::string config = ConfigJson(layers);
  std::string config_name = image::ComputeDigest("sha256", config).hex + ".json";
  std::vector<TarEntry> entries = {
      TarEntry::File(config_name, config), TarEntry::File("a/layer.tar", layers[0].tar),
      TarEntry::File("b/layer.tar", layers[1].tar),
      TarEntry::Symlink("c/layer.tar", "../a/layer.tar"),
      TarEntry::File("manifest.json",
                     fmt::format(R"([{{"Config":"{}","RepoTags":null,"Layers":["c/layer.tar",)"
                                 R"("b/layer.tar"]}}])",
                                 config_name))};
  image_testing::WriteFile(tmp_ / "save.tar", image_testing::MakeTar(entries));
  auto image = store_.Load(tmp_ / "save.tar", "app");
  ASSERT_TRUE(image) << image.error();
  ExpectTwoLayerImage("app:latest");
}

TEST_F(ImageStoreTest, FindListAndRemove) {
  auto layers = TwoLayers();
  fs::path layout = image_testing::WriteOciLayout(tmp_ / "layout", layers, ConfigJson(layers));
  ASSERT_TRUE(store_.Load(layout, "example/app:1.0"));
  ExpectTwoLayerImage("example/app:1.0");
  // Same image, second name: shares the id and the files.
  auto second = store_.Load(layout, "app");
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(second->name, "app:latest");
  auto list = store_.List();
  ASSERT_TRUE(list) << list.error();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "app:latest");
  EXPECT_EQ((*list)[1].name, "example/app:1.0");
  EXPECT_EQ((*list)[0].id, (*list)[1].id);
  EXPECT_TRUE(store_.Find("app:latest"));
  EXPECT_TRUE(store_.Find("app")) << "no tag means :latest";

  auto missing = store_.Find("example/app");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().Message().find("image \"example/app:latest\" not found"),
            std::string::npos)
      << missing.error();

  ASSERT_TRUE(store_.Remove("app"));
  EXPECT_FALSE(store_.Find("app"));
  EXPECT_TRUE(fs::exists(root_ / second->id / "rootfs/bin/app")) << "still named example/app:1.0";
  auto again = store_.Remove("app");
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().Message().find("not found"), std::string::npos)
      << again.error().Message();

  ASSERT_TRUE(store_.Remove("example/app:1.0"));
  EXPECT_EQ(DirNames(root_), (std::vector<std::string>{".lock", "images.json"}));
  list = store_.List();
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->empty());
}

TEST_F(ImageStoreTest, ReloadingANameWithADifferentImageDropsTheOldOne) {
  auto v1 = TwoLayers();
  auto v2 = std::vector<Layer>{MakeLayer({TarEntry::File("bin/app", "v3")})};
  ASSERT_TRUE(store_.Load(image_testing::WriteOciLayout(tmp_ / "v1", v1, ConfigJson(v1)), "app"));
  auto old_id = store_.Find("app")->id;
  auto image = store_.Load(image_testing::WriteOciLayout(tmp_ / "v2", v2, ConfigJson(v2)), "app");
  ASSERT_TRUE(image) << image.error();
  EXPECT_NE(image->id, old_id);
  EXPECT_EQ(ReadFile(image->rootfs / "bin/app"), "v3");
  EXPECT_FALSE(fs::exists(root_ / old_id));
}

// A running pod's overlays live in its private mount namespace, out of `rm`'s sight; its lease
// is what keeps the image (image_lease.h).
TEST_F(ImageStoreTest, LeasedImageIsNeitherRemovedNorReplaced) {
  auto v1 = TwoLayers();
  ASSERT_TRUE(store_.Load(image_testing::WriteOciLayout(tmp_ / "v1", v1, ConfigJson(v1)), "app"));
  auto image = store_.Find("app");
  ASSERT_TRUE(image) << image.error();
  fs::path dir = root_ / image->id;
  {
    auto lease = ImageLease::Acquire(dir);
    ASSERT_TRUE(lease) << lease.error();
    EXPECT_EQ(ImageLeased(dir), true);
    auto refused = store_.Remove("app");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().Message(), "remove image \"app:latest\": in use by a running pod");
    EXPECT_TRUE(store_.Find("app")) << "a refused rm keeps the name";
    // Moving the name to another image keeps the leased one's files.
    auto v2 = std::vector<Layer>{MakeLayer({TarEntry::File("bin/app", "v3")})};
    ASSERT_TRUE(store_.Load(image_testing::WriteOciLayout(tmp_ / "v2", v2, ConfigJson(v2)), "app"));
    EXPECT_TRUE(fs::exists(dir / "rootfs/bin/app"));
  }
  EXPECT_EQ(ImageLeased(dir), false) << "the lease goes with its holder";
  ASSERT_TRUE(store_.Remove("app"));
}

// A lease for a pod leaves a holder record naming its pod directory: when podlimits dies with
// SIGKILL its lock goes but its containers may still run, so the image stays in use for as long
// as that directory does.
TEST_F(ImageStoreTest, HolderRecordKeepsTheImageOfADeadRunsPod) {
  auto v1 = TwoLayers();
  ASSERT_TRUE(store_.Load(image_testing::WriteOciLayout(tmp_ / "v1", v1, ConfigJson(v1)), "app"));
  const fs::path dir = root_ / store_.Find("app")->id;
  const fs::path pod_dir = tmp_ / "state/pods/u1";
  fs::create_directories(pod_dir);
  {
    auto lease = ImageLease::Acquire(dir, LeaseHolder{"u1", pod_dir});
    ASSERT_TRUE(lease) << lease.error();
    lease->KeepHolderRecord();  // as a teardown that failed, or a process that died
  }
  auto use = ImageUse(dir);
  ASSERT_TRUE(use) << use.error();
  ASSERT_TRUE(use->has_value());
  EXPECT_EQ(**use, "in use by the pod in \"" + pod_dir.string() +
                       "\", whose podlimits process is gone while its containers may still run; "
                       "the next `podlimits run` with that state directory cleans it up");
  EXPECT_FALSE(store_.Remove("app"));

  // Once the pod directory is gone, so is the use (and the stale record with it).
  fs::remove_all(pod_dir);
  EXPECT_EQ(ImageLeased(dir), false);
  EXPECT_TRUE(fs::is_empty(dir / ".holders"));
  ASSERT_TRUE(store_.Remove("app"));

  // A lease dropped normally takes its record along.
  ASSERT_TRUE(store_.Load(image_testing::WriteOciLayout(tmp_ / "v1b", v1, ConfigJson(v1)), "b"));
  const fs::path b = root_ / store_.Find("b")->id;
  fs::create_directories(pod_dir);
  { ASSERT_TRUE(ImageLease::Acquire(b, LeaseHolder{"u1", pod_dir})); }
  EXPECT_TRUE(fs::is_empty(b / ".holders"));
}

TEST_F(ImageStoreTest, LeaseOfARemovedImageFails) {
  auto lease = ImageLease::Acquire(root_ / "no-such-image");
  ASSERT_FALSE(lease);
  EXPECT_NE(lease.error().Message().find("open"), std::string::npos) << lease.error().Message();
}

// A load that fails leaves the store exactly as it was.
TEST_F(ImageStoreTest, RejectsBadImagesAndLeavesNothingBehind) {
  auto layers = TwoLayers();
  std::string config = ConfigJson(layers);
  struct Case {
    const char* name;
    std::function<fs::path(const fs::path& dir)> make;
    const char* want;
  };
  const Case cases[] = {
      {"layer digest mismatch",
       [&](const fs::path& dir) {
         auto bad = layers;
         image_testing::WriteOciLayout(dir, bad, config);
         // Replace the second layer's bytes, keeping the size.
         std::string blob = layers[1].blob;
         blob[blob.size() / 3] ^= 0x20;
         image_testing::WriteFile(dir / image::ComputeDigest("sha256", layers[1].blob).BlobPath(),
                                  blob);
         return dir;
       },
       "digest mismatch: want sha256:"},
      {"gzip layer corrupted",
       [&](const fs::path& dir) {
         image_testing::WriteOciLayout(dir, layers, config);
         std::string blob = layers[0].blob;
         for (std::size_t i = 20; i < blob.size() - 8; i += 7) blob[i] ^= 0x55;
         image_testing::WriteFile(dir / image::ComputeDigest("sha256", layers[0].blob).BlobPath(),
                                  blob);
         return dir;
       },
       "digest mismatch"},
      {"layer larger than declared",
       [&](const fs::path& dir) {
         image_testing::WriteOciLayout(dir, layers, config);
         image_testing::WriteFile(dir / image::ComputeDigest("sha256", layers[1].blob).BlobPath(),
                                  layers[1].blob + "trailing");
         return dir;
       },
       "larger than the"},
      {"missing layer blob",
       [&](const fs::path& dir) {
         image_testing::WriteOciLayout(dir, layers, config);
         fs::remove(dir / image::ComputeDigest("sha256", layers[1].blob).BlobPath());
         return dir;
       },
       "open layer \"blobs/sha256/"},
      {"config digest mismatch",
       [&](const fs::path& dir) {
         image_testing::WriteOciLayout(dir, layers, config);
         std::string tampered = config;
         tampered.replace(tampered.find("65534"), 5, "00000");
         image_testing::WriteFile(dir / image::ComputeDigest("sha256", config).BlobPath(),
                                  tampered);
         return dir;
       },
       "verify config"},
      {"docker archive layer not matching diff_ids",
       [&](const fs::path& dir) {
         auto swapped = layers;
         std::swap(swapped[0].tar, swapped[1].tar);
         return image_testing::WriteDockerArchive(dir.string() + ".tar", swapped, config);
       },
       "digest mismatch"},
      {"not an image",
       [&](const fs::path& dir) {
         image_testing::WriteFile(dir / "hello.txt", "hi");
         return dir;
       },
       "not an OCI image layout"},
      {"hostile layer",
       [&](const fs::path& dir) {
         auto hostile = std::vector<Layer>{MakeLayer({TarEntry::File("../../escape", "x")})};
         return image_testing::WriteOciLayout(dir, hostile, ConfigJson(hostile));
       },
       "path contains \"..\""},
  };
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    // A store that already holds an image must keep it, unchanged.
    ASSERT_TRUE(store_.Load(image_testing::WriteOciLayout(tmp_ / "good", layers, config), "good"));
    std::string index_before = ReadFile(root_ / "images.json");
    auto names_before = DirNames(root_);

    fs::path source = c.make(tmp_ / fmt::format("bad{}", n++));
    auto r = store_.Load(source, "bad:1");
    ASSERT_FALSE(r) << "accepted";
    EXPECT_NE(r.error().Message().find(c.want), std::string::npos) << r.error().Message();
    EXPECT_EQ(DirNames(root_), names_before) << "a staging directory was left behind";
    EXPECT_EQ(ReadFile(root_ / "images.json"), index_before);
    EXPECT_FALSE(store_.Find("bad:1"));
    ASSERT_TRUE(store_.Remove("good"));
  }
  EXPECT_FALSE(fs::exists(tmp_ / "escape"));
}

TEST_F(ImageStoreTest, ChoosesTheImageForThisPlatformOrName) {
  // One layout holding an arm64 and an amd64 image (a multi-platform index), plus a second
  // amd64 image under another ref name.
  fs::path layout = tmp_ / "multi";
  auto amd = std::vector<Layer>{MakeLayer({TarEntry::File("arch", "amd64")})};
  auto arm = std::vector<Layer>{MakeLayer({TarEntry::File("arch", "arm64")})};
  auto other = std::vector<Layer>{MakeLayer({TarEntry::File("arch", "other")})};
  std::string amd_m = image_testing::ManifestJson(layout, amd, ConfigJson(amd));
  std::string arm_m = image_testing::ManifestJson(layout, arm, ConfigJson(arm, "", "arm64"));
  std::string other_m = image_testing::ManifestJson(layout, other, ConfigJson(other));
  const char* kManifest = "application/vnd.oci.image.manifest.v1+json";
  std::string nested = fmt::format(
      R"({{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{},{}]}})",
      image_testing::PutBlob(layout, kManifest, arm_m,
                             R"(,"platform":{"architecture":"arm64","os":"linux"})"),
      image_testing::PutBlob(layout, kManifest, amd_m,
                             R"(,"platform":{"architecture":"amd64","os":"linux"})"));
  std::string top = fmt::format(
      R"({{"schemaVersion":2,"manifests":[{},{}]}})",
      image_testing::PutBlob(layout, "application/vnd.oci.image.index.v1+json", nested,
                             R"(,"annotations":{"org.opencontainers.image.ref.name":"1.0"})"),
      image_testing::PutBlob(layout, kManifest, other_m,
                             R"(,"annotations":{"org.opencontainers.image.ref.name":"other"})"));
  image_testing::WriteFile(layout / "index.json", top);
  image_testing::WriteFile(layout / "oci-layout", R"({"imageLayoutVersion":"1.0.0"})");

  if (HostArchitecture() == "amd64") {
    auto image = store_.Load(layout, "multi:1.0");
    ASSERT_TRUE(image) << image.error();
    EXPECT_EQ(ReadFile(image->rootfs / "arch"), "amd64");
  }
  auto image = store_.Load(layout, "multi:other");
  ASSERT_TRUE(image) << image.error();
  EXPECT_EQ(ReadFile(image->rootfs / "arch"), "other");
  auto ambiguous = store_.Load(layout, "multi:nomatch");
  ASSERT_FALSE(ambiguous);
  EXPECT_NE(ambiguous.error().Message().find("none is uniquely named"), std::string::npos)
      << ambiguous.error();
}

TEST_F(ImageStoreTest, RejectsInvalidNames) {
  auto r = store_.Load(tmp_.path(), "Bad/Name:1");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().Message().find("invalid image name"), std::string::npos)
      << r.error().Message();
  EXPECT_FALSE(fs::exists(root_));
}

TEST_F(ImageStoreTest, LoadsTheBusyboxImageTheScriptBuilds) {
  if (!fs::exists("/bin/busybox")) GTEST_SKIP() << "busybox-static is not installed";
  std::string cmd = fmt::format("{}/scripts/build-busybox-image {} >/dev/null",
                                PODLIMITS_SOURCE_DIR, (tmp_ / "out").string());
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  for (const char* source : {"busybox-oci", "busybox-oci.tar"}) {
    SCOPED_TRACE(source);
    auto image = store_.Load(tmp_ / "out" / source, "busybox");
    ASSERT_TRUE(image) << image.error();
    EXPECT_EQ(image->name, "busybox:latest");
    EXPECT_EQ(image->config.cmd, std::vector<std::string>{"sh"});
    EXPECT_TRUE(fs::is_regular_file(image->rootfs / "bin/busybox"));
    EXPECT_EQ(fs::read_symlink(image->rootfs / "bin/sh"), "/bin/busybox");
    EXPECT_EQ(fs::read_symlink(image->rootfs / "usr/bin/env"), "/bin/busybox");
    EXPECT_NE(ReadFile(image->rootfs / "etc/passwd").find("nobody:x:65534:65534:"),
              std::string::npos);
    for (const char* dir : {"tmp", "proc", "sys", "dev"}) {
      EXPECT_TRUE(fs::is_directory(image->rootfs / dir)) << dir;
    }
    EXPECT_EQ(fs::status(image->rootfs / "tmp").permissions(),
              fs::perms::all | fs::perms::sticky_bit);
  }
}

}  // namespace
}  // namespace podlimits::image
