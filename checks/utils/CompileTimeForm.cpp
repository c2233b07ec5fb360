//===--- CompileTimeForm.cpp - discover the static-axis overload ----------===//

#include "utils/CompileTimeForm.h"
#include "utils/Spelling.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/APSInt.h"
#include <map>

namespace clang::tidy::gradlint {
namespace {

/// A template parameter identified the way canonical types identify it.
using ParamKey = std::pair<unsigned, unsigned>; // (depth, index)

/// Deduces template parameters of a function template pattern from concrete
/// argument types, structurally. Conservative: a shape it does not model
/// fails, so success means clang's deduction would succeed as well.
class Unifier {
public:
  bool unify(QualType Param, QualType Arg) {
    // Deduction strips references and top-level qualifiers on both sides
    // (and a forwarding reference `T&&` accepts anything).
    Param = Param.getNonReferenceType().getCanonicalType().getUnqualifiedType();
    Arg = Arg.getNonReferenceType().getCanonicalType().getUnqualifiedType();
    if (!Param->isDependentType())
      return nonDependentAccepts(Param, Arg);
    if (const auto *TTP = Param->getAs<TemplateTypeParmType>())
      return bindType(TTP, Arg);
    if (const auto *PP = Param->getAs<PointerType>()) {
      const auto *AP = Arg->getAs<PointerType>();
      return AP && unify(PP->getPointeeType(), AP->getPointeeType());
    }
    if (const auto *TST = Param->getAs<TemplateSpecializationType>())
      return unifySpecialization(TST, Arg);
    return false;
  }

private:
  static bool nonDependentAccepts(QualType Param, QualType Arg) {
    if (Param == Arg)
      return true;
    if (Param->isArithmeticType() && Arg->isArithmeticType())
      return true;
    const auto *ParamRecord = Param->getAsCXXRecordDecl();
    const auto *ArgRecord = Arg->getAsCXXRecordDecl();
    return ParamRecord && ArgRecord && ArgRecord->hasDefinition() &&
           ArgRecord->isDerivedFrom(ParamRecord);
  }

  bool bindType(const TemplateTypeParmType *TTP, QualType Arg) {
    if (TTP->isParameterPack())
      return true; // each element of a pack deduces separately
    auto [It, Inserted] =
        Types.try_emplace(ParamKey(TTP->getDepth(), TTP->getIndex()), Arg);
    return Inserted || It->second == Arg;
  }

  bool bindValue(const NonTypeTemplateParmDecl *NTTP,
                 const llvm::APSInt &Value) {
    if (NTTP->isParameterPack())
      return true;
    auto [It, Inserted] = Values.try_emplace(
        ParamKey(NTTP->getDepth(), NTTP->getIndex()), Value);
    return Inserted || llvm::APSInt::isSameValue(It->second, Value);
  }

  bool unifySpecialization(const TemplateSpecializationType *Param,
                           QualType Arg) {
    const TemplateDecl *ParamTemplate =
        Param->getTemplateName().getAsTemplateDecl();
    const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
        Arg->getAsCXXRecordDecl());
    if (!ParamTemplate || !Spec ||
        Spec->getSpecializedTemplate()->getCanonicalDecl() !=
            ParamTemplate->getCanonicalDecl())
      return false;
    llvm::ArrayRef<TemplateArgument> ParamArgs = Param->template_arguments();
    const TemplateArgumentList &ArgArgs = Spec->getTemplateArgs();
    if (ParamArgs.size() != ArgArgs.size())
      return false;
    for (unsigned I = 0; I < ParamArgs.size(); ++I)
      if (!unifyArgument(ParamArgs[I], ArgArgs[I]))
        return false;
    return true;
  }

  bool unifyArgument(const TemplateArgument &Param,
                     const TemplateArgument &Arg) {
    switch (Param.getKind()) {
    case TemplateArgument::Type:
      return Arg.getKind() == TemplateArgument::Type &&
             unify(Param.getAsType(), Arg.getAsType());
    case TemplateArgument::Integral:
      return Arg.getKind() == TemplateArgument::Integral &&
             llvm::APSInt::isSameValue(Param.getAsIntegral(),
                                       Arg.getAsIntegral());
    case TemplateArgument::Expression: {
      if (Arg.getKind() != TemplateArgument::Integral)
        return false;
      const auto *DRE =
          dyn_cast<DeclRefExpr>(Param.getAsExpr()->IgnoreParenImpCasts());
      const auto *NTTP =
          DRE ? dyn_cast<NonTypeTemplateParmDecl>(DRE->getDecl()) : nullptr;
      // An expression such as `R + 1` is not deducible; give up.
      return NTTP && bindValue(NTTP, Arg.getAsIntegral());
    }
    default:
      return false;
    }
  }

  std::map<ParamKey, QualType> Types;
  std::map<ParamKey, llvm::APSInt> Values;
};

/// The integer non-type template parameter that an axis tag type is
/// specialised on, when \p T is such a type (`Axis<A>`,
/// `std::integral_constant<int, A>`), with the spelling of the other
/// template arguments.
struct TagShape {
  const ClassTemplateDecl *Tag = nullptr;
  std::string Before, After;
};

std::optional<TagShape> matchTagType(QualType T, const ASTContext &Ctx) {
  const auto *TST =
      T.getNonReferenceType()->getAs<TemplateSpecializationType>();
  if (!TST)
    return std::nullopt;
  const auto *Tag = dyn_cast_or_null<ClassTemplateDecl>(
      TST->getTemplateName().getAsTemplateDecl());
  if (!Tag)
    return std::nullopt;
  PrintingPolicy Policy = spellingPolicy(Ctx);
  TagShape Shape;
  Shape.Tag = Tag;
  bool SeenAxis = false;
  for (const TemplateArgument &Arg : TST->template_arguments()) {
    std::string Spelled;
    switch (Arg.getKind()) {
    case TemplateArgument::Expression: {
      const auto *DRE =
          dyn_cast<DeclRefExpr>(Arg.getAsExpr()->IgnoreParenImpCasts());
      const auto *NTTP =
          DRE ? dyn_cast<NonTypeTemplateParmDecl>(DRE->getDecl()) : nullptr;
      if (!NTTP || SeenAxis || NTTP->isParameterPack() ||
          !NTTP->getType()->isIntegralOrEnumerationType())
        return std::nullopt;
      SeenAxis = true;
      continue;
    }
    case TemplateArgument::Type:
      if (Arg.getAsType()->isDependentType())
        return std::nullopt;
      Spelled = Arg.getAsType().getAsString(Policy);
      break;
    case TemplateArgument::Integral:
      Spelled = toString(Arg.getAsIntegral(), 10);
      break;
    default:
      return std::nullopt;
    }
    std::string &Side = SeenAxis ? Shape.After : Shape.Before;
    Side += SeenAxis ? ", " + Spelled : Spelled + ", ";
  }
  if (!SeenAxis)
    return std::nullopt;
  return Shape;
}

bool isIntegerTemplateParam(const NamedDecl *D) {
  const auto *NTTP = dyn_cast<NonTypeTemplateParmDecl>(D);
  return NTTP && !NTTP->isParameterPack() &&
         NTTP->getType()->isIntegralOrEnumerationType();
}

/// Whether the parameters of \p Candidate accept the call's arguments, with
/// the argument at \p Skip left out; \p SkipParam leaves out the parameter
/// in that position too (the axis-tag parameter).
bool acceptsArguments(const FunctionDecl *Candidate,
                      llvm::ArrayRef<const Expr *> Args, unsigned Skip,
                      bool SkipParam) {
  Unifier U;
  llvm::ArrayRef<ParmVarDecl *> Params = Candidate->parameters();
  unsigned P = 0;
  for (unsigned I = 0; I < Args.size(); ++I) {
    if (I == Skip) {
      P += SkipParam;
      continue;
    }
    if (P >= Params.size())
      return false;
    QualType ParamType = Params[P]->getType();
    if (const auto *Pack = ParamType->getAs<PackExpansionType>()) {
      // A trailing function parameter pack takes every remaining argument.
      if (!U.unify(Pack->getPattern(), writtenArgumentType(Args[I])))
        return false;
      continue;
    }
    if (!U.unify(ParamType, writtenArgumentType(Args[I])))
      return false;
    ++P;
  }
  for (; P < Params.size(); ++P)
    if (!Params[P]->hasDefaultArg() && !Params[P]->isParameterPack())
      return false;
  return true;
}

} // namespace

QualType writtenArgumentType(const Expr *Arg) {
  return Arg->IgnoreUnlessSpelledInSource()->getType();
}

bool parameterAccepts(QualType Param, QualType Arg) {
  return Unifier().unify(Param, Arg);
}

const std::vector<CompileTimeFormFinder::Candidate> &
CompileTimeFormFinder::candidatesFor(const FunctionDecl *Runtime) {
  Runtime = Runtime->getCanonicalDecl();
  auto [It, Inserted] = Candidates.try_emplace(Runtime);
  if (!Inserted)
    return It->second;
  const FunctionTemplateDecl *Own = Runtime->getPrimaryTemplate();
  const DeclContext *Scope = Runtime->getDeclContext()->getRedeclContext();
  for (const NamedDecl *Found : Scope->lookup(Runtime->getDeclName())) {
    const NamedDecl *D = Found->getUnderlyingDecl();
    if (const auto *TD = dyn_cast<FunctionTemplateDecl>(D)) {
      if (Own && TD->getCanonicalDecl() == Own->getCanonicalDecl())
        continue;
      const TemplateParameterList *TPL = TD->getTemplateParameters();
      if (TPL->size() > 0 && isIntegerTemplateParam(TPL->getParam(0)))
        It->second.push_back(
            {CompileTimeForm::TemplateArgument, TD, TD->getTemplatedDecl()});
      It->second.push_back(
          {CompileTimeForm::AxisTag, TD, TD->getTemplatedDecl()});
    }
  }
  return It->second;
}

std::optional<CompileTimeForm>
CompileTimeFormFinder::find(const FunctionDecl *Runtime,
                            llvm::ArrayRef<const Expr *> Args,
                            unsigned AxisIndex) {
  const ASTContext &Ctx = Runtime->getASTContext();
  for (const Candidate &C : candidatesFor(Runtime)) {
    CompileTimeForm Form;
    Form.Kind = C.Kind;
    Form.Declaration = C.Template;
    if (C.Kind == CompileTimeForm::TemplateArgument) {
      if (acceptsArguments(C.Function, Args, AxisIndex, /*SkipParam=*/false))
        return Form;
      continue;
    }
    if (AxisIndex >= C.Function->getNumParams())
      continue;
    std::optional<TagShape> Shape =
        matchTagType(C.Function->getParamDecl(AxisIndex)->getType(), Ctx);
    if (!Shape)
      continue;
    // The tag parameter must be the one the template deduces the axis from.
    if (!acceptsArguments(C.Function, Args, AxisIndex, /*SkipParam=*/true))
      continue;
    Form.Tag = Shape->Tag;
    Form.TagArgsBefore = std::move(Shape->Before);
    Form.TagArgsAfter = std::move(Shape->After);
    return Form;
  }
  return std::nullopt;
}

} // namespace clang::tidy::gradlint
