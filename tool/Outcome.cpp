//===--- Outcome.cpp - a run's findings, to baseline, report and exit status =//

#include "Outcome.h"
#include "Findings.h"
#include "Inputs.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using clang::tidy::ClangTidyError;

namespace gradlint {

std::vector<std::string> analysedNames(ArrayRef<std::string> Files, SourceFiles &Sources) {
  std::vector<std::string> Names;
  for (const std::string &File : Files) {
    std::string Absolute = makeAbsolute(File).str().str();
    Names.push_back(Sources.relativeToRoot(Absolute).value_or(Absolute));
  }
  llvm::sort(Names);
  Names.erase(std::unique(Names.begin(), Names.end()), Names.end());
  return Names;
}

std::optional<ExitCode> applyBaselines(std::vector<ClangTidyError> &Errors,
                                       std::vector<FindingIdentity> &Identities,
                                       SourceFiles &Sources, const BaselineSettings &Settings,
                                       ArrayRef<std::string> Analysed,
                                       std::optional<BaselineOutcome> &Outcome) {
  // Identities read every file with findings: only when something needs them.
  if (Settings.NeedIdentities || Settings.Baseline || !Settings.WritePath.empty())
    Identities = identify(Errors, Sources);
  if (!Settings.WritePath.empty())
    if (Error E = writeBaseline(Settings.WritePath, Errors, Identities))
      return usageError("cannot write baseline '" + Settings.WritePath +
                        "': " + toString(std::move(E)));
  if (Settings.Baseline) {
    StringSet<> AnalysedSet;
    for (const std::string &Name : Analysed)
      AnalysedSet.insert(Name);
    Outcome = applyBaseline(*Settings.Baseline, Errors, Identities, Settings.Complete,
                            AnalysedSet);
    dropSuppressed(Errors, Identities, Outcome->Suppressed);
  }
  return std::nullopt;
}

std::optional<ExitCode> writeMachineReport(StringRef Format, StringRef Output,
                                           const ReportInput &In) {
  auto Write = [&](raw_ostream &OS) {
    (Format == "json" ? writeJsonReport : writeSarifReport)(OS, In);
    return Error::success();
  };
  if (Output.empty())
    cantFail(Write(outs()));
  else if (Error E = writeToOutput(Output, Write))
    return usageError("cannot write '" + Output + "': " + toString(std::move(E)));
  outs().flush();
  return std::nullopt;
}

bool hasConfigurationErrors(ArrayRef<ClangTidyError> Errors) {
  return llvm::any_of(Errors, isConfigurationDiagnostic);
}

bool hasCompilerErrors(ArrayRef<ClangTidyError> Errors) {
  return llvm::any_of(Errors, [](const ClangTidyError &E) {
    return E.DiagLevel == ClangTidyError::Error && !isConfigurationDiagnostic(E);
  });
}

ExitCode exitStatus(ArrayRef<ClangTidyError> Errors, unsigned WarningsAsErrorsCount,
                    bool RefusedFixes, StringRef FailOn, bool Quiet) {
  if (hasConfigurationErrors(Errors) || RefusedFixes)
    return ExitUsageError;
  if (hasCompilerErrors(Errors))
    return ExitCompilerErrors;
  if (WarningsAsErrorsCount) {
    if (!Quiet)
      errs() << WarningsAsErrorsCount << " warning" << (WarningsAsErrorsCount == 1 ? "" : "s")
             << " treated as error" << (WarningsAsErrorsCount == 1 ? "" : "s") << "\n";
    return ExitFindingsAsErrors;
  }
  if (FailOn == "warning" && !Errors.empty()) {
    if (!Quiet)
      errs() << Errors.size() << " finding" << (Errors.size() == 1 ? "" : "s")
             << " with --fail-on=warning\n";
    return ExitFindingsAsErrors;
  }
  return ExitClean;
}

} // namespace gradlint
