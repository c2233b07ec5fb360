//===--- Pullbacks.h - recognise pullbacks --------------------------------===//
//
// A pullback is the backward function of an operation. gradlint recognises
// one in four ways, each configurable:
//  1. by name: a function, method or lambda (through the variable holding
//     it) named like `pullback`, `backward`, `vjp`, `*_pullback`, ...;
//  2. as the callable an rrule-style function returns: any element of the
//     returned pair, tuple, struct or braced list that is a closure;
//  3. as the callable passed to a registration function (`tape.record(op,
//     pullback)`, configured as `function:argument-index`);
//  4. by the annotation [[clang::annotate("gradlint::pullback")]].
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_PULLBACKS_H
#define GRADLINT_CHECKS_UTILS_PULLBACKS_H

#include "utils/GradlintCheck.h"
#include "utils/NamePattern.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::gradlint {

inline constexpr llvm::StringLiteral PullbackAnnotation = "gradlint::pullback";
inline constexpr llvm::StringLiteral DefaultPullbackNames =
    "pullback;backward;vjp;grad_fn;*_pullback;*_backward;*Backward";
inline constexpr llvm::StringLiteral DefaultRRuleNames =
    "rrule;rrule_*;*_rrule;vjp_rule";

/// Strips what does not change which value an expression denotes:
/// parentheses, implicit casts, temporaries, full-expression cleanups. With
/// \p KeepConversions, only the implicit casts that keep the type (a load,
/// an added `const`): `a * 2.0f` stored as a double stays a float.
const Expr *stripTemporaries(const Expr *E, bool KeepConversions = false);

/// Whether \p FD is a function of namespace std named one of \p Names
/// (std::move, std::make_tuple, ...).
bool isStdFunction(const FunctionDecl *FD, std::initializer_list<llvm::StringRef> Names);

/// Whether \p D carries [[clang::annotate("gradlint::pullback")]].
bool hasPullbackAnnotation(const Decl *D);

/// The PullbackNames and RRuleNames options that both pullback checks read
/// (as local or global options, so that one setting serves both).
class PullbackNaming {
public:
  PullbackNaming(GradlintCheck &Check,
                 const ClangTidyCheck::OptionsView &Options);
  void store(const ClangTidyCheck::OptionsView &Options,
             ClangTidyOptions::OptionMap &Opts) const;

  /// Named like a pullback (function, method, variable, member).
  bool isNamedLikePullback(const NamedDecl &D) const {
    return D.getIdentifier() && Names.matches(D.getName());
  }
  /// Named like a pullback or annotated as one.
  bool isPullback(const NamedDecl &D) const {
    return hasPullbackAnnotation(&D) || isNamedLikePullback(D);
  }
  /// Named like an rrule-style function.
  bool isRRule(const NamedDecl &D) const {
    return D.getIdentifier() && RRules.matches(D.getName());
  }

private:
  std::string NamesOption;
  std::string RRulesOption;
  NamePattern Names;
  NamePattern RRules;
};

AST_MATCHER_P(NamedDecl, pullbackDecl, const PullbackNaming *, Naming) {
  return Naming->isPullback(Node);
}

AST_MATCHER_P(NamedDecl, rruleDecl, const PullbackNaming *, Naming) {
  return Naming->isRRule(Node);
}

/// The lambda an expression evaluates to, looking through conversions to an
/// erased callable, temporaries, casts and local variables initialised with
/// it. Null when it is not a lambda. A variable that holds the closure itself
/// (`auto back = [...]`) is always followed; at most \p WrapperHops
/// variables of another type (`Pullback pb = [...]`, whose own rule decides
/// whether it becomes `auto`). `Pullback b = a;` where `a` is such a wrapper
/// holds whatever `a` holds then, and two hops reach no closure type.
const LambdaExpr *lambdaOf(const Expr *E, unsigned WrapperHops = 1);

/// What an erased callable is initialised from where the callable's own type
/// could replace the wrapper: a lambda (lambdaOf), or an object of a user's
/// class with a call operator of its own (a function object: `MulBackward{w}`,
/// `MulBackward(w)`, a local of that class), through the conversion into the
/// wrapper and std::move. Classes of the standard library (std::bind's
/// result, std::reference_wrapper), of system headers and \p Wrapper's own
/// class are not function objects here. \p WrapperHops as for lambdaOf.
struct StoredCallable {
  /// The lambda, or the expression that makes or names the object.
  const Expr *Made = nullptr;
  /// Set when it is a lambda.
  const LambdaExpr *Lambda = nullptr;
  explicit operator bool() const { return Made != nullptr; }
  /// How a call may change the callable's own state, so that a copy of it
  /// would count apart from the original.
  struct StateChange {
    enum Kind {
      None,
      MutableLambda,
      NonConstOperator,
      MutableMember,
      CapturedWrapper,
      /// A wrapper captured by copy (or held in something captured by
      /// copy) whose callable is not followed to where it is made: a
      /// parameter, a member, an element, a call with no visible callable.
      UnseenCapture,
      /// A member of a function object that holds such a wrapper.
      UnseenMember,
    } How = None;
    /// For MutableMember: the `mutable` data member, of the class, a base,
    /// or an object it holds by value (a lambda's capture by copy). For
    /// UnseenMember: the member holding the wrapper.
    const FieldDecl *Member = nullptr;
    /// For CapturedWrapper: the wrapper a lambda captures by copy, which
    /// holds a callable with state of its own. For UnseenCapture: what the
    /// lambda captures (null for `*this`; a structured binding too).
    const ValueDecl *Wrapper = nullptr;
    explicit operator bool() const { return How != None; }
    /// The callable may change its state, and does not only hold a
    /// callable that was not followed.
    bool known() const { return How != None && How != UnseenCapture && How != UnseenMember; }
  };
  /// Whether its call operator may change the callable's state: a `mutable`
  /// lambda, a function object whose call operator is not `const`, one (a
  /// lambda too) that holds a `mutable` member, which a `const` call
  /// operator can change, or a lambda that captures by copy a wrapper
  /// holding such a callable; or, not known, one that holds by value a
  /// wrapper whose callable is not followed (a copy of the wrapper copies
  /// whatever state that callable keeps).
  StateChange stateChange() const;
  /// A state change that is known (StateChange::known).
  bool isMutable() const { return stateChange().known(); }
  /// Its one call operator, its class's own or inherited from a base (a
  /// template's pattern for a generic one), or null when there are several
  /// or a using-declaration brings it in.
  const CXXMethodDecl *callOperator() const;
  /// The closure type or the object's class, as a type.
  QualType type() const;
};
StoredCallable storedCallableOf(const Expr *Init, QualType Wrapper,
                                unsigned WrapperHops = 1);

/// The elements of an aggregate-like expression: a braced list, the
/// arguments of a constructor call (pair, tuple, struct), or of
/// std::make_pair/std::make_tuple. Empty when \p E is none of these.
std::vector<const Expr *> elementsOf(const Expr *E);

/// The elements of \p Returned, what an rrule returns, that hold its
/// pullback: whichever elements of the returned aggregate (a pair, a tuple,
/// a struct, a braced list) evaluate to a lambda, in any position.
std::vector<const Expr *> rrulePullbackElements(const Expr *Returned);

/// The range of the type as written for \p Var, without cv-qualifiers:
/// `const std::function<G(G)> pb` -> `std::function<G(G)>`; none in a macro.
std::optional<CharSourceRange> writtenTypeRange(const VarDecl *Var);

/// Whether \p Var is declared alone in its statement within \p Body (its
/// written type can change without changing another declarator's).
bool isOnlyDeclarationInStatement(const VarDecl *Var, const Stmt *Body);
/// Another declaration \p Var's declaration statement in \p Body holds
/// (`std::function<F> a = f, b = g;`), whose written type \p Var shares;
/// null when it is declared alone.
const NamedDecl *declaredTogetherWith(const VarDecl *Var, const Stmt *Body);

/// The declaration statement in \p Body that declares \p Var, or null.
const DeclStmt *declarationStatementOf(const VarDecl *Var, const Stmt *Body);

/// The edits that give \p Var, declared in one statement with others
/// (`Pullback a = f, pb = g, c = h;`), a declaration of its own with
/// \p NewType for its written type (`Pullback a = f; auto pb = g; Pullback c
/// = h;`): each comma around it becomes `;` and the declaration specifiers.
/// Nullopt where a `;` would not end a statement (a `for` or `if` init),
/// where a declarator adds to the type (`*p`, `&r`, `a[2]`), or where a
/// macro wrote any of it.
std::optional<std::vector<FixItHint>> splitDeclaration(const VarDecl *Var, const Stmt *Body,
                                                       llvm::StringRef NewType,
                                                       const SourceManager &SM,
                                                       const LangOptions &LO);

/// The local variable \p E names (through std::move and a copy or move of
/// it), or null.
const VarDecl *localVariableOf(const Expr *E);

/// The first local variable a return statement of \p FD returns whose type
/// is not a closure type (`Pullback back = [...]; return back;`), or null.
const VarDecl *returnedLocal(const FunctionDecl *FD);

/// The return statements of a function body, not those of nested lambdas
/// or local classes.
std::vector<const ReturnStmt *> returnsOf(const FunctionDecl *FD);

/// The lambda each return of \p FD evaluates to, in order; empty when \p FD
/// has no body, no returns, or a return that is not a lambda.
std::vector<const LambdaExpr *> returnedLambdas(const FunctionDecl *FD);

/// The one lambda every return of \p FD evaluates to (a pullback factory:
/// `make_pullback(saved...)` returning `[=](dy) {...}`), or null when \p FD
/// has no body, no returns, or returns anything else.
const LambdaExpr *singleReturnedLambda(const FunctionDecl *FD);

/// The callable every return of \p FD stores: the one lambda
/// (singleReturnedLambda), or function objects of one class (each return
/// may make its own: they share the type a deduced result would have).
/// Empty when a return stores anything else.
StoredCallable singleReturnedCallable(const FunctionDecl *FD);

/// Whether every caller of \p FD sees its definition, so that its return
/// type can be deduced (`auto`): inline, a template, internal linkage, or
/// defined in a header; and not declared before its definition.
bool callersSeeDefinition(const FunctionDecl *FD);

/// Whether \p FD's written result type lies in the file (not in a macro),
/// where a fix can rewrite it.
bool resultTypeEditable(const FunctionDecl *FD);

/// Whether gradlint-erased-pullback-storage rewrites the erased-callable
/// result type of \p FD to `auto`: a function in user code named like a
/// pullback or an rrule, every return of which is the same lambda, whose
/// callers all see the definition and whose result type is editable. (The
/// caller checks that the result type is an erased callable.) Not for a
/// virtual or recursive function, nor when the lambda's call operator
/// differs from the erased signature (closureSignatureDiffers, callers
/// unknown), is `mutable`, or a caller would build the wrapper again and
/// again from the closure (callerRebuildsWrapper).
bool closureResultBecomesAuto(const FunctionDecl *FD, const PullbackNaming &Naming);

/// Whether a local in this translation unit deduced from a call of \p Fn
/// (`auto pb = make_pullback(x);`) binds a `const` reference of \p Fn's
/// result type more than once (closureUses): with `auto` as \p Fn's
/// result, the local would hold the closure, and each of those bindings
/// would build a new wrapper from it where the wrapper is built once now;
/// or, where the closure holds a wrapper whose callable is not followed,
/// binds one that may run before another use (ClosureUseSummary::
/// SharesState): with `auto`, that use would not see the state the call
/// through the binding changed.
struct CallerRebuild {
  bool Again = false;
  const Stmt *SharesState = nullptr;
  explicit operator bool() const { return Again || SharesState; }
};
CallerRebuild callerRebuildsWrapper(const FunctionDecl *Fn);

/// Whether \p FD's body names \p FD (recursion): a deduced result type
/// would be needed before it is known.
bool callsItself(const FunctionDecl *FD);

/// Whether \p FD is a virtual member function (it overrides, or may be
/// overridden): its result type cannot change alone.
bool isVirtualMethod(const FunctionDecl *FD);

/// What an explicit conversion converts, as written: `back` in
/// `Pullback(back)` or `Pullback{back}`; null when \p E is no such
/// conversion.
const Expr *explicitConversionOperand(const Expr *E);

/// The edit that replaces the explicit conversion \p E by what it converts
/// (`Pullback(back)` -> `back`), never by a copy of the lambda's text, which
/// would run its captures twice; nullopt when \p E is no such conversion or
/// lies in a macro.
std::optional<FixItHint> dropExplicitConversion(const Expr *E, const SourceManager &SM,
                                                const LangOptions &LO);

/// How a local erased callable is used in its body.
struct ClosureUseSummary {
  /// Every use works just as well with the closure's own type.
  bool OnlyClosureUses = true;
  /// The calls `pb(args)` among the uses.
  std::vector<const CXXOperatorCallExpr *> Calls;
  /// The uses that bind a reference of the wrapper's type to the variable
  /// (with the fix, a wrapper built from the closure); at most one that
  /// runs once, or the uses are not only closure uses.
  std::vector<const Stmt *> Rebuilds;
  /// More than one such binding may run (OnlyClosureUses is false then).
  bool RebuiltAgain = false;
  /// The closure holds a wrapper whose callable is not followed
  /// (StateChange::UnseenCapture), and this binding, which shares the
  /// wrapper's state now, may run before another use of the variable,
  /// which with the fix would not see what the call through the binding
  /// changed (OnlyClosureUses is false then).
  const Stmt *SharesState = nullptr;
};

/// The statement \p S is in (through ASTContext's parent map), or null past
/// a function's body; the body of a lambda is in the LambdaExpr, and a
/// variable's initialiser in the variable's DeclStmt.
const Stmt *statementParent(ASTContext &Ctx, const Stmt *S);

/// Whether \p Use may run before \p At, both in the function that declares
/// \p Var: never when every run of \p Use ends in a `return` before \p At
/// could run; written before it and not in the other branch of an `if` or
/// `?:` than \p At, inside a loop around \p At (\p ParentOf walks up
/// from it: null past the function's body; a `for` statement's init runs
/// once) that does not declare \p Var afresh each time round (a variable
/// its init declares is not), or anywhere when \p At is in the body of a
/// lambda that does not declare \p Var and is not called where it is made
/// (the closure may be called later, and again).
bool mayRunBefore(const Stmt *Use, const Stmt *At, const VarDecl *Var, const SourceManager &SM,
                  llvm::function_ref<const Stmt *(const Stmt *)> ParentOf);

/// Follows every use of \p Var in \p Body to where its value goes. Uses
/// that work as well with the closure's own type: calls; copies and moves
/// into its own type (locals, by-value or const/rvalue reference parameters
/// of that type, returns, captures); elements of a pair, tuple or struct, or
/// of std::make_tuple. Uses that need the erased type: assignment, `if
/// (pb)`, `pb.target<...>()`, a non-const reference, a reference in its own
/// initialiser (a recursive lambda), a use that may run after the
/// variable is moved from (a moved-from wrapper is empty; a moved-from
/// closure still runs), a reference of the wrapper's type bound to it more
/// than once (two such arguments, one in a loop: the fix would build a
/// wrapper from the closure each time), decltype, a conversion into std::any
/// or a wrapper of another type (a tape's `std::any`), a parameter whose
/// type a function template deduces from it (std::cref, `record(F)`). A
/// walk of \p Body alone: no parent map of the translation unit.
ClosureUseSummary closureUses(const VarDecl *Var, const Stmt *Body);

/// closureUses(Var, Body).OnlyClosureUses.
bool onlyClosureUses(const VarDecl *Var, const Stmt *Body);

/// Why calls through the erased callable \p Wrapper (std::function<R(A...)>
/// and the like) would compute something else if it became the closure
/// type of \p Lambda, or nullopt when they would not: the call operator
/// must take exactly A... (up to references and const) and return exactly R.
/// A generic call operator is instantiated for A... by the wrapper; \p Calls
/// are then every call there is (null when callers are unknown, which
/// gives a reason), and each must already pass A... .
std::optional<std::string>
closureSignatureDiffers(QualType Wrapper, const LambdaExpr *Lambda,
                        const std::vector<const CXXOperatorCallExpr *> *Calls);
/// The same for any stored callable: a function object's call operator is
/// its class's own, and one that is overloaded gives a reason (each call
/// would choose among them by what it passes, where the wrapper converts to
/// the signature first).
std::optional<std::string>
closureSignatureDiffers(QualType Wrapper, const StoredCallable &Callable,
                        const std::vector<const CXXOperatorCallExpr *> *Calls);

} // namespace clang::tidy::gradlint

#endif
