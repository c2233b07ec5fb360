//===--- Spelling.h - how gradlint writes names into code and messages ----===//

#ifndef GRADLINT_CHECKS_UTILS_SPELLING_H
#define GRADLINT_CHECKS_UTILS_SPELLING_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include <string>

namespace clang::tidy::gradlint {

/// The policy fixes are spelled with: inline namespaces (std::__1,
/// library ABI tags) and unwritten scopes left out.
PrintingPolicy spellingPolicy(const ASTContext &Ctx);

/// \p D's qualified name as a user writes it: `refcat::cat`, `std::vector`.
std::string qualifiedSpelling(const NamedDecl *D);

/// \p D as a diagnostic's %0 names it, quotes included: `'grow'`, for
/// notes whose text is built before it is emitted (or in another file).
std::string quotedName(const NamedDecl *D);

} // namespace clang::tidy::gradlint

#endif
