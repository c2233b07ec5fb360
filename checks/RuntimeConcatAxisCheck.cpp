//===--- RuntimeConcatAxisCheck.cpp - gradlint ----------------------------===//
//
// A concatenation whose axis is a runtime value cannot have a result rank
// known to the compiler (Julia's `cat(x, y; dims=3)`), while the library's
// compile-time form can (`dims=Val(3)`). The check finds such calls, works out
// where the axis value comes from (AxisProvenance), looks for the compile-time
// form in the callee's overload set (CompileTimeForm), and rewrites the call
// when the axis text is itself a constant expression at the call. Whether the
// form accepts the rewritten call is the compiler's answer (FixProof): a
// rewrite it rejects for the arguments' sake means there is no form for this
// call; one it rejects otherwise leaves the finding without a fix.
//
//===----------------------------------------------------------------------===//

#include "RuntimeConcatAxisCheck.h"
#include "utils/AxisFlow.h"
#include "utils/CallResolution.h"
#include "utils/CallSites.h"
#include "utils/FixBuilder.h"
#include "utils/Spelling.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::gradlint {
namespace {

constexpr llvm::StringLiteral DefaultFunctionNames =
    "cat;concat;concatenate;hcat;vcat;stack";
constexpr llvm::StringLiteral DefaultAxisParameterNames =
    "axis;dim;dims;ax;dimension";
constexpr llvm::StringLiteral StaticRankMessage =
    "axis passed to %q0 at run time is derived from a static rank; use its "
    "compile-time form";

AST_MATCHER_P(FunctionDecl, concatFunction, const RuntimeConcatAxisCheck *,
              Check) {
  return Check->isConcatFunction(Node);
}

/// Splits `a=b;c=d` style option lists into trimmed (key, value) pairs.
template <typename Callback>
void forEachEntry(llvm::StringRef Option, char Separator, Callback &&CB) {
  llvm::SmallVector<llvm::StringRef, 4> Items;
  Option.split(Items, ';', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef Item : Items) {
    Item = Item.trim();
    if (Item.empty())
      continue;
    auto [Key, Value] = Item.rsplit(Separator);
    CB(Item, Key.trim().ltrim(':'), Value.trim());
  }
}

llvm::StringRef lastComponent(llvm::StringRef QualifiedName) {
  size_t Pos = QualifiedName.rfind("::");
  return Pos == llvm::StringRef::npos ? QualifiedName
                                      : QualifiedName.substr(Pos + 2);
}

/// The declaration to name in diagnostics: the template, not one of its
/// specialisations.
const NamedDecl *diagnosticDecl(const FunctionDecl *FD) {
  if (const FunctionTemplateDecl *Primary = FD->getPrimaryTemplate())
    return Primary;
  return FD;
}

bool isAxisType(QualType T) {
  T = T.getNonReferenceType();
  return T->isIntegralOrEnumerationType() && !T->isBooleanType();
}

/// Whether a callee found as \p Found sees \p Form by the same name: true
/// unless it was found through a using-declaration that does not name
/// the form's templates (they were declared after it) and is not beside
/// them in one namespace or class.
bool usingBringsForm(const NamedDecl *Found, const CompileTimeForm &Form) {
  const auto *Shadow = dyn_cast<UsingShadowDecl>(Found);
  if (!Shadow)
    return true;
  auto IsForm = [&](const NamedDecl *D) {
    const auto *TD = dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl());
    return TD && llvm::any_of(Form.Overloads, [&](const FunctionDecl *F) {
             return F->getDescribedFunctionTemplate() == TD;
           });
  };
  if (llvm::any_of(Shadow->getIntroducer()->shadows(),
                   [&](const UsingShadowDecl *S) { return IsForm(S->getTargetDecl()); }))
    return true;
  // Or the form is declared beside the using-declaration, in the namespace
  // or class that gathers the overloads.
  const DeclContext *Scope = Shadow->getDeclContext()->getRedeclContext();
  return (Scope->isFileContext() || Scope->isRecord()) &&
         llvm::any_of(Scope->lookup(Shadow->getDeclName()), IsForm);
}

/// The function whose body holds \p Call.
const FunctionDecl *enclosingFunction(const CallExpr *Call, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*Call);
  while (!Parents.empty()) {
    if (const auto *FD = Parents[0].get<FunctionDecl>())
      return FD;
    Parents = Ctx.getParents(Parents[0]);
  }
  return nullptr;
}

/// The operand that is never evaluated and holds \p Call, by the keyword
/// that makes it one ("decltype", "sizeof", "typeid", "noexcept",
/// "requires"); empty when the call is evaluated (a call in a lambda inside
/// such an operand is evaluated when the lambda is called).
llvm::StringRef unevaluatedOperand(const CallExpr *Call, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*Call);
  for (unsigned Depth = 0; Depth < 128; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return {};
    const DynTypedNode &Parent = Parents[0];
    if (const auto *Trait = Parent.get<UnaryExprOrTypeTraitExpr>())
      return getTraitSpelling(Trait->getKind());
    if (const auto *Typeid = Parent.get<CXXTypeidExpr>()) {
      if (!Typeid->isPotentiallyEvaluated())
        return "typeid";
    } else if (Parent.get<CXXNoexceptExpr>()) {
      return "noexcept";
    } else if (Parent.get<RequiresExpr>()) {
      return "requires";
    } else if (const auto *Type = Parent.get<TypeLoc>()) {
      if (Type->getAs<DecltypeTypeLoc>())
        return "decltype";
      if (Type->getAs<TypeOfExprTypeLoc>())
        return "typeof";
    } else if (Parent.get<LambdaExpr>() || Parent.get<CompoundStmt>() ||
               Parent.get<FunctionDecl>() || Parent.get<TranslationUnitDecl>()) {
      return {};
    }
    Node = Parent;
  }
  return {};
}

/// Whether \p Call is in code instantiated from a template, where a member
/// template named through a dependent object needs the `template` keyword.
bool isInTemplateInstantiation(const CallExpr *Call, ASTContext &Ctx) {
  const FunctionDecl *FD = enclosingFunction(Call, Ctx);
  return FD && FD->getTemplateInstantiationPattern() != nullptr;
}

/// The callee as written in the template that \p Call, a call in one of
/// its instantiations, was instantiated from (the expression naming it at
/// \p Name): a DeclRefExpr, a DependentScopeDeclRefExpr or an
/// UnresolvedLookupExpr. Null outside instantiations, or where the pattern
/// has no body or no such expression.
const Expr *writtenCallee(SourceLocation Name, const CallExpr *Call, ASTContext &Ctx) {
  const FunctionDecl *FD = enclosingFunction(Call, Ctx);
  const FunctionDecl *Pattern = FD ? FD->getTemplateInstantiationPattern() : nullptr;
  if (!Pattern || !Pattern->getBody())
    return nullptr;
  struct Finder : RecursiveASTVisitor<Finder> {
    SourceLocation Name;
    const Expr *Found = nullptr;
    bool at(const Expr *E, const DeclarationNameInfo &Info) {
      if (Info.getLoc() == Name)
        Found = E;
      return !Found;
    }
    bool VisitDependentScopeDeclRefExpr(DependentScopeDeclRefExpr *E) {
      return at(E, E->getNameInfo());
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) { return at(E, E->getNameInfo()); }
    bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *E) {
      return at(E, E->getNameInfo());
    }
  } Find;
  Find.Name = Name;
  Find.TraverseStmt(Pattern->getBody());
  return Find.Found;
}

/// Whether \p Ref names \p Callee, a static member, through a class that
/// is dependent where the template around the call is written (`B::cat`
/// with a template parameter B, `B::Ops::cat`), so that a template argument
/// list after the name needs the `template` keyword and a member template
/// named through it `typename`. False outside code instantiated from a
/// template; where the written call cannot be found, true: the keywords
/// are valid either way.
bool namedThroughDependentClass(const DeclRefExpr *Ref, const FunctionDecl *Callee,
                                const CallExpr *Call, ASTContext &Ctx) {
  if (!Ref->hasQualifier() || !isInTemplateInstantiation(Call, Ctx) ||
      !isa<CXXMethodDecl>(Callee))
    return false;
  const Expr *Written = writtenCallee(Ref->getNameInfo().getLoc(), Call, Ctx);
  return !Written || isa<DependentScopeDeclRefExpr>(Written);
}

/// Whether unqualified lookup of \p Target's name from inside \p From
/// would stop at another declaration first: a scope around the call (the
/// function, its classes, its namespaces) that declares the name without
/// declaring \p Target.
bool nameHiddenAt(const NamedDecl *Target, const FunctionDecl *From) {
  const Decl *Wanted = Target->getCanonicalDecl();
  for (const DeclContext *DC = From; DC; DC = DC->getParent()) {
    llvm::SmallVector<const NamedDecl *, 4> Found;
    if (isa<FunctionDecl>(DC)) {
      // Block-scope declarations (a local struct of that name).
      for (const Decl *D : DC->decls())
        if (const auto *ND = dyn_cast<NamedDecl>(D);
            ND && ND->getDeclName() == Target->getDeclName())
          Found.push_back(ND);
    } else {
      for (const NamedDecl *ND : DC->lookup(Target->getDeclName()))
        Found.push_back(ND);
    }
    if (Found.empty())
      continue;
    return llvm::none_of(Found, [&](const NamedDecl *ND) {
      return ND->getUnderlyingDecl()->getCanonicalDecl() == Wanted;
    });
  }
  return false;
}

/// Whether every overload of the template-argument form is a friend
/// declared only in its class (a hidden friend): ordinary lookup, qualified
/// or not, never finds it.
bool isHiddenFriendForm(const CompileTimeForm &Form) {
  return Form.Kind == CompileTimeForm::TemplateArgument && !Form.Overloads.empty() &&
         llvm::all_of(Form.Overloads, [](const FunctionDecl *F) {
           const FunctionTemplateDecl *TD = F->getDescribedFunctionTemplate();
           return TD && llvm::none_of(TD->redecls(), [](const RedeclarableTemplateDecl *D) {
                    return D->isInIdentifierNamespace(Decl::IDNS_Ordinary);
                  });
         });
}

/// Whether \p Call is in the body of one of the form's own overloads (or a
/// lambda or local class in one): a compile-time form implemented by the
/// run-time one, which the fix would make call itself.
bool isInsideForm(const CallExpr *Call, const CompileTimeForm &Form,
                  ASTContext &Ctx) {
  // The declaration as written: a member template of a class template is
  // instantiated twice over (`Tensor<float, 2>::cat<1>` from
  // `Tensor<float, 2>::cat<Dim>` from `Tensor<T, R>::cat<Dim>`), and the
  // form's overloads are the class instantiation's.
  auto Written = [](const FunctionDecl *FD) {
    // A member template's own declaration links to the one it was
    // instantiated from through its template.
    if (const FunctionTemplateDecl *TD = FD->getDescribedFunctionTemplate()) {
      for (unsigned Depth = 0; Depth < 8 && TD->getInstantiatedFromMemberTemplate(); ++Depth)
        TD = TD->getInstantiatedFromMemberTemplate();
      FD = TD->getTemplatedDecl();
    }
    for (unsigned Depth = 0; Depth < 8; ++Depth) {
      const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
      if (!Pattern || Pattern == FD)
        break;
      FD = Pattern;
    }
    return FD->getCanonicalDecl();
  };
  const DeclContext *DC = enclosingFunction(Call, Ctx);
  for (; DC; DC = DC->getParent()) {
    const auto *FD = dyn_cast<FunctionDecl>(DC);
    if (!FD)
      continue;
    if (llvm::any_of(Form.Overloads, [&](const FunctionDecl *Overload) {
          return Written(Overload) == Written(FD);
        }))
      return true;
  }
  return false;
}

/// Whether \p Loc is where one of the form's overloads is declared (where
/// the compiler's notes on candidates point).
bool isFormOverload(SourceLocation Loc, const CompileTimeForm &Form,
                    const SourceManager &SM) {
  return llvm::any_of(Form.Overloads, [&](const FunctionDecl *FD) {
    return SM.getFileLoc(FD->getLocation()) == Loc;
  });
}

/// The compiler's notes on a candidate that does not take the arguments'
/// types or number, whatever the template arguments.
bool isArgumentMismatch(unsigned ID) {
  switch (ID) {
  case diag::note_ovl_candidate_arity:
  case diag::note_ovl_candidate_arity_one:
  case diag::note_ovl_candidate_bad_conv:
  case diag::note_ovl_candidate_bad_conv_incomplete:
  case diag::note_ovl_candidate_bad_cvr:
  case diag::note_ovl_candidate_bad_base_to_derived_conv:
  case diag::note_ovl_candidate_bad_deduction:
  case diag::note_ovl_candidate_bad_list_argument:
  case diag::note_ovl_candidate_bad_value_category:
  case diag::note_ovl_candidate_deduced_mismatch:
  case diag::note_ovl_candidate_inconsistent_deduction:
  case diag::note_ovl_candidate_inconsistent_deduction_types:
  case diag::note_ovl_candidate_incomplete_deduction:
  case diag::note_ovl_candidate_incomplete_deduction_pack:
  case diag::note_ovl_candidate_non_deduced_mismatch:
  case diag::note_ovl_candidate_non_deduced_mismatch_qualified:
    return true;
  default:
    return false;
  }
}

} // namespace

RuntimeConcatAxisCheck::RuntimeConcatAxisCheck(StringRef Name,
                                               ClangTidyContext *Context)
    : GradlintCheck(Name, Context),
      FunctionNamesOption(Options.get("FunctionNames", DefaultFunctionNames)),
      AxisParameterNamesOption(
          Options.get("AxisParameterNames", DefaultAxisParameterNames)),
      AxisArgumentsOption(Options.get("AxisArguments", "")),
      CompileTimeFormsOption(Options.get("CompileTimeForms", "")),
      FlagWithoutCompileTimeForm(
          Options.get("FlagWithoutCompileTimeForm", false)),
      MaxCallSiteNotes(Options.get("MaxCallSiteNotes", 8U)),
      RewriteSignaturesOption(Options.get("RewriteSignatures", "internal")),
      Sink(FlowSink::find(Context)) {
  parseOptions();
}

void RuntimeConcatAxisCheck::parseOptions() {
  FunctionNames = namePatternOption("FunctionNames", FunctionNamesOption);
  AxisParameterNames =
      namePatternOption("AxisParameterNames", AxisParameterNamesOption);
  if (RewriteSignaturesOption == "none")
    RewriteSignatures = SignatureRewrites::None;
  else if (RewriteSignaturesOption == "all")
    RewriteSignatures = SignatureRewrites::All;
  else if (RewriteSignaturesOption != "internal")
    configurationDiag("invalid RewriteSignatures '%0' for %1: expected "
                      "'none', 'internal' or 'all'")
        << RewriteSignaturesOption << getID();
  std::string Error;
  if (!AxisArguments.parse(AxisArgumentsOption, Error))
    configurationDiag("invalid AxisArguments entry for %0: %1")
        << getID() << Error;
  forEachEntry(
      CompileTimeFormsOption, '=',
      [&](StringRef Item, StringRef Function, StringRef Form) {
        auto [Kind, Target] = Form.split(':');
        Target = Target.trim();
        std::optional<CompileTimeForm::FormKind> K;
        if (Kind.trim() == "template")
          K = CompileTimeForm::TemplateArgument;
        else if (Kind.trim() == "tag")
          K = CompileTimeForm::AxisTag;
        if (Function.empty() || !K || Target.empty()) {
          configurationDiag("invalid CompileTimeForms entry '%0' for %1: "
                            "expected 'qualified::name=template:name' or "
                            "'qualified::name=tag:TagTemplate'")
              << Item << getID();
          return;
        }
        CompileTimeForms[Function] = {*K, Target.str()};
        ConfiguredShortNames.insert(lastComponent(Function));
      });
}

void RuntimeConcatAxisCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "FunctionNames", FunctionNamesOption);
  Options.store(Opts, "AxisParameterNames", AxisParameterNamesOption);
  Options.store(Opts, "AxisArguments", AxisArgumentsOption);
  Options.store(Opts, "CompileTimeForms", CompileTimeFormsOption);
  Options.store(Opts, "FlagWithoutCompileTimeForm", FlagWithoutCompileTimeForm);
  Options.store(Opts, "MaxCallSiteNotes", MaxCallSiteNotes);
  Options.store(Opts, "RewriteSignatures", RewriteSignaturesOption);
}

bool RuntimeConcatAxisCheck::isConcatFunction(const FunctionDecl &FD) const {
  const IdentifierInfo *II = FD.getIdentifier();
  if (!II)
    return false;
  return FunctionNames.matches(II->getName()) ||
         AxisArguments.mayMatch(II->getName()) ||
         ConfiguredShortNames.contains(II->getName());
}

void RuntimeConcatAxisCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader()),
               unless(cxxOperatorCallExpr()),
               callee(functionDecl(concatFunction(this)).bind("callee")))
          .bind("call"),
      this);
  // The gradlint command records every translation unit's calls, even one
  // without a concatenation (see finishTranslationUnit).
  if (Sink)
    Finder->addMatcher(translationUnitDecl().bind("unit"), this);
}

std::optional<unsigned>
RuntimeConcatAxisCheck::axisIndex(const FunctionDecl &FD,
                                  llvm::StringRef QualifiedName) const {
  llvm::ArrayRef<unsigned> Configured = AxisArguments.indicesFor(QualifiedName);
  if (!Configured.empty())
    return Configured.front();
  for (const ParmVarDecl *P : FD.parameters())
    if (const IdentifierInfo *II = P->getIdentifier())
      if (AxisParameterNames.matches(II->getName()) && isAxisType(P->getType()))
        return P->getFunctionScopeIndex();
  return std::nullopt;
}

std::optional<CompileTimeForm>
RuntimeConcatAxisCheck::configuredForm(llvm::StringRef QualifiedName) const {
  auto It = CompileTimeForms.find(QualifiedName);
  if (It == CompileTimeForms.end())
    return std::nullopt;
  CompileTimeForm Form;
  Form.Kind = It->second.Kind;
  Form.ConfiguredName = It->second.Name;
  return Form;
}

std::string RuntimeConcatAxisCheck::configuredName(const FunctionDecl &FD) const {
  if (AxisArguments.empty() && CompileTimeForms.empty())
    return "";
  return optionName(diagnosticDecl(&FD));
}

std::optional<CompileTimeForm>
RuntimeConcatAxisCheck::formFor(const FunctionDecl *FD, llvm::StringRef QualifiedName,
                                unsigned Index, const NamedDecl *Found) {
  if (std::optional<CompileTimeForm> Configured = configuredForm(QualifiedName))
    return Configured;
  return Forms.find(FD, Index, Found);
}

bool RuntimeConcatAxisCheck::isRuntimeFormAxis(const ParmVarDecl *Param) {
  const auto *Fn = dyn_cast<FunctionDecl>(Param->getDeclContext());
  if (!Fn || !isConcatFunction(*Fn))
    return false;
  std::string QualifiedName = configuredName(*Fn);
  std::optional<unsigned> Index = axisIndex(*Fn, QualifiedName);
  return Index && *Index == Param->getFunctionScopeIndex() &&
         formFor(Fn, QualifiedName, *Index);
}

void RuntimeConcatAxisCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  Matched = &Ctx;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  const auto *Callee = Result.Nodes.getNodeAs<FunctionDecl>("callee");
  if (!Call)
    return;

  std::string QualifiedName = configuredName(*Callee);
  std::optional<unsigned> Index = axisIndex(*Callee, QualifiedName);
  if (!Index)
    return;

  llvm::SmallVector<const Expr *, 8> Args;
  for (const Expr *Arg : Call->arguments())
    if (!isa<CXXDefaultArgExpr>(Arg))
      Args.push_back(Arg);
  if (*Index >= Args.size())
    return;
  const Expr *Axis = Args[*Index];
  if (!isAxisType(Axis->getType()))
    return;

  const NamedDecl *Found = nullptr;
  const Expr *CalleeExpr = Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *ME = dyn_cast<MemberExpr>(CalleeExpr))
    Found = ME->getFoundDecl().getDecl();
  else if (const auto *DRE = dyn_cast<DeclRefExpr>(CalleeExpr))
    Found = DRE->getFoundDecl();
  std::optional<CompileTimeForm> Form = formFor(Callee, QualifiedName, *Index, Found);
  if (!Form && !FlagWithoutCompileTimeForm)
    return;
  if (Form && isInsideForm(Call, *Form, Ctx))
    return;
  // A call in a template is matched once per instantiation; report it once.
  // The fix, written for the first, is resolved in every instantiation
  // when it is proved: each may call its own compile-time form (`B::cat`
  // for two backends B).
  const auto *CalleeRef = dyn_cast<DeclRefExpr>(CalleeExpr);
  bool AdlBeforeCxx20 = CalleeRef && !CalleeRef->hasQualifier() && Call->usesADL() &&
                        !getLangOpts().CPlusPlus20;
  if (auto Seen = Reported.find(Axis->getBeginLoc()); Seen != Reported.end()) {
    if (Form) {
      expectAlso({Call, std::vector<const Decl *>(Form->Overloads.begin(), Form->Overloads.end())});
      if (AdlBeforeCxx20 && Form->Declaration != Seen->second.Form)
        *Seen->second.FoundPerInstantiation = true;
    }
    return;
  }
  auto FoundPerInstantiation = std::make_shared<bool>(false);
  Reported[Axis->getBeginLoc()] = {Form ? Form->Declaration : nullptr, FoundPerInstantiation};

  const NamedDecl *Named = diagnosticDecl(Callee);
  if (!Form) {
    diag(Axis->getBeginLoc(),
         "%q0 takes its axis at run time and has no compile-time axis form")
        << Named << Axis->getSourceRange();
    return;
  }

  Finding F{Axis, Named, classifyAxis(Axis, Ctx), *Form};
  F.FoundPerInstantiation = FoundPerInstantiation;
  F.HiddenFriendBeforeCxx20 = AdlBeforeCxx20 && isHiddenFriendForm(*Form);
  // The run-time form's parameter may convert the axis to another value
  // (`-1` to an `unsigned`); a template argument is converted without
  // narrowing, so the text as written would give the compile-time form
  // the written value, or not compile.
  if (F.Provenance.Value) {
    const Expr *AsWritten = Axis->IgnoreParenImpCasts();
    if (std::optional<llvm::APSInt> Written = evaluateAxis(AsWritten, Ctx)) {
      if (!llvm::APSInt::isSameValue(*Written, *F.Provenance.Value))
        F.ConvertedFrom = Written;
      // Where a constant is required the same text may compute another value.
      F.AsTemplateArgument = valueAsTemplateArgument(AsWritten, *Written, Ctx);
    }
  }
  // The call rewritten to the compile-time form is the fix for a constant
  // axis; for any other axis it is only a question to the compiler (axis 0):
  // does the form take these arguments at all?
  FixBuilder Fixes(Ctx);
  std::optional<CharSourceRange> AxisRange = Fixes.fileRange(Axis->getSourceRange());
  std::string AxisText =
      F.fixable() && AxisRange ? Fixes.text(*AxisRange).str() : std::string("0");
  std::vector<FixItHint> Rewrite =
      rewriteCall(Call, Callee, *Form, Args, *Index, AxisText, Ctx);
  // A run-time form implemented by another (`concat(parts, axis)` calling
  // `t.cat(o, int(axis))`) passes on the axis its callers give it at run
  // time: that is what it is for, and its compile-time form is the fix.
  if (F.Provenance.Origin == AxisOrigin::Parameter && isRuntimeFormAxis(F.Provenance.Param))
    return;
  if (F.Provenance.Origin == AxisOrigin::Parameter &&
      isa<FunctionDecl>(F.Provenance.Param->getDeclContext())) {
    // Once the parameter is a template parameter of the same name, the
    // axis as written is a constant expression.
    std::vector<FixItHint> WithParameter;
    if (AxisRange)
      WithParameter = rewriteCall(Call, Callee, *Form, Args, *Index,
                                  Fixes.text(*AxisRange), Ctx);
    ParameterFindings.push_back(
        {F, std::move(WithParameter), questionFor(Call, Rewrite, Ctx), Call});
    return;
  }
  if (F.fixable() && AdlBeforeCxx20)
    F.UsingDeclarationFix =
        usingDeclarationRewrite(Call, Callee, *Form, Args, *Index, AxisText, Ctx);
  auto Emit = [this, F, &Ctx](llvm::ArrayRef<FixItHint> Proved,
                              const ProofOutcome &Proof) {
    emit(F, Proved, Proof, Ctx);
  };
  if (F.fixable()) {
    // The rewritten call must call the form's overloads, nothing else. If
    // the names as the user spelled them find something else (a user's
    // `cat` template, a name that hides the tag), the form's qualified
    // names are tried.
    std::vector<FixItHint> Qualified =
        rewriteCall(Call, Callee, *Form, Args, *Index, AxisText, Ctx, /*Qualify=*/true);
    std::vector<std::vector<FixItHint>> Fallbacks;
    if (!sameEdits(Qualified, Rewrite))
      Fallbacks.push_back(std::move(Qualified));
    if (!F.UsingDeclarationFix.empty())
      Fallbacks.push_back(F.UsingDeclarationFix);
    FixClaims Claims;
    Claims.Calls.push_back(
        {Call, std::vector<const Decl *>(Form->Overloads.begin(), Form->Overloads.end())});
    // Where the call is never evaluated, its type is all the program uses
    // (`decltype(cat(x, y, 1))`, `sizeof`): the form must give the same.
    if (llvm::StringRef Operand = unevaluatedOperand(Call, Ctx); !Operand.empty())
      Claims.Types.push_back({Call, Call->getType(), Operand});
    report(Ctx, std::move(Rewrite), Emit, Claims, std::move(Fallbacks));
  }
  else if (F.Provenance.movable())
    report(Ctx, {}, Emit); // a hidden friend before C++20, a converted axis: nothing to ask
  else
    ask(Ctx, questionFor(Call, Rewrite, Ctx), Emit);
}

/// The statement, directly in a block, that holds \p S.
static const Stmt *enclosingStatement(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*S);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    const DynTypedNode &Parent = Parents[0];
    if (Parent.get<CompoundStmt>())
      return Node.get<Stmt>();
    const auto *Var = Parent.get<VarDecl>();
    if (!Parent.get<Stmt>() && !(Var && Var->isLocalVarDecl()))
      return nullptr;
    Node = Parent;
  }
  return nullptr;
}

/// The text of \p Outer with \p Edits, which must all lie inside it, made.
static std::optional<std::string>
editedText(CharSourceRange Outer, llvm::ArrayRef<FixItHint> Edits,
           const SourceManager &SM, const LangOptions &LO) {
  std::string Text = Lexer::getSourceText(Outer, SM, LO).str();
  unsigned Base = SM.getFileOffset(Outer.getBegin());
  std::vector<std::tuple<unsigned, unsigned, std::string>> Spans;
  for (const FixItHint &Edit : Edits) {
    CharSourceRange R = Lexer::makeFileCharRange(Edit.RemoveRange, SM, LO);
    if (R.isInvalid() || SM.getFileID(R.getBegin()) != SM.getFileID(Outer.getBegin()))
      return std::nullopt;
    unsigned Begin = SM.getFileOffset(R.getBegin()), End = SM.getFileOffset(R.getEnd());
    if (Begin < Base || End < Begin || End - Base > Text.size())
      return std::nullopt;
    Spans.emplace_back(Begin - Base, End - Base, Edit.CodeToInsert);
  }
  llvm::sort(Spans, [](const auto &A, const auto &B) {
    return std::get<0>(A) > std::get<0>(B);
  });
  for (const auto &[Begin, End, Code] : Spans)
    Text.replace(Begin, End - Begin, Code);
  return Text;
}

std::vector<FixItHint>
RuntimeConcatAxisCheck::questionFor(const CallExpr *Call,
                                    llvm::ArrayRef<FixItHint> Rewrite,
                                    ASTContext &Ctx) const {
  // `using gradlint_question_N = decltype(cat<0>(x, y));` before the
  // statement: the same lookup, deduction and overload resolution as the
  // rewritten call, in a declaration nothing uses.
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *Statement = Rewrite.empty() ? nullptr : enclosingStatement(Call, Ctx);
  if (!Statement || !Statement->getBeginLoc().isFileID())
    return {};
  CharSourceRange CallRange = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Call->getSourceRange()), SM, getLangOpts());
  if (CallRange.isInvalid())
    return {};
  std::optional<std::string> Text = editedText(CallRange, Rewrite, SM, getLangOpts());
  if (!Text)
    return {};
  return {FixItHint::CreateInsertion(
      Statement->getBeginLoc(),
      "using gradlint_question_" +
          std::to_string(SM.getFileOffset(CallRange.getBegin())) +
          " = decltype(" + *Text + "); ")};
}

std::vector<FixItHint> RuntimeConcatAxisCheck::rewriteCall(
    const CallExpr *Call, const FunctionDecl *Callee, const CompileTimeForm &Form,
    llvm::ArrayRef<const Expr *> Args, unsigned Index, llvm::StringRef AxisText,
    ASTContext &Ctx, bool Qualify) const {
  const Expr *Axis = Args[Index];
  FixBuilder Fixes(Ctx);
  std::optional<CharSourceRange> AxisRange =
      Fixes.fileRange(Axis->getSourceRange());
  const Expr *CalleeExpr = Call->getCallee()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(CalleeExpr);
  const auto *Member = dyn_cast<MemberExpr>(CalleeExpr);
  if (!AxisRange || !(Ref || Member))
    return {};
  const NamedDecl *Named = diagnosticDecl(Callee);
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = getLangOpts();
  std::vector<FixItHint> Hints;
  if (Form.Kind == CompileTimeForm::TemplateArgument) {
    bool HasTemplateArgs =
        Ref ? Ref->hasExplicitTemplateArgs() : Member->hasExplicitTemplateArgs();
    SourceLocation NameBegin = Ref ? Ref->getBeginLoc() : Member->getMemberLoc();
    SourceLocation NameEnd = Ref ? Ref->getNameInfo().getEndLoc()
                                 : Member->getMemberNameInfo().getEndLoc();
    std::optional<CharSourceRange> Removal = Fixes.argumentRemoval(Args, Index);
    if (HasTemplateArgs || !Removal || !NameBegin.isFileID() ||
        !NameEnd.isFileID())
      return {};
    // Keep the callee as the user spelled it, except where the compile-time
    // form would not be found that way: a configured function of another
    // name, or (before C++20) an unqualified call that only argument-
    // dependent lookup resolved.
    // Likewise a name found through a using-declaration that does not
    // bring the compile-time form (a facade written before the form was
    // declared): the form's own namespace names it.
    std::string Name;
    // A configured form in the callee's own scope (`lib::Tensor::Ops::glue`
    // and `glue_static`) is named the way the user named the callee: its
    // qualifier as written may carry template arguments that the
    // configured name has not (`lib::Tensor<float, 2>::Ops::`).
    llvm::StringRef ConfiguredScope = Form.ConfiguredName;
    ConfiguredScope.consume_back(lastComponent(Form.ConfiguredName));
    // (An unqualified call of a free function keeps the full name: it may
    // have been found by argument-dependent lookup.)
    std::string CalleeName = optionName(Named);
    bool SameScope =
        !Form.ConfiguredName.empty() && Ref &&
        (Ref->hasQualifier() || isa<CXXMethodDecl>(Callee)) &&
        llvm::StringRef(CalleeName).drop_back(lastComponent(CalleeName).size()) ==
            ConfiguredScope;
    if (SameScope)
      NameBegin = Ref->getNameInfo().getBeginLoc();
    if (!Form.ConfiguredName.empty())
      Name = Member || SameScope ? lastComponent(Form.ConfiguredName).str()
                                 : Form.ConfiguredName;
    else if (Ref && !Ref->hasQualifier() && Call->usesADL() && !LO.CPlusPlus20)
      Name = qualifiedSpelling(Named);
    else if (Ref && !usingBringsForm(Ref->getFoundDecl(), Form))
      Name = qualifiedSpelling(Named);
    else if (Ref && !Ref->hasQualifier() && Qualify)
      Name = qualifiedSpelling(Named);
    std::string TemplateArgs = "<" + templateArgumentText(Axis, AxisText, Ctx) + ">";
    // (An implicit `this->` member was found where the template is
    // defined, so its name is known to be a template there.)
    // Likewise a static member named through a class, which may be a
    // template parameter there (`B::cat(x, x, 1)` -> `B::template cat<1>`).
    // (The user's qualifier stays only where no name is written, or where
    // the name alone is replaced: the keyword then goes before the name.)
    bool KeptQualifier = Ref && (Name.empty() || SameScope);
    llvm::StringRef Keyword =
        (Member && !Member->isImplicitAccess() && isInTemplateInstantiation(Call, Ctx)) ||
                (KeptQualifier && namedThroughDependentClass(Ref, Callee, Call, Ctx))
            ? "template "
            : "";
    if (Name.empty()) {
      if (!Keyword.empty())
        Hints.push_back(FixItHint::CreateInsertion(
            Ref ? Ref->getNameInfo().getBeginLoc() : NameBegin, Keyword));
      Hints.push_back(FixItHint::CreateInsertion(
          Lexer::getLocForEndOfToken(NameEnd, 0, SM, LO), TemplateArgs));
    } else {
      Hints.push_back(FixItHint::CreateReplacement(
          CharSourceRange::getTokenRange(NameBegin, NameEnd),
          Keyword.str() + Name + TemplateArgs));
    }
    Hints.push_back(FixItHint::CreateRemoval(*Removal));
    return Hints;
  }
  std::string Tag;
  if (!Form.ConfiguredName.empty()) {
    Tag = Form.ConfiguredName;
  } else {
    const DeclContext *TagScope = Form.Tag->getDeclContext()->getRedeclContext();
    bool SameScope =
        TagScope->Equals(Callee->getDeclContext()->getRedeclContext());
    if (Ref && SameScope && Ref->hasQualifier() && !Qualify) {
      // `rc::cat(...)` -> `rc::Axis<3>{}`: reuse the user's qualifier. A
      // qualifier that is dependent where the template is written (`B::cat`
      // with a template parameter B) names the tag as a dependent type:
      // `typename B::template Axis<3>{}`, right for every instantiation.
      std::optional<CharSourceRange> Qualifier =
          Fixes.fileRange(Ref->getQualifierLoc().getSourceRange());
      Tag = !Qualifier ? qualifiedSpelling(Form.Tag)
            : namedThroughDependentClass(Ref, Callee, Call, Ctx)
                ? ("typename " + Fixes.text(*Qualifier) + "template " + Form.Tag->getName()).str()
                : (Fixes.text(*Qualifier) + Form.Tag->getName()).str();
    } else if (Ref && SameScope && !Call->usesADL() && !Qualify &&
               !isa<UsingShadowDecl>(Ref->getFoundDecl()) &&
               !nameHiddenAt(Form.Tag, enclosingFunction(Call, Ctx))) {
      // Found by ordinary unqualified lookup, not through a using-
      // declaration: the tag's name is visible the same way, unless a
      // declaration of the same name in a scope nearer the call hides it.
      Tag = Form.Tag->getName().str();
    } else {
      Tag = qualifiedSpelling(Form.Tag);
    }
  }
  Hints.push_back(FixItHint::CreateReplacement(
      *AxisRange, Tag + "<" + Form.TagArgsBefore +
                      templateArgumentText(Axis, AxisText, Ctx) + Form.TagArgsAfter +
                      ">{}"));
  return Hints;
}

std::vector<FixItHint> RuntimeConcatAxisCheck::usingDeclarationRewrite(
    const CallExpr *Call, const FunctionDecl *Callee, const CompileTimeForm &Form,
    llvm::ArrayRef<const Expr *> Args, unsigned Index, llvm::StringRef AxisText,
    ASTContext &Ctx) const {
  const auto *Ref = dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts());
  if (getLangOpts().CPlusPlus20 || Form.Kind != CompileTimeForm::TemplateArgument ||
      !Form.ConfiguredName.empty() || !Ref || Ref->hasQualifier() ||
      Ref->hasExplicitTemplateArgs() || !Call->usesADL())
    return {};
  const NamedDecl *Named = diagnosticDecl(Callee);
  if (!Named->getDeclContext()->getRedeclContext()->isFileContext())
    return {};
  // What ordinary lookup finds where the call is written: in a template,
  // the names its unresolved lookup kept. Outside a template clang keeps
  // no record of what ordinary lookup found besides the callee (no fix;
  // the qualified one serves there).
  const auto *Written =
      dyn_cast_or_null<UnresolvedLookupExpr>(writtenCallee(Ref->getNameInfo().getLoc(), Call, Ctx));
  if (!Written)
    return {};
  bool FindsTemplate = false;
  for (const NamedDecl *D : Written->decls()) {
    if (!isa<FunctionTemplateDecl>(D->getUnderlyingDecl()))
      return {};
    FindsTemplate = true;
  }
  FixBuilder Fixes(Ctx);
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation NameEnd = Ref->getNameInfo().getEndLoc();
  std::optional<CharSourceRange> Removal = Fixes.argumentRemoval(Args, Index);
  const Stmt *Statement = enclosingStatement(Call, Ctx);
  if (!Removal || !NameEnd.isFileID() || !Statement || !Statement->getBeginLoc().isFileID())
    return {};
  std::vector<FixItHint> Hints;
  if (!FindsTemplate) {
    // On a line of its own where the statement begins its line.
    SourceLocation Begin = Statement->getBeginLoc();
    llvm::StringRef Indent = Lexer::getIndentationForLine(Begin, SM);
    bool OwnLine = SM.getSpellingColumnNumber(Begin) == Indent.size() + 1;
    Hints.push_back(FixItHint::CreateInsertion(
        Begin, "using " + qualifiedSpelling(Named) + ";" +
                   (OwnLine ? "\n" + Indent.str() : std::string(" "))));
  }
  Hints.push_back(FixItHint::CreateInsertion(
      Lexer::getLocForEndOfToken(NameEnd, 0, SM, getLangOpts()),
      "<" + templateArgumentText(Args[Index], AxisText, Ctx) + ">"));
  Hints.push_back(FixItHint::CreateRemoval(*Removal));
  return Hints;
}

/// Whether the compiler rejected the rewritten call because the compile-
/// time form does not take these arguments, whatever the axis: every note
/// on one of its overloads says deduction or conversion failed.
static bool formRejectsArguments(const ProofOutcome &Proof,
                                 const CompileTimeForm &Form,
                                 const SourceManager &SM) {
  bool Rejected = false;
  for (const ProofDiagnostic &D : Proof.Error) {
    if (D.Level != DiagnosticsEngine::Note || D.Loc.isInvalid() ||
        !isFormOverload(D.Loc, Form, SM))
      continue;
    if (!isArgumentMismatch(D.ID))
      return false;
    Rejected = true;
  }
  return Rejected;
}

bool RuntimeConcatAxisCheck::noFormForArguments(const Finding &F,
                                                const ProofOutcome &Proof,
                                                const SourceManager &SM) {
  if (!Proof.withdrawn() || !formRejectsArguments(Proof, F.Form, SM))
    return false;
  if (FlagWithoutCompileTimeForm)
    diag(F.Axis->getBeginLoc(), "%q0 takes its axis at run time and has no "
                                "compile-time axis form for these arguments")
        << F.Callee << F.Axis->getSourceRange();
  return true;
}

void RuntimeConcatAxisCheck::emit(const Finding &F,
                                  llvm::ArrayRef<FixItHint> Proved,
                                  const ProofOutcome &Proof, ASTContext &Ctx) {
  const Expr *Axis = F.Axis;
  const SourceManager &SM = Ctx.getSourceManager();
  // Before C++20, an unqualified call that finds another namespace's form
  // in each instantiation: the fix names the first one's, which the others
  // do not take, but each instantiation has a form of its own.
  // Only the using-declaration names every instantiation's form (the
  // proof checks that each rewritten call calls one of them).
  bool PerInstantiation = F.FoundPerInstantiation && *F.FoundPerInstantiation;
  if (PerInstantiation) {
    if (!sameEdits(Proved, F.UsingDeclarationFix))
      Proved = {};
  } else if (noFormForArguments(F, Proof, SM))
    return;
  const NamedDecl *FormDecl = F.Form.Declaration;
  switch (F.Provenance.Origin) {
  case AxisOrigin::Parameter: // see reportParameterFindings
    return;
  case AxisOrigin::Runtime:
    diag(Axis->getBeginLoc(), "axis passed to %q0 is a runtime value, so the "
                              "rank of the result is only known at run time")
        << F.Callee << Axis->getSourceRange();
    diag(Axis->getBeginLoc(),
         "if the axis takes few values, switch on it and call the "
         "compile-time form in each case",
         DiagnosticIDs::Note);
    if (FormDecl)
      diag(FormDecl->getLocation(), "compile-time form declared here",
           DiagnosticIDs::Note);
    return;
  case AxisOrigin::Constant:
  case AxisOrigin::StaticRank:
    break;
  }
  if (!F.Provenance.movable()) {
    // `y.rank() - 1` with `y` a reference parameter: static, but not a
    // constant expression as written, so it cannot simply move.
    diag(Axis->getBeginLoc(), StaticRankMessage)
        << F.Callee << Axis->getSourceRange();
    if (F.Provenance.Param)
      diag(Axis->getBeginLoc(),
           "the rank is named through %0, which is not usable in a constant "
           "expression; name it through the type to use the compile-time form",
           DiagnosticIDs::Note)
          << F.Provenance.Param;
    return;
  }
  {
    DiagnosticBuilder D =
        F.Provenance.Origin == AxisOrigin::Constant
            ? diag(Axis->getBeginLoc(), "constant axis %0 passed to %q1 at run "
                                        "time; use its compile-time form")
                  << toString(*F.Provenance.Value, 10) << F.Callee
            : diag(Axis->getBeginLoc(), StaticRankMessage) << F.Callee;
    D << Axis->getSourceRange() << Proved;
  }
  if (F.HiddenFriendBeforeCxx20)
    diag(Axis->getBeginLoc(),
         "no fix before C++20: the compile-time form is a hidden friend, which "
         "only argument-dependent lookup finds, and before C++20 '%0<...>(...)' "
         "does not look it up that way",
         DiagnosticIDs::Note)
        << F.Callee->getName();
  if (PerInstantiation && Proved.empty()) {
    diag(Axis->getBeginLoc(),
         "no fix before C++20: in each instantiation argument-dependent lookup "
         "finds '%0' in another namespace, and before C++20 '%0<...>(...)' does "
         "not look it up that way; no one qualified name names every "
         "instantiation's compile-time form",
         DiagnosticIDs::Note)
        << F.Callee->getName();
    return;
  }
  if (F.ConvertedFrom)
    diag(Axis->getBeginLoc(),
         "no fix: the run-time form's parameter converts the axis as written, "
         "%0, to %1; moved into the compile-time form it would stay %0",
         DiagnosticIDs::Note)
        << toString(*F.ConvertedFrom, 10) << toString(*F.Provenance.Value, 10);
  if (F.AsTemplateArgument)
    diag(Axis->getBeginLoc(),
         "no fix: the axis as written is %0 at run time and %1 where a constant "
         "is required (it asks whether it is constant-evaluated); moved into the "
         "compile-time form it would be %1",
         DiagnosticIDs::Note)
        << toString(F.ConvertedFrom ? *F.ConvertedFrom : *F.Provenance.Value, 10)
        << toString(*F.AsTemplateArgument, 10);
  noteWithdrawn(Axis->getBeginLoc(), Proof);
  if (!Proof.withdrawn())
    return;
  // Why the compile-time form does not take this call, in the compiler's
  // words, at the form: "constraints not satisfied", "because ...".
  bool AtForm = false;
  for (const ProofDiagnostic &D : Proof.Error) {
    if (D.Level != DiagnosticsEngine::Note || D.Loc.isInvalid())
      continue;
    if (isFormOverload(D.Loc, F.Form, SM))
      AtForm = true;
    else if (!AtForm || !llvm::StringRef(D.Message).starts_with("because"))
      AtForm = false;
    if (AtForm)
      diag(D.Loc, "%0", DiagnosticIDs::Note) << D.Message;
  }
}

namespace {
/// What the parameter fix claims besides compiling, for the code it makes a
/// template: the bodies of the functions whose declarations it edits.
class TemplatedBodies : public RecursiveASTVisitor<TemplatedBodies> {
public:
  explicit TemplatedBodies(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {
    for (Decl *D : Ctx.getTranslationUnitDecl()->noload_decls())
      if (D->getLocation().isValid() && !SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
        TraverseDecl(D);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() && FD->getBody())
      Definitions.push_back(FD);
    return true;
  }

  /// The claims of a fix made of \p Edits that rewrites the
  /// concatenations \p Rewritten (each with its form's overloads): each
  /// rewritten call in a body it makes a template calls its form; every
  /// other call there, which it leaves as written, resolves as it does now.
  FixClaims claims(llvm::ArrayRef<FlowEdit> Edits,
                   llvm::ArrayRef<std::pair<const CallExpr *, const CompileTimeForm *>> Rewritten) {
    FixClaims Claims;
    auto Within = [&](SourceLocation Loc, SourceLocation Begin, SourceLocation End) {
      return Loc.isValid() && Begin.isValid() && End.isValid() &&
             !SM.isBeforeInTranslationUnit(Loc, Begin) && !SM.isBeforeInTranslationUnit(End, Loc);
    };
    for (const FunctionDecl *FD : Definitions) {
      SourceLocation Start = SM.getFileLoc(FD->getOuterLocStart());
      SourceLocation BodyStart = SM.getFileLoc(FD->getBody()->getBeginLoc());
      if (llvm::none_of(Edits, [&](const FlowEdit &E) {
            return E.Begin.isValid() && Within(E.Begin, Start, BodyStart) && E.Begin != BodyStart;
          }))
        continue;
      Calls Found;
      Found.TraverseStmt(FD->getBody());
      for (const CallExpr *Call : Found.All) {
        auto Form = llvm::find_if(Rewritten, [&](const auto &R) { return R.first == Call; });
        if (Form != Rewritten.end()) {
          Claims.Calls.push_back({Call, std::vector<const Decl *>(Form->second->Overloads.begin(),
                                                                  Form->second->Overloads.end())});
          continue;
        }
        // A call the fix edits (a caller passing the axis as a template
        // argument now) is its own claim; one whose arguments only hold
        // an edit still chooses among the same functions.
        SourceLocation Begin = SM.getFileLoc(Call->getBeginLoc());
        SourceLocation End = SM.getFileLoc(Call->getEndLoc());
        bool Edited = llvm::any_of(Edits, [&](const FlowEdit &E) {
          return Within(E.Begin, Begin, End) &&
                 llvm::none_of(Call->arguments(), [&](const Expr *Arg) {
                   return Within(E.Begin, SM.getFileLoc(Arg->getBeginLoc()),
                                 SM.getFileLoc(Arg->getEndLoc()));
                 });
        });
        if (!Edited)
          Claims.Unchanged.push_back(Call);
      }
    }
    return Claims;
  }

  /// Records in \p Flow every call in the definitions of its functions
  /// with external linkage, and what each resolves to: the whole-program
  /// fix, made of edits in several files and proved by the gradlint
  /// command, is held to the same claim as Unchanged above.
  void record(ASTContext &Ctx, UnitFlow &Flow) {
    std::set<std::string> Keys;
    for (const FlowFunction &F : Flow.Functions)
      if (!F.Internal)
        Keys.insert(F.Key);
    std::set<SourceSite> Pinned;
    std::vector<std::pair<FlowCall, SourceSite>> Found;
    auto Offset = [&](SourceLocation Loc, FileID File) -> std::optional<unsigned> {
      auto [In, At] = SM.getDecomposedLoc(SM.getFileLoc(Loc));
      return In == File ? std::optional<unsigned>(At) : std::nullopt;
    };
    for (const FunctionDecl *FD : Definitions) {
      if (Keys.empty())
        break;
      std::string Key = flowKey(FD);
      if (!Keys.count(Key))
        continue;
      Calls Body;
      Body.TraverseStmt(FD->getBody());
      for (const CallExpr *Call : Body.All) {
        std::optional<SourceSite> Site = siteAt(Call->getExprLoc(), SM);
        FileID File = SM.getFileID(SM.getFileLoc(Call->getExprLoc()));
        std::optional<unsigned> Begin = Offset(Call->getBeginLoc(), File),
                                End = Offset(Call->getEndLoc(), File);
        if (!Site || !Begin || !End)
          continue;
        FlowCall C;
        C.Function = Key;
        C.At = flowPoint(Call->getExprLoc(), SM);
        C.Begin = *Begin;
        C.End = *End;
        for (const Expr *Arg : Call->arguments()) {
          std::optional<unsigned> ArgBegin = Offset(Arg->getBeginLoc(), File),
                                  ArgEnd = Offset(Arg->getEndLoc(), File);
          if (ArgBegin && ArgEnd)
            C.Arguments.emplace_back(*ArgBegin, *ArgEnd);
        }
        Pinned.insert(*Site);
        Found.emplace_back(std::move(C), *Site);
      }
    }
    if (Found.empty())
      return;
    ResolvedCalls Resolved = resolveCalls(Ctx, {}, Pinned,
                                          [&](SourceLocation Loc) { return siteAt(Loc, SM); });
    // Files by unique ID, for the places in identities and messages.
    std::map<llvm::sys::fs::UniqueID, FileEntryRef> Files;
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It)
      Files.emplace(It->first.getUniqueID(), It->first);
    auto FileName = [&](llvm::sys::fs::UniqueID UID) -> std::string {
      auto It = Files.find(UID);
      return It == Files.end() ? std::string("?") : realFileName(It->second.getName());
    };
    for (auto &[C, Site] : Found) {
      auto It = Resolved.Pinned.find(Site);
      if (It == Resolved.Pinned.end())
        continue;
      for (const auto &[Identity, Callee] : It->second.Callees) {
        std::string Shown = Callee.Name;
        if (Callee.Site)
          if (auto File = Files.find(Callee.Site->File); File != Files.end())
            Shown = "'" + Callee.Name + "' (" +
                    llvm::sys::path::filename(File->second.getName()).str() + ":" +
                    std::to_string(SM.getLineNumber(SM.translateFile(File->second),
                                                    Callee.Site->Offset)) +
                    ")";
        C.Callees.emplace_back(portableIdentity(Identity, Callee, FileName), Shown);
      }
      Flow.Calls.push_back(std::move(C));
    }
  }

private:
  struct Calls : RecursiveASTVisitor<Calls> {
    bool VisitCallExpr(CallExpr *Call) {
      All.push_back(Call);
      return true;
    }
    std::vector<const CallExpr *> All;
  };

  const SourceManager &SM;
  std::vector<const FunctionDecl *> Definitions;
};
} // namespace

void RuntimeConcatAxisCheck::reportParameterFindings(ASTContext &Ctx) {
  // The calls of this translation unit, into the command's collection when
  // there is one: the whole compilation database's are resolved there.
  UnitFlow Local;
  UnitFlow &Flow = Sink ? *Sink : Local;
  DependentCalls &Generic = dependentCalls(Ctx);
  collectFlow(Ctx, Flow, Generic);
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<FlowPoint> At;
  for (const ParameterFinding &P : ParameterFindings) {
    const ParmVarDecl *Param = P.F.Provenance.Param;
    const auto *Fn = cast<FunctionDecl>(Param->getDeclContext());
    FlowRoot Root;
    Root.Function = flowKey(Fn);
    // The provenance gives no pack element (see classifyDecl).
    Root.Param = *patternParameterIndex(Fn, Param->getFunctionScopeIndex());
    Root.At = flowPoint(P.F.Axis->getBeginLoc(), SM);
    Root.Mode = RewriteSignatures;
    Root.MaxNotes = MaxCallSiteNotes;
    // The type the run-time form takes the axis as (`bool` converts
    // otherwise than by width, and is not an axis type anyway).
    if (QualType Received = P.F.Axis->getType();
        Received->isIntegralOrUnscopedEnumerationType() && !Received->isBooleanType()) {
      Root.ReceivedBits = Ctx.getIntWidth(Received);
      Root.ReceivedSigned = Received->isSignedIntegerOrEnumerationType();
    }
    for (const FixItHint &Hint : P.Rewrite) {
      std::optional<FlowEdit> E = flowEdit(Hint, SM, getLangOpts());
      if (!E) {
        Root.Edits.clear();
        break;
      }
      Root.Edits.push_back(std::move(*E));
    }
    if (llvm::none_of(Flow.Functions, [&](const FlowFunction &Known) {
          return Known.Key == Root.Function && Known.Param == Root.Param;
        }))
      Flow.Functions.push_back(describeFunction(Fn, Root.Param, Ctx, Generic));
    At.push_back(Root.At);
    Flow.Roots.push_back(std::move(Root));
  }
  std::optional<TemplatedBodies> Bodies;
  if (Sink && RewriteSignatures == SignatureRewrites::All && !Flow.Functions.empty()) {
    Bodies.emplace(Ctx);
    Bodies->record(Ctx, Flow);
  }
  FlowProgram Program({&Flow}, /*WholeProgram=*/false, "this translation unit");
  std::vector<FlowProgram::Plan> Plans = Program.resolveAll();
  std::vector<std::pair<const CallExpr *, const CompileTimeForm *>> Rewritten;
  for (const ParameterFinding &P : ParameterFindings)
    Rewritten.emplace_back(P.Call, &P.F.Form);
  for (size_t I = 0; I < ParameterFindings.size(); ++I) {
    const Finding &F = ParameterFindings[I].F;
    auto Root = llvm::find_if(Program.roots(), [&](const FlowRoot &R) {
      return R.At.File == At[I].File && R.At.Offset == At[I].Offset;
    });
    FlowProgram::Plan Plan = Plans[Root - Program.roots().begin()];
    auto Emit = [this, F, Plan, &SM](llvm::ArrayRef<FixItHint> Proved,
                                     const ProofOutcome &Proof) {
      if (!noFormForArguments(F, Proof, SM))
        reportParameterFinding(F, Plan, Proved, Proof);
    };
    if (Plan.Edits.empty()) {
      ask(Ctx, ParameterFindings[I].Question, Emit);
      continue;
    }
    std::vector<FixItHint> Fix;
    for (const FlowEdit &E : Plan.Edits)
      Fix.push_back(FixItHint::CreateReplacement(
          CharSourceRange::getCharRange(E.Begin, E.Begin.getLocWithOffset(E.Length)),
          E.Text));
    if (!Bodies)
      Bodies.emplace(Ctx);
    report(Ctx, std::move(Fix), Emit, Bodies->claims(Plan.Edits, Rewritten));
  }
  ParameterFindings.clear();
}

void RuntimeConcatAxisCheck::reportParameterFinding(
    const Finding &F, const FlowProgram::Plan &Plan,
    llvm::ArrayRef<FixItHint> Proved, const ProofOutcome &Proof) {
  diag(F.Axis->getBeginLoc(),
       "axis passed to %q0 comes from parameter %1, so the rank of the "
       "result is only known at run time")
      << F.Callee << F.Provenance.Param << F.Axis->getSourceRange() << Proved;
  for (const FlowProgram::Note &N : Plan.Notes)
    diag(N.At.Loc, "%0", DiagnosticIDs::Note) << N.Text;
  if (!Plan.Edits.empty())
    noteWithdrawn(F.Axis->getBeginLoc(), Proof);
  if (F.Form.Declaration)
    diag(F.Form.Declaration->getLocation(), "compile-time form declared here",
         DiagnosticIDs::Note);
}

void RuntimeConcatAxisCheck::finishTranslationUnit() {
  if (Matched && (Sink || !ParameterFindings.empty()))
    reportParameterFindings(*Matched);
  Matched = nullptr;
  Reported.clear();
  Forms.clear();
}

} // namespace clang::tidy::gradlint
