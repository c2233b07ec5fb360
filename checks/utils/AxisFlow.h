//===--- AxisFlow.h - how an axis parameter's values reach it -------------===//
//
// An axis that is a parameter (`Tensor transition(const Tensor &x, int axis)
// { return cat(x, x, axis); }`) is only as runtime as the arguments its
// callers pass, possibly through several functions that pass it on. The
// facts this needs are recorded per translation unit as plain data (files
// and offsets, no AST pointers), so that one translation unit's facts and
// those of a whole compilation database are resolved by the same code:
//
//  - FlowArgument: a call that passes something for an integral parameter of
//    a function outside system headers: a constant, a parameter of the
//    calling function (forwarded), its default, or a runtime value;
//  - FlowFunction: such a function as the fix would change it: its
//    declarations' edits, what forbids the change, its explicit
//    instantiation;
//  - FlowRoot: a concatenation whose axis is such a parameter, and the
//    edits that call its compile-time form;
//  - FlowReference: a function named other than in a call (its address).
//
// resolvePlan() walks from a root to every call that determines its values,
// innermost first, and, when every one passes a constant, plans the fix that
// makes the parameter a template parameter everywhere at once.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_AXISFLOW_H
#define GRADLINT_CHECKS_UTILS_AXISFLOW_H

#include "utils/CallSites.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace clang::tidy::gradlint {

/// How far the fix that makes an axis parameter a template parameter may
/// go (option RewriteSignatures).
enum class SignatureRewrites {
  None,     ///< never
  Internal, ///< functions all of whose callers are in their file (calledOnlyInThisFile)
  All,      ///< also functions with external linkage, when the whole
            ///< compilation database is analysed together
};

/// A place in a file. Loc is only meaningful in the translation unit that
/// recorded it (and invalid once read back from JSON).
struct FlowPoint {
  std::string File;
  unsigned Offset = 0, Line = 0, Column = 0;
  SourceLocation Loc;
};

/// One replacement. Begin is as FlowPoint::Loc.
struct FlowEdit {
  std::string File;
  unsigned Offset = 0, Length = 0;
  std::string Text;
  SourceLocation Begin;

  bool operator<(const FlowEdit &O) const {
    return std::tie(File, Offset, Length, Text) <
           std::tie(O.File, O.Offset, O.Length, O.Text);
  }
  bool operator==(const FlowEdit &O) const {
    return File == O.File && Offset == O.Offset && Length == O.Length &&
           Text == O.Text;
  }
};

struct FlowArgument {
  enum KindT { Constant, Forwarded, Default, Runtime };
  KindT Kind = Runtime;
  /// The callee (see flowKey) and the index of the parameter.
  std::string Callee;
  unsigned Param = 0;
  /// The argument (for a default: the call).
  FlowPoint At;
  /// Constant: the value, in decimal (for a default too, when constant).
  std::string Value;
  /// The value the same text has where a constant is required (a template
  /// argument), when that is another (`std::is_constant_evaluated()`).
  std::string AsTemplateArgument;
  /// Forwarded: the calling function and its parameter passed on.
  std::string Caller;
  unsigned CallerParam = 0;
  /// The edits that pass the argument as a template argument instead
  /// (`f(x, 1)` -> `f<1>(x)`); empty when that cannot be written.
  std::vector<FlowEdit> Edits;
};

struct FlowFunction {
  std::string Key;
  unsigned Param = 0;
  /// As a diagnostic names them, quotes included: 'transition', 'axis'.
  std::string Name, ParamName;
  /// The parameter, in the definition when it was seen.
  FlowPoint ParamAt;
  bool Internal = false;
  bool Defined = false;
  /// Why the signature cannot change ("'f' is virtual"); the first is shown.
  std::vector<std::string> Blockers;
  /// What each instantiation of the template would have of its own, where
  /// the function has one ("'f' declares static local 'calls'"): a fix that
  /// gives it more than one axis would split that state. Empty: nothing.
  std::string OwnState;
  FlowPoint OwnStateAt;
  /// Every declaration seen, made a template without the parameter.
  std::vector<FlowEdit> Edits;
  /// For a definition in a source file that other files may call: where an
  /// explicit instantiation for each axis goes, and its text with `@AXIS@`
  /// for the value. Empty Instantiation: none needed.
  FlowEdit InstantiationAt;
  std::string Instantiation;
};

struct FlowRoot {
  std::string Function;
  unsigned Param = 0;
  /// The axis argument of the concatenation, where the finding is.
  FlowPoint At;
  SignatureRewrites Mode = SignatureRewrites::Internal;
  /// The most notes on calls (option MaxCallSiteNotes).
  unsigned MaxNotes = 8;
  /// The concatenation rewritten to its compile-time form, with the
  /// parameter's name as the axis; empty when that cannot be written.
  std::vector<FlowEdit> Edits;
  /// The integer type the run-time form's parameter receives the axis as
  /// (0 bits: unknown). It converts the parameter's value silently (`-1`
  /// to an `unsigned` is 4294967295), where the compile-time form's
  /// template parameter takes the value itself: every axis that reaches
  /// the root must be a value of this type.
  unsigned ReceivedBits = 0;
  bool ReceivedSigned = true;
};

struct FlowReference {
  std::string Function;
  FlowPoint At;
};

/// A call in the definition of a FlowFunction, and what it resolves to now
/// (recorded only where signatures of functions with external linkage may
/// change). The fix that makes the function a template must leave it
/// calling what it calls now: in the template, a call whose arguments depend
/// on the new parameter is resolved where the template is instantiated, and
/// argument-dependent lookup there finds the functions declared after it.
struct FlowCall {
  /// The function it is in (see flowKey).
  std::string Function;
  /// Where it names its callee (the call's place in CallResolution.h).
  FlowPoint At;
  /// The call's first and last token, and each argument's, as offsets in
  /// At.File: a fix that edits the call outside its arguments rewrites it,
  /// and claims what it calls otherwise.
  unsigned Begin = 0, End = 0;
  std::vector<std::pair<unsigned, unsigned>> Arguments;
  /// What it calls: each function's identity across parses
  /// (portableIdentity), with the function as a message shows it
  /// ("'ns::f(int)' (file.cpp:3)").
  std::vector<std::pair<std::string, std::string>> Callees;
};

/// For gradlint-type-erased-pullback: a function defined in this
/// translation unit whose result is type-erased.
struct FlowErasure {
  std::string Key;
  /// Its name in the definition.
  FlowPoint At;
  /// The note that names it as an erasure's origin.
  std::string Note;
  /// The function whose erased result it returns, if any (its origin).
  std::string PassesOn;
};

/// For gradlint-type-erased-pullback: a pullback reported here whose
/// erasure comes from a function this translation unit only declares.
struct FlowErasedOrigin {
  /// The finding.
  FlowPoint At;
  /// That function, and the note the check gave on its declaration.
  std::string Callee;
  std::string Note;
};

/// The facts of one translation unit, or of several merged.
struct UnitFlow {
  std::vector<FlowArgument> Arguments;
  std::vector<FlowFunction> Functions;
  std::vector<FlowRoot> Roots;
  std::vector<FlowReference> References;
  std::vector<FlowErasure> Erasures;
  std::vector<FlowErasedOrigin> ErasedOrigins;
  std::vector<FlowCall> Calls;
};

llvm::json::Value toJSON(const UnitFlow &Flow);
/// False (and Flow unspecified) when \p V is not what toJSON writes.
bool fromJSON(const llvm::json::Value &V, UnitFlow &Flow);

/// The identity of a function across translation units: its USR (for one
/// with internal linkage, made unique with the main file's name).
std::string flowKey(const FunctionDecl *FD);

/// Whether every call of \p FD that reaches this definition is in this
/// file: it has internal linkage, or it is inline (declared so, or a member
/// defined in its class) and declared only in the main file, a member of a
/// class defined there too. Another file can call an inline function only
/// with a definition of its own, which the fix leaves as it is. A template
/// (a function template, a member of a class template) defined only in the
/// main file is the same unless this file instantiates it explicitly:
/// another file may call an implicit instantiation only where it can see
/// the definition ([temp.pre]: otherwise ill-formed, no diagnostic
/// required), and it can see this one only through an explicit one.
bool calledOnlyInThisFile(const FunctionDecl *FD);

/// Records, in one traversal of \p Ctx's traversal scope outside system
/// headers, every FlowArgument and FlowReference, and a FlowFunction for
/// each function that passes one of its parameters on (described with
/// \p Generic, see describeFunction).
void collectFlow(ASTContext &Ctx, UnitFlow &Flow, DependentCalls &Generic);

/// The FlowFunction of \p FD's parameter \p Param, from the declarations
/// and definition seen in \p Ctx (and the calls templates make through
/// dependent names, \p Generic: one that may call FD unchecked blocks it).
FlowFunction describeFunction(const FunctionDecl *FD, unsigned Param,
                              ASTContext &Ctx, DependentCalls &Generic);

/// A FlowPoint / FlowEdit for a location of the current translation unit.
FlowPoint flowPoint(SourceLocation Loc, const SourceManager &SM);
/// \p At as a note writes a place: `file.cpp:line:column`, the file's
/// directories dropped.
std::string placeText(const FlowPoint &At);
std::optional<FlowEdit> flowEdit(const FixItHint &Hint, const SourceManager &SM,
                                 const LangOptions &LO);

/// The facts of several translation units, indexed for resolvePlan.
class FlowProgram {
public:
  /// \p Scope ends the note on a function that nobody calls:
  /// "is not called in <Scope>".
  FlowProgram(std::vector<const UnitFlow *> Units, bool WholeProgram,
              std::string Scope);

  struct Note {
    FlowPoint At;
    std::string Text;
  };
  struct Plan {
    std::vector<Note> Notes;
    /// The fix, sorted; empty when there is none.
    std::vector<FlowEdit> Edits;
  };
  Plan resolve(const FlowRoot &Root) const;
  /// The plan of each of roots(), in that order; a root whose fix another
  /// root's fix contains gets none, only a note that names that root.
  std::vector<Plan> resolveAll() const;

  const std::vector<FlowRoot> &roots() const { return Roots; }

  /// Adds \p Why(F) to the blockers of every function F for which it is
  /// not empty.
  void block(const std::function<std::string(const FlowFunction &)> &Why);

private:
  bool WholeProgram;
  std::string Scope;
  std::map<std::pair<std::string, unsigned>, std::vector<const FlowArgument *>>
      Calls;
  /// By function and parameter, as Calls.
  std::map<std::pair<std::string, unsigned>, FlowFunction> Functions;
  llvm::StringMap<const FlowReference *> Referenced;
  std::vector<FlowRoot> Roots;
};

/// Where the gradlint command collects each translation unit's facts: it
/// attaches a UnitFlow to a ClangTidyContext around one file's analysis, and
/// the checks created for that analysis record into it. Front ends that see
/// one file at a time attach nothing.
class FlowSink {
public:
  static void attach(const void *Context, UnitFlow *Flow);
  static void detach(const void *Context);
  static UnitFlow *find(const void *Context);
};

} // namespace clang::tidy::gradlint

#endif
