//===--- CallSites.cpp - how calls are grouped, what they pass ------------===//

#include "utils/CallSites.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::gradlint {

const FunctionDecl *callTarget(const FunctionDecl *FD) {
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  return FD->getCanonicalDecl();
}

/// The call's argument, as written or defaulted, for parameter \p ParamIndex.
static const Expr *callArgument(const CallExpr *Call, unsigned ParamIndex) {
  unsigned Index = ParamIndex;
  // `object(args)` calls operator() with the object as argument 0.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
    if (isa_and_nonnull<CXXMethodDecl>(Op->getDirectCallee()))
      ++Index;
  return Index < Call->getNumArgs() ? Call->getArg(Index) : nullptr;
}

const Expr *argumentForParameter(const CallExpr *Call, unsigned ParamIndex) {
  const Expr *Arg = callArgument(Call, ParamIndex);
  return isa_and_nonnull<CXXDefaultArgExpr>(Arg) ? nullptr : Arg;
}

const CXXDefaultArgExpr *defaultArgumentForParameter(const CallExpr *Call,
                                                     unsigned ParamIndex) {
  return dyn_cast_or_null<CXXDefaultArgExpr>(callArgument(Call, ParamIndex));
}

} // namespace clang::tidy::gradlint
