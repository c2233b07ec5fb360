//===--- CallSites.cpp - how calls are grouped, what they pass ------------===//

#include "utils/CallSites.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
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

} // namespace clang::tidy::gradlint
