//===--- WholeProgram.cpp - axis provenance across translation units ------===//

#include "WholeProgram.h"
#include "Inputs.h"
#include "SourceFacts.h"
#include "utils/CallResolution.h"
#include "utils/FixProof.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
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

/// What the calls a fix leaves as written, in the functions it makes
/// templates, resolve to now (FlowCall): by the real path of the file and
/// the offset where each names its callee.
struct CallBefore {
  const flow::FlowCall *Call = nullptr;
  std::set<std::string> Identities;
  std::vector<std::string> Shown;
};
using CallsBefore = std::map<std::pair<std::string, unsigned>, CallBefore>;

CallsBefore unchangedCalls(const std::vector<flow::FlowEdit> &Edits,
                           ArrayRef<flow::UnitFlow> Flows) {
  // The functions the fix makes templates: those whose declarations it edits.
  std::set<std::string> Templated;
  for (const flow::UnitFlow &U : Flows)
    for (const flow::FlowFunction &F : U.Functions)
      if (llvm::any_of(F.Edits, [&](const flow::FlowEdit &E) {
            return llvm::is_contained(Edits, E);
          }))
        Templated.insert(F.Key);
  CallsBefore Before;
  for (const flow::UnitFlow &U : Flows)
    for (const flow::FlowCall &C : U.Calls) {
      if (!Templated.count(C.Function))
        continue;
      // A call the fix edits outside its arguments is rewritten (a caller
      // passing the axis as a template argument, the concatenation): the
      // fix says what it calls.
      auto Inside = [](unsigned Offset, unsigned Begin, unsigned End) {
        return Begin <= Offset && Offset <= End;
      };
      if (llvm::any_of(Edits, [&](const flow::FlowEdit &E) {
            return E.File == C.At.File && Inside(E.Offset, C.Begin, C.End) &&
                   llvm::none_of(C.Arguments, [&](const std::pair<unsigned, unsigned> &Arg) {
                     return Inside(E.Offset, Arg.first, Arg.second);
                   });
          }))
        continue;
      CallBefore &B = Before[{flow::realFileName(C.At.File), C.At.Offset}];
      B.Call = &C;
      for (const auto &[Identity, Shown] : C.Callees)
        if (B.Identities.insert(Identity).second)
          B.Shown.push_back(Shown);
    }
  return Before;
}

/// The line of \p Offset in the file at \p Path, as it is on disk.
unsigned lineOf(const std::string &Path, unsigned Offset) {
  static std::map<std::string, std::string> Texts;
  auto [It, New] = Texts.try_emplace(Path);
  if (New)
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path))
      It->second = (*Buffer)->getBuffer().str();
  StringRef Text = StringRef(It->second).take_front(Offset);
  return 1 + Text.count('\n');
}

/// A syntax-only parse of one translation unit with the fix's files given
/// as text, that records what the calls in \p Before resolve to.
class ResolvingAction : public SyntaxOnlyAction {
public:
  /// Each edited file (its real path), its unique ID on disk, and how its
  /// offsets map back.
  struct EditedFile {
    sys::fs::UniqueID UID;
    const flow::OffsetMap *Offsets;
  };
  ResolvingAction(const std::map<std::string, EditedFile> &Edited, const CallsBefore &Before,
                  std::string &Reason)
      : Edited(Edited), Before(Before), Reason(Reason) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &, StringRef) override {
    struct Consumer : ASTConsumer {
      ResolvingAction &A;
      explicit Consumer(ResolvingAction &A) : A(A) {}
      void HandleTranslationUnit(ASTContext &Ctx) override { A.compare(Ctx); }
    };
    return std::make_unique<Consumer>(*this);
  }

private:
  void compare(ASTContext &Ctx) {
    const SourceManager &SM = Ctx.getSourceManager();
    if (Before.empty() || Ctx.getDiagnostics().hasErrorOccurred())
      return;
    // The real path of each file of the parse.
    std::map<FileID, std::string> Names;
    auto RealName = [&](FileID File) -> const std::string & {
      auto [It, New] = Names.try_emplace(File);
      if (New)
        if (OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File)) {
          SmallString<256> Path(Entry->getName());
          SM.getFileManager().makeAbsolutePath(Path);
          It->second = flow::realFileName(Path);
        }
      return It->second;
    };
    std::map<sys::fs::UniqueID, std::string> ByID;
    for (const auto &[Name, File] : Edited)
      ByID.emplace(File.UID, Name);
    auto Original = [&](SourceLocation Loc) -> std::optional<flow::SourceSite> {
      std::optional<flow::SourceSite> Site = flow::siteAt(Loc, SM);
      if (!Site)
        return std::nullopt;
      const std::string &Name = RealName(SM.getFileID(SM.getFileLoc(Loc)));
      auto It = Edited.find(Name);
      if (It == Edited.end()) {
        ByID.emplace(Site->File, Name);
        return Site;
      }
      return flow::SourceSite{It->second.UID, It->second.Offsets->original(Site->Offset)};
    };
    std::set<flow::SourceSite> Pinned;
    std::map<flow::SourceSite, const CallBefore *> Sites;
    for (const auto &[Place, Call] : Before) {
      sys::fs::UniqueID UID;
      if (sys::fs::getUniqueID(Place.first, UID))
        continue;
      flow::SourceSite Site{UID, Place.second};
      Pinned.insert(Site);
      Sites.emplace(Site, &Call);
    }
    flow::ResolvedCalls Found = flow::resolveCalls(Ctx, {}, Pinned, Original);
    auto FileName = [&](sys::fs::UniqueID UID) {
      auto It = ByID.find(UID);
      return It == ByID.end() ? std::string("?") : It->second;
    };
    for (const auto &[Site, Now] : Found.Pinned) {
      auto Was = Sites.find(Site);
      if (Was == Sites.end() || !Reason.empty())
        continue;
      const CallBefore &B = *Was->second;
      std::vector<std::string> Shown;
      bool Changed = false;
      for (const auto &[Identity, Callee] : Now.Callees) {
        // Declared before the call: chosen for the rewritten code's types,
        // as where the call is written (see FixProof's Unchanged).
        Changed |= !Callee.DeclaredBefore &&
                   !B.Identities.count(flow::portableIdentity(Identity, Callee, FileName));
        std::string Text = Callee.Name;
        if (Callee.Site) {
          std::string Path = FileName(Callee.Site->File);
          Text = "'" + Callee.Name + "' (" + sys::path::filename(Path).str() + ":" +
                 std::to_string(lineOf(Path, Callee.Site->Offset)) + ")";
        }
        Shown.push_back(std::move(Text));
      }
      if (!Changed)
        continue;
      Reason = flow::resolvedAgainReason(flow::placeText(B.Call->At), join(Shown, " or "),
                                         join(B.Shown, " or "));
    }
  }

  const std::map<std::string, EditedFile> &Edited;
  const CallsBefore &Before;
  std::string &Reason;
};

/// Applies Edits in memory and parses every file of Files whose facts
/// mention an edited file (or that is one). Empty when all compile and
/// the calls the fix leaves as written in the functions it makes
/// templates resolve as before; otherwise why not, for a note.
std::string prove(const std::vector<flow::FlowEdit> &Edits, ArrayRef<flow::UnitFlow> Flows,
                  const tooling::CompilationDatabase &Database, ArrayRef<std::string> Files) {
  auto NotCompiling = [](const std::string &Why) {
    return "with it the code does not compile: " + Why;
  };
  std::map<std::string, std::vector<const flow::FlowEdit *>> ByFile;
  for (const flow::FlowEdit &E : Edits)
    ByFile[E.File].push_back(&E);
  std::set<std::string> Edited;
  std::map<std::string, std::string> Contents;
  std::map<std::string, tooling::Replacements> Applied;
  for (auto &[File, List] : ByFile) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(File);
    if (!Buffer)
      return NotCompiling("cannot read " + File);
    std::string Text = (*Buffer)->getBuffer().str();
    // From the end, so that earlier offsets stay valid.
    for (auto It = List.rbegin(); It != List.rend(); ++It) {
      const flow::FlowEdit &E = **It;
      if (E.Offset + E.Length > Text.size())
        return NotCompiling(File + " changed since it was analysed");
      Text.replace(E.Offset, E.Length, E.Text);
    }
    for (const flow::FlowEdit *E : List)
      if (llvm::Error Err = Applied[File].add(
              tooling::Replacement(File, E->Offset, E->Length, E->Text)))
        return NotCompiling(toString(std::move(Err)));
    Contents[File] = std::move(Text);
    Edited.insert(File);
  }
  std::vector<flow::OffsetMap> Maps;
  Maps.reserve(Applied.size());
  std::map<std::string, ResolvingAction::EditedFile> Real;
  for (const auto &[File, Replacements] : Applied) {
    sys::fs::UniqueID UID;
    if (sys::fs::getUniqueID(File, UID))
      return NotCompiling("cannot read " + File);
    Maps.emplace_back(Replacements);
    Real.emplace(flow::realFileName(File), ResolvingAction::EditedFile{UID, &Maps.back()});
  }
  CallsBefore Before = unchangedCalls(Edits, Flows);
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
    std::string Rebound;
    struct Factory : tooling::FrontendActionFactory {
      std::function<std::unique_ptr<FrontendAction>()> Make;
      std::unique_ptr<FrontendAction> create() override { return Make(); }
    } Actions;
    Actions.Make = [&] { return std::make_unique<ResolvingAction>(Real, Before, Rebound); };
    int Status = Tool.run(&Actions);
    if (!Errors.Text.empty())
      return NotCompiling(Errors.Text);
    if (Status)
      return NotCompiling(sys::path::filename(Unit).str() + " does not compile");
    if (!Rebound.empty())
      return Rebound;
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
              Error = "with it the code does not compile: " + toString(std::move(Conflict));
        if (!Error.empty()) {
          Finding->Message.Fix.clear();
          AddNote(Root.At, "fix withdrawn: " + Error);
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
