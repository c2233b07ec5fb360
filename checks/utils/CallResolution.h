//===--- CallResolution.h - which function each call of a value chooses ---===//
//
// A fix that changes the type of a value (a local std::function becoming its
// closure type, a pullback's std::any result becoming the concrete type) can
// change which function a call that takes the value chooses: overload
// resolution sees another argument type, and argument-dependent lookup
// other associated namespaces. The result may still compile and compute
// something else. Instead of modelling lookup, FixProof asks clang: it
// records, in the analysis and in the parse that proves the fix, the
// function every call taking such a value resolves to, and withdraws a fix
// under which one of them differs.
//
// A fix that removes a cast out of an erased type (`std::any_cast<T>(e)` ->
// `e`) claims that `e` now has the type the cast asked for; otherwise the
// cast fails today and the value would flow on as another type. The same
// walk records the type of such an expression in the proving parse.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_CALLRESOLUTION_H
#define GRADLINT_CHECKS_UTILS_CALLRESOLUTION_H

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/FileSystem/UniqueID.h"
#include <map>
#include <optional>
#include <set>
#include <string>

namespace clang::tidy::gradlint {

/// A place in the original files (those of the analysis, before any fix):
/// the file and an offset in it. Locations of the proving parse are mapped
/// back to such places, so that both parses can be compared.
struct SourceSite {
  llvm::sys::fs::UniqueID File;
  unsigned Offset = 0;
  friend bool operator<(const SourceSite &A, const SourceSite &B) {
    return std::tie(A.File, A.Offset) < std::tie(B.File, B.Offset);
  }
  friend bool operator==(const SourceSite &A, const SourceSite &B) {
    return A.File == B.File && A.Offset == B.Offset;
  }
};

/// Maps a location of the parse being read to its place in the original
/// files (nullopt when it has none: a built-in, a file the analysis lacks).
using SiteMapper = llvm::function_ref<std::optional<SourceSite>(SourceLocation)>;

/// The place of \p Loc (of a macro: where it is expanded) in the files of
/// \p SM.
std::optional<SourceSite> siteAt(SourceLocation Loc, const SourceManager &SM);

/// The place of \p D in the files of \p SM; for a function, of the
/// template or member it was instantiated from.
std::optional<SourceSite> siteOf(const Decl *D, const SourceManager &SM);

/// A call that takes a watched value, by where it is written, and whether
/// it constructs an object (an implicit conversion of an argument spans the
/// argument, and must not be taken for the call the argument is).
struct CallKey {
  SourceSite Begin;
  unsigned End = 0;
  bool Construct = false;
  friend bool operator<(const CallKey &A, const CallKey &B) {
    return std::tie(A.Begin, A.End, A.Construct) < std::tie(B.Begin, B.End, B.Construct);
  }
};

/// What the calls written at one place resolve to (a call in a template
/// has one resolution per instantiation).
struct CallResolution {
  /// The declarations the argument values come from (among the watched).
  std::set<SourceSite> Watched;
  /// A function a call chooses: its qualified name and where it is
  /// declared (no site: a call that resolves to no function).
  struct Callee {
    std::string Name;
    std::optional<SourceSite> Site;
    /// For a call in Pinned: whether the function (its first declaration,
    /// or its template's) is visible where the call is written, in the
    /// parse that recorded it: declared before the call, or a member of a
    /// class whose member-specification holds the call (a complete-class
    /// context sees all of its members). In a template, such a function is
    /// one that the call could have found where it is written: it was
    /// chosen for the arguments' types, not found by argument-dependent
    /// lookup where the template is instantiated, after the call.
    bool DeclaredBefore = false;
  };
  /// Each function chosen, by an identity that holds across parses.
  std::map<std::string, Callee> Callees;
  /// A copy or move into the argument's own class (the original parse
  /// only): a conversion, not a choice between behaviours.
  bool ConvertsToOwnClass = false;
  /// The reference parameters a watched argument binds through a temporary
  /// (converted from the value) while the callee keeps the reference past
  /// the call: a constructor that binds a reference, pointer or
  /// reference_wrapper member to the parameter, a function whose body
  /// stores its address where it lasts, a function (not an assignment)
  /// that returns a reference or pointer to the parameter's type; or a
  /// function whose reference or pointer result may point into the
  /// parameter's object (`std::any_cast<const T &>(a)`) and that the caller
  /// keeps past the statement (`const T &r = ...`). By parameter number.
  /// The temporary dies at the end of the full-expression; the value it
  /// was converted from binds directly and lives on.
  struct KeptBinding {
    /// The callee's qualified name, for a message.
    std::string Callee;
    /// What keeps the reference: the caller, through the result (or else
    /// the callee).
    bool ThroughResult = false;
  };
  std::map<unsigned, KeptBinding> Dangling;
};

/// An expression by where it is written: its first token, and the offset
/// of its last.
struct ExprSite {
  SourceSite Begin;
  unsigned End = 0;
  friend bool operator<(const ExprSite &A, const ExprSite &B) {
    return std::tie(A.Begin, A.End) < std::tie(B.Begin, B.End);
  }
};

/// Where \p E is written, mapped with \p Map (none when its first and last
/// token are not in one file).
std::optional<ExprSite> exprSiteOf(const Expr *E, SiteMapper Map);

/// The type of a value as a cast out of an erased type gives it, for
/// comparing across parses: without references, cv-qualifiers and sugar
/// (a pointer's pointee without its own cv-qualifiers: the pointer form of
/// std::any_cast).
std::string valueTypeIdentity(QualType Type, const ASTContext &Ctx);

/// What a function that handles a watched value finds out about types at
/// compile time, at one place (one value per instantiation of a template it
/// is in): an `if constexpr` condition, `sizeof`, `typeid`, a type trait or
/// concept. A fix that changes the value's type may change these without
/// changing any call: `if constexpr (std::is_same_v<T, std::any>)` in the
/// template the value is passed to takes the other branch.
struct TypeObservation {
  /// The declarations whose values the function handles (among the watched).
  std::set<SourceSite> Watched;
  /// Each value found, by an identity that holds across parses, with the
  /// value as shown in a message.
  std::map<std::string, std::string> Values;
  /// The expression as written (the original parse only).
  std::string Text;
  /// Not a question about types: a reference variable of another type
  /// than the value's, which binds the value itself or a temporary
  /// converted from it (`const std::any &ref = g;` once g is a tensor).
  /// Text is then the variable's name.
  bool Binding = false;
};

/// \p Identity, one of the identities resolveCalls gives \p Callee, written
/// to hold across processes and machines: the place a lambda's call operator
/// is identified by is written with \p FileName (a path) instead of the
/// file's unique ID (a device and an inode).
std::string portableIdentity(llvm::StringRef Identity, const CallResolution::Callee &Callee,
                             llvm::function_ref<std::string(llvm::sys::fs::UniqueID)> FileName);

/// The real path of the file named \p Name (the name itself when it has
/// none): one name for a file in every parse, however it was included.
std::string realFileName(llvm::StringRef Name);

/// What resolveCalls finds.
struct ResolvedCalls {
  /// The calls that take a watched value, by where they are written.
  std::map<CallKey, CallResolution> Calls;
  /// The calls and constructions (`T(v)`, `Recorder r(v)`, `{v}`) that
  /// take a watched value but depend on a template's parameters where they
  /// are written (each instantiation resolves them, in Calls), by where
  /// they are written.
  std::vector<ExprSite> Dependent;
  /// The calls asked for by place (Expr::getExprLoc: a member call's
  /// member name, any other call's beginning), whatever they take.
  std::map<SourceSite, CallResolution> Pinned;
  /// The same for the innermost call at each place: the one that ends
  /// first. A call on a call's result can begin where it does and name its
  /// callee there (`cat<1>(a, b)[0]`, `cat<1>(a, b).rank()` with a static
  /// `rank`); Pinned holds both, this the call that is written there.
  std::map<SourceSite, CallResolution> PinnedInnermost;
  /// The calls asked for by place that are written in a template and
  /// depend on its parameters there (`serialize<N>(out)` with `N` a
  /// template parameter): each instantiation resolves them (in Pinned);
  /// without one, nothing does.
  std::set<SourceSite> PinnedDependent;
  /// The types the expressions asked for by place have (one per
  /// instantiation of a template they are in): each identity
  /// (valueTypeIdentity), with the type as clang prints it.
  std::map<ExprSite, std::map<std::string, std::string>> Types;
  /// What the functions that handle a watched value find out about types
  /// (see TypeObservation), by where each is written.
  std::map<ExprSite, TypeObservation> Observed;
};

/// Finds, in the user code of \p Ctx (declarations outside system headers
/// that the AST already holds: in clangd, the main file's), every call and
/// constructor call that takes, as an argument, a value of one of the
/// \p Watched declarations (a variable, a function's result, and the
/// locals and structured bindings whose types are deduced from those), and
/// what each resolves to; and what the calls named by the place of their
/// callee's name in \p Pinned resolve to; and the types of the expressions
/// written at the places in \p Typed (looking through what is not written:
/// conversions, temporaries, a converting constructor); and what the
/// `if constexpr` conditions, `sizeof`, `alignof`, `typeid`, `noexcept`,
/// type traits and concepts evaluate to where a watched value reaches them
/// (an expression that refers to one; anything in an instantiation of a
/// template one reaches: through a parameter, a class constructed from
/// it, template arguments written with it). Locations are
/// mapped with \p Map; a call that does not resolve (an error) has no
/// callee.
ResolvedCalls resolveCalls(ASTContext &Ctx, const std::set<SourceSite> &Watched,
                           const std::set<SourceSite> &Pinned, SiteMapper Map,
                           const std::set<ExprSite> &Typed = {});

} // namespace clang::tidy::gradlint

#endif
