//===--- Baseline.cpp - adopting gradlint gradually ------------------------===//

#include "Baseline.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using clang::tidy::ClangTidyError;

namespace gradlint {

static constexpr int BaselineVersion = 1;

Expected<std::vector<BaselineEntry>> readBaseline(StringRef Path) {
  auto Fail = [&](const Twine &What) {
    return createStringError(inconvertibleErrorCode(), "baseline '" + Path + "': " + What);
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Path);
  if (!Text)
    return Fail("cannot read it: " + Text.getError().message());
  Expected<json::Value> Parsed = json::parse((*Text)->getBuffer());
  if (!Parsed)
    return Fail("not valid JSON: " + toString(Parsed.takeError()));
  const json::Object *Root = Parsed->getAsObject();
  if (!Root)
    return Fail("expected a JSON object");
  std::optional<int64_t> Version = Root->getInteger("version");
  if (Version != BaselineVersion)
    return Fail(formatv("expected \"version\": {0} (written by gradlint --write-baseline)",
                        BaselineVersion));
  const json::Array *Findings = Root->getArray("findings");
  if (!Findings)
    return Fail("expected a \"findings\" array");
  std::vector<BaselineEntry> Entries;
  for (size_t I = 0; I < Findings->size(); ++I) {
    const json::Object *F = (*Findings)[I].getAsObject();
    std::optional<StringRef> Fingerprint = F ? F->getString("fingerprint") : std::nullopt;
    if (!Fingerprint || Fingerprint->empty())
      return Fail(formatv("findings[{0}] has no \"fingerprint\" string", I));
    auto Field = [&](StringRef Name) { return F->getString(Name).value_or("").str(); };
    Entries.push_back({Fingerprint->str(), Field("check"), Field("file"), Field("context"),
                       Field("message")});
  }
  return Entries;
}

Error writeBaseline(StringRef Path, ArrayRef<ClangTidyError> Errors,
                    ArrayRef<FindingIdentity> Identities) {
  std::vector<size_t> Order;
  for (size_t I = 0; I < Errors.size(); ++I)
    if (!isCompilerDiagnostic(Errors[I]))
      Order.push_back(I);
  // A stable order, independent of line numbers: edits elsewhere leave the
  // file unchanged.
  llvm::stable_sort(Order, [&](size_t A, size_t B) {
    return std::tie(Identities[A].File, Identities[A].Check, Identities[A].Fingerprint) <
           std::tie(Identities[B].File, Identities[B].Check, Identities[B].Fingerprint);
  });
  json::Array Findings;
  for (size_t I : Order)
    Findings.push_back(json::Object{{"fingerprint", Identities[I].Fingerprint},
                                    {"check", Identities[I].Check},
                                    {"file", Identities[I].File},
                                    {"context", Identities[I].Context},
                                    {"message", Errors[I].Message.Message}});
  json::Object Root{{"version", BaselineVersion},
                    {"tool", "gradlint"},
                    {"findings", std::move(Findings)}};
  return writeToOutput(Path, [&](raw_ostream &OS) {
    OS << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
    return Error::success();
  });
}

BaselineOutcome applyBaseline(ArrayRef<BaselineEntry> Entries, ArrayRef<ClangTidyError> Errors,
                              ArrayRef<FindingIdentity> Identities, bool CompleteRun,
                              const StringSet<> &AnalysedFiles) {
  StringMap<unsigned> Unused; // fingerprint -> entries not matched yet
  for (const BaselineEntry &E : Entries)
    ++Unused[E.Fingerprint];
  BaselineOutcome Outcome;
  Outcome.Suppressed.assign(Errors.size(), false);
  for (size_t I = 0; I < Errors.size(); ++I) {
    if (isCompilerDiagnostic(Errors[I]))
      continue;
    auto It = Unused.find(Identities[I].Fingerprint);
    if (It == Unused.end() || It->second == 0)
      continue;
    --It->second;
    Outcome.Suppressed[I] = true;
    ++Outcome.SuppressedCount;
  }
  for (const BaselineEntry &E : Entries) {
    unsigned &Left = Unused[E.Fingerprint];
    if (Left == 0)
      continue;
    --Left;
    if (CompleteRun || AnalysedFiles.contains(E.File))
      Outcome.Stale.push_back(E);
  }
  return Outcome;
}

} // namespace gradlint
