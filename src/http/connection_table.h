// Who holds the listener's connection slots, and who gives one up when they run out.
//
// A connection is *waiting* from the moment it is accepted until a whole request has been read
// (TLS handshake, request header, body), and again while it waits for its next request on
// keep-alive; it is *busy* while its request is handled and the response written. Only waiting
// connections can be displaced: they have cost the server nothing but a socket, and a client
// whose idle keep-alive connection is closed opens another (Go's transport retries a request
// on a connection the server closed while idle).
//
// Two caps: one on connections from any one source address, one on all connections. A new
// connection that would pass either cap takes the slot of the oldest waiting connection — of its
// own source for the per-source cap, of the source holding the most connections for the global
// one — so that connections that never send a byte (1,030 of them locked every client out of
// the thread-per-connection listener this replaces) can delay nobody: the newest arrival always
// gets in while anything is merely waiting. Only when every connection it could displace is busy
// is the new one refused.
//
// Thread-safe; the table decides, the server closes the displaced connections.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace podlimits::http {

struct ConnectionCaps {
  std::size_t global = 8192;
  std::size_t per_source = 1024;
};

class ConnectionTable {
 public:
  using Id = std::uint64_t;

  explicit ConnectionTable(ConnectionCaps caps) : caps_(caps) {}

  struct Admission {
    bool admitted = false;
    std::vector<Id> displaced;  // to be closed: their slots are already given to the new one
  };
  // A connection accepted from `source`, admitted as waiting (its newest) or refused.
  Admission Admit(Id id, const std::string& source);

  // The connection has read a whole request and serves it: it cannot be displaced until
  // Waiting. False when it was displaced meanwhile (it must close instead).
  bool Busy(Id id);
  // The connection waits for its next request (displaceable, as the newest).
  void Waiting(Id id);
  // The connection is gone (closed, displaced or not).
  void Remove(Id id);
  // Displaces the oldest waiting connection of the source holding the most (the accept loop's
  // way out when the process has no descriptor left). Empty when every connection is busy.
  std::vector<Id> DisplaceOne();

  std::size_t size() const;
  std::size_t waiting() const;
  ConnectionCaps caps() const { return caps_; }

 private:
  struct Source {
    std::size_t count = 0;
    std::list<Id> waiting;  // oldest first
  };
  struct Entry {
    std::string source;
    bool waiting = false;
    std::list<Id>::iterator position;  // in its source's waiting list, when waiting
  };

  void SetCount(Source& source, const std::string& name, std::size_t count);
  void Unlink(Entry& entry);
  // Takes the oldest waiting connection of `name` out of the table; false when it has none.
  bool DisplaceFrom(const std::string& name, std::vector<Id>& displaced);
  bool DisplaceFromLargest(std::vector<Id>& displaced);
  void Erase(Id id);

  const ConnectionCaps caps_;
  mutable std::mutex mu_;
  std::unordered_map<Id, Entry> entries_;
  std::map<std::string, Source> sources_;
  std::set<std::pair<std::size_t, std::string>> by_count_;  // (count, source), largest last
  std::size_t waiting_ = 0;
};

}  // namespace podlimits::http
