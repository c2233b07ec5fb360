//===--- SourceFacts.cpp - what reports need to know about source files ---===//

#include "SourceFacts.h"
#include "gradlint/LlvmCompat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/SHA1.h"
#include <map>
#include <tuple>

using namespace llvm;
using clang::tidy::ClangTidyError;

namespace gradlint {
namespace {

/// Identifiers may be non-ASCII (UTF-8 bytes are all >= 0x80).
bool isIdentifierChar(char C) {
  return isAlnum(C) || C == '_' || static_cast<unsigned char>(C) >= 0x80;
}

/// When a comment starts at \p I: the index just past it (a line comment's
/// end of line excluded); otherwise \p I.
size_t skipComment(StringRef T, size_t I) {
  if (T.substr(I).starts_with("//"))
    return std::min(T.find('\n', I), T.size());
  if (T.substr(I).starts_with("/*")) {
    size_t End = T.find("*/", I + 2);
    return End == StringRef::npos ? T.size() : End + 2;
  }
  return I;
}

/// The index just past a literal starting with the quote at \p I.
size_t skipQuoted(StringRef T, size_t I) {
  char Quote = T[I];
  for (++I; I < T.size() && T[I] != Quote && T[I] != '\n'; ++I)
    if (T[I] == '\\')
      ++I;
  return std::min(I + 1, T.size());
}

/// The index just past the raw string literal whose '"' is at \p I.
size_t skipRawString(StringRef T, size_t I) {
  size_t Open = T.find('(', I);
  if (Open == StringRef::npos)
    return T.size();
  std::string Close = ")" + T.slice(I + 1, Open).str() + "\"";
  size_t End = T.find(Close, Open);
  return End == StringRef::npos ? T.size() : End + Close.size();
}

/// A '"' at \p I opens a raw string when the token before it is R, LR, uR,
/// UR or u8R.
bool opensRawString(StringRef T, size_t I) {
  size_t Start = I;
  while (Start > 0 && isIdentifierChar(T[Start - 1]))
    --Start;
  StringRef Prefix = T.slice(Start, I);
  return Prefix == "R" || Prefix == "LR" || Prefix == "uR" || Prefix == "UR" ||
         Prefix == "u8R";
}

/// A '\'' at \p I is a digit separator (1'000) when its token is a number.
bool isDigitSeparator(StringRef T, size_t I) {
  size_t Start = I;
  while (Start > 0 && (isIdentifierChar(T[Start - 1]) || T[Start - 1] == '\''))
    --Start;
  return Start < I && isDigit(T[Start]);
}

/// `template <...>` prefixes removed.
StringRef dropTemplateHeads(StringRef H) {
  while (H.starts_with("template")) {
    StringRef Rest = H.drop_front(8).ltrim();
    if (!Rest.starts_with("<"))
      break;
    int Depth = 0;
    size_t I = 0;
    for (; I < Rest.size(); ++I) {
      if (Rest[I] == '<')
        ++Depth;
      else if (Rest[I] == '>' && --Depth == 0)
        break;
    }
    H = Rest.drop_front(std::min(I + 1, Rest.size())).ltrim();
  }
  return H;
}

/// Leading `[[...]]` attributes removed.
StringRef dropAttributes(StringRef H) {
  while (H.consume_front("[[")) {
    size_t End = H.find("]]");
    H = End == StringRef::npos ? StringRef() : H.drop_front(End + 2).ltrim();
  }
  return H;
}

StringRef firstWord(StringRef H) {
  size_t End = 0;
  while (End < H.size() && isIdentifierChar(H[End]))
    ++End;
  return H.take_front(End);
}

/// The name defined by the block whose header (the text since the previous
/// ';', '{' or '}') is \p Header; empty when it is not a named declaration.
std::string declarationName(StringRef Header) {
  StringRef H = dropAttributes(dropTemplateHeads(Header.trim()));
  StringRef Word = firstWord(H);
  if (Word == "namespace" || Word == "inline") {
    if (Word == "inline")
      H = H.drop_front(6).ltrim();
    if (firstWord(H) != "namespace")
      return "";
    std::string Name;
    for (char C : H.drop_front(9))
      if (isIdentifierChar(C) || C == ':')
        Name += C;
    return Name.empty() ? "(anonymous namespace)" : Name;
  }
  if (Word == "class" || Word == "struct" || Word == "union" || Word == "enum") {
    H = H.drop_front(Word.size()).ltrim();
    if (Word == "enum" && (firstWord(H) == "class" || firstWord(H) == "struct"))
      H = H.drop_front(firstWord(H).size()).ltrim();
    H = dropAttributes(H);
    if (H.starts_with("alignas")) {
      size_t Close = H.find(')');
      H = Close == StringRef::npos ? StringRef() : H.drop_front(Close + 1).ltrim();
    }
    std::string Name;
    for (char C : H) {
      if (!isIdentifierChar(C) && C != ':')
        break;
      Name += C;
    }
    // `class X : public Y` leaves the ':' of the base clause.
    while (!Name.empty() && Name.back() == ':')
      Name.pop_back();
    return Name;
  }
  static const char *const Statements[] = {"if",    "for",   "while",  "switch", "else",
                                           "do",    "try",   "catch",  "return", "case",
                                           "default", "extern", "using"};
  for (const char *S : Statements)
    if (Word == S)
      return "";
  size_t Paren = H.find('(');
  if (Paren == StringRef::npos)
    return "";
  StringRef Before = H.take_front(Paren).rtrim();
  // `operator()(...)`: the first '(' belongs to the name.
  if (Before.ends_with("operator") && H.drop_front(Paren).starts_with("()"))
    return (Before.substr(Before.rfind("operator")) + "()").str();
  if (Before.ends_with("]") || Before.contains('='))
    return ""; // a lambda, an initialiser
  size_t Operator = Before.rfind("operator");
  if (Operator != StringRef::npos &&
      (Operator == 0 || !isIdentifierChar(Before[Operator - 1])) &&
      (Operator + 8 == Before.size() || !isIdentifierChar(Before[Operator + 8]))) {
    std::string Name;
    for (char C : Before.substr(Operator))
      if (!isSpace(C))
        Name += C;
    return Name;
  }
  if (Before.ends_with(">")) { // an explicit specialisation: f<3>(...)
    int Depth = 0;
    size_t I = Before.size();
    while (I > 0) {
      char C = Before[--I];
      if (C == '>')
        ++Depth;
      else if (C == '<' && --Depth == 0)
        break;
    }
    Before = Before.take_front(I).rtrim();
  }
  size_t Start = Before.size();
  while (Start > 0 && (isIdentifierChar(Before[Start - 1]) || Before[Start - 1] == ':' ||
                       Before[Start - 1] == '~'))
    --Start;
  StringRef Name = Before.substr(Start);
  while (Name.consume_front(":")) {
  }
  static const char *const NotNames[] = {"sizeof", "decltype", "alignas", "noexcept",
                                         "static_assert", "requires"};
  for (const char *S : NotNames)
    if (Name == S)
      return "";
  return Name.str();
}

std::string hex(StringRef Bytes) {
  return toHex(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Bytes.data()),
                                 Bytes.size()),
               /*LowerCase=*/true);
}

} // namespace

std::vector<DeclarationBlock> scanDeclarationBlocks(StringRef T) {
  struct Open {
    size_t Index; // in Blocks
    int SavedParens;
  };
  std::vector<Open> Stack;
  // In the order the blocks open, which is the order of their headers.
  std::vector<DeclarationBlock> Blocks;
  size_t HeaderStart = 0;
  int Parens = 0;
  bool AtLineStart = true;
  for (size_t I = 0; I < T.size();) {
    char C = T[I];
    if (C == '\n') {
      AtLineStart = true;
      ++I;
      continue;
    }
    if (isSpace(C)) {
      ++I;
      continue;
    }
    if (AtLineStart && C == '#') {
      // A preprocessor line (with its continuations) is not code.
      while (I < T.size() && T[I] != '\n')
        I += T[I] == '\\' && I + 1 < T.size() && T[I + 1] == '\n' ? 2 : 1;
      HeaderStart = I;
      continue;
    }
    AtLineStart = false;
    if (size_t End = skipComment(T, I); End != I) {
      I = End;
      continue;
    }
    if (C == '"') {
      I = opensRawString(T, I) ? skipRawString(T, I) : skipQuoted(T, I);
      continue;
    }
    if (C == '\'') {
      I = isDigitSeparator(T, I) ? I + 1 : skipQuoted(T, I);
      continue;
    }
    switch (C) {
    case '(':
      ++Parens;
      break;
    case ')':
      Parens = std::max(0, Parens - 1);
      break;
    case ';':
      if (Parens == 0)
        HeaderStart = I + 1;
      break;
    case '{':
      // A brace inside parentheses opens a lambda or an initialiser.
      Blocks.push_back({I, T.size(), Parens ? "" : declarationName(T.slice(HeaderStart, I)),
                        HeaderStart, Stack.empty() ? -1 : static_cast<int>(Stack.back().Index)});
      Stack.push_back({Blocks.size() - 1, Parens});
      Parens = 0;
      HeaderStart = I + 1;
      break;
    case '}':
      if (!Stack.empty()) {
        Blocks[Stack.back().Index].End = I;
        Parens = Stack.back().SavedParens;
        Stack.pop_back();
      }
      HeaderStart = I + 1;
      break;
    default:
      break;
    }
    ++I;
  }
  return Blocks; // unclosed blocks end at the end of the text
}

std::string enclosingDeclaration(ArrayRef<DeclarationBlock> Blocks, size_t Offset) {
  // The last block whose header starts at or before Offset; if it ended
  // before Offset, the innermost block containing Offset is its closest
  // ancestor that did not (blocks nest).
  auto After = llvm::upper_bound(Blocks, Offset, [](size_t O, const DeclarationBlock &B) {
    return O < B.HeaderBegin;
  });
  int I = static_cast<int>(After - Blocks.begin()) - 1;
  while (I >= 0 && Blocks[I].End < Offset)
    I = Blocks[I].Parent;
  std::vector<StringRef> Names;
  for (; I >= 0; I = Blocks[I].Parent)
    if (!Blocks[I].Name.empty())
      Names.push_back(Blocks[I].Name);
  std::string Result;
  for (StringRef Name : llvm::reverse(Names)) {
    if (!Result.empty())
      Result += "::";
    Result += Name;
  }
  return Result;
}

std::optional<std::string> realPath(StringRef Path) {
  SmallString<256> Real;
  if (sys::fs::real_path(Path, Real))
    return std::nullopt;
  return Real.str().str();
}

bool isInside(StringRef Path, StringRef Directory) {
  return Path.starts_with(Directory) &&
         (Path.size() == Directory.size() || Path[Directory.size()] == '/' ||
          Directory.ends_with("/"));
}

std::string findSourceRoot() {
  SmallString<256> Cwd;
  if (sys::fs::current_path(Cwd))
    return ".";
  std::string Dir = realPath(Cwd).value_or(Cwd.str().str());
  for (StringRef D = Dir; !D.empty(); D = sys::path::parent_path(D)) {
    SmallString<256> Git(D);
    sys::path::append(Git, ".git");
    if (sys::fs::exists(Git))
      return D.str();
  }
  return Dir;
}

std::string SourceFiles::absolute(StringRef Path, StringRef BuildDirectory) {
  SmallString<256> Result(Path);
  if (!Result.empty() && sys::path::is_relative(Result))
    compat::makeAbsolute(BuildDirectory, Result);
  sys::path::remove_dots(Result, /*remove_dot_dot=*/true);
  return Result.str().str();
}

SourceFiles::Entry &SourceFiles::entry(const std::string &File) {
  auto [It, Inserted] = Files.try_emplace(File);
  if (Inserted && !File.empty())
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(File)) {
      Entry &E = It->second;
      E.Buffer = std::move(*Buffer);
      StringRef Text = E.Buffer->getBuffer();
      E.LineStarts.push_back(0);
      for (size_t I = Text.find('\n'); I != StringRef::npos; I = Text.find('\n', I + 1))
        E.LineStarts.push_back(I + 1);
    }
  return It->second;
}

std::optional<SourceFiles::Position> SourceFiles::position(const std::string &File,
                                                           unsigned Offset) {
  Entry &E = entry(File);
  if (!E.Buffer || Offset > E.Buffer->getBufferSize())
    return std::nullopt;
  // The last line starting at or before Offset.
  size_t Line = llvm::upper_bound(E.LineStarts, size_t(Offset)) - E.LineStarts.begin();
  StringRef Before = E.Buffer->getBuffer().slice(E.LineStarts[Line - 1], Offset);
  unsigned Utf16 = 0;
  for (unsigned char C : Before)
    Utf16 += (C & 0xC0) != 0x80 ? (C >= 0xF0 ? 2 : 1) : 0; // 4-byte: a surrogate pair
  return Position{static_cast<unsigned>(Line), static_cast<unsigned>(Before.size() + 1),
                  Utf16 + 1};
}

std::optional<StringRef> SourceFiles::lineText(const std::string &File, unsigned Offset) {
  Entry &E = entry(File);
  if (!E.Buffer || Offset > E.Buffer->getBufferSize())
    return std::nullopt;
  StringRef Text = E.Buffer->getBuffer();
  size_t Start = Text.take_front(Offset).rfind('\n');
  Start = Start == StringRef::npos ? 0 : Start + 1;
  size_t End = std::min(Text.find('\n', Offset), Text.size());
  return Text.slice(Start, End).rtrim("\r");
}

std::string SourceFiles::statementAt(const std::string &File, unsigned Offset) {
  Entry &E = entry(File);
  if (!E.Buffer || Offset > E.Buffer->getBufferSize())
    return "";
  StringRef Text = E.Buffer->getBuffer();
  constexpr size_t Reach = 512; // inside a huge initialiser, a bounded window
  auto IsEnd = [](char C) { return C == ';' || C == '{' || C == '}'; };
  size_t Begin = Offset, End = Offset;
  while (Begin > 0 && Offset - Begin < Reach && !IsEnd(Text[Begin - 1]))
    --Begin;
  while (End < Text.size() && End - Offset < Reach && !IsEnd(Text[End]))
    ++End;
  StringRef Statement = Text.slice(Begin, End);
  std::string Result;
  for (size_t I = 0; I < Statement.size();) {
    if (size_t End = skipComment(Statement, I); End != I)
      I = End;
    else if (!isSpace(Statement[I++]))
      Result += Statement[I - 1];
  }
  return Result;
}

std::string SourceFiles::declarationAt(const std::string &File, unsigned Offset) {
  Entry &E = entry(File);
  if (!E.Buffer)
    return "";
  if (!E.Blocks)
    E.Blocks = scanDeclarationBlocks(E.Buffer->getBuffer());
  return enclosingDeclaration(*E.Blocks, Offset);
}

std::optional<std::string> SourceFiles::relativeToRoot(const std::string &File) {
  auto [It, Inserted] = RelativePaths.try_emplace(File);
  if (!Inserted)
    return It->second;
  std::string Real = realPath(File).value_or(File);
  if (isInside(Real, Root))
    It->second = StringRef(Real).drop_front(Root.size()).ltrim('/').str();
  return It->second;
}

StringRef findingLevel(const ClangTidyError &E) {
  if (E.DiagLevel == ClangTidyError::Error || E.IsWarningAsError)
    return "error";
  if (E.DiagLevel == ClangTidyError::Remark)
    return "remark";
  return "warning";
}

bool isCompilerDiagnostic(const ClangTidyError &E) {
  return E.DiagLevel == ClangTidyError::Error;
}

std::vector<FindingIdentity> identify(ArrayRef<ClangTidyError> Errors, SourceFiles &Files) {
  std::vector<FindingIdentity> Result;
  std::map<std::tuple<std::string, std::string, std::string, std::string>, unsigned> Seen;
  for (const ClangTidyError &E : Errors) {
    FindingIdentity Id;
    Id.Check = E.DiagnosticName;
    std::string Snippet;
    if (!E.Message.FilePath.empty()) {
      std::string File = SourceFiles::absolute(E.Message.FilePath, E.BuildDirectory);
      Id.File = Files.relativeToRoot(File).value_or(File);
      Id.Context = Files.declarationAt(File, E.Message.FileOffset);
      Snippet = Files.statementAt(File, E.Message.FileOffset);
    }
    if (Snippet.empty())
      Snippet = E.Message.Message; // nothing else tells two such findings apart
    unsigned Rank = Seen[{Id.Check, Id.File, Id.Context, Snippet}]++;
    std::string Key;
    for (StringRef Part : {StringRef(Id.Check), StringRef(Id.File), StringRef(Id.Context),
                           StringRef(Snippet)}) {
      Key += Part;
      Key += '\0';
    }
    Key += std::to_string(Rank);
    std::array<uint8_t, 20> Hash = SHA1::hash(arrayRefFromStringRef(Key));
    Id.Fingerprint = hex(StringRef(reinterpret_cast<const char *>(Hash.data()), 16));
    Result.push_back(std::move(Id));
  }
  return Result;
}

std::string blake3Hex(StringRef Data) {
  BLAKE3 Hasher;
  Hasher.update(Data);
  return toHex(Hasher.final(), /*LowerCase=*/true);
}

} // namespace gradlint
