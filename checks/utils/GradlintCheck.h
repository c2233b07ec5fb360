//===--- GradlintCheck.h - what every gradlint check shares ---------------===//

#ifndef GRADLINT_CHECKS_UTILS_GRADLINTCHECK_H
#define GRADLINT_CHECKS_UTILS_GRADLINTCHECK_H

#include "utils/NamePattern.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::gradlint {

/// A clang-tidy check with gradlint's option helpers.
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
};

} // namespace clang::tidy::gradlint

#endif
