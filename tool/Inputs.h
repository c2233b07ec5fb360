//===--- Inputs.h - what the gradlint command analyses --------------------===//
//
// The first stage of a run: the compilation database and the files taken
// from it (all its entries, regular expressions over them, the entries
// changed since a revision, one shard of them).
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_INPUTS_H
#define GRADLINT_TOOL_INPUTS_H

#include "ChangedLines.h"
#include "ExitCodes.h"
#include "SourceFacts.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include <optional>
#include <string>
#include <vector>

namespace gradlint {

/// Prints "gradlint: error: Message" and returns ExitUsageError.
ExitCode usageError(const llvm::Twine &Message);

/// The value of -p on the command line, if given (`-p DIR`, `-p=DIR`, and
/// the same with `--`), up to the `--` that starts the compiler arguments.
std::optional<std::string> explicitBuildPath(int Argc, const char **Argv);

/// clang-tidy falls back to running without flags when the compilation
/// database given with -p cannot be loaded, which turns a typo in a CI script
/// into a wall of missing-include errors. gradlint stops instead, before the
/// option parser prints its fallback message.
std::optional<ExitCode> checkExplicitBuildPath(int Argc, const char **Argv);

/// Path made absolute; empty stays empty (an unset --store-check-profile
/// must not become the working directory, or the profile goes to a file).
llvm::SmallString<256> makeAbsolute(llvm::StringRef Path);

/// The files to analyse. An input that exists is analysed as given. With -p,
/// an input that is not a file is a regular expression selecting entries of
/// the compilation database (as run-clang-tidy's arguments are). Prints the
/// error and returns nothing for an input that is neither.
std::optional<std::vector<std::string>>
selectInputs(const std::vector<std::string> &Inputs,
             const clang::tooling::CompilationDatabase &Database, bool FromDatabase);

/// With --diff-base over the whole database: only the changed entries, when
/// every changed code file is one (a changed header could affect any entry,
/// and then all are analysed).
std::vector<std::string> changedEntries(const std::vector<std::string> &Files,
                                        const ChangedLines &Changed);

/// --shard I/N: the I-th (1-based) of N parts.
struct ShardSpec {
  unsigned Index = 1, Count = 1;
};
std::optional<ShardSpec> parseShard(llvm::StringRef Text);

/// The files of one shard, in their order. Each file's place comes from a
/// hash of its name as baselines give it (its real path relative to the
/// source root when inside it: Sources.relativeToRoot), so every
/// machine computes the same parts; in that order, the files are cut into N
/// runs of about equal weight (4 KiB plus the file's size, a rough measure
/// of its parse), so adding a file moves only files at the cuts.
std::vector<std::string> shardOf(const std::vector<std::string> &Files, ShardSpec Shard,
                                 SourceFiles &Sources);

/// Whether one of Files is compiled as CUDA (a .cu file, `-x cuda`, or a
/// CUDA flag such as --cuda-host-only).
bool anyCudaFile(const clang::tooling::CompilationDatabase &Database,
                 llvm::ArrayRef<std::string> Files);

} // namespace gradlint

#endif
