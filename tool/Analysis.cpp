//===--- Analysis.cpp - the checks over the files of a run ----------------===//

#include "Analysis.h"
#include "Cache.h"
#include "Findings.h"
#include "Inputs.h"
#include "gradlint/TidyCompat.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <atomic>
#include <mutex>
#include <numeric>
#include <thread>

using namespace llvm;
using namespace clang;
using namespace clang::tidy;
namespace flow = clang::tidy::gradlint;

namespace gradlint {
namespace {

void addStats(ClangTidyStats &Sum, const ClangTidyStats &S) {
  Sum.ErrorsDisplayed += S.ErrorsDisplayed;
  Sum.ErrorsIgnoredCheckFilter += S.ErrorsIgnoredCheckFilter;
  Sum.ErrorsIgnoredNOLINT += S.ErrorsIgnoredNOLINT;
  Sum.ErrorsIgnoredNonUserCode += S.ErrorsIgnoredNonUserCode;
  Sum.ErrorsIgnoredLineFilter += S.ErrorsIgnoredLineFilter;
}

/// What a context counted between Before and After.
ClangTidyStats statsSince(const ClangTidyStats &Before, const ClangTidyStats &After) {
  ClangTidyStats D;
  D.ErrorsDisplayed = After.ErrorsDisplayed - Before.ErrorsDisplayed;
  D.ErrorsIgnoredCheckFilter = After.ErrorsIgnoredCheckFilter - Before.ErrorsIgnoredCheckFilter;
  D.ErrorsIgnoredNOLINT = After.ErrorsIgnoredNOLINT - Before.ErrorsIgnoredNOLINT;
  D.ErrorsIgnoredNonUserCode = After.ErrorsIgnoredNonUserCode - Before.ErrorsIgnoredNonUserCode;
  D.ErrorsIgnoredLineFilter = After.ErrorsIgnoredLineFilter - Before.ErrorsIgnoredLineFilter;
  return D;
}

/// While it lives, the checks created for analyses with Context record
/// their whole-program facts into Flow.
class FlowCollection {
public:
  FlowCollection(const ClangTidyContext &Context, flow::UnitFlow &Flow) : Context(&Context) {
    flow::FlowSink::attach(this->Context, &Flow);
  }
  ~FlowCollection() { flow::FlowSink::detach(Context); }
  FlowCollection(const FlowCollection &) = delete;
  FlowCollection &operator=(const FlowCollection &) = delete;

private:
  const ClangTidyContext *Context;
};

} // namespace

std::vector<ClangTidyError> analyse(ClangTidyContext &MainContext,
                                    const tooling::CompilationDatabase &Database,
                                    ArrayRef<std::string> Files, const AnalysisSettings &Settings,
                                    ClangTidyStats &Stats) {
  if (Settings.Profile) {
    // One file after another: each prints its own profile table on stderr
    // (as clang-tidy does), and tables from parallel workers would interleave.
    auto BaseFS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::createPhysicalFileSystem());
    flow::UnitFlow Flow;
    std::optional<FlowCollection> Collecting;
    if (Settings.Flows)
      Collecting.emplace(MainContext, Flow);
    std::vector<ClangTidyError> Errors =
        compat::runClangTidy(MainContext, Database, Files, BaseFS, Settings.ApplyAnyFix, true,
                             makeAbsolute(Settings.StoreProfile), Settings.Quiet);
    Collecting.reset();
    if (Settings.Flows)
      Settings.Flows->push_back(std::move(Flow));
    Stats = MainContext.getStats();
    sortAndDeduplicate(Errors);
    return Errors;
  }
  if (Files.empty()) // an empty shard
    return {};
  const unsigned Workers = std::max(1u, std::min<unsigned>(Settings.Workers, Files.size()));
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
  ResultCache *Cache = Settings.Cache;
  // With a cache, clang's per-file "N warnings generated." lines go, as in
  // parallel runs (where they would interleave): a file from the cache has
  // none, and the output does not depend on what the cache held.
  const bool QuietParse = Settings.Quiet || Workers > 1 || Cache;
  // What each worker counted beside its first context: the results it took
  // from the cache, and the contexts it made for later parses.
  std::vector<ClangTidyStats> WorkerStats(Workers);
  std::atomic<bool> MainAnalysed = false;
  std::vector<flow::UnitFlow> Flows(Settings.Flows ? Files.size() : 0);
  auto Work = [&](ClangTidyContext &FirstContext, std::vector<ClangTidyError> &Out, size_t First,
                  ClangTidyStats &Counted) {
    // Each worker's own working directory: the process-wide one, which
    // getRealFileSystem() changes for each compile command, would be shared.
    auto BaseFS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::createPhysicalFileSystem());
    // A context parses one file: the worker's first context its first
    // file, and each later file that is parsed (not from the cache) a
    // context of its own. A context remembers which check each diagnostic
    // ID belongs to for as long as it lives, but each runClangTidy numbers
    // its checks' IDs afresh: a later file's finding would be printed,
    // filtered (NOLINT, --checks) and reported under the check that had
    // its ID in an earlier file (`... [gradlint-runtime-concat-axis]
    // [gradlint-erased-pullback-storage]`).
    std::unique_ptr<ClangTidyContext> Later;
    auto ContextForParse = [&](size_t K) -> ClangTidyContext & {
      if (K == First)
        return FirstContext;
      if (Later)
        addStats(Counted, Later->getStats());
      Later = Settings.NewContext();
      return *Later;
    };
    for (size_t K = First; K < Files.size(); K = Next++) {
      size_t I = Order[K];
      if (Progress) {
        std::lock_guard<std::mutex> Guard(ProgressLock);
        errs() << "[" << K + 1 << "/" << Files.size() << "] " << Files[I] << "\n";
      }
      std::optional<FlowCollection> Collecting;
      if (!Cache) {
        ClangTidyContext &Context = ContextForParse(K);
        if (Settings.Flows)
          Collecting.emplace(Context, Flows[I]);
        std::vector<ClangTidyError> Errors = compat::runClangTidy(
            Context, Database, Files[I], BaseFS, Settings.ApplyAnyFix, false, "", QuietParse);
        std::move(Errors.begin(), Errors.end(), std::back_inserter(Out));
        continue;
      }
      std::string Key =
          Cache->key(Files[I], Database.getCompileCommands(Files[I]),
                     configurationAsText(FirstContext.getOptionsForFile(makeAbsolute(Files[I]))),
                     Settings.CacheFlags);
      if (std::optional<UnitResult> Hit = Cache->lookup(Key)) {
        std::move(Hit->Errors.begin(), Hit->Errors.end(), std::back_inserter(Out));
        addStats(Counted, Hit->Stats);
        if (Settings.Flows)
          Flows[I] = std::move(Hit->Flow);
        continue;
      }
      // A file system of its own records what this file's analysis reads.
      auto Recording = makeIntrusiveRefCnt<RecordingFileSystem>(vfs::createPhysicalFileSystem());
      auto FS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(Recording);
      ClangTidyContext &Context = ContextForParse(K);
      ClangTidyStats Before = Context.getStats();
      UnitResult Fresh;
      // Collected whether or not this run wants them: the entry serves both.
      Collecting.emplace(Context, Fresh.Flow);
      Fresh.Errors = compat::runClangTidy(Context, Database, Files[I], FS, Settings.ApplyAnyFix,
                                          false, "", QuietParse);
      Collecting.reset();
      Fresh.Stats = statsSince(Before, Context.getStats());
      if (&Context == &MainContext)
        MainAnalysed = true;
      Cache->store(Key, Fresh, *Recording);
      std::move(Fresh.Errors.begin(), Fresh.Errors.end(), std::back_inserter(Out));
      if (Settings.Flows)
        Flows[I] = std::move(Fresh.Flow);
    }
    if (Later)
      addStats(Counted, Later->getStats());
  };
  std::vector<std::unique_ptr<ClangTidyContext>> Contexts;
  std::vector<std::vector<ClangTidyError>> Results(Workers);
  std::vector<std::thread> Threads;
  for (unsigned W = 1; W < Workers; ++W) {
    Contexts.push_back(Settings.NewContext());
    Threads.emplace_back(Work, std::ref(*Contexts.back()), std::ref(Results[W]), Next++,
                         std::ref(WorkerStats[W]));
  }
  Work(MainContext, Results[0], 0, WorkerStats[0]);
  for (std::thread &T : Threads)
    T.join();

  // The main context's options are those of its first file, as after a
  // fresh analysis, when every file it had came from the cache.
  if (Cache && !MainAnalysed)
    MainContext.setCurrentFile(makeAbsolute(Files[Order[0]]));
  Stats = MainContext.getStats();
  for (const auto &Context : Contexts)
    addStats(Stats, Context->getStats());
  for (const ClangTidyStats &S : WorkerStats)
    addStats(Stats, S);
  std::vector<ClangTidyError> Errors;
  for (auto &R : Results)
    std::move(R.begin(), R.end(), std::back_inserter(Errors));
  sortAndDeduplicate(Errors);
  if (Settings.Flows)
    std::move(Flows.begin(), Flows.end(), std::back_inserter(*Settings.Flows));
  return Errors;
}

} // namespace gradlint
