//===--- Cache.cpp - results of unchanged translation units, reused -------===//

#include "Cache.h"
#include "FindingsJson.h"
#include "SourceFacts.h"
#include "gradlint/LlvmCompat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;
using namespace clang;
using clang::tidy::ClangTidyError;

namespace gradlint {
namespace {

/// The version of the entry format: entries of another are misses.
constexpr int EntryFormat = 3;

/// The gradlint executable's contents: any rebuild is another tool.
std::string toolHash() {
  static int Anchor;
  std::string Self = sys::fs::getMainExecutable("gradlint", &Anchor);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Binary = MemoryBuffer::getFile(Self);
  return blake3Hex(Binary ? (*Binary)->getBuffer() : StringRef(Self));
}

} // namespace

std::optional<uint64_t> parseSize(StringRef Text) {
  uint64_t Scale = 1;
  if (Text.consume_back_insensitive("k"))
    Scale = 1ull << 10;
  else if (Text.consume_back_insensitive("m"))
    Scale = 1ull << 20;
  else if (Text.consume_back_insensitive("g"))
    Scale = 1ull << 30;
  uint64_t Value;
  if (Text.empty() || Text.getAsInteger(10, Value) || Value > UINT64_MAX / Scale)
    return std::nullopt;
  return Value * Scale;
}

//===--- What the analysis looked at ---------------------------------------===//

std::string RecordingFileSystem::absolute(const Twine &Path) const {
  SmallString<256> P;
  Path.toVector(P);
  if (sys::path::is_relative(P))
    if (ErrorOr<std::string> Cwd = getCurrentWorkingDirectory())
      compat::makeAbsolute(*Cwd, P);
  sys::path::remove_dots(P, /*remove_dot_dot=*/false);
  return std::string(P);
}

ErrorOr<vfs::Status> RecordingFileSystem::status(const Twine &Path) {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    Paths.try_emplace(absolute(Path));
  }
  return ProxyFileSystem::status(Path);
}

bool RecordingFileSystem::exists(const Twine &Path) {
  return static_cast<bool>(status(Path));
}

ErrorOr<std::unique_ptr<vfs::File>> RecordingFileSystem::openFileForRead(const Twine &Path) {
  ErrorOr<std::unique_ptr<vfs::File>> F = ProxyFileSystem::openFileForRead(Path);
  std::lock_guard<std::mutex> Guard(Lock);
  Access &A = Paths[absolute(Path)];
  if (F) {
    if (ErrorOr<vfs::Status> S = (*F)->status()) {
      A.Opened = true;
      A.Size = S->getSize();
      A.Modified = S->getLastModificationTime();
    }
  }
  return F;
}

vfs::directory_iterator RecordingFileSystem::dir_begin(const Twine &Dir, std::error_code &EC) {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    Paths[absolute(Dir)].Listed = true;
  }
  return ProxyFileSystem::dir_begin(Dir, EC);
}

std::vector<std::pair<std::string, RecordingFileSystem::Access>>
RecordingFileSystem::accesses() const {
  std::lock_guard<std::mutex> Guard(Lock);
  return {Paths.begin(), Paths.end()};
}

//===--- The cache ---------------------------------------------------------===//

Expected<std::unique_ptr<ResultCache>> ResultCache::open(StringRef Dir, uint64_t MaxBytes) {
  SmallString<256> Absolute(Dir);
  if (std::error_code EC = sys::fs::make_absolute(Absolute))
    return createStringError(EC, "cannot use cache directory '" + Dir + "': " + EC.message());
  if (std::error_code EC = sys::fs::create_directories(Absolute))
    return createStringError(EC, "cannot create cache directory '" + Dir + "': " +
                                     EC.message());
  if (sys::fs::access(Absolute, sys::fs::AccessMode::Write))
    return createStringError(inconvertibleErrorCode(),
                             "cache directory '" + Dir + "' is not writable");
  return std::unique_ptr<ResultCache>(
      new ResultCache(std::string(Absolute), MaxBytes, toolHash()));
}

std::string ResultCache::key(StringRef File, const std::vector<tooling::CompileCommand> &Commands,
                             StringRef Config, StringRef Flags) {
  // Length-prefixed fields: no two inputs give the same text.
  std::string Text;
  raw_string_ostream OS(Text);
  auto Field = [&](StringRef F) { OS << F.size() << ':' << F << ';'; };
  Field("gradlint-cache");
  Field(std::to_string(EntryFormat));
  Field(GRADLINT_VERSION);
  Field(LLVM_VERSION_STRING);
  Field(ToolHash);
  Field(File);
  for (const tooling::CompileCommand &C : Commands) {
    Field(C.Directory);
    Field(C.Filename);
    Field(std::to_string(C.CommandLine.size()));
    for (const std::string &Arg : C.CommandLine)
      Field(Arg);
  }
  Field(Config);
  Field(Flags);
  // The environment variables the clang driver reads.
  for (const char *Name : {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
                           "CCC_OVERRIDE_OPTIONS", "SOURCE_DATE_EPOCH"}) {
    std::optional<std::string> Value = sys::Process::GetEnv(Name);
    Field(Name);
    Field(Value ? "=" + *Value : "unset");
  }
  return blake3Hex(Text);
}

std::string ResultCache::entryPath(StringRef Key) const {
  SmallString<256> Path(Dir);
  sys::path::append(Path, Key.take_front(2), Key.drop_front(2) + ".json");
  return std::string(Path);
}

std::string ResultCache::stateOf(StringRef Path, bool Listing) {
  std::string Id = (Listing ? "list " : "path ") + Path.str();
  {
    std::lock_guard<std::mutex> Guard(StateLock);
    auto It = States.find(Id);
    if (It != States.end())
      return It->second;
  }
  std::string State;
  sys::fs::file_status Status;
  if (sys::fs::status(Path, Status)) {
    State = "missing";
  } else if (Listing) {
    // The names in the directory, sorted.
    std::vector<std::string> Names;
    std::error_code EC;
    for (sys::fs::directory_iterator It(Path, EC), End; It != End && !EC; It.increment(EC))
      Names.push_back(std::string(sys::path::filename(It->path())));
    llvm::sort(Names);
    State = "list:" + blake3Hex(join(Names, "\n")) + (EC ? ":" + EC.message() : "");
  } else if (sys::fs::is_directory(Status)) {
    State = "dir";
  } else {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Contents =
        MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    State = Contents ? "file:" + blake3Hex((*Contents)->getBuffer()) : "unreadable";
  }
  std::lock_guard<std::mutex> Guard(StateLock);
  return States.try_emplace(Id, State).first->second;
}

std::optional<UnitResult> ResultCache::lookup(StringRef Key) {
  std::string Path = entryPath(Key);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Path);
  auto Miss = [&]() -> std::optional<UnitResult> {
    ++Misses;
    return std::nullopt;
  };
  if (!Text)
    return Miss();
  // A corrupt or truncated entry, or one of another format, is a miss (and
  // is rewritten after the analysis).
  Expected<json::Value> Parsed = json::parse((*Text)->getBuffer());
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return Miss();
  }
  const json::Object *Entry = Parsed->getAsObject();
  const json::Array *Depends = Entry ? Entry->getArray("depends") : nullptr;
  const json::Array *Findings = Entry ? Entry->getArray("findings") : nullptr;
  const json::Value *Stats = Entry ? Entry->get("stats") : nullptr;
  const json::Value *Flow = Entry ? Entry->get("flow") : nullptr;
  if (!Entry || Entry->getInteger("format") != EntryFormat || Entry->getString("key") != Key ||
      !Depends || !Findings || !Stats || !Flow)
    return Miss();
  for (const json::Value &D : *Depends) {
    const json::Object *Dep = D.getAsObject();
    std::optional<StringRef> DepPath = Dep ? Dep->getString("path") : std::nullopt;
    std::optional<StringRef> State = Dep ? Dep->getString("state") : std::nullopt;
    if (!DepPath || !State)
      return Miss();
    if (stateOf(*DepPath, State->starts_with("list:")) != *State)
      return Miss();
  }
  UnitResult Result;
  for (const json::Value &F : *Findings) {
    Expected<ClangTidyError> E = findingFromJson(F);
    if (!E) {
      consumeError(E.takeError());
      return Miss();
    }
    Result.Errors.push_back(std::move(*E));
  }
  Expected<clang::tidy::ClangTidyStats> S = statsFromJson(*Stats);
  if (!S) {
    consumeError(S.takeError());
    return Miss();
  }
  Result.Stats = *S;
  if (!fromJSON(*Flow, Result.Flow))
    return Miss();
  // Recently used: trim() removes the oldest entries first.
  int Fd;
  if (!sys::fs::openFileForWrite(Path, Fd, sys::fs::CD_OpenExisting, sys::fs::OF_Append)) {
    sys::fs::setLastAccessAndModificationTime(Fd, std::chrono::system_clock::now());
    sys::Process::SafelyCloseFileDescriptor(Fd);
  }
  ++Hits;
  return Result;
}

void ResultCache::store(StringRef Key, const UnitResult &Result,
                        const RecordingFileSystem &FS) {
  json::Array Depends;
  for (const auto &[Path, Access] : FS.accesses()) {
    if (Access.Opened) {
      // A file that changed since the analysis read it: the findings are
      // of neither version.
      sys::fs::file_status Now;
      if (sys::fs::status(Path, Now) || Now.getSize() != Access.Size ||
          Now.getLastModificationTime() != Access.Modified)
        return;
    }
    Depends.push_back(json::Object{{"path", Path}, {"state", stateOf(Path, false)}});
    if (Access.Listed)
      Depends.push_back(json::Object{{"path", Path}, {"state", stateOf(Path, true)}});
  }
  json::Array Findings;
  for (const ClangTidyError &E : Result.Errors)
    Findings.push_back(findingToJson(E));
  json::Object Entry{{"format", EntryFormat},
                     {"key", Key},
                     {"depends", std::move(Depends)},
                     {"stats", statsToJson(Result.Stats)},
                     {"findings", std::move(Findings)},
                     {"flow", toJSON(Result.Flow)}};
  std::string Path = entryPath(Key);
  if (sys::fs::create_directories(sys::path::parent_path(Path)))
    return;
  // Written whole to a temporary file, then renamed: a concurrent reader
  // sees the old entry or the new one, never a part.
  int Fd;
  SmallString<256> Temporary;
  if (sys::fs::createUniqueFile(Path + ".tmp-%%%%%%%%", Fd, Temporary))
    return;
  bool Written;
  {
    raw_fd_ostream OS(Fd, /*shouldClose=*/true);
    OS << json::Value(std::move(Entry));
    OS.close();
    Written = !OS.has_error();
    OS.clear_error();
  }
  if (!Written || sys::fs::rename(Temporary, Path))
    sys::fs::remove(Temporary);
}

unsigned ResultCache::trim() {
  struct Entry {
    std::string Path;
    uint64_t Size;
    sys::TimePoint<> Used;
  };
  std::vector<Entry> Entries;
  uint64_t Total = 0;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    sys::fs::file_status Status;
    if (sys::path::extension(It->path()) != ".json" || sys::fs::status(It->path(), Status) ||
        !sys::fs::is_regular_file(Status))
      continue;
    Entries.push_back({It->path(), Status.getSize(), Status.getLastModificationTime()});
    Total += Status.getSize();
  }
  if (Total <= MaxBytes)
    return 0;
  // Oldest first, down to 90% of the bound (so the next run does not trim
  // again at once).
  llvm::sort(Entries, [](const Entry &A, const Entry &B) { return A.Used < B.Used; });
  unsigned Removed = 0;
  for (const Entry &E : Entries) {
    if (Total <= MaxBytes / 10 * 9)
      break;
    if (!sys::fs::remove(E.Path)) {
      Total -= E.Size;
      ++Removed;
    }
  }
  return Removed;
}

} // namespace gradlint
