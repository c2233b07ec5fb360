//===--- Outcome.h - a run's findings, to baseline, report and exit status ===//
//
// The last stages of a run, shared by the gradlint command and `gradlint
// merge` (which ends a run that shards began): the baseline (written and
// applied), the JSON and SARIF reports, and the exit status.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_OUTCOME_H
#define GRADLINT_TOOL_OUTCOME_H

#include "Baseline.h"
#include "ExitCodes.h"
#include "Report.h"
#include "SourceFacts.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include <optional>
#include <string>
#include <vector>

namespace gradlint {

/// The analysed files as baselines and reports name them: relative to the
/// source root when inside it, else absolute; sorted, each once.
std::vector<std::string> analysedNames(llvm::ArrayRef<std::string> Files, SourceFiles &Sources);

struct BaselineSettings {
  /// --baseline's entries, when given.
  const std::vector<BaselineEntry> *Baseline = nullptr;
  /// --write-baseline's file, when given.
  std::string WritePath;
  /// Whether the run saw every file the baseline can name (the whole
  /// database, no line filter): then an entry of a file not analysed is
  /// stale too.
  bool Complete = false;
  /// Identities are needed anyway (JSON and SARIF reports).
  bool NeedIdentities = false;
};

/// Identifies the findings (when anything needs it), writes the baseline,
/// applies the baseline (dropping what it suppresses). A usage error when
/// the baseline cannot be written.
std::optional<ExitCode> applyBaselines(std::vector<clang::tidy::ClangTidyError> &Errors,
                                       std::vector<FindingIdentity> &Identities,
                                       SourceFiles &Sources, const BaselineSettings &Settings,
                                       llvm::ArrayRef<std::string> Analysed,
                                       std::optional<BaselineOutcome> &Outcome);

/// The JSON or SARIF report, to stdout or atomically to Output.
std::optional<ExitCode> writeMachineReport(llvm::StringRef Format, llvm::StringRef Output,
                                           const ReportInput &In);

/// Configuration errors (clang-tidy-config) among the findings.
bool hasConfigurationErrors(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors);
/// Compiler errors among the findings.
bool hasCompilerErrors(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors);

/// The documented exit status (README "Exit codes") of a run with these
/// findings, saying why on stderr unless Quiet.
ExitCode exitStatus(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors,
                    unsigned WarningsAsErrorsCount, bool RefusedFixes, llvm::StringRef FailOn,
                    bool Quiet);

} // namespace gradlint

#endif
