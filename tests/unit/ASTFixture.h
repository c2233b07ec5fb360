//===--- ASTFixture.h - parse a snippet and find nodes in it --------------===//

#ifndef GRADLINT_TESTS_UNIT_ASTFIXTURE_H
#define GRADLINT_TESTS_UNIT_ASTFIXTURE_H

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace gradlint::test {

/// A translation unit built from a snippet; compile errors fail the test.
class ParsedSnippet {
public:
  explicit ParsedSnippet(const std::string &Code,
                         const std::string &Standard = "-std=c++17",
                         const std::string &FileName = "snippet.cpp") {
    Unit = clang::tooling::buildASTFromCodeWithArgs(Code, {Standard},
                                                    FileName);
    EXPECT_TRUE(Unit);
    EXPECT_FALSE(Unit->getDiagnostics().hasErrorOccurred()) << Code;
  }

  clang::ASTContext &context() { return Unit->getASTContext(); }

  /// The single node bound to "node" by \p Matcher.
  template <typename NodeT, typename MatcherT> const NodeT *find(MatcherT M) {
    auto Results = clang::ast_matchers::match(M.bind("node"), context());
    EXPECT_EQ(Results.size(), 1u);
    return Results.empty() ? nullptr : Results[0].template getNodeAs<NodeT>("node");
  }

private:
  std::unique_ptr<clang::ASTUnit> Unit;
};

/// A snippet parsed for a helper whose result points into its AST (a
/// declaration, a parameter): the AST lives as long as the test program,
/// so the result stays valid after the helper returns.
inline ParsedSnippet &parseKept(const std::string &Code,
                                const std::string &Standard = "-std=c++17") {
  static std::vector<std::unique_ptr<ParsedSnippet>> Kept;
  Kept.push_back(std::make_unique<ParsedSnippet>(Code, Standard));
  return *Kept.back();
}

} // namespace gradlint::test

#endif
