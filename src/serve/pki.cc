#include "serve/pki.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "base/base64.h"
#include "base/fs.h"
#include "cri/oci_process.h"

namespace podlimits::serve {

namespace fs = std::filesystem;

namespace {

constexpr long kDay = 24L * 60 * 60;
constexpr long kCaValidity = 3650 * kDay;
constexpr long kLeafValidity = 365 * kDay;

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;
using Bio = std::unique_ptr<BIO, BioFree>;

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256] = {};
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

Result<Key> NewKey() {
  Key key(EVP_EC_gen("P-256"));
  if (!key) return Failure("generate key", {}, OpenSslError());
  return key;
}

std::string ToPem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string ToPem(X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

struct CertRequest {
  std::string common_name;
  std::string organization;
  long validity = kLeafValidity;
  bool ca = false;
  std::string ext_key_usage;  // "serverAuth" / "clientAuth"
  std::string subject_alt_names;  // "DNS:localhost,IP:127.0.0.1"
};

// Issues a certificate for `key`, signed by `issuer_key` (self-signed when `issuer` is null).
Result<Cert> Issue(const CertRequest& req, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key) {
  Cert cert(X509_new());
  if (!cert) return Failure("issue certificate", {}, OpenSslError());
  X509_set_version(cert.get(), 2);  // v3
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return Failure("issue certificate", {}, OpenSslError());
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  // A minute back, so a client whose clock is slightly behind accepts it at once.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), req.validity);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (!req.organization.empty()) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(req.organization.c_str()),
                               -1, -1, 0);
  }
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(req.common_name.c_str()), -1,
                             -1, 0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = true;
  if (req.ca) {
    ok = ok && AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    ok = ok && AddExtension(cert.get(), signer, NID_key_usage,
                            "critical,digitalSignature,keyCertSign,cRLSign");
  } else {
    ok = ok && AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    ok = ok && AddExtension(cert.get(), signer, NID_key_usage,
                            "critical,digitalSignature,keyEncipherment");
    ok = ok && AddExtension(cert.get(), signer, NID_ext_key_usage, req.ext_key_usage);
    ok = ok && AddExtension(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
  }
  ok = ok && AddExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (!req.subject_alt_names.empty()) {
    ok = ok && AddExtension(cert.get(), signer, NID_subject_alt_name, req.subject_alt_names);
  }
  if (!ok) return Failure("issue certificate", req.common_name, OpenSslError());
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) == 0) {
    return Failure("sign certificate", req.common_name, OpenSslError());
  }
  return cert;
}

Result<Key> ReadKey(const fs::path& path) {
  auto text = ReadSmallFile(path, 64 * 1024);
  if (!text) return std::unexpected(text.error());
  Bio bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
  Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return Failure("read private key", path, OpenSslError());
  return key;
}

Result<Cert> ReadCert(const fs::path& path) {
  auto text = ReadSmallFile(path, 64 * 1024);
  if (!text) return std::unexpected(text.error());
  Bio bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
  Cert cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return Failure("read certificate", path, OpenSslError());
  return cert;
}

// The serving certificate's subjectAltName: localhost, the host name, 127.0.0.1 and ::1, and the
// names and addresses asked for.
std::string ServingNames(const PkiOptions& options) {
  std::string sans = "DNS:localhost";
  const std::string host = cri::HostName();
  if (!host.empty() && host != "localhost") sans += ",DNS:" + host;
  for (const auto& d : options.dns_names) {
    if (d != "localhost" && d != host) sans += ",DNS:" + d;
  }
  sans += ",IP:127.0.0.1,IP:::1";
  for (const auto& ip : options.ip_addresses) {
    if (ip != "127.0.0.1" && ip != "::1") sans += ",IP:" + ip;
  }
  return sans;
}

constexpr std::string_view kServingName = "podlimits-apiserver";

// Whether `cert` is valid for every name and address asked for.
bool Covers(X509* cert, const PkiOptions& options) {
  for (const auto& ip : options.ip_addresses) {
    if (X509_check_ip_asc(cert, ip.c_str(), 0) != 1) return false;
  }
  for (const auto& d : options.dns_names) {
    if (X509_check_host(cert, d.c_str(), d.size(), 0, nullptr) != 1) return false;
  }
  return true;
}

}  // namespace

std::string KubeconfigText(const std::string& cluster_name, const std::string& server_url,
                           const std::string& ca_pem, const std::string& client_cert_pem,
                           const std::string& client_key_pem) {
  const std::string user = "admin@" + cluster_name;
  return fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: {0}\n"
      "  cluster:\n"
      "    server: {1}\n"
      "    certificate-authority-data: {2}\n"
      "users:\n"
      "- name: {3}\n"
      "  user:\n"
      "    client-certificate-data: {4}\n"
      "    client-key-data: {5}\n"
      "contexts:\n"
      "- name: {3}\n"
      "  context:\n"
      "    cluster: {0}\n"
      "    user: {3}\n"
      "current-context: {3}\n"
      "preferences: {{}}\n",
      cluster_name, server_url, Base64Encode(ca_pem), user, Base64Encode(client_cert_pem),
      Base64Encode(client_key_pem));
}

Result<NodePki> EnsureNodePki(const PkiOptions& options) {
  const fs::path pki = options.data_dir / "pki";
  NodePki out{pki / "ca.crt",        pki / "ca.key",        pki / "apiserver.crt",
              pki / "apiserver.key", pki / "admin.crt",     pki / "admin.key",
              options.data_dir / "kubeconfig", false};
  if (mkdir(pki.c_str(), 0700) != 0 && errno != EEXIST) return SystemError("mkdir", pki, errno);

  // The certificates and keys; the kubeconfig is derived from them.
  const std::vector<fs::path> all = {out.ca_cert,      out.ca_key,     out.serving_cert,
                                     out.serving_key,  out.admin_cert, out.admin_key};
  std::size_t present = 0;
  for (const auto& p : all) present += fs::exists(p) ? 1 : 0;
  if (present == all.size()) {
    // Reused: they must still parse and belong together.
    auto ca = ReadCert(out.ca_cert);
    if (!ca) return std::unexpected(ca.error());
    for (const auto& [cert_path, key_path] :
         {std::pair{out.serving_cert, out.serving_key}, std::pair{out.admin_cert, out.admin_key}}) {
      auto cert = ReadCert(cert_path);
      if (!cert) return std::unexpected(cert.error());
      auto key = ReadKey(key_path);
      if (!key) return std::unexpected(key.error());
      if (X509_check_private_key(cert->get(), key->get()) != 1) {
        return Failure("check key pair", key_path, "the key does not match " + cert_path.string());
      }
      EVP_PKEY* ca_public = X509_get0_pubkey(ca->get());
      if (X509_verify(cert->get(), ca_public) != 1) {
        return Failure("verify certificate", cert_path, "not signed by " + out.ca_cert.string());
      }
      if (cert_path == out.serving_cert && !Covers(cert->get(), options)) {
        // The same key, so only the certificate file changes (atomically): no moment where a
        // crash leaves a key beside a certificate that is not its own.
        auto ca_key = ReadKey(out.ca_key);
        if (!ca_key) return std::unexpected(ca_key.error());
        auto serving = Issue({std::string(kServingName), "", kLeafValidity, false, "serverAuth",
                              ServingNames(options)},
                             key->get(), ca->get(), ca_key->get());
        if (!serving) return std::unexpected(serving.error());
        if (auto w = WriteFileAtomically(out.serving_cert, ToPem(serving->get()), 0644); !w) {
          return std::unexpected(w.error());
        }
        out.serving_reissued = true;
      }
    }
    auto ca_pem = ReadSmallFile(out.ca_cert, 64 * 1024);
    if (!ca_pem) return std::unexpected(ca_pem.error());
    auto admin_pem = ReadSmallFile(out.admin_cert, 64 * 1024);
    if (!admin_pem) return std::unexpected(admin_pem.error());
    auto admin_key_pem = ReadSmallFile(out.admin_key, 64 * 1024);
    if (!admin_key_pem) return std::unexpected(admin_key_pem.error());
    const std::string kubeconfig = KubeconfigText(options.cluster_name, options.server_url,
                                                  *ca_pem, *admin_pem, *admin_key_pem);
    auto current = fs::exists(out.kubeconfig) ? ReadSmallFile(out.kubeconfig, 256 * 1024)
                                              : Result<std::string>(std::string());
    if (!current || *current != kubeconfig) {
      if (auto w = WriteFileAtomically(out.kubeconfig, kubeconfig, 0600); !w) {
        return std::unexpected(w.error());
      }
      out.kubeconfig_written = true;
    }
    return out;
  }
  if (present != 0) {
    for (const auto& p : all) {
      if (!fs::exists(p)) {
        return Failure("load node certificates", p,
                       "missing while others in " + pki.string() +
                           " exist; remove them all to have new ones made");
      }
    }
  }

  auto ca_key = NewKey();
  if (!ca_key) return std::unexpected(ca_key.error());
  auto ca = Issue({options.cluster_name + "-ca", "", kCaValidity, true, "", ""}, ca_key->get(),
                  nullptr, ca_key->get());
  if (!ca) return std::unexpected(ca.error());

  auto serving_key = NewKey();
  if (!serving_key) return std::unexpected(serving_key.error());
  auto serving = Issue({std::string(kServingName), "", kLeafValidity, false, "serverAuth",
                        ServingNames(options)},
                       serving_key->get(), ca->get(), ca_key->get());
  if (!serving) return std::unexpected(serving.error());

  auto admin_key = NewKey();
  if (!admin_key) return std::unexpected(admin_key.error());
  auto admin = Issue({"kubernetes-admin", "system:masters", kLeafValidity, false, "clientAuth", ""},
                     admin_key->get(), ca->get(), ca_key->get());
  if (!admin) return std::unexpected(admin.error());

  const std::string ca_pem = ToPem(ca->get());
  const std::string admin_pem = ToPem(admin->get());
  const std::string admin_key_pem = ToPem(admin_key->get());
  const std::vector<std::tuple<fs::path, std::string, mode_t>> files = {
      {out.ca_key, ToPem(ca_key->get()), 0600},
      {out.ca_cert, ca_pem, 0644},
      {out.serving_key, ToPem(serving_key->get()), 0600},
      {out.serving_cert, ToPem(serving->get()), 0644},
      {out.admin_key, admin_key_pem, 0600},
      {out.admin_cert, admin_pem, 0644},
      {out.kubeconfig,
       KubeconfigText(options.cluster_name, options.server_url, ca_pem, admin_pem, admin_key_pem),
       0600},
  };
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [path, content, mode] = files[i];
    if (auto w = WriteFileAtomically(path, content, mode); !w) {
      // All or nothing: a half-written set would refuse the next start.
      for (std::size_t j = 0; j < i; ++j) unlink(std::get<0>(files[j]).c_str());
      return std::unexpected(w.error());
    }
  }
  out.created = true;
  out.kubeconfig_written = true;
  return out;
}

}  // namespace podlimits::serve
