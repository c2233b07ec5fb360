//===--- ErasedTypes.cpp - recognise type-erased types --------------------===//

#include "utils/ErasedTypes.h"
#include "utils/Spelling.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::gradlint {

std::string qualifiedClassName(QualType T) {
  if (T.isNull()) // an initialiser list in a template, not yet resolved
    return {};
  T = T.getNonReferenceType();
  if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl())
    return optionName(RD);
  // A dependent specialisation (`std::function<T(T)>` in a template, or an
  // alias template's `Back<T>` for it: the canonical type names the class).
  if (const auto *TST = T.getCanonicalType()->getAs<TemplateSpecializationType>())
    if (const TemplateDecl *TD = TST->getTemplateName().getAsTemplateDecl())
      return optionName(TD);
  return {};
}

bool isAnyType(QualType T) {
  std::string Name = qualifiedClassName(T);
  return Name == "std::any" || Name == "boost::any";
}

ContainerKind containerKind(QualType T) {
  std::string Name = qualifiedClassName(T);
  return llvm::StringSwitch<ContainerKind>(Name)
      .Case("std::tuple", ContainerKind::Tuple)
      .Case("std::pair", ContainerKind::Pair)
      .Case("std::array", ContainerKind::Array)
      .Case("std::vector", ContainerKind::Vector)
      .Case("std::optional", ContainerKind::Optional)
      .Case("std::map", ContainerKind::Map)
      .Case("std::unordered_map", ContainerKind::Map)
      .Default(ContainerKind::None);
}

static const TemplateArgumentList *templateArguments(QualType T) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  return Spec ? &Spec->getTemplateArgs() : nullptr;
}

bool ErasedTypeClassifier::isTensorType(QualType T) const {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && TensorTypes.matches(RD->getName());
}

llvm::SmallVector<QualType, 4> typeArguments(llvm::ArrayRef<TemplateArgument> Args) {
  llvm::SmallVector<QualType, 4> Types;
  for (const TemplateArgument &Arg : Args)
    for (const TemplateArgument &Each :
         Arg.getKind() == TemplateArgument::Pack ? Arg.pack_elements() : llvm::ArrayRef(Arg))
      if (Each.getKind() == TemplateArgument::Type)
        Types.push_back(Each.getAsType());
  return Types;
}

bool ErasedTypeClassifier::isErased(QualType T) const {
  T = T.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (const auto *PT = T->getAs<PointerType>())
    return PT->getPointeeType()->isVoidType();
  std::string Name = qualifiedClassName(T);
  if (Name.empty())
    return false;
  if (ErasedTypes.matches(Name))
    return true;
  const TemplateArgumentList *Args = templateArguments(T);
  if (!Args)
    return false;
  if (Name == "std::shared_ptr" || Name == "std::unique_ptr")
    return Args->size() > 0 && Args->get(0).getKind() == TemplateArgument::Type &&
           Args->get(0).getAsType()->isVoidType();
  if (Name == "std::variant") {
    // A variant over several tensor types is a tensor whose rank or dtype is
    // only known at run time.
    unsigned Tensors = 0;
    for (const TemplateArgument &Pack : Args->asArray())
      if (Pack.getKind() == TemplateArgument::Pack)
        for (const TemplateArgument &Alt : Pack.pack_elements())
          Tensors += Alt.getKind() == TemplateArgument::Type &&
                     isTensorType(Alt.getAsType());
    return Tensors > 1;
  }
  return false;
}

bool ErasedTypeClassifier::forEachErased(QualType T,
                                         llvm::function_ref<bool(QualType)> Visit) const {
  if (isErased(T))
    return Visit(T.getNonReferenceType().getUnqualifiedType());
  ContainerKind Kind = containerKind(T);
  if (Kind == ContainerKind::None)
    return true;
  const TemplateArgumentList *Args = templateArguments(T);
  if (!Args)
    return true;
  // Of a map, only the mapped type: a key that is a pointer
  // (`std::unordered_map<void *, Grad>`) identifies, it does not erase.
  if (Kind == ContainerKind::Map)
    return Args->size() < 2 || Args->get(1).getKind() != TemplateArgument::Type ||
           forEachErased(Args->get(1).getAsType(), Visit);
  for (QualType Arg : typeArguments(Args->asArray()))
    if (!forEachErased(Arg, Visit))
      return false;
  return true;
}

std::optional<QualType> ErasedTypeClassifier::findErased(QualType T) const {
  std::optional<QualType> Found;
  forEachErased(T, [&](QualType Erased) {
    Found = Erased;
    return false;
  });
  return Found;
}

/// Whether \p T is a class with a call operator (asked of the template or
/// partial specialization a specialization that is not instantiated comes
/// from).
static bool isCallableClass(QualType T) {
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  if (!RD->hasDefinition())
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
      auto From = Spec->getSpecializedTemplateOrPartial();
      if (auto *Partial = dyn_cast<ClassTemplatePartialSpecializationDecl *>(From))
        RD = Partial;
      else
        RD = cast<ClassTemplateDecl *>(From)->getTemplatedDecl();
    }
  if (!RD->hasDefinition())
    return false;
  RD = RD->getDefinition();
  DeclarationName Call = RD->getASTContext().DeclarationNames.getCXXOperatorName(OO_Call);
  return !RD->lookup(Call).empty();
}

bool ErasedTypeClassifier::erasesOnlyCallables(QualType T) const {
  bool Any = false;
  bool All = forEachErased(T, [&](QualType Erased) {
    Any = true;
    return isCallableClass(Erased);
  });
  return Any && All;
}

} // namespace clang::tidy::gradlint
