//===--- GradlintTidyModule.cpp - gradlint --------------------------------===//
//
// Registers every gradlint check with the clang-tidy framework under the
// module name `gradlint`. Each front end (the gradlint command, the
// clang-tidy plugin, gradlint-clangd) links this library and references
// GradlintModuleAnchorSource so the static registration survives linking.
//
//===----------------------------------------------------------------------===//

#include "ErasedPullbackStorageCheck.h"
#include "RuntimeConcatAxisCheck.h"
#include "TypeErasedPullbackCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "gradlint/LlvmCompat.h"
#if LLVM_VERSION_MAJOR < 22
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif

namespace clang::tidy {
namespace gradlint {

class GradlintModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<ErasedPullbackStorageCheck>(
        "gradlint-erased-pullback-storage");
    Factories.registerCheck<RuntimeConcatAxisCheck>(
        "gradlint-runtime-concat-axis");
    Factories.registerCheck<TypeErasedPullbackCheck>(
        "gradlint-type-erased-pullback");
  }
};

} // namespace gradlint

static ClangTidyModuleRegistry::Add<gradlint::GradlintModule>
    X("gradlint-module", "Adds gradlint's type-stability checks.");

// This anchor is used to force the linker to link in the generated object
// file and thus register the GradlintModule.
volatile int GradlintModuleAnchorSource = 0; // NOLINT(misc-use-internal-linkage)

} // namespace clang::tidy
