//===--- FixProof.cpp - offer a fix only once the compiler accepts it -----===//

#include "utils/FixProof.h"
#include "gradlint/LlvmCompat.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/DiagnosticParse.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

namespace clang::tidy::gradlint {
namespace {

std::mutex RegistryMutex;
llvm::DenseMap<const Preprocessor *, FixProof *> &registry() {
  static llvm::DenseMap<const Preprocessor *, FixProof *> Registry;
  return Registry;
}

/// A diagnostic of the proving parse, located in that parse's files.
struct RawDiagnostic {
  DiagnosticsEngine::Level Level;
  unsigned ID;
  std::string Message;
  std::string File;
  llvm::sys::fs::UniqueID UID;
  unsigned Offset = 0;
  /// The source ranges the diagnostic marks in that file, as offsets.
  std::vector<std::pair<unsigned, unsigned>> Ranges;
  /// A warning that the code uses a language extension (`... is a C++20
  /// extension`): clang accepts it, another compiler or clang with
  /// `-pedantic-errors` does not.
  bool Extension = false;
};

#if LLVM_VERSION_MAJOR >= 22
bool isWarning(const DiagnosticIDs &IDs, unsigned ID) {
  return IDs.isWarningOrExtension(ID) && !IDs.isDefaultMappingAsError(ID);
}
bool isExtension(const DiagnosticIDs &IDs, unsigned ID, bool &EnabledByDefault) {
  return IDs.isExtensionDiag(ID, EnabledByDefault);
}
#else
bool isWarning(const DiagnosticIDs &, unsigned ID) {
  return DiagnosticIDs::isBuiltinWarningOrExtension(ID) &&
         !DiagnosticIDs::isDefaultMappingAsError(ID);
}
bool isExtension(const DiagnosticIDs &, unsigned ID, bool &EnabledByDefault) {
  return DiagnosticIDs::isBuiltinExtensionDiag(ID, EnabledByDefault);
}
#endif

/// Silences every warning of \p Diags but the extension warnings clang
/// gives by default (`-Wc++20-extensions`: code that clang accepts in this
/// language mode and the standard does not): the proving parse reports
/// those in the fixed text, and ignores the rest as `-w` would (warnings
/// that only analyses after the parse give, -Wreturn-type's CFG, stay off).
void keepOnlyExtensionWarnings(DiagnosticsEngine &Diags) {
  // Which built-in diagnostics these are does not change: found once, for
  // every proving parse after.
  static const std::vector<diag::kind> Silenced = [&] {
    const DiagnosticIDs &IDs = *Diags.getDiagnosticIDs();
    std::vector<diag::kind> All, Warnings;
    DiagnosticIDs::getAllDiagnostics(diag::Flavor::WarningOrError, All);
    for (diag::kind ID : All) {
      bool EnabledByDefault = false;
      if (isWarning(IDs, ID) && !(isExtension(IDs, ID, EnabledByDefault) && EnabledByDefault))
        Warnings.push_back(ID);
    }
    return Warnings;
  }();
  for (diag::kind ID : Silenced)
    Diags.setSeverity(ID, diag::Severity::Ignored, SourceLocation());
}

/// The keyword whose absence an error reports, at the error's place: a
/// dependent name used as a type (`typename`, before its qualifier) or as a
/// template (`template`, before the name). Each is what the compiler itself
/// says is missing; adding it never changes what a name means, only lets
/// the template be parsed as the function was.
llvm::StringRef missingKeyword(unsigned ID) {
  switch (ID) {
  case diag::err_typename_missing:
  case diag::err_typename_missing_template:
    return "typename ";
  case diag::err_template_kw_missing:
  case diag::err_missing_dependent_template_keyword:
    return "template ";
  default:
    return {};
  }
}

class CaptureDiagnostics : public DiagnosticConsumer {
public:
  std::vector<RawDiagnostic> Diagnostics;

  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    // A note goes with the diagnostic before it.
    if (Level == DiagnosticsEngine::Note ? !Kept : !(Kept = Level >= DiagnosticsEngine::Warning))
      return;
    RawDiagnostic D;
    D.Level = Level;
    if (Level == DiagnosticsEngine::Warning ||
        (Level != DiagnosticsEngine::Note &&
         isWarning(*Info.getDiags()->getDiagnosticIDs(), Info.getID()))) {
      // A warning (an error the command made one: `-Wno-error=...`), or
      // one a pragma or -Werror made an error: only an extension counts
      // (keepOnlyExtensionWarnings).
      bool EnabledByDefault = false;
      if (!(Kept = isExtension(*Info.getDiags()->getDiagnosticIDs(), Info.getID(),
                               EnabledByDefault)))
        return;
      D.Level = DiagnosticsEngine::Warning;
      D.Extension = true;
    }
    D.ID = Info.getID();
    llvm::SmallString<128> Text;
    Info.FormatDiagnostic(Text);
    D.Message = Text.str().str();
    if (Info.getLocation().isValid() && Info.hasSourceManager()) {
      const SourceManager &SM = Info.getSourceManager();
      SourceLocation Loc = SM.getFileLoc(Info.getLocation());
      FileID File = SM.getFileID(Loc);
      if (OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File)) {
        D.File = Entry->getName().str();
        D.UID = Entry->getUniqueID();
        D.Offset = SM.getFileOffset(Loc);
        for (const CharSourceRange &R : Info.getRanges()) {
          SourceLocation B = SM.getFileLoc(R.getBegin()), E = SM.getFileLoc(R.getEnd());
          if (SM.getFileID(B) != File || SM.getFileID(E) != File)
            continue;
          unsigned End = SM.getFileOffset(E);
          if (R.isTokenRange())
            End += Lexer::MeasureTokenLength(E, SM, LangOptions());
          D.Ranges.emplace_back(SM.getFileOffset(B), End);
        }
      }
    }
    Diagnostics.push_back(std::move(D));
  }

private:
  bool Kept = false;
};

/// One finding's fix, as text edits per file, and the whole lines the edits
/// are on (where the errors of a rewritten expression are).
struct Edit {
  std::map<FileID, tooling::Replacements> Files;
  struct Extent {
    FileID File;
    unsigned Begin, End;
    bool contains(FileID F, unsigned Offset) const {
      return F == File && Begin <= Offset && Offset <= End;
    }
  };
  std::vector<Extent> Lines;
};

class Prover {
public:
  Prover(Preprocessor &PP, ASTContext &Ctx)
      : PP(PP), Ctx(Ctx), SM(Ctx.getSourceManager()) {}

  /// Converts a fix into edits; nullopt when a hint cannot be applied as
  /// text (it is then withdrawn).
  std::optional<Edit> editOf(llvm::ArrayRef<FixItHint> Fix) {
    Edit E;
    for (const FixItHint &Hint : Fix) {
      if (Hint.InsertFromRange.isValid())
        return std::nullopt;
      CharSourceRange Range = Hint.RemoveRange;
      if (Range.isInvalid() || Range.getBegin().isMacroID() ||
          Range.getEnd().isMacroID())
        return std::nullopt;
      tooling::Replacement R(SM, Range, Hint.CodeToInsert, Ctx.getLangOpts());
      FileID File = SM.getFileID(Range.getBegin());
      if (R.getFilePath().empty() || !SM.getFileEntryRefForID(File))
        return std::nullopt;
      if (llvm::Error Err = E.Files[File].add(R)) {
        llvm::consumeError(std::move(Err));
        return std::nullopt;
      }
      E.Lines.push_back(linesAround(File, R.getOffset(), R.getLength()));
    }
    return E;
  }

  /// Parses the translation unit with the edits of \p Fixes applied;
  /// returns its errors and notes in original coordinates, grouped (an
  /// error, then its notes). \p Conflicting receives the fixes that overlap
  /// an earlier one and were left out.
  std::vector<std::vector<ProofDiagnostic>>
  parseWith(llvm::ArrayRef<const Edit *> Fixes,
            std::vector<size_t> *Conflicting = nullptr) {
    Combined.clear();
    // The text each fix already taken occupies, per file: [begin, end).
    std::map<FileID, std::map<unsigned, unsigned>> Taken;
    auto Overlaps = [&](FileID File, const tooling::Replacement &R) {
      const std::map<unsigned, unsigned> &Spans = Taken[File];
      unsigned Begin = R.getOffset(), End = Begin + R.getLength();
      auto Next = Spans.lower_bound(Begin);
      if (Next != Spans.end() && (Next->first < End || Next->first == Begin))
        return true;
      return Next != Spans.begin() && std::prev(Next)->second > Begin;
    };
    for (size_t I = 0; I < Fixes.size(); ++I) {
      bool Clash = false;
      for (const auto &[File, Replacements] : Fixes[I]->Files)
        for (const tooling::Replacement &R : Replacements)
          Clash |= Overlaps(File, R);
      if (!Clash)
        for (const auto &[File, Replacements] : Fixes[I]->Files)
          for (const tooling::Replacement &R : Replacements)
            if (llvm::Error Err = Combined[File].add(R)) {
              llvm::consumeError(std::move(Err));
              Clash = true;
            }
      if (Clash) {
        if (Conflicting)
          Conflicting->push_back(I);
        continue;
      }
      for (const auto &[File, Replacements] : Fixes[I]->Files)
        for (const tooling::Replacement &R : Replacements)
          Taken[File][R.getOffset()] = R.getOffset() + R.getLength();
    }
    return group(parse());
  }

  /// The fixes among \p Candidates on whose lines \p Error or one of its
  /// notes is (a rewritten call that does not resolve, an instantiation it
  /// requested). Empty when the error is elsewhere (a caller of a retyped
  /// function, a header). Where several fixes share those lines (two calls
  /// rewritten on one line), the ones on the lines of most of the error's
  /// diagnostics, and among them those with an edit in what the error
  /// marks (the initializer that does not convert), else nearest the
  /// error's place, are blamed: if the error was another's, it stays, and
  /// the next round blames that one.
  std::vector<size_t> blame(const std::vector<ProofDiagnostic> &Error,
                            llvm::ArrayRef<const Edit *> Candidates) const {
    auto OnLines = [&](const Edit &E, const ProofDiagnostic &D) {
      if (D.Loc.isInvalid())
        return false;
      FileID File = SM.getFileID(D.Loc);
      unsigned Offset = SM.getFileOffset(D.Loc);
      return llvm::any_of(E.Lines, [&](const Edit::Extent &X) { return X.contains(File, Offset); });
    };
    std::vector<size_t> Found;
    size_t Most = 0;
    for (size_t I = 0; I < Candidates.size(); ++I) {
      size_t Count = llvm::count_if(
          Error, [&](const ProofDiagnostic &D) { return OnLines(*Candidates[I], D); });
      if (Count == 0 || Count < Most)
        continue;
      if (Count > Most)
        Found.clear();
      Most = Count;
      Found.push_back(I);
    }
    const ProofDiagnostic &Primary = Error.front();
    if (Found.size() < 2 || Primary.Loc.isInvalid())
      return Found;
    FileID File = SM.getFileID(Primary.Loc);
    unsigned Offset = SM.getFileOffset(Primary.Loc);
    // (false, 0) for a fix with an edit in a range the error marks; else
    // (true, how far its nearest edit is from the error's place).
    auto Rank = [&](size_t I) -> std::pair<bool, unsigned> {
      unsigned Nearest = std::numeric_limits<unsigned>::max();
      auto It = Candidates[I]->Files.find(File);
      if (It != Candidates[I]->Files.end())
        for (const tooling::Replacement &R : It->second) {
          unsigned Begin = R.getOffset(), End = Begin + R.getLength();
          if (llvm::any_of(Primary.Ranges, [&](std::pair<unsigned, unsigned> M) {
                return M.first <= Begin && Begin <= M.second;
              }))
            return {false, 0};
          Nearest = std::min(Nearest, Offset < Begin ? Begin - Offset
                                      : Offset > End ? Offset - End
                                                     : 0u);
        }
      return {true, Nearest};
    };
    std::vector<std::pair<bool, unsigned>> Ranks;
    for (size_t I : Found)
      Ranks.push_back(Rank(I));
    std::pair<bool, unsigned> Best = *llvm::min_element(Ranks);
    std::vector<size_t> Blamed;
    for (size_t K = 0; K < Found.size(); ++K)
      if (Ranks[K] == Best)
        Blamed.push_back(Found[K]);
    return Blamed;
  }

  /// \p Site, a place in the original files, as a location there.
  SourceLocation locationOf(const SourceSite &Site) const {
    FileID File = fileWith(Site.File);
    if (File.isInvalid() || Site.Offset > SM.getBufferData(File).size())
      return {};
    return SM.getComposedLoc(File, Site.Offset);
  }

  /// Why a fix is withdrawn that makes the call at \p Key choose otherwise.
  std::string describeRebinding(const CallKey &Key, const CallResolution &Before,
                                const CallResolution &Now) const {
    return "with it, the call at " + place(Key.Begin, true) + " would call " +
           names(Now) + " instead of " + names(Before) +
           ": the erased type decides which function it calls";
  }

  /// Why a fix is withdrawn under which the call at \p Key, which calls
  /// what \p Before says, depends on a template's parameters that no
  /// instantiation in the file gives.
  std::string describeUnresolved(const CallKey &Key, const CallResolution &Before) const {
    return "with it, the call at " + place(Key.Begin, true) + ", which calls " + names(Before) +
           ", would depend on the template's parameters (the value's type would be declared "
           "in the template), and nothing in this file instantiates it: which function it "
           "calls would be decided where it is instantiated, unproved";
  }

  /// Why a fix is withdrawn under which the call at \p Key binds a kept
  /// reference to a temporary (what \p Now has that \p Before lacks).
  std::string describeDangling(const CallKey &Key, const CallResolution &Before,
                               const CallResolution &Now) const {
    for (const auto &[Param, Kept] : Now.Dangling)
      if (!Before.Dangling.count(Param))
        return "with it, the call at " + place(Key.Begin, true) + " would bind parameter " +
               std::to_string(Param) + " of '" + Kept.Callee +
               "' to a temporary converted from the value, and " +
               (Kept.ThroughResult
                    ? "the reference it returns, which is kept past the statement, would dangle"
                    : "the reference it keeps would dangle after the call");
    return "with it, the call at " + place(Key.Begin, true) +
           " would bind its reference parameters otherwise";
  }

  /// Why a fix is withdrawn under which what is found out about types at
  /// \p At would be what \p Now says instead of what \p Before says.
  std::string describeObservation(const SourceSite &At, const TypeObservation &Before,
                                  const TypeObservation &Now) const {
    auto Values = [](const TypeObservation &O) {
      std::string Text;
      for (const auto &Entry : O.Values)
        Text += (Text.empty() ? "" : " or ") + Entry.second;
      return Text;
    };
    if (Before.Binding)
      return "with it, the reference '" + Before.Text + "' at " + place(At, true) +
             " would bind " + Values(Now) + " instead of " + Values(Before) +
             ", and no longer see the value change";
    std::string Written = Before.Text;
    if (Written.size() > 60)
      Written = Written.substr(0, 57) + "...";
    return "with it, '" + Written + "' at " + place(At, true) + " would be " + Values(Now) +
           " instead of " + Values(Before) + ": the code inspects the type the fix changes";
  }

  /// Why a fix is withdrawn whose rewritten call at \p At calls what
  /// \p Now says instead of a function declared at \p Expected.
  std::string describeUnexpectedCallee(const SourceSite &At, const CallResolution &Now,
                                       const SourceSite &Expected) const {
    return "with it, the call at " + place(At, true) + " would call " + names(Now) +
           ", not the compile-time form it is rewritten for (" + place(Expected, false) + ")";
  }

  /// Why a fix is withdrawn whose rewritten call at \p At depends on a
  /// template's parameters and is resolved by no instantiation in the file.
  std::string describeUninstantiated(const SourceSite &At) const {
    return "with it, the call at " + place(At, true) +
           " would depend on the template's parameters, and nothing in this file "
           "instantiates it: which function it calls would be decided where it is "
           "instantiated, unproved";
  }

  /// Why a fix is withdrawn under which the call at \p At, left as
  /// written in code the fix makes a template, calls what \p Now says
  /// instead of what \p Before says.
  std::string describeResolvedAgain(const SourceSite &At, const CallResolution &Before,
                                    const CallResolution &Now) const {
    return resolvedAgainReason(place(At, true), names(Now), names(Before));
  }

  /// Why a fix is withdrawn that keeps \p Text at \p At from a removed
  /// cast to \p Expected, where with the fix it has type \p Now.
  std::string describeKeptType(const ExprSite &At, llvm::StringRef Text, llvm::StringRef Now,
                               llvm::StringRef Expected, llvm::StringRef Unevaluated) const {
    std::string Start =
        "with it, '" + Text.str() + "' at " + place(At.Begin, true) + " would be '" + Now.str();
    if (!Unevaluated.empty())
      return Start + "' where it is '" + Expected.str() + "' now: it is the operand of '" +
             Unevaluated.str() +
             "', which is never evaluated, so the fix would change only a type the program "
             "inspects";
    return Start + "' where the cast removed from it asks for '" + Expected.str() +
           "': the cast fails now, and without it the value would flow on";
  }

private:
  /// The functions \p R calls, for a message: "'ns::f(int)' (file.cpp:3)".
  std::string names(const CallResolution &R) const {
    std::string Text;
    for (const auto &[Identity, Callee] : R.Callees) {
      if (!Text.empty())
        Text += " or ";
      if (!Callee.Site) {
        Text += Callee.Name;
        continue;
      }
      Text += "'" + Callee.Name + "'";
      if (std::string At = place(*Callee.Site, false); !At.empty())
        Text += " (" + At + ")";
    }
    return Text;
  }

  /// The original file whose unique ID is \p UID.
  FileID fileWith(const llvm::sys::fs::UniqueID &UID) const {
    if (SM.getFileEntryRefForID(SM.getMainFileID())->getUniqueID() == UID)
      return SM.getMainFileID();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It)
      if (It->first.getUniqueID() == UID)
        return SM.translateFile(It->first);
    return FileID();
  }

  /// "file.cpp:30" (and ":3" with \p Column): a file name without its
  /// directories, as the notes beside a finding name places.
  std::string place(const SourceSite &Site, bool Column) const {
    SourceLocation Loc = locationOf(Site);
    if (Loc.isInvalid())
      return "";
    PresumedLoc Presumed = SM.getPresumedLoc(Loc);
    if (Presumed.isInvalid())
      return "";
    std::string Text = llvm::sys::path::filename(Presumed.getFilename()).str() + ":" +
                       std::to_string(Presumed.getLine());
    if (Column)
      Text += ":" + std::to_string(Presumed.getColumn());
    return Text;
  }

  /// The lines that hold [Offset, Offset + Length).
  Edit::Extent linesAround(FileID File, unsigned Offset, unsigned Length) const {
    llvm::StringRef Text = SM.getBufferData(File);
    size_t Begin = Text.rfind('\n', Offset);
    size_t End = Text.find('\n', Offset + Length);
    return {File, Begin == llvm::StringRef::npos ? 0u : unsigned(Begin + 1),
            End == llvm::StringRef::npos ? unsigned(Text.size()) : unsigned(End)};
  }

  std::string fileName(FileID File) const {
    OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
    return Entry ? Entry->getName().str() : std::string();
  }

  /// The original file a file of the proving parse is.
  FileID originalFile(const RawDiagnostic &D) const {
    for (const auto &[File, Replacements] : Combined)
      if (OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File))
        if (Entry->getUniqueID() == D.UID || Entry->getName() == D.File)
          return File;
    if (SM.getFileEntryRefForID(SM.getMainFileID())->getName() == D.File)
      return SM.getMainFileID();
    if (OptionalFileEntryRef Entry =
            SM.getFileManager().getOptionalFileRef(D.File, false, false))
      return SM.translateFile(*Entry);
    return FileID();
  }

  /// Whether \p R is on a line of the original text that an edit of this
  /// parse touches.
  bool onEditedLine(const RawDiagnostic &R) const {
    FileID File = R.File.empty() ? FileID() : originalFile(R);
    auto Edits = File.isValid() ? Combined.find(File) : Combined.end();
    if (Edits == Combined.end())
      return false;
    auto It = Offsets.find(File);
    unsigned Offset = It == Offsets.end() ? R.Offset : It->second.original(R.Offset);
    return llvm::any_of(Edits->second, [&](const tooling::Replacement &Edit) {
      return linesAround(File, Edit.getOffset(), Edit.getLength()).contains(File, Offset);
    });
  }

  std::vector<std::vector<ProofDiagnostic>>
  group(const std::vector<RawDiagnostic> &Raw) const {
    std::vector<std::vector<ProofDiagnostic>> Errors;
    bool Skipped = false;
    for (const RawDiagnostic &R : Raw) {
      if (R.Level == DiagnosticsEngine::Note && (Errors.empty() || Skipped))
        continue;
      // An extension the original text uses is no fix's doing: only one
      // on a line an edit touches counts.
      if (R.Level != DiagnosticsEngine::Note && (Skipped = R.Extension && !onEditedLine(R)))
        continue;
      if (R.Level != DiagnosticsEngine::Note)
        Errors.emplace_back();
      ProofDiagnostic D{R.Level, R.ID, R.Message, {}};
      if (!R.File.empty())
        if (FileID File = originalFile(R); File.isValid()) {
          auto It = Offsets.find(File);
          unsigned Offset = It == Offsets.end() ? R.Offset : It->second.original(R.Offset);
          if (Offset <= SM.getBufferData(File).size()) {
            D.Loc = SM.getComposedLoc(File, Offset);
            if (It == Offsets.end() || !It->second.inserted(R.Offset))
              D.Keyword = missingKeyword(R.ID);
            for (auto [B, E] : R.Ranges)
              D.Ranges.emplace_back(It == Offsets.end() ? B : It->second.original(B),
                                    It == Offsets.end() ? E : It->second.original(E));
          }
        }
      Errors.back().push_back(std::move(D));
    }
    return Errors;
  }

  std::vector<RawDiagnostic> parse() {
    auto Invocation = std::make_shared<CompilerInvocation>();
    Invocation->getLangOpts() = PP.getLangOpts();
    Invocation->getTargetOpts() = Ctx.getTargetInfo().getTargetOpts();
    Invocation->getHeaderSearchOpts() =
        PP.getHeaderSearchInfo().getHeaderSearchOpts();
    Invocation->getFileSystemOpts() = SM.getFileManager().getFileSystemOpts();
    PreprocessorOptions &PPOpts = Invocation->getPreprocessorOpts();
    PPOpts = PP.getPreprocessorOpts();
    // The proving parse reads every file itself (no preamble, no buffers
    // owned by the analysis); the files it edits and the main file (an
    // editor's unsaved text in clangd) come from the analysis' own text.
    PPOpts.clearRemappedFiles();
    PPOpts.RetainRemappedFileBuffers = false;
    PPOpts.ImplicitPCHInclude.clear();
    PPOpts.PrecompiledPreambleBytes = {0, false};
    PPOpts.GeneratePreamble = false;
    PPOpts.UsePredefines = true; // clangd leaves them to its preamble
    std::map<FileID, tooling::Replacements> Files = Combined;
    Files.try_emplace(SM.getMainFileID());
    GivenAsText.clear();
    Offsets.clear();
    for (const auto &[File, Replacements] : Files) {
      llvm::StringRef Original = SM.getBufferData(File);
      llvm::Expected<std::string> Text =
          tooling::applyAllReplacements(Original, Replacements);
      std::string Name = fileName(File);
      const OffsetMap *Map = nullptr;
      if (!Replacements.empty())
        Map = &Offsets.try_emplace(File, Replacements).first->second;
      GivenAsText[Name] = {SM.getFileEntryRefForID(File)->getUniqueID(), Map};
      PPOpts.addRemappedFile(
          Name, llvm::MemoryBuffer::getMemBufferCopy(
                    Text ? *Text : Original.str(), Name)
                    .release());
      if (!Text)
        llvm::consumeError(Text.takeError());
    }

    FrontendOptions &Frontend = Invocation->getFrontendOpts();
    Frontend.ProgramAction = frontend::ParseSyntaxOnly;
    Frontend.Inputs.clear();
    Frontend.Inputs.emplace_back(
        fileName(SM.getMainFileID()),
        InputKind(PP.getLangOpts().CUDA ? Language::CUDA : Language::CXX));
    if (const TargetInfo *Aux = Ctx.getAuxTargetInfo())
      Frontend.AuxTriple = Aux->getTriple().str();
    DiagnosticOptions &DiagOpts = Invocation->getDiagnosticOpts();
    // The compile command's warning options: one that turns off an error
    // which is a warning (`-Wno-c++11-narrowing`, `-Wno-error=...`) lets the
    // file compile, and must let the proving parse compile it too; so does
    // one that turns off an extension warning (`-Wno-c++20-extensions`: the
    // project accepts clang's extensions). Every other warning is ignored
    // there all the same.
    DiagOpts.Warnings = Ctx.getDiagnostics().getDiagnosticOptions().Warnings;
    DiagOpts.IgnoreWarnings = false; // but see keepOnlyExtensionWarnings
    DiagOpts.ShowCarets = false;
    DiagOpts.ErrorLimit = 50;

    CaptureDiagnostics Capture;
#if LLVM_VERSION_MAJOR >= 22
    CompilerInstance Compiler(std::move(Invocation));
    Compiler.setVirtualFileSystem(SM.getFileManager().getVirtualFileSystemPtr());
    Compiler.createDiagnostics(&Capture, /*ShouldOwnClient=*/false);
#else
    CompilerInstance Compiler;
    Compiler.setInvocation(std::move(Invocation));
    Compiler.createDiagnostics(&Capture, /*ShouldOwnClient=*/false);
    Compiler.createFileManager(SM.getFileManager().getVirtualFileSystemPtr());
#endif
    keepOnlyExtensionWarnings(Compiler.getDiagnostics());
    Resolved.clear();
    PinnedResolved.clear();
    PinnedInnermost.clear();
    PinnedDependent.clear();
    DependentNow.clear();
    TypesFound.clear();
    Observed.clear();
    ResolvingAction Action(*this);
    Compiler.ExecuteAction(Action);
    return std::move(Capture.Diagnostics);
  }

  /// The proving parse's own action: a syntax-only parse that, with
  /// declarations to watch, records what the calls taking their values
  /// resolve to, in the original files' places.
  class ResolvingAction : public SyntaxOnlyAction {
  public:
    explicit ResolvingAction(Prover &P) : P(P) {}
    std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                   llvm::StringRef) override {
      struct Consumer : ASTConsumer {
        Prover &P;
        explicit Consumer(Prover &P) : P(P) {}
        void HandleTranslationUnit(ASTContext &Parsed) override {
          if (P.Watched.empty() && P.Pinned.empty() && P.Typed.empty())
            return;
          const SourceManager &ParsedSM = Parsed.getSourceManager();
          ResolvedCalls Found = resolveCalls(
              Parsed, P.Watched, P.Pinned,
              [&](SourceLocation Loc) { return P.originalSite(ParsedSM, Loc); }, P.Typed);
          P.Resolved = std::move(Found.Calls);
          P.DependentNow = std::move(Found.Dependent);
          P.PinnedResolved = std::move(Found.Pinned);
          P.PinnedInnermost = std::move(Found.PinnedInnermost);
          P.PinnedDependent = std::move(Found.PinnedDependent);
          P.TypesFound = std::move(Found.Types);
          P.Observed = std::move(Found.Observed);
        }
      };
      return std::make_unique<Consumer>(P);
    }

  private:
    Prover &P;
  };

  /// Where \p Loc of the proving parse (whose sources are \p ParsedSM) is
  /// in the original files.
  std::optional<SourceSite> originalSite(const SourceManager &ParsedSM,
                                         SourceLocation Loc) const {
    std::optional<SourceSite> Site = siteAt(Loc, ParsedSM);
    if (!Site)
      return std::nullopt;
    // The files the parse was given as text are found by name; the others
    // are the analysis' own files.
    llvm::StringRef Name =
        ParsedSM.getFileEntryRefForID(ParsedSM.getFileID(ParsedSM.getFileLoc(Loc)))->getName();
    auto Given = GivenAsText.find(Name);
    if (Given == GivenAsText.end())
      return Site;
    Site->File = Given->second.UID;
    if (Given->second.Offsets)
      Site->Offset = Given->second.Offsets->original(Site->Offset);
    return Site;
  }

  /// How the offsets of each file the last parse edited map back.
  std::map<FileID, OffsetMap> Offsets;
  /// The files the last parse read from the analysis' text (edited, and the
  /// main file), by name: each one's original file and, when edited, how
  /// its offsets map back.
  struct GivenFile {
    llvm::sys::fs::UniqueID UID;
    const OffsetMap *Offsets;
  };
  llvm::StringMap<GivenFile> GivenAsText;

public:
  /// The declarations whose values the calls to compare take.
  std::set<SourceSite> Watched;
  /// What those calls resolved to in the last parse.
  std::map<CallKey, CallResolution> Resolved;
  /// The rewritten calls whose callee is checked, by the place of its name,
  /// and what they resolved to in the last parse.
  std::set<SourceSite> Pinned;
  std::map<SourceSite, CallResolution> PinnedResolved;
  /// The innermost call at each place (ResolvedCalls::PinnedInnermost):
  /// what a rewritten call resolves to.
  std::map<SourceSite, CallResolution> PinnedInnermost;
  /// The rewritten calls found only where they are written in a template,
  /// depending on its parameters (ResolvedCalls::PinnedDependent).
  std::set<SourceSite> PinnedDependent;
  /// The calls that take a watched value and depend on a template's
  /// parameters with the fixes (ResolvedCalls::Dependent).
  std::vector<ExprSite> DependentNow;
  /// The expressions kept from removed casts, and the types they had in the
  /// last parse.
  std::set<ExprSite> Typed;
  std::map<ExprSite, std::map<std::string, std::string>> TypesFound;
  /// What the functions that handle a retyped value found out about types
  /// in the last parse.
  std::map<ExprSite, TypeObservation> Observed;

private:
  Preprocessor &PP;
  ASTContext &Ctx;
  const SourceManager &SM;
  /// The edits the last parse applied.
  std::map<FileID, tooling::Replacements> Combined;
};

/// How many parses one translation unit's proof may take before the fixes
/// left unproved are withdrawn.
constexpr unsigned MaxProofParses = 24;

bool faultInjected() {
  const char *Fault = std::getenv("GRADLINT_FAULT_INJECTION");
  return Fault && llvm::StringRef(Fault) == "break-fixes";
}

/// Where \p Decls are declared, as places in the original files.
std::set<SourceSite> declarationSites(llvm::ArrayRef<const Decl *> Decls,
                                      const SourceManager &SM) {
  std::set<SourceSite> Sites;
  for (const Decl *D : Decls)
    if (std::optional<SourceSite> Site = siteOf(D, SM))
      Sites.insert(*Site);
  return Sites;
}

} // namespace

namespace {

/// The compiler's message with each `(lambda at /dir/file.cpp:L:C)` cut to
/// `(lambda at file.cpp:L:C)`: the note sits beside the finding, and a
/// directory (a build machine's, a temporary copy's) says nothing there.
std::string withShortLambdaPaths(llvm::StringRef Message) {
  static constexpr llvm::StringLiteral Marker = "(lambda at ";
  std::string Out;
  while (true) {
    size_t At = Message.find(Marker);
    if (At == llvm::StringRef::npos)
      break;
    At += Marker.size();
    Out += Message.take_front(At);
    Message = Message.drop_front(At);
    size_t End = Message.find(')');
    llvm::StringRef Location = Message.take_front(End);
    // file:line:col, the file's directories dropped.
    size_t Colon = Location.rfind(':');
    Colon = Colon == llvm::StringRef::npos ? Colon : Location.rfind(':', Colon);
    llvm::StringRef File = Location.take_front(Colon);
    Out += llvm::sys::path::filename(File);
    Message = Message.drop_front(File.size());
  }
  return Out + Message.str();
}

} // namespace

namespace {

/// What an edit does, for comparing edits of one translation unit.
using EditKey = std::tuple<unsigned, unsigned, bool, unsigned, unsigned, bool, std::string>;

EditKey editKey(const FixItHint &H) {
  return {H.RemoveRange.getBegin().getRawEncoding(),
          H.RemoveRange.getEnd().getRawEncoding(),
          H.RemoveRange.isTokenRange(),
          H.InsertFromRange.getBegin().getRawEncoding(),
          H.InsertFromRange.getEnd().getRawEncoding(),
          H.BeforePreviousInsertions,
          H.CodeToInsert};
}

} // namespace

OffsetMap::OffsetMap(const tooling::Replacements &Applied) {
  long Delta = 0; // new - original, before the current replacement
  for (const tooling::Replacement &R : Applied) {
    long NewBegin = static_cast<long>(R.getOffset()) + Delta;
    Edits.push_back({NewBegin, NewBegin + static_cast<long>(R.getReplacementText().size()),
                     R.getOffset(), Delta});
    Delta += static_cast<long>(R.getReplacementText().size()) -
             static_cast<long>(R.getLength());
  }
  After = Delta;
}

bool OffsetMap::inserted(unsigned NewOffset) const {
  long Offset = NewOffset;
  return llvm::any_of(Edits, [&](const Shifted &E) {
    return E.NewBegin <= Offset && Offset < E.NewEnd;
  });
}

unsigned OffsetMap::original(unsigned NewOffset) const {
  long Offset = NewOffset;
  // The edits that begin at or before Offset; only those that begin where
  // the last of them does can hold it (the new text of the edits is in
  // order and does not overlap).
  auto End = llvm::upper_bound(Edits, Offset,
                               [](long O, const Shifted &E) { return O < E.NewBegin; });
  if (End == Edits.begin())
    return NewOffset;
  auto First = End - 1;
  while (First != Edits.begin() && std::prev(First)->NewBegin == (End - 1)->NewBegin)
    --First;
  for (auto It = First; It != End; ++It)
    if (Offset < It->NewEnd)
      return It->Original;
  long Delta = End == Edits.end() ? After : End->DeltaBefore;
  return static_cast<unsigned>(Offset - Delta);
}

std::string resolvedAgainReason(llvm::StringRef CallAt, llvm::StringRef Now,
                                llvm::StringRef Before) {
  return ("with it, the call at " + CallAt + " would call " + Now + " instead of " + Before +
          ": in the template the fix makes, it is resolved where the template is "
          "instantiated, with the types the rewritten code gives, and argument-dependent "
          "lookup there also finds functions declared after it")
      .str();
}

void dropRepeatedEdits(std::vector<FixItHint> &Fix) {
  std::set<EditKey> Seen;
  llvm::erase_if(Fix, [&](const FixItHint &H) { return !Seen.insert(editKey(H)).second; });
}

bool sameEdits(llvm::ArrayRef<FixItHint> A, llvm::ArrayRef<FixItHint> B) {
  return A.size() == B.size() && llvm::all_of(llvm::zip(A, B), [](const auto &Pair) {
           return editKey(std::get<0>(Pair)) == editKey(std::get<1>(Pair));
         });
}

std::string ProofOutcome::reason() const {
  if (Error.empty())
    return "it could not be proved";
  if (Error.front().ID == 0) // not the compiler's words
    return Error.front().Message;
  if (Error.front().Level == DiagnosticsEngine::Warning)
    return "with it the code compiles only as a clang extension: " +
           withShortLambdaPaths(Error.front().Message);
  return "with it the code does not compile: " + withShortLambdaPaths(Error.front().Message);
}

FixProof &FixProof::join(Preprocessor &PP) {
  std::lock_guard<std::mutex> Lock(RegistryMutex);
  FixProof *&Proof = registry()[&PP];
  if (!Proof)
    Proof = new FixProof(PP);
  ++Proof->Members;
  ++Proof->Holders;
  return *Proof;
}

void FixProof::release(FixProof *Proof) {
  std::lock_guard<std::mutex> Lock(RegistryMutex);
  if (--Proof->Holders > 0)
    return;
  auto It = registry().find(&Proof->PP);
  if (It != registry().end() && It->second == Proof)
    registry().erase(It);
  delete Proof;
}

void FixProof::add(ASTContext &Context, std::vector<FixItHint> Fix,
                   Emitter Emit, bool Question, const FixClaims &Claims,
                   std::vector<std::vector<FixItHint>> Fallbacks) {
  Ctx = &Context;
  if (!Question && faultInjected()) { // tests: a broken fix, every way
    if (!Fix.empty())
      Fix.front().CodeToInsert = "gradlint_injected_fault " + Fix.front().CodeToInsert;
    for (std::vector<FixItHint> &Other : Fallbacks)
      if (!Other.empty())
        Other.front().CodeToInsert = "gradlint_injected_fault " + Other.front().CodeToInsert;
  }
  // What a fix claims besides compiling, as places in the original files.
  const SourceManager &SM = Context.getSourceManager();
  std::vector<SourceSite> Sites;
  std::vector<std::pair<SourceSite, std::set<SourceSite>>> Calls;
  std::vector<Finding::KeptValue> Kept;
  std::vector<CallKey> Replaced;
  std::vector<SourceSite> Unchanged;
  auto Original = [&](SourceLocation Loc) { return siteAt(Loc, SM); };
  if (!Fix.empty() && !Question) {
    for (const Decl *D : Claims.Retyped)
      if (std::optional<SourceSite> Site = siteOf(D, SM))
        Sites.push_back(*Site);
    for (const ExpectedType &E : Claims.Types) {
      // A type that depends on a template's parameters is compared in
      // the instantiations only: nothing to compare it with here.
      if (E.Type->isDependentType())
        continue;
      std::optional<ExprSite> At = exprSiteOf(E.Kept, Original);
      if (!At)
        continue;
      // A cast's type as the user wrote it; a call's type as the parse of
      // the fixed file prints the new one, to compare like with like.
      QualType Shown = E.Type.getNonReferenceType().getUnqualifiedType();
      if (!E.Unevaluated.empty())
        Shown = Shown.getCanonicalType();
      Kept.push_back({*At,
                      Lexer::getSourceText(CharSourceRange::getTokenRange(
                                               E.Kept->getSourceRange()),
                                           SM, Context.getLangOpts())
                          .str(),
                      valueTypeIdentity(E.Type, Context),
                      Shown.getAsString(Context.getPrintingPolicy()), E.Unevaluated.str()});
    }
    for (const CallExpr *Call : Claims.Replaced)
      if (std::optional<ExprSite> At = exprSiteOf(Call, Original))
        Replaced.push_back(CallKey{At->Begin, At->End, false});
    for (const ExpectedCall &E : Claims.Calls) {
      std::optional<SourceSite> At = siteAt(E.Call->getExprLoc(), SM);
      std::set<SourceSite> Callees = declarationSites(E.Callees, SM);
      if (At && !Callees.empty())
        Calls.emplace_back(*At, std::move(Callees));
    }
    for (const CallExpr *Call : Claims.Unchanged)
      if (std::optional<SourceSite> At = siteAt(Call->getExprLoc(), SM))
        Unchanged.push_back(*At);
  }
  llvm::erase_if(Fallbacks, [](const std::vector<FixItHint> &Other) { return Other.empty(); });
  Findings.push_back({std::move(Fix), std::move(Emit), Question, std::move(Sites),
                      std::move(Calls), std::move(Kept), std::move(Replaced),
                      std::move(Unchanged), std::move(Fallbacks), 0, false, false, {},
                      std::nullopt});
}

void FixProof::expectAlso(const ExpectedCall &Also) {
  const SourceManager &SM = PP.getSourceManager();
  std::optional<SourceSite> At = siteAt(Also.Call->getExprLoc(), SM);
  if (!At)
    return;
  std::set<SourceSite> More = declarationSites(Also.Callees, SM);
  for (Finding &F : Findings)
    for (auto &[Where, Callees] : F.Expected)
      if (Where == *At)
        Callees.insert(More.begin(), More.end());
}

void FixProof::leave() {
  if (Members > 0 && --Members > 0)
    return;
  if (!Findings.empty()) {
    prove();
    finishFallbacks();
    emitAll();
  }
  Findings.clear();
}

void FixProof::prove() {
  std::vector<size_t> Pending;
  for (size_t I = 0; I < Findings.size(); ++I)
    if (!Findings[I].Fix.empty()) {
      Findings[I].Outcome.HadFix = true;
      Pending.push_back(I);
    }
  if (Pending.empty() || !Ctx)
    return;

  Prover P(PP, *Ctx);
  auto Withdraw = [&](size_t I, const std::vector<ProofDiagnostic> &Error) {
    if (Findings[I].Outcome.Error.empty())
      Findings[I].Outcome.Error = Error;
  };
  // A reason in gradlint's words, not the compiler's (ID 0).
  auto WithdrawFor = [&](size_t I, llvm::StringRef Reason) {
    Withdraw(I, {{DiagnosticsEngine::Error, 0, Reason.str(), {}}});
  };
  std::map<size_t, Edit> Edits;
  for (size_t I : Pending)
    if (std::optional<Edit> E = P.editOf(Findings[I].Fix))
      Edits.emplace(I, std::move(*E));
    else
      WithdrawFor(I, "its edits overlap or are not plain file text");
  auto EditsOf = [&](llvm::ArrayRef<size_t> Indices) {
    std::vector<const Edit *> Result;
    for (size_t I : Indices)
      Result.push_back(&Edits.at(I));
    return Result;
  };
  llvm::erase_if(Pending, [&](size_t I) { return !Edits.count(I); });

  // The calls that take a retyped value, and what they resolve to now; the
  // calls a fix rewrites, whose new callee is checked.
  for (size_t I : Pending) {
    P.Watched.insert(Findings[I].Retyped.begin(), Findings[I].Retyped.end());
    for (const auto &[At, Callees] : Findings[I].Expected)
      P.Pinned.insert(At);
    for (const Finding::KeptValue &Value : Findings[I].Kept)
      P.Typed.insert(Value.At);
  }
  std::set<SourceSite> Unchanged;
  for (size_t I : Pending)
    Unchanged.insert(Findings[I].Unchanged.begin(), Findings[I].Unchanged.end());
  P.Pinned.insert(Unchanged.begin(), Unchanged.end());
  std::map<CallKey, CallResolution> Before;
  std::map<SourceSite, CallResolution> PinnedBefore;
  std::map<ExprSite, TypeObservation> ObservedBefore;
  if (!P.Watched.empty() || !Unchanged.empty()) {
    const SourceManager &SM = Ctx->getSourceManager();
    ResolvedCalls Found = resolveCalls(*Ctx, P.Watched, Unchanged,
                                       [&](SourceLocation Loc) { return siteAt(Loc, SM); });
    Before = std::move(Found.Calls);
    PinnedBefore = std::move(Found.Pinned);
    ObservedBefore = std::move(Found.Observed);
    for (auto It = Before.begin(); It != Before.end();)
      if (It->second.ConvertsToOwnClass || It->second.Callees.empty())
        It = Before.erase(It);
      else
        ++It;
    for (size_t I : Pending)
      for (const CallKey &Key : Findings[I].Replaced)
        Before.erase(Key);
  }

  // A file that does not compile to begin with (fixed under --fix-errors):
  // its own errors, by text, are the baseline a fix must not add to.
  std::map<std::string, unsigned> Baseline;
  if (Ctx->getDiagnostics().hasUncompilableErrorOccurred())
    for (const auto &Error : P.parseWith({}))
      ++Baseline[Error.front().Message];
  unsigned Parses = 0;
  /// An error of a proving parse, and the fixes it is known to come from
  /// (a call that resolves otherwise: the fixes that retype its argument).
  struct Failure {
    std::vector<ProofDiagnostic> Error;
    std::vector<size_t> Owners;
    /// Not a call resolved otherwise (so the erasure is not shown to be
    /// needed): a kept value of another type, or a call that no
    /// instantiation in the file resolves.
    bool NotRebound = false;
  };
  // The errors of a parse with the fixes \p Indices applied, less the
  // baseline's, then the calls it resolves otherwise.
  auto Parse = [&](llvm::ArrayRef<size_t> Indices,
                   std::vector<size_t> *Conflicting = nullptr) {
    auto Errors = P.parseWith(EditsOf(Indices), Conflicting);
    ++Parses;
    // The applied fixes that retype a value one of \p Watched comes from.
    auto OwnersOf = [&](const std::set<SourceSite> &Watched) {
      std::vector<size_t> Owners;
      for (size_t K = 0; K < Indices.size(); ++K)
        if (!(Conflicting && llvm::is_contained(*Conflicting, K)) &&
            llvm::any_of(Findings[Indices[K]].Retyped,
                         [&](const SourceSite &Site) { return Watched.count(Site); }))
          Owners.push_back(Indices[K]);
      return Owners;
    };
    std::map<std::string, unsigned> Known = Baseline;
    std::vector<Failure> Failures;
    for (auto &Error : Errors) {
      auto It = Known.find(Error.front().Message);
      if (It != Known.end() && It->second-- > 0)
        continue;
      // An error in a call that takes a retyped value (with the closure,
      // argument-dependent lookup finds no `record`): that call needs the
      // erased type, as one that chooses another function does.
      std::vector<size_t> Owners;
      if (std::optional<SourceSite> At = siteAt(Error.front().Loc, Ctx->getSourceManager()))
        for (const auto &[Key, Was] : Before)
          if (Key.Begin.File == At->File && Key.Begin.Offset <= At->Offset &&
              At->Offset <= Key.End)
            for (size_t I : OwnersOf(Was.Watched))
              if (!llvm::is_contained(Owners, I))
                Owners.push_back(I);
      Failures.push_back({std::move(Error), std::move(Owners)});
    }
    // What the parse found at each place (\p Now) against the analysis
    // (\p Was): where they differ, a failure owned by the fixes that
    // retype a value either side comes from.
    auto Compare = [&](const auto &Now, const auto &Was, auto ValuesOf, auto Describe) {
      for (const auto &[Key, Found] : Now) {
        auto It = Was.find(Key);
        if (It == Was.end() || llvm::equal(llvm::make_first_range(ValuesOf(It->second)),
                                           llvm::make_first_range(ValuesOf(Found))))
          continue;
        std::set<SourceSite> Watched = It->second.Watched;
        Watched.insert(Found.Watched.begin(), Found.Watched.end());
        Failure F{{}, OwnersOf(Watched)};
        if (F.Owners.empty())
          continue;
        F.Error.push_back(Describe(Key, It->second, Found));
        Failures.push_back(std::move(F));
      }
    };
    // A call that takes a retyped value and chooses another function.
    Compare(P.Resolved, Before, [](const CallResolution &R) -> auto & { return R.Callees; },
            [&](const CallKey &Key, const CallResolution &Was, const CallResolution &Now) {
              return ProofDiagnostic{DiagnosticsEngine::Error, 0,
                                     P.describeRebinding(Key, Was, Now), P.locationOf(Key.Begin)};
            });
    // A call that takes a retyped value, resolved where it is written, and
    // that the fix makes depend on a template's parameters (the new type
    // is a closure declared in the template), with no instantiation here
    // to resolve it: what it calls is decided in other files (an overload
    // that takes `T &` beats the one taking the std::function there).
    for (const auto &[Key, Was] : Before) {
      // The same call, or the construction's arguments (`r(v)` of
      // `Recorder r(v)` is a ParenListExpr `(v)` once dependent).
      auto Covers = [&, &Key = Key](const ExprSite &D) {
        return D.Begin.File == Key.Begin.File && D.Begin.Offset <= Key.End &&
               Key.Begin.Offset <= D.End;
      };
      if (Was.Callees.empty() || P.Resolved.count(Key) || llvm::none_of(P.DependentNow, Covers))
        continue;
      Failure F{{}, OwnersOf(Was.Watched), /*NotRebound=*/true};
      if (F.Owners.empty())
        continue;
      F.Error.push_back({DiagnosticsEngine::Error, 0, P.describeUnresolved(Key, Was),
                         P.locationOf(Key.Begin)});
      Failures.push_back(std::move(F));
    }
    // A call that, with the fix, binds a reference it keeps (a member, its
    // result) to a temporary converted from the retyped value: the
    // reference dangles once the call's full-expression ends.
    Compare(P.Resolved, Before, [](const CallResolution &R) -> auto & { return R.Dangling; },
            [&](const CallKey &Key, const CallResolution &Was, const CallResolution &Now) {
              return ProofDiagnostic{DiagnosticsEngine::Error, 0,
                                     P.describeDangling(Key, Was, Now), P.locationOf(Key.Begin)};
            });
    // A function that handles a retyped value and finds out something else
    // about types (`if constexpr` takes the other branch, `sizeof`,
    // `typeid`): it compiles and does something else.
    Compare(P.Observed, ObservedBefore, [](const TypeObservation &O) -> auto & { return O.Values; },
            [&](const ExprSite &At, const TypeObservation &Was, const TypeObservation &Now) {
              return ProofDiagnostic{DiagnosticsEngine::Error, 0,
                                     P.describeObservation(At.Begin, Was, Now),
                                     P.locationOf(At.Begin)};
            });
    // A rewritten call that calls something else than it was rewritten for
    // (another `cat` template that argument-dependent lookup brings, a
    // user's name that hides the tag).
    for (size_t K = 0; K < Indices.size(); ++K) {
      if (Conflicting && llvm::is_contained(*Conflicting, K))
        continue;
      for (const auto &[At, Callees] : Findings[Indices[K]].Expected) {
        auto It = P.PinnedInnermost.find(At);
        // Written in a template and dependent there, with no instantiation
        // in the file to resolve it: which function it calls is decided
        // where the template is instantiated, unproved.
        if (It == P.PinnedInnermost.end() && P.PinnedDependent.count(At)) {
          Failures.push_back({{{DiagnosticsEngine::Error, 0, P.describeUninstantiated(At),
                                P.locationOf(At)}},
                              {Indices[K]}});
          continue;
        }
        if (It == P.PinnedInnermost.end() ||
            llvm::all_of(It->second.Callees, [&, &Callees = Callees](const auto &Entry) {
              return Entry.second.Site && Callees.count(*Entry.second.Site);
            }))
          continue;
        Failures.push_back(
            {{{DiagnosticsEngine::Error, 0,
               P.describeUnexpectedCallee(At, It->second, *Callees.begin()),
               P.locationOf(At)}},
             {Indices[K]}});
      }
    }
    // A call left as written in code the fix makes a template that chooses
    // a function it does not choose now and that is declared after it
    // (argument-dependent lookup where the template is instantiated finds
    // a later overload). A function declared before the call is one the
    // call would choose where it is written, given the types the rewritten
    // code gives (a member of the compile-time form's result type): the
    // change of type the fix is for, as outside templates.
    for (size_t K = 0; K < Indices.size(); ++K) {
      if (Conflicting && llvm::is_contained(*Conflicting, K))
        continue;
      for (const SourceSite &At : Findings[Indices[K]].Unchanged) {
        auto Was = PinnedBefore.find(At);
        auto Now = P.PinnedResolved.find(At);
        if (Was == PinnedBefore.end() || Now == P.PinnedResolved.end() ||
            llvm::all_of(Now->second.Callees, [&, &Was = Was](const auto &Entry) {
              return Entry.second.DeclaredBefore || Was->second.Callees.count(Entry.first) > 0;
            }))
          continue;
        Failures.push_back({{{DiagnosticsEngine::Error, 0,
                              P.describeResolvedAgain(At, Was->second, Now->second),
                              P.locationOf(At)}},
                            {Indices[K]}});
      }
    }
    // A value kept from a removed cast that has another type than the cast
    // asked for (an element of another type, another alternative): the
    // cast fails today; without it the value would flow on.
    for (size_t K = 0; K < Indices.size(); ++K) {
      if (Conflicting && llvm::is_contained(*Conflicting, K))
        continue;
      for (const Finding::KeptValue &Value : Findings[Indices[K]].Kept) {
        auto It = P.TypesFound.find(Value.At);
        if (It == P.TypesFound.end())
          continue; // not parsed as an expression: the compiler's errors say why
        for (const auto &[Identity, Shown] : It->second)
          if (Identity != Value.Identity) {
            Failures.push_back(
                {{{DiagnosticsEngine::Error, 0,
                   P.describeKeptType(Value.At, Value.Text, Shown, Value.Shown,
                                       Value.Unevaluated),
                   P.locationOf(Value.At.Begin)}},
                 {Indices[K]},
                 /*NotRebound=*/true});
            break;
          }
      }
    }
    // The comparisons (gradlint's words, ID 0) first: they say most about
    // a fix; each kind in the order found.
    std::vector<Failure> Ordered, Compiler;
    for (Failure &F : Failures)
      (F.Error.front().ID == 0 ? Ordered : Compiler).push_back(std::move(F));
    std::move(Compiler.begin(), Compiler.end(), std::back_inserter(Ordered));
    return Ordered;
  };
  auto WithdrawRebound = [&](size_t I, const Failure &F) {
    Withdraw(I, F.Error);
    Findings[I].Outcome.CallsRebound |= !F.NotRebound;
  };

  // A fix that fails for want of `typename` or `template` in code it makes
  // a template (`decltype(r)::value_type v;` once `r` is dependent) is
  // tried again, next, with the keywords the compiler asked for, and proved
  // like any other way to write it; what the compiler then asks for is
  // added in the rounds after (a name parsed as a value until the first
  // keyword made the statement a declaration).
  constexpr unsigned MaxKeywordRounds = 3;
  auto AddKeywords = [&](size_t I, llvm::ArrayRef<Failure> Failures) {
    Finding &F = Findings[I];
    if (F.Question || F.KeywordRounds >= MaxKeywordRounds)
      return;
    std::vector<FixItHint> Fix = F.Fix;
    std::set<SourceLocation> Added;
    for (const Failure &Each : Failures)
      for (const ProofDiagnostic &D : Each.Error)
        if (!D.Keyword.empty() && D.Loc.isValid() && Added.insert(D.Loc).second)
          Fix.push_back(FixItHint::CreateInsertion(D.Loc, D.Keyword));
    if (Added.empty())
      return;
    ++F.KeywordRounds;
    F.NextHasKeywords = true;
    F.Fallbacks.insert(F.Fallbacks.begin(), std::move(Fix));
  };

  // A withdrawn fix with another way to write it (a qualified name where
  // the name as the user spelled it finds something else) tries that in a
  // round of its own once the others are done.
  auto NextWays = [&] {
    for (auto &[I, E] : Edits) {
      Finding &F = Findings[I];
      if (F.Outcome.Proved || F.Fallbacks.empty() || Parses >= MaxProofParses)
        continue;
      std::optional<Edit> Next = P.editOf(F.Fallbacks.front());
      // The reason to give if no way holds: the first way's, written as
      // the user would, unless keywords were added to it: then what the
      // compiler said with them.
      if (!F.Primary || F.KeywordsAdded)
        F.Primary = F.Outcome;
      F.KeywordsAdded = F.NextHasKeywords;
      F.NextHasKeywords = false;
      F.Fix = std::move(F.Fallbacks.front());
      F.Fallbacks.erase(F.Fallbacks.begin());
      if (!Next)
        continue;
      E = std::move(*Next);
      F.Outcome = ProofOutcome();
      F.Outcome.HadFix = true;
      Pending.push_back(I);
    }
    return !Pending.empty();
  };

  // Prove everything together; blame the errors on the fixes on whose lines
  // they are and try again without those. Fixes that overlap another go in
  // a later round (clang-tidy applies one of them).
  while (!Pending.empty() || NextWays()) {
    std::vector<size_t> Conflicting;
    auto Failures = Parse(Pending, &Conflicting);
    std::vector<size_t> Tried, Later;
    for (size_t K = 0; K < Pending.size(); ++K)
      (llvm::is_contained(Conflicting, K) ? Later : Tried).push_back(Pending[K]);
    if (Failures.empty()) {
      for (size_t I : Tried)
        Findings[I].Outcome.Proved = true;
      Pending = std::move(Later);
      continue;
    }
    std::vector<const Edit *> TriedEdits = EditsOf(Tried);
    std::set<size_t> Blamed;
    bool Untraced = false;
    // The compiler's errors each fix is blamed for (with one fix tried,
    // every error is its doing).
    std::map<size_t, std::vector<Failure>> CompileErrors;
    for (const Failure &F : Failures) {
      if (!F.Owners.empty()) {
        for (size_t I : F.Owners)
          WithdrawRebound(I, F);
        Blamed.insert(F.Owners.begin(), F.Owners.end());
        continue;
      }
      std::vector<size_t> Culprits = P.blame(F.Error, TriedEdits);
      Untraced |= Culprits.empty();
      for (size_t K : Culprits) {
        Blamed.insert(Tried[K]);
        Withdraw(Tried[K], F.Error);
        if (Tried.size() > 1)
          CompileErrors[Tried[K]].push_back(F);
      }
    }
    if (Tried.size() == 1 && Blamed.count(Tried.front()))
      CompileErrors[Tried.front()] = Failures;
    for (const auto &[I, Errors] : CompileErrors)
      AddKeywords(I, Errors);
    llvm::erase_if(Tried, [&](size_t I) { return Blamed.count(I); });
    // Only questions failed: their errors cannot hide another's, so what
    // was tried with them compiled.
    if (!Untraced && llvm::all_of(Blamed, [&](size_t I) {
          return Findings[I].Question;
        })) {
      for (size_t I : Tried)
        Findings[I].Outcome.Proved = true;
      Pending = std::move(Later);
      continue;
    }
    // Something was blamed: the errors left may have been its doing.
    if (!Untraced || !Blamed.empty() || Tried.empty()) {
      Tried.insert(Tried.end(), Later.begin(), Later.end());
      Pending = std::move(Tried);
      continue;
    }
    // An error away from every fix (a caller of a retyped function): find
    // the fixes that cause it by bisection, keeping the halves that compile.
    std::vector<size_t> Accepted;
    std::function<void(llvm::ArrayRef<size_t>)> Bisect =
        [&](llvm::ArrayRef<size_t> Part) {
          if (Part.empty())
            return;
          if (Parses >= MaxProofParses) {
            for (size_t I : Part)
              WithdrawFor(I, "too many fixes in this file fail to compile "
                             "together to prove each one");
            return;
          }
          std::vector<size_t> With = Accepted;
          With.insert(With.end(), Part.begin(), Part.end());
          auto Result = Parse(With);
          if (Result.empty()) {
            Accepted = std::move(With);
            return;
          }
          // A call resolved otherwise names its fixes: the rest of the
          // part is tried again without them.
          std::set<size_t> Owned;
          for (const Failure &F : Result)
            for (size_t I : F.Owners)
              if (llvm::is_contained(Part, I) && Owned.insert(I).second)
                WithdrawRebound(I, F);
          if (!Owned.empty()) {
            std::vector<size_t> Rest;
            for (size_t I : Part)
              if (!Owned.count(I))
                Rest.push_back(I);
            Bisect(Rest);
            return;
          }
          if (Part.size() == 1) {
            Withdraw(Part.front(), Result.front().Error);
            AddKeywords(Part.front(), Result);
            return;
          }
          Bisect(Part.take_front(Part.size() / 2));
          Bisect(Part.drop_front(Part.size() / 2));
        };
    Bisect(Tried);
    for (size_t I : Accepted)
      Findings[I].Outcome.Proved = true;
    Pending = std::move(Later);
  }
}

void FixProof::finishFallbacks() {
  // A fix none of whose ways to write it holds is withdrawn for the reason
  // its first way gave: the one written as the user would (with the
  // keywords the compiler asked for, when the last way added them).
  for (Finding &F : Findings)
    if (F.Primary && !F.Outcome.Proved && !F.KeywordsAdded)
      F.Outcome = *F.Primary;
}

void FixProof::emitAll() {
  for (Finding &F : Findings)
    F.Emit(F.Outcome.Proved && !F.Question ? llvm::ArrayRef<FixItHint>(F.Fix)
                                           : llvm::ArrayRef<FixItHint>(),
           F.Outcome);
}

} // namespace clang::tidy::gradlint
