//===--- Pullbacks.cpp - recognise pullbacks ------------------------------===//

#include "utils/Pullbacks.h"
#include "utils/CallSites.h"
#include "utils/ErasedTypes.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::gradlint {

bool hasPullbackAnnotation(const Decl *D) {
  for (const auto *A : D->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == PullbackAnnotation)
      return true;
  return false;
}

PullbackNaming::PullbackNaming(GradlintCheck &Check,
                               const ClangTidyCheck::OptionsView &Options)
    : NamesOption(Options.getLocalOrGlobal("PullbackNames", DefaultPullbackNames)),
      RRulesOption(Options.getLocalOrGlobal("RRuleNames", DefaultRRuleNames)),
      Names(Check.namePatternOption("PullbackNames", NamesOption)),
      RRules(Check.namePatternOption("RRuleNames", RRulesOption)) {}

void PullbackNaming::store(const ClangTidyCheck::OptionsView &Options,
                           ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "PullbackNames", NamesOption);
  Options.store(Opts, "RRuleNames", RRulesOption);
}

/// \p E without parentheses and the implicit casts that change neither its
/// type nor its value (a load, an added `const`).
static const Expr *ignoreParenNoOpCasts(const Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    const auto *Cast = dyn_cast<ImplicitCastExpr>(E);
    if (!Cast || (Cast->getCastKind() != CK_NoOp &&
                  Cast->getCastKind() != CK_LValueToRValue))
      return E;
    E = Cast->getSubExpr();
  }
}

const Expr *stripTemporaries(const Expr *E, bool KeepConversions) {
  while (true) {
    E = KeepConversions ? ignoreParenNoOpCasts(E) : E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temp->getSubExpr();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr();
    else
      return E;
  }
}

bool isStdFunction(const FunctionDecl *FD, std::initializer_list<llvm::StringRef> Names) {
  return FD && FD->isInStdNamespace() && FD->getIdentifier() &&
         llvm::is_contained(Names, FD->getName());
}

/// What \p E (stripped) converts or moves into a callable: the operand of
/// `std::function<...>(f)`, of a one-argument constructor call (the
/// conversion into the wrapper), of std::move; in a template, the one
/// element of an initialiser not yet resolved (`Pullback pb(f);`,
/// `Pullback pb{f};`: a list without a type, or of type void, until it is
/// instantiated). Null for anything else.
static const Expr *convertedOperand(const Expr *E) {
  if (const auto *List = dyn_cast<ParenListExpr>(E))
    return List->getNumExprs() == 1 ? List->getExpr(0) : nullptr;
  if (const auto *List = dyn_cast<InitListExpr>(E))
    return List->getNumInits() == 1 && (List->getType().isNull() || List->getType()->isVoidType())
               ? List->getInit(0)
               : nullptr;
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    return Cast->getSubExpr();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 1 ? Construct->getArg(0) : nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return isStdFunction(Call->getDirectCallee(), {"move"}) && Call->getNumArgs() == 1
               ? Call->getArg(0)
               : nullptr;
  return nullptr;
}

/// Whether \p Var's own type is a closure type (`auto back = [...]`, a
/// reference to one, or `auto` still undeduced in a template): the lambda is
/// what the variable holds, whatever happens to it later. A dependent
/// wrapper (`std::function<T(T)>`) is not.
static bool holdsClosure(const VarDecl *Var) {
  QualType T = Var->getType().getNonReferenceType();
  if (const CXXRecordDecl *Class = T->getAsCXXRecordDecl())
    return Class->isLambda();
  return T->isUndeducedType();
}

const LambdaExpr *lambdaOf(const Expr *E, unsigned WrapperHops) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripTemporaries(E);
    if (const auto *Lambda = dyn_cast<LambdaExpr>(E))
      return Lambda;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      bool Follow = Var && Var->isLocalVarDecl() &&
                    (holdsClosure(Var) || WrapperHops-- > 0);
      E = Follow ? Var->getInit() : nullptr;
      continue;
    }
    E = convertedOperand(E);
  }
  return nullptr;
}

/// The call operators a call on an object of \p Class finds: its own, or,
/// where it declares none, those its bases have (one base's when one has
/// some; every such base's when several do, a call then being ambiguous).
static llvm::SmallVector<const NamedDecl *, 2> callOperatorsOf(const CXXRecordDecl *Class,
                                                               unsigned Depth = 0) {
  llvm::SmallVector<const NamedDecl *, 2> Found;
  if (!Class || !Class->hasDefinition() || Depth > 8)
    return Found;
  Class = Class->getDefinition();
  DeclarationName Name =
      Class->getASTContext().DeclarationNames.getCXXOperatorName(OO_Call);
  for (const NamedDecl *D : Class->lookup(Name))
    Found.push_back(D);
  if (!Found.empty())
    return Found;
  for (const CXXBaseSpecifier &Base : Class->bases())
    llvm::append_range(Found, callOperatorsOf(Base.getType()->getAsCXXRecordDecl(), Depth + 1));
  return Found;
}

/// The class of \p T when it is a function object's (StoredCallable).
static const CXXRecordDecl *functionObjectClass(QualType T, QualType Wrapper) {
  if (T.isNull()) // a dependent initialiser list, `W w(args...)` in a template
    return nullptr;
  const CXXRecordDecl *Class = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!Class || !Class->hasDefinition() || Class->isLambda() || Class->isInStdNamespace())
    return nullptr;
  Class = Class->getDefinition();
  if (Class->getASTContext().getSourceManager().isInSystemHeader(Class->getLocation()))
    return nullptr;
  if (const CXXRecordDecl *Own = Wrapper.getNonReferenceType()->getAsCXXRecordDecl();
      Own && Own->getCanonicalDecl() == Class->getCanonicalDecl())
    return nullptr;
  return callOperatorsOf(Class).empty() ? nullptr : Class;
}

StoredCallable storedCallableOf(const Expr *E, QualType Wrapper, unsigned WrapperHops) {
  if (const LambdaExpr *Lambda = lambdaOf(E, WrapperHops))
    return {Lambda, Lambda};
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripTemporaries(E);
    if (functionObjectClass(E->getType(), Wrapper))
      return {E, nullptr};
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      // A wrapper local on the way (`Pullback back = MulBackward{w};`).
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      E = Var && Var->isLocalVarDecl() && WrapperHops-- > 0 ? Var->getInit() : nullptr;
      continue;
    }
    E = convertedOperand(E);
  }
  return {};
}

const CXXMethodDecl *StoredCallable::callOperator() const {
  if (Lambda)
    return Lambda->getCallOperator();
  auto Operators = callOperatorsOf(type()->getAsCXXRecordDecl());
  if (Operators.size() != 1)
    return nullptr;
  if (const auto *Template = dyn_cast<FunctionTemplateDecl>(Operators.front()))
    return dyn_cast<CXXMethodDecl>(Template->getTemplatedDecl());
  return dyn_cast<CXXMethodDecl>(Operators.front());
}

QualType StoredCallable::type() const {
  return Made->getType().getCanonicalType().getNonReferenceType().getUnqualifiedType();
}

/// A `mutable` data member of \p Record, of its bases, or of an object it
/// holds by value (a member of class type, an array of them): a `const` call
/// operator may change it. Clang records whether there is one
/// (hasMutableFields; a member behind a reference or a pointer is not one,
/// and copies share it); this only finds it, to name it.
static const FieldDecl *mutableMemberOf(const CXXRecordDecl *Record) {
  if (!Record || !Record->hasDefinition())
    return nullptr;
  Record = Record->getDefinition();
  if (!Record->hasMutableFields())
    return nullptr;
  for (const FieldDecl *Field : Record->fields()) {
    if (Field->isMutable())
      return Field;
    if (const FieldDecl *Inner = mutableMemberOf(
            Field->getType()->getBaseElementTypeUnsafe()->getAsCXXRecordDecl()))
      return Inner;
  }
  for (const CXXBaseSpecifier &Base : Record->bases())
    if (const FieldDecl *Inner = mutableMemberOf(Base.getType()->getAsCXXRecordDecl()))
      return Inner;
  return nullptr;
}

namespace {
StoredCallable::StateChange heldStateChange(const VarDecl *Var);
} // namespace

/// Whether \p T is a callable wrapper that owns what it holds (a copy of it
/// copies the callable): std::function and its kin, not std::function_ref.
static bool isOwningWrapper(QualType T) {
  std::string Name = qualifiedClassName(T.getNonReferenceType());
  return Name == "std::function" || Name == "std::move_only_function" ||
         Name == "std::copyable_function";
}

/// Whether a copy of a \p T copies an owning wrapper (isOwningWrapper): it
/// is one, or holds one by value (a member, a base, an array element, a
/// standard library container's or tuple's element); a reference or a
/// pointer shares what it refers to. \p Seen holds the types already
/// looked into (none of them holds one): each is looked into once.
static bool holdsOwningWrapper(QualType T, llvm::SmallPtrSetImpl<const Type *> &Seen) {
  T = T.getCanonicalType();
  if (T->isReferenceType() || T->isPointerType() || !Seen.insert(T.getTypePtr()).second)
    return false;
  if (isOwningWrapper(T))
    return true;
  if (const ArrayType *Array = T->getAsArrayTypeUnsafe()) // `Pullback fs[2]`
    return holdsOwningWrapper(Array->getElementType(), Seen);
  const Type *Element = T->getBaseElementTypeUnsafe();
  const CXXRecordDecl *Record = Element->getAsCXXRecordDecl();
  llvm::ArrayRef<TemplateArgument> Args;
  if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(Record))
    Args = Spec->getTemplateArgs().asArray();
  if (!Record || Record->isDependentContext()) {
    // In a template: a specialisation of a standard template is read from
    // its arguments below; anything else that depends on the template's
    // parameters (`T`, `Holder<T>`) may hold a wrapper in some
    // instantiation.
    const auto *Dependent = Element->getAs<TemplateSpecializationType>();
    const TemplateDecl *Template =
        Dependent ? Dependent->getTemplateName().getAsTemplateDecl() : nullptr;
    if (!Template || !Template->isInStdNamespace())
      return T->isDependentType();
    Record = dyn_cast_or_null<CXXRecordDecl>(Template->getTemplatedDecl());
    Args = Dependent->template_arguments();
    if (!Record)
      return true;
  } else if (!Record->hasDefinition()) {
    return false;
  } else {
    Record = Record->getDefinition();
  }
  if (Record->isInStdNamespace() && (!Args.empty() || Record->getDescribedClassTemplate())) {
    // std::vector<std::function<...>>: its members are the library's own.
    // Smart pointers and views share what they point to (a unique_ptr is
    // not copied at all).
    if (llvm::is_contained({"shared_ptr", "weak_ptr", "unique_ptr", "reference_wrapper", "span",
                            "basic_string_view", "function_ref"},
                           Record->getName()))
      return false;
    for (const TemplateArgument &Arg : Args) {
      // std::tuple<int, Pullback>, std::variant<...>: one pack of types.
      llvm::ArrayRef<TemplateArgument> Types =
          Arg.getKind() == TemplateArgument::Pack ? Arg.pack_elements() : llvm::ArrayRef(Arg);
      for (const TemplateArgument &Type : Types)
        if (Type.getKind() == TemplateArgument::Type && holdsOwningWrapper(Type.getAsType(), Seen))
          return true;
    }
    return false;
  }
  for (const FieldDecl *Field : Record->fields())
    if (holdsOwningWrapper(Field->getType(), Seen))
      return true;
  for (const CXXBaseSpecifier &Base : Record->bases())
    if (holdsOwningWrapper(Base.getType(), Seen))
      return true;
  return false;
}
static bool holdsOwningWrapper(QualType T) {
  llvm::SmallPtrSet<const Type *, 16> Seen;
  return holdsOwningWrapper(T, Seen);
}

/// A data member of \p Record or of a base that holds an owning wrapper by
/// value (holdsOwningWrapper).
static const FieldDecl *wrapperMemberOf(const CXXRecordDecl *Record) {
  if (!Record || !Record->hasDefinition())
    return nullptr;
  Record = Record->getDefinition();
  for (const FieldDecl *Field : Record->fields())
    if (holdsOwningWrapper(Field->getType()))
      return Field;
  for (const CXXBaseSpecifier &Base : Record->bases())
    if (const FieldDecl *Inner = wrapperMemberOf(Base.getType()->getAsCXXRecordDecl()))
      return Inner;
  return nullptr;
}

StoredCallable::StateChange StoredCallable::stateChange() const {
  if (Lambda && Lambda->isMutable())
    return {StateChange::MutableLambda};
  const CXXRecordDecl *Class =
      Lambda ? Lambda->getLambdaClass() : type()->getAsCXXRecordDecl();
  if (!Lambda)
    for (const NamedDecl *D : callOperatorsOf(Class))
      if (const auto *Op = dyn_cast_or_null<CXXMethodDecl>(D->getAsFunction());
          !Op || (!Op->isConst() && !Op->isStatic()))
        return {StateChange::NonConstOperator};
  if (const FieldDecl *Member = mutableMemberOf(Class))
    return {StateChange::MutableMember, Member};
  // A wrapper captured by copy calls its own copy of what it holds, and a
  // `const` call of the wrapper changes that copy's state: known where the
  // wrapper is followed to the callable it is made from, and not known
  // where it is not (a parameter, a member), or where the wrapper is inside
  // an object captured by copy.
  StateChange Unseen;
  if (Lambda) {
    for (const auto &[Capture, Init] : llvm::zip(Lambda->captures(), Lambda->capture_inits())) {
      // What the capture copies: `[*this]` the object; `[x]` the variable,
      // or what a reference refers to (`[f]` for a `const Pullback &f`
      // parameter), or a structured binding's element (C++20).
      QualType Copied;
      const ValueDecl *Named = nullptr;
      if (Capture.getCaptureKind() == LCK_StarThis && Init) {
        Copied = Init->getType();
      } else if (Capture.getCaptureKind() == LCK_ByCopy && Capture.capturesVariable()) {
        Named = Capture.getCapturedVar();
        Copied = Named->getType().getNonReferenceType();
      }
      if (Copied.isNull() || !holdsOwningWrapper(Copied))
        continue;
      // Only a wrapper variable is followed to what it holds.
      const auto *Captured = dyn_cast_or_null<VarDecl>(Named);
      StateChange Held = Captured && isOwningWrapper(Captured->getType())
                             ? heldStateChange(Captured)
                             : StateChange{StateChange::UnseenCapture};
      if (Held.known())
        return {StateChange::CapturedWrapper, nullptr, Captured};
      if (Held && !Unseen)
        Unseen = {StateChange::UnseenCapture, nullptr, Named};
    }
  } else if (const FieldDecl *Member = wrapperMemberOf(Class)) {
    return {StateChange::UnseenMember, Member};
  }
  return Unseen;
}

std::vector<const Expr *> elementsOf(const Expr *E) {
  E = stripTemporaries(E);
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = stripTemporaries(Cast->getSubExpr());
  std::vector<const Expr *> Elements;
  if (const auto *List = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Init : List->inits())
      Elements.push_back(Init);
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    for (const Expr *Arg : Construct->arguments())
      Elements.push_back(Arg);
  } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (isStdFunction(Callee, {"make_pair", "make_tuple", "tuple"}))
      for (const Expr *Arg : Call->arguments())
        Elements.push_back(Arg);
  }
  return Elements;
}

std::vector<const Expr *> rrulePullbackElements(const Expr *Returned) {
  std::vector<const Expr *> Pullbacks;
  for (const Expr *Element : elementsOf(Returned))
    if (lambdaOf(Element))
      Pullbacks.push_back(Element);
  return Pullbacks;
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

const DeclStmt *declarationStatementOf(const VarDecl *Var, const Stmt *Body) {
  const DeclStmt *Found = nullptr;
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *Var;
    const DeclStmt *&Found;
    Finder(const VarDecl *Var, const DeclStmt *&Found) : Var(Var), Found(Found) {}
    bool VisitDeclStmt(DeclStmt *S) {
      if (llvm::is_contained(S->decls(), Var))
        Found = S;
      return !Found;
    }
  } F(Var, Found);
  F.TraverseStmt(const_cast<Stmt *>(Body));
  return Found;
}

bool isOnlyDeclarationInStatement(const VarDecl *Var, const Stmt *Body) {
  const DeclStmt *S = declarationStatementOf(Var, Body);
  return S && S->isSingleDecl();
}

std::optional<std::vector<FixItHint>> splitDeclaration(const VarDecl *Var, const Stmt *Body,
                                                       llvm::StringRef NewType,
                                                       const SourceManager &SM,
                                                       const LangOptions &LO) {
  const DeclStmt *S = declarationStatementOf(Var, Body);
  std::optional<CharSourceRange> Type = writtenTypeRange(Var);
  if (!S || S->isSingleDecl() || !Type)
    return std::nullopt;
  // Only a statement of its own in a block: in `for (...; ...)` or
  // `if (...; c)` a `;` would end the init.
  struct InBlock : RecursiveASTVisitor<InBlock> {
    const DeclStmt *S;
    bool Found = false;
    bool VisitCompoundStmt(CompoundStmt *Block) {
      Found |= llvm::is_contained(Block->body(), S);
      return !Found;
    }
  } Finder;
  Finder.S = S;
  Finder.TraverseStmt(const_cast<Stmt *>(Body));
  if (!Finder.Found)
    return std::nullopt;
  // Every declarator exactly the shared type (no `*p`, `&r`, `a[2]`), and
  // nothing written by a macro.
  std::vector<const VarDecl *> Vars;
  for (const Decl *D : S->decls()) {
    const auto *Other = dyn_cast<VarDecl>(D);
    if (!Other || Other->getType() != Var->getType() || Other->getBeginLoc().isMacroID() ||
        Other->getEndLoc().isMacroID() || Other->getLocation().isMacroID())
      return std::nullopt;
    Vars.push_back(Other);
  }
  if (S->getBeginLoc().isMacroID() ||
      SM.isBeforeInTranslationUnit(Type->getBegin(), S->getBeginLoc()))
    return std::nullopt;
  // The declaration specifiers every declarator shares (`const Pullback`),
  // and Var's own with the type replaced (`const auto`).
  // (Each call sets its own flag: a later success would clear a shared one.)
  bool Invalid[3] = {false, false, false};
  llvm::StringRef Specifiers = Lexer::getSourceText(
      CharSourceRange::getCharRange(S->getBeginLoc(), Vars.front()->getLocation()), SM, LO,
      &Invalid[0]);
  llvm::StringRef Before = Lexer::getSourceText(
      CharSourceRange::getCharRange(S->getBeginLoc(), Type->getBegin()), SM, LO, &Invalid[1]);
  llvm::StringRef After = Lexer::getSourceText(
      CharSourceRange::getCharRange(Lexer::getLocForEndOfToken(Type->getEnd(), 0, SM, LO),
                                    Vars.front()->getLocation()),
      SM, LO, &Invalid[2]);
  // An attribute (`[[maybe_unused]]`) is left to the user to place.
  if (llvm::is_contained(Invalid, true) || Specifiers.contains('['))
    return std::nullopt;
  std::string Shared = Specifiers.rtrim().str();
  std::string Own = llvm::StringRef((Before + NewType + After).str()).rtrim().str();
  // The comma after each declarator, which becomes `;` and the next one's
  // specifiers.
  auto CommaAfter = [&](const VarDecl *D) -> std::optional<CharSourceRange> {
    std::optional<Token> Next = Lexer::findNextToken(D->getEndLoc(), SM, LO);
    if (!Next || !Next->is(tok::comma) || Next->getLocation().isMacroID())
      return std::nullopt;
    return CharSourceRange::getTokenRange(Next->getLocation(), Next->getLocation());
  };
  std::vector<FixItHint> Fix;
  auto Index = llvm::find(Vars, Var) - Vars.begin();
  if (Index == 0) {
    Fix.push_back(FixItHint::CreateReplacement(*Type, NewType));
  } else {
    std::optional<CharSourceRange> Comma = CommaAfter(Vars[Index - 1]);
    if (!Comma)
      return std::nullopt;
    Fix.push_back(FixItHint::CreateReplacement(*Comma, "; " + Own));
  }
  if (Index + 1 < static_cast<long>(Vars.size())) {
    std::optional<CharSourceRange> Comma = CommaAfter(Var);
    if (!Comma)
      return std::nullopt;
    Fix.push_back(FixItHint::CreateReplacement(*Comma, "; " + Shared));
  }
  return Fix;
}

const NamedDecl *declaredTogetherWith(const VarDecl *Var, const Stmt *Body) {
  if (const DeclStmt *S = declarationStatementOf(Var, Body))
    for (const Decl *D : S->decls())
      if (const auto *Other = dyn_cast<NamedDecl>(D); Other && Other != Var)
        return Other;
  return nullptr;
}

const VarDecl *localVariableOf(const Expr *E) {
  // Through std::move and a copy or move, in either order (`return
  // std::move(v);` moves the result of std::move into the result).
  for (unsigned Depth = 0; Depth < 4; ++Depth) {
    E = stripTemporaries(E);
    if (const auto *Call = dyn_cast<CallExpr>(E);
        Call && isStdFunction(Call->getDirectCallee(), {"move"}) && Call->getNumArgs() == 1)
      E = Call->getArg(0);
    else if (const auto *Copy = dyn_cast<CXXConstructExpr>(E);
             Copy && Copy->getNumArgs() == 1 &&
             Copy->getConstructor()->isCopyOrMoveConstructor())
      E = Copy->getArg(0);
    else
      break;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->isLocalVarDecl() ? Var : nullptr;
}

const VarDecl *returnedLocal(const FunctionDecl *FD) {
  for (const ReturnStmt *Return : returnsOf(FD))
    if (const VarDecl *Var =
            Return->getRetValue() ? localVariableOf(Return->getRetValue()) : nullptr;
        Var && !holdsClosure(Var))
      return Var;
  return nullptr;
}

namespace {
class ReturnCollector : public RecursiveASTVisitor<ReturnCollector> {
public:
  std::vector<const ReturnStmt *> Returns;
  bool VisitReturnStmt(ReturnStmt *S) {
    Returns.push_back(S);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseCXXRecordDecl(CXXRecordDecl *) { return true; }
};
} // namespace

std::vector<const ReturnStmt *> returnsOf(const FunctionDecl *FD) {
  ReturnCollector Collector;
  if (Stmt *Body = FD->getBody())
    Collector.TraverseStmt(Body);
  return std::move(Collector.Returns);
}

std::vector<const LambdaExpr *> returnedLambdas(const FunctionDecl *FD) {
  std::vector<const LambdaExpr *> Lambdas;
  if (!FD || !FD->hasBody())
    return Lambdas;
  for (const ReturnStmt *Return : returnsOf(FD)) {
    const LambdaExpr *Lambda =
        Return->getRetValue() ? lambdaOf(Return->getRetValue()) : nullptr;
    if (!Lambda)
      return {};
    Lambdas.push_back(Lambda);
  }
  return Lambdas;
}

const LambdaExpr *singleReturnedLambda(const FunctionDecl *FD) {
  std::vector<const LambdaExpr *> Lambdas = returnedLambdas(FD);
  if (Lambdas.empty() || llvm::any_of(Lambdas, [&](const LambdaExpr *L) {
        return L != Lambdas.front();
      }))
    return nullptr;
  return Lambdas.front();
}

StoredCallable singleReturnedCallable(const FunctionDecl *FD) {
  if (const LambdaExpr *Lambda = singleReturnedLambda(FD))
    return {Lambda, Lambda};
  if (!FD || !FD->hasBody())
    return {};
  StoredCallable First;
  for (const ReturnStmt *Return : returnsOf(FD)) {
    StoredCallable Callable = Return->getRetValue()
                                  ? storedCallableOf(Return->getRetValue(), FD->getReturnType())
                                  : StoredCallable();
    if (!Callable || Callable.Lambda || (First && Callable.type() != First.type()))
      return {};
    if (!First)
      First = Callable;
  }
  return First;
}

bool callersSeeDefinition(const FunctionDecl *FD) {
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  return !FD->getPreviousDecl() &&
         (FD->isInlined() || FD->isTemplated() || !FD->isExternallyVisible() ||
          !SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())));
}

bool resultTypeEditable(const FunctionDecl *FD) {
  SourceRange Range = FD->getReturnTypeSourceRange();
  return Range.isValid() && !Range.getBegin().isMacroID() &&
         !Range.getEnd().isMacroID();
}

CallerRebuild callerRebuildsWrapper(const FunctionDecl *Fn) {
  struct Callers : RecursiveASTVisitor<Callers> {
    const FunctionDecl *Fn;
    const SourceManager *SM;
    CallerRebuild Found;
    bool TraverseDecl(Decl *D) {
      if (Found || (D && !isa<TranslationUnitDecl>(D) &&
                    SM->isInSystemHeader(SM->getExpansionLoc(D->getLocation()))))
        return true;
      return RecursiveASTVisitor::TraverseDecl(D);
    }
    bool VisitVarDecl(VarDecl *Var) {
      if (isa<ParmVarDecl>(Var) || !Var->getInit() ||
          !Var->getType()->getContainedDeducedType())
        return true;
      const auto *Call = dyn_cast<CallExpr>(stripTemporaries(Var->getInit()));
      const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
      // A call of a template's specialization calls the template's body.
      if (const FunctionDecl *Pattern = Callee ? Callee->getTemplateInstantiationPattern() : nullptr)
        Callee = Pattern;
      if (!Callee || Callee->getCanonicalDecl() != Fn->getCanonicalDecl())
        return true;
      const auto *Owner = dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
      if (Owner && Owner->getBody()) {
        ClosureUseSummary Uses = closureUses(Var, Owner->getBody());
        Found.Again |= Uses.RebuiltAgain;
        if (!Found.SharesState)
          Found.SharesState = Uses.SharesState;
      }
      return true;
    }
  } Walk;
  Walk.Fn = Fn;
  Walk.SM = &Fn->getASTContext().getSourceManager();
  Walk.TraverseDecl(Fn->getASTContext().getTranslationUnitDecl());
  return Walk.Found;
}

bool closureResultBecomesAuto(const FunctionDecl *FD, const PullbackNaming &Naming) {
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  if (FD->isTemplateInstantiation() ||
      SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())) ||
      !(Naming.isPullback(*FD) || Naming.isRRule(*FD)))
    return false;
  StoredCallable Callable = singleReturnedCallable(FD);
  // `Pullback back = [...]; return back;`: only where the local becomes
  // `auto` too (the storage check's rule for locals, which finds it a
  // pullback because it is returned).
  if (const VarDecl *Local = returnedLocal(FD);
      Local && (!closureUses(Local, FD->getBody()).OnlyClosureUses ||
                declaredTogetherWith(Local, FD->getBody()) || !writtenTypeRange(Local)))
    return false;
  return Callable && callersSeeDefinition(FD) && resultTypeEditable(FD) &&
         !isVirtualMethod(FD) && !callsItself(FD) &&
         !closureSignatureDiffers(FD->getReturnType(), Callable, nullptr) &&
         !Callable.isMutable() && !callerRebuildsWrapper(FD);
}

bool callsItself(const FunctionDecl *FD) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const FunctionDecl *Canonical;
    bool Found = false;
    bool VisitDeclRefExpr(DeclRefExpr *Ref) {
      Found |= Ref->getDecl()->getCanonicalDecl() == Canonical;
      return !Found;
    }
  } F;
  F.Canonical = FD->getCanonicalDecl();
  if (Stmt *Body = FD->getBody())
    F.TraverseStmt(Body);
  return F.Found;
}

bool isVirtualMethod(const FunctionDecl *FD) {
  const auto *Method = dyn_cast<CXXMethodDecl>(FD);
  return Method && Method->isVirtual();
}

const Expr *explicitConversionOperand(const Expr *E) {
  E = stripTemporaries(E);
  const Expr *Operand = nullptr;
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    Operand = Cast->getSubExprAsWritten(); // Pullback(back)
  else if (const auto *Temp = dyn_cast<CXXTemporaryObjectExpr>(E);
           Temp && Temp->getNumArgs() == 1)
    Operand = Temp->getArg(0); // Pullback{back}
  else
    return nullptr;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(stripTemporaries(Operand));
      Construct && Construct->getNumArgs() == 1 && !isa<CXXTemporaryObjectExpr>(Construct))
    Operand = Construct->getArg(0);
  if (const auto *List = dyn_cast<InitListExpr>(stripTemporaries(Operand));
      List && List->getNumInits() == 1)
    Operand = List->getInit(0);
  return Operand;
}

std::optional<FixItHint> dropExplicitConversion(const Expr *E, const SourceManager &SM,
                                                const LangOptions &LO) {
  const Expr *Operand = explicitConversionOperand(E);
  if (!Operand)
    return std::nullopt;
  CharSourceRange Inner = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Operand->getSourceRange()), SM, LO);
  CharSourceRange Outer = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(stripTemporaries(E)->getSourceRange()), SM, LO);
  if (Inner.isInvalid() || Outer.isInvalid())
    return std::nullopt;
  return FixItHint::CreateReplacement(Outer, Lexer::getSourceText(Inner, SM, LO));
}

namespace {

bool sameClass(QualType A, QualType B) {
  return A.getNonReferenceType().getCanonicalType().getUnqualifiedType() ==
         B.getNonReferenceType().getCanonicalType().getUnqualifiedType();
}

/// Whether a value of the variable's type stored in \p T is type-erased
/// again: std::any, or a callable wrapper of another type.
bool erasesAgain(QualType T, QualType VarType) {
  if (isAnyType(T))
    return true;
  std::string Name = qualifiedClassName(T);
  return !sameClass(T, VarType) &&
         (isOwningWrapper(T) || Name == "std::function_ref" ||
          Name == qualifiedClassName(VarType));
}

/// How the callable the variable holds may change its own state
/// (StoredCallable::stateChange), as far as its value is followed: from a
/// lambda or function object it is initialised with, a factory that returns
/// one, or another wrapper it copies. A function (or a pointer to one) and
/// an empty wrapper keep none; anything else (a parameter, a member, an
/// element, a call whose callable is not visible) is not followed, and the
/// change is UnseenCapture.
StoredCallable::StateChange heldStateChange(const VarDecl *Var) {
  using StateChange = StoredCallable::StateChange;
  // A lambda that captures the variable it initialises (`[pb] { ... }` in
  // pb's own initialiser) would lead back here.
  static thread_local unsigned Depth = 0;
  const Expr *Init = Var->getInit();
  if (isa<ParmVarDecl>(Var) || !Init || Depth > 4)
    return {StateChange::UnseenCapture};
  ++Depth;
  StateChange Held = [&]() -> StateChange {
    if (StoredCallable Callable = storedCallableOf(Init, Var->getType()))
      return Callable.stateChange();
    const Expr *Value = stripTemporaries(Init);
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Value);
        Construct && Construct->getNumArgs() == 0)
      return {}; // empty
    // Through the conversion into the wrapper, copies and std::move.
    for (unsigned Hops = 0; Hops < 4; ++Hops)
      if (const Expr *Operand = convertedOperand(Value))
        Value = stripTemporaries(Operand);
      else
        break;
    if (const auto *AddressOf = dyn_cast<UnaryOperator>(Value);
        AddressOf && AddressOf->getOpcode() == UO_AddrOf)
      Value = AddressOf->getSubExpr()->IgnoreParenImpCasts();
    if (isa<CXXNullPtrLiteralExpr>(Value))
      return {};
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Value)) {
      if (isa<FunctionDecl>(Ref->getDecl()))
        return {};
      if (const auto *Other = dyn_cast<VarDecl>(Ref->getDecl());
          Other && Other != Var && isOwningWrapper(Other->getType()))
        return heldStateChange(Other);
    }
    const auto *Call = dyn_cast<CallExpr>(Value);
    const FunctionDecl *Fn = Call ? Call->getDirectCallee() : nullptr;
    if (!Fn)
      return {StateChange::UnseenCapture};
    std::vector<const LambdaExpr *> Lambdas = returnedLambdas(Fn);
    if (!Lambdas.empty()) {
      StateChange Found;
      for (const LambdaExpr *Lambda : Lambdas) {
        StateChange Change = StoredCallable{Lambda, Lambda}.stateChange();
        if (Change.known())
          return Change;
        if (!Found)
          Found = Change;
      }
      return Found;
    }
    if (StoredCallable Object = singleReturnedCallable(Fn))
      return Object.stateChange();
    return {StateChange::UnseenCapture};
  }();
  --Depth;
  return Held;
}

/// Whether \p Fn's parameter \p I, a reference to a wrapper, is only copied
/// where \p Fn is defined: into a wrapper of its class (a copy, a copy
/// assignment, a lambda's capture) or into a standard container (push_back,
/// insert, ...). Then nothing is called through the reference: a callable
/// that keeps state changes only in the copies. False when the body is not
/// visible, or the parameter is used in any other way (called, passed on
/// by reference, in an unevaluated operand).
static bool parameterOnlyCopied(const FunctionDecl *Fn, unsigned I) {
  const FunctionDecl *Definition = nullptr;
  if (!Fn->hasBody(Definition) || !Definition->getBody() || I >= Definition->getNumParams())
    return false;
  struct Walk : RecursiveASTVisitor<Walk> {
    const ParmVarDecl *Param;
    bool OnlyCopied = true;
    std::vector<const Stmt *> Stack;
    bool TraverseStmt(Stmt *S) {
      if (!S)
        return true;
      Stack.push_back(S);
      bool Continue = RecursiveASTVisitor::TraverseStmt(S);
      Stack.pop_back();
      return Continue && OnlyCopied;
    }
    bool VisitDeclRefExpr(DeclRefExpr *Ref) {
      if (Ref->getDecl() != Param)
        return true;
      // In the body of a lambda that captured it by copy, it names the
      // closure's own copy.
      if (Ref->refersToEnclosingVariableOrCapture())
        for (auto It = Stack.rbegin(); It != Stack.rend(); ++It)
          if (const auto *Lambda = dyn_cast<LambdaExpr>(*It)) {
            OnlyCopied = llvm::any_of(Lambda->captures(), [&](const LambdaCapture &Capture) {
              return Capture.capturesVariable() && Capture.getCapturedVar() == Param &&
                     Capture.getCaptureKind() == LCK_ByCopy;
            });
            return OnlyCopied;
          }
      // Stack.back() is the reference itself.
      const Stmt *Operand = Ref, *User = nullptr;
      for (auto It = Stack.rbegin() + 1; It != Stack.rend() && !User; ++It)
        if (isa<ImplicitCastExpr, ParenExpr>(*It))
          Operand = *It;
        else
          User = *It;
      OnlyCopied = User && copies(User, Operand);
      return OnlyCopied;
    }
    bool copies(const Stmt *User, const Stmt *Operand) const {
      QualType Wrapper = Param->getType().getNonReferenceType();
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(User))
        return Construct->getConstructor()->isCopyConstructor() &&
               sameClass(Construct->getType(), Wrapper);
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(User)) {
        const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
        return Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 && Op->getArg(1) == Operand &&
               Method && Method->isCopyAssignmentOperator() &&
               sameClass(Op->getArg(0)->getType(), Wrapper);
      }
      if (const auto *Call = dyn_cast<CXXMemberCallExpr>(User)) {
        const CXXMethodDecl *Method = Call->getMethodDecl();
        return Method && Method->getParent()->isInStdNamespace() && Method->getIdentifier() &&
               llvm::is_contained({"push_back", "emplace_back", "push_front", "emplace_front",
                                   "insert", "emplace", "push", "assign"},
                                  Method->getName()) &&
               Call->getImplicitObjectArgument() != Operand;
      }
      return false;
    }
  } W;
  W.Param = Definition->getParamDecl(I);
  // A constructor's member initialisers are uses too.
  if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(Definition))
    for (const CXXCtorInitializer *Init : Constructor->inits())
      W.TraverseStmt(Init->getInit());
  W.TraverseStmt(const_cast<Stmt *>(Definition->getBody()));
  return W.OnlyCopied;
}

/// The uses of one local variable in a body, each followed from the
/// reference up to where its value ends: a call of it, a copy into its own
/// type, a return, an element of an aggregate. A walk of the body alone,
/// with its own parent links: no parent map of the translation unit.
class ClosureUses : public RecursiveASTVisitor<ClosureUses> {
public:
  explicit ClosureUses(const VarDecl *Var) : Var(Var) {
    StoredCallable::StateChange Held = heldStateChange(Var);
    Mutable = Held.known();
    Unseen = Held && !Mutable;
  }

  ClosureUseSummary summarize(Stmt *Body, const SourceManager &SM, unsigned Depth = 0) {
    this->Body = Body;
    this->SM = &SM;
    this->Depth = Depth;
    TraverseStmt(Body);
    ClosureUseSummary Summary;
    std::vector<const DeclRefExpr *> Moved;
    for (const DeclRefExpr *Use : Uses) {
      const Stmt *Callee = nullptr;
      MovedFrom = Rebuilt = RebuildOnlyCopies = false;
      if (!followUse(Use, Callee)) {
        Summary.OnlyClosureUses = false;
        Summary.RebuiltAgain = CopyRebuiltAgain;
        return Summary;
      }
      if (MovedFrom)
        Moved.push_back(Use);
      if (Rebuilt)
        Rebuilds.push_back(Use);
      if (Rebuilt && RebuildOnlyCopies)
        CopyingRebuilds.insert(Use);
      if (Callee)
        Summary.Calls.push_back(cast<CXXOperatorCallExpr>(Callee));
    }
    llvm::append_range(Summary.Calls, CopyCalls);
    // Moved from, the wrapper is empty (calling it throws); the closure
    // still runs, on moved-from captures: a use that may come after a
    // move (itself too, in a loop) tells them apart.
    auto ParentOf = [&](const Stmt *S) { return Parent.lookup(S); };
    for (const DeclRefExpr *Move : Moved)
      for (const DeclRefExpr *Use : Uses)
        if (mayRunBefore(Move, Use, Var, SM, ParentOf)) {
          Summary.OnlyClosureUses = false;
          return Summary;
        }
    // The wrapper is built once now, where the variable is declared; with
    // the fix, once per reference bound to the closure. One such binding
    // that runs at most once costs what the declaration costs now; more
    // (two of them, one in a loop or in a lambda called later) would build
    // the wrapper again and again: the erased variable is the cheaper form.
    for (const Stmt *Before : Rebuilds)
      for (const Stmt *After : Rebuilds)
        if (mayRunBefore(Before, After, Var, SM, ParentOf)) {
          Summary.OnlyClosureUses = false;
          Summary.RebuiltAgain = true;
          return Summary;
        }
    // The reference shares the wrapper now, and what a call through it
    // changes in a callable that keeps state, a later use sees; with the
    // fix it binds a wrapper built from a copy of the closure.
    // (A function that only copies what the reference binds calls
    // nothing through it.)
    if (Unseen)
      for (const Stmt *Rebuild : Rebuilds)
        for (const DeclRefExpr *Use : Uses)
          if (!CopyingRebuilds.contains(Rebuild) && Use != Rebuild &&
              mayRunBefore(Rebuild, Use, Var, SM, ParentOf)) {
            Summary.OnlyClosureUses = false;
            Summary.SharesState = Rebuild;
            return Summary;
          }
    Summary.Rebuilds = Rebuilds;
    return Summary;
  }

  bool TraverseStmt(Stmt *S) {
    if (!S)
      return true;
    if (!Stack.empty())
      Parent.try_emplace(S, Stack.back());
    Stack.push_back(S);
    bool Continue = RecursiveASTVisitor::TraverseStmt(S);
    Stack.pop_back();
    return Continue;
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (Ref->getDecl() == Var)
      Uses.push_back(Ref);
    return true;
  }

private:
  /// Follows one use of the variable to where its value goes; false when
  /// that place needs the erased type. \p Callee is set to the call when
  /// the use ends in `pb(args)`.
  bool followUse(const Expr *Use, const Stmt *&Callee) {
    const Expr *Cur = Use;
    Copied = false;
    // A reference in the variable's own initialiser (a recursive lambda)
    // cannot name a closure type that is still being deduced.
    if (const Expr *Init = Var->getInit();
        Init && Init->getSourceRange().fullyContains(Use->getSourceRange()))
      return false;
    for (unsigned Depth = 0; Depth < 16; ++Depth) {
      const Stmt *P = Parent.lookup(Cur);
      if (!P)
        return false; // outside any statement (decltype, a default argument)
      if (isa<ParenExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
              ExprWithCleanups>(P)) {
        Cur = cast<Expr>(P);
        continue;
      }
      if (const auto *Cast = dyn_cast<ImplicitCastExpr>(P)) {
        if (Cast->getCastKind() != CK_NoOp && Cast->getCastKind() != CK_LValueToRValue)
          return false; // to bool, to a base, ...
        Cur = Cast;
        continue;
      }
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
        // pb(args): a call of the closure. Anything else (pb = other,
        // other = pb, *pb) needs the wrapper's own operators.
        if (Op->getOperator() == OO_Call && Op->getArg(0) == Cur) {
          Callee = Op;
          return true;
        }
        return false;
      }
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(P)) {
        if (Construct->getNumArgs() == 1) {
          // A copy or move into its own type keeps the value; a conversion
          // into std::any or another wrapper erases it again; any other
          // conversion (std::optional<Pullback>, a user's node) keeps it in
          // a wrapper of that type, as before.
          if (sameClass(Construct->getType(), Var->getType())) {
            Copied = true;
            Cur = Construct;
            continue;
          }
          return !holdsErased(Construct->getType()) &&
                 paramTakesClosure(Construct->getConstructor(), Construct->arguments(), Cur);
        }
        // An element of a pair, tuple or struct built from several values:
        // each element keeps the type its parameter gives it.
        return Construct->getNumArgs() > 1 && !holdsErased(Construct->getType()) &&
               paramTakesClosure(Construct->getConstructor(),
                                                               Construct->arguments(), Cur);
      }
      if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(P)) {
        if (!sameClass(Cast->getType(), Var->getType()))
          return false;
        Copied = true;
        Cur = Cast;
        continue;
      }
      if (const auto *Call = dyn_cast<CallExpr>(P)) {
        const FunctionDecl *Fn = Call->getDirectCallee();
        if (Call->getCallee() == Cur || !Fn)
          return false;
        if (isStdFunction(Fn, {"move", "forward"})) {
          MovedFrom = true;
          Cur = Call;
          continue;
        }
        if (isStdFunction(Fn, {"invoke", "invoke_r"}) && Call->getNumArgs() > 0 &&
            Call->getArg(0) == Cur)
          return true;
        if (isDeducedPairOrTuple(Call)) {
          // With the fix it holds the closure, until converted into a
          // declared type (the rrule's result), which the construction
          // above checks; a local deduced from it is followed element by
          // element.
          Cur = Call;
          continue;
        }
        // Whether the call still finds the same function with the closure
        // (argument-dependent lookup, a better overload) is the fix
        // proof's to say: it compares what each such call resolves to.
        return paramTakesClosure(Fn, Call->arguments(), Cur);
      }
      if (const auto *Lambda = dyn_cast<LambdaExpr>(P))
        // Captured by copy or reference: the inner lambda's uses are uses
        // of the same variable, checked like the others.
        return llvm::is_contained(Lambda->capture_inits(), Cur);
      if (const auto *Init = dyn_cast<InitListExpr>(P)) {
        // A reference member bound to the variable shares it; the closure
        // would bind a temporary wrapper instead (which dies with the
        // full-expression when the aggregate is not a local's).
        const FieldDecl *Field = fieldInitialized(Init, Cur);
        if (Field && Field->getType()->isReferenceType())
          return false;
        // What the element initialises: a member, an array's element (a
        // std::initializer_list's too), or a scalar the list stands for.
        QualType Slot = Field ? Field->getType() : semanticForm(Init)->getType();
        if (const ArrayType *Array = Slot->getAsArrayTypeUnsafe())
          Slot = Array->getElementType();
        return !holdsErased(Slot) &&
               (sameClass(Slot, Var->getType()) || isInStdNamespace(Slot));
      }
      if (const auto *Return = dyn_cast<ReturnStmt>(P))
        // An rrule that returns `std::make_pair(y, back)` and deduces its
        // result: the pair its callers get holds the closure (the
        // callers are not followed).
        return Return->getRetValue() == Cur &&
               (returnKeepsType(Return) || isDeducedPairOrTuple(Cur));
      if (const auto *Decl = dyn_cast<DeclStmt>(P)) {
        // `Pullback copy = pb;` or `const auto &ref = pb;`: the copy is a
        // wrapper of its own; a non-const reference could reassign pb.
        // With a `mutable` lambda, a reference would bind a temporary
        // wrapper around a copy, not share the variable's state.
        for (const auto *D : Decl->decls())
          if (const auto *Other = dyn_cast<VarDecl>(D);
              Other && Other->getInit() == Cur) {
            QualType Type = Other->getType();
            if (isDeducedPairOrTuple(Cur) && !Type->isReferenceType() &&
                !isa<DecompositionDecl>(Other))
              // `auto p = std::make_pair(1, pb);`
              return elementsKeepClosure(Other);
            bool Shares = !Type->isReferenceType() ||
                          (!Mutable && Type->getPointeeType().isConstQualified());
            if (Type->getContainedDeducedType())
              // `auto copy = pb;`, `const auto &ref = pb;`: deduced from
              // the value, it becomes the closure type as well, so its
              // own uses must work with it.
              return Shares && sameClass(Type, Var->getType()) && copyKeepsClosure(Other);
            Rebuilt |= !Copied && Type->isReferenceType() && sameClass(Type, Var->getType());
            return Shares;
          }
        return false;
      }
      return false; // a member call, &pb, a condition, an assignment, ...
    }
    return false;
  }

  /// Whether a value of the variable's type kept in \p T would be erased
  /// again with the fix (the closure in a std::any, or in a wrapper of
  /// another type): \p T is such a type, an array of one, or a class
  /// template specialization with one among its type arguments, at any
  /// depth (`std::tuple<std::any>`, `std::optional<std::any>`,
  /// `std::pair<int, std::any>`).
  bool holdsErased(QualType T, unsigned Level = 0) const {
    T = T.getNonReferenceType();
    while (const ArrayType *Array = T->getAsArrayTypeUnsafe())
      T = Array->getElementType();
    if (erasesAgain(T, Var->getType()))
      return true;
    const auto *Spec =
        dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
    if (!Spec || Level > 4)
      return false;
    return llvm::any_of(typeArguments(Spec->getTemplateArgs().asArray()),
                        [&](QualType Arg) { return holdsErased(Arg, Level + 1); });
  }

  /// Whether \p E is a pair or tuple that std::make_pair (or
  /// std::make_tuple, std::forward_as_tuple) deduces from its arguments.
  static bool isDeducedPairOrTuple(const Expr *E) {
    const auto *Call = dyn_cast<CallExpr>(E->IgnoreImplicit());
    const FunctionDecl *Fn = Call ? Call->getDirectCallee() : nullptr;
    return Fn && isStdFunction(Fn, {"make_pair", "make_tuple", "forward_as_tuple"});
  }

  /// Whether \p T is a class of the standard library (whose constructors
  /// keep an element in the type its template arguments fix).
  static bool isInStdNamespace(QualType T) {
    const CXXRecordDecl *Class = T.getNonReferenceType()->getAsCXXRecordDecl();
    return Class && Class->isInStdNamespace();
  }

  /// Whether the uses of \p Tuple, a pair or tuple deduced from the
  /// variable's value (std::make_pair), work with the closure in it: the
  /// element of the variable's type, read as `.first`/`.second` or
  /// std::get, is followed like the variable; the other elements do not
  /// matter; any other use of the whole (a copy, a structured binding, an
  /// argument) is not followed, and needs the erasure.
  bool elementsKeepClosure(const VarDecl *Tuple) {
    struct Refs : RecursiveASTVisitor<Refs> {
      const VarDecl *Of;
      std::vector<const DeclRefExpr *> Found;
      bool VisitDeclRefExpr(DeclRefExpr *Ref) {
        if (Ref->getDecl() == Of)
          Found.push_back(Ref);
        return true;
      }
    } R;
    R.Of = Tuple;
    R.TraverseStmt(Body);
    for (const DeclRefExpr *Ref : R.Found) {
      const Expr *Element = nullptr;
      const Stmt *P = Parent.lookup(Ref);
      while (P && isa<ParenExpr, ImplicitCastExpr>(P))
        P = Parent.lookup(P);
      if (const auto *Member = dyn_cast_or_null<MemberExpr>(P))
        Element = Member;
      else if (const auto *Get = dyn_cast_or_null<CallExpr>(P);
               Get && Get->getDirectCallee() && isStdFunction(Get->getDirectCallee(), {"get"}))
        Element = Get;
      if (!Element)
        return false;
      if (!sameClass(Element->getType(), Var->getType()))
        continue; // another element
      const Stmt *Callee = nullptr;
      bool WasMoved = MovedFrom, WasRebuilt = Rebuilt;
      MovedFrom = Rebuilt = false;
      if (!followUse(Element, Callee) || MovedFrom)
        return false;
      if (Rebuilt)
        Rebuilds.push_back(Element);
      MovedFrom = WasMoved;
      Rebuilt = WasRebuilt;
      if (const auto *Call = dyn_cast_or_null<CXXOperatorCallExpr>(Callee))
        CopyCalls.push_back(Call);
    }
    return true;
  }

  /// Whether the uses of \p Copy, a local deduced from the variable, work
  /// with the closure type too (it becomes one with the fix).
  bool copyKeepsClosure(const VarDecl *Copy) {
    if (Depth >= 4 || !Body || !SM)
      return false;
    ClosureUseSummary Summary = ClosureUses(Copy).summarize(Body, *SM, Depth + 1);
    llvm::append_range(CopyCalls, Summary.Calls);
    llvm::append_range(Rebuilds, Summary.Rebuilds);
    CopyRebuiltAgain |= Summary.RebuiltAgain;
    return Summary.OnlyClosureUses;
  }

  /// The list as Sema completed it (the walk sees the list as written,
  /// which has no type).
  static const InitListExpr *semanticForm(const InitListExpr *Init) {
    if (Init->isSyntacticForm() && Init->getSemanticForm())
      return Init->getSemanticForm();
    return Init;
  }

  /// The member of an aggregate that \p Element of \p Init initialises
  /// (null for an array's element, or when the list has no such element).
  static const FieldDecl *fieldInitialized(const InitListExpr *Init, const Expr *Element) {
    const auto *Class = semanticForm(Init)->getType()->getAsCXXRecordDecl();
    if (!Class)
      return nullptr;
    if (Class->isUnion())
      return semanticForm(Init)->getInitializedFieldInUnion();
    // The walk records the list as written under the completed one.
    const InitListExpr *Written =
        Init->isSemanticForm() && Init->getSyntacticForm() ? Init->getSyntacticForm() : Init;
    unsigned I = 0;
    while (I < Written->getNumInits() && Written->getInit(I) != Element)
      ++I;
    if (I == Written->getNumInits()) {
      Written = semanticForm(Init);
      for (I = 0; I < Written->getNumInits() && Written->getInit(I) != Element;)
        ++I;
    }
    if (I == Written->getNumInits() || I < Class->getNumBases())
      return nullptr;
    I -= Class->getNumBases();
    for (const FieldDecl *Field : Class->fields()) {
      if (Field->isUnnamedBitField())
        continue;
      if (I-- == 0)
        return Field;
    }
    return nullptr;
  }

  /// Whether returning the variable from \p Return leaves the function's
  /// result type alone: it is written out, or every return of a function
  /// that deduces it returns this same variable. (`auto f() { Pullback p =
  /// ...; if (c) return p; return Pullback(other); }` deduces from both.)
  bool returnKeepsType(const ReturnStmt *Return) {
    const FunctionDecl *Owner = dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
    for (const Stmt *S = Return; S; S = Parent.lookup(S))
      if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
        Owner = Lambda->getCallOperator();
        break;
      }
    if (!Owner || !Owner->getDeclaredReturnType()->getContainedDeducedType())
      return true;
    return llvm::all_of(returnsOf(Owner), [&](const ReturnStmt *Other) {
      return Other->getRetValue() && localVariableOf(Other->getRetValue()) == Var;
    });
  }

  /// Whether the parameter \p Arg binds to takes the closure as well as the
  /// wrapper: by value or by const/rvalue reference, of the wrapper's own
  /// type, never deduced from it (a template parameter would change to the
  /// closure type: std::cref, a tape's `template <class F> record(F)`).
  template <class Args>
  bool paramTakesClosure(const FunctionDecl *Fn, Args Arguments, const Expr *Arg) {
    unsigned I = 0;
    for (const Expr *A : Arguments) {
      if (A == Arg)
        break;
      ++I;
    }
    if (I >= Fn->getNumParams())
      return false; // variadic
    if (deducedFromArgument(Fn, I))
      // A constructor of the standard library stores the value in a member
      // of a type its class fixes (pair's `U2 &&`; the caller checks that
      // type); one of a user's class may keep it in anything (a std::any
      // member); a function template keeps the deduced type.
      return isa<CXXConstructorDecl>(Fn) && cast<CXXConstructorDecl>(Fn)->getParent()->isInStdNamespace();
    QualType Param = Fn->getParamDecl(I)->getType();
    if (Param->isReferenceType() && !Param->isRValueReferenceType() &&
        !Param->getPointeeType().isConstQualified())
      return false;
    // A reference parameter binds the wrapper itself; the closure would be
    // converted into a temporary wrapper around a copy. A `mutable` lambda
    // called through it would then count on the copy, not on the variable.
    if (Mutable && Param->isReferenceType())
      return false;
    if (!sameClass(Param, Var->getType()))
      return false;
    if (!Copied && Param->isReferenceType()) {
      Rebuilt = true;
      // Asked only where it decides anything (the shared-state rule).
      RebuildOnlyCopies = Unseen && parameterOnlyCopied(Fn, I);
    }
    return true;
  }

  /// Whether parameter \p I of \p Fn has a type deduced from its argument
  /// (a parameter of a function template that names the template's own
  /// parameters, or any parameter from a pack on).
  static bool deducedFromArgument(const FunctionDecl *Fn, unsigned I) {
    const FunctionTemplateDecl *Template = Fn->getPrimaryTemplate();
    if (!Template)
      return false;
    const FunctionDecl *Pattern = Template->getTemplatedDecl();
    for (unsigned J = 0; J < Pattern->getNumParams() && J <= I; ++J)
      if (Pattern->getParamDecl(J)->isParameterPack())
        return true;
    if (I >= Pattern->getNumParams())
      return true;
    struct Finder : RecursiveASTVisitor<Finder> {
      unsigned Depth = 0;
      bool Found = false;
      bool VisitTemplateTypeParmType(TemplateTypeParmType *T) {
        Found |= T->getDepth() == Depth;
        return !Found;
      }
    } F;
    F.Depth = Template->getTemplateParameters()->getDepth();
    F.TraverseType(Pattern->getParamDecl(I)->getType());
    return F.Found;
  }

  const VarDecl *Var;
  /// The body walked, for the locals deduced from the variable.
  Stmt *Body = nullptr;
  const SourceManager *SM = nullptr;
  /// How many deduced copies deep this walk is.
  unsigned Depth = 0;
  /// The calls through those locals.
  std::vector<const CXXOperatorCallExpr *> CopyCalls;
  /// The callable held may change its own state (heldStateChange), or
  /// holds a wrapper whose callable is not followed.
  bool Mutable, Unseen;
  /// The use followed last went through std::move or std::forward.
  bool MovedFrom = false;
  /// The use followed last ends in a reference of the wrapper's type bound
  /// to the variable (a `const Pullback &` parameter or local): the
  /// wrapper itself now; with the fix, a wrapper built from the closure
  /// each time it runs.
  bool Rebuilt = false;
  /// The reference the use followed last binds is a parameter its
  /// function only copies (parameterOnlyCopied).
  bool RebuildOnlyCopies = false;
  /// The rebuilds that end so.
  llvm::SmallPtrSet<const Stmt *, 4> CopyingRebuilds;
  /// The use followed last was copied into a wrapper on the way
  /// (`Pullback(pb)`): a reference binds that copy, before and after.
  bool Copied = false;
  /// The uses that end so (those of deduced copies too).
  std::vector<const Stmt *> Rebuilds;
  /// A deduced copy's own uses bind it more than once.
  bool CopyRebuiltAgain = false;
  std::vector<const DeclRefExpr *> Uses;
  std::vector<const Stmt *> Stack;
  llvm::DenseMap<const Stmt *, const Stmt *> Parent;
};

const FunctionProtoType *wrapperSignature(QualType Wrapper) {
  QualType T = Wrapper.getNonReferenceType().getCanonicalType();
  llvm::ArrayRef<TemplateArgument> Args;
  if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl()))
    Args = Spec->getTemplateArgs().asArray();
  else if (const auto *Dependent = T->getAs<TemplateSpecializationType>())
    Args = Dependent->template_arguments(); // `std::function<T(T)>` in a template
  if (Args.empty() || Args[0].getKind() != TemplateArgument::Type)
    return nullptr;
  return Args[0].getAsType().getCanonicalType()->getAs<FunctionProtoType>();
}

QualType plain(QualType T) {
  return T.getNonReferenceType().getCanonicalType().getUnqualifiedType();
}

std::string quoted(QualType T, const PrintingPolicy &Policy) {
  return "'" + T.getAsString(Policy) + "'";
}

/// Why \p Op's parameters are not the signature's (up to references and
/// const), or nullopt when they are.
std::optional<std::string> parametersDiffer(const FunctionDecl *Op,
                                            const FunctionProtoType *Sig,
                                            const PrintingPolicy &Policy) {
  if (Op->isVariadic() || Op->getNumParams() != Sig->getNumParams())
    return "it takes " + std::to_string(Op->getNumParams()) +
           " parameters, the signature " + std::to_string(Sig->getNumParams());
  for (unsigned I = 0; I < Op->getNumParams(); ++I)
    if (plain(Op->getParamDecl(I)->getType()) != plain(Sig->getParamType(I)))
      return "its parameter " + std::to_string(I + 1) + " is " +
             quoted(Op->getParamDecl(I)->getType(), Policy) +
             ", the signature's is " + quoted(Sig->getParamType(I), Policy);
  return std::nullopt;
}

/// The argument as the caller wrote it: before implicit conversions and
/// copies, but after nothing that converts between class types.
const Expr *argumentAsWritten(const Expr *E) {
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    E = stripTemporaries(E);
    // `pb(x)` with a user-defined conversion of x: through the conversion
    // operator, or a constructor the code does not name (a copy, or
    // `Dual(float)` for a float passed where a Dual is taken).
    if (const auto *Convert = dyn_cast<CXXMemberCallExpr>(E);
        Convert && isa_and_nonnull<CXXConversionDecl>(Convert->getMethodDecl())) {
      E = Convert->getImplicitObjectArgument();
      continue;
    }
    const auto *Construct = dyn_cast<CXXConstructExpr>(E);
    if (!Construct || Construct->getNumArgs() != 1 ||
        isa<CXXTemporaryObjectExpr>(Construct) ||
        (!Construct->getConstructor()->isCopyOrMoveConstructor() &&
         Construct->isListInitialization()))
      return E;
    E = Construct->getArg(0);
  }
  return E;
}

/// Why calling the closure directly would let it modify an object of the
/// caller's where the wrapper gave it a copy, or nullopt: the signature
/// takes a parameter by value, the call operator \p Op by reference to
/// non-const, and its body may modify it (clang's ExprMutationAnalyzer).
/// Not when every call in \p Calls passes a temporary, which the closure
/// modifies as it did the wrapper's copy.
std::optional<std::string>
modifiesCallersArgument(const FunctionDecl *Op, const FunctionProtoType *Sig,
                        const std::vector<const CXXOperatorCallExpr *> *Calls) {
  const FunctionDecl *Def = Op;
  if (!Def->getBody())
    if (const FunctionDecl *Pattern = Op->getTemplateInstantiationPattern())
      Def = Pattern;
  const Stmt *Body = Def->getBody();
  for (unsigned I = 0; I < Sig->getNumParams() && I < Op->getNumParams(); ++I) {
    QualType Param = Op->getParamDecl(I)->getType();
    if (Sig->getParamType(I)->isReferenceType() || !Param->isReferenceType() ||
        Param.getNonReferenceType().isConstQualified())
      continue;
    if (Calls && llvm::all_of(*Calls, [&](const CXXOperatorCallExpr *Call) {
          return I + 1 < Call->getNumArgs() &&
                 argumentAsWritten(Call->getArg(I + 1))->isPRValue();
        }))
      continue;
    // The pattern's parameter that Op's was instantiated from: a generic
    // lambda's pack (`auto &&...dy`) is one parameter there, and an element
    // of it has none of its own (then it may be modified).
    std::optional<unsigned> Written =
        Def == Op ? std::optional<unsigned>(I) : patternParameterIndex(Op, I);
    if (!Body || !Written || *Written >= Def->getNumParams() ||
        ExprMutationAnalyzer(*Body, Op->getASTContext())
            .isMutated(Def->getParamDecl(*Written)))
      return "its parameter " + std::to_string(I + 1) +
             " is a reference it may modify, which would bind the caller's "
             "argument where the signature passes a copy";
  }
  return std::nullopt;
}

} // namespace

/// The type `auto` deduces from \p Fn's returns, or null when a return
/// depends on a template parameter or two returns differ.
QualType deducedFromReturns(const FunctionDecl *Fn) {
  QualType Deduced;
  ASTContext &Ctx = Fn->getASTContext();
  for (const ReturnStmt *Return : returnsOf(Fn)) {
    const Expr *Value = Return->getRetValue();
    if (!Value || Value->isTypeDependent() || isa<InitListExpr>(Value))
      return QualType();
    QualType T = Value->getType().getNonReferenceType();
    if (T->isArrayType() || T->isFunctionType())
      T = Ctx.getDecayedType(T);
    T = T.getCanonicalType().getUnqualifiedType();
    if (!Deduced.isNull() && T != Deduced)
      return QualType();
    Deduced = T;
  }
  return Deduced;
}

std::optional<std::string>
closureSignatureDiffers(QualType Wrapper, const LambdaExpr *Lambda,
                        const std::vector<const CXXOperatorCallExpr *> *Calls) {
  return closureSignatureDiffers(Wrapper, StoredCallable{Lambda, Lambda}, Calls);
}

std::optional<std::string>
closureSignatureDiffers(QualType Wrapper, const StoredCallable &Callable,
                        const std::vector<const CXXOperatorCallExpr *> *Calls) {
  const FunctionProtoType *Sig = wrapperSignature(Wrapper);
  if (!Sig)
    return std::nullopt; // a wrapper without a signature to compare with
  const CXXMethodDecl *Operator = nullptr;
  bool Generic = false, ExplicitResult = false;
  if (const LambdaExpr *Lambda = Callable.Lambda) {
    Operator = Lambda->getCallOperator();
    Generic = Lambda->isGenericLambda();
    ExplicitResult = Lambda->hasExplicitResultType();
  } else {
    auto Operators = callOperatorsOf(Callable.type()->getAsCXXRecordDecl());
    if (Operators.size() != 1)
      return "its class declares " + std::to_string(Operators.size()) +
             " call operators, and each call would choose one by what it "
             "passes, where the wrapper converts to the signature first";
    Operator = Callable.callOperator();
    if (!Operator)
      return std::string("its call operator is brought in by a using-declaration");
    Generic = Operator->getDescribedFunctionTemplate() != nullptr;
    ExplicitResult = !Operator->getDeclaredReturnType()->getContainedDeducedType();
  }
  PrintingPolicy Policy(Operator->getASTContext().getLangOpts());
  Policy.SuppressTagKeyword = true;
  const FunctionDecl *Op = Operator;
  if (Generic) {
    if (!Calls)
      return std::string("its call operator is generic, and callers may pass "
                         "types the signature converts");
    const FunctionDecl *Instance = nullptr;
    if (const FunctionTemplateDecl *Template = Operator->getDescribedFunctionTemplate())
      for (const FunctionDecl *Spec : Template->specializations())
        if (!parametersDiffer(Spec, Sig, Policy))
          Instance = Spec;
    if (!Instance)
      return std::string("its generic call operator is not instantiated for "
                         "the signature's parameter types");
    for (const CXXOperatorCallExpr *Call : *Calls)
      for (unsigned I = 1; I < Call->getNumArgs() && I - 1 < Sig->getNumParams(); ++I) {
        QualType Passed = argumentAsWritten(Call->getArg(I))->getType();
        if (plain(Passed) != plain(Sig->getParamType(I - 1)))
          return "it is generic, and a call passes " + quoted(Passed, Policy) +
                 " where the signature converts to " +
                 quoted(Sig->getParamType(I - 1), Policy);
      }
    Op = Instance;
  } else if (std::optional<std::string> Why = parametersDiffer(Op, Sig, Policy)) {
    return Why;
  }
  if (std::optional<std::string> Why = modifiesCallersArgument(Op, Sig, Calls))
    return Why;
  QualType Returned = Op->getReturnType();
  if ((Returned->isUndeducedType() || Returned->isDependentType()) && !ExplicitResult)
    // In a template, clang deduces a lambda's `auto` result only when it
    // instantiates it; returns that do not depend on the template give it
    // already (what `auto` deduces: the decayed, unqualified type).
    Returned = deducedFromReturns(Op);
  // A result written out (`-> T`) compares as written, dependent or not.
  if (Returned.isNull() || Returned->isUndeducedType() ||
      (Returned->isDependentType() && !ExplicitResult))
    return std::string("its result type is known only when the enclosing "
                       "template is instantiated");
  auto Canonical = [](QualType T) {
    T = T.getCanonicalType();
    return T->isReferenceType() ? T : T.getUnqualifiedType();
  };
  if (Canonical(Returned) != Canonical(Sig->getReturnType()))
    return "it returns " + quoted(Returned, Policy) + ", the signature " +
           quoted(Sig->getReturnType(), Policy);
  return std::nullopt;
}

const Stmt *statementParent(ASTContext &Ctx, const Stmt *S) {
  DynTypedNode Node = DynTypedNode::create(*S);
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    if (const Stmt *P = Parents[0].get<Stmt>())
      return P;
    // A variable's initialiser hangs below the variable, which is in its
    // DeclStmt (`int h = k.has_value();` in a loop is in the loop); a
    // lambda's body below its call operator and its class, which is in
    // the LambdaExpr.
    const auto *Var = Parents[0].get<VarDecl>();
    const auto *Operator = Parents[0].get<CXXMethodDecl>();
    const auto *Class = Parents[0].get<CXXRecordDecl>();
    if (Operator && Operator->getParent()->isLambda())
      Node = DynTypedNode::create(*Operator->getParent());
    else if ((Var && !isa<ParmVarDecl>(Var)) || (Class && Class->isLambda()))
      Node = Parents[0];
    else
      return nullptr;
  }
  return nullptr;
}

/// Whether \p Lambda is called where it is made (`[&] { ... }()`).
static bool calledInPlace(const LambdaExpr *Lambda,
                          llvm::function_ref<const Stmt *(const Stmt *)> ParentOf) {
  const Stmt *Closure = Lambda;
  const Stmt *P = ParentOf(Closure);
  while (P && isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
                  ParenExpr, ExprWithCleanups>(P)) {
    Closure = P;
    P = ParentOf(P);
  }
  const auto *Call = dyn_cast_or_null<CXXOperatorCallExpr>(P);
  return Call && Call->getOperator() == OO_Call && Call->getNumArgs() >= 1 &&
         Call->getArg(0) == Closure;
}

/// Whether \p A and \p B are in the two branches of one `if` or `?:`:
/// each time that runs, at most one of them does.
static bool inOtherBranches(const Stmt *A, const Stmt *B,
                            llvm::function_ref<const Stmt *(const Stmt *)> ParentOf) {
  llvm::DenseMap<const Stmt *, const Stmt *> ChildTowardsA;
  for (const Stmt *Prev = A, *S = ParentOf(A); S; Prev = S, S = ParentOf(S))
    ChildTowardsA.try_emplace(S, Prev);
  for (const Stmt *Prev = B, *S = ParentOf(B); S; Prev = S, S = ParentOf(S)) {
    auto Common = ChildTowardsA.find(S);
    if (Common == ChildTowardsA.end())
      continue;
    auto Split = [&](const Stmt *One, const Stmt *Other) {
      return One && Other &&
             ((Common->second == One && Prev == Other) || (Common->second == Other && Prev == One));
    };
    if (const auto *If = dyn_cast<IfStmt>(S))
      return Split(If->getThen(), If->getElse());
    if (const auto *Choice = dyn_cast<ConditionalOperator>(S))
      return Split(Choice->getTrueExpr(), Choice->getFalseExpr());
    return false;
  }
  return false;
}

/// Whether the statement \p S leaves the function, or the program, once it
/// has run: a `return`, a `throw` (whether a `try` in the function catches
/// it is returnsBefore's question), a call of a `[[noreturn]]` function
/// (`std::abort()`, `std::exit(1)`).
static bool leaves(const Stmt *S) {
  if (isa_and_nonnull<ReturnStmt>(S))
    return true;
  const auto *E = dyn_cast_or_null<Expr>(S);
  if (!E)
    return false;
  E = E->IgnoreImplicit();
  if (isa<CXXThrowExpr>(E))
    return true;
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return Callee && Callee->isNoReturn();
}

/// Whether \p S leaves the function on every path that reaches its end,
/// as written: a statement that leaves, or a block whose last statement
/// does.
static bool leavesAtEnd(const Stmt *S) {
  if (const auto *Block = dyn_cast_or_null<CompoundStmt>(S))
    return !Block->body_empty() && leavesAtEnd(Block->body_back());
  return leaves(S);
}

/// Whether \p S holds a statement of one of the kinds \p Kinds (itself
/// included); with \p IntoLambdas false, a lambda's body is its own.
template <class... Kinds> static bool holds(const Stmt *S, bool IntoLambdas) {
  if (isa<Kinds...>(S))
    return true;
  if (!IntoLambdas && isa<LambdaExpr>(S))
    return false;
  for (const Stmt *Child : S->children())
    if (Child && holds<Kinds...>(Child, IntoLambdas))
      return true;
  return false;
}

/// Whether \p S holds a statement that jumps elsewhere (`break`,
/// `continue`, `goto`); a lambda's body is its own.
static bool jumps(const Stmt *S) {
  return holds<BreakStmt, ContinueStmt, GotoStmt, IndirectGotoStmt>(S, false);
}

/// Whether every run of \p Use leaves the function before anything outside
/// the statement that holds it runs: \p Use is in a `return` or in the
/// branch of an `if` that ends in one, in a `throw` or a `[[noreturn]]`
/// call (`if (!train) { ...; return x; }`, `if (bad) { log(pb); throw
/// Error(); }`), without a jump
/// out of that branch, a `try` around it that could catch what it throws,
/// or a lambda around it (whose `return` leaves the lambda only). \p At
/// is neither in that branch nor in a lambda, whose body may run whenever.
static bool returnsBefore(const Stmt *Use, const Stmt *At,
                          llvm::function_ref<const Stmt *(const Stmt *)> ParentOf) {
  for (const Stmt *S = ParentOf(At); S; S = ParentOf(S))
    if (isa<LambdaExpr>(S))
      return false;
  const Stmt *Branch = nullptr;
  for (const Stmt *Prev = Use, *S = ParentOf(Use); S; Prev = S, S = ParentOf(S)) {
    if (isa<LambdaExpr, CXXTryStmt>(S))
      return false;
    // The statement that leaves itself (`case 0: return run(pb, x);` in a
    // `switch`, `throw Error(pb(1))`), or a branch that ends in one.
    const auto *If = dyn_cast<IfStmt>(S);
    const Stmt *Leaves = leaves(S) ? S
                         : If && (Prev == If->getThen() || Prev == If->getElse()) &&
                                 leavesAtEnd(Prev)
                             ? Prev
                             : nullptr;
    if (!Branch && Leaves && !jumps(Leaves) &&
        !Leaves->getSourceRange().fullyContains(At->getSourceRange()))
      Branch = Leaves;
  }
  return Branch != nullptr;
}

/// The parts of the loop \p Loop that run once each time the loop does
/// (a `for` statement's init, a range-based `for`'s init and range), not
/// once per iteration; none are null.
static llvm::SmallVector<const Stmt *, 3> runOncePerLoop(const Stmt *Loop) {
  llvm::SmallVector<const Stmt *, 3> Parts;
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    Parts.push_back(For->getInit());
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    Parts.append({Range->getInit(), Range->getRangeStmt(), Range->getRangeInit()});
  llvm::erase(Parts, nullptr);
  return Parts;
}

bool mayRunBefore(const Stmt *Use, const Stmt *At, const VarDecl *Var, const SourceManager &SM,
                  llvm::function_ref<const Stmt *(const Stmt *)> ParentOf) {
  // Nothing runs after a use whose every run ends in a `return`.
  if (returnsBefore(Use, At, ParentOf))
    return false;
  // Written before, it runs before, unless the two are in the two
  // branches of one `if` (then only a loop or a lambda around both, below,
  // runs one after the other).
  if (Use != At &&
      SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Use->getBeginLoc()),
                                   SM.getExpansionLoc(At->getBeginLoc())) &&
      !inOtherBranches(Use, At, ParentOf))
    return true;
  // Around \p At, a loop runs it again, and so may a lambda's body, which
  // runs whenever the closure is called: later than it is written (`auto
  // show = [&] { use(g); }; consume(std::move(g)); show();`), or more than
  // once, unless the lambda is called where it is made.
  const Stmt *Prev = At;
  for (const Stmt *S = ParentOf(At); S; Prev = S, S = ParentOf(S)) {
    const auto *Lambda = dyn_cast<LambdaExpr>(S);
    bool Body = Lambda && Prev == Lambda->getBody() && !calledInPlace(Lambda, ParentOf);
    llvm::SmallVector<const Stmt *, 3> Once = runOncePerLoop(S);
    if (!Body && (!isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S) || llvm::is_contained(Once, Prev)))
      continue;
    // A variable the loop declares each time round (in its body, condition
    // or as its range's element) starts afresh; one in a `for`'s init does
    // not.
    if (S->getSourceRange().fullyContains(Var->getSourceRange()) &&
        llvm::none_of(Once, [&](const Stmt *Part) {
          return Part->getSourceRange().fullyContains(Var->getSourceRange());
        }))
      return false; // declared afresh each time round
    if (Body || S->getSourceRange().fullyContains(Use->getSourceRange()))
      return true;
  }
  // A `goto` may run anything again, whatever the order it is written in.
  return Prev != At && holds<GotoStmt, IndirectGotoStmt>(Prev, true);
}

ClosureUseSummary closureUses(const VarDecl *Var, const Stmt *Body) {
  return ClosureUses(Var).summarize(const_cast<Stmt *>(Body),
                                    Var->getASTContext().getSourceManager());
}

bool onlyClosureUses(const VarDecl *Var, const Stmt *Body) {
  return closureUses(Var, Body).OnlyClosureUses;
}

} // namespace clang::tidy::gradlint
