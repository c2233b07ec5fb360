//===--- ChangedLines.h - the lines --diff-base reports on -----------------===//

#ifndef GRADLINT_TOOL_CHANGEDLINES_H
#define GRADLINT_TOOL_CHANGEDLINES_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <utility>
#include <vector>

namespace gradlint {

/// Lines added or changed, per file (real path), as inclusive ranges.
struct ChangedLines {
  llvm::StringMap<std::vector<std::pair<unsigned, unsigned>>> Files;

  bool contains(llvm::StringRef RealPath, unsigned Line) const;
};

/// The new-side lines of a `git diff --unified=0 --no-prefix` output whose
/// paths are relative to \p Root. Deleted files and pure deletions add no
/// line.
ChangedLines parseUnifiedDiff(llvm::StringRef Diff, llvm::StringRef Root);

/// The lines changed in the work tree at \p Root since \p Revision (what
/// `git diff REV` shows). Errors say what git said.
llvm::Expected<ChangedLines> changedLinesSince(llvm::StringRef Revision, llvm::StringRef Root);

} // namespace gradlint

#endif
