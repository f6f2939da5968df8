// A small Kubernetes API client: what the webhook needs to list and watch Namespaces and
// LimitRanges (cluster_sync.h), over the same HTTP library as its server (Boost.Beast with
// OpenSSL). GET (the answer's body whole, or a watch's newline-delimited JSON events one by one
// as they arrive) and PATCH (podlimits node-labels).
//
// Where the API is and who the webhook is come from either
//   - the pod's service account (in-cluster): https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT,
//     the CA and the token under /var/run/secrets/kubernetes.io/serviceaccount; the token file is
//     read again for every request, since the kubelet rotates bound tokens (hourly by default);
//   - or a kubeconfig: its current context's server, certificate-authority(-data), and token,
//     tokenFile or client-certificate(-data)/client-key(-data). insecure-skip-tls-verify is
//     refused: the webhook would trust whatever answers.
// The server's certificate is always verified against that CA, with its host name or IP.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits::webhook {

struct ClusterAccess {
  std::string host;  // a DNS name or an IP address (without brackets)
  std::string port = "443";
  std::string ca_pem;
  std::string token;                       // a fixed token, or
  std::optional<std::filesystem::path> token_file;  // read per request
  std::string client_cert_pem, client_key_pem;
  std::string source;  // "in-cluster" or the kubeconfig's path, for messages
  // The current context's namespace (empty when it names none), the default of a client that,
  // as kubectl, acts in "the" namespace.
  std::string context_namespace;
};

inline constexpr std::string_view kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// The service account's access; `getenv` is std::getenv in production.
Result<ClusterAccess> InClusterAccess(const std::function<const char*(const char*)>& getenv,
                                      const std::filesystem::path& sa_dir = kServiceAccountDir);

// The current context of the kubeconfig at `path`.
Result<ClusterAccess> KubeconfigAccess(const std::filesystem::path& path);

// "https://host:port" split; an error for anything but https.
Result<void> ParseServer(std::string_view server, ClusterAccess& access);

class KubeClient {
 public:
  explicit KubeClient(ClusterAccess access);
  ~KubeClient();
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;

  struct Response {
    int status = 0;
    std::string body;
  };
  // GET `target` ("/api/v1/namespaces?limit=500"); a transport failure is an error, any HTTP
  // status a response.
  Result<Response> Get(const std::string& target);
  // PATCH `target` with `body` of `content_type` (application/merge-patch+json, ...).
  Result<Response> Patch(const std::string& target, const std::string& content_type,
                         const std::string& body);

  // GET a watch: `on_line` receives each complete line of the body as it arrives. Returns the
  // HTTP status when the server ends the answer (a non-200's body goes to `on_line` whole), an
  // error when the connection fails or Interrupt() ends it.
  Result<int> Stream(const std::string& target,
                     const std::function<void(std::string_view line)>& on_line);

  // Ends the Get or Stream in progress (from another thread) and every later one.
  void Interrupt();

  const ClusterAccess& access() const { return access_; }

 private:
  struct Connection;
  Result<std::unique_ptr<Connection>> Connect();
  Result<std::string> Token() const;
  struct Call {
    const char* method = "GET";
    std::string content_type;
    std::string body;
  };
  // The request; the answer's body goes line by line to `on_line` (a watch) or whole into
  // `body`.
  Result<int> Send(const Call& call, const std::string& target,
                   const std::function<void(std::string_view line)>* on_line, std::string* body);

  ClusterAccess access_;
  std::mutex mu_;
  Connection* current_ = nullptr;  // the connection Interrupt shuts down
  std::atomic<bool> interrupted_{false};
};

}  // namespace podlimits::webhook
