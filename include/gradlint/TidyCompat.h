//===--- TidyCompat.h - the clang-tidy library of LLVM 22 and LLVM 19 -----===//
//
// The clang-tidy entry points the gradlint command calls, with one
// signature for both LLVM versions it builds against (see LlvmCompat.h).
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TIDYCOMPAT_H
#define GRADLINT_TIDYCOMPAT_H

#include "gradlint/LlvmCompat.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/ADT/STLExtras.h"
#include <memory>

namespace gradlint::compat {

/// clang::tidy::runClangTidy. \p Quiet (drop clang's "N warnings
/// generated." lines) has no effect with LLVM 19, which always prints them.
inline std::vector<clang::tidy::ClangTidyError>
runClangTidy(clang::tidy::ClangTidyContext &Context,
             const clang::tooling::CompilationDatabase &Compilations,
             llvm::ArrayRef<std::string> InputFiles,
             llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS, bool ApplyAnyFix,
             bool EnableCheckProfile, llvm::StringRef StoreCheckProfile, bool Quiet) {
#if LLVM_VERSION_MAJOR >= 22
  return clang::tidy::runClangTidy(Context, Compilations, InputFiles, std::move(BaseFS),
                                   ApplyAnyFix, EnableCheckProfile, StoreCheckProfile, Quiet);
#else
  (void)Quiet;
  return clang::tidy::runClangTidy(Context, Compilations, InputFiles, std::move(BaseFS),
                                   ApplyAnyFix, EnableCheckProfile, StoreCheckProfile);
#endif
}

/// A context for the checks (no module headers, no custom checks).
inline std::unique_ptr<clang::tidy::ClangTidyContext>
newContext(std::unique_ptr<clang::tidy::ClangTidyOptionsProvider> Provider,
           bool AllowEnablingAnalyzerAlphaCheckers) {
#if LLVM_VERSION_MAJOR >= 22
  return std::make_unique<clang::tidy::ClangTidyContext>(
      std::move(Provider), AllowEnablingAnalyzerAlphaCheckers,
      /*EnableModuleHeadersParsing=*/false, /*ExperimentalCustomChecks=*/false);
#else
  return std::make_unique<clang::tidy::ClangTidyContext>(
      std::move(Provider), AllowEnablingAnalyzerAlphaCheckers,
      /*EnableModuleHeadersParsing=*/false);
#endif
}

inline std::vector<std::string> checkNames(const clang::tidy::ClangTidyOptions &Options,
                                           bool AllowEnablingAnalyzerAlphaCheckers) {
#if LLVM_VERSION_MAJOR >= 22
  return clang::tidy::getCheckNames(Options, AllowEnablingAnalyzerAlphaCheckers, false);
#else
  return clang::tidy::getCheckNames(Options, AllowEnablingAnalyzerAlphaCheckers);
#endif
}

inline clang::tidy::ClangTidyOptions::OptionMap
checkOptions(const clang::tidy::ClangTidyOptions &Options,
             bool AllowEnablingAnalyzerAlphaCheckers) {
#if LLVM_VERSION_MAJOR >= 22
  return clang::tidy::getCheckOptions(Options, AllowEnablingAnalyzerAlphaCheckers, false);
#else
  return clang::tidy::getCheckOptions(Options, AllowEnablingAnalyzerAlphaCheckers);
#endif
}

/// Keeps the check options of the enabled checks (\p EnabledChecks sorted).
inline void filterCheckOptions(clang::tidy::ClangTidyOptions &Options,
                               const std::vector<std::string> &EnabledChecks) {
#if LLVM_VERSION_MAJOR >= 22
  clang::tidy::filterCheckOptions(Options, EnabledChecks);
#else
  clang::tidy::ClangTidyOptions::OptionMap Kept;
  for (const auto &Option : Options.CheckOptions) {
    llvm::StringRef Check = Option.getKey().split('.').first;
    if (llvm::binary_search(EnabledChecks, Check))
      Kept.insert({Option.getKey(), Option.getValue()});
  }
  Options.CheckOptions = std::move(Kept);
#endif
}

} // namespace gradlint::compat

#endif
