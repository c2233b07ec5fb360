#include "utils/NamePattern.h"
#include <gtest/gtest.h>

using clang::tidy::gradlint::NamePattern;

namespace {

NamePattern parse(llvm::StringRef Globs) {
  std::string Error;
  std::optional<NamePattern> P = NamePattern::parse(Globs, Error);
  EXPECT_TRUE(P) << Error;
  return P ? std::move(*P) : NamePattern();
}

TEST(NamePattern, ExactNamesMatchWholeIdentifiersOnly) {
  NamePattern P = parse("cat;concat");
  EXPECT_TRUE(P.matches("cat"));
  EXPECT_TRUE(P.matches("concat"));
  EXPECT_FALSE(P.matches("concatenate"));
  EXPECT_FALSE(P.matches("scat"));
  EXPECT_FALSE(P.matches(""));
}

TEST(NamePattern, WildcardsAreAnchored) {
  NamePattern P = parse("*_pullback; vjp ;*Backward");
  EXPECT_TRUE(P.matches("cat_pullback"));
  EXPECT_TRUE(P.matches("_pullback"));
  EXPECT_TRUE(P.matches("vjp"));
  EXPECT_TRUE(P.matches("ConvBackward"));
  EXPECT_FALSE(P.matches("cat_pullback2"));
  EXPECT_FALSE(P.matches("pullback"));
}

TEST(NamePattern, EmptyListMatchesNothing) {
  NamePattern P = parse(";;");
  EXPECT_TRUE(P.empty());
  EXPECT_FALSE(P.matches("cat"));
}

TEST(NamePattern, RejectsRegexSyntax) {
  std::string Error;
  EXPECT_FALSE(NamePattern::parse("cat;(con)cat", Error));
  EXPECT_NE(Error.find("(con)cat"), std::string::npos);
  EXPECT_FALSE(NamePattern::parse("c.t", Error));
}

} // namespace
