// The kubelet's libraries include only downward: the floors listed at the top of
// src/kubelet/CMakeLists.txt are the rule, and every file of src/kubelet/<library>/ is checked
// against them, so a new include that climbs (or a circle between two libraries) fails here
// before it can fail a link.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace podlimits {
namespace {

namespace fs = std::filesystem;

const fs::path kKubeletDir = fs::path(PODLIMITS_SOURCE_DIR) / "src/kubelet";

std::string ReadAll(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "#   3  cm          node capabilities, ..." -> {"cm", 3}
std::map<std::string, int> Floors() {
  std::map<std::string, int> floors;
  const std::string text = ReadAll(kKubeletDir / "CMakeLists.txt");
  const std::regex line(R"(#\s+(\d+)\s+([a-z]+)\s{2,})");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator();
       ++it) {
    floors[(*it)[2]] = std::stoi((*it)[1]);
  }
  return floors;
}

TEST(KubeletFloors, EveryFolderHasAFloor) {
  const auto floors = Floors();
  ASSERT_GE(floors.size(), 10u);
  for (const auto& entry : fs::directory_iterator(kKubeletDir)) {
    if (!entry.is_directory()) continue;
    EXPECT_TRUE(floors.contains(entry.path().filename().string())) << entry.path();
  }
}

TEST(KubeletFloors, IncludesOnlyPointDownward) {
  const auto floors = Floors();
  const std::regex include(R"(#include "kubelet/([a-z]+)/)");
  std::vector<std::string> climbs;
  for (const auto& [library, floor] : floors) {
    if (!fs::is_directory(kKubeletDir / library)) continue;  // the facade
    for (const auto& entry : fs::directory_iterator(kKubeletDir / library)) {
      const std::string text = ReadAll(entry.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), include);
           it != std::sregex_iterator(); ++it) {
        const std::string other = (*it)[1];
        if (other == library) continue;
        auto target = floors.find(other);
        if (target == floors.end() || target->second >= floor) {
          climbs.push_back(entry.path().filename().string() + " (" + library + ") -> " + other);
        }
      }
    }
  }
  EXPECT_EQ(climbs, std::vector<std::string>{});
}

}  // namespace
}  // namespace podlimits
