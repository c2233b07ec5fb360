//===--- CompileTimeForm.cpp - discover the static-axis overload ----------===//

#include "utils/CompileTimeForm.h"
#include "utils/Spelling.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/StringExtras.h"

namespace clang::tidy::gradlint {
namespace {

/// The integer non-type template parameter that an axis tag type is
/// specialised on, when \p T is such a type (`Axis<A>`,
/// `std::integral_constant<int, A>`, or an alias template of one,
/// `axis_t<A>`), with the spelling of the other template arguments.
struct TagShape {
  const TemplateDecl *Tag = nullptr;
  std::string Before, After;
};

std::optional<TagShape> matchTagType(QualType T, const ASTContext &Ctx) {
  const auto *TST =
      T.getNonReferenceType()->getAs<TemplateSpecializationType>();
  if (!TST)
    return std::nullopt;
  // The outermost template the parameter's type names: an alias template
  // is spelled as the library spells it, whatever it stands for.
  const TemplateDecl *Tag = TST->getTemplateName().getAsTemplateDecl();
  if (!isa_and_nonnull<ClassTemplateDecl, TypeAliasTemplateDecl>(Tag))
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

/// An integer, enumeration or `auto` non-type template parameter: one that
/// an axis value can be the argument of.
bool isAxisTemplateParam(const NamedDecl *D) {
  const auto *NTTP = dyn_cast<NonTypeTemplateParmDecl>(D);
  if (!NTTP || NTTP->isParameterPack())
    return false;
  QualType T = NTTP->getType();
  return T->isIntegralOrEnumerationType() || T->getContainedAutoType();
}

} // namespace

std::optional<CompileTimeForm>
CompileTimeFormFinder::find(const FunctionDecl *Runtime, unsigned AxisIndex,
                            const NamedDecl *Found) {
  const DeclContext *Own = Runtime->getDeclContext()->getRedeclContext();
  // A name found through a using-declaration names the overload set of the
  // scope that declaration is in: a derived class's `using Base::cat;` with
  // its own `template <int A> cat`, a namespace that gathers a library's
  // overloads. That set is asked first, then the runtime form's own scope
  // (which a facade's using-declaration may not have brought in whole: the
  // qualified names are tried there).
  const DeclContext *Via = isa_and_nonnull<UsingShadowDecl>(Found)
                                ? Found->getDeclContext()->getRedeclContext()
                                : nullptr;
  // A block-scope using-declaration declares nothing beside it that could
  // be a form: its target's scope is the one to ask.
  if (Via && !Via->isFileContext() && !Via->isRecord())
    Via = nullptr;
  for (const DeclContext *Scope : {Via == Own ? nullptr : Via, Own}) {
    if (!Scope)
      continue;
    auto Key = std::make_tuple(Runtime->getCanonicalDecl(), AxisIndex, Scope);
    auto [It, Inserted] = Cache.try_emplace(Key);
    if (Inserted)
      It->second = discover(Runtime, AxisIndex, Scope);
    if (It->second)
      return It->second;
  }
  return std::nullopt;
}

std::optional<CompileTimeForm>
CompileTimeFormFinder::discover(const FunctionDecl *Runtime,
                                unsigned AxisIndex,
                                const DeclContext *Scope) const {
  const ASTContext &Ctx = Runtime->getASTContext();
  const FunctionTemplateDecl *Own = Runtime->getPrimaryTemplate();
  std::optional<CompileTimeForm> Template, Tag;
  for (const NamedDecl *Found : Scope->lookup(Runtime->getDeclName())) {
    const auto *TD = dyn_cast<FunctionTemplateDecl>(Found->getUnderlyingDecl());
    if (!TD || (Own && TD->getCanonicalDecl() == Own->getCanonicalDecl()))
      continue;
    const FunctionDecl *Function = TD->getTemplatedDecl();
    std::optional<TagShape> Shape;
    if (AxisIndex < Function->getNumParams())
      Shape = matchTagType(Function->getParamDecl(AxisIndex)->getType(), Ctx);
    if (Shape) {
      if (!Tag) {
        Tag.emplace();
        Tag->Kind = CompileTimeForm::AxisTag;
        Tag->Declaration = TD;
        Tag->Tag = Shape->Tag;
        Tag->TagArgsBefore = std::move(Shape->Before);
        Tag->TagArgsAfter = std::move(Shape->After);
      }
      if (Tag->Tag == Shape->Tag)
        Tag->Overloads.push_back(Function);
      continue;
    }
    const TemplateParameterList *TPL = TD->getTemplateParameters();
    if (TPL->size() > 0 && isAxisTemplateParam(TPL->getParam(0))) {
      if (!Template) {
        Template.emplace();
        Template->Kind = CompileTimeForm::TemplateArgument;
        Template->Declaration = TD;
      }
      Template->Overloads.push_back(Function);
    }
  }
  return Template ? Template : Tag;
}

} // namespace clang::tidy::gradlint
