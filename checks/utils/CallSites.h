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
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>
#include <string>
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

/// The calls in templates that name a function only through a name that
/// depends on the template's parameters (`alloc.Malloc(n)` where `alloc`'s
/// type is a template parameter, `T::make()`, `backward(node)` found by
/// argument-dependent lookup): which function they call is decided where
/// the template is instantiated. The translation unit is read on the first
/// question, and once more, for the instantiations, when a call by the name
/// asked about exists.
class DependentCalls {
public:
  explicit DependentCalls(ASTContext &Ctx) : Ctx(Ctx) {}

  /// A call in a template that may call \p Fn through a dependent name and
  /// that no instantiation in this translation unit resolves to \p Fn
  /// (callTarget(\p Fn)), the first written; null when there is none. What
  /// such a call does with Fn's result is decided by code nothing here
  /// instantiates: a change to Fn's result type cannot be checked there.
  const Expr *uninstantiatedCallOf(const FunctionDecl *Fn);

  /// Why a change to \p Fn's result type is not offered, for a note at
  /// the call uninstantiatedCallOf found.
  static std::string uncheckedResultNote(const FunctionDecl *Fn);

private:
  struct Call {
    const Expr *Callee;
    SourceLocation NameLoc;
    /// Reached by member syntax or a dependent qualifier: a member.
    bool Member;
    /// Found by argument-dependent lookup: any function by the name.
    bool ByADL;
    /// The functions the name found where it is written (an unresolved
    /// overload set), canonical patterns.
    std::vector<const FunctionDecl *> Found;
  };
  void readPatterns();
  void readInstantiations();

  ASTContext &Ctx;
  bool PatternsRead = false, InstantiationsRead = false;
  llvm::DenseMap<DeclarationName, std::vector<Call>> ByName;
  /// The callees (canonical patterns) the instantiated calls resolve to,
  /// by the place of the callee's name (the pattern's and the
  /// instantiation's are one place).
  llvm::DenseMap<SourceLocation, llvm::SmallPtrSet<const FunctionDecl *, 2>> Resolved;
};

} // namespace clang::tidy::gradlint

#endif
