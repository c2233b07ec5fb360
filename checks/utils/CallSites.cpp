//===--- CallSites.cpp - how calls are grouped, what they pass ------------===//

#include "utils/CallSites.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include <vector>

namespace clang::tidy::gradlint {

const FunctionDecl *callTarget(const FunctionDecl *FD) {
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  return FD->getCanonicalDecl();
}

// Empty where the parameters cannot be lined up: more than one pack, or
// too few parameters.
std::vector<int> patternPositions(const FunctionDecl *FD) {
  const FunctionDecl *Pattern = callTarget(FD);
  unsigned Own = FD->getNumParams(), Theirs = Pattern->getNumParams();
  unsigned Packs = llvm::count_if(Pattern->parameters(), [](const ParmVarDecl *P) {
    return P->isParameterPack();
  });
  // A pack the instantiation expanded to N parameters takes N places; a
  // pattern without one lines up one to one.
  if (Packs > 1 || (Packs == 0 && Own != Theirs) || (Packs == 1 && Own + 1 < Theirs))
    return {};
  std::vector<int> Positions;
  for (unsigned I = 0; I < Theirs; ++I) {
    if (!Pattern->getParamDecl(I)->isParameterPack()) {
      Positions.push_back(int(I));
      continue;
    }
    // In the pattern itself (FD == Pattern) the pack is one parameter.
    unsigned Width = FD == Pattern || !FD->getTemplateInstantiationPattern()
                         ? 1
                         : Own + 1 - Theirs;
    Positions.insert(Positions.end(), Width, -1);
  }
  if (Positions.size() != Own)
    return {};
  return Positions;
}

std::optional<unsigned> patternParameterIndex(const FunctionDecl *FD, unsigned Index) {
  std::vector<int> Positions = patternPositions(FD);
  if (Index >= Positions.size() || Positions[Index] < 0)
    return std::nullopt;
  return unsigned(Positions[Index]);
}

const ParmVarDecl *instantiatedParameter(const FunctionDecl *FD, unsigned PatternIndex) {
  std::vector<int> Positions = patternPositions(FD);
  auto At = llvm::find(Positions, int(PatternIndex));
  return At == Positions.end() ? nullptr : FD->getParamDecl(At - Positions.begin());
}

unsigned undeclaredObjectArguments(const CallExpr *Call) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
  const auto *M = Op ? dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee()) : nullptr;
  return M && !M->isExplicitObjectMemberFunction() ? 1 : 0;
}

const Expr *callArgument(const CallExpr *Call, unsigned ParamIndex) {
  unsigned Index = ParamIndex + undeclaredObjectArguments(Call);
  return Index < Call->getNumArgs() ? Call->getArg(Index) : nullptr;
}

namespace {

/// The calls of a translation unit's templates, or of its instantiations.
template <bool Instantiations>
struct CallReader : RecursiveASTVisitor<CallReader<Instantiations>> {
  llvm::function_ref<void(const CallExpr *)> Each;
  bool shouldVisitTemplateInstantiations() const { return Instantiations; }
  bool shouldVisitImplicitCode() const { return Instantiations; }
  bool VisitCallExpr(CallExpr *Call) {
    Each(Call);
    return true;
  }
};

template <bool Instantiations>
void readCalls(ASTContext &Ctx, llvm::function_ref<void(const CallExpr *)> Each) {
  CallReader<Instantiations> Reader;
  Reader.Each = Each;
  Reader.TraverseAST(Ctx);
}

} // namespace

void DependentCalls::readPatterns() {
  PatternsRead = true;
  readCalls<false>(Ctx, [&](const CallExpr *C) {
    if (!C->isTypeDependent())
      return;
    const Expr *Callee = C->getCallee()->IgnoreParenImpCasts();
    auto FoundIn = [](const OverloadExpr *E) {
      std::vector<const FunctionDecl *> Found;
      for (const NamedDecl *D : E->decls())
        if (const FunctionDecl *FD = D->getUnderlyingDecl()->getAsFunction())
          Found.push_back(callTarget(FD));
      return Found;
    };
    if (const auto *M = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
      ByName[M->getMember()].push_back({Callee, M->getMemberLoc(), true, false, {}});
    else if (const auto *Q = dyn_cast<DependentScopeDeclRefExpr>(Callee))
      ByName[Q->getDeclName()].push_back({Callee, Q->getLocation(), true, false, {}});
    else if (const auto *U = dyn_cast<UnresolvedMemberExpr>(Callee))
      ByName[U->getName()].push_back({Callee, U->getMemberLoc(), true, false, FoundIn(U)});
    else if (const auto *L = dyn_cast<UnresolvedLookupExpr>(Callee))
      ByName[L->getName()].push_back(
          {Callee, L->getNameLoc(), false, L->requiresADL(), FoundIn(L)});
  });
}

void DependentCalls::readInstantiations() {
  InstantiationsRead = true;
  llvm::DenseSet<SourceLocation> Places;
  for (const auto &Entry : ByName)
    for (const Call &C : Entry.second)
      Places.insert(C.NameLoc);
  readCalls<true>(Ctx, [&](const CallExpr *C) {
    const FunctionDecl *Callee = C->getDirectCallee();
    if (!Callee)
      return;
    const Expr *Ref = C->getCallee()->IgnoreParenImpCasts();
    SourceLocation NameLoc;
    if (const auto *M = dyn_cast<MemberExpr>(Ref))
      NameLoc = M->getMemberLoc();
    else if (const auto *D = dyn_cast<DeclRefExpr>(Ref))
      NameLoc = D->getLocation();
    if (NameLoc.isValid() && Places.contains(NameLoc))
      Resolved[NameLoc].insert(callTarget(Callee));
  });
}

const Expr *DependentCalls::uninstantiatedCallOf(const FunctionDecl *Fn) {
  if (!PatternsRead)
    readPatterns();
  auto It = ByName.find(Fn->getDeclName());
  if (It == ByName.end())
    return nullptr;
  const FunctionDecl *Target = callTarget(Fn);
  bool IsMember = isa<CXXMethodDecl>(Target);
  const Call *First = nullptr;
  for (const Call &C : It->second) {
    bool MayCall = llvm::is_contained(C.Found, Target) ||
                   (C.Member ? IsMember && C.Found.empty() : C.ByADL && !IsMember);
    if (!MayCall)
      continue;
    if (!InstantiationsRead)
      readInstantiations();
    auto R = Resolved.find(C.NameLoc);
    if (R != Resolved.end() && R->second.contains(Target))
      continue;
    if (!First || Ctx.getSourceManager().isBeforeInTranslationUnit(C.NameLoc, First->NameLoc))
      First = &C;
  }
  return First ? First->Callee : nullptr;
}

std::string DependentCalls::uncheckedResultNote(const FunctionDecl *Fn) {
  return "a template calls '" + Fn->getNameAsString() +
         "' here through a name that depends on its parameters, and nothing in this "
         "file instantiates it to call this function: what it does with the result "
         "cannot be checked";
}

} // namespace clang::tidy::gradlint
