//===--- CompileTimeForm.h - discover the static-axis overload ------------===//
//
// Given a call to a concatenation function whose axis is a runtime argument,
// finds the compile-time form of the same function in the overload set:
//
//  * a function template with the same name in the same scope whose leading
//    template parameter is an integer non-type parameter and whose function
//    parameters accept the call's other arguments:  f(xs..., 3) -> f<3>(xs...)
//  * an overload whose parameter in the axis position has an axis-tag type, a
//    class template specialised on the overload's integer template parameter
//    (`Axis<A>`, `std::integral_constant<int, A>`):  3 -> Axis<3>{}
//
// "Accepts" is decided by a small structural unifier over the written
// argument types (before implicit conversions), so an overload taking
// `const Tensor<T, R>&` accepts a `Tensor<float, 4>` argument but not an
// `AnyTensor` one. The unifier is conservative: a parameter shape it does not
// understand rejects the candidate, so a discovered form always deduces.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_COMPILETIMEFORM_H
#define GRADLINT_CHECKS_UTILS_COMPILETIMEFORM_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::gradlint {

struct CompileTimeForm {
  enum FormKind {
    TemplateArgument, ///< f<axis>(args without axis)
    AxisTag,          ///< f(args with axis replaced by Tag<axis>{})
  };
  FormKind Kind = TemplateArgument;
  /// The declaration that offers the form (for notes); null when configured.
  const NamedDecl *Declaration = nullptr;
  /// AxisTag: the tag class template, and the arguments around the axis:
  /// `std::integral_constant<int, A>` has "int, " before and "" after.
  const ClassTemplateDecl *Tag = nullptr;
  std::string TagArgsBefore, TagArgsAfter;
  /// Configured forms: the name to call (TemplateArgument) or the tag
  /// template to spell (AxisTag), exactly as the user configured it.
  std::string ConfiguredName;
};

/// Finds the compile-time forms for calls to one runtime overload. Candidate
/// overloads are collected once per runtime declaration and cached; each call
/// then only unifies its argument types against the few cached candidates.
class CompileTimeFormFinder {
public:
  /// \p Args are the call's arguments; \p AxisIndex the axis among them.
  std::optional<CompileTimeForm> find(const FunctionDecl *Runtime,
                                      llvm::ArrayRef<const Expr *> Args,
                                      unsigned AxisIndex);

  void clear() { Candidates.clear(); }

private:
  struct Candidate {
    CompileTimeForm::FormKind Kind;
    const FunctionTemplateDecl *Template;
    const FunctionDecl *Function;
    /// AxisTag: the parameter index carrying the tag.
    unsigned TagIndex = 0;
  };
  const std::vector<Candidate> &candidatesFor(const FunctionDecl *Runtime);
  llvm::DenseMap<const FunctionDecl *, std::vector<Candidate>> Candidates;
};

/// Whether a parameter of type \p Param (from a function template pattern)
/// accepts an argument of type \p Arg by template argument deduction. Exposed
/// for unit tests.
bool parameterAccepts(QualType Param, QualType Arg);

/// The type an argument had as written, before implicit conversions.
QualType writtenArgumentType(const Expr *Arg);

} // namespace clang::tidy::gradlint

#endif
