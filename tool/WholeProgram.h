//===--- WholeProgram.h - axis provenance across translation units --------===//
//
// The stage after the analysis: each translation unit's check resolved its
// parameter axes with the calls it could see (AxisFlow.h); here the same
// resolution runs over the facts of every file analysed, so that the notes
// name callers in other files and, when every call in the compilation
// database passes a constant, the fix changes the function and all of its
// callers at once. Such a fix is proved like every other: all its edits
// are applied in memory and every translation unit they touch is parsed
// again; if one does not compile, the fix is withdrawn with the first error,
// and if a call it leaves as written in a function it makes a template
// resolves to another function than it does now (FlowCall), with that call.
// The same facts trace a pullback's type erasure to the file that makes it.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_WHOLEPROGRAM_H
#define GRADLINT_TOOL_WHOLEPROGRAM_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "utils/AxisFlow.h"
#include <functional>
#include <vector>

namespace gradlint {

/// Rewrites the notes and fixes of the parameter-axis findings in Errors
/// whose whole-program resolution differs from their translation unit's.
/// Flows[i] holds the facts of Files[i] (or, when there is one flow for
/// several files, of all of them). A function declared in a file that
/// \p Editable refuses (outside the source root) keeps its signature.
/// Returns how many fixes were withdrawn.
unsigned resolveWholeProgram(std::vector<clang::tidy::ClangTidyError> &Errors,
                             llvm::ArrayRef<clang::tidy::gradlint::UnitFlow> Flows,
                             const clang::tooling::CompilationDatabase &Database,
                             llvm::ArrayRef<std::string> Files,
                             const std::function<bool(llvm::StringRef)> &Editable);

/// Follows the erasures of gradlint-type-erased-pullback findings into the
/// translation units that define the functions they come from: the note on
/// such a function's declaration becomes notes on its definition and on the
/// functions whose erased results it passes on in turn, innermost first.
void traceErasures(std::vector<clang::tidy::ClangTidyError> &Errors,
                   llvm::ArrayRef<clang::tidy::gradlint::UnitFlow> Flows);

} // namespace gradlint

#endif
