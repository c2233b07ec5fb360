//===--- RuntimeConcatAxisCheck.h - gradlint ------------------------------===//

#ifndef GRADLINT_CHECKS_RUNTIMECONCATAXISCHECK_H
#define GRADLINT_CHECKS_RUNTIMECONCATAXISCHECK_H

#include "utils/AxisFlow.h"
#include "utils/AxisProvenance.h"
#include "utils/CallSites.h"
#include "utils/CompileTimeForm.h"
#include "utils/NamePattern.h"
#include "utils/OptionLists.h"
#include "utils/GradlintCheck.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include <memory>

namespace clang::tidy::gradlint {

/// Flags a call to a concatenation function whose axis argument is not a
/// compile-time value when a compile-time form of that function exists.
///
/// For the user-facing documentation see:
/// docs/checks/gradlint-runtime-concat-axis.md
class RuntimeConcatAxisCheck : public GradlintCheck {
public:
  RuntimeConcatAxisCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus11;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void finishTranslationUnit() override;

  /// Whether calls to \p FD are concatenations this check looks at.
  bool isConcatFunction(const FunctionDecl &FD) const;

private:
  /// A compile-time form named in the CompileTimeForms option.
  struct ConfiguredForm {
    CompileTimeForm::FormKind Kind;
    std::string Name;
  };
  /// One call whose axis is not a compile-time value, held while its
  /// rewrite is proved.
  struct Finding {
    const Expr *Axis;
    const NamedDecl *Callee;
    AxisProvenance Provenance;
    CompileTimeForm Form;
    /// The form is a hidden friend that only argument-dependent lookup
    /// finds, and before C++20 `cat<1>(x, y)` cannot name it that way.
    bool HiddenFriendBeforeCxx20 = false;
    /// The axis as written has another value than the run-time form's
    /// parameter receives (`-1` for an `unsigned` parameter is 4294967295):
    /// moved into the compile-time form, the text would give that form
    /// the written value, or not compile. The written value, then.
    std::optional<llvm::APSInt> ConvertedFrom = std::nullopt;
    /// The axis as written computes another value where a constant is
    /// required (`std::is_constant_evaluated()`): that value, then.
    std::optional<llvm::APSInt> AsTemplateArgument = std::nullopt;
    /// Set, once the unit is matched, when the call is in a template and
    /// before C++20 unqualified: argument-dependent lookup finds another
    /// namespace's function (and form) in another instantiation, and no
    /// one spelling of the compile-time form names them all.
    std::shared_ptr<bool> FoundPerInstantiation = nullptr;
    /// The fix that names every instantiation's form through a
    /// using-declaration (usingDeclarationRewrite), tried when the first
    /// fails; empty when there is none.
    std::vector<FixItHint> UsingDeclarationFix = {};
    /// A constant axis whose text moves into the compile-time form.
    bool fixable() const {
      return Provenance.movable() && !HiddenFriendBeforeCxx20 && !ConvertedFrom &&
             !AsTemplateArgument;
    }
  };

  void parseOptions();
  std::optional<unsigned> axisIndex(const FunctionDecl &FD,
                                    llvm::StringRef QualifiedName) const;
  std::optional<CompileTimeForm>
  configuredForm(llvm::StringRef QualifiedName) const;
  /// \p FD's name as the options name functions (optionName) when any
  /// option does (AxisArguments, CompileTimeForms), empty otherwise.
  std::string configuredName(const FunctionDecl &FD) const;
  /// The compile-time form of \p FD, a run-time form taking its axis at
  /// \p Index: the configured one, or the one its overload set has (the
  /// set of the scope a call found it in, \p Found, when that is a
  /// using-declaration).
  std::optional<CompileTimeForm> formFor(const FunctionDecl *FD, llvm::StringRef QualifiedName,
                                         unsigned Index,
                                         const NamedDecl *Found = nullptr);
  /// Whether \p Param is the axis parameter of a run-time form that has a
  /// compile-time form: its body passes on an axis it takes at run time.
  bool isRuntimeFormAxis(const ParmVarDecl *Param);
  /// The call rewritten to \p Form with axis \p AxisText; the callee (or
  /// the tag) keeps the user's spelling where that finds the form, unless
  /// \p Qualify asks for the form's qualified name.
  std::vector<FixItHint> rewriteCall(const CallExpr *Call,
                                     const FunctionDecl *Callee,
                                     const CompileTimeForm &Form,
                                     llvm::ArrayRef<const Expr *> Args,
                                     unsigned Index, llvm::StringRef AxisText,
                                     ASTContext &Ctx, bool Qualify = false) const;
  /// Before C++20, an unqualified call that argument-dependent lookup
  /// resolved, rewritten unqualified (`cat<1>(x, x)`): that is read as a
  /// call of a template, and looked up by argument-dependent lookup too,
  /// when ordinary lookup finds a function template of that name. Where it
  /// finds nothing, a using-declaration of the form before the statement
  /// (`using ns1::cat;`) makes it find one. In a template whose
  /// instantiations each find another namespace's form, this names them
  /// all, where a qualified name names one. Empty where ordinary lookup
  /// finds another function (the using-declaration would hide it), or the
  /// call is not in a block.
  std::vector<FixItHint> usingDeclarationRewrite(const CallExpr *Call,
                                                 const FunctionDecl *Callee,
                                                 const CompileTimeForm &Form,
                                                 llvm::ArrayRef<const Expr *> Args,
                                                 unsigned Index, llvm::StringRef AxisText,
                                                 ASTContext &Ctx) const;
  /// For an axis that is not a constant: a declaration that asks the
  /// compiler whether the compile-time form takes the call's other
  /// arguments (\p Rewrite, with axis 0), never offered as a fix; empty
  /// when the call is not in a block.
  std::vector<FixItHint> questionFor(const CallExpr *Call,
                                     llvm::ArrayRef<FixItHint> Rewrite,
                                     ASTContext &Ctx) const;
  /// A finding whose axis is a parameter, held until the translation unit
  /// is matched: its notes and fix need every call of the function.
  struct ParameterFinding {
    Finding F;
    /// The call rewritten with the parameter as the axis.
    std::vector<FixItHint> Rewrite;
    /// The question for the compiler (see questionFor).
    std::vector<FixItHint> Question;
    /// The concatenation.
    const CallExpr *Call;
  };

  void emit(const Finding &F, llvm::ArrayRef<FixItHint> Proved,
            const ProofOutcome &Proof, ASTContext &Ctx);
  /// Whether the compiler said the compile-time form does not take the
  /// call's arguments; then the finding is this one instead.
  bool noFormForArguments(const Finding &F, const ProofOutcome &Proof,
                          const SourceManager &SM);
  void reportParameterFindings(ASTContext &Ctx);
  void reportParameterFinding(const Finding &F, const FlowProgram::Plan &Plan,
                              llvm::ArrayRef<FixItHint> Proved,
                              const ProofOutcome &Proof);

  // Options, as written (for storeOptions) and parsed.
  const std::string FunctionNamesOption;
  const std::string AxisParameterNamesOption;
  const std::string AxisArgumentsOption;
  const std::string CompileTimeFormsOption;
  const bool FlagWithoutCompileTimeForm;
  const unsigned MaxCallSiteNotes;
  const std::string RewriteSignaturesOption;
  SignatureRewrites RewriteSignatures = SignatureRewrites::Internal;
  /// Where the gradlint command collects this translation unit's facts
  /// (see FlowSink); null in the front ends that see one file at a time.
  UnitFlow *const Sink;

  NamePattern FunctionNames;
  NamePattern AxisParameterNames;
  FunctionArgumentList AxisArguments;
  llvm::StringMap<ConfiguredForm> CompileTimeForms;
  /// Last components of the names in CompileTimeForms, so that most calls
  /// are rejected without building a qualified name.
  llvm::StringSet<> ConfiguredShortNames;

  // Per translation unit.
  CompileTimeFormFinder Forms;
  /// The calls reported, by axis: the first instantiation's finding.
  struct FirstReport {
    const NamedDecl *Form;
    std::shared_ptr<bool> FoundPerInstantiation;
  };
  llvm::DenseMap<SourceLocation, FirstReport> Reported;
  /// Findings whose axis is a parameter, reported at the end of the unit.
  std::vector<ParameterFinding> ParameterFindings;
  /// The unit matched, for finishTranslationUnit (null before a match).
  ASTContext *Matched = nullptr;
};

} // namespace clang::tidy::gradlint

#endif
