#include "webhook/kube_client.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "base/base64.h"
#include "base/fs.h"
#include "codec/yaml_codec.h"
#include "field/field.h"

namespace podlimits::webhook {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace fs = std::filesystem;
using codec::Node;
using tcp = asio::ip::tcp;

constexpr std::size_t kMaxFile = 1 << 20;
constexpr std::size_t kMaxBody = 256u << 20;  // a list of every LimitRange of a big cluster

bool IsIp(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

Result<std::string> ReadFileText(const fs::path& path, std::string_view what) {
  auto text = ReadSmallFile(path, kMaxFile);
  if (!text) return std::unexpected(std::move(text.error()).Wrap(std::string(what)));
  return text;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// A kubeconfig's named entry: clusters[].cluster, users[].user, contexts[].context.
const Node* Named(const Node& config, const char* list, const char* inner, const std::string& name) {
  const Node* items = config.Find(list);
  if (items == nullptr || !items->IsArray()) return nullptr;
  for (const Node& item : items->items) {
    if (codec::StringOf(item.Find("name")) == name) return item.Find(inner);
  }
  return nullptr;
}

// `key-data` (base64) or `key` (a file, relative to the kubeconfig's directory).
Result<std::string> DataOrFile(const Node& at, const std::string& key, const fs::path& dir,
                               const std::string& where) {
  if (auto data = codec::StringOf(at.Find(key + "-data")); !data.empty()) {
    auto decoded = Base64Decode(data);
    if (!decoded) return Failure(fmt::format("{}: {}-data is not base64", where, key));
    return *decoded;
  }
  if (auto file = codec::StringOf(at.Find(key)); !file.empty()) {
    fs::path p = fs::path(file).is_absolute() ? fs::path(file) : dir / file;
    return ReadFileText(p, fmt::format("{}: {}", where, key));
  }
  return std::string();
}

}  // namespace

Result<void> ParseServer(std::string_view server, ClusterAccess& access) {
  constexpr std::string_view kScheme = "https://";
  if (!server.starts_with(kScheme)) {
    return Failure(fmt::format("server {} is not an https:// URL", field::GoQuote(server)));
  }
  std::string_view rest = server.substr(kScheme.size());
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    if (rest.substr(slash) != "/") {
      return Failure(fmt::format("server {}: a path after the host is not supported",
                                 field::GoQuote(server)));
    }
    rest = rest.substr(0, slash);
  }
  if (rest.starts_with('[')) {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return Failure("server " + std::string(server) + ": bad IPv6 address");
    access.host = std::string(rest.substr(1, close - 1));
    rest = rest.substr(close + 1);
    if (rest.starts_with(':')) access.port = std::string(rest.substr(1));
  } else if (auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    access.host = std::string(rest.substr(0, colon));
    access.port = std::string(rest.substr(colon + 1));
  } else {
    access.host = std::string(rest);
  }
  if (access.host.empty() || access.port.empty() ||
      access.port.find_first_not_of("0123456789") != std::string::npos) {
    return Failure(fmt::format("server {}: want https://HOST[:PORT]", field::GoQuote(server)));
  }
  return {};
}

Result<ClusterAccess> InClusterAccess(const std::function<const char*(const char*)>& getenv,
                                      const fs::path& sa_dir) {
  const char* host = getenv("KUBERNETES_SERVICE_HOST");
  const char* port = getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return Failure("not running in a cluster: KUBERNETES_SERVICE_HOST and "
                   "KUBERNETES_SERVICE_PORT are not set");
  }
  ClusterAccess access;
  access.source = "in-cluster";
  access.host = host;
  access.port = port;
  auto ca = ReadFileText(sa_dir / "ca.crt", "the service account's CA");
  if (!ca) return std::unexpected(ca.error());
  access.ca_pem = std::move(*ca);
  access.token_file = sa_dir / "token";
  auto token = ReadFileText(*access.token_file, "the service account's token");
  if (!token) return std::unexpected(token.error());
  return access;
}

Result<ClusterAccess> KubeconfigAccess(const fs::path& path) {
  auto text = ReadFileText(path, "read kubeconfig");
  if (!text) return std::unexpected(text.error());
  auto docs = codec::ParseYamlStream(*text);
  if (!docs || docs->size() != 1 || !(*docs)[0].node.IsObject()) {
    return Failure(fmt::format("{}: not a kubeconfig{}", path.string(),
                               docs ? "" : ": " + codec::DescribeYamlError(docs.error())));
  }
  const Node& config = (*docs)[0].node;
  const std::string where = path.string();
  const std::string context_name = codec::StringOf(config.Find("current-context"));
  const Node* context = Named(config, "contexts", "context", context_name);
  if (context == nullptr) {
    return Failure(fmt::format("{}: current-context {} names no context", where,
                               field::GoQuote(context_name)));
  }
  const Node* cluster = Named(config, "clusters", "cluster", codec::StringOf(context->Find("cluster")));
  if (cluster == nullptr) return Failure(where + ": the current context's cluster is missing");
  const Node* user = Named(config, "users", "user", codec::StringOf(context->Find("user")));
  ClusterAccess access;
  access.source = where;
  access.context_namespace = codec::StringOf(context->Find("namespace"));
  if (auto ok = ParseServer(codec::StringOf(cluster->Find("server")), access); !ok) {
    return std::unexpected(std::move(ok.error()).Wrap(where));
  }
  if (const Node* skip = cluster->Find("insecure-skip-tls-verify"); skip && skip->scalar == "true") {
    return Failure(where + ": insecure-skip-tls-verify is refused: the webhook would trust "
                           "whatever answers; give certificate-authority(-data)");
  }
  const fs::path dir = path.parent_path();
  auto ca = DataOrFile(*cluster, "certificate-authority", dir, where);
  if (!ca) return std::unexpected(ca.error());
  if (ca->empty()) return Failure(where + ": the cluster has no certificate-authority(-data)");
  access.ca_pem = std::move(*ca);
  if (user != nullptr) {
    access.token = codec::StringOf(user->Find("token"));
    if (auto file = codec::StringOf(user->Find("tokenFile")); !file.empty()) {
      access.token_file = fs::path(file).is_absolute() ? fs::path(file) : dir / file;
    }
    auto cert = DataOrFile(*user, "client-certificate", dir, where);
    if (!cert) return std::unexpected(cert.error());
    auto key = DataOrFile(*user, "client-key", dir, where);
    if (!key) return std::unexpected(key.error());
    access.client_cert_pem = std::move(*cert);
    access.client_key_pem = std::move(*key);
  }
  return access;
}

struct KubeClient::Connection {
  asio::io_context io;
  asio::ssl::context ssl{asio::ssl::context::tls_client};
  std::unique_ptr<asio::ssl::stream<tcp::socket>> stream;
};

KubeClient::KubeClient(ClusterAccess access) : access_(std::move(access)) {}
KubeClient::~KubeClient() = default;

void KubeClient::Interrupt() {
  std::lock_guard lock(mu_);
  interrupted_ = true;
  if (current_ != nullptr && current_->stream) {
    ::shutdown(current_->stream->lowest_layer().native_handle(), SHUT_RDWR);
  }
}

Result<std::string> KubeClient::Token() const {
  if (!access_.token_file) return access_.token;
  auto text = ReadFileText(*access_.token_file, "read the API token");
  if (!text) return std::unexpected(text.error());
  return Trimmed(std::move(*text));
}

Result<std::unique_ptr<KubeClient::Connection>> KubeClient::Connect() {
  auto c = std::make_unique<Connection>();
  const std::string server = fmt::format("https://{}:{}", access_.host, access_.port);
  boost::system::error_code ec;
  c->ssl.set_verify_mode(asio::ssl::verify_peer);
  c->ssl.add_certificate_authority(asio::buffer(access_.ca_pem), ec);
  if (ec) return Failure(fmt::format("load the CA of {} ({}): {}", server, access_.source, ec.message()));
  if (!access_.client_cert_pem.empty()) {
    c->ssl.use_certificate_chain(asio::buffer(access_.client_cert_pem), ec);
    if (!ec) c->ssl.use_private_key(asio::buffer(access_.client_key_pem), asio::ssl::context::pem, ec);
    if (ec) return Failure(fmt::format("load the client certificate ({}): {}", access_.source, ec.message()));
  }
  c->stream = std::make_unique<asio::ssl::stream<tcp::socket>>(c->io, c->ssl);
  SSL* ssl = c->stream->native_handle();
  if (IsIp(access_.host)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), access_.host.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl, access_.host.c_str());
    SSL_set1_host(ssl, access_.host.c_str());
  }
  tcp::resolver resolver(c->io);
  auto endpoints = resolver.resolve(access_.host, access_.port, ec);
  if (ec) return Failure(fmt::format("resolve {}: {}", server, ec.message()));
  asio::connect(c->stream->lowest_layer(), endpoints, ec);
  if (ec) return Failure(fmt::format("connect to {}: {}", server, ec.message()));
  // A watch waits for minutes between events: an API server that vanished without closing the
  // connection (a node gone) is found by TCP keepalive within about a minute, not never.
  const int fd = c->stream->lowest_layer().native_handle();
  const int on = 1, idle = 30, interval = 10, count = 3;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  {
    std::lock_guard lock(mu_);
    if (interrupted_) return Failure("interrupted");
    current_ = c.get();
  }
  c->stream->handshake(asio::ssl::stream_base::client, ec);
  if (ec) {
    std::lock_guard lock(mu_);
    current_ = nullptr;
    return Failure(fmt::format("TLS handshake with {}: {}", server, ec.message()));
  }
  return c;
}

Result<KubeClient::Response> KubeClient::Get(const std::string& target) {
  Response out;
  auto status = Send({}, target, nullptr, &out.body);
  if (!status) return std::unexpected(status.error());
  out.status = *status;
  return out;
}

Result<KubeClient::Response> KubeClient::Patch(const std::string& target,
                                               const std::string& content_type,
                                               const std::string& body) {
  Response out;
  auto status = Send({"PATCH", content_type, body}, target, nullptr, &out.body);
  if (!status) return std::unexpected(status.error());
  out.status = *status;
  return out;
}

Result<int> KubeClient::Stream(const std::string& target,
                               const std::function<void(std::string_view)>& on_line) {
  return Send({}, target, &on_line, nullptr);
}

Result<int> KubeClient::Send(const Call& call, const std::string& target,
                             const std::function<void(std::string_view)>* on_line,
                             std::string* body) {
  auto token = Token();
  if (!token) return std::unexpected(token.error());
  auto conn = Connect();
  if (!conn) return std::unexpected(conn.error());
  auto& stream = *(*conn)->stream;
  struct Release {
    KubeClient* self;
    ~Release() {
      std::lock_guard lock(self->mu_);
      self->current_ = nullptr;
    }
  } release{this};

  http::request<http::string_body> req{http::string_to_verb(call.method), target, 11};
  req.set(http::field::host, access_.host);
  if (!call.content_type.empty()) {
    req.set(http::field::content_type, call.content_type);
    req.body() = call.body;
    req.prepare_payload();
  }
  req.set(http::field::accept, "application/json");
  req.set(http::field::user_agent, "podlimits-webhook");
  if (!token->empty()) req.set(http::field::authorization, "Bearer " + *token);
  boost::system::error_code ec;
  http::write(stream, req, ec);
  if (ec) return Failure(fmt::format("{} {}: {}", call.method, target, ec.message()));

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxBody);
  // A watch's events are handed on line by line as their chunks arrive; any other answer is
  // read whole into the parser's body.
  std::string pending;
  auto deliver = [&](bool all) {
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (nl > start) (*on_line)(std::string_view(pending).substr(start, nl - start));
    }
    pending.erase(0, start);
    if (all && !pending.empty()) {
      (*on_line)(pending);
      pending.clear();
    }
  };
  // Beast keeps a reference to the callback: it must outlive the read.
  auto on_chunk = [&](std::uint64_t, beast::string_view chunk, beast::error_code&) {
    pending.append(chunk.data(), chunk.size());
    deliver(false);
    return chunk.size();
  };
  if (on_line != nullptr) parser.on_chunk_body(on_chunk);
  http::read(stream, buffer, parser, ec);
  if (ec) {
    if (interrupted_) return Failure("interrupted");
    return Failure(fmt::format("{} {}: {}", call.method, target, ec.message()));
  }
  if (on_line != nullptr) {
    pending.append(parser.get().body());
    deliver(true);
  } else if (body != nullptr) {
    *body = std::move(parser.get().body());
  }
  return static_cast<int>(parser.get().result_int());
}

}  // namespace podlimits::webhook
