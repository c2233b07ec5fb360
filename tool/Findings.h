//===--- Findings.h - the findings pipeline of the gradlint command -------===//
//
// What happens to the findings of a run between the analysis and the
// reports: one order and one copy of each (a finding in a header shared by
// several translation units), the changed-lines filter of --diff-base, the
// baseline, and the summary lines on stderr. The gradlint command and
// `gradlint merge` run the same pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_FINDINGS_H
#define GRADLINT_TOOL_FINDINGS_H

#include "Baseline.h"
#include "ChangedLines.h"
#include "SourceFacts.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/ADT/StringMap.h"
#include <string>
#include <vector>

namespace gradlint {

using clang::tidy::ClangTidyError;

/// The real path of each finding's file (a relative path is relative to its
/// compile command's directory), each file's computed once.
class RealPaths {
public:
  /// Empty for a finding without a file; the absolute path when the file
  /// does not exist.
  llvm::StringRef of(const ClangTidyError &E);

private:
  llvm::StringMap<std::string> Cache;
};

/// Calls F(absolute file, replacement) for every fix-it of \p E: its own
/// and, when \p WithNotes, its notes'.
template <typename Fn> void forEachFixIt(const ClangTidyError &E, bool WithNotes, Fn F) {
  auto Visit = [&](const clang::tooling::DiagnosticMessage &M) {
    for (const auto &[Path, Replacements] : M.Fix)
      for (const clang::tooling::Replacement &R : Replacements)
        F(SourceFiles::absolute(R.getFilePath(), E.BuildDirectory), R);
  };
  Visit(E.Message);
  if (WithNotes)
    for (const clang::tooling::DiagnosticMessage &Note : E.Notes)
      Visit(Note);
}

/// Drops every fix-it of \p E, its notes' included (a finding's fixes go
/// together).
void clearFixIts(ClangTidyError &E);

/// Results in a stable order whatever the scheduling -- by file, position,
/// check and message -- with a finding reported by several translation units
/// (in a header they share) kept once, and not fixed when they disagree on
/// its fix. Files are compared by their real
/// path (a relative path is relative to its compile command's directory),
/// so `./b.h`, `../src/b.h` and `/abs/src/b.h` are one file.
void sortAndDeduplicate(std::vector<ClangTidyError> &Errors);

/// Drops the findings (not compiler errors) outside the changed lines;
/// returns how many.
unsigned keepChangedLines(std::vector<ClangTidyError> &Errors, const ChangedLines &Changed,
                          SourceFiles &Sources);

/// Drops the findings the baseline suppressed, and their identities.
void dropSuppressed(std::vector<ClangTidyError> &Errors, std::vector<FindingIdentity> &Identities,
                    const std::vector<bool> &Suppressed);

/// "Suppressed N findings in the baseline." and the stale entries, on stderr.
void printBaselineOutcome(const BaselineOutcome &Outcome);

/// clang-tidy's "Suppressed N warnings (...)." line, on stderr.
void printStats(const clang::tidy::ClangTidyStats &Stats);

/// A diagnostic about the configuration (clang-tidy-config), not the code.
bool isConfigurationDiagnostic(const ClangTidyError &E);

} // namespace gradlint

#endif
