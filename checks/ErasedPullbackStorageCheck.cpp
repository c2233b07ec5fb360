//===--- ErasedPullbackStorageCheck.cpp - gradlint ------------------------===//
//
// Julia's opaque `∂(λ)`: a pullback closure kept in std::function costs an
// allocation and an indirect call, and hides the closure's result type from
// the compiler, even where nothing needs the erasure. Two places are
// rewritten to the closure's own type (`auto`):
//  * a local variable initialised from the lambda and then only called,
//    copied, moved or returned (never reassigned, never asked for `bool`,
//    never bound to a non-const reference);
//  * the std::function result of an rrule-style function whose returns all
//    produce the same lambda, when callers see the definition.
// Members and containers are not looked at: holding callables of different
// types is what erasure is for.
//
//===----------------------------------------------------------------------===//

#include "ErasedPullbackStorageCheck.h"
#include "utils/ErasedTypes.h"
#include "utils/Pullbacks.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::gradlint {
namespace {

constexpr llvm::StringLiteral DefaultErasedCallables =
    "std::function;std::move_only_function;std::copyable_function";

AST_MATCHER_P(QualType, erasedCallable, const ErasedPullbackStorageCheck *,
              Check) {
  return Check->isErasedCallable(Node);
}

/// The range of the type as written for \p Var, without cv-qualifiers:
/// `const std::function<G(G)> pb` -> `std::function<G(G)>`.
std::optional<CharSourceRange> writtenTypeRange(const VarDecl *Var) {
  TypeSourceInfo *TSI = Var->getTypeSourceInfo();
  if (!TSI)
    return std::nullopt;
  TypeLoc Loc = TSI->getTypeLoc().getUnqualifiedLoc();
  SourceRange Range = Loc.getSourceRange();
  if (Range.isInvalid() || Range.getBegin().isMacroID() ||
      Range.getEnd().isMacroID())
    return std::nullopt;
  return CharSourceRange::getTokenRange(Range);
}

bool isOnlyDeclarationInStatement(const VarDecl *Var, const Stmt *Body) {
  bool Alone = false;
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *Var;
    bool &Alone;
    Finder(const VarDecl *Var, bool &Alone) : Var(Var), Alone(Alone) {}
    bool VisitDeclStmt(DeclStmt *S) {
      for (const Decl *D : S->decls())
        if (D == Var)
          Alone = S->isSingleDecl();
      return true;
    }
  } F(Var, Alone);
  F.TraverseStmt(const_cast<Stmt *>(Body));
  return Alone;
}

} // namespace

ErasedPullbackStorageCheck::ErasedPullbackStorageCheck(StringRef Name,
                                                       ClangTidyContext *Context)
    : GradlintCheck(Name, Context),
      Naming(*this, Options),
      ErasedCallablesOption(
          Options.get("ErasedCallables", DefaultErasedCallables)) {
  ErasedCallables = namePatternOption("ErasedCallables", ErasedCallablesOption);
}

void ErasedPullbackStorageCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Naming.store(Options, Opts);
  Options.store(Opts, "ErasedCallables", ErasedCallablesOption);
}

bool ErasedPullbackStorageCheck::isErasedCallable(QualType T) const {
  std::string Name = qualifiedClassName(T);
  return !Name.empty() && ErasedCallables.matches(Name);
}

void ErasedPullbackStorageCheck::registerMatchers(MatchFinder *Finder) {
  auto UserCode = unless(isExpansionInSystemHeader());
  Finder->addMatcher(
      varDecl(UserCode, hasLocalStorage(), unless(parmVarDecl()),
              hasType(qualType(erasedCallable(this))), hasInitializer(expr()))
          .bind("local"),
      this);
  Finder->addMatcher(functionDecl(UserCode, isDefinition(),
                                  anyOf(rruleDecl(&Naming), pullbackDecl(&Naming)),
                                  returns(qualType(erasedCallable(this))))
                         .bind("fn"),
                     this);
}

void ErasedPullbackStorageCheck::check(const MatchFinder::MatchResult &Result) {
  if (const auto *Var = Result.Nodes.getNodeAs<VarDecl>("local")) {
    // The enclosing function from the declaration context: no parent map.
    if (const auto *Enclosing =
            dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod()))
      checkLocal(Var, Enclosing);
  } else if (const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn"))
    checkReturnType(Fn);
}

void ErasedPullbackStorageCheck::checkLocal(const VarDecl *Var,
                                            const FunctionDecl *Enclosing) {
  if (Var->getType()->isReferenceType() || !lambdaOf(Var->getInit()) ||
      Enclosing->isTemplateInstantiation())
    return;
  // A pullback: by name or annotation, or returned by an rrule.
  bool IsPullback = Naming.isPullback(*Var);
  if (!IsPullback && Naming.isRRule(*Enclosing))
    for (const ReturnStmt *Return : returnsOf(Enclosing))
      if (const Expr *Value = Return->getRetValue())
        for (const Expr *Element : rrulePullbackElements(Value))
          IsPullback |= localVariableOf(Element) == Var;
  if (!IsPullback)
    return;
  Stmt *Body = Enclosing->getBody();
  ClosureUseSummary Uses = closureUses(Var, Body);
  if (!Uses.OnlyClosureUses)
    return; // the erasure is needed
  const LambdaExpr *Lambda = lambdaOf(Var->getInit());
  std::optional<std::string> Differs =
      closureSignatureDiffers(Var->getType(), Lambda, &Uses.Calls);
  std::vector<FixItHint> Fix;
  std::optional<CharSourceRange> Type = writtenTypeRange(Var);
  const SourceManager &SM = Var->getASTContext().getSourceManager();
  if (Differs) {
    // No fix: `auto` would change what the calls compute.
  } else if (Var->getType()->getContainedDeducedType()) {
    // `auto pb = std::function<...>(lambda)`: the conversion is the erasure.
    if (std::optional<FixItHint> Drop = dropExplicitConversion(Var->getInit(), SM, getLangOpts()))
      Fix.push_back(*Drop);
  } else if (Type && isOnlyDeclarationInStatement(Var, Body)) {
    Fix.push_back(FixItHint::CreateReplacement(*Type, "auto"));
  }
  report(Var->getASTContext(), std::move(Fix),
         [this, Var, Lambda, Differs](llvm::ArrayRef<FixItHint> Hints,
                                      const ProofOutcome &Proof) {
           diag(Var->getLocation(),
                "pullback %0 is stored in %1; its closure type would do")
               << Var << Var->getType() << Hints;
           if (Differs)
             noteSignature(Lambda, Var->getType(), *Differs);
           noteWithdrawn(Var->getLocation(), Proof);
         });
}

void ErasedPullbackStorageCheck::noteSignature(const LambdaExpr *Lambda, QualType Wrapper,
                                               llvm::StringRef Why) {
  diag(Lambda->getBeginLoc(),
       "no fix: with the closure type, calls would not convert as %0 does (%1); "
       "give the lambda the signature's parameter and result types first",
       DiagnosticIDs::Note)
      << Wrapper << Why;
}

void ErasedPullbackStorageCheck::checkReturnType(const FunctionDecl *Fn) {
  if (Fn->isTemplateInstantiation())
    return; // the template itself is checked
  const LambdaExpr *Lambda = singleReturnedLambda(Fn);
  if (!Lambda)
    return; // the erasure joins different callables, or holds no lambda
  std::vector<const ReturnStmt *> Returns = returnsOf(Fn);
  const SourceManager &SM = Fn->getASTContext().getSourceManager();
  SourceRange ReturnType = Fn->getReturnTypeSourceRange();
  auto Report = [this, Fn] {
    return diag(Fn->getLocation(), "%0 returns its pullback as %1; its "
                                   "closure type would do")
           << Fn << Fn->getReturnType();
  };
  if (isVirtualMethod(Fn)) {
    Report();
    noteVirtual(Fn->getLocation(), Fn);
    return;
  }
  if (callsItself(Fn)) {
    Report();
    diag(Fn->getLocation(),
         "no fix: %0 calls itself, so its result type must be known before "
         "its body is: a deduced 'auto' is not",
         DiagnosticIDs::Note)
        << Fn;
    return;
  }
  if (std::optional<std::string> Differs =
          closureSignatureDiffers(Fn->getReturnType(), Lambda, nullptr)) {
    Report();
    noteSignature(Lambda, Fn->getReturnType(), *Differs);
    return;
  }
  if (!callersSeeDefinition(Fn)) {
    Report();
    diag(Fn->getLocation(),
         "callers in other translation units see only the declaration of %0; "
         "define it inline (in a header) to return the closure type",
         DiagnosticIDs::Note)
        << Fn;
    return;
  }
  std::vector<FixItHint> Fix;
  if (resultTypeEditable(Fn)) {
    Fix.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(ReturnType), "auto"));
    // `return std::function<G(G)>(back);` would still return the erased
    // type: return what the conversion converts, as written (never a copy
    // of the lambda's text, which would run its captures twice).
    for (const ReturnStmt *Return : Returns)
      if (std::optional<FixItHint> Drop =
              dropExplicitConversion(Return->getRetValue(), SM, getLangOpts()))
        Fix.push_back(*Drop);
  }
  report(Fn->getASTContext(), std::move(Fix),
         [this, Fn, Report](llvm::ArrayRef<FixItHint> Hints,
                            const ProofOutcome &Proof) {
           Report() << Hints;
           noteWithdrawn(Fn->getLocation(), Proof);
         });
}

} // namespace clang::tidy::gradlint
