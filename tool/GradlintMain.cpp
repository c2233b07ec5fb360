//===--- GradlintMain.cpp - the gradlint command --------------------------===//
//
// A clang-tidy compatible driver for the gradlint checks: it accepts
// clang-tidy's command line (so run-clang-tidy, clang-tidy-diff, CMake's
// CXX_CLANG_TIDY and clang-apply-replacements work with it unchanged), runs
// the checks through the clang-tidy library, and maps the outcome onto the
// documented exit codes in ExitCodes.h.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "WholeProgram.h"
#include "Cache.h"
#include "Baseline.h"
#include "ChangedLines.h"
#include "ExitCodes.h"
#include "Findings.h"
#include "Fixes.h"
#include "Inputs.h"
#include "Merge.h"
#include "Outcome.h"
#include "NvccCommand.h"
#include "Report.h"
#include "SourceFacts.h"
#include "TextReport.h"
#include "gradlint/TidyCompat.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang-tidy/GlobList.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include <atomic>
#include <fcntl.h>
#include <mutex>
#include <numeric>
#include <thread>
#include <unistd.h>

using namespace clang;
using namespace clang::tidy;
using namespace llvm;
using ::gradlint::ExitCode;
using ::gradlint::usageError;
using ::gradlint::explicitBuildPath;
using ::gradlint::makeAbsolute;

namespace clang::tidy {
// Keeps the gradlint module (checks/GradlintTidyModule.cpp) linked in.
extern volatile int GradlintModuleAnchorSource;
static int LLVM_ATTRIBUTE_UNUSED GradlintModuleAnchorDestination =
    GradlintModuleAnchorSource;
} // namespace clang::tidy

static cl::OptionCategory GradlintCategory("gradlint options");

static cl::extrahelp CommonHelp(tooling::CommonOptionsParser::HelpMessage);
static cl::extrahelp GradlintHelp(R"(
gradlint finds type instability in C++ automatic-differentiation code
(runtime concatenation axes, type-erased pullbacks) and fixes it.

Configuration is read from the closest .clang-tidy file, exactly as
clang-tidy does; --config/--config-file replace it.

`gradlint merge REPORT.json...` combines the JSON reports of the shards
of one run (--shard I/N) into that run's report and exit status; see
`gradlint merge --help`.

Exit codes:
  0  no findings, or warnings only
  1  findings promoted to errors by --warnings-as-errors, or any
     finding with --fail-on=warning (baseline-suppressed findings
     never count)
  2  compiler errors in an analysed file
  3  usage or configuration error
  4  internal error
)");

static const char DefaultChecks[] = "-*,gradlint-*";

static cl::opt<std::string> Checks("checks", cl::desc(R"(
Comma-separated list of globs with optional '-'
prefix. Globs are processed in order of
appearance in the list. The default is
'-*,gradlint-*' (all gradlint checks only),
refined by any .clang-tidy file.
)"),
                                   cl::init(""), cl::cat(GradlintCategory));

static cl::opt<std::string> WarningsAsErrors("warnings-as-errors", cl::desc(R"(
Upgrades warnings to errors. Same format as
'-checks'.
)"),
                                             cl::init(""),
                                             cl::cat(GradlintCategory));

static cl::opt<std::string> HeaderFilter("header-filter", cl::desc(R"(
Regular expression matching the names of the
headers to output diagnostics from. Diagnostics
from the main file of each translation unit are
always displayed. The default, as in clang-tidy
22, is '.*': every header that is not a system
header (see -system-headers). Overrides the
'HeaderFilterRegex' option in .clang-tidy files.
)"),
                                         cl::init(".*"),
                                         cl::cat(GradlintCategory));

static cl::opt<std::string>
    ExcludeHeaderFilter("exclude-header-filter", cl::desc(R"(
Regular expression matching the names of the
headers to exclude diagnostics from.
)"),
                        cl::init(""), cl::cat(GradlintCategory));

static cl::opt<bool> SystemHeaders("system-headers", cl::desc(R"(
Display the errors from system headers.
)"),
                                   cl::init(false), cl::cat(GradlintCategory));

static cl::opt<std::string> LineFilter("line-filter", cl::desc(R"(
List of files with line ranges to filter the
warnings, in clang-tidy's JSON format:
  [{"name":"file1.cpp","lines":[[1,3],[5,7]]}]
)"),
                                       cl::init(""),
                                       cl::cat(GradlintCategory));

static cl::opt<bool> Fix("fix", cl::desc(R"(
Apply suggested fixes. Without -fix-errors
gradlint refuses to fix a file that has
compiler errors.
)"),
                         cl::init(false), cl::cat(GradlintCategory));

static cl::opt<bool> FixErrors("fix-errors", cl::desc(R"(
Apply suggested fixes even if compilation
errors were found.
)"),
                               cl::init(false), cl::cat(GradlintCategory));

static cl::opt<bool> FixNotes("fix-notes", cl::desc(R"(
Apply fixes attached to notes too (the first
one of each diagnostic). Implies -fix.
)"),
                              cl::init(false), cl::cat(GradlintCategory));

static cl::opt<std::string> FormatStyle("format-style", cl::desc(R"(
Style for formatting code around applied fixes
(as in clang-tidy): none, file, llvm, ...
)"),
                                        cl::init("none"),
                                        cl::cat(GradlintCategory));

static cl::opt<bool> ListChecks("list-checks", cl::desc(R"(
List all enabled checks and exit.
)"),
                                cl::init(false), cl::cat(GradlintCategory));

static cl::opt<bool> ExplainConfig("explain-config", cl::desc(R"(
For each enabled check explains, where it is
enabled, i.e. in clang-tidy binary, command
line or a specific configuration file.
)"),
                                   cl::init(false), cl::cat(GradlintCategory));

static cl::opt<std::string> Config("config", cl::desc(R"(
Configuration in YAML/JSON format, as in a
.clang-tidy file: -config="{Checks: '-*,gradlint-*',
CheckOptions: {gradlint-runtime-concat-axis.FunctionNames: 'cat'}}"
)"),
                                   cl::init(""), cl::cat(GradlintCategory));

static cl::opt<std::string> ConfigFile("config-file", cl::desc(R"(
Read the configuration from this file instead
of looking for .clang-tidy files.
)"),
                                       cl::init(""),
                                       cl::cat(GradlintCategory));

static cl::opt<bool> DumpConfig("dump-config", cl::desc(R"(
Dump the effective configuration, including
every option of every enabled check, and exit.
)"),
                                cl::init(false), cl::cat(GradlintCategory));

static cl::opt<bool> EnableCheckProfile("enable-check-profile", cl::desc(R"(
Print the time each check spent in its matchers
and callbacks.
)"),
                                        cl::init(false),
                                        cl::cat(GradlintCategory));

static cl::opt<std::string> StoreCheckProfile("store-check-profile",
                                              cl::desc(R"(
With -enable-check-profile, store the profile
as JSON files under this prefix.
)"),
                                              cl::value_desc("prefix"),
                                              cl::cat(GradlintCategory));

static cl::opt<std::string> ExportFixes("export-fixes", cl::desc(R"(
YAML file to store suggested fixes in, for
clang-apply-replacements.
)"),
                                        cl::value_desc("filename"),
                                        cl::cat(GradlintCategory));

static cl::opt<bool> Quiet("quiet", cl::desc(R"(
Print only the diagnostics: no statistics about
suppressed warnings.
)"),
                           cl::init(false), cl::cat(GradlintCategory));

static cl::opt<bool> UseColor("use-color", cl::desc(R"(
Use colors in the diagnostics (default: when the
output is a terminal).
)"),
                              cl::cat(GradlintCategory));

static cl::opt<std::string> Format("format", cl::desc(R"(
Output format: text (default; clang's
diagnostics), json (one document with every
finding, its notes and fixes, and a summary) or
sarif (SARIF 2.1.0, for code-scanning services).
See docs/output-formats.md.
)"),
                                   cl::init("text"), cl::value_desc("text|json|sarif"),
                                   cl::cat(GradlintCategory));

static cl::opt<std::string> Output("output", cl::desc(R"(
Write the report (any format) to this file,
atomically -- a temporary file renamed into
place -- instead of stdout.
)"),
                                   cl::value_desc("file"), cl::cat(GradlintCategory));

static cl::opt<std::string> BaselinePath("baseline", cl::desc(R"(
Report only findings that are not in this
baseline file (see --write-baseline), and list
its entries that no longer match anything.
Suppressed findings are neither printed, fixed
nor counted for the exit status.
)"),
                                         cl::value_desc("file"), cl::cat(GradlintCategory));

static cl::opt<std::string> WriteBaselinePath("write-baseline", cl::desc(R"(
Record every finding of this run in a baseline
file (by check, file, enclosing declaration and
source text, not by line number).
)"),
                                              cl::value_desc("file"),
                                              cl::cat(GradlintCategory));

static cl::opt<std::string> DiffBase("diff-base", cl::desc(R"(
Report only findings on lines changed since this
git revision (`git diff REV`: committed, staged
and unstaged changes; untracked files are not
included). With -p and no input, only the
changed entries of the database are analysed
when every changed C/C++/CUDA file is one.
)"),
                                     cl::value_desc("rev"), cl::cat(GradlintCategory));

static cl::opt<std::string> FailOn("fail-on", cl::desc(R"(
What makes the run exit with status 1: error
(default: findings promoted by
--warnings-as-errors) or warning (any finding
that is reported).
)"),
                                   cl::init("error"), cl::value_desc("error|warning"),
                                   cl::cat(GradlintCategory));

static cl::opt<unsigned> Jobs("j", cl::desc(R"(
Number of files analysed at once (default: the
number of cores). With -p and no input files,
every entry of the compilation database is
analysed; an input that is not a file is a
regular expression selecting entries. Results
are printed sorted by file, line, column and
check, each finding in a shared header once.
)"),
                            cl::init(0), cl::value_desc("N"),
                            cl::cat(GradlintCategory));

static cl::opt<std::string> CacheDir("cache-dir", cl::desc(R"(
Reuse the findings of each translation unit
that is unchanged since a run stored them in
this directory (its files, compile command,
configuration and gradlint itself), and store
the others there. Default: $GRADLINT_CACHE_DIR.
See docs/cache.md.
)"),
                                     cl::init(""), cl::cat(GradlintCategory));

static cl::opt<std::string> CacheMaxSize("cache-max-size", cl::desc(R"(
Bound on the cache directory's size: after a
run, the least recently used entries are
removed while it is larger (bytes, or with a
K, M or G suffix). Default: 1G.
)"),
                                         cl::init("1G"), cl::cat(GradlintCategory));

static cl::opt<bool> WholeProgram("whole-program", cl::desc(R"(
Trace axis parameters through the calls of
every file analysed (the default), not only
those of each file's own translation unit; a
parameter fix may then change several files.
Pullback erasures are traced to the files that
define their origins. Off with --shard, which
sees part of the files.
)"),
                                  cl::init(true), cl::cat(GradlintCategory));

static cl::opt<std::string> ShardOption("shard", cl::desc(R"(
I/N: analyse the I-th of N deterministic parts
of the files (1 <= I <= N), balanced by size.
Each CI job runs one part with --format=json;
`gradlint merge` combines the reports into the
one a whole run would give (docs/shards.md).
)"),
                                        cl::init(""), cl::cat(GradlintCategory));

static cl::opt<bool> AllowNoChecks("allow-no-checks", cl::desc(R"(
Do not fail when no check is enabled.
)"),
                                   cl::init(false), cl::cat(GradlintCategory));

static cl::opt<bool> AllowEnablingAnalyzerAlphaCheckers(
    "allow-enabling-analyzer-alpha-checkers", cl::init(false), cl::Hidden,
    cl::cat(GradlintCategory));

// Lets the tests check that a crash exits with ExitInternalError.
static cl::opt<bool> CrashForTesting("gradlint-crash-for-testing", cl::Hidden,
                                     cl::init(false));

namespace {

/// Set when a .clang-tidy file found next to an input cannot be parsed;
/// clang-tidy would warn and carry on with defaults, gradlint stops. Written
/// by the workers' option providers.
std::atomic<bool> MalformedConfigFile = false;

/// Reads .clang-tidy files like clang-tidy, but remembers a file that does
/// not parse instead of silently falling back to the defaults.
class StrictFileOptionsProvider : public FileOptionsProvider {
public:
  StrictFileOptionsProvider(ClangTidyGlobalOptions GlobalOptions,
                            ClangTidyOptions DefaultOptions,
                            ClangTidyOptions OverrideOptions)
      : FileOptionsProvider(std::move(GlobalOptions), std::move(DefaultOptions),
                            std::move(OverrideOptions),
                            vfs::getRealFileSystem()) {
    ConfigHandlers.clear();
    ConfigHandlers.emplace_back(
        ".clang-tidy", [](MemoryBufferRef Buffer) -> ErrorOr<ClangTidyOptions> {
          ErrorOr<ClangTidyOptions> Parsed = parseConfiguration(Buffer);
          if (!Parsed)
            MalformedConfigFile = true;
          return Parsed;
        });
  }
};

std::optional<ClangTidyOptions> readConfigFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Path);
  if (std::error_code EC = Text.getError()) {
    usageError("cannot read config file '" + Path + "': " + EC.message());
    return std::nullopt;
  }
  ErrorOr<ClangTidyOptions> Parsed = parseConfiguration(**Text);
  if (!Parsed) {
    usageError("invalid configuration in '" + Path +
               "': " + Parsed.getError().message());
    return std::nullopt;
  }
  return *Parsed;
}

std::unique_ptr<ClangTidyOptionsProvider> createOptionsProvider() {
  ClangTidyGlobalOptions GlobalOptions;
  if (std::error_code EC = parseLineFilter(LineFilter, GlobalOptions)) {
    usageError("invalid -line-filter: " + EC.message());
    return nullptr;
  }

  ClangTidyOptions DefaultOptions;
  DefaultOptions.Checks = DefaultChecks;
  DefaultOptions.WarningsAsErrors = "";
  DefaultOptions.HeaderFilterRegex = HeaderFilter;
  DefaultOptions.ExcludeHeaderFilterRegex = ExcludeHeaderFilter;
  DefaultOptions.SystemHeaders = SystemHeaders;
  DefaultOptions.FormatStyle = FormatStyle;
  DefaultOptions.User = sys::Process::GetEnv("USER");

  ClangTidyOptions OverrideOptions;
  if (Checks.getNumOccurrences() > 0)
    OverrideOptions.Checks = Checks;
  if (WarningsAsErrors.getNumOccurrences() > 0)
    OverrideOptions.WarningsAsErrors = WarningsAsErrors;
  if (HeaderFilter.getNumOccurrences() > 0)
    OverrideOptions.HeaderFilterRegex = HeaderFilter;
  if (ExcludeHeaderFilter.getNumOccurrences() > 0)
    OverrideOptions.ExcludeHeaderFilterRegex = ExcludeHeaderFilter;
  if (SystemHeaders.getNumOccurrences() > 0)
    OverrideOptions.SystemHeaders = SystemHeaders;
  if (FormatStyle.getNumOccurrences() > 0)
    OverrideOptions.FormatStyle = FormatStyle;
  if (UseColor.getNumOccurrences() > 0)
    OverrideOptions.UseColor = UseColor;

  std::optional<ClangTidyOptions> Explicit;
  if (ConfigFile.getNumOccurrences() > 0) {
    if (Config.getNumOccurrences() > 0) {
      usageError("--config-file and --config are mutually exclusive");
      return nullptr;
    }
    Explicit = readConfigFile(ConfigFile);
    if (!Explicit)
      return nullptr;
  } else if (Config.getNumOccurrences() > 0) {
    ErrorOr<ClangTidyOptions> Parsed =
        parseConfiguration(MemoryBufferRef(Config, "<command-line-config>"));
    if (!Parsed) {
      usageError("invalid --config: " + Parsed.getError().message());
      return nullptr;
    }
    Explicit = *Parsed;
  }
  if (Explicit)
    return std::make_unique<ConfigOptionsProvider>(
        std::move(GlobalOptions),
        ClangTidyOptions::getDefaults().merge(DefaultOptions, 0),
        std::move(*Explicit), std::move(OverrideOptions));

  return std::make_unique<StrictFileOptionsProvider>(
      std::move(GlobalOptions), std::move(DefaultOptions),
      std::move(OverrideOptions));
}

int gradlintMain(int Argc, const char **Argv) {
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "gradlint " GRADLINT_VERSION " (built with LLVM " LLVM_VERSION_STRING
          ")\n";
  });
  if (std::optional<ExitCode> Failed = ::gradlint::checkExplicitBuildPath(Argc, Argv))
    return *Failed;
  Expected<tooling::CommonOptionsParser> OptionsParser =
      tooling::CommonOptionsParser::create(Argc, Argv, GradlintCategory,
                                           cl::ZeroOrMore);
  if (!OptionsParser) {
    // The parser's message already names the program.
    WithColor::error(errs()) << toString(OptionsParser.takeError());
    return ::gradlint::ExitUsageError;
  }
  // `-p DIR` and no input: every entry of the database. The parser loads the
  // database (and wraps it with --extra-arg) only when it is given files, so
  // parse again with the entries appended as inputs.
  std::vector<std::string> AllEntries;
  std::vector<const char *> ArgvWithEntries;
  if (std::optional<std::string> BuildPath = explicitBuildPath(Argc, Argv);
      BuildPath && OptionsParser->getSourcePathList().empty()) {
    std::string Error;
    std::unique_ptr<tooling::CompilationDatabase> Database =
        tooling::CompilationDatabase::autoDetectFromDirectory(*BuildPath, Error);
    if (Database)
      AllEntries = Database->getAllFiles();
    if (AllEntries.empty())
      return usageError("the compilation database in '" + *BuildPath + "' has no entries");
    llvm::sort(AllEntries);
    ArgvWithEntries.assign(Argv, Argv + Argc);
    auto DashDash = llvm::find_if(ArgvWithEntries,
                                  [](const char *Arg) { return StringRef(Arg) == "--"; });
    std::vector<const char *> Entries;
    for (const std::string &Entry : AllEntries)
      Entries.push_back(Entry.c_str());
    ArgvWithEntries.insert(DashDash, Entries.begin(), Entries.end());
    int NewArgc = static_cast<int>(ArgvWithEntries.size());
    cl::ResetAllOptionOccurrences();
    OptionsParser = tooling::CommonOptionsParser::create(NewArgc, ArgvWithEntries.data(),
                                                         GradlintCategory, cl::ZeroOrMore);
    if (!OptionsParser) {
      WithColor::error(errs()) << toString(OptionsParser.takeError());
      return ::gradlint::ExitUsageError;
    }
  }

  if (CrashForTesting)
    LLVM_BUILTIN_TRAP;
  if (Format != "text" && Format != "json" && Format != "sarif")
    return usageError("unknown --format '" + Format + "': expected text, json or sarif");
  if (FailOn != "error" && FailOn != "warning")
    return usageError("unknown --fail-on '" + FailOn + "': expected error or warning");
  if (!DiffBase.empty() && !LineFilter.empty())
    return usageError("--diff-base and --line-filter are mutually exclusive");
  std::optional<::gradlint::ShardSpec> Shard;
  if (!ShardOption.empty()) {
    Shard = ::gradlint::parseShard(ShardOption);
    if (!Shard)
      return usageError("invalid --shard '" + ShardOption +
                        "': expected I/N with 1 <= I <= N, for example --shard=2/3");
  }
  // The cache (not with --enable-check-profile, which profiles a real run).
  std::unique_ptr<::gradlint::ResultCache> Cache;
  std::string CachePath = CacheDir.getNumOccurrences()
                              ? std::string(CacheDir)
                              : sys::Process::GetEnv("GRADLINT_CACHE_DIR").value_or("");
  if (!CachePath.empty() && !EnableCheckProfile) {
    std::optional<uint64_t> MaxBytes = ::gradlint::parseSize(CacheMaxSize);
    if (!MaxBytes)
      return usageError("invalid --cache-max-size '" + CacheMaxSize +
                        "': expected a number of bytes, optionally with K, M or G");
    Expected<std::unique_ptr<::gradlint::ResultCache>> Opened =
        ::gradlint::ResultCache::open(CachePath, *MaxBytes);
    if (!Opened)
      return usageError(toString(Opened.takeError()));
    Cache = std::move(*Opened);
  }
  // Read before the analysis: a bad baseline should not cost a full run.
  std::optional<std::vector<::gradlint::BaselineEntry>> Baseline;
  if (!BaselinePath.empty()) {
    Expected<std::vector<::gradlint::BaselineEntry>> Read = ::gradlint::readBaseline(BaselinePath);
    if (!Read)
      return usageError(toString(Read.takeError()));
    Baseline = std::move(*Read);
  }
  const std::string SourceRoot = ::gradlint::findSourceRoot();
  std::optional<::gradlint::ChangedLines> Changed;
  if (!DiffBase.empty()) {
    Expected<::gradlint::ChangedLines> Lines = ::gradlint::changedLinesSince(DiffBase, SourceRoot);
    if (!Lines)
      return usageError(toString(Lines.takeError()));
    Changed = std::move(*Lines);
  }

  std::unique_ptr<ClangTidyOptionsProvider> OwningProvider =
      createOptionsProvider();
  if (!OwningProvider)
    return ::gradlint::ExitUsageError;
  ClangTidyOptionsProvider *Provider = OwningProvider.get();

  std::vector<std::string> PathList = OptionsParser->getSourcePathList();
  SmallString<256> FilePath =
      makeAbsolute(PathList.empty() ? StringRef("dummy") : PathList.front());
  ClangTidyOptions EffectiveOptions = Provider->getOptions(FilePath);
  for (const std::string &Path : PathList)
    Provider->getOptions(makeAbsolute(Path));
  if (MalformedConfigFile)
    return usageError("a .clang-tidy file could not be parsed (see above)");

  std::vector<std::string> EnabledChecks =
      ::gradlint::compat::checkNames(EffectiveOptions, AllowEnablingAnalyzerAlphaCheckers);

  if (ExplainConfig) {
    std::vector<ClangTidyOptionsProvider::OptionsSource> RawOptions =
        Provider->getRawOptions(FilePath);
    for (const std::string &Check : EnabledChecks)
      for (const auto &[Opts, Source] : llvm::reverse(RawOptions))
        if (Opts.Checks && GlobList(*Opts.Checks).contains(Check)) {
          outs() << "'" << Check << "' is enabled in the " << Source << ".\n";
          break;
        }
    return ::gradlint::ExitClean;
  }

  if (ListChecks) {
    if (EnabledChecks.empty() && !AllowNoChecks)
      return usageError("no checks enabled");
    outs() << "Enabled checks:";
    for (const std::string &Name : EnabledChecks)
      outs() << "\n    " << Name;
    outs() << "\n\n";
    return ::gradlint::ExitClean;
  }

  if (DumpConfig) {
    EffectiveOptions.CheckOptions =
        ::gradlint::compat::checkOptions(EffectiveOptions, AllowEnablingAnalyzerAlphaCheckers);
    ClangTidyOptions ToDump =
        ClangTidyOptions::getDefaults().merge(EffectiveOptions, 0);
    ::gradlint::compat::filterCheckOptions(ToDump, EnabledChecks);
    outs() << configurationAsText(ToDump) << "\n";
    return ::gradlint::ExitClean;
  }

  if (EnabledChecks.empty()) {
    if (AllowNoChecks) {
      outs() << "No checks enabled.\n";
      return ::gradlint::ExitClean;
    }
    return usageError("no checks enabled (see --checks)");
  }
  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      ::gradlint::translatingNvccCommands(OptionsParser->getCompilations());
  std::optional<std::vector<std::string>> Files =
      ::gradlint::selectInputs(PathList, *Compilations, explicitBuildPath(Argc, Argv).has_value());
  if (!Files)
    return ::gradlint::ExitUsageError;
  if (Files->empty())
    return usageError("no input files specified (see --help)");
  const bool WholeDatabase = !AllEntries.empty();
  if (Changed) {
    if (Changed->Files.empty()) {
      if (!Quiet)
        errs() << "gradlint: no changed lines since " << DiffBase << "; nothing to analyse\n";
      return ::gradlint::ExitClean;
    }
    if (WholeDatabase)
      *Files = ::gradlint::changedEntries(*Files, *Changed);
    if (Files->empty()) {
      if (!Quiet)
        errs() << "gradlint: no entry of the compilation database changed since " << DiffBase
               << "; nothing to analyse\n";
      return ::gradlint::ExitClean;
    }
  }

  ::gradlint::SourceFiles Sources(SourceRoot);
  if (Shard)
    *Files = ::gradlint::shardOf(*Files, *Shard, Sources);

  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllAsmParsers();

  std::unique_ptr<ClangTidyContext> OwningContext =
      ::gradlint::compat::newContext(std::move(OwningProvider), AllowEnablingAnalyzerAlphaCheckers);
  ClangTidyContext &Context = *OwningContext;
  auto BaseFS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(
      vfs::getRealFileSystem());
  ClangTidyStats Stats;
  ::gradlint::AnalysisSettings Analysis;
  Analysis.Workers = Jobs ? unsigned(Jobs) : std::max(1u, std::thread::hardware_concurrency());
  Analysis.ApplyAnyFix = FixNotes;
  Analysis.Quiet = Quiet;
  Analysis.Profile = EnableCheckProfile;
  Analysis.StoreProfile = StoreCheckProfile;
  Analysis.NewContext = [] {
    return ::gradlint::compat::newContext(createOptionsProvider(),
                                        AllowEnablingAnalyzerAlphaCheckers);
  };
  Analysis.Cache = Cache.get();
  Analysis.CacheFlags = ("line-filter=" + LineFilter + ";fix-notes=" + Twine(FixNotes) +
                         ";alpha=" + Twine(AllowEnablingAnalyzerAlphaCheckers))
                            .str();
  // Whole-program provenance needs every file of the database: not in a
  // shard, which sees a part of it.
  std::vector<clang::tidy::gradlint::UnitFlow> Flows;
  const bool ResolveWholeProgram = WholeProgram && !Shard;
  if (ResolveWholeProgram)
    Analysis.Flows = &Flows;
  std::vector<ClangTidyError> Errors =
      ::gradlint::analyse(Context, *Compilations, *Files, Analysis, Stats);
  // Made only when needed: it looks up the real path of every input. A
  // whole-program fix asks it which files it may change; --fix, below.
  std::optional<::gradlint::FixGuard> Guard;
  auto Editable = [&]() -> ::gradlint::FixGuard & {
    if (!Guard)
      Guard.emplace(Sources, *Files);
    return *Guard;
  };
  if (ResolveWholeProgram) {
    ::gradlint::resolveWholeProgram(Errors, Flows, *Compilations, *Files,
                                    [&](StringRef File) { return Editable().inside(File); });
    ::gradlint::traceErasures(Errors, Flows);
  }
  if (Cache) {
    if (!Quiet)
      errs() << "gradlint: " << Cache->hits() << " of " << Files->size()
             << (Files->size() == 1 ? " translation unit" : " translation units")
             << " from the cache\n";
    Cache->trim();
  }

  unsigned OutsideChangedLines = 0;
  if (Changed)
    OutsideChangedLines = ::gradlint::keepChangedLines(Errors, *Changed, Sources);
  // Identities read every file with findings: only when something needs them.
  std::vector<std::string> Analysed = ::gradlint::analysedNames(*Files, Sources);
  // Whether the run saw every file of the database (or, for a shard, every
  // file of its part): the baseline's stale entries may then be anywhere.
  const bool Complete = WholeDatabase && LineFilter.empty() && !Changed;
  std::vector<::gradlint::FindingIdentity> Identities;
  std::optional<::gradlint::BaselineOutcome> Outcome;
  ::gradlint::BaselineSettings Baselines;
  Baselines.Baseline = Baseline ? &*Baseline : nullptr;
  Baselines.WritePath = WriteBaselinePath;
  Baselines.Complete = Complete && !Shard;
  Baselines.NeedIdentities = Format != "text";
  if (std::optional<ExitCode> Failed =
          ::gradlint::applyBaselines(Errors, Identities, Sources, Baselines, Analysed, Outcome))
    return *Failed;

  bool ConfigErrors = ::gradlint::hasConfigurationErrors(Errors);
  bool CompilerErrors = ::gradlint::hasCompilerErrors(Errors);
  if (LLVM_VERSION_MAJOR < 22 && CompilerErrors && ::gradlint::anyCudaFile(*Compilations, *Files))
    WithColor::note(errs(), "gradlint")
        << "this gradlint is built against LLVM " << LLVM_VERSION_MAJOR
        << ", whose clang cannot parse the CUDA 13 headers; analyse CUDA sources with a "
           "gradlint built against LLVM 22\n";

  FixBehaviour Behaviour =
      FixNotes ? FB_FixNotes : (Fix || FixErrors) ? FB_Fix : FB_NoFix;
  // A file that does not compile, or a configuration that is not what the
  // user meant, must not lead to edits.
  bool DisableFixes = (CompilerErrors && !FixErrors) || ConfigErrors;
  if (DisableFixes)
    Behaviour = FB_NoFix;
  unsigned RefusedFiles = 0;
  if (Behaviour != FB_NoFix)
    RefusedFiles = Editable().apply(Errors, Behaviour == FB_FixNotes);
  unsigned WarningsAsErrorsCount = 0;
  if (Format == "text") {
    if (std::optional<ExitCode> Failed = ::gradlint::printTextReport(Errors, Context, Behaviour,
                                                         WarningsAsErrorsCount, BaseFS, Output))
      return *Failed;
  } else {
    // The report first: when it cannot be written, nothing is fixed either.
    ::gradlint::ReportInput In{Errors, Identities, Files->size(), EnabledChecks,
                             Outcome ? &*Outcome : nullptr, &Sources};
    In.Analysed = Analysed;
    In.Complete = Complete;
    if (Shard) {
      In.ShardIndex = Shard->Index;
      In.ShardCount = Shard->Count;
    }
    if (std::optional<ExitCode> Failed = ::gradlint::writeMachineReport(Format, Output, In))
      return *Failed;
    // handleErrors applies the fixes but also prints text to stdout, where
    // only the report may go.
    if (Behaviour != FB_NoFix) {
      ::gradlint::StdoutRedirect ToNull("/dev/null");
      handleErrors(Errors, Context, Behaviour, WarningsAsErrorsCount, BaseFS);
    }
    WarningsAsErrorsCount = llvm::count_if(
        Errors, [](const ClangTidyError &E) { return E.IsWarningAsError; });
  }

  if (Guard)
    Guard->restorePermissions();

  if (!ExportFixes.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(ExportFixes, EC, sys::fs::OF_None);
    if (EC)
      return usageError("cannot write '" + ExportFixes + "': " + EC.message());
    exportReplacements(FilePath.str(), Errors, OS);
  }

  if (!Quiet) {
    ::gradlint::printStats(Stats);
    if (OutsideChangedLines)
      errs() << "Suppressed " << OutsideChangedLines << " finding"
             << (OutsideChangedLines == 1 ? "" : "s") << " outside the lines changed since "
             << DiffBase << ".\n";
    if (Outcome)
      ::gradlint::printBaselineOutcome(*Outcome);
    if (DisableFixes && (Fix || FixErrors || FixNotes))
      errs() << (ConfigErrors
                     ? "Found configuration errors; fixes have NOT been "
                       "applied.\n"
                     : "Found compiler errors, but -fix-errors was not "
                       "specified.\nFixes have NOT been applied.\n");
  }

  return ::gradlint::exitStatus(Errors, WarningsAsErrorsCount, RefusedFiles, FailOn, Quiet);
}

} // namespace

int main(int Argc, const char **Argv) {
  InitLLVM X(Argc, Argv);
  // After the stack trace that InitLLVM prints, a crash exits with the
  // documented internal-error status instead of a signal.
  sys::AddSignalHandler([](void *) { _exit(::gradlint::ExitInternalError); },
                        nullptr);
  install_fatal_error_handler([](void *, const char *Reason, bool) {
    WithColor::error(errs(), "gradlint") << "internal error: " << Reason
                                         << "\n";
    _exit(::gradlint::ExitInternalError);
  });
  // `gradlint merge ...`: the last stages of a sharded run (Merge.h).
  if (Argc > 1 && StringRef(Argv[1]) == "merge")
    return ::gradlint::mergeMain(Argc - 1, Argv + 1);
  return gradlintMain(Argc, Argv);
}
