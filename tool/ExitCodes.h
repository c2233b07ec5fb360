//===--- ExitCodes.h - the gradlint command's exit statuses ---------------===//
//
// Documented in README.md ("Exit codes"); every value has a test in
// tests/cli/cli_test.py.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_EXITCODES_H
#define GRADLINT_TOOL_EXITCODES_H

namespace gradlint {

enum ExitCode : int {
  /// No findings, or warnings only.
  ExitClean = 0,
  /// Findings promoted to errors by --warnings-as-errors, or any reported
  /// finding with --fail-on=warning.
  ExitFindingsAsErrors = 1,
  /// A compiler error in an analysed file (syntax error, missing file...).
  ExitCompilerErrors = 2,
  /// Bad command line, missing compilation database, malformed or invalid
  /// configuration, unwritable --export-fixes file.
  ExitUsageError = 3,
  /// gradlint itself failed (crash, fatal error).
  ExitInternalError = 4,
};

} // namespace gradlint

#endif
