//===--- AxisProvenance.h - where a concatenation axis comes from ---------===//
//
// Classifies the expression passed as a concatenation axis by the origin of
// its value: a compile-time constant, a value derived from a static rank
// (template parameter, static constexpr member), a parameter of the enclosing
// function, or a genuinely runtime value. Only the first two can be moved into
// a template argument as written.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_AXISPROVENANCE_H
#define GRADLINT_CHECKS_UTILS_AXISPROVENANCE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/APSInt.h"
#include <optional>

namespace clang::tidy::gradlint {

enum class AxisOrigin {
  Constant,   ///< literal, constexpr variable, enumerator, constexpr call
  StaticRank, ///< template parameter or static member of a class made
              ///< from a template (its rank)
  Parameter,  ///< a parameter of the enclosing function
  Runtime,    ///< anything else
};

struct AxisProvenance {
  AxisOrigin Origin = AxisOrigin::Runtime;
  /// The value, when the axis is a constant expression here: only then can
  /// the text be moved into a template argument as written.
  std::optional<llvm::APSInt> Value;
  /// The first parameter of the enclosing function the axis reads: for
  /// AxisOrigin::Parameter, and for a static rank named through a parameter
  /// (`y.rank()` with `y` a reference, not a constant expression in C++17).
  const ParmVarDecl *Param = nullptr;
  /// The axis is a constant of a template's parameters, in the template's
  /// own body (`concat(a, b, A)` with non-dependent tensors): no value
  /// here, but the text is a constant expression in every instantiation.
  bool Dependent = false;

  bool isCompileTime() const {
    return Origin == AxisOrigin::Constant || Origin == AxisOrigin::StaticRank;
  }
  /// Whether the text as written can move into a template argument.
  bool movable() const { return isCompileTime() && (Value || Dependent); }
};

/// Classifies \p Axis, an argument of a call that is not value-dependent.
AxisProvenance classifyAxis(const Expr *Axis, const ASTContext &Ctx);

/// The value of \p E when it is an integer constant expression.
std::optional<llvm::APSInt> evaluateAxis(const Expr *E, const ASTContext &Ctx);

/// The value \p E, a constant whose value at run time (evaluateAxis's) is
/// \p AtRunTime, has where a constant is required (a template argument),
/// when that differs: code that asks `std::is_constant_evaluated()` or `if
/// consteval` computes otherwise there. Empty when the two agree.
std::optional<llvm::APSInt> valueAsTemplateArgument(const Expr *E, const llvm::APSInt &AtRunTime,
                                                    const ASTContext &Ctx);

} // namespace clang::tidy::gradlint

#endif
