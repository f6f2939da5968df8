// File-descriptor based filesystem operations shared by the image store and the overlay code.
//
// Image contents are untrusted: a layer may plant a symlink that points anywhere on the host.
// Everything here therefore works relative to an open directory and never follows a symlink
// or crosses a mount point, so that a later step (a whiteout, rm -rf of a container's upper
// dir) cannot be steered outside the tree it was meant for.
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "base/unique_fd.h"

#include "base/error.h"

namespace podlimits {

// `OP "PATH": strerror(err)`, the crun style every error of this module uses.
std::string ErrnoMessage(std::string_view op, std::string_view path, int err = errno);

// A pidfd for `pid` (pidfd_open(2), Linux 5.3): readable once the process has exited. Invalid
// when the kernel has none or the process is gone.
UniqueFd OpenPidfd(pid_t pid);

// Lexically cleans a path taken from an archive or a manifest into a relative one: drops "./",
// empty and "." components. Absolute paths and ".." components are errors, because either
// could name something outside the tree the path is meant for; the error says which, without
// the path (callers name it). "" and "." clean to "".
Result<std::string> CleanRelativePath(std::string_view path);

// Splits a cleaned relative path into (parent, base name); the parent of "a" is "".
std::pair<std::string_view, std::string_view> SplitParent(std::string_view path);

// Opens `rel` (cleaned, relative; "" is dirfd itself) beneath dirfd, failing with ELOOP on any
// symlink and EXDEV on any escape (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS). On failure
// returns the errno value.
std::expected<UniqueFd, int> OpenBeneath(int dirfd, std::string_view rel, int flags);

// Opens `rel` with dirfd as the root directory: absolute symlinks and ".." resolve inside it
// (openat2 RESOLVE_IN_ROOT), as they would inside a container. On failure returns errno.
std::expected<UniqueFd, int> OpenInRoot(int dirfd, std::string_view rel, int flags);

// Removes dirfd/name and everything below it without following symlinks; refuses to descend
// into a mount point. A missing entry is success. `display` names the entry in errors.
Result<void> RemoveTreeAt(int dirfd, const std::string& name, const std::string& display);

// RemoveTreeAt for a path: `rm -rf --one-file-system PATH`, refusing if PATH itself is a
// mount point. A missing path is success.
Result<void> RemoveTree(const std::filesystem::path& path);

// True if `path` is the root of a mount (statx STATX_ATTR_MOUNT_ROOT). Errors say why not known.
Result<bool> IsMountRoot(const std::filesystem::path& path);

// Reads a whole file to its end (procfs and cgroup files report a size of 0 or 4096, so the
// size is never trusted). Errors are `open "PATH": strerror` or `read "PATH": strerror`, with
// errno_value set: a caller that words its own message, or that takes a missing file as empty,
// reads it there.
Result<std::string> ReadWholeFile(const std::filesystem::path& path);

// ReadWholeFile, failing when the file is larger than `limit` bytes.
Result<std::string> ReadSmallFile(const std::filesystem::path& path, std::size_t limit);

// Replaces `path` with `content` so that readers see the old or the new file, never a part:
// write a temporary sibling, fsync it, rename it over the target. For what must outlive a
// power cut (the image store's metadata and tags, the node's keys). The file gets exactly
// `mode`, before it holds anything.
Result<void> WriteFileAtomically(const std::filesystem::path& path, std::string_view content,
                                 mode_t mode = 0644);

// The same without the fsync: readers still never see a part, but a power cut may lose the
// file. For records about running pods, which a reboot makes meaningless anyway (their
// processes, cgroups and mounts are gone): an fsync per run costs milliseconds of journal
// commit on an ext4 disk.
Result<void> ReplaceFile(const std::filesystem::path& path, std::string_view content,
                         mode_t mode = 0644);

}  // namespace podlimits
