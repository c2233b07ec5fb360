//===--- CallSites.h - how calls are grouped, what they pass --------------===//
//
// How calls are grouped (template instantiations folded onto their pattern)
// and which argument a call passes for a parameter.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_CALLSITES_H
#define GRADLINT_CHECKS_UTILS_CALLSITES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::gradlint {

/// The declaration calls are grouped under: the template pattern of an
/// instantiation, canonical.
const FunctionDecl *callTarget(const FunctionDecl *FD);

/// The argument passed for parameter \p ParamIndex of the callee, or null
/// (default argument, or a call that does not pass it).
const Expr *argumentForParameter(const CallExpr *Call, unsigned ParamIndex);

/// The default argument the call takes for parameter \p ParamIndex of the
/// callee, or null (an argument passed, or none at all).
const CXXDefaultArgExpr *defaultArgumentForParameter(const CallExpr *Call,
                                                     unsigned ParamIndex);

} // namespace clang::tidy::gradlint

#endif
