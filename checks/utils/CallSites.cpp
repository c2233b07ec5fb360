//===--- CallSites.cpp - how calls are grouped, what they pass ------------===//

#include "utils/CallSites.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::gradlint {

const FunctionDecl *callTarget(const FunctionDecl *FD) {
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  return FD->getCanonicalDecl();
}

const Expr *argumentForParameter(const CallExpr *Call, unsigned ParamIndex) {
  unsigned Index = ParamIndex;
  // `object(args)` calls operator() with the object as argument 0.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
    if (isa_and_nonnull<CXXMethodDecl>(Op->getDirectCallee()))
      ++Index;
  if (Index >= Call->getNumArgs())
    return nullptr;
  const Expr *Arg = Call->getArg(Index);
  return isa<CXXDefaultArgExpr>(Arg) ? nullptr : Arg;
}

} // namespace clang::tidy::gradlint
