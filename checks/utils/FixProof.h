//===--- FixProof.h - offer a fix only once the compiler accepts it -------===//
//
// A fix-it is a claim that the edited file still compiles. FixProof checks
// the claim the only reliable way: it parses the translation unit again, in
// memory, with the fixes applied, using the same compiler options, file
// system and target as the analysis itself. Every gradlint check hands its
// findings to the translation unit's FixProof instead of emitting them; once
// the last check of the translation unit has finished, the fixes are proved
// together and each finding is emitted with its fix (proved) or without it
// (withdrawn, with the compiler's first error for a note).
//
// A fix is also held to what it claims besides compiling (FixClaims): the
// calls that take a value it retypes must resolve to the same function with
// the fix as without it (CallResolution.h); a call it rewrites must call what
// it was rewritten for; an expression it keeps from a cast it removes must
// have the type the cast asked for. Otherwise the fix is withdrawn.
//
// Because the proof runs inside the check library, the gradlint command, the
// plugin in a stock clang-tidy and gradlint-clangd give the same answers.
//
// Cost: nothing for a translation unit without fixes; one extra parse when
// every fix compiles. When some do not, the errors on the lines of a fix
// withdraw it and one more parse confirms the rest; an error away from every
// fix (a caller of a retyped function) is traced to its fixes by bisection,
// about two parses per culprit; a call resolved otherwise names its fixes,
// which are withdrawn without bisection. At most 24 parses in all.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_FIXPROOF_H
#define GRADLINT_CHECKS_UTILS_FIXPROOF_H

#include "utils/CallResolution.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Core/Replacement.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::gradlint {

/// One diagnostic of the proving parse, located in the original files.
struct ProofDiagnostic {
  DiagnosticsEngine::Level Level;
  unsigned ID;
  std::string Message;
  /// Where the diagnostic points in the original parse (inside an edit: the
  /// edit's start), when the file was part of it; invalid otherwise.
  SourceLocation Loc;
  /// For an error that a missing `typename` or `template` keyword causes
  /// in text a fix left as it was (code the fix makes a template names a
  /// type or template through something now dependent): the keyword to
  /// insert at \p Loc, which is then exactly that text's place.
  llvm::StringRef Keyword = {};
  /// What the diagnostic marks in \p Loc's file (the initializer that does
  /// not convert), as offsets in the original parse.
  std::vector<std::pair<unsigned, unsigned>> Ranges = {};
};

/// A call a fix rewrites, and the functions it may call once rewritten (the
/// overloads of a compile-time form): a fix under which it calls another
/// is withdrawn.
struct ExpectedCall {
  const CallExpr *Call;
  std::vector<const Decl *> Callees;
};

/// An expression whose type a fix must leave as \p Type. Either one a fix
/// keeps from a cast it removes (`e` of `std::any_cast<T>(e)`,
/// `std::get<T>(e)`), with the type the cast gives (`T`): with the fix, the
/// expression must have that type, or the cast, which fails today, would
/// let a value of another type flow on. Or (\p Unevaluated names the
/// operand: "decltype", "sizeof") a call the fix rewrites in an operand
/// that is never evaluated: there the call's type is all the program uses,
/// so a fix that changes it changes what the program inspects, and nothing
/// that runs.
struct ExpectedType {
  const Expr *Kept;
  QualType Type;
  llvm::StringRef Unevaluated = {};
};

/// What a fix claims besides compiling.
struct FixClaims {
  /// The declarations whose type the fix changes (a variable, a function's
  /// result): every call that takes one of their values must resolve, with
  /// the fix, to the function it resolves to now (see CallResolution.h).
  std::vector<const Decl *> Retyped;
  /// The calls the fix rewrites, and the functions each must call.
  std::vector<ExpectedCall> Calls;
  /// The expressions kept from the casts the fix removes.
  std::vector<ExpectedType> Types;
  /// Calls the fix replaces by another call that takes a retyped value
  /// (`std::visit(f, g)` -> `(f)(g)`): the check's rule says what the new
  /// call does, so what it resolves to is not compared with the old one.
  std::vector<const CallExpr *> Replaced;
  /// Calls the fix leaves as they are written, in code it makes a template
  /// (the body of a function that gets a template parameter): each must
  /// resolve, in every instantiation, to a function it resolves to now or
  /// to one declared before it. In a template, a call whose arguments
  /// depend on the new parameter is resolved where the template is
  /// instantiated, where argument-dependent lookup also finds the
  /// functions declared after it; one declared before is what the call
  /// would choose where it is written, for the types the fix gives.
  std::vector<const CallExpr *> Unchanged;

  /// The claims of a fix that retypes \p D.
  static FixClaims retyping(const Decl *D) {
    FixClaims Claims;
    Claims.Retyped.push_back(D);
    return Claims;
  }
};

/// What the proof says about one finding.
struct ProofOutcome {
  /// Whether the finding had a fix to prove.
  bool HadFix = false;
  /// The fix compiles together with every other proved fix.
  bool Proved = false;
  /// Why not: the first error the fix caused, followed by its notes (or,
  /// when the translation unit did not compile to begin with, nothing).
  std::vector<ProofDiagnostic> Error;
  /// Withdrawn because with the fix a call would choose another function
  /// than it should (or none): a call that takes a retyped value (whose
  /// erasure then decides what it calls), or a rewritten call that misses
  /// the function it is rewritten for.
  bool CallsRebound = false;

  bool withdrawn() const { return HadFix && !Proved; }
  /// The first error's text, for a note.
  std::string reason() const;
};

/// Maps offsets in the text that a file's replacements produced back to the
/// original text: an offset in inserted text maps to the start of its edit;
/// text the edits kept maps to itself (the first token after a removal too:
/// `e` of a removed `std::any_cast<T>(e)`).
/// Built once per parse; each lookup is a binary search (a file with
/// thousands of fixes maps every call the proof compares).
class OffsetMap {
public:
  explicit OffsetMap(const tooling::Replacements &Applied);
  unsigned original(unsigned NewOffset) const;
  /// Whether \p NewOffset is in text an edit inserted (not kept text).
  bool inserted(unsigned NewOffset) const;

private:
  struct Shifted {
    long NewBegin, NewEnd;
    unsigned Original;
    long DeltaBefore;
  };
  std::vector<Shifted> Edits;
  long After = 0;
};

/// Why a fix is withdrawn under which the call at \p CallAt ("file:line:col"),
/// which it leaves as written in code it makes a template, would call
/// \p Now instead of \p Before (each: "'ns::f(int)' (file.cpp:3)").
std::string resolvedAgainReason(llvm::StringRef CallAt, llvm::StringRef Now,
                                llvm::StringRef Before);

/// Drops the edits of \p Fix that repeat an earlier one: a caller in a
/// template is matched once per instantiation, with the same edit each
/// time, and the same insertion applied twice would write its text twice.
void dropRepeatedEdits(std::vector<FixItHint> &Fix);

/// Whether two fixes make the same edits, in the same order.
bool sameEdits(llvm::ArrayRef<FixItHint> A, llvm::ArrayRef<FixItHint> B);

/// The findings of one translation unit, held back until their fixes are
/// proved. Shared by the translation unit's gradlint checks (found through
/// its preprocessor): each joins it before the parse, leaves it when it has
/// finished the translation unit, and releases it when it is destroyed.
class FixProof {
public:
  /// Emits one finding; the hints are the proved fix (empty when withdrawn).
  using Emitter =
      std::function<void(llvm::ArrayRef<FixItHint>, const ProofOutcome &)>;

  /// The proof of \p PP's translation unit; the caller is one more check
  /// that must leave() before the findings are emitted, and release() it.
  static FixProof &join(Preprocessor &PP);
  /// A check is done with \p Proof; the last one deletes it.
  static void release(FixProof *Proof);

  /// Holds back one finding whose fix is \p Fix (possibly empty). A
  /// \p Question is an edit that is never offered, only compiled to learn
  /// whether the compiler accepts it: it must add a declaration nothing else
  /// uses, so that its errors cannot hide or cause any other (the proof then
  /// needs no second parse for it). \p Claims are what the fix must hold to
  /// besides compiling. \p Fallbacks are other ways to write the fix, held
  /// to the same claims and tried in turn when it is withdrawn.
  void add(ASTContext &Ctx, std::vector<FixItHint> Fix, Emitter Emit,
           bool Question = false, const FixClaims &Claims = {},
           std::vector<std::vector<FixItHint>> Fallbacks = {});

  /// Another instantiation of a call that a finding's fix rewrites
  /// (`B::cat(x, x, 1)` in `run<Backend>` and `run<Backend2>`) may call
  /// \p Also's callees: the rewritten call, resolved in each instantiation,
  /// may call any of them.
  void expectAlso(const ExpectedCall &Also);

  /// One check has finished the translation unit; the last one proves the
  /// fixes and emits every finding, in the order they were added.
  void leave();

private:
  explicit FixProof(Preprocessor &PP) : PP(PP) {}
  struct Finding {
    std::vector<FixItHint> Fix;
    Emitter Emit;
    bool Question;
    std::vector<SourceSite> Retyped;
    /// Where the rewritten calls name their callee, and where the
    /// functions they may call are declared.
    std::vector<std::pair<SourceSite, std::set<SourceSite>>> Expected;
    /// The expressions kept from removed casts: where, their text, and the
    /// type each must have (valueTypeIdentity, and as the user reads it).
    struct KeptValue {
      ExprSite At;
      std::string Text, Identity, Shown;
      /// The unevaluated operand a rewritten call is in (ExpectedType).
      std::string Unevaluated;
    };
    std::vector<KeptValue> Kept;
    /// Where the calls it replaces are written.
    std::vector<CallKey> Replaced;
    /// Where the calls it must leave resolved as they are name their callee.
    std::vector<SourceSite> Unchanged;
    std::vector<std::vector<FixItHint>> Fallbacks;
    /// How many times the keywords the compiler asked for were added;
    /// whether the fix being proved is such a way, and whether the next
    /// fallback is.
    unsigned KeywordRounds = 0;
    bool KeywordsAdded = false, NextHasKeywords = false;
    ProofOutcome Outcome;
    /// The outcome of the fix as first written, once a fallback is tried.
    std::optional<ProofOutcome> Primary;
  };
  void prove();
  void finishFallbacks();
  void emitAll();

  Preprocessor &PP;
  ASTContext *Ctx = nullptr;
  /// Checks that have joined and not left / not released.
  unsigned Members = 0, Holders = 0;
  std::vector<Finding> Findings;
};

} // namespace clang::tidy::gradlint

#endif
