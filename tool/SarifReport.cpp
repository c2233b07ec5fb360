//===--- SarifReport.cpp - gradlint's --format=sarif -----------------------===//
//
// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/): one run,
// the checks as rules (descriptions and help from docs/checks/*.md), paths
// relative to the source root (%SRCROOT%), notes as related locations,
// fix-its as fixes, fingerprints as partialFingerprints.
//
//===----------------------------------------------------------------------===//

#include "Report.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using clang::tidy::ClangTidyError;

namespace gradlint {
namespace {

struct CheckDoc {
  const char *Name;
  const char *Markdown;
};
// {"gradlint-...", R"(markdown)"}, one per docs/checks/*.md (tool/CMakeLists.txt).
const CheckDoc CheckDocs[] = {
#include "CheckDocs.inc"
};

/// Percent-encodes what may not appear in a URI path.
std::string uriPath(StringRef Path) {
  std::string Out;
  for (unsigned char C : Path) {
    if (isAlnum(C) || StringRef("-._~/!$&'()*+,;=:@").contains(C))
      Out += C;
    else
      Out += formatv("%{0:X-2}", unsigned(C)).str();
  }
  return Out;
}

/// The paragraphs of a check's page after its "# name" title.
std::vector<std::string> paragraphs(StringRef Markdown, size_t Count) {
  std::vector<std::string> Result;
  std::string Current;
  SmallVector<StringRef> Lines;
  Markdown.split(Lines, '\n');
  for (StringRef Line : Lines) {
    if (Line.starts_with("#") || Line.trim().empty()) {
      if (!Current.empty())
        Result.push_back(std::move(Current));
      Current.clear();
      if (Result.size() == Count)
        break;
      continue;
    }
    if (!Current.empty())
      Current += ' ';
    Current += Line.trim();
  }
  if (!Current.empty() && Result.size() < Count)
    Result.push_back(std::move(Current));
  return Result;
}

/// \p Configured, a URL fixed at build time, or, when it is a local file://
/// URL (the build's default, into its source tree) and gradlint is installed
/// (`cmake --install`, the package), the file:// URL of \p Installed under
/// PREFIX/share/doc/gradlint, so that an installed gradlint does not point
/// into a source tree that may not exist.
std::string installedDocUrl(StringRef Configured, StringRef Installed) {
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable("gradlint", &Anchor);
  if (!Configured.starts_with("file://") || Exe.empty())
    return Configured.str();
  SmallString<256> Path(llvm::sys::path::parent_path(llvm::sys::path::parent_path(Exe)));
  llvm::sys::path::append(Path, "share", "doc", "gradlint", Installed);
  if (!llvm::sys::fs::exists(Path))
    return Configured.str();
  return "file://" + uriPath(Path);
}

/// The base URL of the check pages.
const std::string &docsUrl() {
  static const std::string Url = [] {
    std::string U = installedDocUrl(GRADLINT_DOCS_URL, "checks");
    return StringRef(U).ends_with("/") ? U : U + "/";
  }();
  return Url;
}

json::Object rule(StringRef Id) {
  json::Object Rule{{"id", Id}};
  for (const CheckDoc &Doc : CheckDocs) {
    if (Id != Doc.Name)
      continue;
    std::vector<std::string> Text = paragraphs(Doc.Markdown, 2);
    if (!Text.empty()) {
      Rule["shortDescription"] = json::Object{{"text", Text[0]}};
      Rule["fullDescription"] =
          json::Object{{"text", Text.size() > 1 ? Text[0] + " " + Text[1] : Text[0]}};
    }
    Rule["help"] = json::Object{{"text", Text.empty() ? std::string(Id) : Text[0]},
                                {"markdown", Doc.Markdown}};
    Rule["helpUri"] = docsUrl() + Id.str() + ".md";
    Rule["defaultConfiguration"] = json::Object{{"level", "warning"}};
    return Rule;
  }
  StringRef Text = Id.starts_with("clang-diagnostic-") ? "A diagnostic of the compiler."
                                                       : "A clang-tidy check.";
  Rule["shortDescription"] = json::Object{{"text", Text}};
  return Rule;
}

class SarifWriter {
public:
  explicit SarifWriter(SourceFiles &Files) : Files(Files) {}

  /// An artifactLocation: relative to %SRCROOT% inside the root, a file URI
  /// outside it.
  json::Object artifact(const std::string &File) {
    if (std::optional<std::string> Relative = Files.relativeToRoot(File))
      return json::Object{{"uri", uriPath(*Relative)}, {"uriBaseId", "SRCROOT"}};
    return json::Object{{"uri", "file://" + uriPath(File)}};
  }

  /// A region starting at \p Offset (and ending at \p Offset + \p Length
  /// when \p WithEnd), in lines and UTF-16 columns.
  std::optional<json::Object> region(const std::string &File, unsigned Offset,
                                     std::optional<unsigned> Length) {
    std::optional<SourceFiles::Position> Start = Files.position(File, Offset);
    if (!Start)
      return std::nullopt;
    json::Object Region{{"startLine", Start->Line}, {"startColumn", Start->Utf16Column}};
    if (Length) {
      std::optional<SourceFiles::Position> End = Files.position(File, Offset + *Length);
      if (!End)
        return std::nullopt;
      Region["endLine"] = End->Line;
      Region["endColumn"] = End->Utf16Column;
    } else if (std::optional<StringRef> Line = Files.lineText(File, Offset)) {
      Region["snippet"] = json::Object{{"text", *Line}};
    }
    return Region;
  }

  std::optional<json::Object> physicalLocation(StringRef Path, StringRef BuildDirectory,
                                               unsigned Offset) {
    if (Path.empty())
      return std::nullopt;
    std::string File = SourceFiles::absolute(Path, BuildDirectory);
    json::Object Location{{"artifactLocation", artifact(File)}};
    if (std::optional<json::Object> R = region(File, Offset, std::nullopt))
      Location["region"] = std::move(*R);
    return Location;
  }

  /// One SARIF fix for the replacements of \p Message (all applied
  /// together), or nothing when it has none or one cannot be located.
  std::optional<json::Object> fix(const clang::tooling::DiagnosticMessage &Message,
                                  StringRef BuildDirectory, StringRef Description) {
    json::Array Changes;
    for (const auto &[Path, Replacements] : Message.Fix) {
      std::string File;
      json::Array Edits;
      for (const clang::tooling::Replacement &R : Replacements) {
        File = SourceFiles::absolute(R.getFilePath(), BuildDirectory);
        std::optional<json::Object> Deleted = region(File, R.getOffset(), R.getLength());
        if (!Deleted)
          return std::nullopt;
        Edits.push_back(json::Object{{"deletedRegion", std::move(*Deleted)},
                                     {"insertedContent",
                                      json::Object{{"text", R.getReplacementText()}}}});
      }
      if (!Edits.empty())
        Changes.push_back(json::Object{{"artifactLocation", artifact(File)},
                                       {"replacements", std::move(Edits)}});
    }
    if (Changes.empty())
      return std::nullopt;
    return json::Object{{"description", json::Object{{"text", Description}}},
                        {"artifactChanges", std::move(Changes)}};
  }

private:
  SourceFiles &Files;
};

} // namespace

void writeSarifReport(raw_ostream &OS, const ReportInput &In) {
  SarifWriter Writer(*In.Sources);
  // Rules: the checks that ran, then whatever else reported (compiler
  // diagnostics), each once.
  json::Array Rules;
  StringMap<unsigned> RuleIndex;
  auto Index = [&](StringRef Id) {
    auto [It, Inserted] = RuleIndex.try_emplace(Id, Rules.size());
    if (Inserted)
      Rules.push_back(rule(Id));
    return It->second;
  };
  for (const std::string &Check : In.EnabledChecks)
    Index(Check);

  json::Array Results;
  for (size_t I = 0; I < In.Errors.size(); ++I) {
    const ClangTidyError &E = In.Errors[I];
    json::Object Result{{"ruleId", E.DiagnosticName},
                        {"ruleIndex", Index(E.DiagnosticName)},
                        {"level", findingLevel(E) == "remark" ? StringRef("note") : findingLevel(E)},
                        {"message", json::Object{{"text", E.Message.Message}}},
                        {"partialFingerprints",
                         json::Object{{"gradlintFingerprint/v1", In.Identities[I].Fingerprint}}}};
    if (std::optional<json::Object> Location = Writer.physicalLocation(
            E.Message.FilePath, E.BuildDirectory, E.Message.FileOffset)) {
      json::Object L{{"physicalLocation", std::move(*Location)}};
      if (!In.Identities[I].Context.empty())
        L["logicalLocations"] = json::Array{json::Object{
            {"fullyQualifiedName", In.Identities[I].Context}}};
      Result["locations"] = json::Array{std::move(L)};
    }
    json::Array Related;
    json::Array Fixes;
    if (std::optional<json::Object> F = Writer.fix(E.Message, E.BuildDirectory, E.Message.Message))
      Fixes.push_back(std::move(*F));
    for (const clang::tooling::DiagnosticMessage &Note : E.Notes) {
      json::Object R{{"id", static_cast<int64_t>(Related.size() + 1)},
                     {"message", json::Object{{"text", Note.Message}}}};
      if (std::optional<json::Object> Location =
              Writer.physicalLocation(Note.FilePath, E.BuildDirectory, Note.FileOffset))
        R["physicalLocation"] = std::move(*Location);
      Related.push_back(std::move(R));
      // A note's fix is an alternative (applied with --fix-notes).
      if (std::optional<json::Object> F = Writer.fix(Note, E.BuildDirectory, Note.Message))
        Fixes.push_back(std::move(*F));
    }
    if (!Related.empty())
      Result["relatedLocations"] = std::move(Related);
    if (!Fixes.empty())
      Result["fixes"] = std::move(Fixes);
    if (In.Baseline)
      Result["baselineState"] = "new";
    Results.push_back(std::move(Result));
  }

  json::Object Driver{{"name", "gradlint"},
                      {"version", GRADLINT_VERSION},
                      {"semanticVersion", GRADLINT_VERSION},
                      {"informationUri", installedDocUrl(GRADLINT_INFORMATION_URL, "README.md")},
                      {"rules", std::move(Rules)}};
  json::Object Run{
      {"tool", json::Object{{"driver", std::move(Driver)}}},
      {"originalUriBaseIds",
       json::Object{{"SRCROOT",
                     json::Object{{"uri", "file://" + uriPath(In.Sources->root()) + "/"}}}}},
      {"columnKind", "utf16CodeUnits"},
      {"results", std::move(Results)},
  };
  json::Object Log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                   {"version", "2.1.0"},
                   {"runs", json::Array{std::move(Run)}}};
  OS << formatv("{0:2}", json::Value(std::move(Log))) << "\n";
}

} // namespace gradlint
