//===--- AxisFlow.cpp - how an axis parameter's values reach it -----------===//

#include "utils/AxisFlow.h"
#include "utils/AxisProvenance.h"
#include "utils/CallSites.h"
#include "utils/ErasedTypes.h"
#include "utils/FixBuilder.h"
#include "utils/Spelling.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Index/USRGeneration.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include <memory>
#include <mutex>
#include <set>
#include <type_traits>

namespace clang::tidy::gradlint {
namespace {

bool isIntegralParameter(const ParmVarDecl *P) {
  QualType T = P->getType();
  if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified())
    return false;
  T = T.getNonReferenceType();
  return T->isIntegralOrEnumerationType() && !T->isBooleanType() &&
         !T->isDependentType();
}

/// The declaration diagnostics name: the template, not a specialisation.
const NamedDecl *namedDecl(const FunctionDecl *FD) {
  if (const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate())
    return T;
  return FD;
}

/// How the notes name a function: a member with its class
/// (`'Block::forward'`), since members of several classes often share a
/// name; a lambda's call operator as it is.
std::string functionName(const FunctionDecl *FD) {
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  const CXXRecordDecl *Class = M ? M->getParent() : nullptr;
  if (!Class || Class->isLambda() || !Class->getIdentifier() || isa<CXXConstructorDecl>(FD))
    return quotedName(namedDecl(FD));
  std::string Name = quotedName(namedDecl(FD));
  return "'" + Class->getName().str() + "::" + Name.substr(1);
}

bool inSystemHeader(SourceLocation Loc, const SourceManager &SM) {
  return Loc.isInvalid() || SM.isInSystemHeader(SM.getExpansionLoc(Loc));
}

std::string fileName(FileID FID, const SourceManager &SM) {
  OptionalFileEntryRef Entry = SM.getFileEntryRefForID(FID);
  if (!Entry)
    return std::string(SM.getBufferName(SM.getLocForStartOfFile(FID)));
  llvm::SmallString<256> Path(Entry->getName());
  SM.getFileManager().makeAbsolutePath(Path);
  return std::string(Path);
}

/// `f(x, 1)` -> `f<1>(x)`; empty when the call cannot be written so. In
/// code instantiated from a template (\p InTemplate) a member call becomes
/// `o.template f<1>(x)`: its object may be dependent there.
std::vector<FlowEdit> templateArgumentEdits(const CallExpr *Call, const Expr *Arg,
                                            bool InTemplate, ASTContext &Ctx) {
  if (isa<CXXOperatorCallExpr>(Call))
    return {};
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(Callee);
  const auto *Member = dyn_cast<MemberExpr>(Callee);
  if (!Ref && !Member)
    return {};
  llvm::SmallVector<const Expr *, 8> Args;
  unsigned Index = 0;
  for (const Expr *A : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(A))
      continue;
    if (A == Arg)
      Index = Args.size();
    Args.push_back(A);
  }
  FixBuilder Fixes(Ctx);
  std::optional<CharSourceRange> Text = Fixes.fileRange(Arg->getSourceRange());
  std::optional<CharSourceRange> Removal = Fixes.argumentRemoval(Args, Index);
  if (!Text || !Removal)
    return {};
  std::string Value = templateArgumentText(Arg, Fixes.text(*Text), Ctx);
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  std::vector<FixItHint> Hints;
  bool HasTemplateArgs =
      Ref ? Ref->hasExplicitTemplateArgs() : Member->hasExplicitTemplateArgs();
  if (HasTemplateArgs) {
    SourceLocation LAngle = Ref ? Ref->getLAngleLoc() : Member->getLAngleLoc();
    if (!LAngle.isFileID())
      return {};
    Hints.push_back(FixItHint::CreateInsertion(
        LAngle.getLocWithOffset(1), Value + ", "));
  } else {
    SourceLocation NameEnd = Ref ? Ref->getNameInfo().getEndLoc()
                                 : Member->getMemberNameInfo().getEndLoc();
    if (!NameEnd.isFileID())
      return {};
    // (An implicit `this->` member was found where the template is
    // defined, so its name is known to be a template there.)
    if (Member && InTemplate && !Member->hasTemplateKeyword() &&
        !Member->isImplicitAccess()) {
      if (!Member->getMemberLoc().isFileID())
        return {};
      Hints.push_back(FixItHint::CreateInsertion(Member->getMemberLoc(), "template "));
    }
    Hints.push_back(FixItHint::CreateInsertion(
        Lexer::getLocForEndOfToken(NameEnd, 0, SM, LO), "<" + Value + ">"));
  }
  Hints.push_back(FixItHint::CreateRemoval(*Removal));
  std::vector<FlowEdit> Edits;
  for (const FixItHint &H : Hints) {
    std::optional<FlowEdit> E = flowEdit(H, SM, LO);
    if (!E)
      return {};
    Edits.push_back(std::move(*E));
  }
  return Edits;
}

/// Whether \p P's default argument is a constant expression, which a
/// template parameter can take as its own default.
bool defaultIsConstant(const ParmVarDecl *P, const ASTContext &Ctx) {
  if (P->hasUnparsedDefaultArg() || P->hasUninstantiatedDefaultArg())
    return false;
  const Expr *Default = P->getDefaultArg();
  return Default && evaluateAxis(Default, Ctx); // nothing for a dependent one
}

class FlowCollector : public RecursiveASTVisitor<FlowCollector> {
public:
  FlowCollector(ASTContext &Ctx, UnitFlow &Flow, DependentCalls &Generic)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Flow(Flow), Generic(Generic) {
    for (const FlowFunction &F : Flow.Functions)
      Described.insert({F.Key, F.Param});
  }

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (FD)
      Enclosing.push_back(FD);
    bool Result = RecursiveASTVisitor::TraverseDecl(D);
    if (FD)
      Enclosing.pop_back();
    return Result;
  }

  /// A generic lambda's body as written, then as instantiated: a call that
  /// depends on an `auto` parameter (`[&](const auto &l) { l.forward(x,
  /// axis); }`) has a callee only in the instantiations.
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    if (!RecursiveASTVisitor::TraverseLambdaExpr(Lambda))
      return false;
    if (FunctionTemplateDecl *Template = Lambda->getDependentCallOperator())
      for (FunctionDecl *Instance : Template->specializations()) {
        Enclosing.push_back(Instance);
        bool Continue = TraverseStmt(Instance->getBody());
        Enclosing.pop_back();
        if (!Continue)
          return false;
      }
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || inSystemHeader(Callee->getLocation(), SM) ||
        Callee->getBuiltinID())
      return true;
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      CalleeRefs.insert(Ref);
    recordSite(Call, Callee, [&](unsigned Own) { return callArgument(Call, Own); });
    return true;
  }

  /// A construction passes its arguments as a call does; no template
  /// argument can be given to a constructor (the notes list the calls, the
  /// constructor's blocker says why there is no fix).
  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (!Ctor || Ctor->isImplicit() || inSystemHeader(Ctor->getLocation(), SM))
      return true;
    recordSite(Construct, Ctor, [&](unsigned Own) -> const Expr * {
      return Own < Construct->getNumArgs() ? Construct->getArg(Own) : nullptr;
    });
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl());
    if (!FD || CalleeRefs.contains(Ref) || inSystemHeader(FD->getLocation(), SM) ||
        !llvm::any_of(FD->parameters(), isIntegralParameter))
      return true;
    if (!SeenReferences.insert({Ref->getBeginLoc(), callTarget(FD)}).second)
      return true;
    Flow.References.push_back({flowKey(FD), flowPoint(Ref->getBeginLoc(), SM)});
    return true;
  }

private:
  /// Records what \p Site, a call or a construction of \p Callee, passes
  /// for each integer parameter of the callee's pattern; \p ArgumentFor
  /// gives the site's argument (or the default it takes) for the callee's
  /// own parameter N.
  void recordSite(const Expr *Site, const FunctionDecl *Callee,
                  llvm::function_ref<const Expr *(unsigned)> ArgumentFor) {
    // One entry per call as written, not per template instantiation. A
    // call on another call's result begins where that one does
    // (`grow(x, 1).sum()`): the end and the callee tell them apart.
    if (!SeenCalls.insert({Site->getBeginLoc(), Site->getEndLoc(), callTarget(Callee)}).second)
      return;
    // An element of an expanded pack (`f(Args... args)`) has no parameter
    // of its own in the pattern, which is what the flow is about.
    std::vector<int> Positions = patternPositions(Callee);
    std::string Key;
    for (const ParmVarDecl *P : Callee->parameters()) {
      unsigned Own = P->getFunctionScopeIndex();
      if (Own >= Positions.size() || Positions[Own] < 0 || !isIntegralParameter(P))
        continue;
      if (Key.empty())
        Key = flowKey(Callee);
      record(Site, Callee, ArgumentFor(Own), Key, unsigned(Positions[Own]));
    }
  }

  /// Records what \p Site, a call or a construction of \p Callee, passes
  /// as \p Given (the argument, or the default it takes) for the callee's
  /// parameter \p Param of its pattern. A call can be given a template
  /// argument instead; a construction cannot.
  void record(const Expr *Site, const FunctionDecl *Callee, const Expr *Given,
              const std::string &Key, unsigned Param) {
    const auto *Call = dyn_cast<CallExpr>(Site);
    FlowArgument A;
    A.Callee = Key;
    A.Param = Param;
    const Expr *Arg = isa_and_nonnull<CXXDefaultArgExpr>(Given) ? nullptr : Given;
    if (!Arg) {
      // The default's value when it is a constant: once the parameter is a
      // template parameter with the same default, the call, as written,
      // instantiates the template for that value.
      A.Kind = FlowArgument::Default;
      A.At = flowPoint(Site->getBeginLoc(), SM);
      if (const auto *Default = dyn_cast_or_null<CXXDefaultArgExpr>(Given))
        if (std::optional<llvm::APSInt> V = evaluateAxis(Default->getExpr(), Ctx)) {
          A.Value = toString(*V, 10);
          if (std::optional<llvm::APSInt> T = valueAsTemplateArgument(Default->getExpr(), *V, Ctx))
            A.AsTemplateArgument = toString(*T, 10);
        }
      Flow.Arguments.push_back(std::move(A));
      return;
    }
    A.At = flowPoint(Arg->getBeginLoc(), SM);
    const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
    const auto *Passed = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
    const auto *Caller =
        Passed ? dyn_cast<FunctionDecl>(Passed->getDeclContext()) : nullptr;
    // An element of the caller's pack is no parameter the fix could move.
    std::optional<unsigned> CallerParam =
        Caller ? patternParameterIndex(Caller, Passed->getFunctionScopeIndex()) : std::nullopt;
    if (Arg->isValueDependent()) {
      A.Kind = FlowArgument::Runtime;
    } else if (std::optional<llvm::APSInt> V = evaluateAxis(Arg, Ctx)) {
      A.Kind = FlowArgument::Constant;
      A.Value = toString(*V, 10);
      if (std::optional<llvm::APSInt> T = valueAsTemplateArgument(Arg, *V, Ctx))
        A.AsTemplateArgument = toString(*T, 10);
    } else if (CallerParam && isIntegralParameter(Passed)) {
      A.Kind = FlowArgument::Forwarded;
      const FunctionDecl *Target = callTarget(Caller);
      A.Caller = flowKey(Target);
      A.CallerParam = *CallerParam;
      if (Described.insert({A.Caller, A.CallerParam}).second)
        Flow.Functions.push_back(describeFunction(Target, A.CallerParam, Ctx, Generic));
    }
    if (A.Kind != FlowArgument::Runtime) {
      bool InTemplate = llvm::any_of(Enclosing, [](const FunctionDecl *FD) {
        return FD->getTemplateInstantiationPattern() != nullptr;
      });
      if (Call)
        A.Edits = templateArgumentEdits(Call, Arg, InTemplate, Ctx);
      // Declarations of a function defined elsewhere (a local forward
      // declaration) change with it; the definition's unit describes it.
      const FunctionDecl *Target = callTarget(Callee);
      if (!Target->isDefined() && Described.insert({Key, Param}).second)
        Flow.Functions.push_back(describeFunction(Target, Param, Ctx, Generic));
    }
    Flow.Arguments.push_back(std::move(A));
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  UnitFlow &Flow;
  llvm::DenseSet<std::tuple<SourceLocation, SourceLocation, const FunctionDecl *>> SeenCalls;
  llvm::DenseSet<std::pair<SourceLocation, const FunctionDecl *>> SeenReferences;
  llvm::DenseSet<const DeclRefExpr *> CalleeRefs;
  /// The functions being traversed, innermost last.
  std::vector<const FunctionDecl *> Enclosing;
  std::set<std::pair<std::string, unsigned>> Described;
  DependentCalls &Generic;
};

/// How \p Param is used in a function's body, in one walk: every
/// reference to it RecursiveASTVisitor shows, and whether a lambda names it
/// in its capture list (`[axis]`, `[&axis]`; not `[=]`, `[&]` or
/// `[a = axis]`).
struct ParamUses : RecursiveASTVisitor<ParamUses> {
  const ParmVarDecl *Param;
  std::vector<const DeclRefExpr *> Refs;
  /// The innermost generic lambda around each of Refs that is in one: its
  /// body as written may pass the parameter to calls resolved only in its
  /// instantiations.
  llvm::DenseMap<const DeclRefExpr *, const LambdaExpr *> InGenericLambda;
  bool NamedInCapture = false;
  ParamUses(const Stmt &Body, const ParmVarDecl *Param) : Param(Param) {
    TraverseStmt(const_cast<Stmt *>(&Body));
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (Ref->getDecl() == Param) {
      Refs.push_back(Ref);
      if (!Generic.empty())
        InGenericLambda[Ref] = Generic.back();
    }
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *Lambda) {
    for (const LambdaCapture &C : Lambda->explicit_captures())
      NamedInCapture |= C.capturesVariable() && C.getCapturedVar() == Param;
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    bool IsGeneric = Lambda->isGenericLambda();
    if (IsGeneric)
      Generic.push_back(Lambda);
    bool Result = RecursiveASTVisitor::TraverseLambdaExpr(Lambda);
    if (IsGeneric)
      Generic.pop_back();
    return Result;
  }

private:
  std::vector<const LambdaExpr *> Generic;
};

/// The uses that stand for \p Ref, a use of the parameter of \p Uses in
/// \p Body, where its calls are resolved, each with the body it is in: in
/// a generic lambda, the same use in each of the lambda's instantiations
/// (followed into generic lambdas inside them); elsewhere, or in a lambda
/// nothing instantiates, \p Ref itself. As written, a generic lambda may
/// pass the parameter to a call resolved only there (`[&](const auto &l) {
/// return l.forward(x, axis); }`), which clang's analyses take for a
/// modification or a reference bound to it.
void resolvedUses(const DeclRefExpr *Ref, const ParamUses &Uses, const Stmt &Body,
                  std::vector<std::pair<const DeclRefExpr *, const Stmt *>> &Out) {
  if (const LambdaExpr *Lambda = Uses.InGenericLambda.lookup(Ref)) {
    size_t Before = Out.size();
    for (const FunctionDecl *Op : Lambda->getDependentCallOperator()->specializations())
      if (const Stmt *OpBody = Op->getBody()) {
        ParamUses Inner(*OpBody, Uses.Param);
        for (const DeclRefExpr *Same : Inner.Refs)
          if (Same->getLocation() == Ref->getLocation())
            resolvedUses(Same, Inner, *OpBody, Out);
      }
    if (Out.size() > Before)
      return;
  }
  Out.push_back({Ref, &Body});
}

/// Whether the parameter's uses \p Resolved (see resolvedUses) may modify
/// it: whether one may, asked of clang's ExprMutationAnalyzer in its body. A
/// lambda that captures it by reference (`[&] { return cat(x, x, axis); }`)
/// is no modification in itself (the analyzer counts it as one): the uses
/// in its body say (a template parameter is a constant there, as the
/// lambda reads it); in a generic lambda, as its instantiations do
/// (resolvedUses). Not asked: the references RecursiveASTVisitor does not
/// show, the initialisers of implicit captures by reference.
bool mayModify(llvm::ArrayRef<std::pair<const DeclRefExpr *, const Stmt *>> Resolved,
               ASTContext &Ctx) {
  std::map<const Stmt *, std::unique_ptr<ExprMutationAnalyzer>> Analyzers;
  return llvm::any_of(Resolved, [&](const auto &Use) {
    std::unique_ptr<ExprMutationAnalyzer> &Analyzer = Analyzers[Use.second];
    if (!Analyzer)
      Analyzer = std::make_unique<ExprMutationAnalyzer>(*Use.second, Ctx);
    const Stmt *By = Analyzer->findMutation(Use.first);
    return By && !isa<LambdaExpr>(By);
  });
}

/// Whether \p Call, a call of \p Callee that takes \p Arg by reference,
/// only reads it: a function of a system header (the standard library)
/// whose parameter is a `const T &` as written (not a forwarding `T &&`,
/// which would deduce another type), whose result is not a pointer (which
/// may point at the argument) nor a class made from a reference type
/// (`std::minmax`'s pair of references), and, for a constructor, whose
/// class is not made from a reference or pointer type
/// (`std::pair<const int &, int>`, which keeps what it binds). Such a library takes a copy and a
/// temporary alike (`std::max(axis, 0)`, `v.push_back(axis)`, `m.count(axis)`,
/// `std::find(b, e, axis)`); a reference result is the caller's to read.
bool readsThrough(const Expr *Call, const Expr *Arg, const FunctionDecl *Callee,
                  const SourceManager &SM) {
  if (!SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation())) ||
      Callee->getReturnType()->isPointerType())
    return false;
  // Whether \p T is a class made from a reference type (or, with
  // \p Pointers, a pointer type): it may keep what a parameter binds.
  auto MadeFromReference = [](QualType T, bool Pointers) {
    const auto *Spec =
        dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
    if (!Spec)
      return false;
    return llvm::any_of(typeArguments(Spec->getTemplateArgs().asArray()), [&](QualType Arg) {
      return Arg->isReferenceType() || (Pointers && Arg->isPointerType());
    });
  };
  llvm::ArrayRef<const Expr *> Args;
  unsigned Skip = 0;
  if (const auto *C = dyn_cast<CallExpr>(Call)) {
    // `std::minmax(axis, 0)` gives a pair of references to its arguments
    // (an iterator made from a pointer points into a range, not at them).
    if (MadeFromReference(C->getType(), /*Pointers=*/false))
      return false;
    Args = llvm::ArrayRef(C->getArgs(), C->getNumArgs());
    // A member operator's object is its first argument, no parameter.
    if (isa<CXXOperatorCallExpr>(C) && isa<CXXMethodDecl>(Callee) &&
        !cast<CXXMethodDecl>(Callee)->isExplicitObjectMemberFunction())
      Skip = 1;
  } else {
    const auto *Construct = cast<CXXConstructExpr>(Call);
    Args = llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
    // `std::pair<const int &, int> p(axis, 1)`: the object keeps what its
    // `const T &` parameter binds.
    if (MadeFromReference(Construct->getType(), /*Pointers=*/true))
      return false;
  }
  const auto *Position = llvm::find(Args, Arg);
  if (Position == Args.end() || unsigned(Position - Args.begin()) < Skip)
    return false;
  unsigned Index = Position - Args.begin() - Skip;
  // The parameter as the library wrote it (an element of a pack,
  // `const Args &... args`, is not looked into).
  std::optional<unsigned> WrittenIndex =
      Index < Callee->getNumParams() ? patternParameterIndex(Callee, Index) : std::nullopt;
  if (!WrittenIndex)
    return false;
  QualType AsWritten = callTarget(Callee)->getParamDecl(*WrittenIndex)->getType();
  QualType Bound = Callee->getParamDecl(Index)->getType();
  return AsWritten->isLValueReferenceType() &&
         AsWritten->getPointeeType().isConstQualified() && Bound->isLValueReferenceType() &&
         Bound->getPointeeType().isConstQualified();
}

std::string boundUseFrom(const Expr *Use, bool Parenthesized, unsigned Depth, ASTContext &Ctx);

/// boundUse one step up from \p Use, to \p ParentNode.
std::string boundUseAt(const Expr *Use, const DynTypedNode &ParentNode, bool Parenthesized,
                       unsigned Depth, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Line = [&](const Stmt *S) {
    return " at line " + std::to_string(SM.getExpansionLineNumber(S->getBeginLoc()));
  };
  if (const auto *Var = ParentNode.get<VarDecl>())
    return Var->getType()->isReferenceType()
               ? "is bound to reference " + quotedName(Var) + Line(Use) +
                     ", which would bind a temporary copy of a template parameter"
               : "";
  const auto *Parent = ParentNode.get<Expr>();
  if (!Parent) // a type's operand (decltype): only `decltype((axis))` differs
    return Parenthesized ? "is in 'decltype((...))'" + Line(Use) +
                               ", which gives a reference for a variable and the plain type for a template parameter"
                         : "";
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Parent)) {
    if (Cast->getCastKind() == CK_LValueToRValue)
      return "";
    if (Cast->getCastKind() == CK_NoOp) // const added to bind a reference
      return boundUseFrom(Cast, Parenthesized, Depth + 1, Ctx);
  }
  if (isa<UnaryExprOrTypeTraitExpr>(Parent))
    return ""; // sizeof, alignof
  if (isa<FullExpr>(Parent)) // the temporaries of the call it is in
    return boundUseFrom(Parent, Parenthesized, Depth + 1, Ctx);
  const auto *Cond = dyn_cast<AbstractConditionalOperator>(Parent);
  const auto *Comma = dyn_cast<BinaryOperator>(Parent);
  if (isa<ParenExpr>(Parent) ||
      (Cond && Cond->getCond() != Use && Parent->isGLValue()) ||
      (Comma && Comma->isCommaOp() && Comma->getRHS() == Use))
    return boundUseFrom(Parent, Parenthesized || isa<ParenExpr>(Parent), Depth + 1, Ctx);
  if (Comma && Comma->isCommaOp())
    return ""; // the left of a comma: discarded
  const FunctionDecl *Callee = nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(Parent))
    Callee = Call->getDirectCallee();
  else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Parent))
    Callee = Construct->getConstructor();
  if (Callee && readsThrough(Parent, Use, Callee, SM)) {
    // `std::max(axis, 0)` returns the reference: the call is the use.
    if (!Callee->getReturnType()->isReferenceType())
      return "";
    return boundUseFrom(Parent, Parenthesized, Depth + 1, Ctx);
  }
  if (Callee)
    return "is passed by reference to " +
           quotedName(Callee->getPrimaryTemplate()
                          ? static_cast<const NamedDecl *>(Callee->getPrimaryTemplate())
                          : Callee) +
           Line(Use) +
           ", where a template parameter would pass a temporary copy";
  return "is used as an object" + Line(Use) +
         " (not only for its value), which a template parameter is not";
}

/// boundUse from \p Use, an expression the parameter's value reaches
/// (\p Parenthesized: through parentheses), \p Depth levels up. A node
/// clang shares between a template and its instantiations (in a generic
/// lambda inside an instantiated function, the use of the function's
/// parameter is one node in the lambda as written and in each
/// instantiation of it) has a parent in each: the parents that depend on
/// no template parameter, where the calls are resolved, say.
std::string boundUseFrom(const Expr *Use, bool Parenthesized, unsigned Depth, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*Use);
  if (Parents.empty() || Depth >= 32)
    return "";
  auto Dependent = [](const DynTypedNode &N) {
    const auto *E = N.get<Expr>();
    return E && (E->isTypeDependent() || E->isValueDependent());
  };
  if (Parents.size() == 1 || llvm::all_of(Parents, Dependent))
    return boundUseAt(Use, Parents[0], Parenthesized, Depth, Ctx);
  for (const DynTypedNode &Parent : Parents)
    if (!Dependent(Parent))
      if (std::string Why = boundUseAt(Use, Parent, Parenthesized, Depth, Ctx); !Why.empty())
        return Why;
  return "";
}

/// How a use of the parameter goes on where it is not only read, or empty
/// when it is: a template parameter is a value (a prvalue), and what binds
/// the parameter itself (a reference, `&`, `decltype((axis))`) would bind a
/// temporary copy of it instead, or choose another overload (`f(int &&)`
/// over `f(const int &)`), or deduce another type (`T &&`). A read is an
/// lvalue-to-rvalue conversion, through parentheses, `?:` arms and the right
/// of a comma (whose result is the use as long as it is an lvalue), or an
/// operand that is not evaluated (`sizeof`, `decltype(axis)`: the same type
/// either way).
std::string boundUse(const DeclRefExpr *Ref, ASTContext &Ctx) {
  return boundUseFrom(Ref, false, 0, Ctx);
}

/// Where, in \p Body, a member template is called with explicit template
/// arguments and without `template` (`r.cast<double>()`) on an object
/// whose type may depend on \p Param once it is a template parameter: an
/// expression that names it (the concatenation it is passed to) or names
/// a local whose type is deduced (`auto r = cat(x, x, axis)`, a
/// structured binding).
std::vector<SourceLocation> memberTemplateCalls(const Stmt &Body, const ParmVarDecl *Param) {
  struct Names : RecursiveASTVisitor<Names> {
    const ParmVarDecl *Param;
    bool Found = false;
    bool VisitDeclRefExpr(DeclRefExpr *Ref) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      Found |= Ref->getDecl() == Param || isa<BindingDecl>(Ref->getDecl()) ||
               (Var && Var->isLocalVarDecl() && Var->getType()->getContainedAutoType());
      return !Found;
    }
  };
  struct Calls : RecursiveASTVisitor<Calls> {
    const ParmVarDecl *Param;
    std::vector<SourceLocation> At;
    bool VisitMemberExpr(MemberExpr *Member) {
      if (!Member->hasExplicitTemplateArgs() || Member->hasTemplateKeyword() ||
          Member->isImplicitAccess())
        return true;
      Names Base;
      Base.Param = Param;
      Base.TraverseStmt(Member->getBase());
      if (Base.Found)
        At.push_back(Member->getMemberLoc());
      return true;
    }
  } Found;
  Found.Param = Param;
  Found.TraverseStmt(const_cast<Stmt *>(&Body));
  return Found.At;
}

/// The members that the class template specializations of \p FD's class
/// (a member of a class template) instantiated from it.
llvm::SmallVector<const FunctionDecl *, 4> memberInstantiations(const FunctionDecl *FD) {
  llvm::SmallVector<const FunctionDecl *, 4> Found;
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  const ClassTemplateDecl *Class = M ? M->getParent()->getDescribedClassTemplate() : nullptr;
  if (!Class)
    return Found;
  auto Add = [&](const FunctionDecl *Member) {
    if (Member->getTemplateInstantiationPattern() && callTarget(Member) == FD->getCanonicalDecl())
      Found.push_back(Member);
  };
  for (const ClassTemplateSpecializationDecl *Spec : Class->specializations())
    for (const Decl *D : Spec->decls()) {
      if (const auto *Member = dyn_cast<FunctionDecl>(D))
        Add(Member);
      else if (const auto *Template = dyn_cast<FunctionTemplateDecl>(D))
        for (const FunctionDecl *Member : Template->specializations())
          Add(Member);
    }
  return Found;
}

/// An explicit specialization of \p FD (of a function template, or of a
/// member of a class template for one class specialization), or null: the
/// rewritten primary would no longer match its declaration.
const FunctionDecl *explicitSpecializationOf(const FunctionDecl *FD) {
  if (const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate())
    for (const FunctionDecl *S : T->specializations())
      if (S->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
        return S;
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  const ClassTemplateDecl *Class = M ? M->getParent()->getDescribedClassTemplate() : nullptr;
  if (!Class)
    return nullptr;
  for (const ClassTemplateSpecializationDecl *Spec : Class->specializations())
    for (const Decl *D : Spec->decls())
      if (const auto *Member = dyn_cast<FunctionDecl>(D))
        if (const FunctionDecl *From = Member->getInstantiatedFromMemberFunction();
            From && From->getCanonicalDecl() == FD->getCanonicalDecl() &&
            Member->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
          return Member;
  return nullptr;
}

/// Why \p FD's parameter \p P cannot become a template parameter, or empty.
std::string blocker(const FunctionDecl *FD, const ParmVarDecl *P,
                    ASTContext &Ctx) {
  std::string Name = functionName(FD);
  if (const auto *M = dyn_cast<CXXMethodDecl>(FD)) {
    if (M->isVirtual())
      return Name + " is virtual";
    if (M->getParent()->isLambda())
      return "the function is a lambda";
  }
  if (isa<CXXConstructorDecl, CXXConversionDecl>(FD) ||
      FD->isOverloadedOperator())
    return Name + " cannot be called with template arguments";
  if (FD->isMain() || FD->isExternC())
    return Name + " has C language linkage";
  if (FD->getTemplatedKind() != FunctionDecl::TK_NonTemplate &&
      FD->getTemplatedKind() != FunctionDecl::TK_FunctionTemplate)
    return Name + " is a template specialization";
  if (const FunctionDecl *Special = explicitSpecializationOf(FD)) {
    const SourceManager &SM = Ctx.getSourceManager();
    return Name + " has an explicit specialization at " +
           placeText(flowPoint(SM.getExpansionLoc(Special->getLocation()), SM)) +
           " that would need the same rewrite";
  }
  if (FD->isVariadic())
    return Name + " takes a variable number of arguments";
  if (!isIntegralParameter(P))
    return "parameter " + quotedName(P) + " is not an integer passed by value";
  if (P->hasDefaultArg() && !defaultIsConstant(P, Ctx))
    return "parameter " + quotedName(P) +
           " has a default argument that is not a constant expression";
  // In a template, a dependent call may take the parameter by reference:
  // ask each instantiation, where every call is resolved (the pattern only
  // when there is none).
  llvm::SmallVector<const FunctionDecl *, 4> Bodies;
  if (const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate())
    for (const FunctionDecl *S : T->specializations())
      if (S->getBody() && S->isTemplateInstantiation())
        Bodies.push_back(S);
  for (const FunctionDecl *S : memberInstantiations(FD))
    if (S->getBody())
      Bodies.push_back(S);
  if (Bodies.empty())
    if (const FunctionDecl *Def = FD->getDefinition())
      Bodies.push_back(Def);
  for (const FunctionDecl *Def : Bodies)
    if (const Stmt *Body = Def->getBody()) {
      const ParmVarDecl *DefParam = instantiatedParameter(Def, P->getFunctionScopeIndex());
      if (!DefParam)
        return "parameter " + quotedName(P) + " of " + Name +
               " cannot be matched with the parameters of its instantiations";
      ParamUses Uses(*Body, DefParam);
      std::vector<std::pair<const DeclRefExpr *, const Stmt *>> Resolved;
      for (const DeclRefExpr *Ref : Uses.Refs)
        resolvedUses(Ref, Uses, *Body, Resolved);
      if (mayModify(Resolved, Ctx))
        return "parameter " + quotedName(DefParam) + " is modified in " + Name;
      if (Uses.NamedInCapture)
        return "parameter " + quotedName(DefParam) +
               " is named in a lambda's capture list, which cannot name a template parameter";
      for (const auto &Use : Resolved)
        if (std::string How = boundUse(Use.first, Ctx); !How.empty())
          return "parameter " + quotedName(DefParam) + " " + How;
    }
  return "";
}

/// What \p Def's body would have once per instantiation were it a template
/// (see FlowFunction::OwnState): a static or thread_local local (in a
/// lambda or block inside it too), or the function's signature as text
/// (`__PRETTY_FUNCTION__`, which would name the template argument).
std::pair<std::string, SourceLocation> ownState(const FunctionDecl *Def) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::string What;
    SourceLocation At;
    bool VisitVarDecl(VarDecl *Var) {
      if (!Var->isStaticLocal())
        return true;
      What = std::string("declares ") +
             (Var->getTSCSpec() != TSCS_unspecified ? "thread_local" : "static") +
             " variable " + quotedName(Var);
      At = Var->getLocation();
      return false;
    }
    bool VisitPredefinedExpr(PredefinedExpr *E) {
      if (E->getIdentKind() != PredefinedIdentKind::PrettyFunction &&
          E->getIdentKind() != PredefinedIdentKind::FuncSig &&
          E->getIdentKind() != PredefinedIdentKind::FuncDName)
        return true;
      What = "uses " + PredefinedExpr::getIdentKindName(E->getIdentKind()).str();
      At = E->getLocation();
      return false;
    }
  } F;
  F.TraverseStmt(Def->getBody());
  return {F.What, F.At};
}

} // namespace

/// Whether the template \p Pattern (a function template's function, a
/// member of a class template, both) has an explicit instantiation in
/// this translation unit, a declaration (`extern template`) included: of
/// itself, or of a class template specialization it is a member of.
/// Members of a class nested in a class template count as instantiated.
static bool explicitlyInstantiated(const FunctionDecl *Pattern) {
  auto Explicit = [](TemplateSpecializationKind K) {
    return K == TSK_ExplicitInstantiationDeclaration || K == TSK_ExplicitInstantiationDefinition;
  };
  auto AnyOf = [&](const FunctionTemplateDecl *FT) {
    return FT && llvm::any_of(FT->specializations(), [&](const FunctionDecl *S) {
             return Explicit(S->getTemplateSpecializationKind());
           });
  };
  if (AnyOf(Pattern->getDescribedFunctionTemplate()))
    return true;
  const auto *Class = dyn_cast<CXXRecordDecl>(Pattern->getDeclContext());
  if (!Class || !Class->isDependentContext())
    return false;
  const ClassTemplateDecl *CT = Class->getDescribedClassTemplate();
  if (!CT)
    return true; // nested in a class template, or a partial specialization
  for (const ClassTemplateSpecializationDecl *S : CT->specializations()) {
    if (Explicit(S->getSpecializationKind()))
      return true;
    // `template Tensor Layer<float>::forward(const Tensor &, int) const;`
    for (const NamedDecl *Member : S->lookup(Pattern->getDeclName())) {
      const auto *M = dyn_cast<FunctionDecl>(Member);
      if ((M && Explicit(M->getTemplateSpecializationKind())) ||
          AnyOf(dyn_cast<FunctionTemplateDecl>(Member)))
        return true;
    }
  }
  return false;
}

bool calledOnlyInThisFile(const FunctionDecl *FD) {
  if (!FD->isExternallyVisible())
    return true;
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  if (!FD->isInlined() && !(FD->isTemplated() && !explicitlyInstantiated(FD)))
    return false;
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  auto InMainFile = [&SM](const Decl *D) {
    return SM.isInMainFile(SM.getExpansionLoc(D->getLocation()));
  };
  if (!llvm::all_of(FD->redecls(), InMainFile))
    return false;
  // A member of a class defined in a header is defined again, the same,
  // in every file that includes it: a call there reaches this function.
  for (const DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *Class = dyn_cast<CXXRecordDecl>(DC))
      if (!llvm::all_of(Class->redecls(), InMainFile))
        return false;
  return true;
}

std::string flowKey(const FunctionDecl *FD) {
  FD = callTarget(FD);
  llvm::SmallString<128> USR;
  if (index::generateUSRForDecl(FD, USR))
    USR = FD->getQualifiedNameAsString();
  if (!calledOnlyInThisFile(FD))
    return std::string(USR);
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  return fileName(SM.getMainFileID(), SM) + "#" + std::string(USR);
}

std::string placeText(const FlowPoint &At) {
  return llvm::sys::path::filename(At.File).str() + ":" + std::to_string(At.Line) + ":" +
         std::to_string(At.Column);
}

FlowPoint flowPoint(SourceLocation Loc, const SourceManager &SM) {
  FlowPoint P;
  P.Loc = Loc;
  SourceLocation File = SM.getFileLoc(Loc);
  if (File.isInvalid())
    return P;
  auto [FID, Offset] = SM.getDecomposedLoc(File);
  P.File = fileName(FID, SM);
  P.Offset = Offset;
  P.Line = SM.getLineNumber(FID, Offset);
  P.Column = SM.getColumnNumber(FID, Offset);
  return P;
}

std::optional<FlowEdit> flowEdit(const FixItHint &Hint, const SourceManager &SM,
                                 const LangOptions &LO) {
  CharSourceRange R = Lexer::makeFileCharRange(Hint.RemoveRange, SM, LO);
  if (R.isInvalid())
    return std::nullopt;
  auto [FID, Begin] = SM.getDecomposedLoc(R.getBegin());
  auto [EndFID, End] = SM.getDecomposedLoc(R.getEnd());
  if (FID != EndFID || End < Begin)
    return std::nullopt;
  return FlowEdit{fileName(FID, SM), Begin, End - Begin, Hint.CodeToInsert,
                  R.getBegin()};
}

void collectFlow(ASTContext &Ctx, UnitFlow &Flow, DependentCalls &Generic) {
  FlowCollector Collector(Ctx, Flow, Generic);
  for (Decl *D : Ctx.getTraversalScope())
    Collector.TraverseDecl(D);
}

FlowFunction describeFunction(const FunctionDecl *FD, unsigned Param,
                              ASTContext &Ctx, DependentCalls &Generic) {
  FD = callTarget(FD);
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  const FunctionDecl *Def = FD->getDefinition();
  const FunctionDecl *Named = Def ? Def : FD;
  const ParmVarDecl *P = Named->getParamDecl(Param);
  FlowFunction F;
  F.Key = flowKey(FD);
  F.Param = Param;
  F.Name = functionName(Named);
  F.ParamName = quotedName(P);
  F.ParamAt = flowPoint(P->getLocation(), SM);
  F.Internal = calledOnlyInThisFile(FD);
  F.Defined = Def != nullptr;
  if (std::string Why = blocker(FD, P, Ctx); !Why.empty())
    F.Blockers.push_back(Why);
  // A template that calls FD through a dependent name and that nothing
  // here instantiates to call it keeps the call as written: the fixed
  // function would not take the axis there.
  if (const Expr *Call = Generic.uninstantiatedCallOf(FD)) {
    F.Blockers.push_back("a template calls " + F.Name + " at " +
                         placeText(flowPoint(Call->getBeginLoc(), SM)) +
                         " through a name that depends on its parameters, and nothing in "
                         "this file instantiates it to call this function: that call "
                         "would not be rewritten");
  }
  if (Def)
    if (auto [What, At] = ownState(Def); !What.empty()) {
      F.OwnState = F.Name + " " + What;
      F.OwnStateAt = flowPoint(SM.getExpansionLoc(At), SM);
    }
  // The body uses the parameter by the definition's name; declarations
  // may name it anything.
  llvm::StringRef ParamName = P->getName();
  if (ParamName.empty() && Def) {
    F.Blockers.push_back("parameter " + std::to_string(Param + 1) + " of " +
                         F.Name + " has no name");
    return F;
  }
  for (const FunctionDecl *R : FD->redecls())
    if (ParamName.empty())
      ParamName = R->getParamDecl(Param)->getName();
  if (ParamName.empty())
    ParamName = "axis";
  PrintingPolicy Policy = spellingPolicy(Ctx);
  std::string TemplateParameter =
      P->getType().getNonReferenceType().getUnqualifiedType().getAsString(Policy) +
      " " + ParamName.str();
  FixBuilder Fixes(Ctx);
  for (const FunctionDecl *R : FD->redecls()) {
    if (inSystemHeader(R->getLocation(), SM))
      continue;
    // The default argument moves to the template parameter, on the
    // declaration that writes it (a redeclaration may not repeat it).
    std::string Parameter = TemplateParameter;
    if (const ParmVarDecl *Own = R->getParamDecl(Param);
        Own->hasDefaultArg() && !Own->hasInheritedDefaultArg()) {
      std::string Default = Fixes.sourceText(Own->getDefaultArgRange());
      if (Default.empty()) {
        F.Blockers.push_back("the default argument of " + F.ParamName + " is in a macro");
        continue;
      }
      // `>` would end the template parameter list.
      Parameter += llvm::StringRef(Default).contains('>') ? " = (" + Default + ")"
                                                          : " = " + Default;
    }
    std::vector<FixItHint> Hints;
    // An abbreviated template (`f(auto... rest)`) writes no parameter list
    // of its own: a written one goes before it, and the invented ones follow.
    if (const FunctionTemplateDecl *T = R->getDescribedFunctionTemplate();
        T && T->getTemplateParameters()->getLAngleLoc().isValid())
      Hints.push_back(FixItHint::CreateInsertion(
          T->getTemplateParameters()->getLAngleLoc().getLocWithOffset(1),
          Parameter + ", "));
    else
      // After the class's parameter lists where a member of a class
      // template is defined out of line: `template <class T> template <int
      // axis> Tensor Layer<T>::forward(...)`.
      // Before the attributes in front of it: `template <int axis>
      // [[nodiscard]] Tensor f(...)`.
      Hints.push_back(FixItHint::CreateInsertion(
          Fixes.withAttributes(R, R->getInnerLocStart()).getBegin(),
          "template <" + Parameter + "> "));
    // The parameter and one neighbouring comma, as for an argument.
    llvm::SmallVector<SourceRange, 8> Params;
    for (const ParmVarDecl *Other : R->parameters())
      Params.push_back(Fixes.withAttributes(Other, Other->getSourceRange()));
    std::optional<CharSourceRange> Removal = Fixes.listElementRemoval(Params, Param);
    if (!Removal) {
      F.Blockers.push_back("a declaration of " + F.Name + " cannot be rewritten");
      continue;
    }
    Hints.push_back(FixItHint::CreateRemoval(*Removal));
    for (const FixItHint &H : Hints) {
      std::optional<FlowEdit> E = flowEdit(H, SM, LO);
      if (!E) {
        F.Blockers.push_back("a declaration of " + F.Name + " is in a macro");
        break;
      }
      F.Edits.push_back(std::move(*E));
    }
  }
  // In the template, what the axis reaches (the concatenation's result, an
  // `auto` local) may have a dependent type: a member template called on
  // it needs `template` (`r.template cast<double>()`), which any other
  // member template call may have too.
  if (Def && Def->getBody())
    for (SourceLocation At : memberTemplateCalls(*Def->getBody(), Def->getParamDecl(Param))) {
      std::optional<FlowEdit> E =
          flowEdit(FixItHint::CreateInsertion(At, "template "), SM, LO);
      if (!E) {
        F.Blockers.push_back("a member template call in " + F.Name + " is in a macro");
        break;
      }
      F.Edits.push_back(std::move(*E));
    }
  // A definition in a source file: callers in other files see only a
  // declaration, so each axis they use gets an explicit instantiation.
  if (Def && !F.Internal &&
      SM.isInMainFile(SM.getExpansionLoc(Def->getLocation()))) {
    // Other files call it through an explicit instantiation here, or a
    // declaration in a header.
    const char *Why = explicitlyInstantiated(Def) ? ", instantiated explicitly for other files"
                                                  : ", declared in another file";
    if (Def->getDescribedFunctionTemplate()) {
      F.Blockers.push_back(F.Name + " is a template defined in a source file" + Why);
      return F;
    }
    // Each class specialization would need an instantiation of its own.
    if (const auto *M = dyn_cast<CXXMethodDecl>(Def); M && M->getParent()->isDependentContext()) {
      F.Blockers.push_back(F.Name + " is a member of a class template defined in a source file" +
                           Why);
      return F;
    }
    std::string Return = Fixes.sourceText(Def->getReturnTypeSourceRange());
    if (Return.empty() || Return == "auto")
      Return = Def->getReturnType().getAsString(Policy);
    // Right after the definition, so named as its declarator names it.
    std::string Name = Def->getNameAsString();
    if (NestedNameSpecifierLoc Qualifier = Def->getQualifierLoc())
      Name = Fixes.sourceText(Qualifier.getSourceRange()) + Name;
    std::string Text = "\ntemplate " + Return + " " + Name + "<@AXIS@>(";
    bool First = true;
    for (const ParmVarDecl *Other : Def->parameters()) {
      if (Other->getFunctionScopeIndex() == Param)
        continue;
      Text += (First ? "" : ", ") + Other->getType().getAsString(Policy);
      First = false;
    }
    Text += ")";
    if (const auto *M = dyn_cast<CXXMethodDecl>(Def); M && M->isConst())
      Text += " const";
    Text += ";";
    SourceLocation End = Lexer::getLocForEndOfToken(
        SM.getExpansionLoc(Def->getEndLoc()), 0, SM, LO);
    std::optional<FlowEdit> At =
        flowEdit(FixItHint::CreateInsertion(End, ""), SM, LO);
    if (!At) {
      F.Blockers.push_back("the definition of " + F.Name + " is in a macro");
      return F;
    }
    F.InstantiationAt = *At;
    F.Instantiation = Text;
  }
  return F;
}

//===--- JSON -------------------------------------------------------------===//

namespace {

llvm::json::Value pointJSON(const FlowPoint &P) {
  return llvm::json::Array{P.File, P.Offset, P.Line, P.Column};
}
bool pointFrom(const llvm::json::Value *V, FlowPoint &P) {
  const llvm::json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A || A->size() != 4)
    return false;
  std::optional<llvm::StringRef> File = (*A)[0].getAsString();
  std::optional<int64_t> Offset = (*A)[1].getAsInteger(),
                         Line = (*A)[2].getAsInteger(),
                         Column = (*A)[3].getAsInteger();
  if (!File || !Offset || !Line || !Column)
    return false;
  P = FlowPoint{File->str(), unsigned(*Offset), unsigned(*Line), unsigned(*Column), {}};
  return true;
}
llvm::json::Value editsJSON(const std::vector<FlowEdit> &Edits) {
  llvm::json::Array A;
  for (const FlowEdit &E : Edits)
    A.push_back(llvm::json::Array{E.File, E.Offset, E.Length, E.Text});
  return A;
}
bool editFrom(const llvm::json::Value &V, FlowEdit &E) {
  const llvm::json::Array *A = V.getAsArray();
  if (!A || A->size() != 4)
    return false;
  std::optional<llvm::StringRef> File = (*A)[0].getAsString(), Text = (*A)[3].getAsString();
  std::optional<int64_t> Offset = (*A)[1].getAsInteger(), Length = (*A)[2].getAsInteger();
  if (!File || !Text || !Offset || !Length)
    return false;
  E = FlowEdit{File->str(), unsigned(*Offset), unsigned(*Length), Text->str(), {}};
  return true;
}
bool editsFrom(const llvm::json::Value *V, std::vector<FlowEdit> &Edits) {
  const llvm::json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A)
    return false;
  for (const llvm::json::Value &Item : *A) {
    FlowEdit E;
    if (!editFrom(Item, E))
      return false;
    Edits.push_back(std::move(E));
  }
  return true;
}
bool stringFrom(const llvm::json::Object &O, llvm::StringRef Key, std::string &S) {
  std::optional<llvm::StringRef> V = O.getString(Key);
  if (!V)
    return false;
  S = V->str();
  return true;
}
bool unsignedFrom(const llvm::json::Object &O, llvm::StringRef Key, unsigned &U) {
  std::optional<int64_t> V = O.getInteger(Key);
  if (!V || *V < 0)
    return false;
  U = unsigned(*V);
  return true;
}

} // namespace

llvm::json::Value toJSON(const UnitFlow &Flow) {
  llvm::json::Array Arguments, Functions, Roots, References;
  for (const FlowArgument &A : Flow.Arguments)
    Arguments.push_back(llvm::json::Object{
        {"kind", int(A.Kind)}, {"callee", A.Callee}, {"param", A.Param},
        {"at", pointJSON(A.At)}, {"value", A.Value},
        {"asTemplateArgument", A.AsTemplateArgument}, {"caller", A.Caller},
        {"callerParam", A.CallerParam}, {"edits", editsJSON(A.Edits)}});
  for (const FlowFunction &F : Flow.Functions) {
    llvm::json::Array Blockers;
    for (const std::string &B : F.Blockers)
      Blockers.push_back(B);
    Functions.push_back(llvm::json::Object{
        {"key", F.Key}, {"param", F.Param}, {"name", F.Name},
        {"paramName", F.ParamName}, {"paramAt", pointJSON(F.ParamAt)},
        {"internal", F.Internal}, {"defined", F.Defined},
        {"blockers", std::move(Blockers)}, {"edits", editsJSON(F.Edits)},
        {"instantiationAt", editsJSON({F.InstantiationAt})},
        {"instantiation", F.Instantiation}, {"ownState", F.OwnState},
        {"ownStateAt", pointJSON(F.OwnStateAt)}});
  }
  for (const FlowRoot &R : Flow.Roots)
    Roots.push_back(llvm::json::Object{{"function", R.Function},
                                       {"param", R.Param},
                                       {"at", pointJSON(R.At)},
                                       {"mode", int(R.Mode)},
                                       {"maxNotes", R.MaxNotes},
                                       {"edits", editsJSON(R.Edits)},
                                       {"receivedBits", R.ReceivedBits},
                                       {"receivedSigned", R.ReceivedSigned}});
  for (const FlowReference &R : Flow.References)
    References.push_back(
        llvm::json::Object{{"function", R.Function}, {"at", pointJSON(R.At)}});
  llvm::json::Array Erasures, ErasedOrigins;
  for (const FlowErasure &E : Flow.Erasures)
    Erasures.push_back(llvm::json::Object{{"key", E.Key},
                                          {"at", pointJSON(E.At)},
                                          {"note", E.Note},
                                          {"passesOn", E.PassesOn}});
  for (const FlowErasedOrigin &O : Flow.ErasedOrigins)
    ErasedOrigins.push_back(llvm::json::Object{
        {"at", pointJSON(O.At)}, {"callee", O.Callee}, {"note", O.Note}});
  llvm::json::Array Calls;
  for (const FlowCall &C : Flow.Calls) {
    llvm::json::Array Args, Callees;
    for (const auto &[Begin, End] : C.Arguments)
      Args.push_back(llvm::json::Array{Begin, End});
    for (const auto &[Identity, Shown] : C.Callees)
      Callees.push_back(llvm::json::Array{Identity, Shown});
    Calls.push_back(llvm::json::Object{{"function", C.Function},
                                       {"at", pointJSON(C.At)},
                                       {"extent", llvm::json::Array{C.Begin, C.End}},
                                       {"arguments", std::move(Args)},
                                       {"callees", std::move(Callees)}});
  }
  return llvm::json::Object{{"arguments", std::move(Arguments)},
                            {"functions", std::move(Functions)},
                            {"roots", std::move(Roots)},
                            {"references", std::move(References)},
                            {"erasures", std::move(Erasures)},
                            {"erasedOrigins", std::move(ErasedOrigins)},
                            {"calls", std::move(Calls)}};
}

bool fromJSON(const llvm::json::Value &V, UnitFlow &Flow) {
  const llvm::json::Object *O = V.getAsObject();
  if (!O)
    return false;
  auto Each = [&](llvm::StringRef Key, auto &&Read) {
    const llvm::json::Array *A = O->getArray(Key);
    if (!A)
      return false;
    for (const llvm::json::Value &Item : *A) {
      const llvm::json::Object *I = Item.getAsObject();
      if (!I || !Read(*I))
        return false;
    }
    return true;
  };
  return Each("arguments",
              [&](const llvm::json::Object &I) {
                FlowArgument A;
                unsigned Kind = 0;
                if (!unsignedFrom(I, "kind", Kind) || Kind > FlowArgument::Runtime ||
                    !stringFrom(I, "callee", A.Callee) ||
                    !unsignedFrom(I, "param", A.Param) || !pointFrom(I.get("at"), A.At) ||
                    !stringFrom(I, "value", A.Value) ||
                    !stringFrom(I, "asTemplateArgument", A.AsTemplateArgument) ||
                    !stringFrom(I, "caller", A.Caller) ||
                    !unsignedFrom(I, "callerParam", A.CallerParam) ||
                    !editsFrom(I.get("edits"), A.Edits))
                  return false;
                A.Kind = FlowArgument::KindT(Kind);
                Flow.Arguments.push_back(std::move(A));
                return true;
              }) &&
         Each("functions",
              [&](const llvm::json::Object &I) {
                FlowFunction F;
                std::vector<FlowEdit> At;
                const llvm::json::Array *Blockers = I.getArray("blockers");
                std::optional<bool> Internal = I.getBoolean("internal"),
                                    Defined = I.getBoolean("defined");
                if (!stringFrom(I, "key", F.Key) || !unsignedFrom(I, "param", F.Param) ||
                    !stringFrom(I, "name", F.Name) ||
                    !stringFrom(I, "paramName", F.ParamName) ||
                    !pointFrom(I.get("paramAt"), F.ParamAt) || !Internal || !Defined ||
                    !Blockers || !editsFrom(I.get("edits"), F.Edits) ||
                    !editsFrom(I.get("instantiationAt"), At) || At.size() != 1 ||
                    !stringFrom(I, "instantiation", F.Instantiation) ||
                    !stringFrom(I, "ownState", F.OwnState) ||
                    !pointFrom(I.get("ownStateAt"), F.OwnStateAt) ||
                    (!F.Instantiation.empty() &&
                     F.Instantiation.find("@AXIS@") == std::string::npos))
                  return false;
                F.Internal = *Internal;
                F.Defined = *Defined;
                F.InstantiationAt = At.front();
                for (const llvm::json::Value &B : *Blockers) {
                  std::optional<llvm::StringRef> S = B.getAsString();
                  if (!S)
                    return false;
                  F.Blockers.push_back(S->str());
                }
                Flow.Functions.push_back(std::move(F));
                return true;
              }) &&
         Each("roots",
              [&](const llvm::json::Object &I) {
                FlowRoot R;
                unsigned Mode = 0;
                if (!stringFrom(I, "function", R.Function) ||
                    !unsignedFrom(I, "param", R.Param) || !pointFrom(I.get("at"), R.At) ||
                    !unsignedFrom(I, "mode", Mode) || Mode > unsigned(SignatureRewrites::All) ||
                    !unsignedFrom(I, "maxNotes", R.MaxNotes) ||
                    !editsFrom(I.get("edits"), R.Edits) ||
                    !unsignedFrom(I, "receivedBits", R.ReceivedBits))
                  return false;
                std::optional<bool> Signed = I.getBoolean("receivedSigned");
                if (!Signed)
                  return false;
                R.ReceivedSigned = *Signed;
                R.Mode = SignatureRewrites(Mode);
                Flow.Roots.push_back(std::move(R));
                return true;
              }) &&
         Each("references", [&](const llvm::json::Object &I) {
           FlowReference R;
           if (!stringFrom(I, "function", R.Function) || !pointFrom(I.get("at"), R.At))
             return false;
           Flow.References.push_back(std::move(R));
           return true;
         }) &&
         Each("erasures",
              [&](const llvm::json::Object &I) {
                FlowErasure E;
                if (!stringFrom(I, "key", E.Key) || !pointFrom(I.get("at"), E.At) ||
                    !stringFrom(I, "note", E.Note) || !stringFrom(I, "passesOn", E.PassesOn))
                  return false;
                Flow.Erasures.push_back(std::move(E));
                return true;
              }) &&
         Each("erasedOrigins",
              [&](const llvm::json::Object &I) {
                FlowErasedOrigin O;
                if (!pointFrom(I.get("at"), O.At) || !stringFrom(I, "callee", O.Callee) ||
                    !stringFrom(I, "note", O.Note))
                  return false;
                Flow.ErasedOrigins.push_back(std::move(O));
                return true;
              }) &&
         Each("calls", [&](const llvm::json::Object &I) {
           FlowCall C;
           // [a, b] of two non-negative integers, or of two strings.
           auto Pair = [](const llvm::json::Value &V, auto &First, auto &Second) {
             const llvm::json::Array *A = V.getAsArray();
             if (!A || A->size() != 2)
               return false;
             if constexpr (std::is_same_v<std::decay_t<decltype(First)>, std::string>) {
               std::optional<llvm::StringRef> X = (*A)[0].getAsString(), Y = (*A)[1].getAsString();
               if (!X || !Y)
                 return false;
               First = X->str(), Second = Y->str();
             } else {
               std::optional<int64_t> X = (*A)[0].getAsInteger(), Y = (*A)[1].getAsInteger();
               if (!X || !Y || *X < 0 || *Y < 0)
                 return false;
               First = unsigned(*X), Second = unsigned(*Y);
             }
             return true;
           };
           const llvm::json::Value *Extent = I.get("extent");
           const llvm::json::Array *Args = I.getArray("arguments"),
                                   *Callees = I.getArray("callees");
           if (!stringFrom(I, "function", C.Function) || !pointFrom(I.get("at"), C.At) ||
               !Extent || !Pair(*Extent, C.Begin, C.End) || !Args || !Callees)
             return false;
           for (const llvm::json::Value &A : *Args) {
             auto &[Begin, End] = C.Arguments.emplace_back();
             if (!Pair(A, Begin, End))
               return false;
           }
           for (const llvm::json::Value &A : *Callees) {
             auto &[Identity, Shown] = C.Callees.emplace_back();
             if (!Pair(A, Identity, Shown))
               return false;
           }
           Flow.Calls.push_back(std::move(C));
           return true;
         });
}

//===--- Resolution -------------------------------------------------------===//

static bool before(const FlowPoint &A, const FlowPoint &B) {
  return std::tie(A.File, A.Offset) < std::tie(B.File, B.Offset);
}

FlowProgram::FlowProgram(std::vector<const UnitFlow *> Units, bool WholeProgram,
                         std::string Scope)
    : WholeProgram(WholeProgram), Scope(std::move(Scope)) {
  // A header's facts come once from every unit that includes it.
  std::set<std::tuple<std::string, unsigned, std::string, unsigned>> SeenArgs;
  std::set<std::pair<std::string, unsigned>> SeenRoots;
  for (const UnitFlow *U : Units) {
    for (const FlowArgument &A : U->Arguments)
      if (SeenArgs.insert({A.At.File, A.At.Offset, A.Callee, A.Param}).second)
        Calls[{A.Callee, A.Param}].push_back(&A);
    for (const FlowFunction &F : U->Functions) {
      auto [It, New] = Functions.try_emplace({F.Key, F.Param}, F);
      if (New)
        continue;
      FlowFunction &M = It->second;
      if (F.Defined && !M.Defined) {
        M.Name = F.Name;
        M.ParamName = F.ParamName;
        M.ParamAt = F.ParamAt;
        M.Defined = true;
      }
      if (!F.Instantiation.empty()) {
        M.Instantiation = F.Instantiation;
        M.InstantiationAt = F.InstantiationAt;
      }
      if (M.OwnState.empty() && !F.OwnState.empty()) {
        M.OwnState = F.OwnState;
        M.OwnStateAt = F.OwnStateAt;
      }
      for (const std::string &B : F.Blockers)
        if (!llvm::is_contained(M.Blockers, B))
          M.Blockers.push_back(B);
      M.Edits.insert(M.Edits.end(), F.Edits.begin(), F.Edits.end());
      llvm::sort(M.Edits);
      M.Edits.erase(std::unique(M.Edits.begin(), M.Edits.end()), M.Edits.end());
    }
    for (const FlowReference &R : U->References)
      Referenced.try_emplace(R.Function, &R);
    for (const FlowRoot &R : U->Roots)
      if (SeenRoots.insert({R.At.File, R.At.Offset}).second)
        Roots.push_back(R);
  }
  for (auto &[Key, List] : Calls)
    llvm::sort(List, [](const FlowArgument *A, const FlowArgument *B) {
      return before(A->At, B->At);
    });
  llvm::sort(Roots, [](const FlowRoot &A, const FlowRoot &B) { return before(A.At, B.At); });
}

FlowProgram::Plan FlowProgram::resolve(const FlowRoot &Root) const {
  Plan Result;
  const unsigned MaxNotes = Root.MaxNotes;
  auto FunctionOf = [&](const std::string &Key, unsigned Param) -> const FlowFunction * {
    auto It = Functions.find({Key, Param});
    return It == Functions.end() ? nullptr : &It->second;
  };
  const FlowFunction *RootFn = FunctionOf(Root.Function, Root.Param);
  if (!RootFn)
    return Result;
  // From the root outwards: the calls of each function, before those of
  // the functions that pass their parameter on to it.
  using Node = std::pair<std::string, unsigned>;
  std::vector<Node> Order{{Root.Function, Root.Param}};
  std::set<Node> Reached{Order.front()};
  std::vector<std::pair<Node, Node>> Forwards; // (callee, caller)
  bool AllConstant = true;
  unsigned Total = 0;
  std::string Problem;
  FlowPoint ProblemAt = RootFn->ParamAt;
  for (size_t I = 0; I < Order.size(); ++I) {
    const FlowFunction *Fn = FunctionOf(Order[I].first, Order[I].second);
    if (!Fn) { // facts from a unit that could not describe it: no fix
      AllConstant = false;
      continue;
    }
    auto It = Calls.find(Order[I]);
    if (It == Calls.end()) {
      AllConstant = false;
      // Called through the pointer only: with axes nobody can see.
      if (auto Ref = Referenced.find(Order[I].first); Ref != Referenced.end())
        Result.Notes.push_back({Ref->second->At, Fn->Name + " is not called by name in " + Scope +
                                                     "; its address is taken here"});
      else
        Result.Notes.push_back({Fn->ParamAt, Fn->Name + " is not called in " + Scope});
      // A virtual function is reached through its base's name: whatever
      // the calls pass, say what else stands in the way.
      if (!Fn->Blockers.empty())
        Result.Notes.push_back({Fn->ParamAt, "no fix: " + Fn->Blockers.front()});
      continue;
    }
    for (const FlowArgument *A : It->second) {
      std::string Text = Fn->Name + " is called here ";
      switch (A->Kind) {
      case FlowArgument::Constant:
        Text += "with axis " + A->Value;
        break;
      case FlowArgument::Forwarded: {
        Node Caller{A->Caller, A->CallerParam};
        const FlowFunction *CallerFn = FunctionOf(A->Caller, A->CallerParam);
        if (!CallerFn) {
          Text += "with an axis that is not a compile-time constant";
          AllConstant = false;
          break;
        }
        Text += "with parameter " + CallerFn->ParamName + " of " + CallerFn->Name;
        Forwards.push_back({Order[I], Caller});
        if (Reached.insert(Caller).second)
          Order.push_back(Caller);
        break;
      }
      case FlowArgument::Default:
        Text += "without an axis, so it takes the default";
        if (A->Value.empty()) {
          Text += ", which is not a compile-time constant";
          AllConstant = false;
        } else {
          Text += ", " + A->Value;
        }
        break;
      case FlowArgument::Runtime:
        Text += "with an axis that is not a compile-time constant";
        AllConstant = false;
        break;
      }
      // The text moves into a template argument, where it computes otherwise.
      if (!A->AsTemplateArgument.empty()) {
        Text += ", which is " + A->AsTemplateArgument + " where a constant is required";
        if (Problem.empty() && AllConstant) {
          Problem = std::string(A->Kind == FlowArgument::Default ? "the default this call takes"
                                                                 : "the axis passed here") +
                    " is " + A->Value + " at run time and " +
                    A->AsTemplateArgument +
                    " where a constant is required (it asks whether it is "
                    "constant-evaluated), and a template parameter would receive " +
                    A->AsTemplateArgument;
          ProblemAt = A->At;
        }
      }
      // A call that takes the default stays as written.
      // (A function that can take no template argument at all says so.)
      if (A->Edits.empty() && A->Kind != FlowArgument::Default && Problem.empty() &&
          AllConstant && Fn->Blockers.empty()) {
        Problem = "this call cannot be rewritten to pass the axis as a template argument";
        ProblemAt = A->At;
      }
      if (Total++ < MaxNotes)
        Result.Notes.push_back({A->At, Text});
    }
  }
  if (Total > MaxNotes)
    Result.Notes.push_back({RootFn->ParamAt, std::to_string(Total - MaxNotes) +
                                                 " more calls not shown"});
  if (!AllConstant)
    return Result;

  // Every value reaches the root through constants: the fix is possible
  // unless one of the functions it changes cannot change.
  // Values as written in decimal, ordered by value.
  auto ByValue = [](const std::string &A, const std::string &B) {
    bool NegA = A[0] == '-', NegB = B[0] == '-';
    if (NegA != NegB)
      return NegA;
    if (A.size() != B.size())
      return NegA ? A.size() > B.size() : A.size() < B.size();
    return NegA ? A > B : A < B;
  };
  using ValueSet = std::set<std::string, decltype(ByValue)>;
  std::map<Node, ValueSet> Values;
  for (const Node &N : Order)
    Values.emplace(N, ValueSet(ByValue));
  for (const Node &N : Order)
    for (const FlowArgument *A : Calls.at(N))
      if (A->Kind == FlowArgument::Constant ||
          (A->Kind == FlowArgument::Default && !A->Value.empty()))
        Values.at(N).insert(A->Value);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const auto &[Callee, Caller] : Forwards)
      for (const std::string &V : ValueSet(Values.at(Caller)))
        Changed |= Values.at(Callee).insert(V).second;
  }
  // The run-time form converts each axis that reaches it to its own
  // parameter's type; the compile-time form would take it unconverted.
  if (Root.ReceivedBits > 0 && Problem.empty())
    for (const std::string &V : Values.at(Order.front())) {
      llvm::APSInt Value(V);
      llvm::APSInt Received = Value.extOrTrunc(Root.ReceivedBits);
      Received.setIsSigned(Root.ReceivedSigned);
      if (!llvm::APSInt::isSameValue(Received, Value)) {
        Problem = "the run-time form's parameter converts axis " + V + " to " +
                  toString(Received, 10) + ", and a template parameter would pass " + V;
        ProblemAt = Root.At;
        break;
      }
    }
  for (const Node &N : Order) {
    const FlowFunction *Fn = FunctionOf(N.first, N.second);
    if (!Problem.empty())
      break;
    if (!Fn->Blockers.empty())
      Problem = Fn->Blockers.front();
    else if (const ValueSet &Axes = Values.at(N); !Fn->OwnState.empty() && Axes.size() > 1) {
      // One function today; one per axis once a template.
      Problem = Fn->OwnState + ", which each of its " + std::to_string(Axes.size()) +
                " instantiations (axis " + llvm::join(Axes, ", ") + ") would have of its own";
      ProblemAt = Fn->OwnStateAt;
    } else if (!Fn->Defined)
      Problem = "the definition of " + Fn->Name + " is not in " + Scope;
    else if (Fn->Edits.empty())
      Problem = "the declarations of " + Fn->Name + " cannot be rewritten";
    else if (auto Ref = Referenced.find(N.first); Ref != Referenced.end()) {
      Problem = "the address of " + Fn->Name + " is taken here";
      ProblemAt = Ref->second->At;
    } else if (!Fn->Internal && Root.Mode != SignatureRewrites::All)
      Problem = Fn->Name + " has external linkage; set RewriteSignatures "
                "to 'all' to change it with every caller in the compilation "
                "database";
    else if (!Fn->Internal && !WholeProgram)
      Problem = Fn->Name + " has external linkage, and its callers in other "
                "files are only known when gradlint analyses the whole "
                "compilation database";
  }
  if (Problem.empty() && Root.Edits.empty())
    Problem = "the concatenation cannot be rewritten";
  if (Root.Mode == SignatureRewrites::None)
    Problem.clear();
  if (Problem.empty() && Root.Mode != SignatureRewrites::None) {
    std::vector<FlowEdit> Edits = Root.Edits;
    for (const Node &N : Order) {
      const FlowFunction *Fn = FunctionOf(N.first, N.second);
      Edits.insert(Edits.end(), Fn->Edits.begin(), Fn->Edits.end());
      for (const FlowArgument *A : Calls.at(N))
        Edits.insert(Edits.end(), A->Edits.begin(), A->Edits.end());
      if (!Fn->Instantiation.empty()) {
        FlowEdit At = Fn->InstantiationAt;
        for (const std::string &V : Values.at(N))
          At.Text += std::string(Fn->Instantiation).replace(Fn->Instantiation.find("@AXIS@"), 6, V);
        Edits.push_back(std::move(At));
      }
      // Other concatenations on the same parameter change with it.
      for (const FlowRoot &Other : Roots)
        if (Other.Function == N.first && Other.Param == N.second &&
            !(Other.At.File == Root.At.File && Other.At.Offset == Root.At.Offset))
          Edits.insert(Edits.end(), Other.Edits.begin(), Other.Edits.end());
    }
    llvm::sort(Edits);
    Edits.erase(std::unique(Edits.begin(), Edits.end()), Edits.end());
    bool Overlap = false;
    for (size_t I = 1; I < Edits.size(); ++I)
      if (Edits[I].File == Edits[I - 1].File &&
          Edits[I].Offset < Edits[I - 1].Offset + Edits[I - 1].Length)
        Overlap = true;
    if (Overlap)
      Problem = "its edits overlap";
    else
      Result.Edits = std::move(Edits);
  }
  if (!Result.Edits.empty())
    Result.Notes.push_back(
        {RootFn->ParamAt, "every call passes a constant: the fix makes " +
                              RootFn->ParamName + " a template parameter of " +
                              RootFn->Name +
                              (Order.size() > 1 ? " and of the functions that pass it on" : "") +
                              " and calls the compile-time form"});
  else
    Result.Notes.push_back({RootFn->ParamAt, "every call passes a constant: make " +
                                                 RootFn->ParamName +
                                                 " a template parameter of " +
                                                 RootFn->Name +
                                                 " and call the compile-time form"});
  if (!Problem.empty())
    Result.Notes.push_back({ProblemAt, "no fix: " + Problem});
  return Result;
}

void FlowProgram::block(const std::function<std::string(const FlowFunction &)> &Why) {
  for (auto &[Key, F] : Functions)
    if (std::string Reason = Why(F); !Reason.empty())
      F.Blockers.push_back(std::move(Reason));
}

std::vector<FlowProgram::Plan> FlowProgram::resolveAll() const {
  std::vector<Plan> Plans;
  for (const FlowRoot &R : Roots)
    Plans.push_back(resolve(R));
  // A root whose edits another root's fix makes too (a concatenation in a
  // function that passes its axis on to another one, or a second one on
  // the same parameter) is fixed by that one; the fix is offered once.
  auto Contains = [](const std::vector<FlowEdit> &Big, const std::vector<FlowEdit> &Small) {
    return std::includes(Big.begin(), Big.end(), Small.begin(), Small.end());
  };
  for (size_t I = 0; I < Plans.size(); ++I) {
    if (Plans[I].Edits.empty())
      continue;
    for (size_t J = 0; J < Plans.size(); ++J) {
      if (J == I || Plans[J].Edits.empty() || !Contains(Plans[J].Edits, Plans[I].Edits))
        continue;
      bool Bigger = Plans[J].Edits.size() > Plans[I].Edits.size();
      if (!Bigger && J > I)
        continue;
      Plans[I].Edits.clear();
      Plans[I].Notes.push_back(
          {Roots[I].At, "fixed together with the concatenation at " +
                            llvm::sys::path::filename(Roots[J].At.File).str() + ":" +
                            std::to_string(Roots[J].At.Line)});
      break;
    }
  }
  return Plans;
}

} // namespace clang::tidy::gradlint

namespace clang::tidy::gradlint {
namespace {
std::mutex SinkLock;
llvm::DenseMap<const void *, UnitFlow *> &sinks() {
  static llvm::DenseMap<const void *, UnitFlow *> Sinks;
  return Sinks;
}
} // namespace

void FlowSink::attach(const void *Context, UnitFlow *Flow) {
  std::lock_guard<std::mutex> Guard(SinkLock);
  sinks()[Context] = Flow;
}
void FlowSink::detach(const void *Context) {
  std::lock_guard<std::mutex> Guard(SinkLock);
  sinks().erase(Context);
}
UnitFlow *FlowSink::find(const void *Context) {
  std::lock_guard<std::mutex> Guard(SinkLock);
  return sinks().lookup(Context);
}

} // namespace clang::tidy::gradlint
