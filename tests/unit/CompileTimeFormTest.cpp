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
  CompileTimeFormFinder Finder;
  return Finder.find(Call->getDirectCallee(), AxisIndex);
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

TEST(CompileTimeForm, FoundByShapeWhateverTheArguments) {
  // Whether the form takes the arguments is the compiler's question (the
  // check proves the rewritten call): erased arguments find it too, and
  // every overload of the form is listed.
  auto Form = findFor(R"(
    namespace lib {
    Any cat(const Any &, const Any &, int axis);
    template <int A, typename T, int R> Tensor<T, R> cat(const Tensor<T, R> &, const Tensor<T, R> &);
    template <int A> Any cat(const Any &, const Any &, const Any &);
    }
    void f(lib::Any x) { lib::cat(x, x, 1); }
  )", 2);
  ASSERT_TRUE(Form);
  EXPECT_EQ(Form->Kind, CompileTimeForm::TemplateArgument);
  EXPECT_EQ(Form->Overloads.size(), 2u);
}

TEST(CompileTimeForm, EnumAndAutoTemplateParameters) {
  EXPECT_TRUE(findFor(R"(
    namespace lib {
    enum Dim { Rows, Cols };
    Any cat(const Any &, const Any &, int axis);
    template <Dim D> Any cat(const Any &, const Any &);
    }
    void f(lib::Any x) { lib::cat(x, x, 1); }
  )", 2));
  EXPECT_TRUE(findFor(R"(
    namespace lib {
    Any cat(const Any &, const Any &, int axis);
    template <auto A> Any cat(const Any &, const Any &);
    }
    void f(lib::Any x) { lib::cat(x, x, 1); }
  )", 2));
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
  CompileTimeFormFinder Finder;
  auto Form = Finder.find(Call->getDirectCallee(), 1);
  ASSERT_TRUE(Form);
  EXPECT_EQ(Form->Kind, CompileTimeForm::TemplateArgument);
}

} // namespace
