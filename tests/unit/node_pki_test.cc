// The node's CA, serving and admin certificates and the kubeconfig naming them.
#include "serve/pki.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "base/base64.h"
#include "temp_dir.h"

namespace podlimits::serve {
namespace {

std::unique_ptr<X509, decltype(&X509_free)> Load(const std::filesystem::path& p) {
  FILE* f = fopen(p.c_str(), "r");
  X509* c = f ? PEM_read_X509(f, nullptr, nullptr, nullptr) : nullptr;
  if (f) fclose(f);
  return {c, X509_free};
}

mode_t Mode(const std::filesystem::path& p) {
  struct stat st {};
  stat(p.c_str(), &st);
  return st.st_mode & 07777;
}

std::string SubjectAltNames(X509* cert) {
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  std::string out;
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names); ++i) {
    GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS) {
      out += "DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(n->d.dNSName))) + " ";
    } else if (n->type == GEN_IPADD) {
      out += "IP(" + std::to_string(ASN1_STRING_length(n->d.iPAddress)) + " bytes) ";
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

TEST(NodePki, MadeOnceChainedAndReused) {
  podlimits::testing::TempDir dir("podlimits-pki");
  PkiOptions options;
  options.data_dir = dir.path();
  auto pki = EnsureNodePki(options);
  ASSERT_TRUE(pki) << pki.error();
  EXPECT_TRUE(pki->created);

  auto ca = Load(pki->ca_cert), serving = Load(pki->serving_cert), admin = Load(pki->admin_cert);
  ASSERT_TRUE(ca && serving && admin);
  EVP_PKEY* ca_key = X509_get0_pubkey(ca.get());
  EXPECT_EQ(X509_verify(serving.get(), ca_key), 1);
  EXPECT_EQ(X509_verify(admin.get(), ca_key), 1);
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_EQ(X509_check_ca(serving.get()), 0);
  EXPECT_EQ(X509_check_purpose(serving.get(), X509_PURPOSE_SSL_SERVER, 0), 1);
  EXPECT_EQ(X509_check_purpose(admin.get(), X509_PURPOSE_SSL_CLIENT, 0), 1);
  EXPECT_NE(X509_check_purpose(admin.get(), X509_PURPOSE_SSL_SERVER, 0), 1);
  EXPECT_EQ(X509_check_host(serving.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(serving.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(serving.get(), "::1", 0), 1);
  EXPECT_NE(X509_check_ip_asc(serving.get(), "10.0.0.1", 0), 1) << SubjectAltNames(serving.get());
  char subject[256] = {};
  X509_NAME_oneline(X509_get_subject_name(admin.get()), subject, sizeof subject);
  EXPECT_STREQ(subject, "/O=system:masters/CN=kubernetes-admin");

  for (const auto& key : {pki->ca_key, pki->serving_key, pki->admin_key, pki->kubeconfig}) {
    EXPECT_EQ(Mode(key), 0600u) << key;
  }
  EXPECT_EQ(Mode(dir / "pki"), 0700u);

  const std::string kubeconfig = podlimits::testing::ReadText(pki->kubeconfig);
  EXPECT_NE(kubeconfig.find("    server: https://127.0.0.1:6443\n"), std::string::npos);
  EXPECT_NE(kubeconfig.find("    certificate-authority-data: " +
                            Base64Encode(podlimits::testing::ReadText(pki->ca_cert)) + "\n"),
            std::string::npos);
  EXPECT_NE(kubeconfig.find("current-context: admin@podlimits\n"), std::string::npos);

  // A second start reuses everything, byte for byte.
  const std::string before = podlimits::testing::ReadText(pki->serving_cert);
  auto again = EnsureNodePki(options);
  ASSERT_TRUE(again) << again.error();
  EXPECT_FALSE(again->created);
  EXPECT_EQ(podlimits::testing::ReadText(pki->serving_cert), before);

  // A piece missing is an error naming it, not a silent new CA.
  std::filesystem::remove(pki->admin_key);
  auto partial = EnsureNodePki(options);
  ASSERT_FALSE(partial);
  EXPECT_NE(partial.error().Message().find("admin.key"), std::string::npos) << partial.error();

  // A key that does not belong to its certificate is refused.
  std::filesystem::copy_file(pki->serving_key, pki->admin_key);
  auto mismatched = EnsureNodePki(options);
  ASSERT_FALSE(mismatched);
  EXPECT_NE(mismatched.error().Message().find("does not match"), std::string::npos)
      << mismatched.error();
}

TEST(NodePki, ExtraServingNames) {
  podlimits::testing::TempDir dir("podlimits-pki");
  PkiOptions options;
  options.data_dir = dir.path();
  options.dns_names = {"node.example"};
  options.ip_addresses = {"10.0.0.7"};
  options.server_url = "https://10.0.0.7:6443";
  auto pki = EnsureNodePki(options);
  ASSERT_TRUE(pki) << pki.error();
  auto serving = Load(pki->serving_cert);
  EXPECT_EQ(X509_check_host(serving.get(), "node.example", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(serving.get(), "10.0.0.7", 0), 1);
  EXPECT_NE(podlimits::testing::ReadText(pki->kubeconfig).find("server: https://10.0.0.7:6443"),
            std::string::npos);
}

// Serve started again with another --listen: the kubeconfig follows it, the serving
// certificate is issued again (same key, same CA) only when it does not cover the new address,
// and the CA and admin credentials stay byte for byte.
TEST(NodePki, TheKubeconfigFollowsTheListenAddress) {
  struct Start {
    std::string server_url;
    std::vector<std::string> ips;  // what serve asks the serving certificate to cover
  };
  struct Case {
    const char* name;
    Start first, second;
    bool reissued;  // the serving certificate
    bool rewritten;  // the kubeconfig
  };
  const Start loopback{"https://127.0.0.1:6443", {"127.0.0.1"}};
  const Case cases[] = {
      {"the same address", loopback, loopback, false, false},
      {"another port", loopback, {"https://127.0.0.1:7443", {"127.0.0.1"}}, false, true},
      {"another loopback address", loopback, {"https://127.0.0.2:6443", {"127.0.0.2"}}, true,
       true},
      {"a non-loopback address", loopback, {"https://10.0.0.7:6443", {"10.0.0.7"}}, true, true},
      {"IPv6 loopback", loopback, {"https://[::1]:6443", {"::1"}}, false, true},
      {"from one address to another", {"https://10.0.0.7:6443", {"10.0.0.7"}},
       {"https://10.0.0.8:6443", {"10.0.0.8"}}, true, true},
      {"back to loopback", {"https://10.0.0.7:6443", {"10.0.0.7"}}, loopback, false, true},
  };
  for (const auto& c : cases) {
    podlimits::testing::TempDir dir("podlimits-pki");
    PkiOptions options;
    options.data_dir = dir.path();
    options.server_url = c.first.server_url;
    options.ip_addresses = c.first.ips;
    auto first = EnsureNodePki(options);
    ASSERT_TRUE(first) << c.name << ": " << first.error();
    const std::string ca = podlimits::testing::ReadText(first->ca_cert);
    const std::string ca_key = podlimits::testing::ReadText(first->ca_key);
    const std::string admin = podlimits::testing::ReadText(first->admin_cert);
    const std::string admin_key = podlimits::testing::ReadText(first->admin_key);
    const std::string serving = podlimits::testing::ReadText(first->serving_cert);
    const std::string serving_key = podlimits::testing::ReadText(first->serving_key);

    options.server_url = c.second.server_url;
    options.ip_addresses = c.second.ips;
    auto second = EnsureNodePki(options);
    ASSERT_TRUE(second) << c.name << ": " << second.error();
    EXPECT_FALSE(second->created) << c.name;
    EXPECT_EQ(second->serving_reissued, c.reissued) << c.name;
    EXPECT_EQ(second->kubeconfig_written, c.rewritten) << c.name;

    const std::string kubeconfig = podlimits::testing::ReadText(second->kubeconfig);
    EXPECT_NE(kubeconfig.find("    server: " + c.second.server_url + "\n"), std::string::npos)
        << c.name << "\n" << kubeconfig;
    EXPECT_EQ(kubeconfig, KubeconfigText("podlimits", c.second.server_url, ca, admin, admin_key))
        << c.name;
    EXPECT_EQ(Mode(second->kubeconfig), 0600u) << c.name;
    EXPECT_EQ(podlimits::testing::ReadText(second->ca_cert), ca) << c.name;
    EXPECT_EQ(podlimits::testing::ReadText(second->ca_key), ca_key) << c.name;
    EXPECT_EQ(podlimits::testing::ReadText(second->admin_cert), admin) << c.name;
    EXPECT_EQ(podlimits::testing::ReadText(second->admin_key), admin_key) << c.name;
    EXPECT_EQ(podlimits::testing::ReadText(second->serving_key), serving_key) << c.name;
    EXPECT_EQ(podlimits::testing::ReadText(second->serving_cert) != serving, c.reissued) << c.name;

    // Whatever happened, the serving certificate covers the address, is the CA's, still covers
    // loopback and localhost, and goes with its key; a third start changes nothing.
    auto cert = Load(second->serving_cert);
    ASSERT_TRUE(cert) << c.name;
    for (const auto& ip : c.second.ips) {
      EXPECT_EQ(X509_check_ip_asc(cert.get(), ip.c_str(), 0), 1)
          << c.name << ": " << ip << " in " << SubjectAltNames(cert.get());
    }
    EXPECT_EQ(X509_check_ip_asc(cert.get(), "127.0.0.1", 0), 1) << c.name;
    EXPECT_EQ(X509_check_ip_asc(cert.get(), "::1", 0), 1) << c.name;
    EXPECT_EQ(X509_check_host(cert.get(), "localhost", 0, 0, nullptr), 1) << c.name;
    EXPECT_EQ(X509_verify(cert.get(), X509_get0_pubkey(Load(second->ca_cert).get())), 1) << c.name;
    auto third = EnsureNodePki(options);
    ASSERT_TRUE(third) << c.name << ": " << third.error();
    EXPECT_FALSE(third->serving_reissued) << c.name;
    EXPECT_FALSE(third->kubeconfig_written) << c.name;
  }
}

// The kubeconfig is derived from the certificates: one that is missing or was edited is written
// again, where a missing key or certificate is an error (NodePki.MadeOnceChainedAndReused).
TEST(NodePki, AMissingOrChangedKubeconfigIsWrittenAgain) {
  podlimits::testing::TempDir dir("podlimits-pki");
  PkiOptions options;
  options.data_dir = dir.path();
  auto pki = EnsureNodePki(options);
  ASSERT_TRUE(pki) << pki.error();
  const std::string original = podlimits::testing::ReadText(pki->kubeconfig);
  for (const char* change : {"missing", "edited"}) {
    if (std::string(change) == "missing") {
      std::filesystem::remove(pki->kubeconfig);
    } else {
      std::ofstream(pki->kubeconfig) << "apiVersion: v1\nkind: Config\n";
    }
    auto again = EnsureNodePki(options);
    ASSERT_TRUE(again) << change << ": " << again.error();
    EXPECT_TRUE(again->kubeconfig_written) << change;
    EXPECT_EQ(podlimits::testing::ReadText(pki->kubeconfig), original) << change;
    EXPECT_EQ(Mode(pki->kubeconfig), 0600u) << change;
  }
}

}  // namespace
}  // namespace podlimits::serve
