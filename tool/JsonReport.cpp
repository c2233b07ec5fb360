//===--- JsonReport.cpp - gradlint's --format=json -------------------------===//

#include "Report.h"
#include "FindingsJson.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;
using clang::tidy::ClangTidyError;

namespace gradlint {
namespace {

/// {"file", "line", "column", "offset"}; line and column 1-based, the column
/// counting bytes as clang does; without a readable file, only the file and
/// offset; without a file, only the offset.
json::Object location(SourceFiles &Files, StringRef Path, StringRef BuildDirectory,
                      unsigned Offset) {
  json::Object Location{{"offset", Offset}};
  if (Path.empty())
    return Location;
  std::string File = SourceFiles::absolute(Path, BuildDirectory);
  if (std::optional<SourceFiles::Position> P = Files.position(File, Offset)) {
    Location["line"] = P->Line;
    Location["column"] = P->Column;
  }
  Location["file"] = std::move(File);
  return Location;
}

json::Array fixesOf(const clang::tooling::DiagnosticMessage &Message, StringRef BuildDirectory,
                    SourceFiles &Files) {
  json::Array Fixes;
  for (const auto &[Path, Replacements] : Message.Fix)
    for (const clang::tooling::Replacement &R : Replacements) {
      json::Object Fix = location(Files, R.getFilePath(), BuildDirectory, R.getOffset());
      Fix["length"] = R.getLength();
      Fix["replacement"] = R.getReplacementText();
      Fixes.push_back(std::move(Fix));
    }
  return Fixes;
}

} // namespace

void writeJsonReport(raw_ostream &OS, const ReportInput &In) {
  SourceFiles &Files = *In.Sources;
  json::Array Findings;
  unsigned Warnings = 0, ErrorCount = 0;
  for (size_t I = 0; I < In.Errors.size(); ++I) {
    const ClangTidyError &E = In.Errors[I];
    json::Object Finding =
        location(Files, E.Message.FilePath, E.BuildDirectory, E.Message.FileOffset);
    Finding["check"] = E.DiagnosticName;
    Finding["level"] = findingLevel(E);
    Finding["message"] = E.Message.Message;
    json::Array Notes;
    for (const clang::tooling::DiagnosticMessage &Note : E.Notes) {
      json::Object N = location(Files, Note.FilePath, E.BuildDirectory, Note.FileOffset);
      N["message"] = Note.Message;
      N["fixes"] = fixesOf(Note, E.BuildDirectory, Files);
      Notes.push_back(std::move(N));
    }
    Finding["notes"] = std::move(Notes);
    Finding["fixes"] = fixesOf(E.Message, E.BuildDirectory, Files);
    Finding["context"] = In.Identities[I].Context;
    Finding["fingerprint"] = In.Identities[I].Fingerprint;
    // Lossless, for `gradlint merge`: paths as the compiler spelled them,
    // ranges, warnings promoted to errors.
    Finding["raw"] = findingToJson(E);
    (findingLevel(E) == "error" ? ErrorCount : Warnings) += 1;
    Findings.push_back(std::move(Finding));
  }
  json::Object Summary{{"files", static_cast<int64_t>(In.Files)},
                       {"findings", static_cast<int64_t>(In.Errors.size())},
                       {"warnings", Warnings},
                       {"errors", ErrorCount}};
  if (In.Baseline) {
    json::Array Stale;
    for (const BaselineEntry &B : In.Baseline->Stale)
      Stale.push_back(json::Object{{"fingerprint", B.Fingerprint},
                                   {"check", B.Check},
                                   {"file", B.File},
                                   {"context", B.Context},
                                   {"message", B.Message}});
    Summary["baseline"] = json::Object{{"suppressed", In.Baseline->SuppressedCount},
                                       {"stale", std::move(Stale)}};
  }
  json::Array Checks, Analysed;
  for (const std::string &Check : In.EnabledChecks)
    Checks.push_back(Check);
  for (const std::string &File : In.Analysed)
    Analysed.push_back(File);
  json::Object Run{{"checks", std::move(Checks)},
                   {"analysed", std::move(Analysed)},
                   {"complete", In.Complete}};
  if (In.ShardCount)
    Run["shard"] = json::Object{{"index", In.ShardIndex}, {"count", In.ShardCount}};
  json::Object Report{
      {"version", 1},
      {"tool", json::Object{{"name", "gradlint"}, {"version", GRADLINT_VERSION}}},
      {"findings", std::move(Findings)},
      {"summary", std::move(Summary)},
      {"run", std::move(Run)},
  };
  OS << formatv("{0:2}", json::Value(std::move(Report))) << "\n";
}

} // namespace gradlint
