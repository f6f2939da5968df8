// The modules of src/ include only downward: the order of the add_subdirectory(src/...) lines in
// the top-level CMakeLists.txt is the rule (docs/architecture.md's table lists them the same
// way), and every file of every module is checked against it, so an include that climbs — or a
// circle between two modules — fails here before it can fail a link.
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

const fs::path kSourceDir = fs::path(PODLIMITS_SOURCE_DIR);

std::string ReadAll(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "add_subdirectory(src/codec)" -> {"codec", its position}
std::map<std::string, int> ModuleOrder() {
  std::map<std::string, int> order;
  const std::string text = ReadAll(kSourceDir / "CMakeLists.txt");
  const std::regex line(R"(add_subdirectory\(src/([a-z]+)\))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator();
       ++it) {
    order.emplace((*it)[1], static_cast<int>(order.size()));
  }
  return order;
}

TEST(ModuleOrder, EveryFolderOfSrcIsAModule) {
  const auto order = ModuleOrder();
  ASSERT_GE(order.size(), 20u);
  for (const auto& entry : fs::directory_iterator(kSourceDir / "src")) {
    if (!entry.is_directory()) continue;
    EXPECT_TRUE(order.contains(entry.path().filename().string())) << entry.path();
  }
}

TEST(ModuleOrder, IncludesOnlyPointDownward) {
  const auto order = ModuleOrder();
  const std::regex include(R"(#include "([a-z]+)/)");
  std::vector<std::string> climbs;
  for (const auto& [module, position] : order) {
    for (const auto& entry : fs::recursive_directory_iterator(kSourceDir / "src" / module)) {
      const auto extension = entry.path().extension();
      if (extension != ".h" && extension != ".cc") continue;
      const std::string text = ReadAll(entry.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), include);
           it != std::sregex_iterator(); ++it) {
        auto target = order.find((*it)[1]);
        if (target != order.end() && target->second > position) {
          climbs.push_back(fs::relative(entry.path(), kSourceDir).string() + " -> " +
                           target->first);
        }
      }
    }
  }
  EXPECT_EQ(climbs, std::vector<std::string>{});
}

}  // namespace
}  // namespace podlimits
