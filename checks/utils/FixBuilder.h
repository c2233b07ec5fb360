//===--- FixBuilder.h - text edits of a fix, in file text only ------------===//

#ifndef GRADLINT_CHECKS_UTILS_FIXBUILDER_H
#define GRADLINT_CHECKS_UTILS_FIXBUILDER_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/Lex/Lexer.h"
#include <optional>
#include <string>

namespace clang::tidy::gradlint {

/// Builds the text edits of one fix; any location that is not plain file
/// text (a macro expansion) makes the whole fix unavailable.
class FixBuilder {
public:
  FixBuilder(const ASTContext &Ctx)
      : SM(Ctx.getSourceManager()), LangOpts(Ctx.getLangOpts()) {}

  std::optional<CharSourceRange> fileRange(SourceRange R) {
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(R), SM, LangOpts);
    if (Range.isInvalid())
      return std::nullopt;
    return Range;
  }
  llvm::StringRef text(CharSourceRange R) {
    return Lexer::getSourceText(R, SM, LangOpts);
  }
  std::optional<CharSourceRange> span(SourceLocation Begin,
                                      SourceLocation End) {
    if (Begin.isMacroID() || End.isMacroID())
      return std::nullopt;
    return CharSourceRange::getCharRange(Begin, End);
  }

  /// The range to delete so that argument \p Index disappears together with
  /// one neighbouring comma.
  std::optional<CharSourceRange>
  argumentRemoval(llvm::ArrayRef<const Expr *> Args, unsigned Index) {
    std::optional<CharSourceRange> Self = fileRange(Args[Index]->getSourceRange());
    if (!Self)
      return std::nullopt;
    if (Index + 1 < Args.size()) {
      std::optional<CharSourceRange> Next =
          fileRange(Args[Index + 1]->getSourceRange());
      return Next ? span(Self->getBegin(), Next->getBegin()) : std::nullopt;
    }
    if (Index > 0) {
      std::optional<CharSourceRange> Prev =
          fileRange(Args[Index - 1]->getSourceRange());
      return Prev ? span(Prev->getEnd(), Self->getEnd()) : std::nullopt;
    }
    return Self;
  }

private:
  const SourceManager &SM;
  const LangOptions &LangOpts;
};

/// Whether \p S has a `>` or `>>` outside any parentheses, which would end a
/// template argument list early.
inline bool hasUnparenthesizedGreater(const Stmt *S) {
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    if (BO->getOpcode() == BO_GT || BO->getOpcode() == BO_Shr)
      return true;
  if (isa<ParenExpr, CallExpr>(S))
    return false;
  return llvm::any_of(S->children(), [](const Stmt *Child) {
    return Child && hasUnparenthesizedGreater(Child);
  });
}

/// The axis as it will be written inside `<...>`.
inline std::string templateArgumentText(const Expr *Axis, llvm::StringRef AxisText) {
  if (hasUnparenthesizedGreater(Axis))
    return ("(" + AxisText + ")").str();
  return AxisText.str();
}

} // namespace clang::tidy::gradlint

#endif
