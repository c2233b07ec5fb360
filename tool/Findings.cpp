//===--- Findings.cpp - the findings pipeline of the gradlint command -----===//

#include "Findings.h"
#include "gradlint/LlvmCompat.h"
#include "llvm/Support/raw_ostream.h"
#include <numeric>
#include <tuple>

using namespace llvm;
using namespace clang;
using clang::tidy::ClangTidyStats;

namespace gradlint {

StringRef RealPaths::of(const ClangTidyError &E) {
  if (E.Message.FilePath.empty())
    return "";
  // `..` resolved by the file system, not textually: `link/../b.h` is
  // next to the link's target.
  SmallString<256> Path(E.Message.FilePath);
  if (sys::path::is_relative(Path))
    compat::makeAbsolute(E.BuildDirectory, Path);
  auto [It, Inserted] = Cache.try_emplace(Path);
  if (Inserted)
    It->second = realPath(Path).value_or(SourceFiles::absolute(Path, ""));
  return It->second;
}

void clearFixIts(ClangTidyError &E) {
  E.Message.Fix.clear();
  for (tooling::DiagnosticMessage &Note : E.Notes)
    Note.Fix.clear();
}

void sortAndDeduplicate(std::vector<ClangTidyError> &Errors) {
  RealPaths Real;
  std::vector<StringRef> Files;
  for (const ClangTidyError &E : Errors)
    Files.push_back(Real.of(E));
  auto Key = [&](size_t I) {
    const ClangTidyError &E = Errors[I];
    return std::make_tuple(Files[I], E.Message.FileOffset, StringRef(E.DiagnosticName),
                           StringRef(E.Message.Message));
  };
  std::vector<size_t> Order(Errors.size());
  std::iota(Order.begin(), Order.end(), 0);
  llvm::sort(Order, [&](size_t A, size_t B) { return Key(A) < Key(B); });
  // A finding reported by several translation units is kept once; if they
  // want different fixes for it (a header whose meaning depends on what is
  // defined before it), none is applied.
  auto FixesOf = [&](size_t I) {
    std::vector<std::tuple<std::string, unsigned, unsigned, std::string>> Edits;
    forEachFixIt(Errors[I], /*WithNotes=*/true,
                 [&](std::string File, const tooling::Replacement &R) {
                   Edits.emplace_back(std::move(File), R.getOffset(), R.getLength(),
                                      R.getReplacementText().str());
                 });
    llvm::sort(Edits);
    return Edits;
  };
  std::vector<size_t> Unique;
  for (size_t I : Order) {
    if (Unique.empty() || Key(Unique.back()) != Key(I)) {
      Unique.push_back(I);
      continue;
    }
    ClangTidyError &Kept = Errors[Unique.back()];
    if (FixesOf(Unique.back()) == FixesOf(I))
      continue;
    bool Noted = llvm::any_of(Kept.Notes, [](const tooling::DiagnosticMessage &N) {
      return StringRef(N.Message).starts_with("not fixed: ");
    });
    clearFixIts(Kept);
    if (!Noted)
      Kept.Notes.emplace_back("not fixed: the translation units that include this file "
                              "need different fixes here");
  }
  Order = std::move(Unique);
  std::vector<ClangTidyError> Sorted;
  Sorted.reserve(Order.size());
  for (size_t I : Order)
    Sorted.push_back(std::move(Errors[I]));
  Errors = std::move(Sorted);
}

unsigned keepChangedLines(std::vector<ClangTidyError> &Errors,
                          const ChangedLines &Changed, SourceFiles &Sources) {
  size_t Before = Errors.size();
  RealPaths Paths;
  llvm::erase_if(Errors, [&](const ClangTidyError &E) {
    if (isCompilerDiagnostic(E) || E.Message.FilePath.empty())
      return false;
    std::string Real = Paths.of(E).str();
    std::optional<SourceFiles::Position> P =
        Sources.position(Real, E.Message.FileOffset);
    return !P || !Changed.contains(Real, P->Line);
  });
  return Before - Errors.size();
}

void dropSuppressed(std::vector<ClangTidyError> &Errors,
                    std::vector<FindingIdentity> &Identities,
                    const std::vector<bool> &Suppressed) {
  size_t Kept = 0;
  for (size_t I = 0; I < Errors.size(); ++I) {
    if (Suppressed[I])
      continue;
    if (Kept != I) { // a self-move would empty the finding
      Errors[Kept] = std::move(Errors[I]);
      Identities[Kept] = std::move(Identities[I]);
    }
    ++Kept;
  }
  Errors.resize(Kept, ClangTidyError("", ClangTidyError::Warning, "", false));
  Identities.resize(Kept);
}

void printBaselineOutcome(const BaselineOutcome &Outcome) {
  if (Outcome.SuppressedCount)
    errs() << "Suppressed " << Outcome.SuppressedCount << " finding"
           << (Outcome.SuppressedCount == 1 ? "" : "s") << " in the baseline.\n";
  if (Outcome.Stale.empty())
    return;
  errs() << Outcome.Stale.size()
         << (Outcome.Stale.size() == 1 ? " baseline entry no longer matches"
                                       : " baseline entries no longer match")
         << " any finding; --write-baseline drops them:\n";
  for (const BaselineEntry &B : Outcome.Stale)
    errs() << "  " << B.File << ": " << B.Check << ": " << B.Message
           << (B.Context.empty() ? "" : " (in " + B.Context + ")") << "\n";
}


void printStats(const ClangTidyStats &Stats) {
  if (!Stats.errorsIgnored())
    return;
  errs() << "Suppressed " << Stats.errorsIgnored() << " warnings (";
  StringRef Separator;
  auto Part = [&](unsigned Count, StringRef What) {
    if (!Count)
      return;
    errs() << Separator << Count << What;
    Separator = ", ";
  };
  Part(Stats.ErrorsIgnoredNonUserCode, " in non-user code");
  Part(Stats.ErrorsIgnoredLineFilter, " due to line filter");
  Part(Stats.ErrorsIgnoredNOLINT, " NOLINT");
  Part(Stats.ErrorsIgnoredCheckFilter, " with check filters");
  errs() << ").\n";
}


bool isConfigurationDiagnostic(const ClangTidyError &E) {
  return E.DiagnosticName == "clang-tidy-config";
}

} // namespace gradlint
