//===--- WholeProgram.cpp - axis provenance across translation units ------===//

#include "WholeProgram.h"
#include "Inputs.h"
#include "SourceFacts.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <map>
#include <set>

using namespace llvm;
using namespace clang;
using clang::tidy::ClangTidyError;
namespace flow = clang::tidy::gradlint;

namespace gradlint {
namespace {

constexpr llvm::StringLiteral CheckName = "gradlint-runtime-concat-axis";

/// The first error of a parse, as "file:line:col: message".
class FirstError : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level Level, const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error || !Text.empty())
      return;
    SmallString<128> Message;
    Info.FormatDiagnostic(Message);
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      PresumedLoc P = Info.getSourceManager().getPresumedLoc(Info.getLocation());
      if (P.isValid())
        Text = formatv("{0}:{1}:{2}: ", sys::path::filename(P.getFilename()), P.getLine(),
                       P.getColumn())
                   .str();
    }
    Text += Message.str();
  }
  std::string Text;
};

/// The finding of \p Check at \p At, matching paths as written and as
/// real paths (a symlinked source root).
class FindingIndex {
public:
  explicit FindingIndex(std::vector<ClangTidyError> &Errors) : Errors(Errors) {}

  ClangTidyError *find(StringRef Check, const flow::FlowPoint &At) {
    auto It = llvm::find_if(Errors, [&](const ClangTidyError &E) {
      return E.DiagnosticName == Check && E.Message.FileOffset == At.Offset &&
             real(E.Message.FilePath) == real(At.File);
    });
    return It == Errors.end() ? nullptr : &*It;
  }

private:
  const std::string &real(const std::string &Path) {
    auto [It, New] = RealPaths.try_emplace(Path);
    if (New)
      It->second = realPath(makeAbsolute(Path)).value_or(Path);
    return It->second;
  }
  std::vector<ClangTidyError> &Errors;
  std::map<std::string, std::string> RealPaths;
};

bool samePlan(const flow::FlowProgram::Plan &A, const flow::FlowProgram::Plan &B) {
  if (A.Edits != B.Edits || A.Notes.size() != B.Notes.size())
    return false;
  for (size_t I = 0; I < A.Notes.size(); ++I)
    if (A.Notes[I].Text != B.Notes[I].Text || A.Notes[I].At.File != B.Notes[I].At.File ||
        A.Notes[I].At.Offset != B.Notes[I].At.Offset)
      return false;
  return true;
}

bool mentions(const flow::UnitFlow &U, const std::set<std::string> &Files) {
  auto In = [&](const std::string &F) { return Files.count(F) != 0; };
  for (const flow::FlowArgument &A : U.Arguments)
    if (In(A.At.File))
      return true;
  for (const flow::FlowFunction &F : U.Functions)
    if (In(F.ParamAt.File) ||
        llvm::any_of(F.Edits, [&](const flow::FlowEdit &E) { return In(E.File); }))
      return true;
  for (const flow::FlowRoot &R : U.Roots)
    if (In(R.At.File))
      return true;
  return false;
}

/// Applies Edits in memory and parses every file of Files whose facts
/// mention an edited file (or that is one). Empty when all compile;
/// otherwise the first error.
std::string prove(const std::vector<flow::FlowEdit> &Edits, ArrayRef<flow::UnitFlow> Flows,
                  const tooling::CompilationDatabase &Database, ArrayRef<std::string> Files) {
  std::map<std::string, std::vector<const flow::FlowEdit *>> ByFile;
  for (const flow::FlowEdit &E : Edits)
    ByFile[E.File].push_back(&E);
  std::set<std::string> Edited;
  std::map<std::string, std::string> Contents;
  for (auto &[File, List] : ByFile) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(File);
    if (!Buffer)
      return "cannot read " + File;
    std::string Text = (*Buffer)->getBuffer().str();
    // From the end, so that earlier offsets stay valid.
    for (auto It = List.rbegin(); It != List.rend(); ++It) {
      const flow::FlowEdit &E = **It;
      if (E.Offset + E.Length > Text.size())
        return File + " changed since it was analysed";
      Text.replace(E.Offset, E.Length, E.Text);
    }
    Contents[File] = std::move(Text);
    Edited.insert(File);
  }
  std::vector<std::string> Units;
  for (size_t I = 0; I < Files.size(); ++I) {
    std::string Main = makeAbsolute(Files[I]).str().str();
    const flow::UnitFlow &U = Flows[Flows.size() == Files.size() ? I : 0];
    if (Edited.count(Main) || mentions(U, Edited))
      Units.push_back(Files[I]);
  }
  // One tool per file: ClangTool prints progress when given several.
  for (const std::string &Unit : Units) {
    tooling::ClangTool Tool(Database, {Unit});
    for (const auto &[File, Text] : Contents)
      Tool.mapVirtualFile(File, Text);
    FirstError Errors;
    Tool.setDiagnosticConsumer(&Errors);
    int Status = Tool.run(tooling::newFrontendActionFactory<SyntaxOnlyAction>().get());
    if (!Errors.Text.empty())
      return Errors.Text;
    if (Status)
      return sys::path::filename(Unit).str() + " does not compile";
  }
  return "";
}

} // namespace

unsigned resolveWholeProgram(std::vector<ClangTidyError> &Errors,
                             ArrayRef<flow::UnitFlow> Flows,
                             const tooling::CompilationDatabase &Database,
                             ArrayRef<std::string> Files,
                             const std::function<bool(StringRef)> &Editable) {
  std::vector<const flow::UnitFlow *> Units;
  for (const flow::UnitFlow &U : Flows)
    Units.push_back(&U);
  if (llvm::none_of(Flows, [](const flow::UnitFlow &U) { return !U.Roots.empty(); }))
    return 0;
  std::string Scope = Files.size() == 1
                          ? "this translation unit"
                          : formatv("the {0} translation units analysed", Files.size()).str();
  flow::FlowProgram Program(Units, /*WholeProgram=*/true, Scope);
  Program.block([&](const flow::FlowFunction &F) -> std::string {
    for (const flow::FlowEdit &E : F.Edits)
      if (!Editable(E.File))
        return F.Name + " is declared in " + sys::path::filename(E.File).str() +
               ", outside the source root";
    return "";
  });
  std::vector<flow::FlowProgram::Plan> Plans = Program.resolveAll();

  // What each translation unit's check reported, to leave alone what the
  // other files do not change.
  std::map<std::pair<std::string, unsigned>, flow::FlowProgram::Plan> Local;
  for (const flow::UnitFlow &U : Flows) {
    if (U.Roots.empty())
      continue;
    flow::FlowProgram One({&U}, /*WholeProgram=*/false, "this translation unit");
    std::vector<flow::FlowProgram::Plan> OnePlans = One.resolveAll();
    for (size_t I = 0; I < OnePlans.size(); ++I)
      Local.emplace(std::make_pair(One.roots()[I].At.File, One.roots()[I].At.Offset),
                    std::move(OnePlans[I]));
  }

  FindingIndex Findings(Errors);
  unsigned Withdrawn = 0;
  for (size_t I = 0; I < Plans.size(); ++I) {
    const flow::FlowRoot &Root = Program.roots()[I];
    const flow::FlowProgram::Plan &Plan = Plans[I];
    auto Mine = Local.find({Root.At.File, Root.At.Offset});
    if (Mine == Local.end() || samePlan(Plan, Mine->second))
      continue;
    ClangTidyError *Finding = Findings.find(CheckName, Root.At);
    if (!Finding) // filtered out (NOLINT, line filter)
      continue;
    // The check's notes: its plan's, maybe a withdrawn fix's, then the
    // compile-time form's.
    std::vector<tooling::DiagnosticMessage> Kept;
    for (size_t N = Mine->second.Notes.size(); N < Finding->Notes.size(); ++N)
      if (!StringRef(Finding->Notes[N].Message).starts_with("fix withdrawn"))
        Kept.push_back(Finding->Notes[N]);
    Finding->Notes.clear();
    auto AddNote = [&](const flow::FlowPoint &At, const std::string &Text) {
      tooling::DiagnosticMessage M;
      M.Message = Text;
      M.FilePath = At.File;
      M.FileOffset = At.Offset;
      Finding->Notes.push_back(std::move(M));
    };
    for (const flow::FlowProgram::Note &N : Plan.Notes)
      AddNote(N.At, N.Text);
    if (Plan.Edits != Mine->second.Edits) {
      Finding->Message.Fix.clear();
      if (!Plan.Edits.empty()) {
        std::string Error = prove(Plan.Edits, Flows, Database, Files);
        for (const flow::FlowEdit &E : Plan.Edits)
          if (Error.empty())
            if (llvm::Error Conflict = Finding->Message.Fix[E.File].add(
                    tooling::Replacement(E.File, E.Offset, E.Length, E.Text)))
              Error = toString(std::move(Conflict));
        if (!Error.empty()) {
          Finding->Message.Fix.clear();
          AddNote(Root.At, "fix withdrawn: with it the code does not compile: " + Error);
          ++Withdrawn;
        }
      }
    }
    for (tooling::DiagnosticMessage &M : Kept)
      Finding->Notes.push_back(std::move(M));
  }
  return Withdrawn;
}

void traceErasures(std::vector<ClangTidyError> &Errors, ArrayRef<flow::UnitFlow> Flows) {
  // A function defined in several files (inline, in a header) is the same
  // function: the first definition is the one named.
  std::map<std::string, const flow::FlowErasure *> Defined;
  for (const flow::UnitFlow &U : Flows)
    for (const flow::FlowErasure &E : U.Erasures)
      Defined.emplace(E.Key, &E);
  FindingIndex Findings(Errors);
  for (const flow::UnitFlow &U : Flows)
    for (const flow::FlowErasedOrigin &Origin : U.ErasedOrigins) {
      // As far as a translation unit's own chain goes (4 functions).
      std::vector<const flow::FlowErasure *> Chain;
      std::set<std::string> Seen;
      for (std::string Key = Origin.Callee; !Key.empty() && Chain.size() < 4;) {
        auto It = Defined.find(Key);
        if (It == Defined.end() || !Seen.insert(Key).second)
          break;
        Chain.push_back(It->second);
        Key = It->second->PassesOn;
      }
      ClangTidyError *Finding =
          Chain.empty() ? nullptr : Findings.find("gradlint-type-erased-pullback", Origin.At);
      if (!Finding)
        continue;
      auto Declared = llvm::find_if(Finding->Notes, [&](const tooling::DiagnosticMessage &M) {
        return M.Message == Origin.Note;
      });
      if (Declared == Finding->Notes.end())
        continue;
      std::vector<tooling::DiagnosticMessage> Traced;
      for (const flow::FlowErasure *E : llvm::reverse(Chain)) {
        tooling::DiagnosticMessage M;
        M.Message = E->Note;
        M.FilePath = E->At.File;
        M.FileOffset = E->At.Offset;
        Traced.push_back(std::move(M));
      }
      Declared = Finding->Notes.erase(Declared);
      Finding->Notes.insert(Declared, Traced.begin(), Traced.end());
    }
}

} // namespace gradlint
