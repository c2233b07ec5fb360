//===--- Spelling.h - how gradlint writes names into code and messages ----===//

#ifndef GRADLINT_CHECKS_UTILS_SPELLING_H
#define GRADLINT_CHECKS_UTILS_SPELLING_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/Diagnostic.h"
#include <optional>
#include <string>

namespace clang::tidy::gradlint {

/// The policy fixes are spelled with: inline namespaces (std::__1,
/// library ABI tags) and unwritten scopes left out.
PrintingPolicy spellingPolicy(const ASTContext &Ctx);

/// \p T spelled with the aliases it was written with (`std::string`,
/// `std::int64_t`, `Grad`), fully qualified, where every alias that would be
/// written names the same type wherever the fix goes: none local to a
/// function, none private or protected, none reserved to the implementation
/// (`_NonArray`, `__int64_t`), no decltype. The aliases keep a fix portable:
/// `std::int64_t` is `long` here and `long long` elsewhere. nullopt when
/// \p T has no such alias, or one is unsafe (spell the canonical type then).
std::optional<std::string> aliasSpelling(QualType T, const ASTContext &Ctx,
                                         const PrintingPolicy &Policy);

/// \p D's qualified name as a user writes it: `refcat::cat`, `std::vector`.
std::string qualifiedSpelling(const NamedDecl *D);

/// \p D's qualified name as options name it: as qualifiedSpelling, but
/// the enclosing classes without template arguments, so that one entry
/// covers every specialization (`lib::Tensor::join` for the member
/// `join` of `lib::Tensor<float, 2>`, or of a partial specialization);
/// inline and anonymous namespaces left out.
std::string optionName(const NamedDecl *D);

/// \p D as a diagnostic's %0 names it, quotes included: `'grow'`, for
/// notes whose text is built before it is emitted (or in another file).
std::string quotedName(const NamedDecl *D);

/// A fix-it that replaces \p Range by \p Text, with a space added where
/// the text would otherwise run into the next (or previous) token: `auto`
/// for the `void *` of `void *get_ptr()` must not give `autoget_ptr()`.
FixItHint replacementApart(CharSourceRange Range, std::string Text, const SourceManager &SM,
                           const LangOptions &LO);

} // namespace clang::tidy::gradlint

#endif
