//===--- ErasedPullbackStorageCheck.cpp - gradlint ------------------------===//
//
// Julia's opaque `∂(λ)`: a pullback closure kept in std::function costs an
// allocation and an indirect call, and hides the closure's result type from
// the compiler, even where nothing needs the erasure. Two places are
// rewritten to the closure's own type (`auto`):
//  * a local variable initialised from the lambda (or a function object of
//    the user's class) and then only called, copied, moved or returned
//    (never reassigned, never asked for `bool`, never bound to a non-const
//    reference);
//  * the std::function result of an rrule-style function whose returns all
//    produce the same lambda (or function objects of one class), when
//    callers see the definition;
//  * the std::pair / std::tuple an rrule returns its pullback in, when the
//    return can deduce the element types (a struct's member is reported
//    without a fix).
// Other members and containers are not looked at: holding callables of
// different types is what erasure is for.
//
//===----------------------------------------------------------------------===//

#include "ErasedPullbackStorageCheck.h"
#include "utils/ErasedTypes.h"
#include "utils/Pullbacks.h"
#include "utils/Spelling.h"
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

/// "pair" or "tuple" when \p T is a specialisation of std::pair or
/// std::tuple, whose element types class template argument deduction gives.
llvm::StringRef stdPairOrTuple(QualType T) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier())
    return {};
  llvm::StringRef Name = Spec->getName();
  return Name == "pair" || Name == "tuple" ? Name : llvm::StringRef();
}

/// What element \p Index of a returned \p Result is stored as: a pair's or
/// tuple's type argument, or an aggregate's field (\p Field). Null when not
/// known (a class with bases, a constructor of another shape).
QualType slotType(QualType Result, unsigned Index, const FieldDecl *&Field) {
  Field = nullptr;
  const CXXRecordDecl *Record = Result->getAsCXXRecordDecl();
  if (!Record || !Record->hasDefinition())
    return {};
  if (!stdPairOrTuple(Result).empty()) {
    // As written where the type is spelled (`std::pair<Y, Back>` keeps
    // `Back`), else the specialisation's own arguments.
    llvm::ArrayRef<TemplateArgument> Args =
        cast<ClassTemplateSpecializationDecl>(Record)->getTemplateArgs().asArray();
    if (const auto *Written = Result->getAs<TemplateSpecializationType>();
        Written && !Written->isTypeAlias())
      Args = Written->template_arguments();
    llvm::SmallVector<QualType, 4> Types = typeArguments(Args);
    return Index < Types.size() ? Types[Index] : QualType();
  }
  if (!Record->isAggregate() || Record->getNumBases() != 0)
    return {};
  for (const FieldDecl *F : Record->fields())
    if (Index-- == 0) {
      Field = F;
      return F->getType();
    }
  return {};
}

/// The type `std::pair{..., E, ...}` (or std::make_pair) deduces for \p E:
/// its own type, before any conversion into the declared element.
QualType deducedType(const Expr *E) {
  E = stripTemporaries(E, /*KeepConversions=*/true);
  return E->getType().getNonReferenceType().getCanonicalType().getUnqualifiedType();
}

/// The aggregate a return builds: through the conversion of another pair
/// or tuple into the declared one (`return std::make_pair(y, back);`).
const Expr *returnedAggregate(const Expr *Value) {
  const Expr *E = stripTemporaries(Value);
  if (const auto *Convert = dyn_cast<CXXConstructExpr>(E);
      Convert && !isa<CXXTemporaryObjectExpr>(Convert) &&
      Convert->getNumArgs() == 1 && !Convert->isListInitialization() &&
      !stdPairOrTuple(stripTemporaries(Convert->getArg(0))->getType()).empty())
    return stripTemporaries(Convert->getArg(0));
  return E;
}

/// `Pullback pb = {callable};` (copy-list-initialisation from one element):
/// the edits that remove the braces, since `auto pb = {callable}` would
/// deduce a std::initializer_list. No edits for an initialiser written
/// otherwise; nullopt when braces written by a macro cannot be removed.
std::optional<std::vector<FixItHint>> copyListBraces(const VarDecl *Var,
                                                     const SourceManager &SM) {
  const auto *Construct = dyn_cast<CXXConstructExpr>(Var->getInit()->IgnoreImplicit());
  if (Var->getInitStyle() != VarDecl::CInit || !Construct ||
      !Construct->isListInitialization() || isa<CXXTemporaryObjectExpr>(Construct))
    return std::vector<FixItHint>();
  SourceRange Braces = Construct->getParenOrBraceRange();
  if (Braces.getBegin() != Construct->getBeginLoc())
    return std::vector<FixItHint>(); // `Pullback{...}`: not the braces alone
  if (Construct->getNumArgs() != 1 || Braces.getBegin().isMacroID() ||
      Braces.getEnd().isMacroID() || Braces.getBegin().isInvalid())
    return std::nullopt;
  auto Remove = [](SourceLocation Brace) {
    return FixItHint::CreateRemoval(
        CharSourceRange::getCharRange(Brace, Brace.getLocWithOffset(1)));
  };
  return std::vector<FixItHint>{Remove(Braces.getBegin()), Remove(Braces.getEnd())};
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
  Finder->addMatcher(functionDecl(UserCode, isDefinition(), rruleDecl(&Naming),
                                  unless(returns(qualType(erasedCallable(this)))))
                         .bind("rrule"),
                     this);
}

void ErasedPullbackStorageCheck::check(const MatchFinder::MatchResult &Result) {
  if (const auto *Var = Result.Nodes.getNodeAs<VarDecl>("local")) {
    // The enclosing function from the declaration context: no parent map.
    if (const auto *Enclosing =
            dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod()))
      checkLocal(Var, Enclosing);
  } else if (const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn")) {
    checkReturnType(Fn);
  } else if (const auto *RRule = Result.Nodes.getNodeAs<FunctionDecl>("rrule")) {
    checkReturnedAggregate(RRule);
  }
}

ErasedPullbackStorageCheck::LocalAnalysis
ErasedPullbackStorageCheck::analyzeLocal(const VarDecl *Var, const FunctionDecl *Enclosing,
                                         bool WithFix) const {
  LocalAnalysis Result;
  // A copy of another wrapper (`Pullback prev = acc;`) holds whatever that
  // one holds then: not this rule's closure, even where `acc` was
  // initialised with a lambda.
  StoredCallable Callable =
      storedCallableOf(Var->getInit(), Var->getType(), /*WrapperHops=*/0);
  if (Var->getType()->isReferenceType() || !Callable ||
      isErasedCallable(Callable.Made->getType()) ||
      Enclosing->isTemplateInstantiation() || !isErasedCallable(Var->getType()))
    return Result;
  // A pullback: by name or annotation, returned by an rrule, or returned by
  // a function that returns its pullback in an erased callable.
  bool IsPullback = Naming.isPullback(*Var);
  if (!IsPullback && Naming.isRRule(*Enclosing))
    for (const ReturnStmt *Return : returnsOf(Enclosing))
      if (const Expr *Value = Return->getRetValue())
        for (const Expr *Element : elementsOf(returnedAggregate(Value)))
          IsPullback |= localVariableOf(Element) == Var;
  if (!IsPullback && (Naming.isPullback(*Enclosing) || Naming.isRRule(*Enclosing)) &&
      isErasedCallable(Enclosing->getReturnType()))
    IsPullback = returnedLocal(Enclosing) == Var;
  if (!IsPullback)
    return Result;
  Stmt *Body = Enclosing->getBody();
  ClosureUseSummary Uses = closureUses(Var, Body);
  if (!Uses.OnlyClosureUses)
    return Result; // the erasure is needed
  Result.Reported = true;
  Result.Callable = Callable;
  Result.Differs = closureSignatureDiffers(Var->getType(), Callable, &Uses.Calls);
  std::optional<CharSourceRange> Type = writtenTypeRange(Var);
  const SourceManager &SM = Var->getASTContext().getSourceManager();
  if (Result.Differs) {
    // No fix: `auto` would change what the calls compute.
  } else if (Var->getType()->getContainedDeducedType()) {
    // `auto pb = std::function<...>(lambda)`: the conversion is the erasure.
    if (std::optional<FixItHint> Drop = dropExplicitConversion(Var->getInit(), SM, getLangOpts()))
      Result.Fix.push_back(*Drop);
  } else if (Type) {
    Result.DeclaredWith = declaredTogetherWith(Var, Body);
    // Declared with others: a declaration of its own, where none of the
    // others is reported too (each fix would split the statement its way).
    std::optional<std::vector<FixItHint>> Split;
    if (Result.DeclaredWith && WithFix &&
        llvm::none_of(declarationStatementOf(Var, Body)->decls(), [&](const Decl *D) {
          const auto *Other = dyn_cast<VarDecl>(D);
          return Other && Other != Var && analyzeLocal(Other, Enclosing, false).Reported;
        }))
      Split = splitDeclaration(Var, Body, "auto", SM, getLangOpts());
    if (Split)
      Result.DeclaredWith = nullptr;
    if (!Result.DeclaredWith && WithFix) {
      if (Split)
        Result.Fix = std::move(*Split);
      else
        Result.Fix.push_back(replacementApart(*Type, "auto", SM, getLangOpts()));
      // `Pullback pb = Pullback(lambda);` would stay erased with `auto`.
      std::optional<FixItHint> Drop;
      if (isErasedCallable(stripTemporaries(Var->getInit())->getType()))
        Drop = dropExplicitConversion(Var->getInit(), SM, getLangOpts());
      if (Drop)
        Result.Fix.push_back(*Drop);
      else if (std::optional<std::vector<FixItHint>> Braces = copyListBraces(Var, SM))
        Result.Fix.insert(Result.Fix.end(), Braces->begin(), Braces->end());
      else
        Result.Fix.clear();
    }
  }
  return Result;
}

void ErasedPullbackStorageCheck::checkLocal(const VarDecl *Var,
                                            const FunctionDecl *Enclosing) {
  LocalAnalysis Local = analyzeLocal(Var, Enclosing);
  if (!Local.Reported)
    return;
  report(Var->getASTContext(), std::move(Local.Fix),
         [this, Var, Callable = Local.Callable, Differs = Local.Differs,
          DeclaredWith = Local.DeclaredWith](llvm::ArrayRef<FixItHint> Hints,
                                             const ProofOutcome &Proof) {
           if (Proof.CallsRebound)
             return; // the erasure chooses what a call does: it is needed
           diag(Var->getLocation(),
                "pullback %0 is stored in %1; %select{its closure type|the type of "
                "the function object it holds, %3,}2 would do")
               << Var << Var->getType() << !Callable.Lambda
               << Callable.type()
               << Hints;
           if (Differs)
             noteSignature(Callable, Var->getType(), *Differs);
           else if (DeclaredWith)
             diag(DeclaredWith->getLocation(),
                  "no fix: %0 is declared in the same statement, and the type both "
                  "share would become 'auto' for it too; declare %1 on its own first",
                  DiagnosticIDs::Note)
                 << DeclaredWith << Var;
           noteWithdrawn(Var->getLocation(), Proof);
         },
         FixClaims::retyping(Var));
}

void ErasedPullbackStorageCheck::noteSignature(const StoredCallable &Callable,
                                               QualType Wrapper, llvm::StringRef Why) {
  diag(Callable.Made->getBeginLoc(),
       "no fix: with the %select{closure|object's}2 type, calls would not convert as "
       "%0 does (%1); give the %select{lambda|call operator}2 the signature's parameter "
       "and result types first",
       DiagnosticIDs::Note)
      << Wrapper << Why << !Callable.Lambda;
}

void ErasedPullbackStorageCheck::noteVirtualClosure(const FunctionDecl *Fn) {
  diag(Fn->getLocation(),
       "no fix: %0 is virtual; a virtual function cannot return 'auto', and "
       "each override's lambda has a closure type of its own",
       DiagnosticIDs::Note)
      << Fn;
}

void ErasedPullbackStorageCheck::noteMutableClosure(const StoredCallable &Callable) {
  // Callers may share the wrapper's state through references to it
  // (`run(const std::function<...> &)`); with the closure type each such
  // call would convert, and count on, a copy.
  StoredCallable::StateChange Change = Callable.stateChange();
  // A capture whose type depends on the template's parameters (`T t`,
  // `Holder<T> h`) is not known to hold a wrapper, only that it may.
  unsigned Which = Change.How;
  if (Change.How == StoredCallable::StateChange::UnseenCapture && Change.Wrapper &&
      Change.Wrapper->getType()->isDependentType() && !isErasedCallable(Change.Wrapper->getType()))
    Which = StoredCallable::StateChange::UnseenMember + 1;
  diag(Callable.Made->getBeginLoc(),
       "no fix: %select{|the lambda is 'mutable'|its call operator is not 'const'|"
       "its 'const' call operator may change 'mutable' member '%1'|"
       "it captures '%3' by copy, a wrapper whose callable changes its own state|"
       "it captures '%3' by copy, holding a wrapper whose callable may change its own "
       "state (where it is made is not followed)|"
       "its member '%1' holds a wrapper whose callable may change its own state (where "
       "it is made is not followed)|"
       "it captures '%3' by copy, whose type depends on the template's parameters and "
       "may hold a wrapper whose callable changes its own state}0; "
       "a reference to the wrapper shares its state, and with the %select{closure|"
       "object's}2 type a conversion would copy it",
       DiagnosticIDs::Note)
      << Which
      << (Change.Member ? Change.Member->getQualifiedNameAsString() : std::string())
      << !Callable.Lambda
      << (Change.Wrapper ? Change.Wrapper->getName() : llvm::StringRef("*this"));
}

void ErasedPullbackStorageCheck::noteCallsItself(const FunctionDecl *Fn) {
  diag(Fn->getLocation(),
       "no fix: %0 calls itself, so its result type must be known before "
       "its body is: a deduced 'auto' is not",
       DiagnosticIDs::Note)
      << Fn;
}

void ErasedPullbackStorageCheck::noteCallersSeeDeclaration(const FunctionDecl *Fn,
                                                           bool FunctionObject) {
  diag(Fn->getLocation(),
       "callers in other translation units see only the declaration of %0; "
       "define it inline (in a header) to return the %select{closure|object's}1 type",
       DiagnosticIDs::Note)
      << Fn << FunctionObject;
}

void ErasedPullbackStorageCheck::checkReturnType(const FunctionDecl *Fn) {
  if (Fn->isTemplateInstantiation())
    return; // the template itself is checked
  StoredCallable Callable = singleReturnedCallable(Fn);
  if (!Callable || isErasedCallable(Callable.type()))
    return; // the erasure joins different callables, or holds none
  // `Pullback back = [...]; return back;`: the result becomes the closure
  // type only where the local does.
  const VarDecl *Local = returnedLocal(Fn);
  std::optional<LocalAnalysis> Held;
  if (Local) {
    Held = analyzeLocal(Local, Fn);
    if (!Held->Reported)
      return; // the local needs its erasure (reassigned, kept as erased...)
  }
  std::vector<const ReturnStmt *> Returns = returnsOf(Fn);
  const SourceManager &SM = Fn->getASTContext().getSourceManager();
  SourceRange ReturnType = Fn->getReturnTypeSourceRange();
  auto Report = [this, Fn, Callable] {
    return diag(Fn->getLocation(), "%0 returns its pullback as %1; %select{its "
                                   "closure type|the type of the function object "
                                   "it returns, %3,}2 would do")
           << Fn << Fn->getReturnType() << !Callable.Lambda << Callable.type();
  };
  if (isVirtualMethod(Fn)) {
    Report();
    noteVirtualClosure(Fn);
    return;
  }
  if (callsItself(Fn)) {
    Report();
    noteCallsItself(Fn);
    return;
  }
  if (std::optional<std::string> Differs =
          closureSignatureDiffers(Fn->getReturnType(), Callable, nullptr)) {
    Report();
    noteSignature(Callable, Fn->getReturnType(), *Differs);
    return;
  }
  if (!callersSeeDefinition(Fn)) {
    Report();
    noteCallersSeeDeclaration(Fn, !Callable.Lambda);
    return;
  }
  if (Callable.isMutable()) {
    Report();
    noteMutableClosure(Callable);
    return;
  }
  if (Held && Held->Fix.empty()) {
    Report();
    diag(Local->getLocation(), "no fix: the pullback is held in %0 first, which "
                               "keeps its erased type",
         DiagnosticIDs::Note)
        << Local;
    return;
  }
  // A template that nothing here instantiates to call Fn uses its result
  // unchecked (`run(n.pullback())` deducing from a std::function parameter).
  if (const Expr *Call = dependentCalls(Fn->getASTContext()).uninstantiatedCallOf(Fn)) {
    Report();
    diag(Call->getBeginLoc(), "no fix: %0", DiagnosticIDs::Note)
        << DependentCalls::uncheckedResultNote(Fn);
    return;
  }
  // A caller that passes the result it keeps in `auto` to a `const
  // Pullback &` parameter again and again (in a loop): with the fix each
  // call would build a new wrapper from the closure. The erasure is the
  // cheaper form there, as for a local (closureUses).
  if (CallerRebuild Caller = callerRebuildsWrapper(Fn)) {
    if (Caller.SharesState) {
      // Not known to keep state, but may: said where a caller shares it.
      Report();
      noteMutableClosure(Callable);
      diag(Caller.SharesState->getBeginLoc(),
           "a caller binds a reference to the wrapper here and uses it again after",
           DiagnosticIDs::Note);
    }
    return;
  }
  std::vector<FixItHint> Fix;
  if (resultTypeEditable(Fn)) {
    Fix.push_back(replacementApart(CharSourceRange::getTokenRange(ReturnType), "auto",
                                   SM, getLangOpts()));
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
           if (Proof.CallsRebound)
             return; // the erasure chooses what a caller does: it is needed
           Report() << Hints;
           noteWithdrawn(Fn->getLocation(), Proof);
         },
         FixClaims::retyping(Fn));
}

void ErasedPullbackStorageCheck::checkReturnedAggregate(const FunctionDecl *Fn) {
  // The template itself is checked; a deduced result already holds the
  // closure type.
  QualType Declared = Fn->getDeclaredReturnType();
  if (Fn->isTemplateInstantiation() || Declared.isNull() ||
      Declared->getContainedDeducedType() || Declared->isReferenceType() ||
      Declared->isDependentType())
    return;
  QualType Result = Fn->getReturnType().getUnqualifiedType();
  if (!Result->getAsCXXRecordDecl())
    return;
  // Each element of a returned pair, tuple or struct that holds a lambda or
  // a function object in an erased callable.
  struct Held {
    const Expr *Element;
    StoredCallable Callable;
    QualType Slot;
    const FieldDecl *Field;
    /// An erased local on the way (`std::function<...> back = ...;`), and
    /// whether the check makes it `auto`.
    const VarDecl *Local;
    bool LocalFixed;
  };
  std::vector<Held> Pullbacks;
  std::vector<const ReturnStmt *> Returns = returnsOf(Fn);
  // The last return's aggregate and elements: with a fix there is one.
  const Expr *Aggregate = nullptr;
  std::vector<const Expr *> Elements;
  for (const ReturnStmt *Return : Returns) {
    const Expr *Value = Return->getRetValue();
    if (!Value)
      continue;
    Aggregate = returnedAggregate(Value);
    Elements = elementsOf(Aggregate);
    for (unsigned I = 0; I < Elements.size(); ++I) {
      const FieldDecl *Field = nullptr;
      QualType Slot = slotType(Result, I, Field);
      if (Slot.isNull() || !isErasedCallable(Slot))
        continue;
      StoredCallable Callable = storedCallableOf(Elements[I], Slot);
      if (!Callable || isErasedCallable(Callable.type()))
        continue;
      const VarDecl *Local = localVariableOf(Elements[I]);
      if (Local && !isErasedCallable(Local->getType()))
        Local = nullptr; // `auto back = ...;`: already the closure type
      bool LocalFixed = false;
      if (Local) {
        LocalAnalysis Analysis = analyzeLocal(Local, Fn);
        if (!Analysis.Reported)
          continue; // the local needs its erasure
        LocalFixed = !Analysis.Fix.empty();
      }
      Pullbacks.push_back({Elements[I], Callable, Slot, Field, Local, LocalFixed});
    }
  }
  if (Pullbacks.empty())
    return;
  const Held &First = Pullbacks.front();
  auto Report = [this, Fn, Result, Slot = First.Slot, Callable = First.Callable] {
    return diag(Fn->getLocation(), "%0 returns its pullback in %1 as %2; %select{its "
                                   "closure type|the type of the function object "
                                   "it returns, %4,}3 would do")
           << Fn << Result << Slot << !Callable.Lambda << Callable.type();
  };
  auto NoFix = [this](SourceLocation Loc, llvm::StringRef Why) {
    return diag(Loc, Why, DiagnosticIDs::Note);
  };
  // Why no fix, if there is a reason.
  std::function<void()> Reason;
  llvm::StringRef Kind = stdPairOrTuple(Result);
  std::vector<FixItHint> Fix;
  const SourceManager &SM = Fn->getASTContext().getSourceManager();
  if (Kind.empty()) {
    Reason = [=, Field = First.Field] {
      if (Field)
        NoFix(Field->getLocation(),
              "no fix: member %0 of %1 holds every pullback as %2; make %1 a "
              "template on the pullback's type, or return a std::pair or "
              "std::tuple")
            << Field << Result << First.Slot;
      else
        NoFix(Fn->getLocation(), "no fix: %0 is a class whose element types "
                                 "are declared; make it a template on the "
                                 "pullback's type")
            << Result;
    };
  } else if (isVirtualMethod(Fn)) {
    Reason = [=] { noteVirtualClosure(Fn); };
  } else if (callsItself(Fn)) {
    Reason = [=] { noteCallsItself(Fn); };
  } else if (!callersSeeDefinition(Fn)) {
    Reason = [=] { noteCallersSeeDeclaration(Fn, false); };
  } else if (!resultTypeEditable(Fn)) {
    // A result type written by a macro: no fix, as for checkReturnType.
  } else if (Returns.size() != 1) {
    Reason = [=] {
      NoFix(Fn->getLocation(), "no fix: %0 has more than one return; with a "
                               "deduced result type each would have to build "
                               "the same closure type")
          << Fn;
    };
  } else if (!getLangOpts().CPlusPlus17) {
    Reason = [=] {
      NoFix(Fn->getLocation(), "no fix: deducing the %0's element types needs "
                               "C++17")
          << Kind;
    };
  } else if (First.Callable.stateChange()) {
    // Callers that take the aggregate apart are not followed: a callable
    // that may keep state (known or not) is not moved out of its wrapper.
    Reason = [=] { noteMutableClosure(First.Callable); };
  } else if (auto Differs = closureSignatureDiffers(First.Slot, First.Callable, nullptr)) {
    Reason = [=] { noteSignature(First.Callable, First.Slot, *Differs); };
  } else if (First.Local && !First.LocalFixed) {
    Reason = [=, Local = First.Local] {
      NoFix(Local->getLocation(), "no fix: the pullback is held in %0 first, "
                                  "which keeps its erased type")
          << Local;
    };
  } else {
    // Every other element must deduce to what it is declared as: a lazy
    // expression (`a * b` of an expression-template library) would
    // otherwise be kept unevaluated.
    for (unsigned I = 0; I < Elements.size() && !Reason; ++I) {
      const FieldDecl *Unused = nullptr;
      QualType Slot = slotType(Result, I, Unused);
      if (Elements[I] == First.Element || Slot.isNull())
        continue;
      QualType Deduced = deducedType(Elements[I]);
      if (Deduced != Slot.getCanonicalType().getUnqualifiedType())
        Reason = [=, E = Elements[I]] {
          NoFix(E->getBeginLoc(), "no fix: this element is a %0, converted to "
                                  "%1 as declared; a deduced %2 would keep the %0")
              << Deduced << Slot << Kind;
        };
    }
    if (!Reason) {
      Fix.push_back(replacementApart(CharSourceRange::getTokenRange(Fn->getReturnTypeSourceRange()),
                                     "auto", Fn->getASTContext().getSourceManager(),
                                     getLangOpts()));
      // `return {y, back};` and `return std::pair<Y, F>{y, back};` name the
      // declared type; `std::pair{y, back}` deduces it.
      std::string Deducing = ("std::" + Kind).str();
      if (const auto *Temporary = dyn_cast<CXXTemporaryObjectExpr>(Aggregate)) {
        Fix.push_back(FixItHint::CreateReplacement(
            CharSourceRange::getTokenRange(
                Temporary->getTypeSourceInfo()->getTypeLoc().getSourceRange()),
            Deducing));
      } else if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Aggregate)) {
        Fix.push_back(FixItHint::CreateReplacement(
            CharSourceRange::getTokenRange(
                Cast->getTypeInfoAsWritten()->getTypeLoc().getSourceRange()),
            Deducing));
      } else if (const auto *Braced = dyn_cast<CXXConstructExpr>(Aggregate);
                 Braced && Braced->isListInitialization()) {
        Fix.push_back(FixItHint::CreateInsertion(Braced->getBeginLoc(), Deducing));
      } else if (!isa<CallExpr>(Aggregate)) { // std::make_pair deduces already
        Reason = [=] {
          NoFix(Fn->getLocation(), "no fix: build the %0 in the return "
                                   "statement to deduce its element types")
              << Kind;
        };
        Fix.clear();
      }
      if (llvm::any_of(Fix, [&](const FixItHint &H) {
            return H.RemoveRange.getBegin().isMacroID() ||
                   H.RemoveRange.getEnd().isMacroID() ||
                   !SM.isWrittenInSameFile(H.RemoveRange.getBegin(),
                                           Fn->getLocation());
          }))
        Fix.clear();
    }
  }
  report(Fn->getASTContext(), std::move(Fix),
         [this, Fn, Report, Reason](llvm::ArrayRef<FixItHint> Hints,
                                    const ProofOutcome &Proof) {
           if (Proof.CallsRebound)
             return; // the erasure chooses what a caller does: it is needed
           Report() << Hints;
           if (Reason)
             Reason();
           noteWithdrawn(Fn->getLocation(), Proof);
         },
         FixClaims::retyping(Fn));
}

} // namespace clang::tidy::gradlint
