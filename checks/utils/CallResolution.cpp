//===--- CallResolution.cpp - which function each call of a value chooses -===//

#include "utils/CallResolution.h"
#include "utils/ErasedTypes.h"
#include "utils/Pullbacks.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ExprConcepts.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include <limits>

namespace clang::tidy::gradlint {
namespace {

/// The names an expression or a written type refers to.
struct RefScan : RecursiveASTVisitor<RefScan> {
  std::vector<const Expr *> Found;
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    Found.push_back(Ref);
    return true;
  }
};

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

  /// A function's body is a frame of its own. In an instantiation of a
  /// template (a function template's, a class template member's, a generic
  /// lambda's), what it finds out about types depends on the template
  /// arguments, which the watched values its parameters receive give; in
  /// any other function, on the values the expression itself refers to.
  bool TraverseDecl(Decl *D) {
    const auto *Fn = dyn_cast_or_null<FunctionDecl>(D);
    if (!Fn || !Fn->doesThisDeclarationHaveABody())
      return RecursiveASTVisitor::TraverseDecl(D);
    return inFunction(Fn, [&] { return RecursiveASTVisitor::TraverseDecl(D); });
  }

  /// `auto grad(dy) { return pb(dy); }`, `[&] { return pb(dy); }`: a
  /// function whose result type is deduced from a watched value takes the
  /// changed type along.
  bool VisitReturnStmt(ReturnStmt *Return) {
    if (!Propagating || Functions.empty() || !Return->getRetValue())
      return true;
    const FunctionDecl *Fn = Functions.back();
    if (!Fn->getDeclaredReturnType()->getContainedDeducedType())
      return true;
    if (const std::set<SourceSite> *From = rootsOf(Return->getRetValue()))
      Changed |= addRoots(Fn, *From);
    return true;
  }

  /// `decltype(pb(dy)) g;`, a member or a function result declared so:
  /// its type is the watched value's.
  bool VisitDeclaratorDecl(DeclaratorDecl *D) {
    if (!Propagating || isa<ParmVarDecl>(D) || !D->getTypeSourceInfo())
      return true;
    TypeLoc Written = D->getTypeSourceInfo()->getTypeLoc();
    if (const auto *Fn = dyn_cast<FunctionDecl>(D)) {
      FunctionTypeLoc Signature = Fn->getFunctionTypeLoc();
      if (!Signature)
        return true;
      Written = Signature.getReturnLoc();
    }
    if (std::set<SourceSite> From = rootsIn(Written); !From.empty())
      Changed |= addRoots(D, From);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (Propagating) {
      if (Ref->hasExplicitTemplateArgs())
        if (const auto *Fn = dyn_cast<FunctionDecl>(Ref->getDecl()))
          if (std::set<SourceSite> From = rootsIn(Ref->template_arguments()); !From.empty())
            intoSpecialization(Fn, From);
      return true;
    }
    // `std::is_same_v<T, std::any>`, `std::is_integral<T>::value`: a
    // constant of a template specialization.
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && (isa<VarTemplateSpecializationDecl>(Var) ||
                (Var->isStaticDataMember() &&
                 isa<ClassTemplateSpecializationDecl>(Var->getDeclContext()))) &&
        Var->getType()->isIntegralOrEnumerationType())
      found(Ref);
    return true;
  }

  bool VisitIfStmt(IfStmt *If) {
    if (If->isConstexpr() && If->getCond())
      found(If->getCond());
    return true;
  }
  bool VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *E) { return found(E); }
  bool VisitCXXNoexceptExpr(CXXNoexceptExpr *E) { return found(E); }
  bool VisitTypeTraitExpr(TypeTraitExpr *E) { return found(E); }
  bool VisitConceptSpecializationExpr(ConceptSpecializationExpr *E) { return found(E); }
  bool VisitRequiresExpr(RequiresExpr *E) { return found(E); }
  bool VisitCXXTypeidExpr(CXXTypeidExpr *E) {
    std::set<SourceSite> Watched = watchedAt(E);
    if (Watched.empty())
      return true;
    QualType Type = E->isTypeOperand() ? E->getTypeOperand(const_cast<ASTContext &>(Ctx))
                                       : E->getExprOperand()->getType();
    std::string Name = Type.getNonReferenceType().getCanonicalType().getUnqualifiedType()
                           .getAsString(Ctx.getPrintingPolicy());
    observe(E, Watched, Name, "typeid(" + Name + ")");
    return true;
  }

  /// A generic lambda's body as written, then as instantiated: a call that
  /// depends on an `auto` parameter (`[&](auto k) { record(g, k); }`)
  /// resolves only in the instantiations.
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    // The body belongs to the enclosing function's frame, and returns from
    // the lambda's call operator.
    Functions.push_back(Lambda->getCallOperator());
    bool Continue = RecursiveASTVisitor::TraverseLambdaExpr(Lambda);
    Functions.pop_back();
    if (!Continue)
      return false;
    if (FunctionTemplateDecl *Template = Lambda->getDependentCallOperator())
      for (FunctionDecl *Instance : Template->specializations())
        if (!inFunction(Instance, [&] { return TraverseStmt(Instance->getBody()); }))
          return false;
    return true;
  }

  /// `for (const auto &x : v)` over a watched range: x's type comes from
  /// it.
  bool VisitCXXForRangeStmt(CXXForRangeStmt *Loop) {
    VarDecl *Var = Loop->getLoopVariable();
    if (!Var || !Var->getType()->getContainedDeducedType() || !Loop->getRangeInit())
      return true;
    if (const std::set<SourceSite> *From = rootsOf(Loop->getRangeInit()))
      addRoots(Var, *From);
    return true;
  }

  bool VisitVarDecl(VarDecl *Var) {
    if (!Propagating && !isa<ParmVarDecl>(Var) && Var->getInit() &&
        Var->getType()->isReferenceType() && !Var->getType()->getContainedDeducedType())
      bindsReference(Var);
    // `auto g = pb(dy);`, `auto [y, back] = rrule(x);`: the local takes the
    // changed type along.
    if (isa<ParmVarDecl>(Var) || !Var->getInit() ||
        !Var->getType()->getContainedDeducedType())
      return true;
    const std::set<SourceSite> *From = rootsOf(Var->getInit());
    if (!From)
      return true;
    if (const auto *Decomposition = dyn_cast<DecompositionDecl>(Var))
      for (const BindingDecl *Binding : Decomposition->bindings())
        addRoots(Binding, *From);
    addRoots(Var, *From);
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    // A call in a template that depends on its parameters is resolved in
    // each instantiation; one that takes a watched value is noted.
    if (Call->isTypeDependent() || Call->isValueDependent()) {
      noteDependent(Call, Call->arguments());
      if (!Pinned.empty() && !Propagating)
        if (std::optional<SourceSite> At = Map(dependentCallPlace(Call)); At && Pinned.count(*At))
          Result.PinnedDependent.insert(*At);
      return true;
    }
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
      if (std::optional<SourceSite> At = Map(Call->getExprLoc()); At && Pinned.count(*At)) {
        bool Before = declaredBefore(Call->getCalleeDecl(), Call->getExprLoc());
        if (CallResolution::Callee *Chosen = addCallee(Result.Pinned[*At], Call->getCalleeDecl()))
          Chosen->DeclaredBefore = Before;
        recordInnermost(*At, Call, Before);
      }
    return true;
  }

  /// Records \p Call in PinnedInnermost at \p At unless a call that ends
  /// earlier was recorded there (one on this call's result is visited
  /// first, and replaced); an instantiation of the same call adds to it.
  void recordInnermost(const SourceSite &At, const CallExpr *Call, bool DeclaredBefore) {
    std::optional<ExprSite> Site = exprSiteOf(Call, Map);
    unsigned End = Site ? Site->End : std::numeric_limits<unsigned>::max();
    auto [It, New] = InnermostEnd.try_emplace(At, End);
    if (!New && End > It->second)
      return;
    if (!New && End < It->second) {
      It->second = End;
      Result.PinnedInnermost.erase(At);
    }
    if (CallResolution::Callee *Chosen =
            addCallee(Result.PinnedInnermost[At], Call->getCalleeDecl()))
      Chosen->DeclaredBefore = DeclaredBefore;
  }

  /// Where a dependent \p Call is placed, as clang places the call it
  /// resolves to (Expr::getExprLoc): a member call at the member's name
  /// (`this->template cat<0>(x)` at `cat`), any other call where it begins
  /// (`lib::cat<N>(a, b)` at `lib`, not at `cat`).
  static SourceLocation dependentCallPlace(const CallExpr *Call) {
    const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
    if (const auto *Member = dyn_cast<UnresolvedMemberExpr>(Callee))
      return Member->getMemberLoc();
    if (const auto *Member = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
      return Member->getMemberLoc();
    if (const auto *Member = dyn_cast<MemberExpr>(Callee))
      return Member->getMemberLoc();
    return Call->getBeginLoc();
  }

  // Constructions that depend on a template's parameters: their
  // constructor is chosen in each instantiation (`Recorder r(v)` keeps its
  // arguments in a ParenListExpr, `Recorder q{v}` in an InitListExpr,
  // below).
  bool VisitCXXUnresolvedConstructExpr(CXXUnresolvedConstructExpr *E) {
    noteDependent(E, E->arguments());
    return true;
  }
  bool VisitParenListExpr(ParenListExpr *E) {
    noteDependent(E, E->exprs());
    return true;
  }

  /// Notes \p E, which depends on a template's parameters, when one of
  /// \p Args is a watched value.
  template <class Range> void noteDependent(const Expr *E, Range Args) {
    if (Propagating || llvm::none_of(Args, [&](const Expr *Arg) { return rootsOf(Arg); }))
      return;
    if (std::optional<ExprSite> At = exprSiteOf(E, Map))
      Result.Dependent.push_back(*At);
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

  /// `Box{g}`: an aggregate of a class template specialization holds a
  /// watched value. (Or, dependent, a construction: see above.)
  bool VisitInitListExpr(InitListExpr *List) {
    if (List->isTypeDependent() || List->isValueDependent())
      noteDependent(List, List->inits());
    if (Propagating && !List->isTypeDependent())
      if (const CXXRecordDecl *Class = List->getType()->getAsCXXRecordDecl())
        for (const Expr *Init : List->inits())
          if (const std::set<SourceSite> *From = rootsOf(Init))
            intoClass(Class, *From);
    return true;
  }

  /// `Box<decltype(g)>`: a class template specialization written with
  /// template arguments that refer to a watched value.
  bool VisitTemplateSpecializationTypeLoc(TemplateSpecializationTypeLoc Loc) {
    if (!Propagating)
      return true;
    const auto *Spec =
        dyn_cast_or_null<ClassTemplateSpecializationDecl>(Loc.getType()->getAsCXXRecordDecl());
    if (!Spec)
      return true;
    std::vector<TemplateArgumentLoc> Args;
    for (unsigned I = 0; I < Loc.getNumArgs(); ++I)
      Args.push_back(Loc.getArgLoc(I));
    if (std::set<SourceSite> From = rootsIn(Args); !From.empty())
      intoSpecialization(Spec, From);
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
    else if (const auto *Unary = dyn_cast<UnaryOperator>(E);
             Unary && (Unary->getOpcode() == UO_AddrOf || Unary->getOpcode() == UO_Deref))
      // `&pb` and `&g` change type with what they point to, and so does
      // what `*p` reads through a pointer that does.
      return rootsOf(Unary->getSubExpr());
    else if (const auto *Member = dyn_cast<MemberExpr>(E)) {
      const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
      if (!Field)
        return nullptr;
      // A member declared with a watched value's decltype; otherwise one
      // of a watched value (a tuple's, a pair's).
      if (std::optional<SourceSite> Site = siteOf(Field))
        if (auto It = Roots.find(*Site); It != Roots.end())
          return &It->second;
      return rootsOf(Member->getBase());
    }
    else if (const auto *Choice = dyn_cast<AbstractConditionalOperator>(E)) {
      // `c ? pb(a) : pb(b)`: either side's.
      if (const std::set<SourceSite> *True = rootsOf(Choice->getTrueExpr()))
        return True;
      return rootsOf(Choice->getFalseExpr());
    } else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
      return rootsOf(Subscript->getBase()); // an element of a watched array
    else if (const auto *Call = dyn_cast<CallExpr>(E)) {
      // An element of a watched container (`v[0]`), std::get<I>(t) of a
      // watched tuple: they change with it.
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
          Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
        return rootsOf(Op->getArg(0));
      if (Call->getNumArgs() == 1 && isStdFunction(Call->getDirectCallee(), {"get"}))
        return rootsOf(Call->getArg(0));
      From = Call->getCalleeDecl();
      if (const std::set<SourceSite> *Own = rootsOfDecl(From))
        return Own;
      // A function template whose result type comes from its template
      // arguments (`std::make_pair(pb(dy), 1)`, a user's `wrap(g)`): the
      // result changes type with a watched argument. (Not with the object
      // of a member operator: `pb(dy)` calls the closure instead of the
      // wrapper by design, and returns what the wrapper's signature says.)
      const auto *Fn = dyn_cast_or_null<FunctionDecl>(From);
      const FunctionDecl *Pattern = Fn ? Fn->getTemplateInstantiationPattern() : nullptr;
      if (!Pattern || !(Pattern->getReturnType()->isDependentType() ||
                        Pattern->getReturnType()->getContainedDeducedType()))
        return nullptr;
      llvm::ArrayRef<const Expr *> Args(Call->getArgs(), Call->getNumArgs());
      if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Fn) && !Args.empty())
        Args = Args.drop_front();
      for (const Expr *Arg : Args)
        if (const std::set<SourceSite> *Passed = rootsOf(Arg))
          return Passed;
      return nullptr;
    }
    return rootsOfDecl(From);
  }

  /// The watched declarations the value of \p From comes from, or null.
  const std::set<SourceSite> *rootsOfDecl(const Decl *From) {
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
      Changed |= addRoots(Fn->getParamDecl(I), *From);
      if (isa<CXXConstructorDecl>(Fn))
        intoClass(Fn->getParent(), *From);
    }
  }

  /// A class template specialization constructed from watched values: its
  /// members find out about types from their template arguments.
  void intoClass(const DeclContext *Class, const std::set<SourceSite> &From) {
    const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(Class);
    if (!Spec)
      return;
    intoSpecialization(Spec, From);
  }

  void intoSpecialization(const Decl *Spec, const std::set<SourceSite> &From) {
    Changed |= merge(Specialized[Spec->getCanonicalDecl()], From);
  }

  /// Adds \p From to what \p Into holds; true when that is news.
  static bool merge(std::set<SourceSite> &Into, const std::set<SourceSite> &From) {
    if (&Into == &From)
      return false; // (insert may not take its own iterators)
    size_t Before = Into.size();
    Into.insert(From.begin(), From.end());
    return Into.size() != Before;
  }

  /// \p D carries values of the watched declarations \p From (a parameter
  /// they are passed to, a local or function whose type is deduced from
  /// them); true when that is news. (\p From may be another of Roots'
  /// sets: the map's nodes stay where they are.)
  bool addRoots(const Decl *D, const std::set<SourceSite> &From) {
    std::optional<SourceSite> Site = siteOf(D);
    return Site && merge(Roots[*Site], From);
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
    std::map<unsigned, CallResolution::KeptBinding> Dangling;
    const auto *Fn = dyn_cast_or_null<FunctionDecl>(Callee);
    bool StoresAny = Fn && storesAnyType(Fn);
    std::string Holds;
    for (unsigned I = 0; I < Args.size(); ++I) {
      const Expr *Arg = Args[I];
      const std::set<SourceSite> *From = rootsOf(Arg);
      if (!From)
        continue;
      Watched.insert(From->begin(), From->end());
      if (StoresAny)
        Holds += " holding " + valueTypeIdentity(valueOf(Arg)->getType(), Ctx);
      if (const CXXRecordDecl *ArgClass = valueOf(Arg)->getType()->getAsCXXRecordDecl())
        OwnClass |= Constructed && Args.size() == 1 &&
                    ArgClass->getCanonicalDecl() == Constructed->getCanonicalDecl();
      if (!Fn || I >= Fn->getNumParams() || !bindsTemporary(Arg))
        continue;
      bool ByCallee = keepsReference(Fn, I);
      if (ByCallee || (mayReturnInto(Fn, I) && resultOutlives(Call, Fn)))
        Dangling.emplace(I + 1, CallResolution::KeptBinding{
                                    patternOf(Fn)->getQualifiedNameAsString(), !ByCallee});
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
    Resolution.Dangling.insert(Dangling.begin(), Dangling.end());
    addCallee(Resolution, Callee, Holds);
  }

  /// Whether \p Fn stores a value of whatever type it is given in a
  /// std::any (or boost::any): a constructor or member template of it
  /// (`any(T &&)`, `operator=(T &&)`, `emplace`). The same function given
  /// a value of another type holds another type, which `any_cast<T>` tells
  /// apart: the type is part of what the call does.
  static bool storesAnyType(const FunctionDecl *Fn) {
    const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
    return Method && Fn->getPrimaryTemplate() &&
           !Method->isStatic() && isAnyType(Method->getThisType()->getPointeeType());
  }

  /// Whether \p Fn's body stores the address of \p Param (`&p`,
  /// `std::addressof(p)`, `std::ref(p)`, `std::cref(p)`) where it outlives
  /// the call: assigned to a member, a global or what a reference or
  /// pointer parameter names, or passed to a member function of such an
  /// object (`tape_.push_back(&p)`).
  /// A use that ends with the call (`std::any_cast<T>(&p)`) is not one.
  static bool storesAddress(const FunctionDecl *Fn, const ParmVarDecl *Param) {
    struct Finder : RecursiveASTVisitor<Finder> {
      const ParmVarDecl *Param;
      ASTContext &Ctx;
      bool Found = false;
      Finder(const ParmVarDecl *Param, ASTContext &Ctx) : Param(Param), Ctx(Ctx) {}
      bool names(const Expr *E) const {
        const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
        return Ref && Ref->getDecl() == Param;
      }
      /// A member of `this`, or a variable that outlives the call.
      static bool lasting(const Expr *E) {
        E = E->IgnoreParenImpCasts();
        if (const auto *Member = dyn_cast<MemberExpr>(E))
          return isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()) ||
                 lasting(Member->getBase());
        const auto *Ref = dyn_cast<DeclRefExpr>(E);
        const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
        // A reference or pointer parameter names the caller's object.
        return Var && (Var->hasGlobalStorage() ||
                       (isa<ParmVarDecl>(Var) &&
                        (Var->getType()->isReferenceType() || Var->getType()->isPointerType())));
      }
      void stored(const Expr *Address) {
        for (const DynTypedNode &Parent : Ctx.getParents(*Address)) {
          if (const auto *Through = Parent.get<Expr>();
              Through && isa<ImplicitCastExpr, MaterializeTemporaryExpr, ParenExpr,
                             CXXBindTemporaryExpr>(Through)) {
            stored(Through);
            continue;
          }
          if (const auto *Assign = Parent.get<BinaryOperator>())
            Found |= Assign->getOpcode() == BO_Assign && Assign->getRHS() == Address &&
                     lasting(Assign->getLHS());
          else if (const auto *Call = Parent.get<CXXMemberCallExpr>())
            Found |= Call->getImplicitObjectArgument() &&
                     lasting(Call->getImplicitObjectArgument());
          else if (const auto *Op = Parent.get<CXXOperatorCallExpr>())
            Found |= Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
                     lasting(Op->getArg(0));
        }
      }
      bool VisitUnaryOperator(UnaryOperator *Op) {
        if (Op->getOpcode() == UO_AddrOf && names(Op->getSubExpr()))
          stored(Op);
        return !Found;
      }
      bool VisitCallExpr(CallExpr *Call) {
        if (Call->getNumArgs() == 1 &&
            isStdFunction(Call->getDirectCallee(), {"addressof", "ref", "cref"}) &&
            names(Call->getArg(0)))
          stored(Call);
        return !Found;
      }
    } F(Param, Fn->getASTContext());
    F.TraverseStmt(Fn->getBody());
    return F.Found;
  }

  /// Whether \p Arg binds its (reference) parameter to a temporary: a
  /// value converted to the parameter's type, materialised for the call.
  static bool bindsTemporary(const Expr *Arg) {
    for (unsigned Depth = 0; Arg && Depth < 8; ++Depth) {
      Arg = Arg->IgnoreParens();
      if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Arg);
          Cast && Cast->getCastKind() == CK_NoOp) {
        Arg = Cast->getSubExpr();
        continue;
      }
      if (const auto *Full = dyn_cast<FullExpr>(Arg)) {
        Arg = Full->getSubExpr();
        continue;
      }
      return isa<MaterializeTemporaryExpr>(Arg);
    }
    return false;
  }

  /// Whether \p Fn keeps what its reference parameter \p I binds past the
  /// call: a constructor that initialises a reference, pointer or
  /// std::reference_wrapper member from the parameter (with no definition
  /// in sight: one whose class has a reference member), a function whose
  /// body stores its address where it lasts (storesAddress), a function that
  /// returns a reference or pointer to the parameter's type (it may return
  /// the parameter; not an assignment, which returns `*this`).
  static bool keepsReference(const FunctionDecl *Fn, unsigned I) {
    QualType Param = Fn->getParamDecl(I)->getType();
    if (!Param->isReferenceType())
      return false;
    const FunctionDecl *Def = nullptr;
    if (!Fn->hasBody(Def) || I >= Def->getNumParams())
      Def = nullptr;
    if (Def && storesAddress(Def, Def->getParamDecl(I)))
      return true;
    auto Holds = [](QualType T) {
      if (T->isReferenceType() || T->isPointerType())
        return true;
      const auto *Class = T->getAsCXXRecordDecl();
      return Class && Class->isInStdNamespace() && Class->getName() == "reference_wrapper";
    };
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Fn)) {
      if (!Def)
        return llvm::any_of(Ctor->getParent()->fields(), [](const FieldDecl *Field) {
          return Field->getType()->isReferenceType();
        });
      const ParmVarDecl *Own = Def->getParamDecl(I);
      for (const CXXCtorInitializer *Init : cast<CXXConstructorDecl>(Def)->inits()) {
        if (!Init->isAnyMemberInitializer() || !Holds(Init->getAnyMember()->getType()))
          continue;
        RefScan Scan;
        Scan.TraverseStmt(Init->getInit());
        if (llvm::any_of(Scan.Found, [&](const Expr *Ref) {
              return cast<DeclRefExpr>(Ref)->getDecl() == Own;
            }))
          return true;
      }
      return false;
    }
    if (returnsThis(Fn))
      return false;
    QualType Result = Fn->getReturnType();
    if (!Result->isReferenceType() && !Result->isPointerType())
      return false;
    auto Plain = [](QualType T) { return T.getCanonicalType().getUnqualifiedType(); };
    return Plain(Result->getPointeeType()) == Plain(Param->getPointeeType());
  }

  /// Whether what \p Fn returns may point into the object its reference
  /// parameter \p I binds: a reference or pointer result, and a parameter
  /// of class type (a member, an element, a held value:
  /// `std::any_cast<const T &>(const std::any &)`, `std::get<T>(v)`,
  /// `front(const Tensor &)`). Whether the caller keeps it is
  /// resultOutlives'.
  static bool mayReturnInto(const FunctionDecl *Fn, unsigned I) {
    QualType Param = Fn->getParamDecl(I)->getType();
    QualType Result = Fn->getReturnType();
    if (!Param->isReferenceType() || !Param->getPointeeType()->isRecordType() ||
        !(Result->isReferenceType() || Result->isPointerType()))
      return false;
    return !returnsThis(Fn);
  }

  /// A copy or move assignment: `x = value` returns `*this`, not the
  /// argument.
  static bool returnsThis(const FunctionDecl *Fn) {
    const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
    return Method && (Method->isCopyAssignmentOperator() || Method->isMoveAssignmentOperator());
  }

  /// Whether the reference or pointer \p Call returns is kept past its
  /// full-expression: it (or a member or element it designates) binds a
  /// reference variable (a range-for's range among them), a reference
  /// member, an element of a braced list, or is returned by reference;
  /// a pointer it returns is stored in a variable, assigned or returned.
  /// A value read from it, or a copy made of it, is not kept.
  static bool resultOutlives(const Expr *Call, const FunctionDecl *Fn) {
    ASTContext &Ctx = Fn->getASTContext();
    const Expr *E = Call;
    bool Pointer = Fn->getReturnType()->isPointerType();
    for (unsigned Depth = 0; Depth < 16; ++Depth) {
      DynTypedNodeList Parents = Ctx.getParents(*E);
      if (Parents.empty())
        return false;
      const DynTypedNode &Parent = Parents[0];
      if (const auto *Var = Parent.get<VarDecl>())
        return Var->getInit() && Var->getInit()->IgnoreParens() == E->IgnoreParens() &&
               (Var->getType()->isReferenceType() || (Pointer && Var->getType()->isPointerType()));
      if (Parent.get<ReturnStmt>())
        return E->isGLValue() || Pointer;
      if (const auto *Init = Parent.get<CXXCtorInitializer>())
        return Init->isAnyMemberInitializer() &&
               Init->getAnyMember()->getType()->isReferenceType();
      const auto *Up = Parent.get<Expr>();
      if (!Up)
        return false;
      if (isa<InitListExpr>(Up))
        return E->isGLValue() || Pointer;
      if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Up)) {
        CastKind Kind = Cast->getCastKind();
        if (Kind == CK_LValueToRValue && Pointer && E->getType()->isPointerType())
          ; // the pointer's value, read out of a variable that held it
        else if (Kind == CK_ArrayToPointerDecay)
          Pointer = true; // an array member: a pointer to its elements
        else if (Kind != CK_NoOp && Kind != CK_DerivedToBase && Kind != CK_UncheckedDerivedToBase)
          return false;
      } else if (const auto *Member = dyn_cast<MemberExpr>(Up)) {
        // `.field` of the object, `->field` of the pointer: a reference
        // into the same object.
        // `.data` of `.data()`: the call, next, says.
        if (!isa<FieldDecl, CXXMethodDecl>(Member->getMemberDecl()) || Member->getBase() != E)
          return false;
        Pointer = false;
      } else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(Up)) {
        if (Subscript->getBase() != E)
          return false;
        Pointer = false;
      } else if (const auto *Method = dyn_cast<CXXMemberCallExpr>(Up)) {
        // `.data()`, `.at(0)`, `[0]` of the object: a reference or pointer
        // into it (a value it returns is a copy).
        QualType Result = Method->getCallReturnType(Ctx);
        if (Method->getCallee() != E ||
            !(Result->isReferenceType() || Result->isPointerType()))
          return false;
        Pointer = Result->isPointerType();
      } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Up)) {
        QualType Result = Op->getCallReturnType(Ctx);
        if (Op->getNumArgs() == 0 || Op->getArg(0) != E ||
            !isa_and_nonnull<CXXMethodDecl>(Op->getCalleeDecl()) ||
            !(Result->isReferenceType() || Result->isPointerType()))
          return false;
        Pointer = Result->isPointerType();
      } else if (const auto *Unary = dyn_cast<UnaryOperator>(Up)) {
        if (Unary->getOpcode() == UO_Deref)
          Pointer = false;
        else if (Unary->getOpcode() == UO_AddrOf)
          Pointer = true;
        else
          return false;
      } else if (const auto *Binary = dyn_cast<BinaryOperator>(Up)) {
        // `p + 1` points into the same object; `q = p` stores it.
        if (!Pointer || !(Binary->isAdditiveOp() || Binary->getOpcode() == BO_Assign))
          return false;
        if (Binary->getOpcode() == BO_Assign)
          return Binary->getRHS() == E;
        if (!Binary->getType()->isPointerType())
          return false;
      } else if (!isa<ParenExpr, FullExpr, ConditionalOperator>(Up)) {
        return false;
      }
      E = Up;
    }
    return false;
  }

  /// Walks \p Fn's body (by \p Walk) with it as the function returns
  /// belong to and, once propagating is done, as a frame of its own.
  template <class WalkFn> bool inFunction(const FunctionDecl *Fn, WalkFn Walk) {
    Functions.push_back(Fn);
    if (!Propagating)
      Frames.push_back(frameOf(Fn));
    bool Continue = Walk();
    if (!Propagating)
      Frames.pop_back();
    Functions.pop_back();
    return Continue;
  }

  /// The watched values a written type refers to (`decltype(pb(dy))`).
  std::set<SourceSite> rootsIn(TypeLoc Written) {
    RefScan Scan;
    Scan.TraverseTypeLoc(Written);
    return rootsOfRefs(Scan.Found);
  }

  std::set<SourceSite> rootsOfRefs(llvm::ArrayRef<const Expr *> Refs) {
    std::set<SourceSite> Found;
    for (const Expr *Ref : Refs)
      if (const std::set<SourceSite> *From = rootsOf(Ref))
        Found.insert(From->begin(), From->end());
    return Found;
  }

  /// The watched values the explicit template arguments \p Args refer to
  /// (`show<decltype(g)>()`, `Box<decltype(g)>`).
  std::set<SourceSite> rootsIn(llvm::ArrayRef<TemplateArgumentLoc> Args) {
    RefScan Scan;
    for (const TemplateArgumentLoc &Arg : Args)
      Scan.TraverseTemplateArgumentLoc(Arg);
    return rootsOfRefs(Scan.Found);
  }

  /// The frame of \p Fn: for an instantiation of a template, the watched
  /// values its parameters receive, those its class (or an enclosing one)
  /// is constructed from (`Box{g}.say()`), and those its template
  /// arguments or its class's were written with (`show<decltype(g)>()`).
  std::optional<std::set<SourceSite>> frameOf(const FunctionDecl *Fn) {
    if (!Fn->getTemplateInstantiationPattern())
      return std::nullopt;
    std::set<SourceSite> Found;
    for (const ParmVarDecl *Param : Fn->parameters())
      if (std::optional<SourceSite> Site = siteOf(Param))
        if (auto It = Roots.find(*Site); It != Roots.end())
          Found.insert(It->second.begin(), It->second.end());
    if (auto It = Specialized.find(Fn->getCanonicalDecl()); It != Specialized.end())
      Found.insert(It->second.begin(), It->second.end());
    for (const DeclContext *In = Fn->getDeclContext(); In; In = In->getParent())
      if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(In))
        if (auto It = Specialized.find(Spec->getCanonicalDecl()); It != Specialized.end())
          Found.insert(It->second.begin(), It->second.end());
    return Found;
  }

  /// A constant the function being walked computes from types, with its
  /// value (true: the walk goes on).
  bool found(const Expr *E) {
    std::set<SourceSite> Watched = watchedAt(E);
    if (Watched.empty())
      return true;
    Expr::EvalResult Value;
    if (!E->EvaluateAsRValue(Value, Ctx) || Value.HasSideEffects || !Value.Val.isInt())
      return true;
    const llvm::APSInt &Int = Value.Val.getInt();
    std::string Text = E->getType()->isBooleanType() ? (Int.getBoolValue() ? "true" : "false")
                                                    : llvm::toString(Int, 10);
    observe(E, Watched, Text, Text);
    return true;
  }

  /// The watched values what the function being walked finds out at \p E
  /// depends on (none: it is not kept).
  std::set<SourceSite> watchedAt(const Expr *E) {
    if (Propagating || Frames.empty() || E->isValueDependent() || E->isTypeDependent())
      return {};
    std::set<SourceSite> Watched;
    if (Frames.back())
      Watched = *Frames.back();
    // `sizeof(h)`, `std::is_same_v<decltype(h), std::any>`.
    RefScan Scan;
    Scan.TraverseStmt(const_cast<Expr *>(E));
    std::set<SourceSite> Found = rootsOfRefs(Scan.Found);
    Watched.insert(Found.begin(), Found.end());
    return Watched;
  }

  /// `const std::any &ref = g;`: whether the reference \p Var binds a
  /// watched value itself, or a temporary converted from it (a copy that
  /// no longer sees the value change), kept as an observation.
  void bindsReference(const VarDecl *Var) {
    const Expr *Init = Var->getInit();
    const std::set<SourceSite> *From = rootsOf(Init);
    std::optional<ExprSite> At = From ? exprSiteOf(Init, Map) : std::nullopt;
    if (!At)
      return;
    bool Temporary = bindsTemporary(Init);
    TypeObservation &Observation = Result.Observed[*At];
    Observation.Watched.insert(From->begin(), From->end());
    Observation.Values.emplace(Temporary ? "temporary" : "value",
                               Temporary ? "a temporary converted from the value"
                                         : "the value itself");
    Observation.Text = Var->getName().str();
    Observation.Binding = true;
  }

  /// Keeps what the function being walked found at \p E.
  void observe(const Expr *E, const std::set<SourceSite> &Watched, const std::string &Identity,
               const std::string &Shown) {
    std::optional<ExprSite> At = exprSiteOf(E, Map);
    if (!At)
      return;
    auto [It, New] = Result.Observed.try_emplace(*At);
    TypeObservation &Observation = It->second;
    Observation.Watched.insert(Watched.begin(), Watched.end());
    Observation.Values.emplace(Identity, Shown);
    if (New) {
      const SourceManager &SM = Ctx.getSourceManager();
      Observation.Text = Lexer::getSourceText(
                             CharSourceRange::getTokenRange(SM.getFileLoc(E->getBeginLoc()),
                                                            SM.getFileLoc(E->getEndLoc())),
                             SM, Ctx.getLangOpts())
                             .str();
    }
  }

  /// Whether \p Callee (its first declaration, or its template's) is
  /// visible where \p CallLoc is written in this parse: declared before
  /// it, or a member of a class whose member-specification holds the call
  /// (or of a class nested in one that does). A function body written in
  /// a class is a complete-class context: lookup there sees every member
  /// of the class and of the classes it defines, wherever declared
  /// ([class.mem]). A friend defined in a class belongs to the namespace
  /// and is not such a member: argument-dependent lookup finds it.
  bool declaredBefore(const Decl *Callee, SourceLocation CallLoc) const {
    const NamedDecl *Pattern = Callee ? patternOf(Callee) : nullptr;
    if (!Pattern)
      return false;
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Declared = SM.getFileLoc(Pattern->getLocation()),
                   Called = SM.getFileLoc(CallLoc);
    if (Declared.isInvalid() || Called.isInvalid())
      return false;
    if (SM.isBeforeInTranslationUnit(Declared, Called))
      return true;
    for (const DeclContext *DC = Pattern->getDeclContext(); DC && DC->isRecord();
         DC = DC->getParent()) {
      SourceRange Braces = cast<CXXRecordDecl>(DC)->getBraceRange();
      SourceLocation Open = SM.getFileLoc(Braces.getBegin()), Close = SM.getFileLoc(Braces.getEnd());
      if (Open.isValid() && Close.isValid() && SM.isBeforeInTranslationUnit(Open, Called) &&
          SM.isBeforeInTranslationUnit(Called, Close))
        return true;
    }
    return false;
  }

  /// Adds what a call resolves to (no function: \p Callee is null), with
  /// \p Holds: the types a std::any it constructs or assigns would hold.
  /// Returns its entry in \p Resolution (null: \p Callee has no pattern).
  CallResolution::Callee *addCallee(CallResolution &Resolution, const Decl *Callee,
                                    llvm::StringRef Holds = "") {
    if (!Callee)
      return &Resolution.Callees.emplace("", CallResolution::Callee{"no function", std::nullopt})
                  .first->second;
    const NamedDecl *Pattern = patternOf(Callee);
    if (!Pattern)
      return nullptr;
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
      else // its name shows the signature of the function it is in
        Identity = siteText(Site) + "|lambda";
      Name += "(" + Params + ")";
    }
    return &Resolution.Callees
                .emplace(Identity + Holds.str(), CallResolution::Callee{Name + Holds.str(), Site})
                .first->second;
  }

  const ASTContext &Ctx;
  /// The template specializations (classes, functions) constructed from
  /// watched values or written with template arguments that refer to them.
  std::map<const Decl *, std::set<SourceSite>> Specialized;
  const std::set<SourceSite> &Pinned;
  /// Where the call recorded in PinnedInnermost at each place ends.
  std::map<SourceSite, unsigned> InnermostEnd;
  const std::set<ExprSite> &Typed;
  std::set<SourceSite> TypedBegins;
  SiteMapper Map;
  /// Each watched or derived declaration, with the watched ones it comes from.
  std::map<SourceSite, std::set<SourceSite>> Roots;
  llvm::DenseMap<const Decl *, std::optional<SourceSite>> Sites;
  /// The functions (lambdas' call operators included) being walked,
  /// innermost last.
  std::vector<const FunctionDecl *> Functions;
  /// The functions being walked, innermost last: for an instantiation of
  /// a template, the watched values that reach it (frameOf).
  std::vector<std::optional<std::set<SourceSite>>> Frames;
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

std::string realFileName(llvm::StringRef Name) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Name, Real))
    return Name.str();
  return std::string(Real);
}

std::string portableIdentity(llvm::StringRef Identity, const CallResolution::Callee &Callee,
                             llvm::function_ref<std::string(llvm::sys::fs::UniqueID)> FileName) {
  if (!Callee.Site)
    return Identity.str();
  std::string Prefix = siteText(Callee.Site) + "|";
  if (!Identity.starts_with(Prefix))
    return Identity.str();
  return FileName(Callee.Site->File) + ":" + std::to_string(Callee.Site->Offset) + "|" +
         Identity.drop_front(Prefix.size()).str();
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
