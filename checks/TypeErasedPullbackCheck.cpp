//===--- TypeErasedPullbackCheck.cpp - gradlint ---------------------------===//
//
// Julia's `grad::Tuple{Any, Any}`: a pullback whose result is type-erased
// makes every caller pay for dynamic dispatch and hides the result's type
// from the compiler. Pullbacks are collected while matching (Pullbacks.h:
// by name, as an rrule's result, as a registration argument, by
// annotation), then analysed at the end of the translation unit, once the
// std::any_cast calls that a fix must also remove are known.
//
// The analysis looks at every return: through conversions into the erased
// type (`std::any(x)`, `std::make_any<T>(...)`, implicit conversions), and
// element by element through tuples, pairs, vectors, arrays and optionals.
// When every return produces the same concrete type, the fix declares it.
//
//===----------------------------------------------------------------------===//

#include "TypeErasedPullbackCheck.h"
#include "utils/CallSites.h"
#include "utils/Spelling.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::gradlint {
namespace {

constexpr llvm::StringLiteral DefaultErasedTypes =
    "std::any;boost::any;std::function;std::move_only_function;"
    "std::copyable_function";
constexpr llvm::StringLiteral DefaultTensorTypes = "*Tensor*;*Array*";

AST_MATCHER_P(FunctionDecl, registrationFunction,
              const TypeErasedPullbackCheck *, Check) {
  DeclarationName Name = Node.getDeclName();
  if (const IdentifierInfo *II = Name.getAsIdentifierInfo())
    return Check->mayBeRegistration(II->getName());
  // `Tape::operator<<`, configured as clang spells it.
  return Name.getNameKind() == DeclarationName::CXXOperatorName &&
         Check->mayBeRegistration(Name.getAsString());
}

/// `f` for `&f`, \p E otherwise.
const Expr *addressOperand(const Expr *E) {
  const auto *AddrOf = dyn_cast<UnaryOperator>(E);
  return AddrOf && AddrOf->getOpcode() == UO_AddrOf ? AddrOf->getSubExpr() : E;
}

} // namespace

/// The concrete type a return produces, as it will be written.
struct Concrete {
  std::string Spelling;
  std::string Key; // canonical, for comparing returns
  bool Spellable = true;
  /// An empty container (`std::nullopt`, `{}`): fits any element type.
  bool Empty = false;

  static Concrete empty() { return Concrete{"", "", true, /*Empty=*/true}; }
};

/// Works out the concrete type behind erased results, collecting the edits
/// that unwrap the explicit conversions into the erased type.
class ReturnAnalyzer {
public:
  ReturnAnalyzer(const ErasedTypeClassifier &Classifier, ASTContext &Ctx)
      : Classifier(Classifier), Ctx(Ctx), SM(Ctx.getSourceManager()),
        Policy(spellingPolicy(Ctx)) {
  }

  /// A call whose erased result a return passes on (the erasure's origin).
  const CallExpr *Origin = nullptr;
  /// Whether some expression could not be analysed at all.
  bool Unknown = false;
  /// Why a container's values say no one concrete type, where more can be
  /// said than that a return is erased (the first reason found): a note.
  struct Reason {
    SourceLocation At;
    std::string Text;
  };
  std::optional<Reason> NoFix;
  void explain(SourceLocation At, std::string Text) {
    if (!NoFix && At.isValid())
      NoFix = Reason{At, "no fix: " + std::move(Text)};
  }
  std::vector<FixItHint> Edits;
  bool EditsInMacro = false;

  std::optional<Concrete> concreteOf(QualType Target, const Expr *E) {
    Target = Target.getNonReferenceType().getUnqualifiedType();
    if (Classifier.isErased(Target))
      return leaf(Target, E);
    switch (containerKind(Target)) {
    case ContainerKind::Vector:
    case ContainerKind::Optional:
    case ContainerKind::Array:
      return homogeneous(Target, E);
    case ContainerKind::Tuple:
    case ContainerKind::Pair:
      return positional(Target, E);
    case ContainerKind::Map:
      return associative(Target, E);
    case ContainerKind::None:
      break;
    }
    return spell(E->getType());
  }

  Concrete spell(QualType T) {
    T = T.getNonReferenceType().getUnqualifiedType();
    // No function returns an array or a function; what the erased value
    // held is the pointer it decays to (std::any stores std::decay_t).
    if (T->isArrayType() || T->isFunctionType())
      T = Ctx.getDecayedType(T).getCanonicalType();
    Concrete C;
    C.Key = T.getCanonicalType().getAsString(Policy);
    if (const auto *RD = T->getAsCXXRecordDecl(); RD && RD->isLambda()) {
      C.Spellable = false;
      return C;
    }
    // With the aliases it was written with where they are safe to write
    // anywhere (`std::int64_t` stays portable, `std::string` readable);
    // otherwise canonical, so that library-internal alias sugar
    // (std::shared_ptr<std::_NonArray<T>>) does not leak into user code;
    // a dependent type keeps the template parameters' names.
    C.Spelling = T->isDependentType()
                     ? TypeName::getFullyQualifiedName(T, Ctx, Policy)
                     : aliasSpelling(T, Ctx, Policy)
                           .value_or(T.getCanonicalType().getAsString(Policy));
    // What clang prints for a type it has not resolved is no C++ a user
    // could have written: `<dependent type>`, `type-parameter-0-0`.
    if (T->isDependentType() &&
        (llvm::StringRef(C.Spelling).contains("dependent") ||
         llvm::StringRef(C.Spelling).contains("type-parameter-") ||
         llvm::StringRef(C.Spelling).contains("<overloaded")))
      C.Spellable = false;
    // std::any held the decayed value. A template parameter (`T` of a
    // forwarding `T &&`), a dependent member (`typename T::type`) or a
    // decltype may stand for a reference or a const type in an
    // instantiation: spelled as the result, it would return a reference
    // where the erased value held a copy. `auto` decays as std::any does.
    if (isa<TemplateTypeParmType, DependentNameType, DecltypeType, UnaryTransformType>(
            T.getCanonicalType().getTypePtr()))
      C.Spellable = false;
    return C;
  }

  std::string text(SourceRange R) {
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
    if (Range.isInvalid()) {
      EditsInMacro = true;
      return {};
    }
    return Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
  }

  /// Replaces \p R, which must be written in the file: rewriting a macro's
  /// expansion would drop whatever else the macro does.
  void replace(SourceRange R, std::string Text) {
    if (R.getBegin().isMacroID() || R.getEnd().isMacroID()) {
      EditsInMacro = true;
      return;
    }
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
    if (Range.isInvalid()) {
      EditsInMacro = true;
      return;
    }
    Edits.push_back(FixItHint::CreateReplacement(Range, std::move(Text)));
  }

  /// Removes what \p Outer writes around \p Inner (`std::any(` and `)`),
  /// leaving edits inside \p Inner (another check's fix) free to apply.
  void unwrap(const Expr *Outer, const Expr *Inner) {
    SourceRange O = Outer->getSourceRange();
    if (O.getBegin().isMacroID() || O.getEnd().isMacroID()) {
      EditsInMacro = true;
      return;
    }
    CharSourceRange OuterRange = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(O), SM, Ctx.getLangOpts());
    CharSourceRange InnerRange = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Inner->getSourceRange()), SM,
        Ctx.getLangOpts());
    if (OuterRange.isInvalid() || InnerRange.isInvalid()) {
      EditsInMacro = true;
      return;
    }
    SourceLocation HeadEnd = InnerRange.getBegin();
    SourceLocation TailBegin = InnerRange.getEnd();
    // `std::any_cast<T>(*m).v` -> `(*m).v`: an operator kept where its
    // value is an operand of another keeps the call's parentheses.
    if (std::optional<bool> Prefix = operatorKind(Inner);
        Prefix && isOperand(Outer, /*PostfixOnly=*/*Prefix)) {
      StringRef Head = Lexer::getSourceText(
          CharSourceRange::getCharRange(OuterRange.getBegin(), InnerRange.getBegin()), SM,
          Ctx.getLangOpts());
      StringRef Tail = Lexer::getSourceText(
          CharSourceRange::getCharRange(InnerRange.getEnd(), OuterRange.getEnd()), SM,
          Ctx.getLangOpts());
      if (!Head.rtrim().ends_with("(") || Tail.trim() != ")") {
        EditsInMacro = true; // no way to keep them
        return;
      }
      HeadEnd = OuterRange.getBegin().getLocWithOffset(Head.rtrim().size() - 1);
      TailBegin = OuterRange.getEnd();
    }
    Edits.push_back(
        FixItHint::CreateRemoval(CharSourceRange::getCharRange(OuterRange.getBegin(), HeadEnd)));
    if (TailBegin != OuterRange.getEnd())
      Edits.push_back(
          FixItHint::CreateRemoval(CharSourceRange::getCharRange(TailBegin, OuterRange.getEnd())));
  }

private:
  /// Whether \p E is an operator expression that an operator around it
  /// could split: true for a prefix one (`*m`, `&g`, a C-style cast), which
  /// only a postfix operator splits; false for a binary one (`a + b`,
  /// `c ? a : b`), which any operator may split; none otherwise.
  static std::optional<bool> operatorKind(const Expr *E) {
    E = E->IgnoreImplicit();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (llvm::is_contained({OO_Subscript, OO_Call, OO_Arrow}, Op->getOperator()) ||
          (Op->getNumArgs() == 2 &&
           llvm::is_contained({OO_PlusPlus, OO_MinusMinus}, Op->getOperator())))
        return std::nullopt; // postfix
      return Op->getNumArgs() == 1;
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(E))
      return Unary->isPostfix() ? std::nullopt : std::optional<bool>(true);
    if (isa<CStyleCastExpr>(E))
      return true;
    if (isa<BinaryOperator, AbstractConditionalOperator, CXXThrowExpr, LambdaExpr>(E))
      return false;
    return std::nullopt;
  }

  /// Whether \p E is the operand of an operator (a member access, a
  /// subscript, a call's callee, a postfix operator; unless
  /// \p PostfixOnly, also a prefix, binary or conditional operator), not a
  /// full expression, an argument or an initialiser.
  bool isOperand(const Expr *E, bool PostfixOnly, unsigned Depth = 0) const {
    if (Depth > 8)
      return true;
    // A node may have several parents (the two forms of a braced list):
    // it is an operand if it is one in any.
    for (const DynTypedNode &Parent : Ctx.getParents(*E)) {
      const auto *P = Parent.get<Expr>();
      if (!P)
        continue;
      if (isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr>(P)) {
        if (isOperand(P, PostfixOnly, Depth + 1))
          return true;
        continue;
      }
      bool Operand = false;
      if (const auto *Call = dyn_cast<CallExpr>(P); Call && !isa<CXXOperatorCallExpr>(Call))
        Operand = Call->getCallee()->IgnoreImplicit() == E->IgnoreImplicit();
      else if (isa<MemberExpr, ArraySubscriptExpr>(P))
        Operand = true;
      else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P); Op && PostfixOnly)
        Operand = Op->getArg(0) == E && !operatorKind(Op).has_value(); // `[]`, `()`, `->`
      else if (const auto *Unary = dyn_cast<UnaryOperator>(P); Unary && PostfixOnly)
        Operand = Unary->isPostfix();
      else
        Operand = !PostfixOnly && isa<UnaryOperator, BinaryOperator, AbstractConditionalOperator,
                                      CXXOperatorCallExpr, CStyleCastExpr>(P);
      if (Operand)
        return true;
    }
    return false;
  }

  /// Whether \p E, an explicit conversion, writes an erased type
  /// (`std::any(x)`), or is no explicit conversion.
  bool writesErasedOrNothing(const Expr *E) const {
    QualType Written;
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
      Written = Cast->getTypeAsWritten();
    else if (const auto *Unresolved = dyn_cast<CXXUnresolvedConstructExpr>(E))
      Written = Unresolved->getTypeAsWritten();
    else if (const auto *Temporary = dyn_cast<CXXTemporaryObjectExpr>(E))
      Written = Temporary->getTypeSourceInfo()->getType();
    return Written.isNull() || Classifier.isErased(Written);
  }

  /// Looks through an explicit or implicit conversion into an erased type:
  /// `std::any(x)`, `std::any{x}`, `static_cast<void *>(p)`, a converting
  /// constructor. Returns the converted operand, or null.
  const Expr *convertedOperand(const Expr *E) {
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      return Cast->getSubExpr();
    if (const auto *Cast = dyn_cast<CXXStaticCastExpr>(E))
      return Cast->getSubExpr();
    if (const auto *Unresolved = dyn_cast<CXXUnresolvedConstructExpr>(E))
      return Unresolved->getNumArgs() == 1 ? Unresolved->getArg(0) : nullptr;
    if (const auto *List = dyn_cast<InitListExpr>(E))
      return List->getNumInits() == 1 ? List->getInit(0) : nullptr;
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
      if (Construct->getNumArgs() == 1 &&
          !Construct->getConstructor()->isCopyOrMoveConstructor())
        return Construct->getArg(0);
    return nullptr;
  }

  /// The type written as the first template argument of \p E, a reference
  /// to a template specialization (`std::make_any<std::string>`,
  /// `std::in_place_type<Grad>`), with its aliases; null if none is written.
  static QualType writtenTypeArgument(const Expr *E) {
    const auto *Ref = dyn_cast<DeclRefExpr>(const_cast<Expr *>(E)->IgnoreUnlessSpelledInSource());
    if (!Ref || Ref->getNumTemplateArgs() == 0)
      return QualType();
    const TemplateArgumentLoc &Arg = Ref->template_arguments()[0];
    if (Arg.getArgument().getKind() != TemplateArgument::Type || !Arg.getTypeSourceInfo())
      return QualType();
    return Arg.getTypeSourceInfo()->getType();
  }

  /// `std::make_any<T>(args...)` or `std::any(std::in_place_type<T>,
  /// args...)`: the T made in place from \p Args, which \p E becomes
  /// (`T(args...)`; the argument itself when it already is a T).
  Concrete madeInPlace(const Expr *E, QualType Made, llvm::ArrayRef<const Expr *> Args) {
    Concrete C = spell(Made);
    if (Args.size() == 1 &&
        Ctx.hasSameUnqualifiedType(stripTemporaries(Args[0])->getType(), Made))
      unwrap(E, Args[0]);
    else if (Args.empty())
      replace(E->getSourceRange(), C.Spelling + "()");
    else
      replace(E->getSourceRange(),
              C.Spelling + "(" +
                  text(SourceRange(Args.front()->getBeginLoc(), Args.back()->getEndLoc())) +
                  ")");
    return C;
  }

  std::optional<Concrete> leaf(QualType Target, const Expr *Written) {
    const Expr *E = stripTemporaries(Written);
    // std::make_any<T>(args...) -> the T it makes.
    if (const auto *Call = dyn_cast<CallExpr>(E);
        Call && isStdFunction(Call->getDirectCallee(), {"make_any"})) {
      const TemplateArgumentList *Args =
          Call->getDirectCallee()->getTemplateSpecializationArgs();
      if (!Args || Args->size() == 0 ||
          Args->get(0).getKind() != TemplateArgument::Type)
        return std::nullopt;
      QualType Made = writtenTypeArgument(Call->getCallee());
      if (Made.isNull())
        Made = Args->get(0).getAsType();
      return madeInPlace(E, Made, {Call->getArgs(), Call->getNumArgs()});
    }
    // std::any(std::in_place_type<T>, args...) -> the same.
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
        Construct && Classifier.isErased(Construct->getType()) && Construct->getNumArgs() >= 1)
      if (const auto *Tag = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
              Construct->getArg(0)->getType()->getAsCXXRecordDecl());
          Tag && Tag->isInStdNamespace() && Tag->getName() == "in_place_type_t" &&
          Tag->getTemplateArgs().size() == 1 &&
          Tag->getTemplateArgs()[0].getKind() == TemplateArgument::Type) {
        QualType Made = writtenTypeArgument(Construct->getArg(0));
        if (Made.isNull())
          Made = Tag->getTemplateArgs()[0].getAsType();
        llvm::ArrayRef<const Expr *> Args(Construct->getArgs(), Construct->getNumArgs());
        return madeInPlace(E, Made, Args.drop_front());
      }
    // Peel conversions into the erased type; an explicit one is unwrapped.
    // In a template, an explicit conversion is peeled only when the type it
    // writes is the erased one: `std::reference_wrapper<T>(x)` is a value
    // of its own, which then converts into std::any.
    const Expr *Outer = E;
    bool Explicit = false;
    while (Classifier.isErased(E->getType()) ||
           (E->isTypeDependent() && writesErasedOrNothing(E))) {
      const Expr *Operand = convertedOperand(E);
      if (!Operand)
        break;
      Explicit |= isa<ExplicitCastExpr, CXXUnresolvedConstructExpr>(E) ||
                  isa<CXXTemporaryObjectExpr>(E);
      E = stripTemporaries(Operand);
    }
    if (Classifier.isErased(E->getType())) {
      // Already erased: from a call (the origin to report), or a variable.
      valuesFrom(E);
      return std::nullopt;
    }
    // In a template, clang may know nothing of the type (a call it cannot
    // resolve yet, `live ? (void *)&data : nullptr` on a dependent
    // condition): it may be the erased type itself, which `auto` would keep
    // (dlib's `storage_stack::get_ptr`). Asked where clang knows: a branch
    // of a `?:` whose type it knows, and the same expression in each
    // instantiation of the function.
    if (E->getType()->isSpecificBuiltinType(BuiltinType::Dependent) && erasedSomewhere(E)) {
      valuesFrom(E);
      return std::nullopt;
    }
    if (Explicit)
      unwrap(Outer, E);
    return spell(E->getType());
  }

  /// Whether \p E, an expression of a type clang does not know in a
  /// template, has an erased type: a branch of a `?:` of a known erased
  /// type, or the same expression (by its source range) in an
  /// instantiation of the function that holds it.
  bool erasedSomewhere(const Expr *E) const {
    if (const auto *Choice = dyn_cast<ConditionalOperator>(E->IgnoreParens()))
      for (const Expr *Branch : {Choice->getTrueExpr(), Choice->getFalseExpr()})
        if (!Branch->isTypeDependent() && Classifier.isErased(Branch->getType()))
          return true;
    if (!Function)
      return false;
    llvm::SmallVector<const FunctionDecl *, 4> Instances;
    if (const FunctionTemplateDecl *T = Function->getDescribedFunctionTemplate())
      for (const FunctionDecl *S : T->specializations())
        Instances.push_back(S);
    if (const auto *Method = dyn_cast<CXXMethodDecl>(Function))
      if (const ClassTemplateDecl *Class = Method->getParent()->getDescribedClassTemplate())
        for (const ClassTemplateSpecializationDecl *S : Class->specializations())
          for (const CXXMethodDecl *M : S->methods())
            if (M->getInstantiatedFromMemberFunction() == Method)
              Instances.push_back(M);
    // The innermost expression written there: around it, the conversion
    // into the erased result type has the same place.
    struct Same : RecursiveASTVisitor<Same> {
      SourceRange Range;
      const Expr *Found = nullptr;
      bool VisitExpr(Expr *X) {
        if (X->getSourceRange() == Range)
          Found = X;
        return true;
      }
    };
    for (const FunctionDecl *Instance : Instances) {
      if (!Instance->getBody())
        continue;
      Same Finder;
      Finder.Range = E->getSourceRange();
      Finder.TraverseStmt(Instance->getBody());
      if (Finder.Found && Classifier.isErased(Finder.Found->getType()))
        return true;
    }
    return false;
  }

public:
  /// The function whose returns are analysed (its instantiations tell
  /// what a dependent return produces).
  const FunctionDecl *Function = nullptr;

private:
  /// The written type of an explicit construction of \p Target, so that
  /// `std::vector<std::any>{...}` is respelled with the new element type.
  void respellWrittenType(const Expr *E, const std::string &Spelling) {
    TypeSourceInfo *Written = nullptr;
    if (const auto *Temp = dyn_cast<CXXTemporaryObjectExpr>(E))
      Written = Temp->getTypeSourceInfo();
    else if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      Written = Cast->getTypeInfoAsWritten();
    if (Written)
      replace(Written->getTypeLoc().getSourceRange(), Spelling);
  }

  static const InitListExpr *initializerList(const Expr *E) {
    E = stripTemporaries(E);
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      E = stripTemporaries(Cast->getSubExpr());
    if (const auto *List = dyn_cast<InitListExpr>(E))
      return List;
    // vector(initializer_list, allocator = default)
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
      if (Construct->getNumArgs() >= 1)
        if (const auto *StdList = dyn_cast<CXXStdInitializerListExpr>(
                stripTemporaries(Construct->getArg(0))))
          return dyn_cast<InitListExpr>(stripTemporaries(StdList->getSubExpr()));
    return nullptr;
  }

  /// `std::vector<std::any> grads; grads.push_back(x); ... return grads;`:
  /// the values the local container \p Written names is filled with, when
  /// that is all its function does with it: declared empty and alone in
  /// its statement, with its type written; then only `push_back(x)`,
  /// `emplace_back(x)` (a map: `grads[k] = x`, `emplace(k, x)`,
  /// `try_emplace(k, x)`, `insert_or_assign(k, x)`), their results unused,
  /// `reserve`, `size`, `empty`, `capacity`, and returns of it. \p Local is
  /// set to it; nullopt (and \p Local untouched) otherwise.
  std::optional<std::vector<const Expr *>> filledLocal(QualType Target, const Expr *Written,
                                                      const VarDecl *&Local) {
    const VarDecl *Var = localVariableOf(Written);
    if (!Var || Var->isStaticLocal() || Var->getType()->isReferenceType() ||
        Var->getType()->getContainedDeducedType() ||
        !Ctx.hasSameUnqualifiedType(Var->getType(), Target) || !writtenTypeRange(Var))
      return std::nullopt;
    std::string Name = quotedName(Var);
    if (const Expr *Init = Var->getInit()) {
      const Expr *E = stripTemporaries(Init);
      const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      const auto *List = dyn_cast<InitListExpr>(E);
      if (!(Construct && Construct->getNumArgs() == 0) && !(List && List->getNumInits() == 0)) {
        // `grads(n)` holds n empty std::any already.
        explain(Var->getLocation(), Name + " is created with elements or from another "
                                           "value; only a local created empty and then "
                                           "filled says what it holds");
        return std::nullopt;
      }
    }
    const auto *Fn = dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
    if (!Fn || !Fn->getBody())
      return std::nullopt;
    if (!isOnlyDeclarationInStatement(Var, Fn->getBody())) {
      explain(Var->getLocation(),
              Name + " is declared together with another variable, whose type the fix "
                     "would change with it");
      return std::nullopt;
    }
    struct Uses : RecursiveASTVisitor<Uses> {
      const VarDecl *Var;
      ASTContext &Ctx;
      bool Map;
      std::vector<const Expr *> Values;
      /// Every reference to the local, and those the uses below account for.
      std::vector<const DeclRefExpr *> All;
      llvm::SmallPtrSet<const Expr *, 8> Accounted;
      /// Every reference to the local inside \p S (`std::move(grads)`).
      void accountWithin(const Stmt *S) {
        if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(S); Ref && Ref->getDecl() == Var)
          Accounted.insert(Ref);
        if (S)
          for (const Stmt *Child : S->children())
            accountWithin(Child);
      }
      void account(const Expr *E) {
        if (const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
          Accounted.insert(Ref);
      }
      Uses(const VarDecl *Var, ASTContext &Ctx)
          : Var(Var), Ctx(Ctx), Map(containerKind(Var->getType()) == ContainerKind::Map) {}
      bool isVar(const Expr *E) {
        const auto *Object = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
        return Object && Object->getDecl() == Var;
      }
      /// `grads[k] = x;` of a map.
      bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Assign) {
        if (!Map || Assign->getOperator() != OO_Equal || Assign->getNumArgs() != 2)
          return true;
        const auto *Subscript =
            dyn_cast<CXXOperatorCallExpr>(Assign->getArg(0)->IgnoreParenImpCasts());
        if (Subscript && Subscript->getOperator() == OO_Subscript &&
            isVar(Subscript->getArg(0)) && resultUnused(Assign)) {
          Values.push_back(Assign->getArg(1));
          account(Subscript->getArg(0));
        }
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *Ref) {
        if (Ref->getDecl() == Var)
          All.push_back(Ref);
        return true;
      }
      bool VisitReturnStmt(ReturnStmt *Return) {
        if (Return->getRetValue() && localVariableOf(Return->getRetValue()) == Var)
          accountWithin(Return->getRetValue());
        return true;
      }
      bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
        const CXXMethodDecl *Method = Call->getMethodDecl();
        if (!isVar(Call->getImplicitObjectArgument()) || !Method || !Method->getIdentifier())
          return true;
        llvm::StringRef Name = Method->getName();
        if (!Map && (Name == "push_back" || Name == "emplace_back") &&
            Call->getNumArgs() == 1 && resultUnused(Call)) {
          Values.push_back(Call->getArg(0));
          account(Call->getImplicitObjectArgument());
        } else if (Map &&
                   llvm::is_contained({"emplace", "try_emplace", "insert_or_assign"}, Name) &&
                   Call->getNumArgs() == 2 && resultUnused(Call)) {
          Values.push_back(Call->getArg(1));
          account(Call->getImplicitObjectArgument());
        } else if (llvm::is_contained({"reserve", "size", "empty", "capacity"}, Name)) {
          account(Call->getImplicitObjectArgument());
        }
        return true;
      }
      /// `emplace_back` returns the element: a use of it would see another
      /// type.
      bool resultUnused(const Expr *Call) {
        for (const DynTypedNode &Parent : Ctx.getParents(*Call)) {
          const Stmt *S = Parent.get<Stmt>();
          if (S && isa<ExprWithCleanups>(S))
            return resultUnused(cast<Expr>(S));
          if (!S || isa<Expr>(S))
            return false;
        }
        return true;
      }
    } Scan(Var, const_cast<ASTContext &>(Ctx));
    Scan.TraverseStmt(Fn->getBody());
    // Read, changed or passed on some other way.
    for (const DeclRefExpr *Ref : Scan.All)
      if (!Scan.Accounted.count(Ref)) {
        explain(Ref->getLocation(),
                Name + " is used here other than to be filled, sized or returned, and "
                       "would see the concrete type");
        return std::nullopt;
      }
    Local = Var;
    return Scan.Values;
  }

  /// The one concrete type \p Values give a slot of type \p Slot: nullopt
  /// when one gives none or two differ, and when there are none (Unknown
  /// then). A value that holds nothing (`std::nullopt`) says nothing;
  /// Concrete::empty() when none says anything.
  std::optional<Concrete> commonConcrete(QualType Slot, llvm::ArrayRef<const Expr *> Values) {
    if (Values.empty()) {
      Unknown = true;
      return std::nullopt;
    }
    std::optional<Concrete> First;
    for (const Expr *Value : Values) {
      std::optional<Concrete> C = concreteOf(Slot, Value);
      if (!C)
        return std::nullopt;
      if (C->Empty)
        continue;
      if (First && C->Key != First->Key) {
        explain(Value->getBeginLoc(), "this value is '" + C->Spelling + "', another is '" +
                                          First->Spelling + "'; the erasure joins them");
        return std::nullopt;
      }
      First = C;
    }
    return First ? First : Concrete::empty();
  }

  std::optional<Concrete> homogeneous(QualType Target, const Expr *Written) {
    const auto *Spec = cast<ClassTemplateSpecializationDecl>(
        Target->getAsCXXRecordDecl());
    QualType Element = Spec->getTemplateArgs().get(0).getAsType();
    const InitListExpr *List = initializerList(Written);
    // std::array<T, N>{{...}}: the braces of the inner C array.
    if (List && List->getNumInits() == 1)
      if (const auto *Inner = dyn_cast<InitListExpr>(stripTemporaries(List->getInit(0)));
          Inner && Inner->getType()->isArrayType())
        List = Inner;
    ContainerKind Kind = containerKind(Target);
    std::vector<const Expr *> Elements;
    const VarDecl *Local = nullptr;
    if (List)
      Elements.assign(List->inits().begin(), List->inits().end());
    else if (Kind == ContainerKind::Vector) {
      if (std::optional<std::vector<const Expr *>> Filled = filledLocal(Target, Written, Local))
        Elements = std::move(*Filled);
    } else if (Kind == ContainerKind::Optional) {
      // `return x;` into std::optional<std::any>: the optional's converting
      // constructor holds the element; `return std::nullopt;` holds none
      // and says nothing about the element type.
      const Expr *E = stripTemporaries(Written);
      const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      const Expr *Held =
          Construct && Construct->getNumArgs() >= 1 &&
                  !Construct->getConstructor()->isCopyOrMoveConstructor()
              ? Construct->getArg(0)
          : containerKind(E->getType()) != ContainerKind::Optional ? Written
                                                                   : nullptr;
      if (Held && qualifiedClassName(stripTemporaries(Held)->getType()) == "std::nullopt_t")
        return Concrete::empty();
      if (Held)
        Elements.push_back(Held);
    }
    if (Elements.empty() && !List && !Local) {
      valuesFrom(Written);
      return std::nullopt;
    }
    std::optional<Concrete> First = commonConcrete(Element, Elements);
    if (!First || First->Empty)
      return First;
    if (!First->Spellable)
      return std::nullopt;
    std::string Name = qualifiedSpelling(Spec->getSpecializedTemplate());
    std::string Spelling = Name + "<" + First->Spelling;
    if (Kind == ContainerKind::Array)
      Spelling += ", " + toString(Spec->getTemplateArgs().get(1).getAsIntegral(), 10);
    Spelling += ">";
    respellWrittenType(stripTemporaries(Written), Spelling);
    if (Local)
      replace(writtenTypeRange(Local)->getAsRange(), Spelling);
    return Concrete{Spelling, Name + "<" + First->Key + ">", true};
  }

  /// std::map / std::unordered_map of an erased mapped type, returned as
  /// a braced list of `{key, value}` pairs or as a filled local: the values
  /// give the mapped type. The key, and a comparison, hash or equality of
  /// the user's, keep their written types; an allocator of the user's
  /// (it allocates the erased values) gives no fix.
  std::optional<Concrete> associative(QualType Target, const Expr *Written) {
    const auto *Spec = cast<ClassTemplateSpecializationDecl>(
        Target->getAsCXXRecordDecl());
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    // An argument as the user wrote it (`std::string`), where the type
    // says.
    const auto *WrittenSpec = Target->getAs<TemplateSpecializationType>();
    auto WrittenArgument = [&](unsigned I) {
      if (WrittenSpec && I < WrittenSpec->template_arguments().size() &&
          WrittenSpec->template_arguments()[I].getKind() == TemplateArgument::Type)
        return WrittenSpec->template_arguments()[I].getAsType();
      return Args.get(I).getAsType();
    };
    QualType Key = WrittenArgument(0), Mapped = Args.get(1).getAsType();
    // The comparison (std::map), hash and equality (std::unordered_map)
    // compare keys: the user's own are kept, as written. The allocator
    // allocates the std::any values, and a user's names them.
    bool IsMap = qualifiedClassName(Target) == "std::map";
    llvm::StringRef Defaults[] = {"std::less"};
    llvm::StringRef HashDefaults[] = {"std::hash", "std::equal_to"};
    llvm::ArrayRef<llvm::StringRef> Functors =
        IsMap ? llvm::ArrayRef(Defaults) : llvm::ArrayRef(HashDefaults);
    unsigned Kept = 2; // the arguments to spell: key, mapped and functors
    for (unsigned I = 2; I < Args.size(); ++I) {
      if (Args.get(I).getKind() != TemplateArgument::Type) {
        Unknown = true;
        return std::nullopt;
      }
      QualType Arg = Args.get(I).getAsType();
      std::string Shown = WrittenArgument(I).getAsString(Policy);
      if (I - 2 >= Functors.size()) { // the allocator
        if (qualifiedClassName(Arg) == "std::allocator")
          continue;
        explain(Written->getBeginLoc(), "the map's allocator '" + Shown +
                                            "' is the user's, and allocates the erased values");
        Unknown = true;
        return std::nullopt;
      }
      if (Classifier.findErased(Arg)) {
        explain(Written->getBeginLoc(), "the map's '" + Shown + "' names the erased type");
        Unknown = true;
        return std::nullopt;
      }
      const auto *Functor =
          dyn_cast_or_null<ClassTemplateSpecializationDecl>(Arg->getAsCXXRecordDecl());
      bool Default = Functor && qualifiedClassName(Arg) == Functors[I - 2] &&
                     Functor->getTemplateArgs().size() == 1 &&
                     Functor->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
                     Ctx.hasSameType(Functor->getTemplateArgs()[0].getAsType(),
                                     Args.get(0).getAsType());
      if (!Default)
        Kept = I + 1;
    }
    std::string Functor, FunctorKey;
    for (unsigned I = 2; I < Kept; ++I) {
      Concrete C = spell(WrittenArgument(I));
      if (!C.Spellable)
        return std::nullopt;
      Functor += ", " + C.Spelling;
      FunctorKey += ", " + C.Key;
    }
    std::vector<const Expr *> Values;
    const VarDecl *Local = nullptr;
    if (const InitListExpr *List = initializerList(Written)) {
      for (const Expr *Init : List->inits()) {
        std::vector<const Expr *> Pair = elementsOf(Init);
        if (Pair.size() != 2) {
          Unknown = true;
          return std::nullopt;
        }
        Values.push_back(Pair[1]);
      }
    } else if (std::optional<std::vector<const Expr *>> Filled =
                   filledLocal(Target, Written, Local)) {
      Values = std::move(*Filled);
    } else {
      valuesFrom(Written);
      return std::nullopt;
    }
    std::optional<Concrete> First = commonConcrete(Mapped, Values);
    if (!First || First->Empty || !First->Spellable)
      return std::nullopt;
    Concrete KeyType = spell(Key);
    if (!KeyType.Spellable)
      return std::nullopt;
    std::string Name = qualifiedSpelling(Spec->getSpecializedTemplate());
    std::string Spelling =
        Name + "<" + KeyType.Spelling + ", " + First->Spelling + Functor + ">";
    respellWrittenType(stripTemporaries(Written), Spelling);
    if (Local)
      replace(writtenTypeRange(Local)->getAsRange(), Spelling);
    return Concrete{Spelling,
                    Name + "<" + KeyType.Key + ", " + First->Key + FunctorKey + ">", true};
  }

  /// An erased value \p Written whose parts are not in sight: when it is a
  /// call's result (`return make_grads(dy);`), that call is the erasure's
  /// origin (notes follow it); otherwise nothing is known.
  void valuesFrom(const Expr *Written) {
    const auto *Call = dyn_cast<CallExpr>(stripTemporaries(Written));
    if (Call && Call->getDirectCallee())
      Origin = Call;
    else
      Unknown = true;
  }

  std::optional<Concrete> positional(QualType Target, const Expr *Written) {
    const auto *Spec = cast<ClassTemplateSpecializationDecl>(
        Target->getAsCXXRecordDecl());
    llvm::SmallVector<QualType, 4> Types = typeArguments(Spec->getTemplateArgs().asArray());
    std::vector<const Expr *> Elements = elementsOf(Written);
    if (Elements.size() != Types.size()) {
      const Expr *E = stripTemporaries(Written);
      if (const auto *Call = dyn_cast<CallExpr>(E); Call && Call->getDirectCallee() &&
                                                    !Classifier.findErased(E->getType()))
        return spell(E->getType());
      valuesFrom(E);
      return std::nullopt;
    }
    std::string Name = qualifiedSpelling(Spec->getSpecializedTemplate());
    std::string Spelling = Name + "<", Key = Name + "<";
    for (size_t I = 0; I < Types.size(); ++I) {
      std::optional<Concrete> C = concreteOf(Types[I], Elements[I]);
      if (!C || !C->Spellable || C->Empty)
        return std::nullopt; // an empty element does not say its type
      Spelling += (I ? ", " : "") + C->Spelling;
      Key += (I ? ", " : "") + C->Key;
    }
    Spelling += ">";
    Key += ">";
    respellWrittenType(stripTemporaries(Written), Spelling);
    return Concrete{Spelling, Key, true};
  }

  const ErasedTypeClassifier &Classifier;
  ASTContext &Ctx;
  const SourceManager &SM;
  PrintingPolicy Policy;
};

namespace {

/// Whether \p Method hands out an element of a standard container:
/// `g.at(1)`, `g.front()`, `g.back()`, an optional's `m.value()`.
bool isElementMethod(const CXXMethodDecl *Method) {
  if (!Method || !Method->getParent()->isInStdNamespace() || !Method->getIdentifier())
    return false;
  if (Method->getName() == "value")
    return containerKind(Method->getThisType()->getPointeeType()) ==
           ContainerKind::Optional;
  return llvm::is_contained({"at", "front", "back"}, Method->getName());
}

/// Whether \p Op hands out an element of its object: `g[1]`, an
/// optional's `*m`.
bool isElementOperator(const CXXOperatorCallExpr *Op) {
  if (Op->getOperator() == OO_Subscript)
    return true;
  return Op->getOperator() == OO_Star && Op->getNumArgs() == 1 &&
         containerKind(Op->getArg(0)->getType()) == ContainerKind::Optional;
}

/// The range-based `for` that declares \p Var, as its range variable
/// (`auto &&__range = g;`) or as the variable of each element, if any.
const CXXForRangeStmt *rangeLoopOf(const VarDecl *Var, ASTContext &Ctx) {
  if (!Var->isImplicit() && !Var->isCXXForRangeDecl())
    return nullptr;
  for (const DynTypedNode &Statement : Ctx.getParents(*Var))
    if (const auto *Declaration = Statement.get<DeclStmt>())
      for (const DynTypedNode &Above : Ctx.getParents(*Declaration))
        if (const auto *Loop = Above.get<CXXForRangeStmt>();
            Loop && (Loop->getRangeStmt() == Declaration || Loop->getLoopVarStmt() == Declaration))
          return Loop;
  return nullptr;
}

/// A local whose type is deduced from what it is initialised with: the
/// name the code uses (\p Named: the variable, or one of the structured
/// bindings of \p Var), the variable, and the expression its value comes
/// from (\p Source: the initialiser, or the range of a range-based `for`
/// whose elements the variable names, \p Element set).
struct DeducedLocal {
  const ValueDecl *Named = nullptr;
  const VarDecl *Var = nullptr;
  const Expr *Source = nullptr;
  bool Element = false;
  explicit operator bool() const { return Named != nullptr; }
  /// Whether it holds the whole of what it comes from (not one element).
  bool whole() const { return !Element; }
};

/// The local \p E names when its type was deduced from its initialiser
/// (`auto g = pb(dy);`, or a reference bound to the temporary result:
/// `auto &&g = pb(dy);`, `const auto &g = pb(dy);`; a structured binding
/// of one, `auto [a, b] = pb(dy);`, and the variable of a range-based `for`
/// over one, `for (const auto &e : g)`, name one of its elements): it takes
/// the concrete type once the pullback has it. A local declared with the
/// erased type keeps it (the concrete value converts into it), and so do
/// its casts.
DeducedLocal deducedLocal(const Expr *E) {
  const auto *Ref = dyn_cast<DeclRefExpr>(stripTemporaries(E));
  if (!Ref)
    return {};
  const auto *Binding = dyn_cast<BindingDecl>(Ref->getDecl());
  const auto *Var = Binding ? dyn_cast_or_null<VarDecl>(Binding->getDecomposedDecl())
                            : dyn_cast<VarDecl>(Ref->getDecl());
  if (!Var || !Var->isLocalVarDecl() || !Var->getType()->getContainedDeducedType() ||
      !Var->getInit())
    return {};
  const ValueDecl *Named = Binding ? static_cast<const ValueDecl *>(Binding) : Var;
  if (Var->isCXXForRangeDecl()) {
    const CXXForRangeStmt *Loop = rangeLoopOf(Var, Var->getASTContext());
    if (!Loop || Loop->getLoopVariable() != Var)
      return {};
    return {Named, Var, Loop->getRangeInit(), /*Element=*/true};
  }
  if (Var->getType()->isReferenceType() && !stripTemporaries(Var->getInit())->isPRValue())
    return {};
  return {Named, Var, Var->getInit(), /*Element=*/Binding != nullptr};
}

/// The call an std::any_cast's operand goes back to: `pb(dy)`,
/// `pb(dy)[0]`, `std::get<0>(pb(dy))`, `pb(dy).first`, the address of one
/// of these (`&g`, the pointer form), a local whose type is deduced from
/// one (a structured binding of one included), or `std::move` of one.
/// \p MapSubscript is set to a map's `m[k]` on the way; the locals passed
/// through are added to \p Locals.
const CallExpr *castOperandSource(const Expr *E, const Expr **MapSubscript = nullptr,
                                  llvm::SmallVectorImpl<DeducedLocal> *Locals = nullptr) {
  for (unsigned Depth = 0; E && Depth < 6; ++Depth) {
    E = stripTemporaries(E);
    if (const auto *AddrOf = dyn_cast<UnaryOperator>(E);
        AddrOf && AddrOf->getOpcode() == UO_AddrOf) {
      E = AddrOf->getSubExpr();
    } else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E)) {
      E = Subscript->getBase();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
               Op && isElementOperator(Op)) {
      if (MapSubscript && containerKind(Op->getArg(0)->getType()) == ContainerKind::Map)
        *MapSubscript = Op;
      E = Op->getArg(0);
    } else if (const auto *Element = dyn_cast<CXXMemberCallExpr>(E);
               Element && isElementMethod(Element->getMethodDecl())) {
      // `g.at(1)`, `g.front()`, `m.value()`: an element, as `g[1]` is.
      E = Element->getImplicitObjectArgument();
    } else if (const auto *Member = dyn_cast<MemberExpr>(E);
               Member && !Member->isArrow() &&
               containerKind(Member->getBase()->getType()) == ContainerKind::Pair) {
      // `g.first`, `g.second`: an element, as `std::get<0>(g)` is.
      E = Member->getBase();
    } else if (const auto *Call = dyn_cast<CallExpr>(E);
               Call && isStdFunction(Call->getDirectCallee(), {"get", "move", "forward"}) &&
               Call->getNumArgs() == 1) {
      E = Call->getArg(0);
    } else if (const auto *Choice = dyn_cast<AbstractConditionalOperator>(E)) {
      // `c ? pb(a) : pb(b)`: both sides the same pullback's result.
      const CallExpr *True = castOperandSource(Choice->getTrueExpr(), MapSubscript, Locals);
      const CallExpr *False = castOperandSource(Choice->getFalseExpr(), MapSubscript, Locals);
      const Decl *Callee = True ? True->getCalleeDecl() : nullptr;
      return Callee && False && False->getCalleeDecl() &&
                     Callee->getCanonicalDecl() == False->getCalleeDecl()->getCanonicalDecl()
                 ? True
                 : nullptr;
    } else if (isa<DeclRefExpr>(E)) {
      DeducedLocal Local = deducedLocal(E);
      if (Local && Locals)
        Locals->push_back(Local);
      E = Local ? Local.Source : nullptr;
    } else {
      return dyn_cast<CallExpr>(E);
    }
  }
  return nullptr;
}

/// Whether \p E is a braced list converted to the declared result type
/// (`return {a, b};`): without that type it deduces nothing.
bool isBracedList(const Expr *E) {
  E = stripTemporaries(E);
  if (isa<InitListExpr>(E))
    return true;
  const auto *Construct = dyn_cast<CXXConstructExpr>(E);
  return Construct && Construct->isListInitialization() &&
         !isa<CXXTemporaryObjectExpr>(Construct);
}

/// The range of a lambda's trailing return type including the `->` and the
/// blanks before it, so that removing it leaves `(args) {`.
/// The lambda's signature as written.
FunctionProtoTypeLoc lambdaSignature(const LambdaExpr *Lambda) {
  TypeSourceInfo *TSI = Lambda->getCallOperator()->getTypeSourceInfo();
  if (!TSI)
    return {};
  return TSI->getTypeLoc().IgnoreParens().getAs<FunctionProtoTypeLoc>();
}

std::optional<CharSourceRange> trailingReturnRange(const LambdaExpr *Lambda,
                                                   const SourceManager &SM,
                                                   const LangOptions &LO) {
  FunctionProtoTypeLoc FTL = lambdaSignature(Lambda);
  if (!FTL)
    return std::nullopt;
  SourceLocation ParamsEnd =
      Lexer::getLocForEndOfToken(FTL.getRParenLoc(), 0, SM, LO);
  SourceRange Return = FTL.getReturnLoc().getSourceRange();
  if (ParamsEnd.isInvalid() || ParamsEnd.isMacroID() ||
      Return.getBegin().isMacroID())
    return std::nullopt;
  llvm::StringRef Between = Lexer::getSourceText(
      CharSourceRange::getCharRange(ParamsEnd, Return.getBegin()), SM, LO);
  size_t Arrow = Between.rfind("->");
  if (Arrow == llvm::StringRef::npos)
    return std::nullopt;
  size_t Start = Between.substr(0, Arrow).rtrim().size();
  return Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(ParamsEnd.getLocWithOffset(Start),
                                     Return.getEnd()),
      SM, LO);
}

} // namespace

TypeErasedPullbackCheck::TypeErasedPullbackCheck(StringRef Name,
                                                 ClangTidyContext *Context)
    : GradlintCheck(Name, Context),
      RegistrationFunctionsOption(Options.get("RegistrationFunctions", "")),
      ErasedTypesOption(Options.get("ErasedTypes", DefaultErasedTypes)),
      TensorTypesOption(Options.get("TensorTypes", DefaultTensorTypes)),
      Naming(*this, Options), Classifier(NamePattern(), NamePattern()),
      StorageCheckEnabled(
          Context->isCheckEnabled("gradlint-erased-pullback-storage")),
      Sink(FlowSink::find(Context)) {
  Classifier = ErasedTypeClassifier(
      namePatternOption("ErasedTypes", ErasedTypesOption),
      namePatternOption("TensorTypes", TensorTypesOption));
  std::string Error;
  if (!Registrations.parse(RegistrationFunctionsOption, Error))
    configurationDiag("invalid RegistrationFunctions entry for %0: %1")
        << getID() << Error;
}

void TypeErasedPullbackCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Naming.store(Options, Opts);
  Options.store(Opts, "RegistrationFunctions", RegistrationFunctionsOption);
  Options.store(Opts, "ErasedTypes", ErasedTypesOption);
  Options.store(Opts, "TensorTypes", TensorTypesOption);
}

void TypeErasedPullbackCheck::registerMatchers(MatchFinder *Finder) {
  auto UserCode = unless(isExpansionInSystemHeader());
  Finder->addMatcher(
      functionDecl(UserCode, isDefinition(), pullbackDecl(&Naming)).bind("fn"),
      this);
  Finder->addMatcher(
      varDecl(UserCode, hasInitializer(expr()), pullbackDecl(&Naming))
          .bind("holder"),
      this);
  Finder->addMatcher(
      functionDecl(UserCode, isDefinition(), rruleDecl(&Naming)).bind("rrule"),
      this);
  Finder->addMatcher(cxxMethodDecl(UserCode, isOverride(), pullbackDecl(&Naming)).bind("override"),
                     this);
  if (!Registrations.empty())
    Finder->addMatcher(
        callExpr(UserCode, callee(functionDecl(registrationFunction(this))))
            .bind("registration"),
        this);
  // The casts out of the erased type: std::any_cast, and std::get /
  // std::get_if of a std::variant (check() keeps the variant ones).
  auto AnyCast = callExpr(UserCode,
                          callee(functionDecl(hasAnyName("::std::any_cast", "::std::get",
                                                         "::std::get_if"))),
                          argumentCountIs(1));
  Finder->addMatcher(AnyCast.bind("any_cast"), this);
  Finder->addMatcher(
      unaryOperator(hasOperatorName("*"),
                    hasUnaryOperand(ignoringParenImpCasts(
                        callExpr(AnyCast, hasArgument(0, unaryOperator(hasOperatorName("&"))))
                            .bind("deref_cast"))))
          .bind("deref"),
      this);
  // Questions about what the erased value holds, answered once it holds
  // the concrete type: `g.has_value()`, `g.type()`,
  // `std::holds_alternative<T>(g)`; of a variant, `g.index()` and
  // `g.valueless_by_exception()`.
  Finder->addMatcher(cxxMemberCallExpr(UserCode, argumentCountIs(0),
                                       callee(cxxMethodDecl(hasAnyName("has_value", "type"),
                                                            ofClass(hasName("::std::any")))))
                         .bind("query"),
                     this);
  Finder->addMatcher(
      cxxMemberCallExpr(UserCode, argumentCountIs(0),
                        callee(cxxMethodDecl(hasAnyName("index", "valueless_by_exception"),
                                             ofClass(hasName("::std::variant")))))
          .bind("query"),
      this);
  Finder->addMatcher(callExpr(UserCode, argumentCountIs(1),
                              callee(functionDecl(hasName("::std::holds_alternative"))))
                         .bind("query"),
                     this);
  // `std::visit(f, g)` of one variant: once g holds the concrete type,
  // `(f)(g)` is the call visit made.
  Finder->addMatcher(callExpr(UserCode, argumentCountIs(2),
                              callee(functionDecl(hasName("::std::visit"))))
                         .bind("visit"),
                     this);
  // Functions that pullbacks in other files may call (declared there, so
  // defined outside any template and visible outside this file).
  if (Sink)
    Finder->addMatcher(functionDecl(isExpansionInMainFile(), isDefinition(),
                                    unless(isImplicit()))
                           .bind("erased_definition"),
                       this);
}

void TypeErasedPullbackCheck::addLambda(const LambdaExpr *Lambda,
                                        const VarDecl *Holder) {
  if (!Lambda)
    return;
  const FunctionDecl *Op = callTarget(Lambda->getCallOperator());
  Pullbacks.insert({Op, Pullback{Op, Lambda, Holder}});
}

const FunctionDecl *
TypeErasedPullbackCheck::calledFunction(const CallExpr *Call) const {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return nullptr;
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  if (!StorageCheckEnabled || !Op || Op->getOperator() != OO_Call || !Method ||
      Method->getParent()->isLambda())
    return callTarget(Callee);
  const auto *Ref = dyn_cast<DeclRefExpr>(stripTemporaries(Op->getArg(0)));
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->isLocalVarDecl() || !Var->getInit() ||
      !Var->getType()->getContainedDeducedType() ||
      isa<DecompositionDecl>(Var))
    return callTarget(Callee);
  const auto *Factory = dyn_cast<CallExpr>(stripTemporaries(Var->getInit()));
  const FunctionDecl *Maker = Factory ? Factory->getDirectCallee() : nullptr;
  if (Maker && Maker->getDefinition())
    Maker = Maker->getDefinition();
  const auto *Owner = dyn_cast<FunctionDecl>(Var->getDeclContext());
  if (!Maker || !Classifier.isErased(Maker->getReturnType()) ||
      !closureResultBecomesAuto(Maker, Naming) || !Owner || !Owner->getBody() ||
      !onlyClosureUses(Var, Owner->getBody()))
    return callTarget(Callee);
  return callTarget(singleReturnedCallable(Maker).callOperator());
}

const CallExpr *TypeErasedPullbackCheck::passedOnCall(const FunctionDecl *Def) const {
  const CallExpr *Call = nullptr;
  for (const ReturnStmt *R : returnsOf(Def))
    if (const auto *Inner = dyn_cast_or_null<CallExpr>(
            R->getRetValue() ? stripTemporaries(R->getRetValue()) : nullptr);
        Inner && Inner->getDirectCallee() && Classifier.findErased(Inner->getType()))
      Call = Inner;
  return Call;
}

std::string TypeErasedPullbackCheck::erasureNote(const FunctionDecl *Callee) const {
  return "the erasure comes from " + quotedName(Callee) + ", which returns '" +
         Callee->getReturnType().getAsString(Context->getPrintingPolicy()) + "'";
}

void TypeErasedPullbackCheck::addRRuleResults(const FunctionDecl *RRule) {
  for (const ReturnStmt *Return : returnsOf(RRule))
    if (const Expr *Value = Return->getRetValue())
      for (const Expr *Element : rrulePullbackElements(Value))
        addLambda(lambdaOf(Element), localVariableOf(Element));
}

void TypeErasedPullbackCheck::check(const MatchFinder::MatchResult &Result) {
  Context = Result.Context;
  if (const auto *Override = Result.Nodes.getNodeAs<CXXMethodDecl>("override")) {
    if (!llvm::is_contained(Overrides, Override->getCanonicalDecl()))
      Overrides.push_back(Override->getCanonicalDecl());
    return;
  }
  if (const auto *Cast = Result.Nodes.getNodeAs<CallExpr>("any_cast")) {
    // std::get<0>(tuple) is a path to the erased element, not a cast.
    if (isStdFunction(Cast->getDirectCallee(), {"any_cast"}) ||
        qualifiedClassName(Cast->getArg(0)->getType()->isPointerType()
                               ? Cast->getArg(0)->getType()->getPointeeType()
                               : Cast->getArg(0)->getType()) == "std::variant")
      AnyCasts.push_back(Cast);
    return;
  }
  if (const auto *Deref = Result.Nodes.getNodeAs<UnaryOperator>("deref")) {
    DereferencedCasts[Result.Nodes.getNodeAs<CallExpr>("deref_cast")] = Deref;
    return;
  }
  if (const auto *Asked = Result.Nodes.getNodeAs<CallExpr>("query")) {
    Queries.push_back(Asked);
    return;
  }
  if (const auto *Visit = Result.Nodes.getNodeAs<CallExpr>("visit")) {
    Visits.push_back(Visit);
    return;
  }
  if (const auto *Def = Result.Nodes.getNodeAs<FunctionDecl>("erased_definition")) {
    // What a pullback in another translation unit that calls it needs to
    // know: that it erases, and where that erasure comes from in turn.
    if (!Def->isExternallyVisible() || Def->isDependentContext() ||
        // Made by instantiating a template (a member or lambda in one too):
        // clang's answer to isInstantiated() without the parent map that
        // matcher builds for the whole translation unit.
        Def->getTemplateInstantiationPattern() ||
        !Classifier.findErased(Def->getReturnType()))
      return;
    const CallExpr *Inner = passedOnCall(Def);
    Sink->Erasures.push_back(
        {flowKey(Def), flowPoint(Def->getLocation(), *Result.SourceManager),
         erasureNote(Def), Inner ? flowKey(Inner->getDirectCallee()) : ""});
    return;
  }
  if (const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>("fn")) {
    // Also an annotated lambda call operator; its trailing return type is
    // then rewritten like a function's.
    const FunctionDecl *Target = callTarget(FD);
    // A function named like a pullback that returns closures is a pullback
    // factory (`layer_pullback(saved...)` returning `[=](dy) {...}`): the
    // closures are the pullbacks. How the factory stores them (a
    // std::function return type) is gradlint-erased-pullback-storage's
    // concern.
    std::vector<const LambdaExpr *> Closures = returnedLambdas(Target);
    if (!Closures.empty()) {
      for (const LambdaExpr *Lambda : Closures)
        addLambda(Lambda, nullptr);
      return;
    }
    Pullbacks.insert({Target, Pullback{Target, nullptr, nullptr}});
    return;
  }
  if (const auto *Holder = Result.Nodes.getNodeAs<VarDecl>("holder")) {
    addLambda(lambdaOf(Holder->getInit()), Holder);
    return;
  }
  if (const auto *RRule = Result.Nodes.getNodeAs<FunctionDecl>("rrule")) {
    addRRuleResults(callTarget(RRule));
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("registration")) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Named = Callee->getPrimaryTemplate()
                                    ? Callee->getPrimaryTemplate()->getTemplatedDecl()
                                    : Callee;
    // The configured index does not count the object, an explicit one
    // (`this Tape &self`, parameter 0) included.
    const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
    unsigned Objects = Method && Method->isExplicitObjectMemberFunction() ? 1 : 0;
    for (unsigned Index : Registrations.indicesFor(optionName(Named))) {
      const Expr *Arg = callArgument(Call, Index + Objects);
      if (!Arg)
        continue;
      Arg = stripTemporaries(Arg);
      if (const LambdaExpr *Lambda = lambdaOf(Arg)) {
        addLambda(Lambda, nullptr);
      } else if (const auto *Ref = dyn_cast<DeclRefExpr>(
                     stripTemporaries(addressOperand(Arg)))) {
        if (const auto *Fn = dyn_cast<FunctionDecl>(Ref->getDecl()))
          Pullbacks.insert({callTarget(Fn), Pullback{callTarget(Fn), nullptr, nullptr}});
      }
    }
  }
}

void TypeErasedPullbackCheck::finishTranslationUnit() {
  for (const CallExpr *Cast : AnyCasts)
    if (const CallExpr *Source = castOperandSource(Cast->getArg(0)))
      if (const FunctionDecl *Callee = calledFunction(Source))
        AnyCastsOf[Callee].push_back(Cast);
  // `g.has_value()` with `auto g = pb(dy);` is true once g holds the
  // concrete result: every return of the pullback produces one. (Not on
  // the call itself: `pb(dy).has_value()` would drop the call.)
  // (Not of a structured binding or a loop's variable: it holds one
  // element of the result.)
  for (const CallExpr *Asked : Queries) {
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Asked);
    if (DeducedLocal Local =
            deducedLocal(Member ? Member->getImplicitObjectArgument() : Asked->getArg(0));
        Local && Local.whole())
      if (const auto *Source = dyn_cast<CallExpr>(stripTemporaries(Local.Source)))
        if (const FunctionDecl *Callee = calledFunction(Source))
          QueriesOf[Callee].push_back(Asked);
  }
  // `std::visit(f, g)` with such a local, or of the call itself (which the
  // rewrite keeps).
  for (const CallExpr *Visit : Visits) {
    const Expr *Visited = stripTemporaries(Visit->getArg(1));
    if (const auto *Moved = dyn_cast<CallExpr>(Visited);
        Moved && Moved->getNumArgs() == 1 &&
        isStdFunction(Moved->getDirectCallee(), {"move", "forward"}))
      Visited = stripTemporaries(Moved->getArg(0));
    if (DeducedLocal Local = deducedLocal(Visited); Local && Local.whole())
      Visited = stripTemporaries(Local.Source);
    if (const auto *Source = dyn_cast<CallExpr>(Visited))
      if (const FunctionDecl *Callee = calledFunction(Source))
        VisitsOf[Callee].push_back(Visit);
  }
  for (const auto &Entry : Pullbacks)
    analyze(Entry.second);
  Pullbacks.clear();
  Overrides.clear();
  Hierarchies.clear();
  AnyCasts.clear();
  AnyCastsOf.clear();
  DereferencedCasts.clear();
  Queries.clear();
  QueriesOf.clear();
  Visits.clear();
  VisitsOf.clear();
  Context = nullptr;
}

namespace {

/// One concrete type the returns of a pullback produce, and the first
/// return that produces it.
struct Produced {
  Concrete Type;
  const ReturnStmt *First;
};

} // namespace

/// What the returns of one pullback produce.
struct TypeErasedPullbackCheck::ReturnSummary {
  ReturnAnalyzer Analyzer;
  /// The concrete types produced, each once.
  std::vector<Produced> Distinct;
  /// Every return produces a concrete type (or an empty container).
  bool AllConcrete = true;
  /// Some return is a braced list, which deduces nothing.
  bool AnyBraced = false;
  std::vector<const ReturnStmt *> Returns;
  /// The returns whose value could not be followed to a concrete type.
  std::vector<const ReturnStmt *> Opaque;
};

TypeErasedPullbackCheck::ReturnSummary
TypeErasedPullbackCheck::summarizeReturns(const FunctionDecl *Fn, QualType Result) const {
  ReturnSummary S{ReturnAnalyzer(Classifier, *Context), {}, true, false, returnsOf(Fn), {}};
  ReturnAnalyzer &Analyzer = S.Analyzer;
  Analyzer.Function = Fn;
  for (const ReturnStmt *Return : S.Returns) {
    const Expr *Value = Return->getRetValue();
    if (!Value)
      continue;
    S.AnyBraced |= isBracedList(Value);
    const CallExpr *OriginBefore = Analyzer.Origin;
    bool UnknownBefore = Analyzer.Unknown;
    std::optional<Concrete> C = Analyzer.concreteOf(Result, Value);
    if (C && C->Empty)
      continue; // std::nullopt: any element type
    if (!C) {
      S.AllConcrete = false;
      if (Analyzer.Origin == OriginBefore && Analyzer.Unknown == UnknownBefore)
        Analyzer.Unknown = true;
      S.Opaque.push_back(Return);
      continue;
    }
    if (llvm::none_of(S.Distinct, [&](const Produced &D) { return D.Type.Key == C->Key; }))
      S.Distinct.push_back({*C, Return});
  }
  return S;
}

void TypeErasedPullbackCheck::analyze(const Pullback &P) {
  const FunctionDecl *Fn = P.Function;
  const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
  const LambdaExpr *Lambda = P.Lambda;
  if (!Fn->hasBody() || !Context)
    return;
  QualType Result = Fn->getReturnType();
  if (Result->isUndeducedType())
    return;
  std::optional<QualType> Erased = Classifier.findErased(Result);
  if (!Erased)
    return;
  // A result that erases only callables (`std::function<void()>`, a vector
  // of them) holds pullbacks, not gradients: a getter of a stored one
  // (`getBackward()`), a factory whose closures differ. How pullbacks are
  // stored is gradlint-erased-pullback-storage's concern, and it stays
  // silent where the erasure is needed.
  if (Classifier.erasesOnlyCallables(Result))
    return;

  const SourceManager &SM = Context->getSourceManager();
  SourceLocation Loc = Lambda ? Lambda->getBeginLoc() : Fn->getLocation();
  if (SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
    return;
  std::string Name = P.Holder ? "'" + P.Holder->getName().str() + "'"
                     : Lambda || (Method && Method->getParent()->isLambda())
                         ? std::string("lambda")
                         : "'" + Fn->getNameAsString() + "'";

  ReturnSummary Summary = summarizeReturns(Fn, Result);
  ReturnAnalyzer &Analyzer = Summary.Analyzer;
  std::vector<Produced> &Distinct = Summary.Distinct;
  bool AllConcrete = Summary.AllConcrete, AnyBraced = Summary.AnyBraced;
  const std::vector<const ReturnStmt *> &Returns = Summary.Returns;
  const std::vector<const ReturnStmt *> &Opaque = Summary.Opaque;

  bool Direct = Classifier.isErased(Result);
  auto Report = [this, Direct, Loc, Name, Erased = *Erased, Result]() {
    return Direct ? diag(Loc, "pullback %0 returns type-erased %1")
                        << Name << Erased
                  : diag(Loc, "pullback %0 returns %1, which contains "
                              "type-erased %2")
                        << Name << Result << Erased;
  };

  if (!AllConcrete || Distinct.size() != 1) {
    Report();
    if (Distinct.size() > 1)
      for (const Produced &D : Distinct)
        diag(D.First->getBeginLoc(), "this return produces '%0'",
             DiagnosticIDs::Note)
            << (D.Type.Spelling.empty() ? "a lambda" : D.Type.Spelling);
    if (Analyzer.Origin) {
      // Innermost origin first: follow callees that pass erased values on.
      std::vector<const FunctionDecl *> Chain;
      llvm::SmallPtrSet<const FunctionDecl *, 4> Seen;
      const CallExpr *Call = Analyzer.Origin;
      const FunctionDecl *Undefined = nullptr;
      while (Call && Chain.size() < 4) {
        const FunctionDecl *Callee = Call->getDirectCallee();
        if (!Callee || !Seen.insert(Callee->getCanonicalDecl()).second)
          break;
        Chain.push_back(Callee);
        const FunctionDecl *Def = Callee->getDefinition();
        Call = Def ? passedOnCall(Def) : nullptr;
        if (!Def)
          Undefined = Callee;
      }
      // Defined in another translation unit: the gradlint command, which
      // sees them all, follows it there (WholeProgram.h).
      if (Sink && Undefined)
        Sink->ErasedOrigins.push_back({flowPoint(Loc, SM), flowKey(Undefined),
                                       erasureNote(Undefined)});
      for (const FunctionDecl *Callee : llvm::reverse(Chain))
        diag(Callee->getLocation(), "%0", DiagnosticIDs::Note) << erasureNote(Callee);
    } else if (Analyzer.NoFix) {
      diag(Analyzer.NoFix->At, Analyzer.NoFix->Text, DiagnosticIDs::Note);
    } else if (Analyzer.Unknown && !Opaque.empty()) {
      diag(Opaque.front()->getBeginLoc(),
           "this return already produces a type-erased value",
           DiagnosticIDs::Note);
    } else if (AllConcrete && Distinct.empty() && !Returns.empty()) {
      diag(Returns.front()->getBeginLoc(),
           "no fix: every return is empty, so none says what the erased value "
           "would hold",
           DiagnosticIDs::Note);
    }
    return;
  }

  // One concrete type: declare it, unwrap the conversions, drop the casts.
  const Concrete &Type = Distinct.front().Type;
  // A virtual function's result type changes with every override's: the
  // hierarchy works out its own edits, this function's among them.
  if (!Lambda && isVirtualMethod(Fn)) {
    // The whole hierarchy in one edit, reported once (at the first of its
    // functions), when every override is in this file.
    const Hierarchy &H = hierarchyOf(cast<CXXMethodDecl>(Fn), Type);
    if (!H.Fix.empty() && H.Leader != Fn->getCanonicalDecl())
      return; // reported with the hierarchy's first function
    report(*Context, H.Fix,
           [this, Report, Loc, Fn, H](llvm::ArrayRef<FixItHint> Proved,
                                      const ProofOutcome &Proof) {
             Report() << Proved;
             if (H.Fix.empty()) {
               noteVirtual(Loc, Fn);
               if (!H.Why.empty())
                 diag(Loc, "%0", DiagnosticIDs::Note) << H.Why;
             }
             for (const Decl *Member : H.Members)
               if (Member != Fn->getCanonicalDecl())
                 diag(cast<FunctionDecl>(Member)->getLocation(),
                      "'%0' is in the same hierarchy; the fix changes its result type too",
                      DiagnosticIDs::Note)
                     << cast<FunctionDecl>(Member)->getQualifiedNameAsString();
             noteWithdrawn(Loc, Proof);
           },
           H.Claims);
    return;
  }
  std::vector<FixItHint> Hints = Analyzer.Edits;
  bool CanFix = !Analyzer.EditsInMacro;
  const LangOptions &LO = getLangOpts();
  if (Lambda) {
    if (Lambda->hasExplicitResultType()) {
      std::optional<CharSourceRange> Trailing =
          trailingReturnRange(Lambda, SM, LO);
      if (!Trailing)
        CanFix = false;
      else if (!AnyBraced)
        Hints.push_back(FixItHint::CreateRemoval(*Trailing));
      else if (Type.Spellable)
        Hints.push_back(FixItHint::CreateReplacement(
            lambdaSignature(Lambda).getReturnLoc().getSourceRange(),
            Type.Spelling));
      else
        CanFix = false;
    }
  } else if (!Fn->getDeclaredReturnType()->getContainedDeducedType()) {
    for (const FunctionDecl *Redecl : Fn->redecls()) {
      SourceRange Range = Redecl->getReturnTypeSourceRange();
      if (Range.isInvalid() || Range.getBegin().isMacroID()) {
        CanFix = false;
        break;
      }
      CharSourceRange Written = CharSourceRange::getTokenRange(Range);
      if (Type.Spellable)
        Hints.push_back(replacementApart(Written, Type.Spelling, SM, getLangOpts()));
      else if (Fn->getPreviousDecl() || AnyBraced)
        CanFix = false;
      else
        Hints.push_back(replacementApart(Written, "auto", SM, getLangOpts()));
    }
  }
  FixClaims Claims = FixClaims::retyping(Fn);
  Unrewritten Skipped;
  CanFix &= callerEdits(Fn, Type, Analyzer, Hints, Claims, &Skipped);
  if (!CanFix)
    Hints.clear();
  // At the use as written in the file (a macro's expansion).
  SourceLocation UseLoc =
      Skipped.Use ? SM.getFileLoc(Skipped.Use->getBeginLoc()) : SourceLocation();
  std::string Why = Skipped.Why.empty()
                        ? "this use of the result is not rewritten for the concrete type "
                          "(written in a macro, or in a form the check does not rewrite)"
                        : Skipped.Why;
  report(*Context, std::move(Hints),
         [this, Report, Loc, UseLoc, Why](llvm::ArrayRef<FixItHint> Proved,
                                          const ProofOutcome &Proof) {
           Report() << Proved;
           if (UseLoc.isValid())
             diag(UseLoc, "no fix: %0", DiagnosticIDs::Note) << Why;
           noteWithdrawn(Loc, Proof);
         },
         Claims);
}

namespace {

/// The position of \p Type among the alternatives of the variant
/// \p Variant; none when it is not one of them exactly once.
std::optional<unsigned> alternativeIndex(QualType Variant, const Concrete &Type,
                                         ReturnAnalyzer &Analyzer) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Variant.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || Spec->getTemplateArgs().size() != 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Pack)
    return std::nullopt;
  std::optional<unsigned> Found;
  unsigned I = 0;
  for (const TemplateArgument &Alt : Spec->getTemplateArgs()[0].pack_elements()) {
    if (Alt.getKind() == TemplateArgument::Type && Analyzer.spell(Alt.getAsType()).Key == Type.Key) {
      if (Found)
        return std::nullopt;
      Found = I;
    }
    ++I;
  }
  return Found;
}

} // namespace

bool TypeErasedPullbackCheck::callerEdits(const FunctionDecl *Fn, const Concrete &Type,
                                          ReturnAnalyzer &Analyzer,
                                          std::vector<FixItHint> &Hints,
                                          FixClaims &Claims,
                                          Unrewritten *Skipped) const {
  auto Fail = [&](const Expr *Use, std::string Why = "") {
    if (Skipped)
      *Skipped = {Use, std::move(Why)};
    return false;
  };
  // A template that calls Fn through a dependent name uses the result
  // where it is instantiated; one that nothing here instantiates to call Fn
  // does so unchecked (`std::any_cast<float>(n.backward(dy))` breaks once
  // backward returns float).
  if (const Expr *Call = dependentCalls(*Context).uninstantiatedCallOf(Fn))
    return Fail(Call, DependentCalls::uncheckedResultNote(Fn));
  const SourceManager &SM = Context->getSourceManager();
  // Why the local \p Local may hold something else at \p At than the
  // pullback's result (none: it holds that). Its changing uses are looked
  // up once per local.
  llvm::DenseMap<const ValueDecl *, std::vector<Change>> ChangesOf;
  auto ParentOf = [&](const Stmt *S) { return statementParent(*Context, S); };
  auto ChangedBefore = [&](DeducedLocal Local, const Expr *At) -> std::optional<std::string> {
    auto [It, New] = ChangesOf.try_emplace(Local.Named);
    if (New)
      It->second = changesOf(Local.Named);
    for (const Change &Changed : It->second)
      if (mayRunBefore(Changed.Use, At, Local.Var, SM, ParentOf))
        return "'" + Local.Named->getName().str() + "' may hold something else by then (" +
               Changed.How + " on line " +
               std::to_string(SM.getExpansionLineNumber(Changed.Use->getBeginLoc())) + ")";
    return std::nullopt;
  };
  for (const CallExpr *Cast : AnyCastsOf.lookup(Fn)) {
    // What the cast keeps (`g` of `*std::any_cast<T>(&g)`) must have the
    // type the cast gives (the proof compares): a cast to another type
    // fails today (throws, or gives null), and without it the value would
    // flow on.
    Analyzer.Edits.clear();
    const UnaryOperator *Deref = DereferencedCasts.lookup(Cast);
    const Expr *Kept = Deref
                           ? cast<UnaryOperator>(stripTemporaries(Cast->getArg(0)))->getSubExpr()
                           : Cast->getArg(0);
    Claims.Types.push_back({Kept, Deref ? Deref->getType() : Cast->getType()});
    // `m[k]` of a map inserts an empty std::any for a missing key, and its
    // cast throws; with the concrete type it would insert a value.
    const Expr *MapSubscript = nullptr;
    llvm::SmallVector<DeducedLocal, 2> Locals;
    castOperandSource(Cast->getArg(0), &MapSubscript, &Locals);
    if (MapSubscript)
      return Fail(Cast, "a missing key makes 'operator[]' insert an empty std::any, whose "
                        "cast fails; with the concrete type it would insert a value and the "
                        "fix would drop the check (use 'at')");
    // A cast checks what the local (or its element) holds now; moved from,
    // a std::any holds nothing and the cast fails.
    for (DeducedLocal Local : Locals)
      if (std::optional<std::string> Why = ChangedBefore(Local, Cast))
        return Fail(Cast, *Why +
                              "; the cast checks what it holds, and the fix would drop it");
    if (Deref) {
      // `*std::any_cast<T>(&g)` -> `g`; `std::any_cast<T>(&g)` -> `&g`.
      Analyzer.unwrap(Deref, Kept);
    } else if (Cast->isPRValue() && !stripTemporaries(Kept)->isPRValue() &&
               copyMatters(Cast)) {
      // `std::any_cast<T>(g).scale(2)` scaled a copy; `g.scale(2)` would
      // scale g. The copy stays: `static_cast<T>(g).scale(2)`. (Of the
      // call itself, `pb(dy).scale(2)` scales a temporary as before.)
      const auto *Callee = dyn_cast<DeclRefExpr>(Cast->getCallee()->IgnoreImpCasts());
      if (!Callee || Callee->getNumTemplateArgs() != 1)
        return Fail(Cast);
      CharSourceRange Written = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(Callee->template_arguments()[0].getSourceRange()), SM,
          getLangOpts());
      CharSourceRange Name = Lexer::makeFileCharRange(
          CharSourceRange::getCharRange(Cast->getBeginLoc(), Kept->getBeginLoc()), SM,
          getLangOpts());
      if (Written.isInvalid() || Name.isInvalid())
        return Fail(Cast);
      Hints.push_back(FixItHint::CreateReplacement(
          Name, "static_cast<" + Lexer::getSourceText(Written, SM, getLangOpts()).str() + ">("));
      continue;
    } else {
      Analyzer.unwrap(Cast, Kept);
    }
    if (Analyzer.EditsInMacro)
      return Fail(Cast);
    Hints.insert(Hints.end(), Analyzer.Edits.begin(), Analyzer.Edits.end());
  }
  for (const CallExpr *Asked : QueriesOf.lookup(Fn)) {
    SourceRange Range = Asked->getSourceRange();
    if (!Range.getBegin().isFileID() || !Range.getEnd().isFileID())
      return Fail(Asked);
    // The answer is what the pullback's result holds; a local changed
    // since (moved from, assigned) may hold nothing, or something else.
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Asked);
    if (DeducedLocal Local =
            deducedLocal(Member ? Member->getImplicitObjectArgument() : Asked->getArg(0)))
      if (std::optional<std::string> Why = ChangedBefore(Local, Asked))
        return Fail(Asked, *Why +
                               "; the fix would answer this question for the pullback's own "
                               "result");
    std::string Answer = "true"; // has_value(): every return produces one
    const FunctionDecl *Query = Asked->getDirectCallee();
    if (Query->getName() == "type") {
      if (!Type.Spellable)
        return Fail(Asked);
      Answer = "typeid(" + Type.Spelling + ")";
    } else if (Query->getName() == "holds_alternative") {
      const TemplateArgumentList *Args = Query->getTemplateSpecializationArgs();
      if (!Args || Args->size() == 0 || Args->get(0).getKind() != TemplateArgument::Type)
        return Fail(Asked);
      Answer = Analyzer.spell(Args->get(0).getAsType()).Key == Type.Key ? "true" : "false";
    } else if (Query->getName() == "valueless_by_exception") {
      Answer = "false"; // it holds what every return produces
    } else if (Query->getName() == "index") {
      // The position of the concrete type among the variant's alternatives.
      std::optional<unsigned> Index = alternativeIndex(
          cast<CXXMemberCallExpr>(Asked)->getImplicitObjectArgument()->getType(), Type,
          Analyzer);
      if (!Index)
        return Fail(Asked);
      Answer = "std::size_t(" + std::to_string(*Index) + ")";
    }
    Hints.push_back(FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Range), Answer));
  }
  // `std::visit(f, g)` -> `(f)(g)`: visit called f with what g holds, which
  // is now g itself. (Not with an explicit result type, `visit<R>`, which
  // converts.)
  for (const CallExpr *Visit : VisitsOf.lookup(Fn)) {
    const auto *Callee = dyn_cast<DeclRefExpr>(Visit->getCallee()->IgnoreImpCasts());
    if (!Callee || Callee->hasExplicitTemplateArgs())
      return Fail(Visit);
    // `std::visit(` becomes `(`, the comma after f `)(`; the line breaks
    // around the arguments stay.
    const Expr *F = Visit->getArg(0);
    CharSourceRange Head = Lexer::makeFileCharRange(
        CharSourceRange::getCharRange(Visit->getBeginLoc(), F->getBeginLoc()), SM,
        getLangOpts());
    std::optional<Token> Next = Lexer::findNextToken(F->getEndLoc(), SM, getLangOpts());
    if (Head.isInvalid() || F->getEndLoc().isMacroID() || !Next || !Next->is(tok::comma))
      return Fail(Visit);
    SourceLocation CommaEnd = Next->getEndLoc();
    // `f, g` -> `f)(g`; a line break before g stays.
    SourceLocation G = Visit->getArg(1)->getBeginLoc();
    if (G.isFileID() && SM.isBeforeInTranslationUnit(CommaEnd, G) &&
        !Lexer::getSourceText(CharSourceRange::getCharRange(CommaEnd, G), SM, getLangOpts())
             .contains('\n'))
      CommaEnd = G;
    CharSourceRange Comma = CharSourceRange::getCharRange(
        Lexer::getLocForEndOfToken(F->getEndLoc(), 0, SM, getLangOpts()), CommaEnd);
    Hints.push_back(FixItHint::CreateReplacement(Head, "("));
    Hints.push_back(FixItHint::CreateReplacement(Comma, ")("));
    Claims.Replaced.push_back(Visit);
  }
  return true;
}

namespace {

/// How \p Call takes \p Arg, one of its arguments or the object of a
/// member operator: whether it may modify it, and the operator when \p Arg
/// is its object. None: \p Arg is not among them, or is passed where no
/// parameter is declared (variadic).
struct Taken {
  bool Mutable;
  const CXXMethodDecl *Object;
};
std::optional<Taken> howCallTakes(const CallExpr *Call, const FunctionDecl *Callee,
                                  const Expr *Arg) {
  unsigned Objects = undeclaredObjectArguments(Call);
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    if (Call->getArg(I) != Arg)
      continue;
    if (I < Objects) {
      // The implicit object of a member operator; a static operator()
      // does not touch its object.
      const auto *Method = cast<CXXMethodDecl>(Callee);
      if (Method->isStatic())
        return Taken{false, nullptr};
      return Taken{!Method->isConst(), Method};
    }
    if (I - Objects >= Callee->getNumParams())
      return std::nullopt;
    QualType Param = Callee->getParamDecl(I - Objects)->getType();
    return Taken{Param->isReferenceType() && !Param->getPointeeType().isConstQualified(),
                 nullptr};
  }
  return std::nullopt;
}

/// How the use \p Cur of a local (reached from the local's name; \p Moved:
/// through std::move) may empty it or give it another value, or null when
/// it only reads it. A node shared by a template's body and its
/// instantiations has a parent in each: every one is asked.
const char *howChanges(const Expr *Cur, bool Moved, ASTContext &Ctx, unsigned Depth = 0) {
  if (Depth > 8)
    return "changed";
  DynTypedNodeList Parents = Ctx.getParents(*Cur);
  if (Parents.empty())
    return nullptr; // in a type (`decltype(g)`): not evaluated
  for (const DynTypedNode &Parent : Parents) {
    if (const char *How = [&]() -> const char * {
          const auto *P = Parent.get<Expr>();
          if (!P) {
            // A statement, or a variable initialised from it: a copy (or
            // a move), unless a reference to non-const binds it.
            const auto *Bound = Parent.get<VarDecl>();
            if (Moved)
              return Bound && Bound->getType()->isReferenceType() ? nullptr : "moved from";
            // `for (auto &e : g)` binds g to the loop's own reference: what
            // the loop's variable does to each element is done to g.
            if (const CXXForRangeStmt *Loop = Bound ? rangeLoopOf(Bound, Ctx) : nullptr;
                Loop && Loop->getLoopVariable() != Bound) {
              QualType Each = Loop->getLoopVariable()->getType();
              if (!Each->isReferenceType() || Each->getPointeeType().isConstQualified())
                return nullptr;
              using namespace ast_matchers;
              for (const BoundNodes &Found :
                   match(findAll(declRefExpr(to(varDecl(equalsNode(Loop->getLoopVariable()))))
                                     .bind("use")),
                         *Loop->getBody(), Ctx))
                if (const char *How =
                        howChanges(Found.getNodeAs<DeclRefExpr>("use"), false, Ctx, Depth + 1))
                  return How;
              return nullptr;
            }
            if (Bound && Bound->getType()->isReferenceType() &&
                !Bound->getType()->getPointeeType().isConstQualified())
              return "bound to a non-const reference";
            return nullptr;
          }
          // Not evaluated (`sizeof(g)`, `typeid(g)`); in a template's own
          // body, whose instantiations say what the use does; captured by
          // reference, where the lambda's own uses say it.
          if (isa<UnaryExprOrTypeTraitExpr, CXXTypeidExpr, CXXNoexceptExpr, LambdaExpr>(P) ||
              P->isInstantiationDependent())
            return nullptr;
          const auto *Implicit = dyn_cast<ImplicitCastExpr>(P);
          if (isa<ParenExpr>(P) || (Implicit && Implicit->getCastKind() == CK_NoOp))
            return howChanges(P, Moved, Ctx, Depth + 1);
          if (Implicit)
            return Implicit->getCastKind() == CK_LValueToRValue && !Moved ? nullptr : "changed";
          // An element (`g.first`, `g.at(0)`, `g[0]`, `std::get<0>(g)`):
          // what is done to it is done to g.
          if (const auto *Member = dyn_cast<MemberExpr>(P)) {
            if (isa<FieldDecl>(Member->getMemberDecl()))
              return howChanges(P, Moved, Ctx, Depth + 1);
            const auto *Method = dyn_cast<CXXMethodDecl>(Member->getMemberDecl());
            DynTypedNodeList Above = Ctx.getParents(*P);
            const auto *Element = Above.size() == 1 ? Above[0].get<CXXMemberCallExpr>() : nullptr;
            if (Element && isElementMethod(Method))
              return howChanges(Element, Moved, Ctx, Depth + 1);
            return Method && Method->isConst() ? nullptr : "changed by a member function";
          }
          if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P);
              Op && isElementOperator(Op) && Op->getArg(0) == Cur &&
              containerKind(Cur->getType()) != ContainerKind::Map)
            return howChanges(P, Moved, Ctx, Depth + 1);
          if (const auto *Address = dyn_cast<UnaryOperator>(P)) {
            if (Address->getOpcode() != UO_AddrOf)
              return "changed";
            // `std::any_cast<T>(&g)` reads through the pointer; anything
            // else may write through it.
            DynTypedNodeList Above = Ctx.getParents(*P);
            const auto *Call = Above.size() == 1 ? Above[0].get<CallExpr>() : nullptr;
            return Call && isStdFunction(Call->getDirectCallee(), {"any_cast", "get_if"})
                       ? nullptr
                       : "its address taken";
          }
          if (const auto *Call = dyn_cast<CallExpr>(P)) {
            const FunctionDecl *Callee = Call->getDirectCallee();
            // A cast or accessor reads what g holds (what it hands out may
            // be modified, never whether or what g holds):
            // `std::any_cast<T>(std::move(g))` moves what g holds out, and
            // g still holds it.
            if (isStdFunction(Callee, {"get"}) &&
                llvm::is_contained({ContainerKind::Tuple, ContainerKind::Pair, ContainerKind::Array},
                                   containerKind(Cur->getType())))
              return howChanges(P, Moved, Ctx, Depth + 1);
            if (isStdFunction(Callee,
                              {"any_cast", "get", "get_if", "holds_alternative", "visit"}))
              return nullptr;
            if (isStdFunction(Callee, {"move", "forward"}))
              return howChanges(P, /*Moved=*/true, Ctx, Depth + 1);
            if (Moved)
              return "moved from";
            std::optional<Taken> How = Callee ? howCallTakes(Call, Callee, Cur) : std::nullopt;
            if (!How)
              return "changed";
            if (!How->Mutable)
              return nullptr;
            if (!How->Object)
              return "passed by non-const reference";
            return How->Object->isCopyAssignmentOperator() ||
                           How->Object->isMoveAssignmentOperator()
                       ? "assigned"
                       : "changed by an operator";
          }
          if (const auto *Construct = dyn_cast<CXXConstructExpr>(P))
            // A copy; through std::move, a move.
            return Moved ? "moved from"
                   : Construct->getConstructor()->isCopyConstructor() ? nullptr
                                                                       : "changed";
          return "changed"; // an assignment, `++`, anything else
        }())
      return How;
  }
  return nullptr;
}

} // namespace

std::vector<TypeErasedPullbackCheck::Change>
TypeErasedPullbackCheck::changesOf(const ValueDecl *Named) const {
  const auto *Fn = dyn_cast_or_null<FunctionDecl>(Named->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return {};
  using namespace ast_matchers;
  std::vector<Change> Changes;
  for (const BoundNodes &Found :
       match(findAll(declRefExpr(to(valueDecl(equalsNode(Named)))).bind("use")), *Fn->getBody(),
             *Context)) {
    const auto *Use = Found.getNodeAs<DeclRefExpr>("use");
    if (const char *How = howChanges(Use, /*Moved=*/false, *Context))
      Changes.push_back({Use, How});
  }
  return Changes;
}

bool TypeErasedPullbackCheck::copyMatters(const CallExpr *Cast) const {
  const Expr *Cur = Cast;
  bool Materialized = false;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    DynTypedNodeList Parents = Context->getParents(*Cur);
    if (Parents.size() != 1)
      return true;
    const auto *P = Parents[0].get<Expr>();
    if (!P)
      // A statement or a variable's initialiser: discarded, or copied
      // into a variable of its own (a reference variable materializes).
      return Materialized;
    const auto *Implicit = dyn_cast<ImplicitCastExpr>(P);
    if (isa<ParenExpr, CXXBindTemporaryExpr>(P) ||
        (Implicit && Implicit->getCastKind() == CK_NoOp)) {
      Cur = P;
      continue;
    }
    if (const auto *Temporary = dyn_cast<MaterializeTemporaryExpr>(P)) {
      if (Temporary->getExtendingDecl())
        return true; // `auto &&r = ...`, `const T &r = ...`, a range-for
      Materialized = true;
      Cur = P;
      continue;
    }
    if (!Materialized)
      return false; // a prvalue read or copied where it is made
    // The temporary is the object of a member, or bound to a parameter.
    // A data member is part of it: what is done to that is done to it
    // (`std::any_cast<T>(g).v[0] += 1` changed the copy), and reading it
    // reads it.
    if (const auto *Member = dyn_cast<MemberExpr>(P);
        (Member && isa<FieldDecl>(Member->getMemberDecl())) ||
        (Implicit && Implicit->getCastKind() == CK_ArrayToPointerDecay) ||
        isa<ArraySubscriptExpr>(P)) {
      Cur = P;
      continue;
    }
    if (Implicit && Implicit->getCastKind() == CK_LValueToRValue)
      return false;
    if (const auto *Member = dyn_cast<MemberExpr>(P)) {
      const auto *Method = dyn_cast<CXXMethodDecl>(Member->getMemberDecl());
      return Method && !Method->isConst() && !Method->isStatic();
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      std::optional<Taken> How = Callee ? howCallTakes(Call, Callee, Cur) : std::nullopt;
      return !How || How->Mutable;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(P))
      // A copy or move of the temporary: from g, a copy, which leaves g
      // as the move left nothing anyone sees.
      return !(Construct->getConstructor()->isCopyOrMoveConstructor());
    return true;
  }
  return true;
}

namespace {

/// The methods at the top of \p M's overriding chains (those that override
/// nothing), as first declarations.
void topsOf(const CXXMethodDecl *M, llvm::SmallPtrSetImpl<const CXXMethodDecl *> &Tops) {
  if (M->size_overridden_methods() == 0) {
    Tops.insert(M->getCanonicalDecl());
    return;
  }
  for (const CXXMethodDecl *Overridden : M->overridden_methods())
    topsOf(Overridden, Tops);
}

const CXXMethodDecl *singleTop(const CXXMethodDecl *M) {
  llvm::SmallPtrSet<const CXXMethodDecl *, 2> Tops;
  topsOf(M, Tops);
  return Tops.size() == 1 ? *Tops.begin() : nullptr;
}

} // namespace

const TypeErasedPullbackCheck::Hierarchy &
TypeErasedPullbackCheck::hierarchyOf(const CXXMethodDecl *M, const Concrete &Type) {
  const CXXMethodDecl *Top = singleTop(M);
  auto [It, New] = Hierarchies.try_emplace(Top ? Top : M->getCanonicalDecl());
  Hierarchy &H = It->second;
  if (!New)
    return H;
  H.Leader = M->getCanonicalDecl();
  if (!Top) {
    H.Why = "it overrides functions of several base classes";
    return H;
  }
  // Every override in the translation unit (named like the pullback, as
  // overrides are), then the top itself.
  std::vector<const CXXMethodDecl *> Members{Top};
  for (const CXXMethodDecl *Override : Overrides)
    if (!llvm::is_contained(Members, Override) && singleTop(Override) == Top)
      Members.push_back(Override);
  const SourceManager &SM = Context->getSourceManager();
  std::vector<FixItHint> Fix;
  for (const CXXMethodDecl *Member : Members) {
    const CXXRecordDecl *Class = Member->getParent();
    // A class defined in this source file (not a header) has no derived
    // class elsewhere: every override is here.
    if (!SM.isInMainFile(SM.getExpansionLoc(Class->getLocation())) ||
        Member->isTemplateInstantiation() || Class->isDependentContext() ||
        isa<ClassTemplateSpecializationDecl>(Class)) {
      H.Why = "a hierarchy is fixed only when every class in it is defined in this "
              "source file (not a header, not a template)";
      return H;
    }
    const FunctionDecl *Def = Member->getDefinition();
    if (!Def && !Member->isPureVirtual()) {
      H.Why = "an override is defined in another file";
      return H;
    }
    if (Def) {
      ReturnSummary Summary = summarizeReturns(Def, Def->getReturnType());
      if (!Summary.AllConcrete || Summary.Distinct.size() != 1 ||
          Summary.Distinct.front().Type.Key != Type.Key || !Type.Spellable ||
          Summary.Analyzer.EditsInMacro) {
        H.Why = "the overrides do not all return one concrete type";
        return H;
      }
      Fix.insert(Fix.end(), Summary.Analyzer.Edits.begin(), Summary.Analyzer.Edits.end());
    }
  }
  // The casts of calls through any member (a base's pure declaration
  // included: `node->backward(dy)` calls Node::backward).
  for (const CXXMethodDecl *Member : Members) {
    ReturnAnalyzer Callers(Classifier, *Context);
    if (!callerEdits(Member, Type, Callers, Fix, H.Claims)) {
      H.Why = "a caller's use of the result cannot be rewritten";
      return H;
    }
  }
  for (const CXXMethodDecl *Member : Members)
    for (const FunctionDecl *Redecl : Member->redecls()) {
      SourceRange Range = Redecl->getReturnTypeSourceRange();
      if (Range.isInvalid() || Range.getBegin().isMacroID() ||
          Redecl->getDeclaredReturnType()->getContainedDeducedType()) {
        H.Why = "a result type is not written out in the file";
        return H;
      }
      Fix.push_back(FixItHint::CreateReplacement(Range, Type.Spelling));
    }
  H.Fix = std::move(Fix);
  H.Members.assign(Members.begin(), Members.end());
  H.Claims.Retyped = H.Members;
  return H;
}

} // namespace clang::tidy::gradlint
