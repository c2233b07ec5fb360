//===--- Analysis.cpp - the checks over the files of a run ----------------===//

#include "Analysis.h"
#include "Findings.h"
#include "Inputs.h"
#include "gradlint/TidyCompat.h"
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

namespace gradlint {

std::vector<ClangTidyError> analyse(ClangTidyContext &MainContext,
                                    const tooling::CompilationDatabase &Database,
                                    ArrayRef<std::string> Files, const AnalysisSettings &Settings,
                                    ClangTidyStats &Stats) {
  if (Settings.Profile) {
    // One file after another: each prints its own profile table on stderr
    // (as clang-tidy does), and tables from parallel workers would interleave.
    auto BaseFS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::createPhysicalFileSystem());
    std::vector<ClangTidyError> Errors =
        compat::runClangTidy(MainContext, Database, Files, BaseFS, Settings.ApplyAnyFix, true,
                             makeAbsolute(Settings.StoreProfile), Settings.Quiet);
    Stats = MainContext.getStats();
    sortAndDeduplicate(Errors);
    return Errors;
  }
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
      std::vector<ClangTidyError> Errors =
          compat::runClangTidy(Context, Database, Files[I], BaseFS, Settings.ApplyAnyFix, false,
                               "", Settings.Quiet || Workers > 1);
      std::move(Errors.begin(), Errors.end(), std::back_inserter(Out));
    }
  };
  std::vector<std::unique_ptr<ClangTidyContext>> Contexts;
  std::vector<std::vector<ClangTidyError>> Results(Workers);
  std::vector<std::thread> Threads;
  for (unsigned W = 1; W < Workers; ++W) {
    Contexts.push_back(Settings.NewContext());
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

} // namespace gradlint
