//===--- Merge.cpp - gradlint merge: one run's outcome from its shards ----===//
//
// A sharded run (docs/shards.md) is N processes, usually on N machines,
// each analysing one part of the database and writing a JSON report. This
// command ends the run: it reads the reports back (their findings in the
// lossless "raw" form), checks that they are the N parts of one run, and
// runs the same last stages as the gradlint command (de-duplication of
// findings in shared headers, baseline, report, exit status).
//
//===----------------------------------------------------------------------===//

#include "Merge.h"
#include "ExitCodes.h"
#include "Findings.h"
#include "FindingsJson.h"
#include "Inputs.h"
#include "Outcome.h"
#include "Report.h"
#include "TextReport.h"
#include "gradlint/TidyCompat.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace llvm;
using namespace clang::tidy;

namespace gradlint {
namespace {

const char Usage[] = R"(usage: gradlint merge [options] REPORT.json...

Combines the JSON reports of the shards of one run (gradlint --shard I/N
--format=json) into the report, exit status and baseline outcome that one
whole run would have given. Run the shards without --baseline and give it
here. The sources must be where the shards saw them (text reports quote
them, fingerprints read them).

options:
  --format=text|json|sarif   the report (default: text)
  --output=FILE              write it to FILE, atomically
  --baseline=FILE            report only findings not in this baseline
  --write-baseline=FILE      write the merged findings as a baseline
  --fail-on=error|warning    exit status 1 on any finding with 'warning'
  --quiet                    no summary lines on stderr
)";

struct Settings {
  std::string Format = "text", Output, BaselinePath, WriteBaselinePath, FailOn = "error";
  bool Quiet = false;
  std::vector<std::string> Reports;
};

/// One shard's report, read back.
struct ShardReport {
  std::string Path;
  std::vector<ClangTidyError> Errors;
  size_t Files = 0;
  std::vector<std::string> Checks, Analysed;
  bool Complete = false;
  std::optional<ShardSpec> Shard;
};

std::optional<Settings> parseArguments(int Argc, const char **Argv) {
  Settings S;
  for (int I = 1; I < Argc; ++I) {
    StringRef Arg = Argv[I];
    if (Arg == "--help" || Arg == "-h" || Arg == "-help") {
      outs() << Usage;
      exit(ExitClean);
    }
    if (Arg == "--quiet" || Arg == "-quiet") {
      S.Quiet = true;
      continue;
    }
    if (!Arg.starts_with("-")) {
      S.Reports.push_back(Arg.str());
      continue;
    }
    auto [Name, Value] = Arg.ltrim('-').split('=');
    std::string *Target = Name == "format"           ? &S.Format
                          : Name == "output"         ? &S.Output
                          : Name == "baseline"       ? &S.BaselinePath
                          : Name == "write-baseline" ? &S.WriteBaselinePath
                          : Name == "fail-on"        ? &S.FailOn
                                                     : nullptr;
    if (!Target || !Arg.contains('=')) {
      usageError("merge: unknown option '" + Arg + "' (see gradlint merge --help)");
      return std::nullopt;
    }
    *Target = Value.str();
  }
  if (S.Format != "text" && S.Format != "json" && S.Format != "sarif") {
    usageError("merge: unknown --format '" + S.Format + "': expected text, json or sarif");
    return std::nullopt;
  }
  if (S.FailOn != "error" && S.FailOn != "warning") {
    usageError("merge: unknown --fail-on '" + S.FailOn + "': expected error or warning");
    return std::nullopt;
  }
  if (S.Reports.empty()) {
    usageError("merge: no reports given (see gradlint merge --help)");
    return std::nullopt;
  }
  return S;
}

Expected<std::vector<std::string>> strings(const json::Object &O, StringRef Key) {
  const json::Array *A = O.getArray(Key);
  if (!A)
    return createStringError(inconvertibleErrorCode(), "no '" + Key + "' list");
  std::vector<std::string> Out;
  for (const json::Value &V : *A) {
    std::optional<StringRef> S = V.getAsString();
    if (!S)
      return createStringError(inconvertibleErrorCode(), "'" + Key + "' holds a non-string");
    Out.push_back(S->str());
  }
  return Out;
}

Expected<ShardReport> readReport(StringRef Path) {
  auto Fail = [&](const Twine &Why) -> Error {
    return createStringError(inconvertibleErrorCode(), "'" + Path + "': " + Why);
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Path);
  if (!Text)
    return Fail("cannot read it: " + Text.getError().message());
  Expected<json::Value> Parsed = json::parse((*Text)->getBuffer());
  if (!Parsed)
    return Fail("not JSON: " + toString(Parsed.takeError()));
  const json::Object *Report = Parsed->getAsObject();
  const json::Object *Tool = Report ? Report->getObject("tool") : nullptr;
  if (!Report || Report->getInteger("version") != 1 || !Tool ||
      Tool->getString("name") != "gradlint")
    return Fail("not a gradlint JSON report (--format=json)");
  if (Tool->getString("version") != GRADLINT_VERSION)
    return Fail("written by gradlint " + Tool->getString("version").value_or("?") +
                ", this is gradlint " GRADLINT_VERSION);
  const json::Object *Run = Report->getObject("run");
  const json::Object *Summary = Report->getObject("summary");
  const json::Array *Findings = Report->getArray("findings");
  if (!Run || !Summary || !Findings)
    return Fail("a report without 'run', 'summary' or 'findings' (from an older gradlint?)");
  if (Summary->get("baseline"))
    return Fail("written with --baseline; run the shards without it and give it to merge");
  ShardReport R;
  R.Path = Path.str();
  std::optional<int64_t> Files = Summary->getInteger("files");
  std::optional<bool> Complete = Run->getBoolean("complete");
  if (!Files || *Files < 0 || !Complete)
    return Fail("no summary.files or run.complete");
  R.Files = static_cast<size_t>(*Files);
  R.Complete = *Complete;
  Expected<std::vector<std::string>> Checks = strings(*Run, "checks");
  if (!Checks)
    return Fail(toString(Checks.takeError()));
  R.Checks = std::move(*Checks);
  Expected<std::vector<std::string>> Analysed = strings(*Run, "analysed");
  if (!Analysed)
    return Fail(toString(Analysed.takeError()));
  R.Analysed = std::move(*Analysed);
  if (const json::Object *Shard = Run->getObject("shard")) {
    std::optional<int64_t> Index = Shard->getInteger("index"), Count = Shard->getInteger("count");
    if (!Index || !Count || *Count < 1 || *Index < 1 || *Index > *Count)
      return Fail("a malformed run.shard");
    R.Shard = ShardSpec{static_cast<unsigned>(*Index), static_cast<unsigned>(*Count)};
  }
  for (const json::Value &F : *Findings) {
    const json::Object *Finding = F.getAsObject();
    const json::Value *Raw = Finding ? Finding->get("raw") : nullptr;
    if (!Raw)
      return Fail("a finding without its 'raw' form");
    Expected<ClangTidyError> E = findingFromJson(*Raw);
    if (!E)
      return Fail(toString(E.takeError()));
    R.Errors.push_back(std::move(*E));
  }
  return R;
}

/// The reports are the N shards of one run, or reports of whole runs.
/// Returns whether together they saw the whole database.
Expected<bool> checkCoverage(const std::vector<ShardReport> &Reports) {
  auto Fail = [](const Twine &Why) -> Error {
    return createStringError(inconvertibleErrorCode(), Why);
  };
  for (const ShardReport &R : Reports)
    if (R.Checks != Reports.front().Checks)
      return Fail("'" + R.Path + "' ran other checks than '" + Reports.front().Path + "'");
  const bool Sharded = Reports.front().Shard.has_value();
  for (const ShardReport &R : Reports)
    if (R.Shard.has_value() != Sharded)
      return Fail("'" + R.Path + "' is " + (R.Shard ? "" : "not ") + "a shard, '" +
                  Reports.front().Path + "' is " + (Sharded ? "" : "not ") +
                  "one: merge the shards of one run");
  if (!Sharded) // reports of separate runs: the union of what they saw
    return Reports.size() == 1 && Reports.front().Complete;
  const unsigned Count = Reports.front().Shard->Count;
  std::map<unsigned, std::string> Seen;
  for (const ShardReport &R : Reports) {
    if (R.Shard->Count != Count)
      return Fail("'" + R.Path + "' is shard " + Twine(R.Shard->Index) + "/" +
                  Twine(R.Shard->Count) + ", '" + Reports.front().Path + "' one of " +
                  Twine(Count));
    auto [It, Inserted] = Seen.try_emplace(R.Shard->Index, R.Path);
    if (!Inserted)
      return Fail("shard " + Twine(R.Shard->Index) + "/" + Twine(Count) + " given twice: '" +
                  It->second + "' and '" + R.Path + "'");
  }
  for (unsigned I = 1; I <= Count; ++I)
    if (!Seen.count(I))
      return Fail("shard " + Twine(I) + "/" + Twine(Count) + " is missing");
  return llvm::all_of(Reports, [](const ShardReport &R) { return R.Complete; });
}

} // namespace

int mergeMain(int Argc, const char **Argv) {
  std::optional<Settings> S = parseArguments(Argc, Argv);
  if (!S)
    return ExitUsageError;
  // Read before anything is written: a bad baseline or report costs nothing.
  std::optional<std::vector<BaselineEntry>> Baseline;
  if (!S->BaselinePath.empty()) {
    Expected<std::vector<BaselineEntry>> Read = readBaseline(S->BaselinePath);
    if (!Read)
      return usageError(toString(Read.takeError()));
    Baseline = std::move(*Read);
  }
  std::vector<ShardReport> Reports;
  for (const std::string &Path : S->Reports) {
    Expected<ShardReport> R = readReport(Path);
    if (!R)
      return usageError("merge: " + toString(R.takeError()));
    Reports.push_back(std::move(*R));
  }
  Expected<bool> Complete = checkCoverage(Reports);
  if (!Complete)
    return usageError("merge: " + toString(Complete.takeError()));

  std::vector<ClangTidyError> Errors;
  size_t Files = 0;
  std::vector<std::string> Analysed;
  for (ShardReport &R : Reports) {
    std::move(R.Errors.begin(), R.Errors.end(), std::back_inserter(Errors));
    Files += R.Files;
    Analysed.insert(Analysed.end(), R.Analysed.begin(), R.Analysed.end());
  }
  llvm::sort(Analysed);
  Analysed.erase(std::unique(Analysed.begin(), Analysed.end()), Analysed.end());
  // A finding in a header that several shards analysed is reported once.
  sortAndDeduplicate(Errors);

  SourceFiles Sources(findSourceRoot());
  std::vector<FindingIdentity> Identities;
  std::optional<BaselineOutcome> Outcome;
  BaselineSettings Baselines;
  Baselines.Baseline = Baseline ? &*Baseline : nullptr;
  Baselines.WritePath = S->WriteBaselinePath;
  Baselines.Complete = *Complete;
  Baselines.NeedIdentities = S->Format != "text";
  if (std::optional<ExitCode> Failed =
          applyBaselines(Errors, Identities, Sources, Baselines, Analysed, Outcome))
    return *Failed;

  unsigned WarningsAsErrorsCount = 0;
  if (S->Format == "text") {
    // clang-tidy's printer, as in a whole run (no fixes are applied here).
    std::unique_ptr<ClangTidyContext> Context = compat::newContext(
        std::make_unique<DefaultOptionsProvider>(ClangTidyGlobalOptions(), ClangTidyOptions()),
        /*AllowEnablingAnalyzerAlphaCheckers=*/false);
    auto BaseFS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::getRealFileSystem());
    if (std::optional<ExitCode> Failed = printTextReport(Errors, *Context, FB_NoFix,
                                                         WarningsAsErrorsCount, BaseFS, S->Output))
      return *Failed;
  } else {
    ReportInput In{Errors, Identities, Files, Reports.front().Checks,
                   Outcome ? &*Outcome : nullptr, &Sources};
    In.Analysed = Analysed;
    In.Complete = *Complete;
    if (std::optional<ExitCode> Failed = writeMachineReport(S->Format, S->Output, In))
      return *Failed;
    WarningsAsErrorsCount =
        llvm::count_if(Errors, [](const ClangTidyError &E) { return E.IsWarningAsError; });
  }
  if (!S->Quiet && Outcome)
    printBaselineOutcome(*Outcome);
  return exitStatus(Errors, WarningsAsErrorsCount, /*RefusedFixes=*/false, S->FailOn, S->Quiet);
}

} // namespace gradlint
