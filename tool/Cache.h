//===--- Cache.h - results of unchanged translation units, reused ---------===//
//
// `--cache-dir DIR` (or GRADLINT_CACHE_DIR): each translation unit's
// findings are stored under a key made of everything that can change them
// except the files it reads (gradlint's own executable and version, the
// compile command, the file's effective configuration, the environment
// variables clang reads), together with what the analysis looked at on the
// file system: every file it read (by content), every path it probed and
// did not find, every directory it listed. An entry is used only while all
// of these are unchanged, so an edited header, a header newly shadowing
// another on the include path, a macro on the command line or a changed
// option all mean a fresh analysis. A corrupt entry is a miss and is
// rewritten; entries are written to a temporary file and renamed, so
// concurrent runs leave only complete entries. docs/cache.md has the
// details.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_CACHE_H
#define GRADLINT_TOOL_CACHE_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "utils/AxisFlow.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace gradlint {

/// What the analysis of one translation unit produced.
struct UnitResult {
  std::vector<clang::tidy::ClangTidyError> Errors;
  clang::tidy::ClangTidyStats Stats;
  /// The facts whole-program provenance needs (see AxisFlow.h).
  clang::tidy::gradlint::UnitFlow Flow;
};

/// A file system that remembers what was asked of it: the paths it was
/// asked about (found or not), the files opened and the directories listed.
class RecordingFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  explicit RecordingFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS)
      : ProxyFileSystem(std::move(FS)) {}

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &Path) override;
  bool exists(const llvm::Twine &Path) override;
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &Path) override;
  llvm::vfs::directory_iterator dir_begin(const llvm::Twine &Dir,
                                          std::error_code &EC) override;

  struct Access {
    bool Listed = false;
    /// For a file opened for reading: its size and modification time then.
    bool Opened = false;
    uint64_t Size = 0;
    llvm::sys::TimePoint<> Modified;
  };
  /// Every absolute path looked at, sorted.
  std::vector<std::pair<std::string, Access>> accesses() const;

private:
  std::string absolute(const llvm::Twine &Path) const;
  mutable std::mutex Lock;
  std::map<std::string, Access> Paths;
};

class ResultCache {
public:
  /// Opens Dir, creating it. MaxBytes bounds its size (see trim()).
  static llvm::Expected<std::unique_ptr<ResultCache>> open(llvm::StringRef Dir,
                                                           uint64_t MaxBytes);

  /// The key of File's analysis under Commands with the effective
  /// configuration Config (its text) and Flags (other settings that change
  /// findings: the line filter, --fix-notes...).
  std::string key(llvm::StringRef File,
                  const std::vector<clang::tooling::CompileCommand> &Commands,
                  llvm::StringRef Config, llvm::StringRef Flags);

  /// The stored result of Key, when every file it depends on is unchanged.
  std::optional<UnitResult> lookup(llvm::StringRef Key);

  /// Stores Result under Key with what FS recorded. Nothing is stored when
  /// a file the analysis read changed while it ran.
  void store(llvm::StringRef Key, const UnitResult &Result, const RecordingFileSystem &FS);

  /// Removes the least recently used entries while the cache is larger
  /// than its bound; returns how many.
  unsigned trim();

  unsigned hits() const { return Hits; }
  unsigned misses() const { return Misses; }
  llvm::StringRef directory() const { return Dir; }

private:
  ResultCache(std::string Dir, uint64_t MaxBytes, std::string ToolHash)
      : Dir(std::move(Dir)), MaxBytes(MaxBytes), ToolHash(std::move(ToolHash)) {}
  std::string entryPath(llvm::StringRef Key) const;
  /// "file:<hash>", "dir", "missing" or "list:<hash>": what Path is now
  /// (memoised for the run: files do not change under a run).
  std::string stateOf(llvm::StringRef Path, bool Listing);

  std::string Dir;
  uint64_t MaxBytes;
  std::string ToolHash;
  std::mutex StateLock;
  llvm::StringMap<std::string> States;
  std::atomic<unsigned> Hits = 0, Misses = 0;
};

/// Parses a size: bytes, or with a K, M or G suffix (powers of 1024).
std::optional<uint64_t> parseSize(llvm::StringRef Text);

} // namespace gradlint

#endif
