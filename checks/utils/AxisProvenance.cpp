//===--- AxisProvenance.cpp - where a concatenation axis comes from -------===//

#include "utils/AxisProvenance.h"
#include "utils/CallSites.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::gradlint {
namespace {

/// Origins ordered by how much they spoil an expression: combining two
/// sub-expressions keeps the worse one.
int severity(AxisOrigin O) {
  switch (O) {
  case AxisOrigin::Constant:
    return 0;
  case AxisOrigin::StaticRank:
    return 1;
  case AxisOrigin::Parameter:
    return 2;
  case AxisOrigin::Runtime:
    return 3;
  }
  return 3;
}

struct Classification {
  AxisOrigin Origin = AxisOrigin::Constant;
  const ParmVarDecl *Param = nullptr;
  /// A constant whose initialiser comes after the use (`static const int
  /// kAxis;` in a class, defined later): at the use it is no constant
  /// expression, though the evaluator, which sees the whole unit, says it is.
  bool InitializedLater = false;

  void combine(const Classification &Other) {
    if (severity(Other.Origin) > severity(Origin))
      Origin = Other.Origin;
    if (!Param)
      Param = Other.Param;
    InitializedLater |= Other.InitializedLater;
  }
};

/// Whether the initialiser of \p VD comes after \p Use in the translation
/// unit.
bool initializedAfter(const VarDecl *VD, const Expr *Use) {
  const VarDecl *WithInit = nullptr;
  const Expr *Init = VD->getAnyInitializer(WithInit);
  if (!Init || !WithInit)
    return false;
  const SourceManager &SM = VD->getASTContext().getSourceManager();
  SourceLocation Defined = SM.getExpansionLoc(WithInit->getLocation());
  SourceLocation Used = SM.getExpansionLoc(Use->getBeginLoc());
  return Defined.isValid() && Used.isValid() && SM.isBeforeInTranslationUnit(Used, Defined);
}

bool isConstantVariable(const VarDecl *VD) {
  if (VD->isConstexpr())
    return true;
  // `const int Axis = 3;` is usable in constant expressions too.
  return VD->getType().isConstQualified() &&
         VD->getType()->isIntegralOrEnumerationType() &&
         VD->isUsableInConstantExpressions(VD->getASTContext());
}

bool isStaticMember(const ValueDecl *D) {
  if (const auto *VD = dyn_cast<VarDecl>(D))
    return VD->isStaticDataMember();
  if (const auto *MD = dyn_cast<CXXMethodDecl>(D))
    return MD->isStatic();
  return false;
}

/// A static member of a class made from a template (`Tensor<float, 4>::rank`,
/// `T::ndims`, xtensor_fixed's `rank`) is the rank its template arguments
/// give; one of a plain class (`Config::kAxis`) is only a named constant.
AxisOrigin staticMemberOrigin(const ValueDecl *D) {
  const auto *RD = dyn_cast<CXXRecordDecl>(D->getDeclContext());
  bool FromTemplate = RD && (RD->isTemplated() || isa<ClassTemplateSpecializationDecl>(RD) ||
                             RD->getTemplateInstantiationPattern());
  return FromTemplate ? AxisOrigin::StaticRank : AxisOrigin::Constant;
}

Classification classify(const Expr *E);

Classification classifyChildren(const Expr *E) {
  Classification Result;
  for (const Stmt *Child : E->children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      Result.combine(classify(ChildExpr));
  return Result;
}

Classification classifyDecl(const ValueDecl *D) {
  if (isa<EnumConstantDecl>(D))
    return {AxisOrigin::Constant};
  // A template parameter; in an instantiation, a class-type one is the
  // template parameter object it stands for (`p.axis` for `template <P p>`).
  if (isa<NonTypeTemplateParmDecl, TemplateParamObjectDecl>(D))
    return {AxisOrigin::StaticRank};
  if (const auto *PVD = dyn_cast<ParmVarDecl>(D)) {
    // An element of a function parameter pack (`Args... args`) is no
    // parameter of its own that a template parameter could replace.
    const auto *FD = dyn_cast<FunctionDecl>(PVD->getDeclContext());
    if (!FD || !patternParameterIndex(FD, PVD->getFunctionScopeIndex()))
      return {AxisOrigin::Runtime};
    return {AxisOrigin::Parameter, PVD};
  }
  if (const auto *VD = dyn_cast<VarDecl>(D)) {
    if (!isConstantVariable(VD))
      return {AxisOrigin::Runtime};
    return {isStaticMember(VD) ? staticMemberOrigin(VD) : AxisOrigin::Constant};
  }
  return {AxisOrigin::Runtime};
}

Classification classifyCall(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->isConstexpr())
    return {AxisOrigin::Runtime};
  Classification Result;
  // `x.rank()` with a static member: the object is not read, only its type.
  if (isStaticMember(Callee)) {
    Result.Origin = staticMemberOrigin(Callee);
    if (const auto *ME =
            dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      Result.Param = classify(ME->getBase()).Param;
  } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    Result.combine(classify(Member->getImplicitObjectArgument()));
  }
  for (const Expr *Arg : Call->arguments())
    Result.combine(classify(Arg));
  return Result;
}

Classification classify(const Expr *E) {
  E = E->IgnoreParens();
  if (isa<IntegerLiteral, CharacterLiteral, CXXBoolLiteralExpr, FloatingLiteral,
          UnaryExprOrTypeTraitExpr, SizeOfPackExpr, CXXScalarValueInitExpr,
          ImplicitValueInitExpr>(E))
    return {AxisOrigin::Constant};
  if (isa<SubstNonTypeTemplateParmExpr>(E))
    return {AxisOrigin::StaticRank};
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        VD && initializedAfter(VD, DRE)) {
      Classification Later{AxisOrigin::Runtime};
      Later.InitializedLater = true;
      return Later;
    }
    return classifyDecl(DRE->getDecl());
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    // `x.rank` naming a static constexpr data member.
    if (isStaticMember(ME->getMemberDecl()))
      return classifyDecl(ME->getMemberDecl()).Origin == AxisOrigin::Runtime
                 ? Classification{AxisOrigin::Runtime}
                 : Classification{staticMemberOrigin(ME->getMemberDecl())};
    // A member of a constant object (`p.axis` of a class-type template
    // parameter, `kConfig.axis` of a constexpr variable) is as constant.
    if (!ME->isArrow())
      if (Classification Base = classify(ME->getBase());
          Base.Origin == AxisOrigin::Constant || Base.Origin == AxisOrigin::StaticRank)
        return Base;
    return {AxisOrigin::Runtime};
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return classifyCall(Call);
  // A lambda called in place (`[] { return 1; }()`) reads what it
  // captures; its body is left to the constant evaluator, as is whether a
  // temporary (`std::integral_constant<int, 1>{}`) is built at compile time.
  if (isa<ImplicitCastExpr, ExplicitCastExpr, UnaryOperator, BinaryOperator,
          ConditionalOperator, ConstantExpr, CXXDefaultArgExpr, LambdaExpr,
          MaterializeTemporaryExpr, InitListExpr, ArraySubscriptExpr,
          CXXConstructExpr, CXXBindTemporaryExpr, ExprWithCleanups>(E)) {
    if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(E))
      return classify(Default->getExpr());
    return classifyChildren(E);
  }
  return {AxisOrigin::Runtime};
}

} // namespace

std::optional<llvm::APSInt> evaluateAxis(const Expr *E,
                                         const ASTContext &Ctx) {
  if (E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  // A scoped enumeration is not an integral constant expression, but it is
  // a constant expression, and a template argument of its own type.
  if (E->getType()->isScopedEnumeralType()) {
    APValue Value;
    if (E->isCXX11ConstantExpr(Ctx, &Value) && Value.isInt())
      return Value.getInt();
    return std::nullopt;
  }
  return E->getIntegerConstantExpr(Ctx);
}

std::optional<llvm::APSInt> valueAsTemplateArgument(const Expr *E, const llvm::APSInt &AtRunTime,
                                                    const ASTContext &Ctx) {
  Expr::EvalResult Result;
  if (!E->EvaluateAsConstantExpr(Result, Ctx, ConstantExprKind::NonClassTemplateArgument) ||
      !Result.Val.isInt() || llvm::APSInt::isSameValue(Result.Val.getInt(), AtRunTime))
    return std::nullopt;
  return Result.Val.getInt();
}

AxisProvenance classifyAxis(const Expr *Axis, const ASTContext &Ctx) {
  Classification C = classify(Axis);
  AxisProvenance Result;
  Result.Origin = C.Origin;
  Result.Value = C.InitializedLater ? std::nullopt : evaluateAxis(Axis, Ctx);
  Result.Param = C.Param;
  // The walk is syntactic; the constant evaluator knows better when it can
  // compute the value without reading run-time state (`x.dims() - 1` with a
  // constexpr member that returns the static rank).
  if (Result.Value && !Result.isCompileTime())
    Result.Origin = AxisOrigin::StaticRank;
  // In a template's own body a constant of its parameters (`sizeof(T)`)
  // has a value only per instantiation, and is written the same in each.
  Result.Dependent = Axis->isValueDependent();
  if (Result.Dependent && Result.Origin == AxisOrigin::Constant)
    Result.Origin = AxisOrigin::StaticRank;
  // And the other way round: what reads no run-time name but has no value
  // here (a lambda's body that reads a global) is a run-time value.
  if (!Result.Value && !Result.Dependent && Result.Origin == AxisOrigin::Constant)
    Result.Origin = AxisOrigin::Runtime;
  return Result;
}

} // namespace clang::tidy::gradlint
