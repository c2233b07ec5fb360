//===--- JsonReport.cpp - gradlint's --format=json -------------------------===//

#include "JsonReport.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <memory>

using namespace llvm;
using clang::tidy::ClangTidyError;

namespace gradlint {
namespace {

/// Absolute paths and offset -> line/column, reading each file once.
class Locator {
public:
  std::string absolute(StringRef Path, StringRef BuildDirectory) {
    SmallString<256> Result(Path);
    if (!Result.empty() && sys::path::is_relative(Result))
      sys::path::make_absolute(BuildDirectory, Result);
    sys::path::remove_dots(Result, /*remove_dot_dot=*/true);
    return Result.str().str();
  }

  /// {"file", "line", "column", "offset"} of \p Offset in \p File; line and
  /// column are 1-based (the column counts bytes, as clang's does); without
  /// a readable file, only the file and offset.
  json::Object location(const std::string &File, unsigned Offset) {
    json::Object Location{{"file", File}, {"offset", Offset}};
    auto [It, Inserted] = Buffers.try_emplace(File);
    if (Inserted) {
      if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(File))
        It->second = std::move(*Buffer);
    }
    if (!It->second || Offset > It->second->getBufferSize())
      return Location;
    StringRef Before = It->second->getBuffer().take_front(Offset);
    size_t LineStart = Before.rfind('\n');
    Location["line"] = static_cast<int64_t>(Before.count('\n') + 1);
    Location["column"] = static_cast<int64_t>(
        LineStart == StringRef::npos ? Offset + 1 : Offset - LineStart);
    return Location;
  }

private:
  StringMap<std::unique_ptr<MemoryBuffer>> Buffers;
};

json::Array fixesOf(const clang::tooling::DiagnosticMessage &Message, StringRef BuildDirectory,
                    Locator &Files) {
  json::Array Fixes;
  for (const auto &[Path, Replacements] : Message.Fix)
    for (const clang::tooling::Replacement &R : Replacements) {
      json::Object Fix = Files.location(Files.absolute(R.getFilePath(), BuildDirectory),
                                        R.getOffset());
      Fix["length"] = R.getLength();
      Fix["replacement"] = R.getReplacementText();
      Fixes.push_back(std::move(Fix));
    }
  return Fixes;
}

StringRef levelOf(const ClangTidyError &E) {
  if (E.DiagLevel == ClangTidyError::Error || E.IsWarningAsError)
    return "error";
  if (E.DiagLevel == ClangTidyError::Remark)
    return "remark";
  return "warning";
}

} // namespace

void writeJsonReport(raw_ostream &OS, const std::vector<ClangTidyError> &Errors, size_t Files,
                     StringRef Version) {
  Locator Locate;
  json::Array Findings;
  unsigned Warnings = 0, ErrorCount = 0;
  for (const ClangTidyError &E : Errors) {
    json::Object Finding = Locate.location(
        Locate.absolute(E.Message.FilePath, E.BuildDirectory), E.Message.FileOffset);
    if (E.Message.FilePath.empty())
      Finding.erase("file");
    Finding["check"] = E.DiagnosticName;
    Finding["level"] = levelOf(E);
    Finding["message"] = E.Message.Message;
    json::Array Notes;
    for (const clang::tooling::DiagnosticMessage &Note : E.Notes) {
      json::Object N = Locate.location(Locate.absolute(Note.FilePath, E.BuildDirectory),
                                       Note.FileOffset);
      if (Note.FilePath.empty())
        N.erase("file");
      N["message"] = Note.Message;
      N["fixes"] = fixesOf(Note, E.BuildDirectory, Locate);
      Notes.push_back(std::move(N));
    }
    Finding["notes"] = std::move(Notes);
    Finding["fixes"] = fixesOf(E.Message, E.BuildDirectory, Locate);
    (levelOf(E) == "error" ? ErrorCount : Warnings) += 1;
    Findings.push_back(std::move(Finding));
  }
  json::Object Report{
      {"version", 1},
      {"tool", json::Object{{"name", "gradlint"}, {"version", Version}}},
      {"findings", std::move(Findings)},
      {"summary", json::Object{{"files", static_cast<int64_t>(Files)},
                               {"findings", static_cast<int64_t>(Errors.size())},
                               {"warnings", Warnings},
                               {"errors", ErrorCount}}},
  };
  OS << formatv("{0:2}", json::Value(std::move(Report))) << "\n";
}

} // namespace gradlint
