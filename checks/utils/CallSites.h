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
#include <optional>
#include <vector>

namespace clang::tidy::gradlint {

/// The declaration calls are grouped under: the template pattern of an
/// instantiation, canonical.
const FunctionDecl *callTarget(const FunctionDecl *FD);

/// For each parameter of \p FD, the index of the parameter of
/// callTarget(\p FD) it was instantiated from, or -1 for an element of an
/// expanded function parameter pack; empty where they cannot be lined up.
std::vector<int> patternPositions(const FunctionDecl *FD);

/// The index, among callTarget(\p FD)'s parameters, of the parameter that
/// \p FD's parameter \p Index was instantiated from; none for an element of
/// an expanded function parameter pack (`Args... args`: no one parameter of
/// the pattern stands for it), or where the two cannot be lined up.
std::optional<unsigned> patternParameterIndex(const FunctionDecl *FD, unsigned Index);

/// The parameter of \p FD, an instantiation of callTarget(\p FD) or that
/// declaration itself, instantiated from the pattern's parameter
/// \p PatternIndex; null for a pack, or where they cannot be lined up.
const ParmVarDecl *instantiatedParameter(const FunctionDecl *FD, unsigned PatternIndex);

/// How many of \p Call's first arguments pass an object that no parameter
/// of the callee declares: 1 where `object(args)` or `a << b` calls a member
/// operator with an implicit object, or a static operator(); 0 otherwise
/// (a member call's object is no argument, and an explicit object
/// `this Tape &self` is parameter 0).
unsigned undeclaredObjectArguments(const CallExpr *Call);

/// The call's argument for parameter \p ParamIndex of the callee, as
/// written or the default it takes (a CXXDefaultArgExpr), or null.
const Expr *callArgument(const CallExpr *Call, unsigned ParamIndex);

} // namespace clang::tidy::gradlint

#endif
