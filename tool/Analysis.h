//===--- Analysis.h - the checks over the files of a run ------------------===//
//
// The analysis stage of the gradlint command: the clang-tidy checks over
// each file, on several threads, with one context per thread.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_ANALYSIS_H
#define GRADLINT_TOOL_ANALYSIS_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "utils/AxisFlow.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gradlint {

class ResultCache;

struct AnalysisSettings {
  /// Files analysed at once (at most one per file).
  unsigned Workers = 1;
  /// Keep the fixes of notes too (--fix-notes).
  bool ApplyAnyFix = false;
  /// No clang "N warnings generated." lines (--quiet).
  bool Quiet = false;
  /// --enable-check-profile: one file after another, each printing its
  /// profile table (or storing it in StoreProfile).
  bool Profile = false;
  std::string StoreProfile;
  /// A context for each worker but the first, configured as the main one.
  std::function<std::unique_ptr<clang::tidy::ClangTidyContext>()> NewContext;
  /// With --cache-dir: unchanged files' results come from there (not with
  /// Profile), and fresh ones go there. CacheFlags: the settings outside
  /// the configuration that change findings, as text for the cache key.
  ResultCache *Cache = nullptr;
  std::string CacheFlags;
  /// When set: each file's whole-program facts (AxisFlow.h), one per file
  /// analysed (one for all of them with Profile).
  std::vector<clang::tidy::gradlint::UnitFlow> *Flows = nullptr;
};

/// Runs the checks over Files with Settings.Workers threads, each with its
/// own context; the main context analyses the first file, so its per-file
/// options are set for handleErrors. Shows `[i/n] file` on stderr when that
/// is a terminal. Returns every worker's results, sorted and de-duplicated
/// (see sortAndDeduplicate); Stats gets their sum.
std::vector<clang::tidy::ClangTidyError>
analyse(clang::tidy::ClangTidyContext &MainContext,
        const clang::tooling::CompilationDatabase &Database, llvm::ArrayRef<std::string> Files,
        const AnalysisSettings &Settings, clang::tidy::ClangTidyStats &Stats);

} // namespace gradlint

#endif
