//===--- TextReport.h - gradlint's --format=text --------------------------===//
//
// clang's diagnostics, printed (and the fixes applied) by clang-tidy's
// handleErrors, to stdout or atomically to --output.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_TEXTREPORT_H
#define GRADLINT_TOOL_TEXTREPORT_H

#include "ExitCodes.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <optional>
#include <vector>

namespace gradlint {

/// Sends what is written to stdout (fd 1, where clang-tidy's reporter
/// prints) to another file while it lives.
class StdoutRedirect {
public:
  explicit StdoutRedirect(int Fd);
  explicit StdoutRedirect(const char *Path);
  ~StdoutRedirect();

private:
  void redirect(int Fd);
  int Saved = -1;
};

/// The text output (and the fixes), to stdout or, when \p Output is not
/// empty, atomically to that file: into a temporary file next to it, renamed
/// into place when complete.
std::optional<ExitCode>
printTextReport(std::vector<clang::tidy::ClangTidyError> &Errors,
                clang::tidy::ClangTidyContext &Context, clang::tidy::FixBehaviour Behaviour,
                unsigned &WarningsAsErrorsCount,
                llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
                llvm::StringRef Output);

} // namespace gradlint

#endif
