//===--- SourceFactsTest.cpp - the lexical facts behind fingerprints ------===//

#include "ChangedLines.h"
#include "SourceFacts.h"
#include "gtest/gtest.h"

using namespace gradlint;

namespace {

/// The declaration around the first occurrence of \p Marker in \p Code.
std::string contextOf(llvm::StringRef Code, llvm::StringRef Marker) {
  size_t At = Code.find(Marker);
  EXPECT_NE(At, llvm::StringRef::npos) << Marker.str();
  return enclosingDeclaration(scanDeclarationBlocks(Code), At);
}

TEST(EnclosingDeclaration, NamespacesClassesFunctions) {
  const char *Code = R"cpp(
#include <vector>
namespace ad { namespace ops {
struct Cat : Base<Cat> {
  Tensor forward(int axis) const { return A_; }
  template <int N> static Tensor grow(Tensor x) { if (N > 0) { return B_; } return x; }
};
Tensor Cat::backward(Tensor dy) { for (int i = 0; i < 3; ++i) { C_; } return dy; }
} }
namespace { void helper() { D_; } }
inline namespace v1 { enum class Kind : int { E_ }; }
std::any erased_pullback(int E2_) { return {}; }
int G_ = 1;
)cpp";
  EXPECT_EQ(contextOf(Code, "A_"), "ad::ops::Cat::forward");
  EXPECT_EQ(contextOf(Code, "B_"), "ad::ops::Cat::grow");
  EXPECT_EQ(contextOf(Code, "C_"), "ad::ops::Cat::backward");
  EXPECT_EQ(contextOf(Code, "D_"), "(anonymous namespace)::helper");
  EXPECT_EQ(contextOf(Code, "E_"), "v1::Kind");
  // On the declaration's own name (before its body): the declaration.
  EXPECT_EQ(contextOf(Code, "erased_pullback"), "erased_pullback");
  EXPECT_EQ(contextOf(Code, "E2_"), "erased_pullback");
  EXPECT_EQ(contextOf(Code, "G_"), "");
}

TEST(EnclosingDeclaration, LambdasInitialisersAndOperatorsAreNotNames) {
  const char *Code = R"cpp(
auto make() {
  auto pullback = [=](const T &dy) { return A_; };
  std::vector<int> v = {1, 2};
  run([&] { B_; }, std::vector<int>{3});
  return pullback;
}
struct F { auto operator()(int x) const { return C_; } };
T operator+(T a, T b) { return D_; }
)cpp";
  EXPECT_EQ(contextOf(Code, "A_"), "make");
  EXPECT_EQ(contextOf(Code, "B_"), "make");
  EXPECT_EQ(contextOf(Code, "C_"), "F::operator()");
  EXPECT_EQ(contextOf(Code, "D_"), "operator+");
}

TEST(EnclosingDeclaration, CommentsLiteralsAndDirectivesHideBraces) {
  const char *Code = R"cpp(
// a comment { with a brace
/* and { another */
#define OPEN {
#define LONG_MACRO(x) \
  if (x) {
const char *s = "}{";
const char *r = R"x(} { )" )x";
char c = '{';
int n = 1'000'000;
void f() { A_; }
)cpp";
  EXPECT_EQ(contextOf(Code, "A_"), "f");
}

TEST(EnclosingDeclaration, UnbalancedTextNeverFails) {
  EXPECT_EQ(contextOf("void f() { A_ ", "A_"), "f");
  EXPECT_EQ(contextOf("} } void g() { B_ }", "B_"), "g");
  EXPECT_EQ(contextOf("\"unterminated\nvoid h() { C_ }", "C_"), "h");
}

TEST(ChangedLines, ParsesNewSideOfUnifiedDiff) {
  const char *Diff = R"(diff --git src/a.cpp src/a.cpp
index 1..2 100644
--- src/a.cpp
+++ src/a.cpp
@@ -3 +3 @@ int x;
-old
+new
@@ -10,0 +11,2 @@
+added
+added
@@ -20,2 +22,0 @@
-gone
-gone
diff --git src/gone.cpp src/gone.cpp
--- src/gone.cpp
+++ /dev/null
@@ -1,2 +0,0 @@
diff --git src/only_deleted.cpp src/only_deleted.cpp
--- src/only_deleted.cpp
+++ src/only_deleted.cpp
@@ -4 +3,0 @@
-x
--- "src/caf\303\251 \"q\".cpp"
+++ "src/caf\303\251 \"q\".cpp"
@@ -0,0 +1 @@
+new file
)";
  ChangedLines Lines = parseUnifiedDiff(Diff, "/nonexistent-root");
  EXPECT_EQ(Lines.Files.size(), 2u);
  EXPECT_TRUE(Lines.contains("/nonexistent-root/src/a.cpp", 3));
  EXPECT_FALSE(Lines.contains("/nonexistent-root/src/a.cpp", 4));
  EXPECT_FALSE(Lines.contains("/nonexistent-root/src/a.cpp", 10));
  EXPECT_TRUE(Lines.contains("/nonexistent-root/src/a.cpp", 11));
  EXPECT_TRUE(Lines.contains("/nonexistent-root/src/a.cpp", 12));
  EXPECT_FALSE(Lines.contains("/nonexistent-root/src/a.cpp", 13));
  EXPECT_FALSE(Lines.contains("/nonexistent-root/src/a.cpp", 22));
  EXPECT_FALSE(Lines.Files.count("/nonexistent-root/src/only_deleted.cpp"));
  EXPECT_TRUE(Lines.contains("/nonexistent-root/src/caf\xc3\xa9 \"q\".cpp", 1));
}

} // namespace
