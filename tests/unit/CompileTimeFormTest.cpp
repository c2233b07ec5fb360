#include "ASTFixture.h"
#include "utils/CompileTimeForm.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::tidy::gradlint;

namespace {

const char Library[] = R"(
namespace lib {
template <typename T, int R> struct Tensor {};
struct Any { template <typename T, int R> Any(const Tensor<T, R> &); };
template <int A> struct Axis {};
template <typename T, T V> struct constant {};
}
)";

/// Runs the finder on the single call to `cat` in \p Code.
std::optional<CompileTimeForm> findFor(const std::string &Code,
                                       unsigned AxisIndex) {
  gradlint::test::ParsedSnippet &S = gradlint::test::parseKept(Library + Code);
  const auto *Call =
      S.find<CallExpr>(callExpr(callee(functionDecl(hasName("cat")))));
  if (!Call)
    return std::nullopt;
  llvm::SmallVector<const Expr *, 4> Args(Call->arguments());
  CompileTimeFormFinder Finder;
  return Finder.find(Call->getDirectCallee(), Args, AxisIndex);
}

TEST(CompileTimeForm, TemplateWithLeadingIntegerParameter) {
  auto Form = findFor(R"(
    namespace lib {
    template <typename T, int R> Tensor<T, R> cat(const Tensor<T, R> &, const Tensor<T, R> &, int axis);
    template <int A, typename T, int R> Tensor<T, R> cat(const Tensor<T, R> &, const Tensor<T, R> &);
    }
    void f(lib::Tensor<float, 2> x) { lib::cat(x, x, 1); }
  )", 2);
  ASSERT_TRUE(Form);
  EXPECT_EQ(Form->Kind, CompileTimeForm::TemplateArgument);
  ASSERT_TRUE(Form->Declaration);
  EXPECT_EQ(Form->Declaration->getQualifiedNameAsString(), "lib::cat");
}

TEST(CompileTimeForm, TemplateMustAcceptTheWrittenArguments) {
  const char *Decls = R"(
    namespace lib {
    Any cat(const Any &, const Any &, int axis);
    template <int A, typename T, int R> Tensor<T, R> cat(const Tensor<T, R> &, const Tensor<T, R> &);
    }
  )";
  // Tensors that deduce T and R consistently: found, through the implicit
  // conversion to the runtime overload's Any.
  EXPECT_TRUE(findFor(std::string(Decls) +
                          "void f(lib::Tensor<float, 2> x) { lib::cat(x, x, 1); }",
                      2));
  // Different ranks: deduction of R would fail.
  EXPECT_FALSE(findFor(std::string(Decls) +
                           "void f(lib::Tensor<float, 2> x, lib::Tensor<float, 3> y) "
                           "{ lib::cat(x, y, 1); }",
                       2));
  // Erased arguments: nothing to deduce from.
  EXPECT_FALSE(findFor(std::string(Decls) +
                           "void f(lib::Any x) { lib::cat(x, x, 1); }",
                       2));
}

TEST(CompileTimeForm, LeadingTypeParameterIsNotAnAxis) {
  EXPECT_FALSE(findFor(R"(
    namespace lib {
    template <typename T, int R> Tensor<T, R> cat(const Tensor<T, R> &, int axis);
    template <typename U, int A> U cat(const U &);
    }
    void f(lib::Tensor<float, 2> x) { lib::cat(x, 1); }
  )", 1));
}

TEST(CompileTimeForm, VariadicFormAfterLeadingAxis) {
  auto Form = findFor(R"(
    namespace lib {
    template <typename... Xs> Any cat(int axis, const Xs &...);
    template <int A, typename T, int R, typename... Rest> Tensor<T, R> cat(const Tensor<T, R> &, const Rest &...);
    }
    void f(lib::Tensor<float, 2> x) { lib::cat(0, x, x, x); }
  )", 0);
  ASSERT_TRUE(Form);
  EXPECT_EQ(Form->Kind, CompileTimeForm::TemplateArgument);
}

TEST(CompileTimeForm, AxisTagOverload) {
  auto Form = findFor(R"(
    namespace lib {
    template <typename T, int R> Tensor<T, R> cat(const Tensor<T, R> &, const Tensor<T, R> &, int dim);
    template <typename T, int R, int A> Tensor<T, R> cat(const Tensor<T, R> &, const Tensor<T, R> &, Axis<A>);
    }
    void f(lib::Tensor<float, 2> x) { lib::cat(x, x, 1); }
  )", 2);
  ASSERT_TRUE(Form);
  EXPECT_EQ(Form->Kind, CompileTimeForm::AxisTag);
  ASSERT_TRUE(Form->Tag);
  EXPECT_EQ(Form->Tag->getQualifiedNameAsString(), "lib::Axis");
  EXPECT_EQ(Form->TagArgsBefore, "");
  EXPECT_EQ(Form->TagArgsAfter, "");
}

TEST(CompileTimeForm, IntegralConstantTagKeepsItsOtherArguments) {
  auto Form = findFor(R"(
    namespace lib {
    struct M {};
    M cat(const M &, const M &, int axis);
    template <int A> M cat(const M &, const M &, constant<int, A>);
    }
    void f(lib::M m) { lib::cat(m, m, 0); }
  )", 2);
  ASSERT_TRUE(Form);
  EXPECT_EQ(Form->Kind, CompileTimeForm::AxisTag);
  EXPECT_EQ(Form->TagArgsBefore, "int, ");
  EXPECT_EQ(Form->TagArgsAfter, "");
}

TEST(CompileTimeForm, MemberTemplate) {
  gradlint::test::ParsedSnippet S(R"(
    template <int R> struct Tensor {
      Tensor concatenate(const Tensor &, int axis) const;
      template <int A> Tensor concatenate(const Tensor &) const;
    };
    void f(Tensor<2> a) { a.concatenate(a, 0); }
  )");
  const auto *Call = S.find<CXXMemberCallExpr>(cxxMemberCallExpr());
  ASSERT_TRUE(Call);
  llvm::SmallVector<const Expr *, 2> Args(Call->arguments());
  CompileTimeFormFinder Finder;
  auto Form = Finder.find(Call->getDirectCallee(), Args, 1);
  ASSERT_TRUE(Form);
  EXPECT_EQ(Form->Kind, CompileTimeForm::TemplateArgument);
}

TEST(CompileTimeForm, ParameterAcceptsUnifiesStructurally) {
  gradlint::test::ParsedSnippet S(std::string(Library) + R"(
    template <typename T, int R> void pattern(const lib::Tensor<T, R> &, T *, float);
    lib::Tensor<float, 3> t; float *p; int *q; double d; lib::Any any = t;
  )");
  const auto *Pattern = S.find<FunctionDecl>(functionDecl(hasName("pattern")));
  ASSERT_TRUE(Pattern);
  auto TypeOf = [&](const char *Name) {
    return S.find<VarDecl>(varDecl(hasName(Name)))->getType();
  };
  QualType TensorParam = Pattern->getParamDecl(0)->getType();
  EXPECT_TRUE(parameterAccepts(TensorParam, TypeOf("t")));
  EXPECT_FALSE(parameterAccepts(TensorParam, TypeOf("any")));
  QualType PointerParam = Pattern->getParamDecl(1)->getType();
  EXPECT_TRUE(parameterAccepts(PointerParam, TypeOf("p")));
  EXPECT_FALSE(parameterAccepts(PointerParam, TypeOf("d")));
  QualType FloatParam = Pattern->getParamDecl(2)->getType();
  EXPECT_TRUE(parameterAccepts(FloatParam, TypeOf("d")));
  EXPECT_FALSE(parameterAccepts(FloatParam, TypeOf("t")));
}

} // namespace
