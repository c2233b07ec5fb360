//===--- Report.h - gradlint's machine-readable reports --------------------===//
//
// The findings of a run as one document: --format=json (gradlint's own
// schema) or --format=sarif (SARIF 2.1.0). Both are described in
// docs/output-formats.md.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_REPORT_H
#define GRADLINT_TOOL_REPORT_H

#include "Baseline.h"
#include "SourceFacts.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <vector>

namespace gradlint {

/// What a report is made of.
struct ReportInput {
  /// The findings to report, sorted as the text output prints them.
  llvm::ArrayRef<clang::tidy::ClangTidyError> Errors;
  /// Their identities (same order).
  llvm::ArrayRef<FindingIdentity> Identities;
  /// The number of files analysed.
  size_t Files = 0;
  /// The checks that ran (SARIF's rules).
  llvm::ArrayRef<std::string> EnabledChecks;
  /// With --baseline: what it suppressed and which of its entries are stale.
  const BaselineOutcome *Baseline = nullptr;
  SourceFiles *Sources = nullptr;
  /// The files analysed (see analysedNames), whether they were every file
  /// of the database, and the shard (ShardCount 0: not sharded): what
  /// `gradlint merge` needs to end the run the shards began.
  llvm::ArrayRef<std::string> Analysed = {};
  bool Complete = false;
  unsigned ShardIndex = 0, ShardCount = 0;
};

/// gradlint's JSON report (schema version 1).
void writeJsonReport(llvm::raw_ostream &OS, const ReportInput &In);

/// A SARIF 2.1.0 log with one run.
void writeSarifReport(llvm::raw_ostream &OS, const ReportInput &In);

} // namespace gradlint

#endif
