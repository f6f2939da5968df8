// The listener's TLS: the serving context (TLS 1.2 and later, the serving certificate, the
// client CA when clients are authenticated), its reload when the certificate's files change,
// and who a verified client certificate says the client is.
#pragma once

#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.h"

namespace podlimits::http {

struct TlsFiles {
  std::filesystem::path cert_file, key_file;
  // Empty: no client certificates are asked for (an admission webhook).
  std::filesystem::path client_ca_file;
};

Result<std::shared_ptr<boost::asio::ssl::context>> BuildServerContext(const TlsFiles& files);

// The context new connections get. With `reload`, the files are read again when they change
// (a rotated certificate, a renewed Secret); a pair that does not load leaves the one in use in
// place until the files change again. A connection keeps the context it started with.
class ServingContext {
 public:
  ServingContext(TlsFiles files, bool reload, std::shared_ptr<boost::asio::ssl::context> first);
  std::shared_ptr<boost::asio::ssl::context> Current();

 private:
  const TlsFiles files_;
  const bool reload_;
  std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::string stamp_;  // the files' stamp when last read (loaded or not)
};

// The CN and the O entries of the peer's certificate, when it is verified against the client
// CA and names a user.
bool PeerIdentity(SSL* ssl, std::string& user, std::vector<std::string>& groups);

// `Authorization: Bearer <token>` against the configured token, in constant time.
bool TokenMatches(std::string_view header, const std::string& token);

}  // namespace podlimits::http
