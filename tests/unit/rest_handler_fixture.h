// The REST handler over a fresh store, with a fixed clock and the system namespaces, for the
// tests of what it serves.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "printers/human_duration.h"
#include "storage/object_store.h"
#include "apiserver/rest_handler.h"
#include "temp_dir.h"

namespace podlimits::apiserver {

constexpr std::string_view kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
    "application/json";

class RestHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = storage::ObjectStore::Open(dir_ / "state.db");
    ASSERT_TRUE(s) << s.error().Message();
    store_ = std::move(*s);
    rest_ = std::make_unique<RestHandler>(*store_, admission::ChainOptions{},
                                          [] { return *printers::ParseApiTime("2026-11-25T12:00:00Z"); });
    ASSERT_TRUE(rest_->EnsureSystemNamespaces());
  }

  http::HttpResponse Call(std::string method, std::string path, std::string body = "",
                    std::string accept = "application/json",
                    std::string content_type = "application/json") {
    http::HttpRequest r;
    r.method = std::move(method);
    // The query, as the server splits it off (values are not escaped in these tests).
    if (auto q = path.find('?'); q != std::string::npos) {
      std::string query = path.substr(q + 1);
      path.resize(q);
      for (std::size_t at = 0; at <= query.size();) {
        std::size_t end = query.find('&', at);
        if (end == std::string::npos) end = query.size();
        const std::string pair = query.substr(at, end - at);
        const std::size_t eq = pair.find('=');
        if (!pair.empty()) {
          r.query[pair.substr(0, eq)] = eq == std::string::npos ? "" : pair.substr(eq + 1);
        }
        at = end + 1;
      }
    }
    r.path = std::move(path);
    r.body = std::move(body);
    r.headers["content-type"] = std::move(content_type);
    r.headers["accept"] = std::move(accept);
    r.user = "kubernetes-admin";
    auto response = rest_->Handle(r);
    EXPECT_TRUE(response.has_value());
    return response.value_or(http::HttpResponse{});
  }

  podlimits::testing::TempDir dir_{"podlimits-rest"};
  std::unique_ptr<storage::ObjectStore> store_;
  std::unique_ptr<RestHandler> rest_;
};

}  // namespace podlimits::apiserver
