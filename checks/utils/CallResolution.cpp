//===--- CallResolution.cpp - which function each call of a value chooses -===//

#include "utils/CallResolution.h"
#include "utils/Pullbacks.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"

namespace clang::tidy::gradlint {
namespace {

/// The declaration a call resolves to, as written once: the function
/// template or member a specialization was instantiated from, first
/// declaration. Two parses compare these, not the specializations (which
/// differ with the argument types by design).
const NamedDecl *patternOf(const Decl *D) {
  const auto *FD = dyn_cast<FunctionDecl>(D);
  if (!FD)
    return dyn_cast<NamedDecl>(D->getCanonicalDecl());
  if (const FunctionTemplateDecl *Template = FD->getPrimaryTemplate()) {
    while (const FunctionTemplateDecl *From = Template->getInstantiatedFromMemberTemplate())
      Template = From;
    FD = Template->getTemplatedDecl();
  } else if (const FunctionDecl *From = FD->getInstantiatedFromMemberFunction()) {
    FD = From;
  }
  return FD->getCanonicalDecl();
}

std::string siteText(const std::optional<SourceSite> &Site) {
  if (!Site)
    return "-";
  return std::to_string(Site->File.getDevice()) + ":" + std::to_string(Site->File.getFile()) +
         ":" + std::to_string(Site->Offset);
}

/// Walks user code for calls that take a watched value.
class Resolver : public RecursiveASTVisitor<Resolver> {
public:
  Resolver(const ASTContext &Ctx, const std::set<SourceSite> &Watched,
           const std::set<SourceSite> &Pinned, SiteMapper Map, const std::set<ExprSite> &Typed)
      : Ctx(Ctx), Pinned(Pinned), Typed(Typed), Map(Map) {
    for (const SourceSite &Site : Watched)
      Roots[Site] = {Site};
    for (const ExprSite &Site : Typed)
      TypedBegins.insert(Site.Begin);
  }

  bool shouldVisitTemplateInstantiations() const { return true; }

  /// A generic lambda's body as written, then as instantiated: a call that
  /// depends on an `auto` parameter (`[&](auto k) { record(g, k); }`)
  /// resolves only in the instantiations.
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    if (!RecursiveASTVisitor::TraverseLambdaExpr(Lambda))
      return false;
    if (FunctionTemplateDecl *Template = Lambda->getDependentCallOperator())
      for (FunctionDecl *Instance : Template->specializations())
        if (!TraverseStmt(Instance->getBody()))
          return false;
    return true;
  }

  bool VisitVarDecl(VarDecl *Var) {
    // `auto g = pb(dy);`, `auto [y, back] = rrule(x);`: the local takes the
    // changed type along.
    if (isa<ParmVarDecl>(Var) || !Var->getInit() ||
        !Var->getType()->getContainedDeducedType())
      return true;
    const std::set<SourceSite> *From = rootsOf(Var->getInit());
    if (!From)
      return true;
    std::set<SourceSite> Copy = *From;
    if (const auto *Decomposition = dyn_cast<DecompositionDecl>(Var))
      for (const BindingDecl *Binding : Decomposition->bindings())
        if (std::optional<SourceSite> Site = siteOf(Binding))
          Roots[*Site].insert(Copy.begin(), Copy.end());
    if (std::optional<SourceSite> Site = siteOf(Var))
      Roots[*Site].insert(Copy.begin(), Copy.end());
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    // A call in a template that depends on its parameters is resolved in
    // each instantiation.
    if (Call->isTypeDependent() || Call->isValueDependent())
      return true;
    unsigned First = 0;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      // The object of a member operator (and of `pb(args)`) is not an
      // argument: its own type's members change with it, by design.
      if (Op->getOperator() == OO_Call || isa_and_nonnull<CXXMethodDecl>(Op->getCalleeDecl()))
        First = 1;
    llvm::ArrayRef<const Expr *> Args(Call->getArgs(), Call->getNumArgs());
    record(Call, Args.drop_front(std::min<size_t>(First, Args.size())),
           Call->getCalleeDecl(), nullptr);
    if (!Pinned.empty() && !Propagating)
      if (std::optional<SourceSite> At = Map(Call->getExprLoc()); At && Pinned.count(*At))
        addCallee(Result.Pinned[*At], Call->getCalleeDecl());
    return true;
  }

  bool VisitExpr(Expr *E) {
    // Each expression whose first token is asked for (most are not: the
    // end is mapped only then, not through exprSiteOf).
    if (TypedBegins.empty() || Propagating || E->isTypeDependent() ||
        isa<ImplicitCastExpr, FullExpr>(E))
      return true;
    std::optional<SourceSite> Begin = Map(E->getBeginLoc());
    if (!Begin || !TypedBegins.count(*Begin))
      return true;
    std::optional<SourceSite> End = Map(E->getEndLoc());
    if (!End || !(End->File == Begin->File) || !Typed.count({*Begin, End->Offset}))
      return true;
    QualType Type = E->IgnoreUnlessSpelledInSource()->getType();
    Result.Types[{*Begin, End->Offset}].emplace(
        valueTypeIdentity(Type, Ctx),
        Type.getNonReferenceType().getCanonicalType().getUnqualifiedType().getAsString(
            Ctx.getPrintingPolicy()));
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    llvm::ArrayRef<const Expr *> Args(Construct->getArgs(), Construct->getNumArgs());
    record(Construct, Args, Construct->getConstructor(),
           Construct->getConstructor()->getParent());
    return true;
  }

  bool VisitRecoveryExpr(RecoveryExpr *Recovery) {
    // A call that no longer resolves: its callee, then its arguments.
    llvm::ArrayRef<Expr *> Sub = Recovery->subExpressions();
    std::vector<const Expr *> Args(Sub.begin() + (Sub.empty() ? 0 : 1), Sub.end());
    record(Recovery, Args, nullptr, nullptr);
    return true;
  }

  ResolvedCalls Result;
  /// A first walk only learns which parameters receive watched values
  /// (propagate); Changed says whether it learned anything new.
  bool Propagating = false;
  bool Changed = false;

private:
  /// The value an argument passes on, through what is not written
  /// (conversions, temporaries, a copy into the parameter) and std::move.
  static const Expr *valueOf(const Expr *E) {
    for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
      E = const_cast<Expr *>(E)->IgnoreUnlessSpelledInSource();
      const auto *Call = dyn_cast<CallExpr>(E);
      if (!Call || Call->getNumArgs() != 1 ||
          !isStdFunction(Call->getDirectCallee(), {"move", "forward"}))
        return E;
      E = Call->getArg(0);
    }
    return E;
  }

  /// The watched declarations the value of \p E comes from, or null.
  const std::set<SourceSite> *rootsOf(const Expr *E) {
    E = valueOf(E);
    if (!E)
      return nullptr;
    const Decl *From = nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      From = Ref->getDecl();
    else if (const auto *Member = dyn_cast<MemberExpr>(E))
      return isa<FieldDecl>(Member->getMemberDecl()) ? rootsOf(Member->getBase()) : nullptr;
    else if (const auto *Call = dyn_cast<CallExpr>(E)) {
      From = Call->getCalleeDecl();
      // std::get<I>(t) of a watched tuple changes with it.
      if (Call->getNumArgs() == 1 && isStdFunction(Call->getDirectCallee(), {"get"}))
        return rootsOf(Call->getArg(0));
    }
    if (!From || !isa<VarDecl, BindingDecl, FunctionDecl>(From))
      return nullptr;
    std::optional<SourceSite> Site = siteOf(From);
    if (!Site)
      return nullptr;
    auto It = Roots.find(*Site);
    return It == Roots.end() ? nullptr : &It->second;
  }

  /// A watched value passed to a function instantiated from a template
  /// (a function template, a member of a class template, a generic
  /// lambda's call operator): the parameter it binds to is watched too, so
  /// that the calls the instantiation makes with it are compared (with the
  /// fix, `template <class T> void fwd(const T &x) { record(x); }` may
  /// call another `record`).
  void propagate(llvm::ArrayRef<const Expr *> Args, const Decl *Callee) {
    const auto *Fn = dyn_cast_or_null<FunctionDecl>(Callee);
    if (!Fn || !Fn->getTemplateInstantiationPattern())
      return;
    for (unsigned I = 0; I < Args.size() && I < Fn->getNumParams(); ++I) {
      const std::set<SourceSite> *From = rootsOf(Args[I]);
      if (!From)
        continue;
      std::optional<SourceSite> Site = siteOf(Fn->getParamDecl(I));
      if (!Site)
        continue;
      std::set<SourceSite> Copy = *From;
      std::set<SourceSite> &Into = Roots[*Site];
      for (const SourceSite &Root : Copy)
        Changed |= Into.insert(Root).second;
    }
  }

  /// Map(patternOf(D)'s location), once per declaration: most arguments
  /// name a few declarations many times.
  std::optional<SourceSite> siteOf(const Decl *D) {
    auto [It, New] = Sites.try_emplace(D);
    if (New)
      It->second = Map(patternOf(D)->getLocation());
    return It->second;
  }

  void record(const Expr *Call, llvm::ArrayRef<const Expr *> Args, const Decl *Callee,
              const CXXRecordDecl *Constructed) {
    if (Propagating) {
      propagate(Args, Callee);
      return;
    }
    std::set<SourceSite> Watched;
    bool OwnClass = false;
    for (const Expr *Arg : Args) {
      const std::set<SourceSite> *From = rootsOf(Arg);
      if (!From)
        continue;
      Watched.insert(From->begin(), From->end());
      if (const CXXRecordDecl *ArgClass = valueOf(Arg)->getType()->getAsCXXRecordDecl())
        OwnClass |= Constructed && Args.size() == 1 &&
                    ArgClass->getCanonicalDecl() == Constructed->getCanonicalDecl();
    }
    if (Watched.empty())
      return;
    std::optional<ExprSite> At = exprSiteOf(Call, Map);
    if (!At)
      return;
    CallResolution &Resolution =
        Result.Calls[CallKey{At->Begin, At->End, isa<CXXConstructExpr>(Call)}];
    Resolution.Watched.insert(Watched.begin(), Watched.end());
    Resolution.ConvertsToOwnClass |= OwnClass;
    addCallee(Resolution, Callee);
  }

  /// Adds what a call resolves to (no function: \p Callee is null).
  void addCallee(CallResolution &Resolution, const Decl *Callee) {
    if (!Callee) {
      Resolution.Callees.emplace("", CallResolution::Callee{"no function", std::nullopt});
      return;
    }
    const NamedDecl *Pattern = patternOf(Callee);
    if (!Pattern)
      return;
    std::string Name = Pattern->getQualifiedNameAsString();
    if (Pattern->getDeclContext()->getRedeclContext()->isTranslationUnit())
      Name = "::" + Name;
    std::optional<SourceSite> Site = siteOf(Pattern);
    // A function is identified by its name and parameter types, without
    // references and const: the copy and move overloads of one function
    // (`push_back(const T &)`, `push_back(T &&)`) do the same thing, and a
    // copy of the erased value binds one where a converted temporary binds
    // the other. Anything else (a lambda's call operator, a pointer to a
    // function) is identified by where it is declared.
    std::string Identity = siteText(Site) + "|" + Name;
    if (const auto *Fn = dyn_cast<FunctionDecl>(Pattern)) {
      // Overloads share a name: the parameters tell them apart.
      PrintingPolicy Policy(Fn->getASTContext().getLangOpts());
      Policy.SuppressTagKeyword = true;
      std::string Params, Plain;
      for (const ParmVarDecl *Param : Fn->parameters()) {
        Params += (Params.empty() ? "" : ", ") + Param->getType().getAsString(Policy);
        Plain += Param->getType().getNonReferenceType().getCanonicalType().getUnqualifiedType()
                     .getAsString(Policy) + ", ";
      }
      if (Fn->isVariadic())
        Params += Params.empty() ? "..." : ", ...";
      const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
      if (!Method || !Method->getParent()->isLambda())
        Identity = Name + "(" + Plain + (Fn->isVariadic() ? "...)" : ")");
      Name += "(" + Params + ")";
    }
    Resolution.Callees.emplace(Identity, CallResolution::Callee{Name, Site});
  }

  const ASTContext &Ctx;
  const std::set<SourceSite> &Pinned;
  const std::set<ExprSite> &Typed;
  std::set<SourceSite> TypedBegins;
  SiteMapper Map;
  /// Each watched or derived declaration, with the watched ones it comes from.
  std::map<SourceSite, std::set<SourceSite>> Roots;
  llvm::DenseMap<const Decl *, std::optional<SourceSite>> Sites;
};

} // namespace

std::optional<SourceSite> siteOf(const Decl *D, const SourceManager &SM) {
  return siteAt(patternOf(D)->getLocation(), SM);
}

std::optional<SourceSite> siteAt(SourceLocation Loc, const SourceManager &SM) {
  Loc = SM.getFileLoc(Loc);
  if (Loc.isInvalid())
    return std::nullopt;
  OptionalFileEntryRef Entry = SM.getFileEntryRefForID(SM.getFileID(Loc));
  if (!Entry)
    return std::nullopt;
  return SourceSite{Entry->getUniqueID(), SM.getFileOffset(Loc)};
}

std::optional<ExprSite> exprSiteOf(const Expr *E, SiteMapper Map) {
  std::optional<SourceSite> Begin = Map(E->getBeginLoc());
  std::optional<SourceSite> End = Map(E->getEndLoc());
  if (!Begin || !End || !(Begin->File == End->File))
    return std::nullopt;
  return ExprSite{*Begin, End->Offset};
}

std::string valueTypeIdentity(QualType Type, const ASTContext &Ctx) {
  Type = Type.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  std::string Suffix;
  if (const auto *Pointer = Type->getAs<PointerType>()) {
    Type = Pointer->getPointeeType().getUnqualifiedType();
    Suffix = " *";
  }
  return Type.getAsString(Ctx.getPrintingPolicy()) + Suffix;
}

ResolvedCalls resolveCalls(ASTContext &Ctx, const std::set<SourceSite> &Watched,
                           const std::set<SourceSite> &Pinned, SiteMapper Map,
                           const std::set<ExprSite> &Typed) {
  Resolver R(Ctx, Watched, Pinned, Map, Typed);
  const SourceManager &SM = Ctx.getSourceManager();
  auto Walk = [&] {
    // Declarations already in the AST only: clangd's preamble stays unread.
    for (Decl *D : Ctx.getTranslationUnitDecl()->noload_decls()) {
      SourceLocation Loc = D->getLocation();
      if (Loc.isValid() && SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
        continue;
      R.TraverseDecl(D);
    }
  };
  // A template is usually defined before the calls that instantiate it:
  // learn which of its parameters receive watched values first (through a
  // few levels of templates), then record.
  if (!Watched.empty()) {
    R.Propagating = true;
    for (unsigned Round = 0; Round < 3; ++Round) {
      R.Changed = false;
      Walk();
      if (!R.Changed)
        break;
    }
    R.Propagating = false;
  }
  Walk();
  return std::move(R.Result);
}

} // namespace clang::tidy::gradlint
