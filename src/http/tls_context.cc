#include "http/tls_context.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>
#include <sys/stat.h>

namespace podlimits::http {
namespace {

namespace ssl = boost::asio::ssl;

// The identity, modification time and size of the serving certificate's files: when they
// change, the certificate is read again.
std::string FileStamp(const TlsFiles& files) {
  std::string out;
  for (const auto* p : {&files.cert_file, &files.key_file}) {
    struct stat st {};
    if (::stat(p->c_str(), &st) != 0) return "";
    // The inode too: a replaced file written in the same clock tick, at the same size (a
    // renewed certificate is), still has another.
    out +=
        fmt::format("{}:{}.{}:{};", st.st_ino, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_size);
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<ssl::context>> BuildServerContext(const TlsFiles& files) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  // An idle connection gives its read and write buffers back to the allocator: ten thousand
  // idle keep-alive connections would otherwise hold tens of kilobytes each.
  SSL_CTX_set_mode(context->native_handle(), SSL_MODE_RELEASE_BUFFERS);
  context->use_certificate_chain_file(files.cert_file.string(), ec);
  if (ec) return Failure("load serving certificate", files.cert_file, ec.message());
  context->use_private_key_file(files.key_file.string(), ssl::context::pem, ec);
  if (ec) return Failure("load serving key", files.key_file, ec.message());
  if (files.client_ca_file.empty()) return context;
  context->load_verify_file(files.client_ca_file.string(), ec);
  if (ec) return Failure("load client CA", files.client_ca_file, ec.message());
  // Ask for a certificate, but let clients without one through to the token check.
  context->set_verify_mode(ssl::verify_peer);
  SSL_CTX_set_client_CA_list(context->native_handle(),
                             SSL_load_client_CA_file(files.client_ca_file.c_str()));
  return context;
}

ServingContext::ServingContext(TlsFiles files, bool reload, std::shared_ptr<ssl::context> first)
    : files_(std::move(files)), reload_(reload), context_(std::move(first)) {
  stamp_ = FileStamp(files_);
}

std::shared_ptr<ssl::context> ServingContext::Current() {
  std::lock_guard lock(mu_);
  if (reload_) {
    const std::string stamp = FileStamp(files_);
    if (!stamp.empty() && stamp != stamp_) {
      stamp_ = stamp;
      if (auto fresh = BuildServerContext(files_)) context_ = std::move(*fresh);
    }
  }
  return context_;
}

bool PeerIdentity(SSL* ssl, std::string& user, std::vector<std::string>& groups) {
  X509* peer = SSL_get1_peer_certificate(ssl);
  if (peer == nullptr) return false;
  const bool verified = SSL_get_verify_result(ssl) == X509_V_OK;
  if (verified) {
    X509_NAME* name = X509_get_subject_name(peer);
    for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
      X509_NAME_ENTRY* e = X509_NAME_get_entry(name, i);
      const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
      const ASN1_STRING* data = X509_NAME_ENTRY_get_data(e);
      std::string text(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                       static_cast<std::size_t>(ASN1_STRING_length(data)));
      if (nid == NID_commonName) user = text;
      if (nid == NID_organizationName) groups.push_back(text);
    }
  }
  X509_free(peer);
  return verified && !user.empty();
}

bool TokenMatches(std::string_view header, const std::string& token) {
  constexpr std::string_view kBearer = "Bearer ";
  if (token.empty() || !header.starts_with(kBearer)) return false;
  std::string_view given = header.substr(kBearer.size());
  return given.size() == token.size() &&
         CRYPTO_memcmp(given.data(), token.data(), token.size()) == 0;
}

}  // namespace podlimits::http
