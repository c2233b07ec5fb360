//===--- NamePattern.h - glob lists for names -----------------------------===//
//
// A semicolon-separated list of globs (`cat;concat;*_pullback`) matched
// against whole identifiers. Exact names are checked with a hash lookup; only
// globs with a wildcard fall back to a single pre-compiled regular expression,
// so matching a name never compiles anything.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_CHECKS_UTILS_NAMEPATTERN_H
#define GRADLINT_CHECKS_UTILS_NAMEPATTERN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"
#include <optional>
#include <string>

namespace clang::tidy::gradlint {

class NamePattern {
public:
  /// Parses \p Globs; on failure returns std::nullopt and sets \p Error.
  static std::optional<NamePattern> parse(llvm::StringRef Globs,
                                          std::string &Error);

  bool matches(llvm::StringRef Name) const;
  bool empty() const { return Exact.empty() && !Wildcards; }

private:
  llvm::StringSet<> Exact;
  std::optional<llvm::Regex> Wildcards;
};

} // namespace clang::tidy::gradlint

#endif
