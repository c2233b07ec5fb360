//===--- AxisFlowTest.cpp - axis provenance across translation units ------===//
//
// Three translation units parsed separately, their facts recorded as the
// check records them and resolved together: notes across files, through a
// function that passes the axis on, values propagated to explicit
// instantiations, what each RewriteSignatures mode and scope allows, and
// facts (the pullback check's too) that survive their JSON form.

#include "ASTFixture.h"
#include "utils/AxisFlow.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::tidy::gradlint;
using gradlint::test::ParsedSnippet;

namespace {

// a.cpp passes its axis on; b.cpp holds the concatenation (the root);
// c.cpp calls both with constants.
const char *A = "int layer(int x, int axis);\n"
                "int block(int x, int axis) { return layer(x, axis); }\n";
const char *B = "int layer(int x, int axis) { return x + axis; }\n";
const char *C = "int layer(int x, int axis);\nint block(int x, int axis);\n"
                "int run(int x) { return block(x, 3) + block(x, 1) + layer(x, 2); }\n";

struct Program {
  ParsedSnippet UnitA{A, "-std=c++17", "a.cpp"}, UnitB{B, "-std=c++17", "b.cpp"},
      UnitC{C, "-std=c++17", "c.cpp"};
  UnitFlow FlowA, FlowB, FlowC;

  explicit Program(SignatureRewrites Mode) {
    DependentCalls GenericA(UnitA.context()), GenericB(UnitB.context()),
        GenericC(UnitC.context());
    collectFlow(UnitA.context(), FlowA, GenericA);
    collectFlow(UnitC.context(), FlowC, GenericC);
    collectFlow(UnitB.context(), FlowB, GenericB);
    const auto *Layer = UnitB.find<FunctionDecl>(functionDecl(hasName("layer"), isDefinition()));
    FlowB.Functions.push_back(describeFunction(Layer, 1, UnitB.context(), GenericB));
    FlowRoot Root;
    Root.Function = flowKey(Layer);
    Root.Param = 1;
    Root.At = FlowB.Functions.back().ParamAt;
    Root.Mode = Mode;
    Root.Edits.push_back({Root.At.File, 0, 0, "/*compile-time form*/", {}});
    FlowB.Roots.push_back(Root);
  }
};

std::vector<std::string> texts(const FlowProgram::Plan &Plan) {
  std::vector<std::string> Out;
  for (const FlowProgram::Note &N : Plan.Notes)
    Out.push_back(llvm::sys::path::filename(N.At.File).str() + ":" + std::to_string(N.At.Line) +
                  ":" + std::to_string(N.At.Column) + ": " + N.Text);
  return Out;
}

TEST(AxisFlowTest, TracesThroughFilesInnermostFirst) {
  Program P(SignatureRewrites::All);
  FlowProgram Whole({&P.FlowA, &P.FlowB, &P.FlowC}, true, "the 3 translation units analysed");
  std::vector<FlowProgram::Plan> Plans = Whole.resolveAll();
  ASSERT_EQ(Plans.size(), 1u);
  EXPECT_EQ(texts(Plans[0]),
            (std::vector<std::string>{
                "a.cpp:2:46: 'layer' is called here with parameter 'axis' of 'block'",
                "c.cpp:3:62: 'layer' is called here with axis 2",
                "c.cpp:3:34: 'block' is called here with axis 3",
                "c.cpp:3:48: 'block' is called here with axis 1",
                "b.cpp:1:22: every call passes a constant: the fix makes 'axis' a template "
                "parameter of 'layer' and of the functions that pass it on and calls the "
                "compile-time form"}));
  // Each definition in a source file gets one explicit instantiation per
  // axis that reaches it, in order of value.
  std::vector<std::string> Instantiations;
  for (const FlowEdit &E : Plans[0].Edits)
    if (E.Text.find("\ntemplate ") == 0)
      Instantiations.push_back(llvm::sys::path::filename(E.File).str() + E.Text);
  EXPECT_EQ(Instantiations,
            (std::vector<std::string>{
                "a.cpp\ntemplate int block<1>(int);\ntemplate int block<3>(int);",
                "b.cpp\ntemplate int layer<1>(int);\ntemplate int layer<2>(int);"
                "\ntemplate int layer<3>(int);"}));
  // The declarations in a.cpp and c.cpp and the definition in b.cpp.
  auto Has = [&](const char *File, const char *Text) {
    return llvm::any_of(Plans[0].Edits, [&](const FlowEdit &E) {
      return llvm::sys::path::filename(E.File) == File && E.Text == Text;
    });
  };
  EXPECT_TRUE(Has("a.cpp", "template <int axis> "));
  EXPECT_TRUE(Has("b.cpp", "template <int axis> "));
  EXPECT_TRUE(Has("c.cpp", "template <int axis> "));
  EXPECT_TRUE(Has("c.cpp", "<3>"));
  EXPECT_TRUE(Has("a.cpp", "<axis>"));
}

TEST(AxisFlowTest, ExternalLinkageNeedsAllAndTheWholeProgram) {
  Program Internal(SignatureRewrites::Internal);
  FlowProgram Whole({&Internal.FlowA, &Internal.FlowB, &Internal.FlowC}, true, "all");
  FlowProgram::Plan Plan = Whole.resolveAll()[0];
  EXPECT_TRUE(Plan.Edits.empty());
  EXPECT_EQ(texts(Plan).back(),
            "b.cpp:1:22: no fix: 'layer' has external linkage; set RewriteSignatures to 'all' to "
            "change it with every caller in the compilation database");

  Program All(SignatureRewrites::All);
  FlowProgram OneFile({&All.FlowB}, false, "this translation unit");
  Plan = OneFile.resolveAll()[0];
  EXPECT_TRUE(Plan.Edits.empty());
  EXPECT_EQ(texts(Plan), (std::vector<std::string>{
                             "b.cpp:1:22: 'layer' is not called in this translation unit"}));
}

TEST(AxisFlowTest, FactsSurviveJson) {
  Program P(SignatureRewrites::All);
  // The pullback check's facts travel in the same form.
  P.FlowB.Erasures.push_back({"c:@F@scaled", {"b.cpp", 9, 2, 10, {}}, "the erasure", "c:@F@erase"});
  P.FlowC.ErasedOrigins.push_back({{"c.cpp", 4, 1, 5, {}}, "c:@F@scaled", "the erasure"});
  // So do the calls in the functions a whole-program fix may make templates.
  P.FlowA.Calls.push_back({"c:@F@block#I#I#", {"a.cpp", 76, 2, 37, {}}, 76, 90,
                           {{82, 82}, {85, 85}},
                           {{"::layer(int, int, )", "'layer(int, int)' (a.cpp:1)"}}});
  std::vector<UnitFlow> Read(3);
  const UnitFlow *Units[] = {&P.FlowA, &P.FlowB, &P.FlowC};
  for (int I = 0; I < 3; ++I) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    OS << toJSON(*Units[I]);
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
    ASSERT_TRUE(bool(V));
    ASSERT_TRUE(fromJSON(*V, Read[I]));
  }
  FlowProgram Direct({&P.FlowA, &P.FlowB, &P.FlowC}, true, "all");
  FlowProgram FromJson({&Read[0], &Read[1], &Read[2]}, true, "all");
  FlowProgram::Plan X = Direct.resolveAll()[0], Y = FromJson.resolveAll()[0];
  EXPECT_EQ(texts(X), texts(Y));
  EXPECT_EQ(X.Edits, Y.Edits);
  ASSERT_EQ(Read[1].Erasures.size(), 1u);
  EXPECT_EQ(Read[1].Erasures[0].Key, "c:@F@scaled");
  EXPECT_EQ(Read[1].Erasures[0].At.Offset, 9u);
  EXPECT_EQ(Read[1].Erasures[0].Note, "the erasure");
  EXPECT_EQ(Read[1].Erasures[0].PassesOn, "c:@F@erase");
  ASSERT_EQ(Read[2].ErasedOrigins.size(), 1u);
  EXPECT_EQ(Read[2].ErasedOrigins[0].At.Line, 1u);
  EXPECT_EQ(Read[2].ErasedOrigins[0].Callee, "c:@F@scaled");
  ASSERT_EQ(Read[0].Calls.size(), 1u);
  const FlowCall &Call = Read[0].Calls[0];
  EXPECT_EQ(Call.Function, "c:@F@block#I#I#");
  EXPECT_EQ(Call.At.Offset, 76u);
  EXPECT_EQ(Call.End, 90u);
  EXPECT_EQ(Call.Arguments, (std::vector<std::pair<unsigned, unsigned>>{{82, 82}, {85, 85}}));
  ASSERT_EQ(Call.Callees.size(), 1u);
  EXPECT_EQ(Call.Callees[0].second, "'layer(int, int)' (a.cpp:1)");
  // Malformed facts are refused, not half read.
  UnitFlow Bad;
  EXPECT_FALSE(fromJSON(llvm::json::Object{{"arguments", 3}}, Bad));
  llvm::json::Value Calls = toJSON(P.FlowA);
  (*Calls.getAsObject()->getArray("calls"))[0].getAsObject()->erase("extent");
  EXPECT_FALSE(fromJSON(Calls, Bad));
}

TEST(AxisFlowTest, ARuntimeCallerMeansNoFix) {
  ParsedSnippet Unit("int layer(int x, int axis) { return x + axis; }\n"
                     "static int n = 2;\nint run(int x) { return layer(x, 1) + layer(x, n); }\n",
                     "-std=c++17", "d.cpp");
  UnitFlow Flow;
  DependentCalls Generic(Unit.context());
  collectFlow(Unit.context(), Flow, Generic);
  const auto *Layer = Unit.find<FunctionDecl>(functionDecl(hasName("layer")));
  Flow.Functions.push_back(describeFunction(Layer, 1, Unit.context(), Generic));
  FlowRoot Root;
  Root.Function = flowKey(Layer);
  Root.Param = 1;
  Root.At = Flow.Functions.back().ParamAt;
  Root.Mode = SignatureRewrites::All;
  Root.Edits.push_back({Root.At.File, 0, 0, "x", {}});
  Flow.Roots.push_back(Root);
  FlowProgram::Plan Plan = FlowProgram({&Flow}, true, "all").resolveAll()[0];
  EXPECT_TRUE(Plan.Edits.empty());
  EXPECT_EQ(texts(Plan), (std::vector<std::string>{
                             "d.cpp:3:34: 'layer' is called here with axis 1",
                             "d.cpp:3:48: 'layer' is called here with an axis that is not a "
                             "compile-time constant"}));
}

} // namespace

// Calls in templates by a dependent name: found by member syntax, by a
// dependent qualifier and by argument-dependent lookup; one that an
// instantiation resolves to the function is checked there, and does not
// count; a member call never reaches a free function, nor a call by
// ordinary lookup a function its overload set does not hold.
TEST(DependentCallsTest, UninstantiatedCallsByName) {
  ParsedSnippet Unit(
      "struct A { int back(int) const { return 1; } static int make() { return 2; } };\n"
      "struct B { int back(int) const { return 3; } };\n"
      "namespace n { struct X {}; int walk(const X &, int) { return 4; } }\n"
      "int walk(int, int) { return 5; }\n"
      "template <class N> int run(const N &x) { return x.back(1); }\n"
      "template <class N> int made() { return N::make(); }\n"
      "template <class N> int step(const N &x) { return walk(x, 1); }\n"
      "int use() { return run(B{}); }\n",
      "-std=c++17", "g.cpp");
  DependentCalls Generic(Unit.context());
  auto Method = [&](const char *Class, const char *Name) {
    return Unit.find<FunctionDecl>(
        cxxMethodDecl(hasName(Name), ofClass(hasName(Class)), unless(isImplicit())));
  };
  auto LineOf = [&](const Expr *E) {
    return E ? Unit.context().getSourceManager().getSpellingLineNumber(E->getBeginLoc()) : 0u;
  };
  // run<B> resolves x.back to B::back only: A's is unchecked.
  EXPECT_EQ(LineOf(Generic.uninstantiatedCallOf(Method("A", "back"))), 5u);
  EXPECT_EQ(Generic.uninstantiatedCallOf(Method("B", "back")), nullptr);
  EXPECT_EQ(LineOf(Generic.uninstantiatedCallOf(Method("A", "make"))), 6u);
  // walk(x, 1) may find n::walk by argument-dependent lookup, and the
  // global one by ordinary lookup.
  const auto *NWalk = Unit.find<FunctionDecl>(functionDecl(hasName("::n::walk")));
  const auto *Walk = Unit.find<FunctionDecl>(functionDecl(hasName("::walk")));
  EXPECT_EQ(LineOf(Generic.uninstantiatedCallOf(NWalk)), 7u);
  EXPECT_EQ(LineOf(Generic.uninstantiatedCallOf(Walk)), 7u);
  // A function no dependent call names.
  EXPECT_EQ(Generic.uninstantiatedCallOf(Unit.find<FunctionDecl>(functionDecl(hasName("use")))),
            nullptr);
}
