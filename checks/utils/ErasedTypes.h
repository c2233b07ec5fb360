//===--- ErasedTypes.h - recognise type-erased types ----------------------===//
//
// The C++ forms of Julia's `Any`: std::any, std::function, void*,
// std::shared_ptr<void>, a std::variant over several tensor types, and
// user-listed rank- or dtype-erased tensor types. A type "contains" an erased
// type through std::tuple, std::pair, std::array, std::vector,
// std::optional, and the mapped type of std::map and std::unordered_map,
// recursively.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_ERASEDTYPES_H
#define GRADLINT_CHECKS_UTILS_ERASEDTYPES_H

#include "utils/NamePattern.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace clang::tidy::gradlint {

/// The containers an erased type is looked for inside of.
enum class ContainerKind { None, Tuple, Pair, Array, Vector, Optional, Map };

/// Which kind of std container \p T is (ContainerKind::None otherwise).
ContainerKind containerKind(QualType T);

/// The qualified name of a class type's declaration as options name it
/// (optionName): the template's name for a specialisation, dependent or
/// not, and for a class nested in one; no inline namespaces. "std::vector".
std::string qualifiedClassName(QualType T);

/// Whether \p T is std::any or boost::any: a holder of a value of any type.
bool isAnyType(QualType T);

/// The types among \p Args, in order, with each pack's elements in its
/// place (`std::tuple<Y, Back>`'s Y and Back).
llvm::SmallVector<QualType, 4> typeArguments(llvm::ArrayRef<TemplateArgument> Args);

class ErasedTypeClassifier {
public:
  /// \p ErasedTypes: globs over qualified class names (`std::any`,
  /// `refcat::AnyTensor`); \p TensorTypes: globs over unqualified class names
  /// that are tensors, for the std::variant rule.
  ErasedTypeClassifier(NamePattern ErasedTypes, NamePattern TensorTypes)
      : ErasedTypes(std::move(ErasedTypes)), TensorTypes(std::move(TensorTypes)) {}

  /// Whether \p T itself is a type-erased type.
  bool isErased(QualType T) const;

  /// The first erased type in \p T, looking through the containers.
  std::optional<QualType> findErased(QualType T) const;

  /// Whether every erased type in \p T (looking through the containers) is
  /// a callable one (a class with a call operator: std::function and its
  /// kin), and there is one: a value of \p T holds functions, not data.
  bool erasesOnlyCallables(QualType T) const;

private:
  /// Calls \p Visit with each erased type in \p T, looking through the
  /// containers, until it returns false; false then.
  bool forEachErased(QualType T, llvm::function_ref<bool(QualType)> Visit) const;

  bool isTensorType(QualType T) const;

  NamePattern ErasedTypes;
  NamePattern TensorTypes;
};

} // namespace clang::tidy::gradlint

#endif
