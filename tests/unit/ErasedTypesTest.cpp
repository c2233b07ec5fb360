#include "ASTFixture.h"
#include "utils/ErasedTypes.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::tidy::gradlint;

namespace {

const char Types[] = R"(
#include <any>
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <variant>
#include <vector>
namespace lib { struct Tensor {}; struct BigTensor {}; struct AnyTensor {}; }
std::any a; std::function<int(int)> f; void *vp; int *ip;
std::shared_ptr<void> sv; std::shared_ptr<int> si;
std::variant<lib::Tensor, lib::BigTensor> vt; std::variant<int, float> vi;
lib::AnyTensor at; lib::Tensor t;
std::tuple<int, std::vector<std::optional<std::any>>> nested;
std::pair<lib::Tensor, lib::Tensor> pt; std::array<void *, 2> arr;
)";

class ErasedTypesTest : public ::testing::Test {
protected:
  ErasedTypesTest()
      : Snippet(Types), Classifier(pattern("std::any;std::function;lib::AnyTensor"),
                                   pattern("*Tensor")) {}

  static NamePattern pattern(llvm::StringRef Globs) {
    std::string Error;
    return *NamePattern::parse(Globs, Error);
  }
  QualType typeOf(const char *Name) {
    return Snippet.find<VarDecl>(varDecl(hasName(Name)))->getType();
  }

  gradlint::test::ParsedSnippet Snippet;
  ErasedTypeClassifier Classifier;
};

TEST_F(ErasedTypesTest, ErasedTypes) {
  for (const char *Name : {"a", "f", "vp", "sv", "vt", "at"})
    EXPECT_TRUE(Classifier.isErased(typeOf(Name))) << Name;
}

TEST_F(ErasedTypesTest, ConcreteTypes) {
  for (const char *Name : {"ip", "si", "vi", "t", "pt"}) {
    EXPECT_FALSE(Classifier.isErased(typeOf(Name))) << Name;
    EXPECT_FALSE(Classifier.findErased(typeOf(Name))) << Name;
  }
}

TEST_F(ErasedTypesTest, ErasureInsideContainers) {
  std::optional<QualType> Found = Classifier.findErased(typeOf("nested"));
  ASSERT_TRUE(Found);
  EXPECT_EQ(qualifiedClassName(*Found), "std::any");
  Found = Classifier.findErased(typeOf("arr"));
  ASSERT_TRUE(Found);
  EXPECT_TRUE((*Found)->isVoidPointerType());
}

TEST_F(ErasedTypesTest, ContainerKinds) {
  EXPECT_EQ(containerKind(typeOf("nested")), ContainerKind::Tuple);
  EXPECT_EQ(containerKind(typeOf("pt")), ContainerKind::Pair);
  EXPECT_EQ(containerKind(typeOf("arr")), ContainerKind::Array);
  EXPECT_EQ(containerKind(typeOf("t")), ContainerKind::None);
}

} // namespace
