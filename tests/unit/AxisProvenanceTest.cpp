#include "ASTFixture.h"
#include "utils/AxisProvenance.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::tidy::gradlint;

namespace {

const char Prelude[] = R"(
template <int R> struct T {
  static constexpr int rank() { return R; }
  static constexpr int ndims = R;
  constexpr int dims() const { return R; }
};
void use(int);
constexpr int twice(int v) { return 2 * v; }
enum E { E0, E1, E2 };
constexpr int kAxis = 2;
int runtime();
)";

/// Classifies the argument of the call to `use` in \p Body.
AxisProvenance classifyIn(const std::string &Body,
                          const std::string &Standard = "-std=c++17") {
  gradlint::test::ParsedSnippet &S = gradlint::test::parseKept(Prelude + Body, Standard);
  const auto *Call = S.find<CallExpr>(
      callExpr(callee(functionDecl(hasName("use"))),
               unless(isInTemplateInstantiation())));
  if (!Call)
    return {};
  return classifyAxis(Call->getArg(0), S.context());
}

TEST(AxisProvenance, LiteralsEnumeratorsAndConstexprAreConstants) {
  for (const char *Body :
       {"void f() { use(3); }", "void f() { use(E1); }",
        "void f() { use(kAxis); }", "void f() { const int k = 1; use(k); }",
        "void f() { use(twice(kAxis) - 1); }",
        "void f() { use(sizeof(int) > 2 ? 1 : 0); }"}) {
    AxisProvenance P = classifyIn(Body);
    EXPECT_EQ(P.Origin, AxisOrigin::Constant) << Body;
    EXPECT_TRUE(P.Value) << Body;
  }
}

TEST(AxisProvenance, ConstantValueIsEvaluated) {
  AxisProvenance P = classifyIn("void f() { use(twice(kAxis) - 1); }");
  ASSERT_TRUE(P.Value);
  EXPECT_EQ(P.Value->getExtValue(), 3);
}

TEST(AxisProvenance, StaticRankThroughMembersAndTypes) {
  for (const char *Body :
       {"void f(T<4> x) { use(x.rank() - 1); }",
        "void f(T<4> x) { use(decltype(x)::ndims - 1); }",
        "void f() { use(T<3>::rank()); }",
        "void f(T<4> x) { use(x.dims() - 1); }"}) {
    AxisProvenance P = classifyIn(Body);
    EXPECT_EQ(P.Origin, AxisOrigin::StaticRank) << Body;
    EXPECT_TRUE(P.Value) << Body;
  }
}

TEST(AxisProvenance, TemplateParameterIsStaticRank) {
  gradlint::test::ParsedSnippet S(std::string(Prelude) +
                                  "template <int N> void f() { use(N - 1); }\n"
                                  "void g() { f<3>(); }");
  const auto *Call = S.find<CallExpr>(
      callExpr(callee(functionDecl(hasName("use"))), isInTemplateInstantiation()));
  ASSERT_TRUE(Call);
  AxisProvenance P = classifyAxis(Call->getArg(0), S.context());
  EXPECT_EQ(P.Origin, AxisOrigin::StaticRank);
  ASSERT_TRUE(P.Value);
  EXPECT_EQ(P.Value->getExtValue(), 2);
}

TEST(AxisProvenance, RankThroughReferenceIsStaticButNotConstantBeforeCxx23) {
  const char *Body = "void f(const T<4> &y) { use(y.rank() - 1); }";
  AxisProvenance Before = classifyIn(Body, "-std=c++17");
  EXPECT_EQ(Before.Origin, AxisOrigin::StaticRank);
  EXPECT_FALSE(Before.Value);
  ASSERT_TRUE(Before.Param);
  EXPECT_EQ(Before.Param->getName(), "y");
  AxisProvenance After = classifyIn(Body, "-std=c++23");
  EXPECT_EQ(After.Origin, AxisOrigin::StaticRank);
  EXPECT_TRUE(After.Value);
}

TEST(AxisProvenance, ParameterOrigin) {
  for (const char *Body : {"void f(int axis) { use(axis); }",
                           "void f(int axis) { use(axis + kAxis); }"}) {
    AxisProvenance P = classifyIn(Body);
    EXPECT_EQ(P.Origin, AxisOrigin::Parameter) << Body;
    ASSERT_TRUE(P.Param) << Body;
    EXPECT_EQ(P.Param->getName(), "axis");
    EXPECT_FALSE(P.Value);
  }
}

TEST(AxisProvenance, RuntimeOriginDominates) {
  for (const char *Body : {"void f() { use(runtime()); }",
                           "void f(int axis) { int a = axis; use(a); }",
                           "void f(int axis) { use(axis + runtime()); }",
                           "int g; void f() { use(g); }"}) {
    AxisProvenance P = classifyIn(Body);
    EXPECT_EQ(P.Origin, AxisOrigin::Runtime) << Body;
    EXPECT_FALSE(P.Value) << Body;
  }
}

} // namespace
