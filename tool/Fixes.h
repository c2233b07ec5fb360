//===--- Fixes.h - what --fix may edit ------------------------------------===//
//
// The fix stage of the gradlint command: before clang-tidy's replacements
// are applied, the fixes that would edit a file gradlint must not touch are
// dropped (a finding's fixes go together). The fixes themselves were proved
// during the analysis (checks/utils/FixProof.h).
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_FIXES_H
#define GRADLINT_TOOL_FIXES_H

#include "SourceFacts.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include <string>
#include <utility>
#include <vector>

namespace gradlint {

/// What --fix may edit: files inside the source root or inside the
/// directory of an analysed file. A file elsewhere (a third-party or
/// installed header reached through --header-filter) or a read-only file is
/// not edited: the fixes of every finding that touches it are dropped (a
/// finding's fixes go together) and the file is named on stderr. Also
/// remembers the permissions of the files that will be edited: clang-tidy
/// replaces a file by a new one (atomically, by renaming), which would give
/// it the default permissions.
class FixGuard {
public:
  FixGuard(const SourceFiles &Sources, llvm::ArrayRef<std::string> Inputs);

  /// Drops the fixes that may not be applied; returns how many files were
  /// refused.
  unsigned apply(std::vector<clang::tidy::ClangTidyError> &Errors, bool WithNotes);

  /// Gives the edited files their permissions back.
  void restorePermissions();

  /// Whether \p File is inside the source root or the directory of an
  /// analysed file (what apply() also requires of a fix's files).
  bool inside(llvm::StringRef File) const;

private:
  bool allowed(const std::string &File);

  std::vector<std::string> Directories; // real paths
  llvm::StringMap<bool> Decided;
  std::vector<std::pair<std::string, llvm::sys::fs::perms>> Kept;
  unsigned Refusals = 0;
};

} // namespace gradlint

#endif
