//===--- FixBuilder.h - text edits of a fix, in file text only ------------===//

#ifndef GRADLINT_CHECKS_UTILS_FIXBUILDER_H
#define GRADLINT_CHECKS_UTILS_FIXBUILDER_H

#include "utils/Spelling.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/StringExtras.h"
#include "clang/Basic/SourceManager.h"
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

  /// The text of \p R as written in the file; empty when it is not file
  /// text.
  std::string sourceText(SourceRange R) {
    std::optional<CharSourceRange> Range = fileRange(R);
    return Range ? text(*Range).str() : std::string();
  }

  /// \p Base widened to the attribute lists of \p D written just outside
  /// it: `[[nodiscard]]` before a function's specifiers, `int axis
  /// [[maybe_unused]]` after a parameter's name, GNU `__attribute__((...))`
  /// likewise. Attributes inherited from another declaration, implicit ones
  /// and ones in macros do not count; a list spelled another way leaves
  /// \p Base as it is.
  SourceRange withAttributes(const Decl *D, SourceRange Base) {
    SourceLocation Begin = Base.getBegin(), End = Base.getEnd();
    if (Begin.isMacroID() || End.isMacroID())
      return Base;
    for (const Attr *A : D->attrs()) {
      SourceRange R = A->getRange();
      if (A->isImplicit() || A->isInherited() || R.isInvalid() ||
          R.getBegin().isMacroID() || R.getEnd().isMacroID() ||
          SM.getFileID(R.getBegin()) != SM.getFileID(Begin))
        continue;
      if (SM.isBeforeInTranslationUnit(R.getBegin(), Begin)) {
        if (std::optional<SourceLocation> Open = attributeListOpening(R.getBegin()))
          Begin = *Open;
      } else if (SM.isBeforeInTranslationUnit(End, R.getBegin())) {
        if (std::optional<SourceLocation> Close = attributeListClosing(R.getEnd());
            Close && SM.isBeforeInTranslationUnit(End, *Close))
          End = *Close;
      }
    }
    return {Begin, End};
  }

  /// The range to delete so that element \p Index of a comma-separated
  /// list (arguments, parameters) disappears together with one
  /// neighbouring comma.
  std::optional<CharSourceRange> listElementRemoval(llvm::ArrayRef<SourceRange> Items,
                                                    unsigned Index) {
    std::optional<CharSourceRange> Self = fileRange(Items[Index]);
    if (!Self)
      return std::nullopt;
    if (Index + 1 < Items.size()) {
      std::optional<CharSourceRange> Next = fileRange(Items[Index + 1]);
      return Next ? span(Self->getBegin(), Next->getBegin()) : std::nullopt;
    }
    if (Index > 0) {
      std::optional<CharSourceRange> Prev = fileRange(Items[Index - 1]);
      return Prev ? span(Prev->getEnd(), Self->getEnd()) : std::nullopt;
    }
    return Self;
  }

  /// The range to delete so that argument \p Index disappears together with
  /// one neighbouring comma.
  std::optional<CharSourceRange>
  argumentRemoval(llvm::ArrayRef<const Expr *> Args, unsigned Index) {
    llvm::SmallVector<SourceRange, 8> Ranges;
    for (const Expr *Arg : Args)
      Ranges.push_back(Arg->getSourceRange());
    return listElementRemoval(Ranges, Index);
  }

private:
  /// Where the attribute list whose first attribute starts at \p First
  /// opens: its `[[` or `__attribute__((`.
  std::optional<SourceLocation> attributeListOpening(SourceLocation First) {
    bool Invalid = false;
    llvm::StringRef Buffer = SM.getBufferData(SM.getFileID(First), &Invalid);
    if (Invalid)
      return std::nullopt;
    unsigned Offset = SM.getFileOffset(First);
    llvm::StringRef Before = Buffer.take_front(Offset).rtrim();
    if (!Before.consume_back("[[")) {
      if (!Before.consume_back("(("))
        return std::nullopt;
      Before = Before.rtrim();
      if (!Before.consume_back("__attribute__") && !Before.consume_back("__attribute"))
        return std::nullopt;
    }
    return First.getLocWithOffset(static_cast<int>(Before.size()) - static_cast<int>(Offset));
  }
  /// The last token of the attribute list whose last attribute ends with
  /// the token at \p Last: the second `]` of `]]`, or `)` of `))`.
  std::optional<SourceLocation> attributeListClosing(SourceLocation Last) {
    SourceLocation After = Lexer::getLocForEndOfToken(Last, 0, SM, LangOpts);
    bool Invalid = false;
    llvm::StringRef Buffer = SM.getBufferData(SM.getFileID(After), &Invalid);
    if (Invalid || After.isInvalid())
      return std::nullopt;
    llvm::StringRef Rest = Buffer.drop_front(SM.getFileOffset(After));
    llvm::StringRef Trimmed = Rest.ltrim();
    if (!Trimmed.starts_with("]]") && !Trimmed.starts_with("))"))
      return std::nullopt;
    return After.getLocWithOffset(static_cast<int>(Rest.size() - Trimmed.size()) + 1);
  }

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

/// Whether \p S contains a lambda expression.
inline bool containsLambda(const Stmt *S) {
  if (isa<LambdaExpr>(S))
    return true;
  return llvm::any_of(S->children(), [](const Stmt *Child) {
    return Child && containsLambda(Child);
  });
}

/// Whether \p Text, the spelling of \p E, could be read as a type in a
/// template argument list: a template argument that can be a type-id is
/// one, so `cat<int()>` names a function type where `cat(x, int())`
/// passed 0. An explicit conversion that starts with a type name and ends
/// with its parenthesised operand (`int()`, `int(f())`) may; braces
/// (`int{1}`) never do.
inline bool mayReadAsType(const Expr *E, llvm::StringRef Text) {
  E = E->IgnoreImplicit();
  return isa<CXXScalarValueInitExpr, CXXFunctionalCastExpr, CXXTemporaryObjectExpr,
             CXXUnresolvedConstructExpr>(E) &&
         Text.rtrim().ends_with(")");
}

/// The axis as it will be written inside `<...>`. Before C++20 a lambda
/// cannot appear in a template argument, so an integer axis that calls one
/// (`[] { return 1; }()`) is written as its value. A floating-point value
/// that the call converted to the integer parameter (`cat(x, y, 1.9)`) is
/// converted in the text: a template argument takes no such conversion.
inline std::string templateArgumentText(const Expr *Axis, llvm::StringRef AxisText,
                                        const ASTContext &Ctx) {
  if (Axis->getType()->isIntegralOrEnumerationType() &&
      Axis->IgnoreImpCasts()->getType()->isRealFloatingType())
    return "static_cast<" +
           Axis->getType().getUnqualifiedType().getAsString(spellingPolicy(Ctx)) + ">(" +
           AxisText.str() + ")";
  if (!Ctx.getLangOpts().CPlusPlus20 && Axis->getType()->isIntegerType() &&
      containsLambda(Axis))
    if (std::optional<llvm::APSInt> Value = Axis->getIntegerConstantExpr(Ctx))
      return toString(*Value, 10);
  if (hasUnparenthesizedGreater(Axis) || mayReadAsType(Axis, AxisText))
    return ("(" + AxisText + ")").str();
  return AxisText.str();
}

} // namespace clang::tidy::gradlint

#endif
