//===--- CallSites.h - calls to given functions in a translation unit -----===//
//
// Collects, in one traversal of the translation unit, every call to a set of
// functions (template instantiations folded onto their pattern), so that the
// origin of a parameter's value can be traced to the arguments of its
// callers.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_CALLSITES_H
#define GRADLINT_CHECKS_UTILS_CALLSITES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <vector>

namespace clang::tidy::gradlint {

/// The declaration calls are grouped under: the template pattern of an
/// instantiation, canonical.
const FunctionDecl *callTarget(const FunctionDecl *FD);

/// The argument passed for parameter \p ParamIndex of the callee, or null
/// (default argument, or a call that does not pass it).
const Expr *argumentForParameter(const CallExpr *Call, unsigned ParamIndex);

class CallSiteIndex {
public:
  /// Finds the calls to \p Targets (as returned by callTarget) in \p Ctx's
  /// traversal scope, outside system headers, in source order.
  CallSiteIndex(ASTContext &Ctx,
                const llvm::SmallPtrSetImpl<const FunctionDecl *> &Targets);

  llvm::ArrayRef<const CallExpr *> callsTo(const FunctionDecl *Target) const;

private:
  llvm::DenseMap<const FunctionDecl *, std::vector<const CallExpr *>> Calls;
};

} // namespace clang::tidy::gradlint

#endif
