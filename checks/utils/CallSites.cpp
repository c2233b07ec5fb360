//===--- CallSites.cpp - calls to given functions in a translation unit ---===//

#include "utils/CallSites.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"

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

namespace {

class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  CallCollector(
      const SourceManager &SM,
      const llvm::SmallPtrSetImpl<const FunctionDecl *> &Targets,
      llvm::DenseMap<const FunctionDecl *, std::vector<const CallExpr *>>
          &Calls)
      : SM(SM), Targets(Targets), Calls(Calls) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }

  bool TraverseDecl(Decl *D) {
    // Callers in system headers cannot be changed; skip them wholesale.
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return true;
    const FunctionDecl *Target = callTarget(Callee);
    // One entry per call as written, not per template instantiation.
    if (Targets.contains(Target) && Seen.insert(Call->getBeginLoc()).second)
      Calls[Target].push_back(Call);
    return true;
  }

private:
  const SourceManager &SM;
  const llvm::SmallPtrSetImpl<const FunctionDecl *> &Targets;
  llvm::DenseMap<const FunctionDecl *, std::vector<const CallExpr *>> &Calls;
  llvm::DenseSet<SourceLocation> Seen;
};

} // namespace

CallSiteIndex::CallSiteIndex(
    ASTContext &Ctx,
    const llvm::SmallPtrSetImpl<const FunctionDecl *> &Targets) {
  // The traversal scope is the whole translation unit in clang-tidy and the
  // main file's top-level declarations in clangd, where walking the whole
  // unit would deserialise the preamble.
  CallCollector Collector(Ctx.getSourceManager(), Targets, Calls);
  for (Decl *D : Ctx.getTraversalScope())
    Collector.TraverseDecl(D);
  const SourceManager &SM = Ctx.getSourceManager();
  for (auto &Entry : Calls)
    llvm::sort(Entry.second, [&SM](const CallExpr *A, const CallExpr *B) {
      return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
    });
}

llvm::ArrayRef<const CallExpr *>
CallSiteIndex::callsTo(const FunctionDecl *Target) const {
  auto It = Calls.find(Target);
  if (It == Calls.end())
    return {};
  return It->second;
}

} // namespace clang::tidy::gradlint
