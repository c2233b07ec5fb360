//===--- Inputs.cpp - what the gradlint command analyses ------------------===//

#include "Inputs.h"
#include "SourceFacts.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace clang;

namespace gradlint {

namespace {
/// A file name C, C++ or CUDA code can be in (a change to anything else,
/// documentation or build files, cannot change a finding).
bool isCodeFile(StringRef Path) {
  static const char *const Extensions[] = {".c",   ".cc",  ".cpp", ".cxx", ".c++", ".cu",
                                           ".h",   ".hh",  ".hpp", ".hxx", ".h++", ".cuh",
                                           ".inc", ".inl", ".ipp", ".tcc", ".tpp", ".def"};
  StringRef Extension = sys::path::extension(Path);
  return llvm::any_of(Extensions, [&](const char *E) { return Extension.equals_insensitive(E); });
}
} // namespace

ExitCode usageError(const Twine &Message) {
  WithColor::error(errs(), "gradlint") << Message << "\n";
  return ExitUsageError;
}

std::optional<std::string> explicitBuildPath(int Argc, const char **Argv) {
  for (int I = 1; I < Argc; ++I) {
    StringRef Arg = Argv[I];
    if (Arg == "--")
      break;
    Arg.consume_front("-");
    Arg.consume_front("-");
    if (Arg == "p" && I + 1 < Argc)
      return std::string(Argv[I + 1]);
    if (Arg.consume_front("p="))
      return Arg.str();
  }
  return std::nullopt;
}

std::optional<ExitCode> checkExplicitBuildPath(int Argc, const char **Argv) {
  std::optional<std::string> BuildPath = explicitBuildPath(Argc, Argv);
  if (!BuildPath)
    return std::nullopt;
  std::string Error;
  if (tooling::CompilationDatabase::autoDetectFromDirectory(*BuildPath, Error))
    return std::nullopt;
  return usageError("no compilation database in '" + *BuildPath +
                    "': expected compile_commands.json there or in a parent "
                    "directory");
}

SmallString<256> makeAbsolute(StringRef Path) {
  if (Path.empty())
    return {};
  SmallString<256> Absolute(Path);
  sys::fs::make_absolute(Absolute);
  return Absolute;
}

std::optional<std::vector<std::string>>
selectInputs(const std::vector<std::string> &Inputs,
             const tooling::CompilationDatabase &Database, bool FromDatabase) {
  if (!FromDatabase || llvm::all_of(Inputs, [](const std::string &Input) {
        return sys::fs::exists(Input);
      }))
    return Inputs;
  std::vector<std::string> Entries = Database.getAllFiles();
  llvm::sort(Entries);
  std::vector<std::string> Selected;
  for (const std::string &Input : Inputs) {
    if (sys::fs::exists(Input)) {
      Selected.push_back(Input);
      continue;
    }
    Regex Pattern(Input);
    std::string Error;
    if (!Pattern.isValid(Error)) {
      usageError("'" + Input + "' is neither a file nor a valid regular expression: " + Error);
      return std::nullopt;
    }
    size_t Before = Selected.size();
    for (const std::string &Entry : Entries)
      if (Pattern.match(Entry))
        Selected.push_back(Entry);
    if (Selected.size() == Before) {
      usageError("'" + Input + "' is not a file and matches no entry of the compilation database");
      return std::nullopt;
    }
  }
  // An entry selected twice is analysed once.
  std::vector<std::string> Unique;
  StringSet<> Seen;
  for (std::string &File : Selected)
    if (Seen.insert(File).second)
      Unique.push_back(std::move(File));
  return Unique;
}

std::vector<std::string> changedEntries(const std::vector<std::string> &Files,
                                        const ChangedLines &Changed) {
  StringMap<std::string> ByRealPath;
  for (const std::string &File : Files)
    ByRealPath[realPath(File).value_or(File)] = File;
  std::vector<std::string> Selected;
  for (const auto &Entry : Changed.Files) {
    auto It = ByRealPath.find(Entry.getKey());
    if (It != ByRealPath.end())
      Selected.push_back(It->second);
    else if (isCodeFile(Entry.getKey()))
      return Files;
  }
  llvm::sort(Selected);
  return Selected;
}

bool anyCudaFile(const tooling::CompilationDatabase &Database, ArrayRef<std::string> Files) {
  return llvm::any_of(Files, [&](const std::string &File) {
    if (sys::path::extension(File) == ".cu")
      return true;
    for (const tooling::CompileCommand &Command : Database.getCompileCommands(File))
      for (size_t I = 0; I < Command.CommandLine.size(); ++I) {
        StringRef Arg = Command.CommandLine[I];
        if (Arg.starts_with("--cuda") || Arg == "-xcuda" ||
            (Arg == "-x" && I + 1 < Command.CommandLine.size() &&
             Command.CommandLine[I + 1] == "cuda"))
          return true;
      }
    return false;
  });
}

std::optional<ShardSpec> parseShard(StringRef Text) {
  auto [I, N] = Text.split('/');
  ShardSpec Shard;
  if (I.getAsInteger(10, Shard.Index) || N.getAsInteger(10, Shard.Count) || Shard.Count == 0 ||
      Shard.Index == 0 || Shard.Index > Shard.Count)
    return std::nullopt;
  return Shard;
}

std::vector<std::string> shardOf(const std::vector<std::string> &Files, ShardSpec Shard,
                                 SourceFiles &Sources) {
  struct Placed {
    std::string Hash;
    uint64_t Weight;
    size_t Index;
  };
  std::vector<Placed> Order;
  uint64_t Total = 0;
  for (size_t I = 0; I < Files.size(); ++I) {
    std::string Absolute = makeAbsolute(Files[I]).str().str();
    uint64_t Size = 0;
    sys::fs::file_size(Absolute, Size);
    Order.push_back(
        {blake3Hex(Sources.relativeToRoot(Absolute).value_or(Absolute)), 4096 + Size, I});
    Total += 4096 + Size;
  }
  llvm::sort(Order, [](const Placed &A, const Placed &B) {
    return std::tie(A.Hash, A.Index) < std::tie(B.Hash, B.Index);
  });
  std::vector<size_t> Chosen;
  uint64_t Before = 0;
  for (const Placed &P : Order) {
    // The part that holds the middle of this file's weight.
    long double Middle = Before + P.Weight / 2.0L;
    unsigned Part = std::min<unsigned>(Shard.Count - 1,
                                       static_cast<unsigned>(Middle * Shard.Count / Total));
    if (Part + 1 == Shard.Index)
      Chosen.push_back(P.Index);
    Before += P.Weight;
  }
  llvm::sort(Chosen);
  std::vector<std::string> Selected;
  for (size_t I : Chosen)
    Selected.push_back(Files[I]);
  return Selected;
}

} // namespace gradlint
