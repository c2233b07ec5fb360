//===--- SourceFacts.h - what reports need to know about source files -----===//
//
// Positions (line, byte and UTF-16 columns), the declaration enclosing a
// finding, paths relative to the source root, and fingerprints that identify
// a finding across edits that move code around. Shared by the JSON and SARIF
// reports and the baseline.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_SOURCEFACTS_H
#define GRADLINT_TOOL_SOURCEFACTS_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gradlint {

/// A brace-delimited block of C++ source and the name of what it defines
/// ("ns", "Tensor", "Tensor::grow"), or an empty name for blocks that are not
/// named declarations (statements, lambdas, initialisers).
struct DeclarationBlock {
  size_t Begin, End; ///< Offsets of '{' and '}' (End = size if unclosed).
  std::string Name;
  /// Where the declaration's header starts (its return type, `class`...):
  /// a finding on a function's name belongs to the function.
  size_t HeaderBegin;
  /// The index of the enclosing block, -1 at file scope.
  int Parent;
};

/// The blocks of \p Text, in the order they open (so by HeaderBegin, and a
/// block after the blocks around it). A lexical scan, not a parse: comments,
/// string and character literals and preprocessor lines are skipped; it needs
/// no include paths and never fails, and its names only have to be stable.
std::vector<DeclarationBlock> scanDeclarationBlocks(llvm::StringRef Text);

/// The named blocks enclosing \p Offset (from their header on), outermost first, joined by "::";
/// empty at file scope.
std::string enclosingDeclaration(llvm::ArrayRef<DeclarationBlock> Blocks, size_t Offset);

/// \p Path with symbolic links and `.`/`..` resolved by the file system;
/// nothing when it does not exist.
std::optional<std::string> realPath(llvm::StringRef Path);

/// True when \p Path is \p Directory or inside it (both absolute).
bool isInside(llvm::StringRef Path, llvm::StringRef Directory);

/// BLAKE3 of \p Data as lowercase hex: the content hash of the result cache's
/// keys and entries and of --shard's placement.
std::string blake3Hex(llvm::StringRef Data);

/// The source root: the top of the git work tree containing the current
/// directory, or the current directory outside one (real path).
std::string findSourceRoot();

/// Source files read on demand, each once.
class SourceFiles {
public:
  explicit SourceFiles(std::string Root) : Root(std::move(Root)) {}

  /// \p Path made absolute against \p BuildDirectory, `.` and `..` removed.
  static std::string absolute(llvm::StringRef Path, llvm::StringRef BuildDirectory);

  struct Position {
    unsigned Line;        ///< 1-based.
    unsigned Column;      ///< 1-based, in bytes (as clang counts).
    unsigned Utf16Column; ///< 1-based, in UTF-16 code units (as SARIF counts).
  };
  /// Where \p Offset is in \p File; nothing for an unreadable file or an
  /// offset past its end.
  std::optional<Position> position(const std::string &File, unsigned Offset);

  /// The line containing \p Offset, without its end of line.
  std::optional<llvm::StringRef> lineText(const std::string &File, unsigned Offset);

  /// The statement or declaration head around \p Offset -- the text between
  /// the nearest ';', '{' or '}' on either side -- without comments and
  /// whitespace, so that reformatting leaves it alone.
  std::string statementAt(const std::string &File, unsigned Offset);

  /// The declaration enclosing \p Offset (see enclosingDeclaration).
  std::string declarationAt(const std::string &File, unsigned Offset);

  /// \p File relative to the root ('/'-separated) when it is inside it;
  /// symbolic links resolved on both sides.
  std::optional<std::string> relativeToRoot(const std::string &File);

  const std::string &root() const { return Root; }

private:
  struct Entry {
    std::unique_ptr<llvm::MemoryBuffer> Buffer;
    std::vector<size_t> LineStarts; ///< Offsets of the lines, computed once.
    std::optional<std::vector<DeclarationBlock>> Blocks;
  };
  Entry &entry(const std::string &File);

  std::string Root;
  llvm::StringMap<Entry> Files;
  llvm::StringMap<std::optional<std::string>> RelativePaths; ///< Without reading the files.
};

/// Who a finding is, independently of where it is: its check, its file
/// (root-relative where possible), the declaration around it and a
/// fingerprint hashing those with its statement (statementAt) and its rank
/// among findings that share all of them. Line numbers are not part
/// of it, so edits elsewhere in the file do not change it.
struct FindingIdentity {
  std::string Check, File, Context, Fingerprint;
};

/// The identities of \p Errors (in their order).
std::vector<FindingIdentity> identify(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors,
                                      SourceFiles &Files);

/// "error" (compiler errors, --warnings-as-errors), "warning" or "remark".
llvm::StringRef findingLevel(const clang::tidy::ClangTidyError &E);

/// True for a compiler diagnostic (not a check's finding): these are never
/// recorded in or suppressed by a baseline.
bool isCompilerDiagnostic(const clang::tidy::ClangTidyError &E);

} // namespace gradlint

#endif
