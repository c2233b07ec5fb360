//===--- TextReport.cpp - gradlint's --format=text ------------------------===//

#include "TextReport.h"
#include "Inputs.h"
#include "llvm/Support/FileSystem.h"
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;
using namespace clang::tidy;

namespace gradlint {

StdoutRedirect::StdoutRedirect(int Fd) { redirect(Fd); }

StdoutRedirect::StdoutRedirect(const char *Path) {
  int Fd = open(Path, O_WRONLY);
  redirect(Fd);
  close(Fd);
}

StdoutRedirect::~StdoutRedirect() {
  outs().flush();
  dup2(Saved, STDOUT_FILENO);
  close(Saved);
}

void StdoutRedirect::redirect(int Fd) {
  outs().flush();
  Saved = dup(STDOUT_FILENO);
  dup2(Fd, STDOUT_FILENO);
}

std::optional<ExitCode> printTextReport(std::vector<ClangTidyError> &Errors,
                                        ClangTidyContext &Context, FixBehaviour Behaviour,
                                        unsigned &WarningsAsErrorsCount,
                                        IntrusiveRefCntPtr<vfs::OverlayFileSystem> BaseFS,
                                        StringRef Output) {
  if (Output.empty()) {
    handleErrors(Errors, Context, Behaviour, WarningsAsErrorsCount, BaseFS);
    return std::nullopt;
  }
  int Fd;
  SmallString<256> Temporary;
  if (std::error_code EC =
          sys::fs::createUniqueFile(Output + ".tmp-%%%%%%", Fd, Temporary))
    return usageError("cannot write '" + Output + "': " + EC.message());
  {
    StdoutRedirect ToFile(Fd);
    handleErrors(Errors, Context, Behaviour, WarningsAsErrorsCount, BaseFS);
  }
  bool Written = close(Fd) == 0;
  if (std::error_code EC = Written ? sys::fs::rename(Temporary, Output)
                                   : std::make_error_code(std::errc::io_error)) {
    sys::fs::remove(Temporary);
    return usageError("cannot write '" + Output + "': " + EC.message());
  }
  return std::nullopt;
}

} // namespace gradlint
