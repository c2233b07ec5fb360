//===--- GradlintMain.cpp - the gradlint command --------------------------===//
//
// A clang-tidy compatible driver for the gradlint checks: it accepts
// clang-tidy's command line (so run-clang-tidy, clang-tidy-diff, CMake's
// CXX_CLANG_TIDY and clang-apply-replacements work with it unchanged), runs
// the checks through the clang-tidy library, and maps the outcome onto the
// documented exit codes in ExitCodes.h.
//
//===----------------------------------------------------------------------===//

#include "ExitCodes.h"
#include "Baseline.h"
#include "ChangedLines.h"
#include "Report.h"
#include "SourceFacts.h"
#include "NvccCommand.h"
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
using gradlint::ExitCode;

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

ExitCode usageError(const Twine &Message) {
  WithColor::error(errs(), "gradlint") << Message << "\n";
  return gradlint::ExitUsageError;
}

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

/// The value of -p on the command line, if given (`-p DIR`, `-p=DIR`, and
/// the same with `--`), up to the `--` that starts the compiler arguments.
std::optional<std::string> explicitBuildPath(int Argc, const char **Argv) {
  for (int I = 1; I < Argc; ++I) {
    StringRef Arg = Argv[I];
    if (Arg == "--")
      break;
    Arg.consume_front("-");
    Arg.consume_front("-");
    if (Arg == "p" && I + 1 < Argc)
      return std::string(Argv[I + 1]);
    if (Arg.consume_front("p="))
      return Arg.str();
  }
  return std::nullopt;
}

/// clang-tidy falls back to running without flags when the compilation
/// database given with -p cannot be loaded, which turns a typo in a CI script
/// into a wall of missing-include errors. gradlint stops instead, before the
/// option parser prints its fallback message.
std::optional<ExitCode> checkExplicitBuildPath(int Argc, const char **Argv) {
  std::optional<std::string> BuildPath = explicitBuildPath(Argc, Argv);
  if (!BuildPath)
    return std::nullopt;
  std::string Error;
  if (tooling::CompilationDatabase::autoDetectFromDirectory(*BuildPath, Error))
    return std::nullopt;
  return usageError("no compilation database in '" + *BuildPath +
                    "': expected compile_commands.json there or in a parent "
                    "directory");
}

/// Path made absolute; empty stays empty (an unset --store-check-profile
/// must not become the working directory, or the profile goes to a file).
SmallString<256> makeAbsolute(StringRef Path) {
  if (Path.empty())
    return {};
  SmallString<256> Absolute(Path);
  sys::fs::make_absolute(Absolute);
  return Absolute;
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

/// The files to analyse. An input that exists is analysed as given. With -p,
/// an input that is not a file is a regular expression selecting entries of
/// the compilation database (as run-clang-tidy's arguments are). (No input
/// with -p was turned into every entry before the options were parsed.)
std::optional<std::vector<std::string>>
selectInputs(const std::vector<std::string> &Inputs,
             const tooling::CompilationDatabase &Database, bool FromDatabase) {
  if (!FromDatabase || llvm::all_of(Inputs, [](const std::string &Input) {
        return sys::fs::exists(Input);
      }))
    return Inputs;
  std::vector<std::string> Entries = Database.getAllFiles();
  llvm::sort(Entries);
  std::vector<std::string> Selected;
  for (const std::string &Input : Inputs) {
    if (sys::fs::exists(Input)) {
      Selected.push_back(Input);
      continue;
    }
    Regex Pattern(Input);
    std::string Error;
    if (!Pattern.isValid(Error)) {
      usageError("'" + Input + "' is neither a file nor a valid regular expression: " + Error);
      return std::nullopt;
    }
    size_t Before = Selected.size();
    for (const std::string &Entry : Entries)
      if (Pattern.match(Entry))
        Selected.push_back(Entry);
    if (Selected.size() == Before) {
      usageError("'" + Input + "' is not a file and matches no entry of the compilation database");
      return std::nullopt;
    }
  }
  // An entry selected twice is analysed once.
  std::vector<std::string> Unique;
  StringSet<> Seen;
  for (std::string &File : Selected)
    if (Seen.insert(File).second)
      Unique.push_back(std::move(File));
  return Unique;
}

/// The real path of each finding's file (a relative path is relative to its
/// compile command's directory), each file's computed once.
class RealPaths {
public:
  /// Empty for a finding without a file; the absolute path when the file
  /// does not exist.
  StringRef of(const ClangTidyError &E) {
    if (E.Message.FilePath.empty())
      return "";
    // `..` resolved by the file system, not textually: `link/../b.h` is
    // next to the link's target.
    SmallString<256> Path(E.Message.FilePath);
    if (sys::path::is_relative(Path))
      gradlint::compat::makeAbsolute(E.BuildDirectory, Path);
    auto [It, Inserted] = Cache.try_emplace(Path);
    if (Inserted)
      It->second = gradlint::realPath(Path).value_or(gradlint::SourceFiles::absolute(Path, ""));
    return It->second;
  }

private:
  StringMap<std::string> Cache;
};

/// Calls F(absolute file, replacement) for every fix-it of \p E: its own
/// and, when \p WithNotes, its notes'.
template <typename Fn> void forEachFixIt(const ClangTidyError &E, bool WithNotes, Fn F) {
  auto Visit = [&](const tooling::DiagnosticMessage &M) {
    for (const auto &[Path, Replacements] : M.Fix)
      for (const tooling::Replacement &R : Replacements)
        F(gradlint::SourceFiles::absolute(R.getFilePath(), E.BuildDirectory), R);
  };
  Visit(E.Message);
  if (WithNotes)
    for (const tooling::DiagnosticMessage &Note : E.Notes)
      Visit(Note);
}

/// Drops every fix-it of \p E, its notes' included (a finding's fixes go
/// together).
void clearFixIts(ClangTidyError &E) {
  E.Message.Fix.clear();
  for (tooling::DiagnosticMessage &Note : E.Notes)
    Note.Fix.clear();
}

/// Results in a stable order whatever the scheduling -- by file, position,
/// check and message -- with a finding reported by several translation units
/// (in a header they share) kept once, and not fixed when they disagree on
/// its fix. Files are compared by their real
/// path (a relative path is relative to its compile command's directory),
/// so `./b.h`, `../src/b.h` and `/abs/src/b.h` are one file.
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

/// Runs the checks over Files with Workers threads, each with its own
/// context; the main context analyses the first file, so its per-file
/// options are set for handleErrors. Shows `[i/n] file` on stderr when that
/// is a terminal. Returns every worker's results; Stats gets their sum.
std::vector<ClangTidyError>
analyse(ClangTidyContext &MainContext, const tooling::CompilationDatabase &Database,
        ArrayRef<std::string> Files, unsigned Workers, ClangTidyStats &Stats) {
  if (EnableCheckProfile) {
    // One file after another: each prints its own profile table on stderr
    // (as clang-tidy does), and tables from parallel workers would interleave.
    auto BaseFS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::createPhysicalFileSystem());
    std::vector<ClangTidyError> Errors =
        gradlint::compat::runClangTidy(MainContext, Database, Files, BaseFS, FixNotes, true,
                     makeAbsolute(StoreCheckProfile), Quiet);
    Stats = MainContext.getStats();
    sortAndDeduplicate(Errors);
    return Errors;
  }
  Workers = std::max(1u, std::min<unsigned>(Workers, Files.size()));
  const bool Progress = Files.size() > 1 && sys::Process::StandardErrIsDisplayed();
  std::mutex ProgressLock;
  // The first file for the main context (see above), then the largest
  // first: the last file to finish, which the other workers wait for, is
  // then a small one.
  std::vector<size_t> Order(Files.size());
  std::iota(Order.begin(), Order.end(), 0);
  std::vector<uint64_t> Sizes(Files.size(), 0);
  for (size_t I = 0; I < Files.size(); ++I)
    sys::fs::file_size(Files[I], Sizes[I]);
  std::stable_sort(Order.begin() + 1, Order.end(),
                   [&](size_t A, size_t B) { return Sizes[A] > Sizes[B]; });
  std::atomic<size_t> Next = 1;
  auto Work = [&](ClangTidyContext &Context, std::vector<ClangTidyError> &Out, size_t First) {
    // Each worker's own working directory: the process-wide one, which
    // getRealFileSystem() changes for each compile command, would be shared.
    auto BaseFS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::createPhysicalFileSystem());
    for (size_t K = First; K < Files.size(); K = Next++) {
      size_t I = Order[K];
      if (Progress) {
        std::lock_guard<std::mutex> Guard(ProgressLock);
        errs() << "[" << K + 1 << "/" << Files.size() << "] " << Files[I] << "\n";
      }
      // In parallel, clang's per-file "N warnings generated." lines would
      // interleave; they go (as with --quiet) and the totals stay.
      std::vector<ClangTidyError> Errors = gradlint::compat::runClangTidy(
          Context, Database, Files[I], BaseFS, FixNotes, false, "", Quiet || Workers > 1);
      std::move(Errors.begin(), Errors.end(), std::back_inserter(Out));
    }
  };
  std::vector<std::unique_ptr<ClangTidyContext>> Contexts;
  std::vector<std::vector<ClangTidyError>> Results(Workers);
  std::vector<std::thread> Threads;
  for (unsigned W = 1; W < Workers; ++W) {
    Contexts.push_back(gradlint::compat::newContext(createOptionsProvider(),
                                                    AllowEnablingAnalyzerAlphaCheckers));
    Threads.emplace_back(Work, std::ref(*Contexts.back()), std::ref(Results[W]), Next++);
  }
  Work(MainContext, Results[0], 0);
  for (std::thread &T : Threads)
    T.join();

  Stats = MainContext.getStats();
  for (const auto &Context : Contexts) {
    const ClangTidyStats &S = Context->getStats();
    Stats.ErrorsDisplayed += S.ErrorsDisplayed;
    Stats.ErrorsIgnoredCheckFilter += S.ErrorsIgnoredCheckFilter;
    Stats.ErrorsIgnoredNOLINT += S.ErrorsIgnoredNOLINT;
    Stats.ErrorsIgnoredNonUserCode += S.ErrorsIgnoredNonUserCode;
    Stats.ErrorsIgnoredLineFilter += S.ErrorsIgnoredLineFilter;
  }
  std::vector<ClangTidyError> Errors;
  for (auto &R : Results)
    std::move(R.begin(), R.end(), std::back_inserter(Errors));
  sortAndDeduplicate(Errors);
  return Errors;
}

/// Sends what is written to stdout (fd 1, where clang-tidy's reporter
/// prints) to another file while it lives.
class StdoutRedirect {
public:
  explicit StdoutRedirect(int Fd) { redirect(Fd); }
  explicit StdoutRedirect(const char *Path) {
    int Fd = open(Path, O_WRONLY);
    redirect(Fd);
    close(Fd);
  }
  ~StdoutRedirect() {
    outs().flush();
    dup2(Saved, STDOUT_FILENO);
    close(Saved);
  }

private:
  void redirect(int Fd) {
    outs().flush();
    Saved = dup(STDOUT_FILENO);
    dup2(Fd, STDOUT_FILENO);
  }
  int Saved = -1;
};

/// The text output (and the fixes), to stdout or atomically to --output:
/// into a temporary file next to it, renamed into place when complete.
std::optional<ExitCode> printTextReport(std::vector<ClangTidyError> &Errors,
                                        ClangTidyContext &Context, FixBehaviour Behaviour,
                                        unsigned &WarningsAsErrorsCount,
                                        IntrusiveRefCntPtr<vfs::OverlayFileSystem> BaseFS) {
  if (Output.empty()) {
    handleErrors(Errors, Context, Behaviour, WarningsAsErrorsCount, BaseFS);
    return std::nullopt;
  }
  int Fd;
  SmallString<256> Temporary;
  if (std::error_code EC =
          sys::fs::createUniqueFile(Output + ".tmp-%%%%%%", Fd, Temporary))
    return usageError("cannot write '" + Output + "': " + EC.message());
  {
    StdoutRedirect ToFile(Fd);
    handleErrors(Errors, Context, Behaviour, WarningsAsErrorsCount, BaseFS);
  }
  bool Written = close(Fd) == 0;
  if (std::error_code EC = Written ? sys::fs::rename(Temporary, Output)
                                   : std::make_error_code(std::errc::io_error)) {
    sys::fs::remove(Temporary);
    return usageError("cannot write '" + Output + "': " + EC.message());
  }
  return std::nullopt;
}

/// A file name C, C++ or CUDA code can be in (a change to anything else,
/// documentation or build files, cannot change a finding).
bool isCodeFile(StringRef Path) {
  static const char *const Extensions[] = {".c",   ".cc",  ".cpp", ".cxx", ".c++", ".cu",
                                           ".h",   ".hh",  ".hpp", ".hxx", ".h++", ".cuh",
                                           ".inc", ".inl", ".ipp", ".tcc", ".tpp", ".def"};
  StringRef Extension = sys::path::extension(Path);
  return llvm::any_of(Extensions, [&](const char *E) { return Extension.equals_insensitive(E); });
}

/// With --diff-base over the whole database: only the changed entries, when
/// every changed code file is one (a changed header could affect any entry,
/// and then all are analysed).
std::vector<std::string> changedEntries(const std::vector<std::string> &Files,
                                        const gradlint::ChangedLines &Changed) {
  StringMap<std::string> ByRealPath;
  for (const std::string &File : Files)
    ByRealPath[gradlint::realPath(File).value_or(File)] = File;
  std::vector<std::string> Selected;
  for (const auto &Entry : Changed.Files) {
    auto It = ByRealPath.find(Entry.getKey());
    if (It != ByRealPath.end())
      Selected.push_back(It->second);
    else if (isCodeFile(Entry.getKey()))
      return Files;
  }
  llvm::sort(Selected);
  return Selected;
}

/// What --fix may edit: files inside the source root or inside the
/// directory of an analysed file. A file elsewhere (a third-party or
/// installed header reached through --header-filter) or a read-only file is
/// not edited: the fixes of every finding that touches it are dropped (a
/// finding's fixes go together) and the file is named on stderr. Also
/// remembers the permissions of the files that will be edited: clang-tidy
/// replaces a file by a new one (atomically, by renaming), which would give
/// it the default permissions.
class FixGuard {
public:
  FixGuard(const gradlint::SourceFiles &Sources, ArrayRef<std::string> Inputs) {
    Directories.push_back(Sources.root());
    for (const std::string &Input : Inputs)
      if (std::optional<std::string> Real = gradlint::realPath(makeAbsolute(Input)))
        Directories.push_back(sys::path::parent_path(*Real).str());
    llvm::sort(Directories);
    Directories.erase(std::unique(Directories.begin(), Directories.end()), Directories.end());
  }

  /// Drops the fixes that may not be applied; returns how many files were
  /// refused.
  unsigned apply(std::vector<ClangTidyError> &Errors, bool WithNotes) {
    for (ClangTidyError &E : Errors) {
      bool Refused = false;
      forEachFixIt(E, WithNotes, [&](const std::string &File, const tooling::Replacement &) {
        Refused |= !allowed(File);
      });
      if (Refused)
        clearFixIts(E);
    }
    return Refusals;
  }

  /// Gives the edited files their permissions back.
  void restorePermissions() {
    for (const auto &[File, Permissions] : Kept) {
      ErrorOr<sys::fs::perms> Now = sys::fs::getPermissions(File);
      if (Now && *Now != Permissions)
        sys::fs::setPermissions(File, Permissions);
    }
  }

private:
  bool allowed(const std::string &File) {
    auto [It, Inserted] = Decided.try_emplace(File, true);
    if (!Inserted)
      return It->second;
    StringRef Why;
    ErrorOr<sys::fs::perms> Permissions = sys::fs::getPermissions(File);
    std::string Real = gradlint::realPath(File).value_or(File);
    if (llvm::none_of(Directories,
                      [&](const std::string &D) { return gradlint::isInside(Real, D); }))
      Why = "it is outside the source root and the directories of the analysed files";
    else if (!Permissions)
      Why = "it cannot be read";
    else if (!(*Permissions & sys::fs::owner_write) ||
             sys::fs::access(File, sys::fs::AccessMode::Write))
      Why = "it is read-only";
    if (Why.empty()) {
      Kept.emplace_back(File, *Permissions);
      return true;
    }
    It->second = false;
    ++Refusals;
    WithColor::error(errs(), "gradlint")
        << "not fixing '" << File << "': " << Why << "\n";
    return false;
  }

  std::vector<std::string> Directories; // real paths
  StringMap<bool> Decided;
  std::vector<std::pair<std::string, sys::fs::perms>> Kept;
  unsigned Refusals = 0;
};

/// Drops the findings (not compiler errors) outside the changed lines;
/// returns how many.
unsigned keepChangedLines(std::vector<ClangTidyError> &Errors,
                          const gradlint::ChangedLines &Changed, gradlint::SourceFiles &Sources) {
  size_t Before = Errors.size();
  RealPaths Paths;
  llvm::erase_if(Errors, [&](const ClangTidyError &E) {
    if (gradlint::isCompilerDiagnostic(E) || E.Message.FilePath.empty())
      return false;
    std::string Real = Paths.of(E).str();
    std::optional<gradlint::SourceFiles::Position> P =
        Sources.position(Real, E.Message.FileOffset);
    return !P || !Changed.contains(Real, P->Line);
  });
  return Before - Errors.size();
}

void dropSuppressed(std::vector<ClangTidyError> &Errors,
                    std::vector<gradlint::FindingIdentity> &Identities,
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

/// Whether one of Files is compiled as CUDA (a .cu file, `-x cuda`, or a
/// CUDA flag such as --cuda-host-only).
bool anyCudaFile(const tooling::CompilationDatabase &Database, ArrayRef<std::string> Files) {
  return llvm::any_of(Files, [&](const std::string &File) {
    if (sys::path::extension(File) == ".cu")
      return true;
    for (const tooling::CompileCommand &Command : Database.getCompileCommands(File))
      for (size_t I = 0; I < Command.CommandLine.size(); ++I) {
        StringRef Arg = Command.CommandLine[I];
        if (Arg.starts_with("--cuda") || Arg == "-xcuda" ||
            (Arg == "-x" && I + 1 < Command.CommandLine.size() &&
             Command.CommandLine[I + 1] == "cuda"))
          return true;
      }
    return false;
  });
}

void printBaselineOutcome(const gradlint::BaselineOutcome &Outcome) {
  if (Outcome.SuppressedCount)
    errs() << "Suppressed " << Outcome.SuppressedCount << " finding"
           << (Outcome.SuppressedCount == 1 ? "" : "s") << " in the baseline.\n";
  if (Outcome.Stale.empty())
    return;
  errs() << Outcome.Stale.size()
         << (Outcome.Stale.size() == 1 ? " baseline entry no longer matches"
                                       : " baseline entries no longer match")
         << " any finding; --write-baseline drops them:\n";
  for (const gradlint::BaselineEntry &B : Outcome.Stale)
    errs() << "  " << B.File << ": " << B.Check << ": " << B.Message
           << (B.Context.empty() ? "" : " (in " + B.Context + ")") << "\n";
}

int gradlintMain(int Argc, const char **Argv) {
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "gradlint " GRADLINT_VERSION " (built with LLVM " LLVM_VERSION_STRING
          ")\n";
  });
  if (std::optional<ExitCode> Failed = checkExplicitBuildPath(Argc, Argv))
    return *Failed;
  Expected<tooling::CommonOptionsParser> OptionsParser =
      tooling::CommonOptionsParser::create(Argc, Argv, GradlintCategory,
                                           cl::ZeroOrMore);
  if (!OptionsParser) {
    // The parser's message already names the program.
    WithColor::error(errs()) << toString(OptionsParser.takeError());
    return gradlint::ExitUsageError;
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
      return gradlint::ExitUsageError;
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
  // Read before the analysis: a bad baseline should not cost a full run.
  std::optional<std::vector<gradlint::BaselineEntry>> Baseline;
  if (!BaselinePath.empty()) {
    Expected<std::vector<gradlint::BaselineEntry>> Read = gradlint::readBaseline(BaselinePath);
    if (!Read)
      return usageError(toString(Read.takeError()));
    Baseline = std::move(*Read);
  }
  const std::string SourceRoot = gradlint::findSourceRoot();
  std::optional<gradlint::ChangedLines> Changed;
  if (!DiffBase.empty()) {
    Expected<gradlint::ChangedLines> Lines = gradlint::changedLinesSince(DiffBase, SourceRoot);
    if (!Lines)
      return usageError(toString(Lines.takeError()));
    Changed = std::move(*Lines);
  }

  std::unique_ptr<ClangTidyOptionsProvider> OwningProvider =
      createOptionsProvider();
  if (!OwningProvider)
    return gradlint::ExitUsageError;
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
      gradlint::compat::checkNames(EffectiveOptions, AllowEnablingAnalyzerAlphaCheckers);

  if (ExplainConfig) {
    std::vector<ClangTidyOptionsProvider::OptionsSource> RawOptions =
        Provider->getRawOptions(FilePath);
    for (const std::string &Check : EnabledChecks)
      for (const auto &[Opts, Source] : llvm::reverse(RawOptions))
        if (Opts.Checks && GlobList(*Opts.Checks).contains(Check)) {
          outs() << "'" << Check << "' is enabled in the " << Source << ".\n";
          break;
        }
    return gradlint::ExitClean;
  }

  if (ListChecks) {
    if (EnabledChecks.empty() && !AllowNoChecks)
      return usageError("no checks enabled");
    outs() << "Enabled checks:";
    for (const std::string &Name : EnabledChecks)
      outs() << "\n    " << Name;
    outs() << "\n\n";
    return gradlint::ExitClean;
  }

  if (DumpConfig) {
    EffectiveOptions.CheckOptions =
        gradlint::compat::checkOptions(EffectiveOptions, AllowEnablingAnalyzerAlphaCheckers);
    ClangTidyOptions ToDump =
        ClangTidyOptions::getDefaults().merge(EffectiveOptions, 0);
    gradlint::compat::filterCheckOptions(ToDump, EnabledChecks);
    outs() << configurationAsText(ToDump) << "\n";
    return gradlint::ExitClean;
  }

  if (EnabledChecks.empty()) {
    if (AllowNoChecks) {
      outs() << "No checks enabled.\n";
      return gradlint::ExitClean;
    }
    return usageError("no checks enabled (see --checks)");
  }
  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      gradlint::translatingNvccCommands(OptionsParser->getCompilations());
  std::optional<std::vector<std::string>> Files =
      selectInputs(PathList, *Compilations, explicitBuildPath(Argc, Argv).has_value());
  if (!Files)
    return gradlint::ExitUsageError;
  if (Files->empty())
    return usageError("no input files specified (see --help)");
  const bool WholeDatabase = !AllEntries.empty();
  if (Changed) {
    if (Changed->Files.empty()) {
      if (!Quiet)
        errs() << "gradlint: no changed lines since " << DiffBase << "; nothing to analyse\n";
      return gradlint::ExitClean;
    }
    if (WholeDatabase)
      *Files = changedEntries(*Files, *Changed);
    if (Files->empty()) {
      if (!Quiet)
        errs() << "gradlint: no entry of the compilation database changed since " << DiffBase
               << "; nothing to analyse\n";
      return gradlint::ExitClean;
    }
  }

  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllAsmParsers();

  std::unique_ptr<ClangTidyContext> OwningContext =
      gradlint::compat::newContext(std::move(OwningProvider), AllowEnablingAnalyzerAlphaCheckers);
  ClangTidyContext &Context = *OwningContext;
  auto BaseFS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(
      vfs::getRealFileSystem());
  ClangTidyStats Stats;
  std::vector<ClangTidyError> Errors =
      analyse(Context, *Compilations, *Files,
              Jobs ? unsigned(Jobs) : std::max(1u, std::thread::hardware_concurrency()), Stats);

  gradlint::SourceFiles Sources(SourceRoot);
  unsigned OutsideChangedLines = 0;
  if (Changed)
    OutsideChangedLines = keepChangedLines(Errors, *Changed, Sources);
  // Identities read every file with findings: only when something needs them.
  std::vector<gradlint::FindingIdentity> Identities;
  if (Format != "text" || Baseline || !WriteBaselinePath.empty())
    Identities = gradlint::identify(Errors, Sources);
  if (!WriteBaselinePath.empty())
    if (Error E = gradlint::writeBaseline(WriteBaselinePath, Errors, Identities))
      return usageError("cannot write baseline '" + WriteBaselinePath +
                        "': " + toString(std::move(E)));
  std::optional<gradlint::BaselineOutcome> Outcome;
  if (Baseline) {
    StringSet<> Analysed;
    for (const std::string &File : *Files)
      Analysed.insert(Sources.relativeToRoot(makeAbsolute(File).str().str())
                          .value_or(makeAbsolute(File).str().str()));
    Outcome = gradlint::applyBaseline(*Baseline, Errors, Identities,
                                      WholeDatabase && LineFilter.empty() && !Changed,
                                      Analysed);
    dropSuppressed(Errors, Identities, Outcome->Suppressed);
  }

  bool ConfigErrors = llvm::any_of(Errors, isConfigurationDiagnostic);
  bool CompilerErrors = llvm::any_of(Errors, [](const ClangTidyError &E) {
    return E.DiagLevel == ClangTidyError::Error && !isConfigurationDiagnostic(E);
  });
  if (LLVM_VERSION_MAJOR < 22 && CompilerErrors && anyCudaFile(*Compilations, *Files))
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
  // Only when fixing: it looks up the real path of every input.
  std::optional<FixGuard> Guard;
  unsigned RefusedFiles = 0;
  if (Behaviour != FB_NoFix) {
    Guard.emplace(Sources, *Files);
    RefusedFiles = Guard->apply(Errors, Behaviour == FB_FixNotes);
  }
  unsigned WarningsAsErrorsCount = 0;
  if (Format == "text") {
    if (std::optional<ExitCode> Failed = printTextReport(Errors, Context, Behaviour,
                                                         WarningsAsErrorsCount, BaseFS))
      return *Failed;
  } else {
    // The report first: when it cannot be written, nothing is fixed either.
    gradlint::ReportInput In{Errors, Identities, Files->size(), EnabledChecks,
                             Outcome ? &*Outcome : nullptr, &Sources};
    auto Write = [&](raw_ostream &OS) {
      (Format == "json" ? gradlint::writeJsonReport : gradlint::writeSarifReport)(OS, In);
      return Error::success();
    };
    if (Output.empty())
      cantFail(Write(outs()));
    else if (Error E = writeToOutput(Output, Write))
      return usageError("cannot write '" + Output + "': " + toString(std::move(E)));
    outs().flush();
    // handleErrors applies the fixes but also prints text to stdout, where
    // only the report may go.
    if (Behaviour != FB_NoFix) {
      StdoutRedirect ToNull("/dev/null");
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
    printStats(Stats);
    if (OutsideChangedLines)
      errs() << "Suppressed " << OutsideChangedLines << " finding"
             << (OutsideChangedLines == 1 ? "" : "s") << " outside the lines changed since "
             << DiffBase << ".\n";
    if (Outcome)
      printBaselineOutcome(*Outcome);
    if (DisableFixes && (Fix || FixErrors || FixNotes))
      errs() << (ConfigErrors
                     ? "Found configuration errors; fixes have NOT been "
                       "applied.\n"
                     : "Found compiler errors, but -fix-errors was not "
                       "specified.\nFixes have NOT been applied.\n");
  }

  if (ConfigErrors || RefusedFiles)
    return gradlint::ExitUsageError;
  if (CompilerErrors)
    return gradlint::ExitCompilerErrors;
  if (WarningsAsErrorsCount) {
    if (!Quiet)
      errs() << WarningsAsErrorsCount << " warning"
             << (WarningsAsErrorsCount == 1 ? "" : "s")
             << " treated as error"
             << (WarningsAsErrorsCount == 1 ? "" : "s") << "\n";
    return gradlint::ExitFindingsAsErrors;
  }
  if (FailOn == "warning" && !Errors.empty()) {
    if (!Quiet)
      errs() << Errors.size() << " finding" << (Errors.size() == 1 ? "" : "s")
             << " with --fail-on=warning\n";
    return gradlint::ExitFindingsAsErrors;
  }
  return gradlint::ExitClean;
}

} // namespace

int main(int Argc, const char **Argv) {
  InitLLVM X(Argc, Argv);
  // After the stack trace that InitLLVM prints, a crash exits with the
  // documented internal-error status instead of a signal.
  sys::AddSignalHandler([](void *) { _exit(gradlint::ExitInternalError); },
                        nullptr);
  install_fatal_error_handler([](void *, const char *Reason, bool) {
    WithColor::error(errs(), "gradlint") << "internal error: " << Reason
                                         << "\n";
    _exit(gradlint::ExitInternalError);
  });
  return gradlintMain(Argc, Argv);
}
