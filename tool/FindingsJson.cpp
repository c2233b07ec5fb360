//===--- FindingsJson.cpp - findings as JSON, and back --------------------===//

#include "FindingsJson.h"

using namespace llvm;
using namespace clang;
using clang::tidy::ClangTidyError;
using clang::tidy::ClangTidyStats;

namespace gradlint {
namespace {

Error malformed(const Twine &What) {
  return createStringError(inconvertibleErrorCode(), "malformed finding: " + What);
}

json::Value messageToJson(const tooling::DiagnosticMessage &M) {
  json::Array Fixes;
  for (const auto &Entry : M.Fix)
    for (const tooling::Replacement &R : Entry.getValue())
      Fixes.push_back(json::Object{{"file", R.getFilePath()},
                                   {"offset", R.getOffset()},
                                   {"length", R.getLength()},
                                   {"text", R.getReplacementText()}});
  json::Array Ranges;
  for (const tooling::FileByteRange &R : M.Ranges)
    Ranges.push_back(json::Object{
        {"file", R.FilePath}, {"offset", R.FileOffset}, {"length", R.Length}});
  return json::Object{{"text", M.Message},
                      {"file", M.FilePath},
                      {"offset", M.FileOffset},
                      {"fixes", std::move(Fixes)},
                      {"ranges", std::move(Ranges)}};
}

/// Reads an unsigned field; false when absent or not a non-negative integer.
bool readUnsigned(const json::Object &O, StringRef Key, unsigned &Out) {
  std::optional<int64_t> V = O.getInteger(Key);
  if (!V || *V < 0 || *V > std::numeric_limits<unsigned>::max())
    return false;
  Out = static_cast<unsigned>(*V);
  return true;
}

Expected<tooling::DiagnosticMessage> messageFromJson(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return malformed("a message is not an object");
  tooling::DiagnosticMessage M;
  std::optional<StringRef> Text = O->getString("text"), File = O->getString("file");
  const json::Array *Fixes = O->getArray("fixes"), *Ranges = O->getArray("ranges");
  if (!Text || !File || !Fixes || !Ranges || !readUnsigned(*O, "offset", M.FileOffset))
    return malformed("a message lacks text, file, offset, fixes or ranges");
  M.Message = Text->str();
  M.FilePath = File->str();
  for (const json::Value &F : *Fixes) {
    const json::Object *Fix = F.getAsObject();
    unsigned Offset, Length;
    std::optional<StringRef> FixFile = Fix ? Fix->getString("file") : std::nullopt;
    std::optional<StringRef> Replacement = Fix ? Fix->getString("text") : std::nullopt;
    if (!FixFile || !Replacement || !readUnsigned(*Fix, "offset", Offset) ||
        !readUnsigned(*Fix, "length", Length))
      return malformed("a fix lacks file, offset, length or text");
    tooling::Replacement R(*FixFile, Offset, Length, *Replacement);
    if (Error E = M.Fix[R.getFilePath()].add(R))
      return std::move(E);
  }
  for (const json::Value &R : *Ranges) {
    const json::Object *Range = R.getAsObject();
    tooling::FileByteRange B;
    std::optional<StringRef> RangeFile = Range ? Range->getString("file") : std::nullopt;
    if (!RangeFile || !readUnsigned(*Range, "offset", B.FileOffset) ||
        !readUnsigned(*Range, "length", B.Length))
      return malformed("a range lacks file, offset or length");
    B.FilePath = RangeFile->str();
    M.Ranges.push_back(std::move(B));
  }
  return M;
}

} // namespace

json::Value findingToJson(const ClangTidyError &E) {
  json::Array Notes;
  for (const tooling::DiagnosticMessage &N : E.Notes)
    Notes.push_back(messageToJson(N));
  json::Array Aliases;
  for (const std::string &A : E.EnabledDiagnosticAliases)
    Aliases.push_back(A);
  return json::Object{{"check", E.DiagnosticName},
                      {"level", E.DiagLevel == ClangTidyError::Error     ? "error"
                                : E.DiagLevel == ClangTidyError::Remark  ? "remark"
                                                                         : "warning"},
                      {"warningAsError", E.IsWarningAsError},
                      {"buildDirectory", E.BuildDirectory},
                      {"message", messageToJson(E.Message)},
                      {"notes", std::move(Notes)},
                      {"aliases", std::move(Aliases)}};
}

Expected<ClangTidyError> findingFromJson(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return malformed("not an object");
  std::optional<StringRef> Check = O->getString("check");
  std::optional<StringRef> BuildDirectory = O->getString("buildDirectory");
  std::optional<StringRef> Level = O->getString("level");
  std::optional<bool> AsError = O->getBoolean("warningAsError");
  const json::Value *Message = O->get("message");
  const json::Array *Notes = O->getArray("notes"), *Aliases = O->getArray("aliases");
  if (!Check || !BuildDirectory || !Level || !AsError || !Message || !Notes || !Aliases)
    return malformed("a field is missing");
  if (*Level != "remark" && *Level != "warning" && *Level != "error")
    return malformed("unknown level");
  ClangTidyError E(*Check,
                   *Level == "error"    ? ClangTidyError::Error
                   : *Level == "remark" ? ClangTidyError::Remark
                                        : ClangTidyError::Warning,
                   *BuildDirectory, *AsError);
  Expected<tooling::DiagnosticMessage> M = messageFromJson(*Message);
  if (!M)
    return M.takeError();
  E.Message = std::move(*M);
  for (const json::Value &N : *Notes) {
    Expected<tooling::DiagnosticMessage> Note = messageFromJson(N);
    if (!Note)
      return Note.takeError();
    E.Notes.push_back(std::move(*Note));
  }
  for (const json::Value &A : *Aliases) {
    std::optional<StringRef> Alias = A.getAsString();
    if (!Alias)
      return malformed("an alias is not a string");
    E.EnabledDiagnosticAliases.push_back(Alias->str());
  }
  return E;
}

json::Value statsToJson(const ClangTidyStats &S) {
  return json::Object{{"displayed", S.ErrorsDisplayed},
                      {"checkFilter", S.ErrorsIgnoredCheckFilter},
                      {"nolint", S.ErrorsIgnoredNOLINT},
                      {"nonUserCode", S.ErrorsIgnoredNonUserCode},
                      {"lineFilter", S.ErrorsIgnoredLineFilter}};
}

Expected<ClangTidyStats> statsFromJson(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  ClangTidyStats S;
  if (!O || !readUnsigned(*O, "displayed", S.ErrorsDisplayed) ||
      !readUnsigned(*O, "checkFilter", S.ErrorsIgnoredCheckFilter) ||
      !readUnsigned(*O, "nolint", S.ErrorsIgnoredNOLINT) ||
      !readUnsigned(*O, "nonUserCode", S.ErrorsIgnoredNonUserCode) ||
      !readUnsigned(*O, "lineFilter", S.ErrorsIgnoredLineFilter))
    return malformed("statistics");
  return S;
}

} // namespace gradlint
