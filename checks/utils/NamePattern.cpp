//===--- NamePattern.cpp - glob lists for names ---------------------------===//

#include "utils/NamePattern.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

namespace clang::tidy::gradlint {

static bool isIdentifierGlob(llvm::StringRef Glob) {
  return llvm::all_of(Glob, [](char C) {
    return C == '*' || C == '_' || C == ':' || llvm::isAlnum(C);
  });
}

std::optional<NamePattern> NamePattern::parse(llvm::StringRef Globs,
                                              std::string &Error) {
  NamePattern Pattern;
  std::string Alternatives;
  llvm::SmallVector<llvm::StringRef, 8> Items;
  Globs.split(Items, ';', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef Item : Items) {
    Item = Item.trim();
    if (Item.empty())
      continue;
    if (!isIdentifierGlob(Item)) {
      Error = ("'" + llvm::Twine(Item) + "' is not a name glob (letters, digits, '_', ':' "
               "and '*' only)")
                  .str();
      return std::nullopt;
    }
    if (!Item.contains('*')) {
      Pattern.Exact.insert(Item);
      continue;
    }
    if (!Alternatives.empty())
      Alternatives += '|';
    for (char C : Item)
      Alternatives += C == '*' ? std::string(".*") : std::string(1, C);
  }
  if (!Alternatives.empty())
    Pattern.Wildcards.emplace("^(" + Alternatives + ")$");
  return Pattern;
}

bool NamePattern::matches(llvm::StringRef Name) const {
  if (Exact.contains(Name))
    return true;
  return Wildcards && Wildcards->match(Name);
}

} // namespace clang::tidy::gradlint
