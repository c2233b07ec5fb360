//===--- GradlintCheck.h - what every gradlint check shares ---------------===//

#ifndef GRADLINT_CHECKS_UTILS_GRADLINTCHECK_H
#define GRADLINT_CHECKS_UTILS_GRADLINTCHECK_H

#include "utils/CallSites.h"
#include "utils/FixProof.h"
#include "utils/NamePattern.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::gradlint {

/// A clang-tidy check with gradlint's option helpers, whose findings are
/// emitted through the translation unit's FixProof (see FixProof.h): a
/// finding's fix is offered only once the file compiles with it.
class GradlintCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;

  /// Parses the glob list \p Value of option \p Option; an invalid one is
  /// reported with configurationDiag and matches nothing.
  NamePattern namePatternOption(llvm::StringRef Option, llvm::StringRef Value) {
    std::string Error;
    if (std::optional<NamePattern> Pattern = NamePattern::parse(Value, Error))
      return std::move(*Pattern);
    configurationDiag("invalid %0 for %1: %2") << Option << getID() << Error;
    return NamePattern();
  }

  ~GradlintCheck() override {
    if (Proof)
      FixProof::release(Proof);
  }
  void registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                           Preprocessor *) final {
    if (!Proof)
      Proof = &FixProof::join(*PP);
  }
  void onEndOfTranslationUnit() final {
    finishTranslationUnit();
    Generic.reset();
    if (Proof && !std::exchange(Left, true))
      Proof->leave();
  }

protected:
  /// What a check does once the translation unit has been matched.
  virtual void finishTranslationUnit() {}

  /// The calls this translation unit's templates make through dependent
  /// names (see DependentCalls): one reading per translation unit, done on
  /// the first question.
  DependentCalls &dependentCalls(ASTContext &Ctx) const {
    if (!Generic)
      Generic.emplace(Ctx);
    return *Generic;
  }

  /// Emits a finding through \p Emit once its fix \p Fix is proved: Emit
  /// gets the fix (empty when withdrawn) and the proof's outcome. The fix
  /// must hold to \p Claims besides compiling; \p Fallbacks are tried in
  /// turn when it is withdrawn (see FixProof::add). Without a preprocessor
  /// to prove with, the finding is emitted at once, unproved.
  void report(ASTContext &Ctx, std::vector<FixItHint> Fix,
              FixProof::Emitter Emit, const FixClaims &Claims = {},
              std::vector<std::vector<FixItHint>> Fallbacks = {}) {
    dropRepeatedEdits(Fix);
    for (std::vector<FixItHint> &Other : Fallbacks)
      dropRepeatedEdits(Other);
    if (Proof && !Left)
      Proof->add(Ctx, std::move(Fix), std::move(Emit), /*Question=*/false, Claims,
                 std::move(Fallbacks));
    else
      Emit(Fix, ProofOutcome{!Fix.empty(), true, {}});
  }

  /// Another instantiation of a call a reported fix rewrites may call
  /// \p Also's callees (FixProof::expectAlso).
  void expectAlso(const ExpectedCall &Also) {
    if (Proof && !Left)
      Proof->expectAlso(Also);
  }

  /// Emits a finding through \p Emit once the compiler has answered
  /// \p Question (see FixProof::add), which is never offered as a fix.
  void ask(ASTContext &Ctx, std::vector<FixItHint> Question,
           FixProof::Emitter Emit) {
    if (Proof && !Left)
      Proof->add(Ctx, std::move(Question), std::move(Emit), /*Question=*/true);
    else
      Emit({}, ProofOutcome{!Question.empty(), true, {}});
  }

  /// The note on a finding whose fix was withdrawn.
  void noteWithdrawn(SourceLocation Loc, const ProofOutcome &Outcome) {
    if (Outcome.withdrawn())
      diag(Loc, "fix withdrawn: %0", DiagnosticIDs::Note) << Outcome.reason();
  }

  /// The note on a finding in a virtual function, which gets no fix: its
  /// result type cannot change without every override's.
  void noteVirtual(SourceLocation Loc, const FunctionDecl *Fn) {
    diag(Loc,
         "no fix: %0 is virtual, and an override must return what the "
         "function it overrides returns; change the whole hierarchy",
         DiagnosticIDs::Note)
        << Fn;
  }

private:
  mutable std::optional<DependentCalls> Generic;
  FixProof *Proof = nullptr;
  bool Left = false;
};

} // namespace clang::tidy::gradlint

#endif
