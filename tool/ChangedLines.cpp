//===--- ChangedLines.cpp - the lines --diff-base reports on ---------------===//

#include "ChangedLines.h"
#include "SourceFacts.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace gradlint {

bool ChangedLines::contains(StringRef RealPath, unsigned Line) const {
  auto It = Files.find(RealPath);
  if (It == Files.end())
    return false;
  for (const auto &[First, Last] : It->second)
    if (First <= Line && Line <= Last)
      return true;
  return false;
}

ChangedLines parseUnifiedDiff(StringRef Diff, StringRef Root) {
  ChangedLines Result;
  std::vector<std::pair<unsigned, unsigned>> *Current = nullptr;
  SmallVector<StringRef> Lines;
  Diff.split(Lines, '\n');
  for (StringRef Line : Lines) {
    if (Line.consume_front("+++ ")) {
      Current = nullptr;
      if (Line == "/dev/null")
        continue;
      // git quotes names with unusual characters: "dir/a\tb.cpp".
      std::string Name = Line.str();
      if (Line.size() >= 2 && Line.front() == '"' && Line.back() == '"') {
        Name.clear();
        StringRef Q = Line.drop_front().drop_back();
        for (size_t I = 0; I < Q.size(); ++I) {
          if (Q[I] != '\\' || I + 1 == Q.size()) {
            Name += Q[I];
            continue;
          }
          char E = Q[++I];
          if (E >= '0' && E <= '7' && I + 2 < Q.size()) { // octal byte: \303
            Name += static_cast<char>(((E - '0') << 6) | ((Q[I + 1] - '0') << 3) |
                                      (Q[I + 2] - '0'));
            I += 2;
          } else {
            Name += E == 't' ? '\t' : E == 'n' ? '\n' : E;
          }
        }
      }
      SmallString<256> Path(Root);
      sys::path::append(Path, Name);
      Current = &Result.Files[realPath(Path).value_or(Path.str().str())];
      continue;
    }
    if (!Current || !Line.consume_front("@@ "))
      continue;
    // @@ -a[,b] +c[,d] @@
    size_t Plus = Line.find(" +");
    if (Plus == StringRef::npos)
      continue;
    StringRef New = Line.drop_front(Plus + 2);
    New = New.take_until([](char C) { return C == ' '; });
    auto [StartText, CountText] = New.split(',');
    unsigned Start = 0, Count = 1;
    if (StartText.getAsInteger(10, Start) ||
        (!CountText.empty() && CountText.getAsInteger(10, Count)))
      continue;
    if (Count > 0)
      Current->emplace_back(Start, Start + Count - 1);
  }
  // A file whose changes are all deletions has no line to report on.
  for (auto It = Result.Files.begin(); It != Result.Files.end();) {
    auto Next = std::next(It);
    if (It->second.empty())
      Result.Files.erase(It);
    It = Next;
  }
  return Result;
}

Expected<ChangedLines> changedLinesSince(StringRef Revision, StringRef Root) {
  auto Fail = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "--diff-base " + Revision + ": " + Why);
  };
  ErrorOr<std::string> Git = sys::findProgramByName("git");
  if (!Git)
    return Fail("git not found on PATH");
  SmallString<128> Out, Err;
  if (std::error_code EC = sys::fs::createTemporaryFile("gradlint-diff", "txt", Out))
    return Fail("cannot create a temporary file: " + EC.message());
  if (std::error_code EC = sys::fs::createTemporaryFile("gradlint-diff", "err", Err)) {
    sys::fs::remove(Out);
    return Fail("cannot create a temporary file: " + EC.message());
  }
  std::string RootArg = Root.str(), RevisionArg = Revision.str();
  StringRef Args[] = {*Git,         "-C",           RootArg,      "-c",
                      "core.quotePath=false",       "diff",       "--no-color",
                      "--no-ext-diff",              "--no-renames", "--unified=0",
                      "--no-prefix", RevisionArg,  "--"};
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Out), StringRef(Err)};
  std::string ErrMsg;
  int Status = sys::ExecuteAndWait(*Git, Args, std::nullopt, Redirects, 0, 0, &ErrMsg);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Diff = MemoryBuffer::getFile(Out);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Stderr = MemoryBuffer::getFile(Err);
  sys::fs::remove(Out);
  sys::fs::remove(Err);
  if (Status != 0) {
    std::string Why = Stderr ? (*Stderr)->getBuffer().trim().str() : ErrMsg;
    return Fail("git diff failed" + (Why.empty() ? std::string() : ": " + Why));
  }
  if (!Diff)
    return Fail("cannot read git's output");
  return parseUnifiedDiff((*Diff)->getBuffer(), Root);
}

} // namespace gradlint
