//===--- OptionLists.h - `qualified::name:index` option values ------------===//

#ifndef GRADLINT_CHECKS_UTILS_OPTIONLISTS_H
#define GRADLINT_CHECKS_UTILS_OPTIONLISTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <string>
#include <vector>

namespace clang::tidy::gradlint {

/// Parsed `qualified::name:index;...` option values: registration
/// functions, axis arguments.
class FunctionArgumentList {
public:
  /// Returns false and sets \p Error on a malformed entry.
  bool parse(llvm::StringRef Option, std::string &Error);
  /// The argument indices configured for \p QualifiedName.
  llvm::ArrayRef<unsigned> indicesFor(llvm::StringRef QualifiedName) const;
  bool mayMatch(llvm::StringRef ShortName) const {
    return ShortNames.contains(ShortName);
  }
  bool empty() const { return Entries.empty(); }

private:
  llvm::StringMap<std::vector<unsigned>> Entries;
  llvm::StringSet<> ShortNames;
};

} // namespace clang::tidy::gradlint

#endif
