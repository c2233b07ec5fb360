//===--- GradlintFuzzer.cpp - libFuzzer target for the gradlint checks ----===//
//
// Each input is the text of a C++ file. It is analysed by every gradlint
// check as the gradlint command would analyse it (-std=c++17, the mock tensor
// headers of fixtures/lint/include on the include path): parsed, matched,
// diagnosed, with fix-its. Then every finding's fix-its are applied to the
// text in memory; a replacement outside the file, or fix-its of one finding
// that cannot be applied together, stop the run (a bug in a check). When the
// input compiled, the fixes are then applied together (as --fix would,
// skipping a finding whose edits overlap an earlier one's) and the fixed
// text must compile too: every fix a check offers has been proved
// (checks/utils/FixProof.h), and this keeps that promise honest. Built
// with AddressSanitizer and UndefinedBehaviorSanitizer by scripts/fuzz.sh,
// which has the corpus and the options.
//
//===----------------------------------------------------------------------===//

#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>

using namespace clang;
using namespace clang::tidy;
using namespace llvm;

namespace clang::tidy {
// Keeps the gradlint module linked in.
extern volatile int GradlintModuleAnchorSource;
static int LLVM_ATTRIBUTE_UNUSED GradlintModuleAnchorDestination =
    GradlintModuleAnchorSource;
} // namespace clang::tidy

namespace {

struct Setup {
  std::string Directory;
  std::string Input;
  std::vector<std::string> Flags;

  Setup() {
    InitializeAllTargetInfos();
    InitializeAllTargetMCs();
    InitializeAllAsmParsers();
    SmallString<256> Cwd;
    sys::fs::current_path(Cwd);
    Directory = Cwd.str().str();
    Input = Directory + "/gradlint-fuzz-input.cpp";
    const char *Include = std::getenv("GRADLINT_FUZZ_INCLUDE");
    Flags = {"-std=c++17", std::string("-I") + (Include ? Include : GRADLINT_FUZZ_INCLUDE)};
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static Setup S;
  StringRef Code(reinterpret_cast<const char *>(Data), Size);

  auto InMemory = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  InMemory->addFile(S.Input, 0, MemoryBuffer::getMemBufferCopy(Code, S.Input));
  auto FS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::createPhysicalFileSystem());
  FS->pushOverlay(InMemory);

  ClangTidyOptions Options = ClangTidyOptions::getDefaults();
  Options.Checks = "-*,gradlint-*";
  ClangTidyContext Context(
      std::make_unique<DefaultOptionsProvider>(ClangTidyGlobalOptions(), Options),
      /*AllowEnablingAnalyzerAlphaCheckers=*/false, /*EnableModuleHeadersParsing=*/false,
      /*ExperimentalCustomChecks=*/false);
  tooling::FixedCompilationDatabase Database(S.Directory, S.Flags);
  std::vector<ClangTidyError> Errors =
      runClangTidy(Context, Database, {S.Input}, FS, /*ApplyAnyFix=*/true,
                   /*EnableCheckProfile=*/false, "", /*Quiet=*/true);

  bool Compiled = true;
  tooling::Replacements Together;
  for (const ClangTidyError &E : Errors) {
    Compiled &= E.DiagLevel != ClangTidyError::Error;
    auto Own = E.Message.Fix.find(S.Input);
    if (Own != E.Message.Fix.end()) {
      tooling::Replacements Merged = Together;
      bool Clash = false;
      for (const tooling::Replacement &R : Own->second)
        if (Error Err = Merged.add(R)) {
          consumeError(std::move(Err));
          Clash = true;
        }
      if (!Clash)
        Together = std::move(Merged);
    }
    std::vector<const tooling::DiagnosticMessage *> Messages{&E.Message};
    for (const tooling::DiagnosticMessage &Note : E.Notes)
      Messages.push_back(&Note);
    for (const tooling::DiagnosticMessage *M : Messages)
      for (const auto &[Path, Replacements] : M->Fix) {
        if (Path != S.Input)
          continue; // a mock header: not the input's text
        Expected<std::string> Fixed = tooling::applyAllReplacements(Code, Replacements);
        if (!Fixed) {
          errs() << "gradlint-fuzzer: the fix-its of '" << E.DiagnosticName << ": "
                 << M->Message << "' cannot be applied: " << toString(Fixed.takeError())
                 << "\n";
          abort();
        }
      }
  }
  if (Compiled && !Together.empty()) {
    Expected<std::string> Fixed = tooling::applyAllReplacements(Code, Together);
    if (!Fixed) {
      consumeError(Fixed.takeError());
    } else {
      std::vector<std::string> Args = S.Flags;
      Args.push_back("-fsyntax-only");
      if (!tooling::runToolOnCodeWithArgs(std::make_unique<SyntaxOnlyAction>(),
                                          *Fixed, Args, S.Input)) {
        errs() << "gradlint-fuzzer: the input compiled, the fixed input does "
                  "not:\n"
               << *Fixed << "\n";
        abort();
      }
    }
  }
  return 0;
}
