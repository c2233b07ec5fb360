//===--- CompileTimeForm.h - discover the static-axis overload ------------===//
//
// Given a call to a concatenation function whose axis is a runtime argument,
// finds the compile-time form of the same function in the overload set, by
// its shape alone:
//
//  * a function template with the same name in the same scope whose leading
//    template parameter is an integer (or enumeration, or `auto`) non-type
//    parameter:  f(xs..., 3) -> f<3>(xs...)
//    The scope is the one the call found the name in, when it found it
//    through a using-declaration (a derived class's `using Base::cat;` beside
//    its own `template <int A> cat`, a namespace facade), else the runtime
//    form's own.
//  * an overload whose parameter in the axis position has an axis-tag type, a
//    class template specialised on the overload's integer template parameter
//    (`Axis<A>`, `std::integral_constant<int, A>`), or an alias template of
//    one (`axis_t<A>`, spelled as written):  3 -> Axis<3>{}
//
// Whether the form accepts this call (deduction, SFINAE, `enable_if`,
// constraints, packs, conversions, default arguments) is not modelled here:
// the check rewrites the call and FixProof asks the compiler.
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
  /// Every overload of this kind: the compiler chooses among them.
  std::vector<const FunctionDecl *> Overloads;
  /// AxisTag: the tag class template (or the alias template that names
  /// one), and the arguments around the axis: `std::integral_constant<int,
  /// A>` has "int, " before and "" after.
  const TemplateDecl *Tag = nullptr;
  std::string TagArgsBefore, TagArgsAfter;
  /// Configured forms: the name to call (TemplateArgument) or the tag
  /// template to spell (AxisTag), exactly as the user configured it.
  std::string ConfiguredName;
};

/// Finds the compile-time form for calls to one runtime overload, once per
/// runtime declaration.
class CompileTimeFormFinder {
public:
  /// The form for calls to \p Runtime whose axis is argument \p AxisIndex;
  /// \p Found is the declaration the call's name found (a using-declaration's
  /// shadow, or \p Runtime itself), null where there is no call.
  std::optional<CompileTimeForm> find(const FunctionDecl *Runtime,
                                      unsigned AxisIndex,
                                      const NamedDecl *Found = nullptr);

  void clear() { Cache.clear(); }

private:
  std::optional<CompileTimeForm> discover(const FunctionDecl *Runtime,
                                          unsigned AxisIndex,
                                          const DeclContext *Scope) const;
  llvm::DenseMap<std::tuple<const FunctionDecl *, unsigned, const DeclContext *>,
                 std::optional<CompileTimeForm>>
      Cache;
};

} // namespace clang::tidy::gradlint

#endif
