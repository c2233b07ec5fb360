//===--- GradlintClangdMain.cpp - clangd with the gradlint checks ---------===//
//
// clangd cannot load clang-tidy plugins, so editors reach gradlint through
// this build of clangd, which is Debian's clangdMain with the gradlint
// module linked in. Everything else is stock clangd, except two decisions
// clangd takes about checks it does not know, which would otherwise keep
// gradlint silent in a project that has no configuration for it:
//
//  - Which checks run. clangd appends its defaults only when the project
//    names no check. gradlint-clangd puts `gradlint-*` first in every
//    file's check list, the way clang-tidy puts its defaults before a
//    `.clang-tidy`: a project's `.clang-tidy` (`-gradlint-<check>`, `-*`)
//    and `.clangd` (`Remove:`) still decide, because they come later.
//  - clangd's fast-check filter (`FastCheckFilter: Strict` by default) runs
//    only checks on its built-in list of measured fast ones. gradlint's
//    checks are measured too (docs/benchmarks.md: within a few percent of a
//    plain parse), so gradlint-clangd reports them as fast.
//
// clangd has no hook for either and installs no headers, so the link wraps
// the two functions that take the decisions (`ld --wrap`, see
// tool/CMakeLists.txt): calls from clangd's own objects reach the functions
// below, which call the originals.
//
//===----------------------------------------------------------------------===//

#include "clang-tidy/ClangTidyOptions.h"
#include "gradlint/LlvmCompat.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace clang::clangd {
int clangdMain(int Argc, char *Argv[]);
// What provideDefaultChecks() returns, as clangd's TidyProvider.h (which
// Debian does not install) declares it: an owning function in LLVM 22, a
// reference to a function in LLVM 19.
#if LLVM_VERSION_MAJOR >= 22
using TidyProvider =
    llvm::unique_function<void(tidy::ClangTidyOptions &, llvm::StringRef) const>;
#else
using TidyProvider = llvm::function_ref<void(tidy::ClangTidyOptions &, llvm::StringRef)>;
#endif
} // namespace clang::clangd

namespace clang::tidy {
// Keeps the gradlint module (checks/GradlintTidyModule.cpp) linked in.
extern volatile int GradlintModuleAnchorSource;
} // namespace clang::tidy

using clang::clangd::TidyProvider;

// The originals, under the names `ld --wrap` gives them.
TidyProvider realProvideDefaultChecks() __asm__(
    "__real__ZN5clang6clangd20provideDefaultChecksEv");
std::optional<bool> realIsFastTidyCheck(llvm::StringRef Check) __asm__(
    "__real__ZN5clang6clangd15isFastTidyCheckEN4llvm9StringRefE");

namespace {
constexpr llvm::StringLiteral GradlintGlob = "gradlint-*";
} // namespace

// clang::clangd::provideDefaultChecks(): clangd's defaults when the project
// names no check, then `gradlint-*` before whatever the file's list holds.
TidyProvider wrapProvideDefaultChecks() __asm__(
    "__wrap__ZN5clang6clangd20provideDefaultChecksEv");
namespace {
void putGradlintFirst(clang::tidy::ClangTidyOptions &Opts) {
  std::string Checks = GradlintGlob.str();
  if (Opts.Checks && !Opts.Checks->empty())
    Checks += "," + *Opts.Checks;
  Opts.Checks = std::move(Checks);
}
} // namespace

TidyProvider wrapProvideDefaultChecks() {
#if LLVM_VERSION_MAJOR >= 22
  return [Defaults = realProvideDefaultChecks()](clang::tidy::ClangTidyOptions &Opts,
                                                 llvm::StringRef File) {
    Defaults(Opts, File);
    putGradlintFirst(Opts);
  };
#else
  // A reference must outlive the call: a function with static storage.
  static const auto Provider = [](clang::tidy::ClangTidyOptions &Opts, llvm::StringRef File) {
    realProvideDefaultChecks()(Opts, File);
    putGradlintFirst(Opts);
  };
  return Provider;
#endif
}

// clang::clangd::isFastTidyCheck(): gradlint's checks are fast.
std::optional<bool> wrapIsFastTidyCheck(llvm::StringRef Check) __asm__(
    "__wrap__ZN5clang6clangd15isFastTidyCheckEN4llvm9StringRefE");
std::optional<bool> wrapIsFastTidyCheck(llvm::StringRef Check) {
  if (Check.starts_with(GradlintGlob.drop_back()))
    return true;
  return realIsFastTidyCheck(Check);
}

int main(int Argc, char *Argv[]) {
  (void)clang::tidy::GradlintModuleAnchorSource;
  return clang::clangd::clangdMain(Argc, Argv);
}
