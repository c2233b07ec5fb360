//===--- TypeErasedPullbackCheck.h - gradlint -----------------------------===//

#ifndef GRADLINT_CHECKS_TYPEERASEDPULLBACKCHECK_H
#define GRADLINT_CHECKS_TYPEERASEDPULLBACKCHECK_H

#include "utils/AxisFlow.h"
#include "utils/ErasedTypes.h"
#include "utils/NamePattern.h"
#include "utils/OptionLists.h"
#include "utils/Pullbacks.h"
#include "utils/GradlintCheck.h"
#include "llvm/ADT/MapVector.h"

namespace clang::tidy::gradlint {

class ReturnAnalyzer;
struct Concrete;

/// Flags a pullback whose declared or deduced result is, or contains, a
/// type-erased type.
///
/// For the user-facing documentation see:
/// docs/checks/gradlint-type-erased-pullback.md
class TypeErasedPullbackCheck : public GradlintCheck {
public:
  TypeErasedPullbackCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void finishTranslationUnit() override;

  bool mayBeRegistration(llvm::StringRef Name) const {
    return Registrations.mayMatch(Name);
  }

private:
  /// A recognised pullback: a function, or a lambda (Function is then its
  /// call operator) with the variable holding it, if any.
  struct Pullback {
    const FunctionDecl *Function = nullptr;
    const LambdaExpr *Lambda = nullptr;
    const VarDecl *Holder = nullptr;
  };

  struct ReturnSummary;
  /// What the returns of \p Fn, declared to return \p Result, produce.
  ReturnSummary summarizeReturns(const FunctionDecl *Fn, QualType Result) const;

  /// A use of the result the fix cannot rewrite, and why (empty: written
  /// in a macro, or in a form the check does not rewrite).
  struct Unrewritten {
    const Expr *Use = nullptr;
    std::string Why;
  };

  /// The edits that callers of \p Fn need once it returns the concrete
  /// \p Type (casts dropped; `has_value()`, `type()` and
  /// `holds_alternative<T>` answered; `std::visit(f, g)` calling `f`
  /// directly), appended to \p Hints; false when one
  /// is written in a macro or cannot be answered (then \p Skipped says
  /// which and why). What each dropped cast
  /// keeps, and the type the cast asks for, is added to \p Claims' Types:
  /// the proof holds the fix to it (a cast to a type the value does not
  /// have fails today; without it the value would flow on); each replaced
  /// std::visit call to its Replaced.
  bool callerEdits(const FunctionDecl *Fn, const Concrete &Type, ReturnAnalyzer &Analyzer,
                   std::vector<FixItHint> &Hints, FixClaims &Claims,
                   Unrewritten *Skipped = nullptr) const;

  /// The uses of the local \p Named (a variable or a structured binding),
  /// in the function it is declared in, that may empty it or give it
  /// another value (`std::move(g)`, an assignment, a non-const member
  /// function, a non-const reference or pointer to it), or do so to one of
  /// its elements (`std::move(g[0])`), each with how, in the order written.
  /// Reading what it holds, through a cast included, does not.
  struct Change {
    const Expr *Use = nullptr;
    const char *How = nullptr;
  };
  std::vector<Change> changesOf(const ValueDecl *Named) const;

  /// Whether the copy the by-value cast \p Cast makes can be told from
  /// the value it copies: it is modified (`std::any_cast<T>(g).scale(2)`,
  /// passed to a non-const reference, a forwarding one included) or
  /// outlives the expression (`auto &&r = std::any_cast<T>(g);`, a
  /// range-for over it). Without the cast, g itself would be.
  bool copyMatters(const CallExpr *Cast) const;

  /// A virtual pullback and the functions it overrides or that override
  /// it, all changed in one fix when every one of them is in this file.
  struct Hierarchy {
    /// The finding that carries the fix: the first of the hierarchy's.
    const FunctionDecl *Leader = nullptr;
    /// Every result type, return and caller's cast of the hierarchy; empty
    /// when it cannot change (Why says why, when the reason is not only
    /// that the function is virtual).
    std::vector<FixItHint> Fix;
    std::string Why;
    std::vector<const Decl *> Members;
    /// What the fix must hold to: the members' results change, and the
    /// casts dropped keep values of the concrete types.
    FixClaims Claims;
  };
  /// The hierarchy of \p M, whose returns produce the concrete \p Type.
  const Hierarchy &hierarchyOf(const CXXMethodDecl *M, const Concrete &Type);

  void addLambda(const LambdaExpr *Lambda, const VarDecl *Holder);
  void addRRuleResults(const FunctionDecl *RRule);
  void analyze(const Pullback &P);
  /// The function a call runs: its callee, or, for a call through an erased
  /// callable, the lambda it holds when that is certain and the callable's
  /// type is about to become the closure type. That is a local `auto pb =
  /// make_pullback(...)`, only called, copied, moved or returned after
  /// (onlyClosureUses), where make_pullback returns
  /// one lambda as an erased callable that gradlint-erased-pullback-storage
  /// (when it runs too) rewrites to `auto` (closureResultBecomesAuto); the
  /// std::any_casts of such calls go with the lambda's erased result.
  const FunctionDecl *calledFunction(const CallExpr *Call) const;
  /// The call whose erased result a return of \p Def passes on, if any.
  const CallExpr *passedOnCall(const FunctionDecl *Def) const;
  /// "the erasure comes from 'f', which returns 'std::any'".
  std::string erasureNote(const FunctionDecl *Callee) const;

  const std::string RegistrationFunctionsOption;
  const std::string ErasedTypesOption;
  const std::string TensorTypesOption;

  PullbackNaming Naming;
  FunctionArgumentList Registrations;
  ErasedTypeClassifier Classifier;
  /// gradlint-erased-pullback-storage runs too: the std::function that
  /// pullback factories return becomes their closure type.
  bool StorageCheckEnabled;

  // Per translation unit: pullbacks in the order found (deterministic
  // output), and the std::any_cast calls a fix may have to remove -- as
  // found, then (at the end of the unit) by the function whose result they
  // cast, so that each pullback looks only at its own.
  llvm::MapVector<const FunctionDecl *, Pullback> Pullbacks;
  /// Methods named like pullbacks that override another (first
  /// declarations), and the hierarchies worked out so far, by their top.
  std::vector<const CXXMethodDecl *> Overrides;
  llvm::DenseMap<const CXXMethodDecl *, Hierarchy> Hierarchies;
  std::vector<const CallExpr *> AnyCasts;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const CallExpr *, 2>> AnyCastsOf;
  /// `*std::any_cast<T>(&h)`: the whole dereference becomes `h`.
  llvm::DenseMap<const CallExpr *, const UnaryOperator *> DereferencedCasts;
  /// `h.has_value()`, `h.type()`, `std::holds_alternative<T>(h)` on a
  /// local holding a pullback's result, and by the function whose result
  /// they ask about.
  std::vector<const CallExpr *> Queries;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const CallExpr *, 2>> QueriesOf;
  /// `std::visit(f, h)` of such a local, or of the call itself, and by the
  /// function whose result it visits.
  std::vector<const CallExpr *> Visits;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const CallExpr *, 2>> VisitsOf;
  ASTContext *Context = nullptr;
  /// Where the gradlint command collects the facts that trace an erasure
  /// into other translation units (AxisFlow.h); null in other front ends.
  UnitFlow *Sink;
};

} // namespace clang::tidy::gradlint

#endif
