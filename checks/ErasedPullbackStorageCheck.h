//===--- ErasedPullbackStorageCheck.h - gradlint --------------------------===//

#ifndef GRADLINT_CHECKS_ERASEDPULLBACKSTORAGECHECK_H
#define GRADLINT_CHECKS_ERASEDPULLBACKSTORAGECHECK_H

#include "utils/GradlintCheck.h"
#include "utils/Pullbacks.h"

namespace clang::tidy::gradlint {

/// Flags a pullback closure stored in an erased callable (std::function,
/// std::move_only_function, or a configured type) when its own type would
/// do.
///
/// For the user-facing documentation see:
/// docs/checks/gradlint-erased-pullback-storage.md
class ErasedPullbackStorageCheck : public GradlintCheck {
public:
  ErasedPullbackStorageCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

  bool isErasedCallable(QualType T) const;

private:
  /// What the check makes of one local erased callable.
  struct LocalAnalysis {
    /// A pullback whose every use works with the closure's own type.
    bool Reported = false;
    /// The lambda or function object it holds.
    StoredCallable Callable;
    /// Why calls would compute something else with the closure type.
    std::optional<std::string> Differs;
    /// Another declaration in its declaration statement, whose type `auto`
    /// would change too (`std::function<F> pb = f, other = g;`).
    const NamedDecl *DeclaredWith = nullptr;
    std::vector<FixItHint> Fix;
  };
  /// Whether \p Var is reported, and (with \p WithFix) its fix.
  LocalAnalysis analyzeLocal(const VarDecl *Var, const FunctionDecl *Enclosing,
                             bool WithFix = true) const;
  void checkLocal(const VarDecl *Var, const FunctionDecl *Enclosing);
  void checkReturnedAggregate(const FunctionDecl *Fn);
  void checkReturnType(const FunctionDecl *Fn);
  /// The notes on a function whose result cannot become `auto`: virtual
  /// (overrides return different closures, and a virtual function cannot
  /// deduce), recursive, or defined where callers cannot see it.
  void noteVirtualClosure(const FunctionDecl *Fn);
  /// No fix for a factory of a `mutable` lambda: references to the wrapper
  /// share its state, conversions of the closure would copy it.
  void noteMutableClosure(const StoredCallable &Callable);
  void noteCallsItself(const FunctionDecl *Fn);
  void noteCallersSeeDeclaration(const FunctionDecl *Fn, bool FunctionObject);
  /// Why the closure type would change what calls compute, at the lambda
  /// or the function object.
  void noteSignature(const StoredCallable &Callable, QualType Wrapper, llvm::StringRef Why);

  PullbackNaming Naming;
  const std::string ErasedCallablesOption;
  NamePattern ErasedCallables;
};

} // namespace clang::tidy::gradlint

#endif
