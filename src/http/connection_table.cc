#include "http/connection_table.h"

namespace podlimits::http {

void ConnectionTable::SetCount(Source& source, const std::string& name, std::size_t count) {
  by_count_.erase({source.count, name});
  source.count = count;
  if (count > 0) by_count_.insert({count, name});
}

void ConnectionTable::Unlink(Entry& entry) {
  if (!entry.waiting) return;
  sources_[entry.source].waiting.erase(entry.position);
  entry.waiting = false;
  --waiting_;
}

void ConnectionTable::Erase(Id id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  Unlink(it->second);
  auto source = sources_.find(it->second.source);
  SetCount(source->second, source->first, source->second.count - 1);
  if (source->second.count == 0) sources_.erase(source);
  entries_.erase(it);
}

bool ConnectionTable::DisplaceFrom(const std::string& name, std::vector<Id>& displaced) {
  auto source = sources_.find(name);
  if (source == sources_.end() || source->second.waiting.empty()) return false;
  const Id victim = source->second.waiting.front();
  Erase(victim);
  displaced.push_back(victim);
  return true;
}

bool ConnectionTable::DisplaceFromLargest(std::vector<Id>& displaced) {
  // Largest first; a source whose connections are all busy is passed over.
  for (auto it = by_count_.rbegin(); it != by_count_.rend(); ++it) {
    if (DisplaceFrom(it->second, displaced)) return true;
  }
  return false;
}

ConnectionTable::Admission ConnectionTable::Admit(Id id, const std::string& source) {
  std::lock_guard lock(mu_);
  Admission out;
  auto known = sources_.find(source);
  const std::size_t from_source = known == sources_.end() ? 0 : known->second.count;
  if (from_source >= caps_.per_source && !DisplaceFrom(source, out.displaced)) return out;
  if (entries_.size() >= caps_.global && !DisplaceFromLargest(out.displaced)) return out;
  Source& s = sources_[source];
  SetCount(s, source, s.count + 1);
  s.waiting.push_back(id);
  entries_[id] = Entry{source, true, std::prev(s.waiting.end())};
  ++waiting_;
  out.admitted = true;
  return out;
}

bool ConnectionTable::Busy(Id id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return false;
  Unlink(it->second);
  return true;
}

void ConnectionTable::Waiting(Id id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.waiting) return;
  auto& list = sources_[it->second.source].waiting;
  list.push_back(id);
  it->second.position = std::prev(list.end());
  it->second.waiting = true;
  ++waiting_;
}

void ConnectionTable::Remove(Id id) {
  std::lock_guard lock(mu_);
  Erase(id);
}

std::vector<ConnectionTable::Id> ConnectionTable::DisplaceOne() {
  std::lock_guard lock(mu_);
  std::vector<Id> displaced;
  DisplaceFromLargest(displaced);
  return displaced;
}

std::size_t ConnectionTable::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

std::size_t ConnectionTable::waiting() const {
  std::lock_guard lock(mu_);
  return waiting_;
}

}  // namespace podlimits::http
