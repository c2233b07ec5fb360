//===--- FindingsJson.h - findings as JSON, and back ----------------------===//
//
// A lossless JSON form of clang-tidy's findings (every field the reports,
// the text output and --fix read), for the result cache: a finding read back
// prints, fixes and reports exactly as the one that was written.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_FINDINGSJSON_H
#define GRADLINT_TOOL_FINDINGSJSON_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace gradlint {

llvm::json::Value findingToJson(const clang::tidy::ClangTidyError &E);
llvm::Expected<clang::tidy::ClangTidyError> findingFromJson(const llvm::json::Value &V);

llvm::json::Value statsToJson(const clang::tidy::ClangTidyStats &S);
llvm::Expected<clang::tidy::ClangTidyStats> statsFromJson(const llvm::json::Value &V);

} // namespace gradlint

#endif
