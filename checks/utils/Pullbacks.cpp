//===--- Pullbacks.cpp - recognise pullbacks ------------------------------===//

#include "utils/Pullbacks.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::gradlint {

bool hasPullbackAnnotation(const Decl *D) {
  for (const auto *A : D->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == PullbackAnnotation)
      return true;
  return false;
}

PullbackNaming::PullbackNaming(GradlintCheck &Check,
                               const ClangTidyCheck::OptionsView &Options)
    : NamesOption(Options.getLocalOrGlobal("PullbackNames", DefaultPullbackNames)),
      RRulesOption(Options.getLocalOrGlobal("RRuleNames", DefaultRRuleNames)),
      Names(Check.namePatternOption("PullbackNames", NamesOption)),
      RRules(Check.namePatternOption("RRuleNames", RRulesOption)) {}

void PullbackNaming::store(const ClangTidyCheck::OptionsView &Options,
                           ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "PullbackNames", NamesOption);
  Options.store(Opts, "RRuleNames", RRulesOption);
}

const Expr *stripTemporaries(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temp->getSubExpr();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr();
    else
      return E;
  }
}

const LambdaExpr *lambdaOf(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripTemporaries(E);
    if (const auto *Lambda = dyn_cast<LambdaExpr>(E))
      return Lambda;
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      // std::function<...>(lambda), std::move(lambda) into a callable.
      E = Construct->getNumArgs() == 1 ? Construct->getArg(0) : nullptr;
      continue;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      E = Var && Var->isLocalVarDecl() ? Var->getInit() : nullptr;
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      // std::move(pullback)
      const FunctionDecl *Callee = Call->getDirectCallee();
      E = Callee && Callee->isInStdNamespace() && Callee->getName() == "move" &&
                  Call->getNumArgs() == 1
              ? Call->getArg(0)
              : nullptr;
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

std::vector<const Expr *> elementsOf(const Expr *E) {
  E = stripTemporaries(E);
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = stripTemporaries(Cast->getSubExpr());
  std::vector<const Expr *> Elements;
  if (const auto *List = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Init : List->inits())
      Elements.push_back(Init);
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    for (const Expr *Arg : Construct->arguments())
      Elements.push_back(Arg);
  } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->isInStdNamespace() &&
        (Callee->getName() == "make_pair" || Callee->getName() == "make_tuple" ||
         Callee->getName() == "tuple"))
      for (const Expr *Arg : Call->arguments())
        Elements.push_back(Arg);
  }
  return Elements;
}

std::vector<const Expr *> rrulePullbackElements(const Expr *Returned) {
  std::vector<const Expr *> Pullbacks;
  for (const Expr *Element : elementsOf(Returned))
    if (lambdaOf(Element))
      Pullbacks.push_back(Element);
  return Pullbacks;
}

const VarDecl *localVariableOf(const Expr *E) {
  E = stripTemporaries(E);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
        Callee->getName() == "move" && Call->getNumArgs() == 1)
      E = stripTemporaries(Call->getArg(0));
  }
  if (const auto *Copy = dyn_cast<CXXConstructExpr>(E);
      Copy && Copy->getNumArgs() == 1 &&
      Copy->getConstructor()->isCopyOrMoveConstructor())
    E = stripTemporaries(Copy->getArg(0));
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->isLocalVarDecl() ? Var : nullptr;
}

namespace {
class ReturnCollector : public RecursiveASTVisitor<ReturnCollector> {
public:
  std::vector<const ReturnStmt *> Returns;
  bool VisitReturnStmt(ReturnStmt *S) {
    Returns.push_back(S);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseCXXRecordDecl(CXXRecordDecl *) { return true; }
};
} // namespace

std::vector<const ReturnStmt *> returnsOf(const FunctionDecl *FD) {
  ReturnCollector Collector;
  if (Stmt *Body = FD->getBody())
    Collector.TraverseStmt(Body);
  return std::move(Collector.Returns);
}

std::vector<const LambdaExpr *> returnedLambdas(const FunctionDecl *FD) {
  std::vector<const LambdaExpr *> Lambdas;
  if (!FD || !FD->hasBody())
    return Lambdas;
  for (const ReturnStmt *Return : returnsOf(FD)) {
    const LambdaExpr *Lambda =
        Return->getRetValue() ? lambdaOf(Return->getRetValue()) : nullptr;
    if (!Lambda)
      return {};
    Lambdas.push_back(Lambda);
  }
  return Lambdas;
}

const LambdaExpr *singleReturnedLambda(const FunctionDecl *FD) {
  std::vector<const LambdaExpr *> Lambdas = returnedLambdas(FD);
  if (Lambdas.empty() || llvm::any_of(Lambdas, [&](const LambdaExpr *L) {
        return L != Lambdas.front();
      }))
    return nullptr;
  return Lambdas.front();
}

bool callersSeeDefinition(const FunctionDecl *FD) {
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  return !FD->getPreviousDecl() &&
         (FD->isInlined() || FD->isTemplated() || !FD->isExternallyVisible() ||
          !SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())));
}

bool resultTypeEditable(const FunctionDecl *FD) {
  SourceRange Range = FD->getReturnTypeSourceRange();
  return Range.isValid() && !Range.getBegin().isMacroID() &&
         !Range.getEnd().isMacroID();
}

bool closureResultBecomesAuto(const FunctionDecl *FD, const PullbackNaming &Naming) {
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  return !FD->isTemplateInstantiation() &&
         !SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())) &&
         (Naming.isPullback(*FD) || Naming.isRRule(*FD)) &&
         singleReturnedLambda(FD) && callersSeeDefinition(FD) &&
         resultTypeEditable(FD);
}

namespace {

class ClosureUses : public RecursiveASTVisitor<ClosureUses> {
public:
  explicit ClosureUses(const VarDecl *Var) : Var(Var) {}

  bool onlyClosureUses(Stmt *Body) {
    TraverseStmt(Body);
    return llvm::all_of(Uses, [&](const DeclRefExpr *Use) {
      return Allowed.contains(Use);
    });
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (Ref->getDecl() == Var)
      Uses.push_back(Ref);
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Call) {
    if (Call->getOperator() == OO_Call)
      allow(Call->getArg(0));
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || isa<CXXOperatorCallExpr>(Call))
      return true;
    if (Callee->isInStdNamespace() && Callee->getName() == "move") {
      allow(Call->getArg(0));
      return true;
    }
    for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams(); ++I)
      if (acceptsClosure(Callee->getParamDecl(I)->getType()))
        allow(Call->getArg(I));
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    // A copy or a conversion (into another std::function, say).
    if (Construct->getNumArgs() == 1)
      allow(Construct->getArg(0));
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *Return) {
    if (const Expr *Value = Return->getRetValue()) {
      allow(Value);
      for (const Expr *Element : elementsOf(Value))
        allow(Element);
    }
    return true;
  }
  bool VisitVarDecl(VarDecl *Other) {
    if (Other != Var && Other->hasInit() &&
        !Other->getType()->isReferenceType())
      allow(Other->getInit());
    return true;
  }

private:
  static bool acceptsClosure(QualType Param) {
    if (!Param->isReferenceType())
      return true;
    QualType Pointee = Param->getPointeeType();
    return Pointee.isConstQualified() || Param->isRValueReferenceType();
  }
  void allow(const Expr *E) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(stripTemporaries(E)))
      Allowed.insert(Ref);
  }

  const VarDecl *Var;
  std::vector<const DeclRefExpr *> Uses;
  llvm::SmallPtrSet<const DeclRefExpr *, 8> Allowed;
};

} // namespace

bool onlyClosureUses(const VarDecl *Var, const Stmt *Body) {
  return ClosureUses(Var).onlyClosureUses(const_cast<Stmt *>(Body));
}

} // namespace clang::tidy::gradlint
