//===--- Baseline.h - adopting gradlint gradually --------------------------===//
//
// `--write-baseline FILE` records the findings of a run by identity (see
// FindingIdentity: no line numbers); `--baseline FILE` then reports only the
// findings that are not in it, and lists its entries that no longer match
// anything, so the file can shrink. Format: docs/output-formats.md.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_BASELINE_H
#define GRADLINT_TOOL_BASELINE_H

#include "SourceFacts.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace gradlint {

struct BaselineEntry {
  std::string Fingerprint, Check, File, Context, Message;
};

/// The entries of the baseline file at \p Path; an error names the file and
/// what is wrong with it.
llvm::Expected<std::vector<BaselineEntry>> readBaseline(llvm::StringRef Path);

/// Writes every finding of \p Errors except compiler errors to \p Path,
/// atomically, sorted by file, check and fingerprint.
llvm::Error writeBaseline(llvm::StringRef Path,
                          llvm::ArrayRef<clang::tidy::ClangTidyError> Errors,
                          llvm::ArrayRef<FindingIdentity> Identities);

struct BaselineOutcome {
  /// Per finding: true when the baseline has it.
  std::vector<bool> Suppressed;
  unsigned SuppressedCount = 0;
  /// Entries that matched no finding in a file this run analysed.
  std::vector<BaselineEntry> Stale;
};

/// Matches \p Errors against \p Entries. An unmatched entry is stale when
/// \p CompleteRun (every file of the project was analysed, with no line
/// filter) or its file is one of \p AnalysedFiles (root-relative).
BaselineOutcome applyBaseline(llvm::ArrayRef<BaselineEntry> Entries,
                              llvm::ArrayRef<clang::tidy::ClangTidyError> Errors,
                              llvm::ArrayRef<FindingIdentity> Identities,
                              bool CompleteRun, const llvm::StringSet<> &AnalysedFiles);

} // namespace gradlint

#endif
