//===--- JsonReport.h - gradlint's --format=json ---------------------------===//
//
// The findings of a run as one JSON document (schema: docs/output-formats.md).
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_JSONREPORT_H
#define GRADLINT_TOOL_JSONREPORT_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace gradlint {

/// Writes \p Errors (sorted, as the text output prints them) as the JSON
/// report: every finding with its check, level, message, location (absolute
/// path, 1-based line and byte column, offset), notes and fixes, and a
/// summary. \p Files is the number of files analysed.
void writeJsonReport(llvm::raw_ostream &OS,
                     const std::vector<clang::tidy::ClangTidyError> &Errors,
                     size_t Files, llvm::StringRef Version);

} // namespace gradlint

#endif
